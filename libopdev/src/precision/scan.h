// The streaming pass of the floating-point comparison: one read of both tensors, each block
// converted to float64 in registers by a fused kernel (never whole-tensor copies), spread
// over the machine's cores in fixed-size chunks whose partial sums are combined in chunk
// order so the result does not depend on the number of threads or on the instruction set.
#pragma once

#include "opdev/precision/tensor.h"

#include <cstdint>
#include <vector>

namespace opdev::precision {

struct ScanKernels;

// Histogram of error / tolerance (tolerance = atol + rtol*|golden|) over compared elements.
// Bin i holds ratios in (edge[i-1], edge[i]]; bin 0 is [0, edge[0]]; the last bin is > the
// last edge. Bins up to and including ratio 1 are passing elements.
inline constexpr int kHistEdges = 7;
inline constexpr double kHistEdge[kHistEdges] = {0.0625, 0.25, 0.5, 1.0, 2.0, 4.0, 16.0};
inline constexpr int kHistBins = kHistEdges + 1;

struct ScanParams {
  double rtol = 0;
  double atol = 0;
  double replace_max = 0;  // finfo(comparison dtype).max: stands in for a one-sided Inf
  bool diagnostics = true;  // sums for cosine/RMSE, histogram, worst elements, fail profile
  int worst_k = 10;
  int64_t rows = 1;        // extent of axis -2 (1 for rank < 2)
  int64_t cols = 1;        // extent of the last axis (1 for rank 0)
  int64_t tile_rows = 0;   // 0 = no per-tile counting
  int64_t tile_cols = 0;
  int threads = 0;         // 0 = hardware concurrency
  const ScanKernels* kernels = nullptr;  // nullptr = the best build for this CPU (tests pick one)
};

struct ScanWorst {
  int64_t flat = 0;
  double actual = 0;   // after the one-sided Inf replacement
  double golden = 0;
  double abs_error = 0;
  double tolerance = 0;
};

struct ScanResult {
  int64_t total = 0;
  int64_t nan_mismatch = 0;       // NaN on exactly one side
  int64_t inf_sign_mismatch = 0;  // both Inf, opposite signs
  int64_t special_matched = 0;    // both NaN, or both Inf with the same sign
  int64_t compared = 0;
  int64_t passed = 0;             // passing compared elements
  int64_t rel_count = 0;          // compared elements with |golden| > 0
  double sum_abs = 0, max_abs = 0, sum_rel = 0;
  // Diagnostics (valid when params.diagnostics).
  double max_rel = 0;
  double sum_sq = 0, sum_ag = 0, sum_aa = 0, sum_gg = 0;
  int64_t hist[kHistBins] = {};
  std::vector<ScanWorst> worst;      // worst first; ties by lower flat index
  int64_t first_fail = -1;              // lowest flat index of a failing compared element
  std::vector<int64_t> fail_rows;       // per index along axis -2 (empty if no failure)
  std::vector<int64_t> fail_cols;       // per index along the last axis
  std::vector<int64_t> fail_tiles;      // tile_grid_rows x tile_grid_cols, row-major
  std::vector<int64_t> special_rows;    // NaN/Inf mismatches per row (empty if none)
};

// Both tensors must be floating and have the same number of elements.
ScanResult ScanFloating(const Tensor& actual, const Tensor& golden, const ScanParams& params);

// Count of differing elements for the exact (integer/bool) path; same dtypes required.
int64_t CountExactMismatches(const Tensor& actual, const Tensor& golden, int threads);

}  // namespace opdev::precision
