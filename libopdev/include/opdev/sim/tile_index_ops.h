// The index-addressed tile operations pl.gather and pl.scatter (gather.md, scatter.md): each
// element moves to or from the flat element offset an index tile gives, with the offsets
// outside the tile and the write conflicts the docs leave undefined reported as findings.
#pragma once

#include "opdev/sim/data_movement.h"
#include "opdev/sim/memory.h"
#include "opdev/sim/tile.h"

#include <cstdint>
#include <vector>

namespace opdev::sim::tileop {

// gather.md: out[r, c] = src_flat[idx[r, c] + offset] over idx's valid window, src_flat the
// source tile's elements in row-major order of its shape; `tmp` is left undefined.
std::vector<Issue> Gather(CoreMemory& mem, Tile& out, const Tile& src, const Tile& idx, Tile& tmp, int64_t offset);
// scatter.md: out_flat[idx[r, c]] = src[r, c] over src's valid window.
std::vector<Issue> Scatter(CoreMemory& mem, Tile& out, const Tile& src, const Tile& idx);

}  // namespace opdev::sim::tileop
