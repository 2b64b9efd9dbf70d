// Tiles of the simulator: TileType (shape, dtype, memory space, valid shape, layout, pad,
// fractal, compact), tiles as views into a core's on-chip memory, tile groups (ring of slots
// with next/current/previous/[i]) and the placement checks (capacity, alignment, shape).
// Element addressing covers ND, DN and the fractal layouts of the Cube path (NZ, ZN, ZZ, NN;
// Cube_matrix_computation.md): a fractal is 16 rows x 32 B for the A-side layouts (NZ, ZZ),
// 32 B x 16 columns for the B-side ones (ZN, NN), and 16 x 16 elements in Acc; `compact=1`
// lays the fractals out over the valid shape (rounded up to whole fractals) instead of the
// full shape.
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

  // ND for Vec/Bias/Scaling, NZ for Mat/Left/Acc, ZN for Right, ZZ for ScaleLeft, NN for
  // ScaleRight (inline: tile operations address every element through it). A [N, 1] Vec tile
  // is DN whatever its layout= says: the backend declares every one-column tile ColMajor
  // (type_converter.cpp, ConvertTileType); its element offsets are the same either way.
  Layout EffectiveLayout() const {
    if (shape[1] == 1 && space == MemSpace::kVec) return Layout::kDN;
    if (layout) return *layout;
    switch (space) {
      case MemSpace::kMat: case MemSpace::kLeft: case MemSpace::kAcc: return Layout::kNZ;
      case MemSpace::kRight: return Layout::kZN;
      case MemSpace::kScaleLeft: return Layout::kZZ;
      case MemSpace::kScaleRight: return Layout::kNN;
      default: return Layout::kND;
    }
  }
  bool IsFractal() const;          // NZ, ZN, ZZ or NN
  // Fractal rows x columns of the layout (1 x 1 for ND/DN).
  int64_t FractalRows() const;
  int64_t FractalCols() const;
  // The fractal size in bytes the tile describes: `fractal` when given, else the default
  // (Acc FP32/INT32: 1024; other Cube tiles: fractal rows x cols x element size).
  int64_t FractalBytes() const;
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
  // The mutex ids of its tile-group slot (make_tile_group(mutex_ids=...)), kept by sub-views:
  // auto_mutex locks them around every operation on the tile.
  std::vector<int64_t> mutex_ids;

  // Byte offset (from addr) of element (r, c) for the tile's layout (ND and DN inline, the
  // fractal layouts in FractalOffset).
  uint64_t ElementOffset(int64_t r, int64_t c) const {
    const Layout l = type.EffectiveLayout();
    if (l == Layout::kND) return static_cast<uint64_t>(r * type.shape[1] + c) * elem_size();
    if (l == Layout::kDN) return static_cast<uint64_t>(c * type.shape[0] + r) * elem_size();
    return FractalOffset(l, r, c);
  }
  uint64_t FractalOffset(Layout l, int64_t r, int64_t c) const;
  // Elements from (r, c) on along the row that are contiguous in memory (up to `limit`).
  int64_t RowRun(int64_t c, int64_t limit) const;
  // Every layout's offset is separable: ElementOffset(r, c) == RowOffset(r) + ColOffset(c).
  uint64_t RowOffset(int64_t r) const { return ElementOffset(r, 0); }
  uint64_t ColOffset(int64_t c) const { return ElementOffset(0, c); }
  // True when consecutive rows of a column are adjacent in memory (DN, ZN, NN inside a
  // fractal); false when consecutive columns of a row are (ND, NZ, ZZ).
  bool ColumnMajorInside() const;
  size_t elem_size() const { return DTypeSize(type.dtype); }
};

struct TileGroup {
  TileType type;
  std::vector<std::shared_ptr<Tile>> slots;
  int cursor = -1;  // index of current(); -1 before the first next()
  std::vector<int64_t> mutex_ids;  // make_tile_group(mutex_ids=...) (flattened ints)
  // make_tile_group(fwd_ids=, bwd_ids=): the cross-core event of each slot that the pipeline
  // transform sets and waits around the stages writing and reading the group (empty: none).
  std::vector<int64_t> fwd_ids, bwd_ids;
  int decl_line = 0;
  std::string name;

  std::shared_ptr<Tile> Next();
  std::shared_ptr<Tile> Current() const;   // slot 0 before the first next()
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

// True when the bytes of `inner` lie inside those of `outer` (same space).
bool ContainedIn(const Tile& inner, const Tile& outer);

// Views of one locked buffer: slot i of one group lies inside slot i of the other (or is it)
// and both slots hold the same mutex id, so auto_mutex orders every access to those bytes
// through one lock (make_tile_group.md: mutex ids may repeat across tiles). The fa/ VF samples
// declare their P buffer so: one ND tile group and two NZ half groups inside it, all on
// mutex ids [0, 1].
bool LockedViews(const TileGroup& a, const TileGroup& b);

}  // namespace opdev::sim
