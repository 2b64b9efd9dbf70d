// Per-instruction-set kernels of the streaming comparison: one fused pass over a block of
// both tensors' raw elements (conversion to float64 in registers, error, tolerance, sums,
// counts and maxima), and the conversion of a block to float64 for the per-element paths.
// Three builds of the same source exist (baseline x86-64, AVX2+F16C, AVX-512), chosen at run
// time; all of them perform the same IEEE operations per lane in the same order over 8
// lanes, so their results are bit-identical.
#pragma once

#include "opdev/support/dtype.h"
#include "precision/scan.h"

#include <cstdint>

namespace opdev::precision {

inline constexpr int kScanBlock = 512;  // elements per block (multiple of kScanLanes)
inline constexpr int kScanLanes = 8;    // element i of a block accumulates into lane i % 8

struct BlockParams {
  double rtol, atol;
};

// Sums of one block of kScanBlock elements. Element i is added to lane i % kScanLanes; the
// lanes are combined as ((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7)).
struct BlockSums {
  bool finite;  // false: some element is NaN or Inf (or an error overflowed); nothing else valid
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
  // Converts n elements of type t (float16, bfloat16, float32 or float64) to double.
  void (*load)(const void* src, DType t, int n, double* dst);
  // Reduces kScanBlock element pairs read straight from the tensors' bytes (a of type at,
  // g of type gt). max_rel, the diagnostic sums and above_edge are filled only when
  // diagnostics (they are 0 otherwise).
  void (*block)(const void* a, DType at, const void* g, DType gt, const BlockParams& p,
                bool diagnostics, BlockSums* out);
};

// The best kernels this CPU supports.
const ScanKernels& SelectScanKernels();
// Every build this CPU can run, baseline first (used by tests to check that they agree).
int AvailableScanKernels(const ScanKernels** out, int max);

}  // namespace opdev::precision
