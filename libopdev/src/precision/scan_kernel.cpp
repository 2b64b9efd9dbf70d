// Instantiates the comparison kernels for the baseline instruction set, for AVX2+F16C and for
// AVX-512, and picks one at run time (see scan_kernel.inc for why the body is shared text).
#include "precision/scan_kernel.h"

#include "opdev/support/cpu_features.h"
#include "opdev/support/half.h"

#include <cstddef>
#include <cstdint>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

// The kernels' helpers take and return 64-byte vectors; they have internal linkage, so the
// ABI note GCC gives for the baseline build is irrelevant (GCC reports it at the end of
// the file, so it stays off for the whole file).
#pragma GCC diagnostic ignored "-Wpsabi"

// AVX-512 implies FMA, and GCC contracts a*b+c into one fused operation by default in C++;
// that would round differently from the baseline build (and the per-element path), so every
// kernel here keeps separate multiplies and adds.
// GCC and clang spell the contraction switch and the per-region ISA (below) differently.
#if defined(__clang__)
#pragma clang fp contract(off)
#else
#pragma GCC optimize("fp-contract=off")
#endif

namespace opdev::precision {

namespace scan_baseline {
#define OPDEV_SCAN_ISA 0
#include "precision/scan_kernel.inc"
#undef OPDEV_SCAN_ISA
const ScanKernels kKernels = {"baseline", Load, Block};
}  // namespace scan_baseline

#if defined(__x86_64__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,f16c"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,f16c")
#endif
namespace scan_avx2 {
#define OPDEV_SCAN_ISA 1
#include "precision/scan_kernel.inc"
#undef OPDEV_SCAN_ISA
}  // namespace scan_avx2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
namespace scan_avx2 {
const ScanKernels kKernels = {"avx2", Load, Block};
}  // namespace scan_avx2

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,f16c,avx512f,avx512bw,avx512dq,avx512vl"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,f16c,avx512f,avx512bw,avx512dq,avx512vl")
#endif
namespace scan_avx512 {
#define OPDEV_SCAN_ISA 2
#include "precision/scan_kernel.inc"
#undef OPDEV_SCAN_ISA
}  // namespace scan_avx512
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
namespace scan_avx512 {
const ScanKernels kKernels = {"avx512", Load, Block};
}  // namespace scan_avx512
#endif


int AvailableScanKernels(const ScanKernels** out, int max) {
  int n = 0;
  if (n < max) out[n++] = &scan_baseline::kKernels;
#if defined(__x86_64__)
  if (n < max && CpuHasAvx2F16c()) out[n++] = &scan_avx2::kKernels;
  if (n < max && CpuHasAvx512()) out[n++] = &scan_avx512::kKernels;
#endif
  return n;
}

const ScanKernels& SelectScanKernels() {
#if defined(__x86_64__)
  if (CpuHasAvx512()) return scan_avx512::kKernels;
  if (CpuHasAvx2F16c()) return scan_avx2::kKernels;
#endif
  return scan_baseline::kKernels;
}

}  // namespace opdev::precision
