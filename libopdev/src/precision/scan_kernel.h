// Per-instruction-set kernels of the streaming comparison: converting a block of elements to
// float64 and reducing a block of finite float64 pairs. Two builds of the same source exist
// (baseline x86-64 and AVX2+F16C, chosen at run time); both perform the same IEEE operations
// per lane in the same order, so their results are bit-identical.
#pragma once

#include "precision/scan.h"

#include <cstdint>

namespace opdev::precision {

inline constexpr int kScanBlock = 256;  // elements per block (multiple of 8)

struct BlockParams {
  double rtol, atol;
};

// Sums of one block. Padding lanes (a = g = 0) are included; the caller corrects counts.
struct BlockSums {
  double sum_abs, sum_rel, max_abs, max_rel;
  double sum_sq, sum_ag, sum_aa, sum_gg;
  int64_t passed, rel_count;
  // Elements with abs_error > tolerance * kHistEdge[e] for the edges below 1 (e < 3); the
  // bins above 1 hold failing elements only and are filled by the caller's per-element pass.
  int64_t above_edge[kHistEdges];
};

inline constexpr int kPassEdges = 3;  // kHistEdge[0..2] = 1/16, 1/4, 1/2

struct ScanKernels {
  const char* name;
  // Convert n elements (n <= kScanBlock) to double.
  void (*load_f16)(const void* src, int n, double* dst);
  void (*load_bf16)(const void* src, int n, double* dst);
  void (*load_f32)(const void* src, int n, double* dst);
  void (*load_f64)(const void* src, int n, double* dst);
  // True when any of the kScanBlock values of a or g is NaN or Inf.
  bool (*any_nonfinite)(const double* a, const double* g);
  // Reduces kScanBlock finite pairs (32-byte aligned buffers).
  void (*block)(const double* a, const double* g, const BlockParams& p, bool diagnostics,
                BlockSums* out);
};

// The best kernels this CPU supports.
const ScanKernels& SelectScanKernels();
// The baseline kernels (used by tests to check the two builds agree).
const ScanKernels& BaselineScanKernels();

}  // namespace opdev::precision
