// GM <-> on-chip transfers of the simulator: pl.load / pl.load_tile (MTE2, ND -> the tile's
// layout, NZ/ZN for Mat) and pl.store / pl.store_tile (MTE3 from Vec, FIX from Acc: NZ -> ND
// with dtype conversion, ReLU and scale). Transfers move the tile's valid window; elements outside the GM
// tensor are reported (the device's out-of-range DMA) and skipped; stores record the writing
// core per GM element and report stores of never-written on-chip bytes. Given `touched`, a
// transfer appends the GM elements it accessed.
#pragma once

#include "opdev/sim/fixpipe.h"
#include "opdev/sim/memory.h"
#include "opdev/sim/tile.h"

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace opdev::sim {

using Issue = PlacementIssue;
// The GM elements a transfer touched, as runs (first flat index, count), for race tracking, in
// transfer order; a run that continues the previous one extends it (two full rows of a
// [2, 8] tensor are one run {0, 16}). A few runs (a tile of contiguous rows is one) are held
// without allocating.
using TouchedRuns = absl::InlinedVector<std::pair<int64_t, int64_t>, 4>;

// The two tensor axes a transfer walks (load_tile.md / store.md `order`, sorted ascending): the
// tile's rows run along `row`, its columns along `col`; the other axes are fixed by the offsets.
// {-1, -1}: the last two axes (the default order [ndim-2, ndim-1]).
struct TransferAxes {
  int row = -1;
  int col = -1;
};

// `offsets` are absolute element offsets, one per tensor axis (a missing leading offset is 0).
// `transpose` (a descending order, [1, 0] in 2-D) maps tile (r, c) to tensor (row c, col r)
// of the two axes.
std::vector<Issue> LoadTile(CoreMemory& mem, Tile& dst, const GmTensor& src,
                            absl::Span<const int64_t> offsets, bool transpose = false,
                            TouchedRuns* touched = nullptr, TransferAxes axes = {});
// `fix`: the source is an Acc tile and the transfer goes through FIX; nullptr for Vec (MTE3),
// which does not convert (a dtype difference is reported). Given `changed` (with `touched`),
// the store also appends the elements whose bytes it changed: a store of the bytes an element
// already holds leaves the same result in whichever order the writers land. `atomic_add`
// (store.md, atomic=pl.AtomicType.AtomicAdd): each element is added to the one in GM (the
// sum rounded once to the tensor's dtype) instead of replacing it.
std::vector<Issue> StoreTile(GmTensor& dst, const CoreMemory& mem, const Tile& src,
                             absl::Span<const int64_t> offsets, int core_id,
                             const FixOptions* fix = nullptr, TouchedRuns* touched = nullptr,
                             TouchedRuns* changed = nullptr, TransferAxes axes = {},
                             bool atomic_add = false);

}  // namespace opdev::sim
