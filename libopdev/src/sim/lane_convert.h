// Lane conversions between fp32 and the 16-bit float formats over fixed-size blocks, written
// without branches or tables so the compiler vectorises them; every result is bit-for-bit
// the scalar converter's (HalfToFloat, FloatToHalf, FloatToBFloat16). Used by the register
// operations (vf_ops.cpp) and the row loops of the tile operations (tile_ops.cpp) through the
// run-time dispatched block functions of lane_convert.cpp.
#pragma once

#include "opdev/support/half.h"

#include <cstdint>

namespace opdev::sim {

// binary16 -> binary32 over N lanes, exactly HalfToFloat's result for every pattern (NaN
// payloads kept, not quieted), without a branch or a table, so the compiler vectorises it:
// normal numbers rebias the exponent, Inf/NaN set the fp32 exponent, subnormals and zeros
// are man * 2^-24 (exact in fp32); the sign is ORed in.
template <int N>
[[gnu::always_inline]] inline void F32FromHalves(const uint16_t* __restrict in, float* __restrict out) {
  for (int i = 0; i < N; ++i) {
    const uint32_t h = in[i];
    const uint32_t em = h & 0x7FFFu;
    const uint32_t exp = em >> 10;
    const uint32_t normal = (em << 13) + (112u << 23);
    const uint32_t special = (em << 13) | 0x7F800000u;
    const uint32_t sub = FloatToBits(static_cast<float>(static_cast<int32_t>(em)) * 5.9604644775390625e-08f);
    const uint32_t is_sub = 0u - static_cast<uint32_t>(exp == 0);
    const uint32_t is_special = 0u - static_cast<uint32_t>(exp == 0x1Fu);
    const uint32_t v = (sub & is_sub) | (special & is_special) | (normal & ~(is_sub | is_special));
    out[i] = BitsToFloat(((h & 0x8000u) << 16) | v);
  }
}

// FloatToHalf over N lanes, vectorisable: a branch-free pass (normal results by integer
// rounding, subnormal and zero results by adding 0.5f, whose ulp is the fp16 subnormal step —
// exact under the default round-to-nearest-even mode that every fp32 operation of the
// simulator relies on), then FloatToHalf for lanes at or beyond the fp16 overflow threshold,
// Inf and NaN.
template <int N>
[[gnu::always_inline]] inline void HalvesFromF32(const float* __restrict in, uint16_t* __restrict out) {
  for (int i = 0; i < N; ++i) {
    const uint32_t x = FloatToBits(in[i]);
    const uint32_t a = x & 0x7FFFFFFFu;
    const uint32_t normal = (a + 0x0FFFu + ((a >> 13) & 1u) - 0x38000000u) >> 13;
    const uint32_t sub = FloatToBits(BitsToFloat(a) + 0.5f) - 0x3F000000u;
    const uint32_t lo = 0u - static_cast<uint32_t>(a < 0x38800000u);  // select without a branch
    const uint32_t h = (sub & lo) | (normal & ~lo);
    out[i] = static_cast<uint16_t>(((x >> 16) & 0x8000u) | h);
  }
  uint32_t big = 0;
  for (int i = 0; i < N; ++i) big |= (FloatToBits(in[i]) & 0x7FFFFFFFu) >= 0x477FF000u ? 1u : 0u;
  if (big) {
    for (int i = 0; i < N; ++i)
      if ((FloatToBits(in[i]) & 0x7FFFFFFFu) >= 0x477FF000u) out[i] = FloatToHalf(in[i]);
  }
}

// F32FromHalves / HalvesFromF32 over n lanes, the same bits on every host: blocks of 64
// through the conversion instructions when the CPU has AVX2 and F16C (the NaN and infinity
// lanes of a block redone exactly, the last n % 64 lanes through the loops above), else the
// loops above alone (lane_convert.cpp).
void F32FromHalvesN(const uint16_t* in, float* out, int64_t n);
// The 16-bit halves `half` (0: low, 1: high, little-endian) of 64 consecutive 32-bit words:
// out[i] = bits [16 half, 16 half + 16) of word i of `words` (256 bytes, any alignment).
// Vectorised with AVX2 when the CPU has it, a plain loop otherwise; the same bits either way.
void HalvesOfWords64(const uint8_t* words, int half, uint16_t* out);
void HalvesFromF32N(const float* in, uint16_t* out, int64_t n);
inline void F32FromBFloat16N(const uint16_t* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = BitsToFloat(static_cast<uint32_t>(in[i]) << 16);
}
inline void BFloat16FromF32N(const float* in, uint16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = FloatToBFloat16(in[i]);
}

}  // namespace opdev::sim
