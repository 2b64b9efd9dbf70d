// HiFloat8 (`pl.DT_HF8`, "海思浮点"): the 8-bit tapered float of the A5 Cube. The PyPTO-Pro
// docs name the type without its bit layout; the layout here is the one the framework's
// device print path decodes (tilefwk/aicore_print_base.h) and the official HF8 matmul sample's
// host codec agrees with it code for code:
//
//   bit 7: sign S; bits 6..0: a prefix-coded "dot" field D that splits the rest into an
//   exponent field (its first bit the exponent's sign) and a mantissa of M bits:
//     11 eeee m   D=4: exponent ±(8 + eee),  M=1   (S_11_0111_1 is ±infinity)
//     10 eee mm   D=3: exponent ±(4 + ee),   M=2
//     01 ee mmm   D=2: exponent ±(2 + e),    M=3
//     001 e mmm   D=1: exponent ±1,          M=3
//     0001 mmm    D=0: exponent 0,           M=3
//     0000 mmm    "denormal" ladder: 2^(mmm - 23); mmm = 0 is +0 (S=0) or NaN (S=1)
//   a normal value is (-1)^S * (1 + m / 2^M) * 2^exponent.
//
// Every code decodes exactly to a float; there is no negative zero. Encoding (FP32 -> HF8) is
// round to nearest on the value grid with ties away from zero, saturating at ±32768, NaN to
// the NaN code: the docs do not define it (pypto-cast.md only names "ROUND_A"), so this is the
// simulator's documented choice (docs/simulator.md).
#pragma once

#include <cstdint>

namespace opdev {

inline constexpr uint8_t kHiFloat8NaN = 0x80;
inline constexpr uint8_t kHiFloat8PosInf = 0x6F;
inline constexpr uint8_t kHiFloat8NegInf = 0xEF;
inline constexpr float kHiFloat8Max = 32768.0f;

// The value of an HF8 code (NaN for 0x80, ±infinity for 0x6F / 0xEF). Exact.
float HiFloat8ToFloat(uint8_t code);
// The HF8 code nearest to `v` (ties away from zero; |v| beyond the largest finite value,
// infinities included, saturates to ±32768; NaN gives the NaN code; -0 gives +0).
uint8_t FloatToHiFloat8(float v);

}  // namespace opdev
