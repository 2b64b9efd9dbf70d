// Tiles of the simulator: TileType (shape, dtype, memory space, valid shape, layout, pad,
// fractal, compact), tiles as views into a core's on-chip memory, tile groups (ring of slots
// with next/current/previous/[i]) and the placement checks (capacity, alignment, shape).
// Element addressing covers ND, DN and the fractal layouts NZ/ZN used by the cube path.
#pragma once

#include "opdev/sim/memory.h"
#include "opdev/support/dtype.h"
#include "opdev/support/target.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::sim {

enum class Layout { kND, kDN, kNZ, kZN, kZZ, kNN };
enum class Pad { kNull, kZero, kMax, kMin };

std::string_view LayoutName(Layout l);
std::optional<Layout> ParseLayout(std::string_view s);  // "ND", "pl.DN", "TileLayout.NZ", ...
std::optional<Pad> ParsePad(std::string_view s);        // "null", "zero", "TilePad.max", ...

struct TileType {
  std::array<int64_t, 2> shape{0, 0};
  DType dtype = DType::kFloat32;
  MemSpace space = MemSpace::kVec;
  std::array<int64_t, 2> valid{-1, -1};  // -1: dynamic (set_validshape), else a constant
  std::optional<Layout> layout;          // unset: space default
  Pad pad = Pad::kNull;
  int fractal = 0;
  int compact = 0;

  Layout EffectiveLayout() const;  // ND for Vec, NZ for Mat/Left/Acc, ZN for Right
  uint64_t Bytes() const { return static_cast<uint64_t>(shape[0] * shape[1]) * DTypeSize(dtype); }
};

// A tile: a typed view of [addr, addr+size) in one space of the executing core.
struct Tile {
  int id = 0;
  TileType type;
  uint64_t addr = 0;
  uint64_t size = 0;   // bytes reserved (make_tile size= or type bytes)
  int64_t valid_rows = 0;
  int64_t valid_cols = 0;
  int decl_line = 0;
  std::string name;     // variable or group[slot] name for messages
  // Tracking for the set_validshape-after-load rule.
  int last_load_line = 0;   // line of the most recent pl.load into this tile (0 none)
  bool used = false;        // accessed by any operation

  // Byte offset (from addr) of element (r, c) for the tile's layout.
  uint64_t ElementOffset(int64_t r, int64_t c) const;
  size_t elem_size() const { return DTypeSize(type.dtype); }
};

struct TileGroup {
  TileType type;
  std::vector<std::shared_ptr<Tile>> slots;
  int cursor = -1;  // index of current(); -1 before the first next()
  int decl_line = 0;
  std::string name;

  std::shared_ptr<Tile> Next();
  std::shared_ptr<Tile> Current() const;   // nullptr before the first next()
  std::shared_ptr<Tile> Previous() const;  // nullptr before the second next()
};

// Placement problems of a tile (empty when fine). Each names the hazard code.
struct PlacementIssue {
  std::string_view code;
  std::string message;
};
std::vector<PlacementIssue> CheckPlacement(const Tile& t, Target target);

// True when [a, a+asz) and [b, b+bsz) intersect without being the same region start (an exact
// alias — same address — is a legitimate second view of the same bytes).
bool PartiallyOverlap(const Tile& a, const Tile& b);

}  // namespace opdev::sim
