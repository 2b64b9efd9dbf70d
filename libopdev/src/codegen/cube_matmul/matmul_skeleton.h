// The official dynamic-matmul structure for a Cube DESIGN that freezes the API sequence and the
// (TM, TK1, TK0, TN) parameters instead of kernel code (matmul_plan.h). It builds the kernel
// region the transcription path would have read from §1, so names, TileType completion from
// §2, the API catalog, the §2/§3 table checks and the budget apply unchanged:
//
//   * the five tile groups of the plan inside `with pl.section_cube()`, addresses and mutex ids
//     from §3 / §2, and `pl.system.set_mm_layout_transform` on around the tile loop, off after;
//   * output tiles [TM, TN] strided over the cores (`pl.range(core_id, tiles, num_cores)`), in
//     raster order or in the ASW snake (window of M tiles, alternate N direction per column);
//   * two-level K blocking: per TK1 block one GM→Mat load of A and B clipped to the live window
//     (set_validshape before load), then a runtime loop over its TK0 sub-tiles (1 …
//     TK1/TK0, a loop so every slot's next() stays balanced): Mat→Left / Mat→Right moves with
//     `offset=`, on the full TM / TN extent and the live K;
//   * the four-branch accumulation: the first global sub-tile `pl.matmul`, later ones
//     `pl.matmul_acc`, `AccPhase.Final` on the last sub-tile and `Partial` before it;
//   * the store clipped to the live [valid_m, valid_n] window with `STPhase.Final`.
#pragma once

#include "matmul_plan.h"

#include "../design_code.h"
#include "../gen_context.h"

namespace opdev::codegen::cube_matmul {

// Adds the kernel region to `code` (false after a CODEGEN-CUBE-INTERNAL finding).
bool BuildMatmulSkeleton(const MatmulPlan& plan, DesignCode& code, GenContext& ctx);

}  // namespace opdev::codegen::cube_matmul
