// Exact, bit-level conversions between float and the 16-bit float formats of the NPU
// (IEEE binary16 "float16" and "bfloat16"), round-to-nearest-even, independent of any
// compiler _Float16 support. Shared by precision_compare, tensor files and the simulator.
#pragma once

#include <cstdint>
#include <cstring>

namespace opdev {

inline float BitsToFloat(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }
inline uint32_t FloatToBits(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }

// binary16 -> binary32 (exact: every half is a float).
inline float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t man = h & 0x3FFu;
  if (exp == 0x1F) return BitsToFloat(sign | 0x7F800000u | (man << 13));  // Inf / NaN
  if (exp == 0) {
    if (man == 0) return BitsToFloat(sign);
    // Subnormal: value = man * 2^-24, exact in float.
    float v = static_cast<float>(man) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  return BitsToFloat(sign | ((exp + 112u) << 23) | (man << 13));
}

// binary32 -> binary16, round to nearest even; overflow -> Inf; NaN stays NaN (quiet).
inline uint16_t FloatToHalf(float f) {
  uint32_t x = FloatToBits(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t exp = (x >> 23) & 0xFFu;
  uint32_t man = x & 0x7FFFFFu;
  if (exp == 0xFF) return static_cast<uint16_t>(sign | 0x7C00u | (man ? 0x200u | (man >> 13) : 0u));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 0x1F) return static_cast<uint16_t>(sign | 0x7C00u);
  if (e <= 0) {
    if (e < -10) return sign;  // rounds to zero (|f| < 2^-25 ... half of smallest subnormal)
    uint32_t m = man | 0x800000u;
    int shift = 14 - e;  // bits to drop to reach the subnormal's 10-bit mantissa
    uint32_t result = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (result & 1u))) ++result;
    return static_cast<uint16_t>(sign | result);
  }
  uint32_t result = (static_cast<uint32_t>(e) << 10) | (man >> 13);
  uint32_t rem = man & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (result & 1u))) ++result;  // may carry into Inf: correct
  return static_cast<uint16_t>(sign | result);
}

inline float BFloat16ToFloat(uint16_t b) { return BitsToFloat(static_cast<uint32_t>(b) << 16); }

// binary32 -> bfloat16, round to nearest even; NaN stays a quiet NaN.
inline uint16_t FloatToBFloat16(float f) {
  uint32_t x = FloatToBits(f);
  if ((x & 0x7F800000u) == 0x7F800000u && (x & 0x7FFFFFu))
    return static_cast<uint16_t>((x >> 16) | 0x40u);
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7FFFu + lsb;
  return static_cast<uint16_t>(x >> 16);
}

}  // namespace opdev
