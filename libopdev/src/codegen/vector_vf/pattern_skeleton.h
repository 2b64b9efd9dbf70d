// The pure-vec pattern skeleton: for a DESIGN whose §1 freezes only an API chain (the
// vector_selection api_sequence, no kernel code), builds the kernel and @pl.vector_function
// regions the transcription path would have read from §1 code, so the Vector VF backend, the
// API catalog check, the §2/§3 table checks, the budget and the shared emitters all apply
// unchanged. The chain decides the math; the skeleton supplies only structure:
//
//   * tile groups from the §2 Tile 属性表 / TileGroup table and the §3 address map (one per
//     launch tensor: row inputs and the output double-buffered, per-column parameters loaded
//     once before the row loop), addresses written with the §2.1 constant naming each;
//   * the multi-core row loop `for tile_id in pl.range(core_id, num_tiles, num_cores)`, the row
//     tail via `pl.set_validshape` before `pl.load`;
//   * one VF: per row, one pass over the row's registers per reduction (Pattern B/B+: reduce
//     with a lane-0 accumulator, broadcast with vf.full, row-level ops on the broadcast value)
//     and a final pass that applies the rest of the chain and stores (Pattern A: that pass
//     only); column tails through vf.update_mask of the valid columns, load_align → chain →
//     store_align.
//
// Pattern C (a row longer than one tile): column chunks of the tile width; each reduction pass
// keeps the rows' lane-0 accumulators in a UB tile (§2 `acc…` rows) across VF calls, with an
// init VF for the first chunk and an accumulate VF for the others, then an output VF per chunk.
#pragma once

#include "../design_code.h"
#include "../gen_context.h"

namespace opdev::codegen::vector_vf {

enum class SkeletonOutcome {
  kNoChain,  // §1 freezes no vf compute chain: nothing to build (no finding)
  kBuilt,    // code.regions now hold the kernel and VF regions
  kFailed,   // findings recorded; no file
};

SkeletonOutcome BuildPatternSkeleton(DesignCode& code, GenContext& ctx);

}  // namespace opdev::codegen::vector_vf
