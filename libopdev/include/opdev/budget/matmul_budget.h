// The Cube matmul budget (spec §9): from the Cube tiles of a slot model — A and B in Mat
// [TM, TK1] / [TK1, TN], Left [TM, TK0], Right [TK0, TN], Acc [TM, TN] — the tiling
// (TM, TK1, TK0, TN) with its buffer depths, and the per-space footprint of the formulas
//   L1  = depth_l1 · (TM·TK1 + TK1·TN) · operand_bytes
//   L0A = depth_l0 · TM·TK0 · operand_bytes
//   L0B = depth_l0 · TK0·TN · operand_bytes
//   L0C = TM·TN · accumulator_bytes
// each checked against the space's capacity on the target; the Acc tile against the 1024-byte
// L0C fractal. A slot model without exactly two Mat groups and one Left, Right and Acc group
// has no matmul tiling (no finding: it is not a matmul layout).
#pragma once

#include "opdev/budget/slot_model.h"
#include "opdev/support/diagnostic.h"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace opdev::budget {

struct MatmulTiling {
  std::int64_t tm = 0, tk1 = 0, tk0 = 0, tn = 0;
  std::int64_t depth_a = 0, depth_b = 0;  // Mat slots of A and B (depth_l1 when equal)
  std::int64_t depth_left = 0, depth_right = 0;  // L0A / L0B slots (depth_l0 when equal)
  std::int64_t depth_acc = 0;
  DType operand = DType::kFloat16;
  DType accumulator = DType::kFloat32;
  std::string a_group, b_group, left_group, right_group, acc_group;
};

struct MatmulFootprint {
  std::uint64_t l1 = 0, l0a = 0, l0b = 0, l0c = 0;
};

struct MatmulBudget {
  MatmulTiling tiling;
  MatmulFootprint formula;
  Diagnostics diagnostics;  // BUDGET-MATMUL-* findings
};

// nullopt when the model holds no matmul layout; findings (category of `category`) when its
// Cube tiles contradict one another (BUDGET-MATMUL-SHAPES), depths differ between A and B or
// Left and Right (BUDGET-MATMUL-DEPTH, warning: the formula is then evaluated per operand), a
// footprint exceeds its space (BUDGET-MATMUL-CAPACITY), the Acc tile is below one fractal
// (BUDGET-ACC-FRACTAL), or a space holds other tiles beside the matmul's
// (BUDGET-MATMUL-FORMULA, note).
std::optional<MatmulBudget> MatmulBudgetOf(const SlotModel& model, std::string_view category,
                                           std::string_view section = {});

// Kernel vs DESIGN §3: the two tilings must agree (BUDGET-MATMUL-MISMATCH).
Diagnostics CompareMatmulTilings(const MatmulBudget& kernel, const MatmulBudget& design,
                                 const std::string& kernel_file, std::string_view category);

boost::json::object MatmulBudgetToJson(const MatmulBudget& b);
std::string MatmulBudgetToText(const MatmulBudget& b);

}  // namespace opdev::budget
