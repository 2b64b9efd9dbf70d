// Instantiates the comparison kernels for the baseline instruction set and for AVX2+F16C
// and picks one at run time (see scan_kernel.inc for why the body is shared text).
#include "precision/scan_kernel.h"

#include "opdev/support/half.h"

#include <cstddef>
#include <cstdint>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

// The kernels' helpers take and return 32-byte vectors; they have internal linkage, so the
// ABI note GCC gives for the baseline build is irrelevant (GCC reports it at the end of
// the file, so it stays off for the whole file).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace opdev::precision {

namespace scan_baseline {
#define OPDEV_SCAN_HAVE_AVX2 0
#include "precision/scan_kernel.inc"
#undef OPDEV_SCAN_HAVE_AVX2
const ScanKernels kKernels = {"baseline", LoadF16, LoadBF16, LoadF32, LoadF64, AnyNonFinite, Block};
}  // namespace scan_baseline

#if defined(__x86_64__)
#pragma GCC push_options
#pragma GCC target("avx2,f16c")
namespace scan_avx2 {
#define OPDEV_SCAN_HAVE_AVX2 1
#include "precision/scan_kernel.inc"
#undef OPDEV_SCAN_HAVE_AVX2
}  // namespace scan_avx2
#pragma GCC pop_options
namespace scan_avx2 {
const ScanKernels kKernels = {"avx2", LoadF16, LoadBF16, LoadF32, LoadF64, AnyNonFinite, Block};
}  // namespace scan_avx2
#endif

const ScanKernels& BaselineScanKernels() { return scan_baseline::kKernels; }

const ScanKernels& SelectScanKernels() {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  if (avx2) return scan_avx2::kKernels;
#endif
  return scan_baseline::kKernels;
}

}  // namespace opdev::precision
