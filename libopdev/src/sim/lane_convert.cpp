// The run-time dispatched fp16 <-> fp32 block conversions of lane_convert.h: the portable
// loops compiled a second time for AVX2 and picked once per process by the CPU's features.
#include "lane_convert.h"

namespace opdev::sim {
namespace {

// The loops, inlined into each compiled variant below (the block templates are always_inline).
[[gnu::always_inline]] inline void Widen(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) F32FromHalves<64>(in + i, out + i);
  for (; i < n; ++i) F32FromHalves<1>(in + i, out + i);
}
[[gnu::always_inline]] inline void Narrow(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) HalvesFromF32<64>(in + i, out + i);
  for (; i < n; ++i) HalvesFromF32<1>(in + i, out + i);
}

void WidenBase(const uint16_t* in, float* out, int64_t n) { Widen(in, out, n); }
void NarrowBase(const float* in, uint16_t* out, int64_t n) { Narrow(in, out, n); }

#if defined(__x86_64__) && defined(__GNUC__)
// "avx2" only, not "fma": no multiply-add may be contracted, so the bits stay the baseline's.
__attribute__((target("avx2"))) void WidenAvx2(const uint16_t* in, float* out, int64_t n) {
  Widen(in, out, n);
}
__attribute__((target("avx2"))) void NarrowAvx2(const float* in, uint16_t* out, int64_t n) {
  Narrow(in, out, n);
}

bool HasAvx2() {
  static const bool v = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return v;
}
#endif

}  // namespace

void F32FromHalvesN(const uint16_t* in, float* out, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (HasAvx2()) return WidenAvx2(in, out, n);
#endif
  WidenBase(in, out, n);
}

void HalvesFromF32N(const float* in, uint16_t* out, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (HasAvx2()) return NarrowAvx2(in, out, n);
#endif
  NarrowBase(in, out, n);
}

}  // namespace opdev::sim
