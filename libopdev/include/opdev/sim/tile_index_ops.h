// The index-addressed tile operations pl.gather, pl.scatter, pl.gathermask and pl.gatherb
// (gather.md, scatter.md, gathermask.md, gatherb.md): elements (or 32-byte blocks) move to or
// from the positions an index tile or a column pattern gives, bytes unchanged, with the
// offsets outside the tile and the write conflicts the docs leave undefined reported.
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
// gathermask.md: the columns of src a pattern selects (1: even, 2: odd, 3..6: column 0..3 of
// every 4, 7: all), packed into out's columns, over src's valid rows.
std::vector<Issue> GatherMask(CoreMemory& mem, Tile& out, const Tile& src, int64_t pattern_mode);
// gatherb.md: out's 32-byte block j of row r = the 32 bytes of src at byte offset
// offsets[r, j] from src's base (offsets DT_UINT32, [rows, cols / (32 / element size)]).
std::vector<Issue> GatherBlocks(CoreMemory& mem, Tile& out, const Tile& src, const Tile& offsets);

}  // namespace opdev::sim::tileop
