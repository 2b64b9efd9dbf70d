// Reads the host CPU's features for the run-time dispatched kernels (cpu_features.h).
#include "opdev/support/cpu_features.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace opdev {

bool CpuHasAvx2F16c() {
#if defined(__x86_64__)
  static const bool v = [] {
    __builtin_cpu_init();  // harmless when already done; needed if first called from a constructor
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;  // F16C from CPUID (clang's builtin lacks it)
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
    return __builtin_cpu_supports("avx2") && f16c;
  }();
  return v;
#else
  return false;
#endif
}

bool CpuHasAvx2Fma() {
#if defined(__x86_64__)
  static const bool v = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return v;
#else
  return false;
#endif
}

bool CpuHasAvx512() {
#if defined(__x86_64__)
  static const bool v = CpuHasAvx2F16c() && __builtin_cpu_supports("avx512f") &&
                        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                        __builtin_cpu_supports("avx512vl");
  return v;
#else
  return false;
#endif
}

}  // namespace opdev
