// The on-chip slot model the budget works on: every buffer slot a kernel (or a DESIGN §3
// address map) places in an on-chip memory, with its space, byte range, mutex ids and the
// source line that declared it. Built from a kernel AST (kernel_budget.h) or from DESIGN §3
// (design_map.h); checked by budget_check.h; drawn by memory_map_svg.h.
#pragma once

#include "opdev/support/dtype.h"
#include "opdev/support/target.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opdev::budget {

struct Slot {
  std::string name;        // "in_group[0]" for a group slot, the variable for make_tile
  std::string group;       // TileGroup variable, empty for a make_tile tile
  int index = 0;           // slot index inside its group (0 for make_tile)
  MemSpace space = MemSpace::kVec;
  std::uint64_t address = 0;  // start byte (inclusive)
  std::uint64_t bytes = 0;    // bytes of this slot; the range is [address, address+bytes)
  std::vector<int> mutex_ids;  // ids guarding this slot (empty: no auto mutex)
  std::vector<std::int64_t> shape;  // physical tile shape
  std::optional<DType> dtype;
  std::string address_expr;  // how the source wrote the address ("VA_IN1", "0x0C000", ...)
  std::string alias_of;      // name of the slot this one deliberately aliases, if declared
  int line = 0;              // declaring line in `file` (kernel or DESIGN)

  std::uint64_t end() const { return address + bytes; }
};

struct SlotModel {
  Target target = Target::kA5;
  std::string file;  // the kernel file or DESIGN.md the slots came from
  std::vector<Slot> slots;
};

}  // namespace opdev::budget
