// What a Cube DESIGN without kernel code freezes for the dynamic two-level-K matmul, read and
// cross-checked before any code is built: the §1 `cube_matmul:` block (the API sequence and
// the tile parameters TM, TK1, TK0, TN as §2.1 constants, the tile order `raster` or `asw`
// with its window), the five §2 Tile 属性表 rows (A and B in Mat [TM, TK1] / [TK1, TN], Left
// [TM, TK0], Right [TK0, TN], Acc [TM, TN]) with their §2 TileGroup mutex ids and §3
// addresses, and the SPEC contraction A[M, K] · B[K, N] → C[M, N] of the §5 launch arguments.
// A missing or contradictory fact is a design_violation at its DESIGN line and no plan:
// the skeleton never guesses a parameter.
//
//   cube_matmul:
//     api_sequence: pl.load → pl.move(offset) → pl.matmul / pl.matmul_acc(AccPhase) → pl.store(STPhase.Final)
//     TM: TILE_M
//     TK1: KL1
//     TK0: KL0
//     TN: TILE_N
//     order: raster            # or: asw, with window: MAIN_WINDOW
//     k_multiple: K_FRACTAL    # optional: K restricted to multiples of the K fractal
#pragma once

#include "../backend.h"
#include "../gen_context.h"

#include "opdev/contract/design_doc.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opdev::codegen::cube_matmul {

struct ParamRef {            // one frozen parameter: the §2.1 constant the code writes
  std::string name;          // "TILE_M" (or a decimal literal when no constant names it)
  std::int64_t value = 0;
  int line = 0;              // DESIGN line of the `TM: ...` entry
};

struct CubeGroup {           // one tile group of the skeleton
  std::string role;          // "A in Mat", "Left", ...
  std::string group;         // TileGroup variable from §2 ("a_l1")
  std::string type_var;      // TileType variable the kernel declares ("a_l1_tt")
  std::string slot_var;      // the slot variable: the §2 row's variable ("a_mat")
  const contract::TileAttr* tile = nullptr;
  std::string addrs;         // `addrs=` expression: base constant or a list
  std::vector<std::int64_t> mutex_ids;
  std::int64_t depth = 0;
};

struct MatmulPlan {
  int line = 0;              // line of the `cube_matmul:` block
  std::string api_sequence;
  ParamRef tm, tk1, tk0, tn;
  bool asw = false;
  ParamRef window;           // ASW window (M tiles per snake column), asw only
  // `k_multiple:` the K granularity DESIGN restricts the contraction to (a multiple of the K
  // fractal); value 0 when DESIGN states none (then sub-fractal K tails are undefined).
  ParamRef k_multiple;
  CubeGroup a_l1, b_l1, left, right, acc;
  std::string a, b, c;       // launch arguments: left operand, right operand, output
  std::string m_sym, k_sym, n_sym;  // SPEC shape symbols of M, K, N
  DType operand = DType::kFloat16;
};

enum class PlanOutcome { kNone, kPlanned, kFailed };

// kNone: §1 has no `cube_matmul:` block (no finding). kFailed: findings recorded.
PlanOutcome ReadMatmulPlan(GenContext& ctx, MatmulPlan* plan);

}  // namespace opdev::codegen::cube_matmul
