// Checks of an on-chip slot model against a target: address alignment per space, capacity
// (the per-space high-water mark), overlap of coexisting slots (identical-address aliases
// that are declared as such are allowed and listed), and mutex-id range and uniqueness.
#pragma once

#include "opdev/budget/matmul_budget.h"
#include "opdev/budget/slot_model.h"
#include "opdev/support/diagnostic.h"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opdev::budget {

struct SpaceUsage {
  MemSpace space = MemSpace::kVec;
  std::uint64_t capacity = 0;
  std::uint64_t alignment = 0;
  std::uint64_t high_water = 0;   // max end byte over the slots of this space
  std::uint64_t slot_bytes = 0;   // sum of slot bytes, aliases counted once
  int slot_count = 0;
  double percent() const {
    return capacity ? 100.0 * static_cast<double>(high_water) / static_cast<double>(capacity)
                    : 0.0;
  }
};

struct AliasPair {
  std::string a;
  std::string b;
  std::uint64_t address = 0;
  std::string reason;  // "same address expression", "declared alias", ...
};

struct BudgetReport {
  SlotModel model;
  std::vector<SpaceUsage> spaces;  // only spaces that hold at least one slot, in target order
  std::vector<AliasPair> aliases;
  std::optional<MatmulBudget> matmul;  // when the slots form a Cube matmul tiling (spec §9)
  Diagnostics diagnostics;
  bool ok() const { return !diagnostics.HasErrors(); }
};

struct CheckOptions {
  // Category stamped on findings: implementation_error for a kernel file,
  // design_violation for a DESIGN map.
  std::string category = "implementation_error";
  std::string section;  // e.g. "§3" when checking a DESIGN map
};

// Runs every check; never fails as a call (findings go to report.diagnostics).
BudgetReport CheckBudget(const SlotModel& model, const CheckOptions& opts = {});

boost::json::object BudgetReportToJson(const BudgetReport& report);
// Human-readable table: one line per slot, then per-space high-water lines.
std::string BudgetReportToText(const BudgetReport& report);

// "0x30000" style hex (uppercase digits, at least five digits as DESIGN §3 writes them).
std::string HexAddress(std::uint64_t v);

}  // namespace opdev::budget
