// The float results IEEE 754 leaves to the implementation, chosen here explicitly: which NaN
// an operation with two NaN operands returns, and which zero a maximum or minimum of +0 and -0
// returns. Written out, they no longer depend on the compiler (which may commute an addition
// or swap the operands of fmaxf at one call site and not at another) or on the build type
// (docs/simulator.md, "Two NaN operands, equal zeros").
#pragma once

#include <bit>
#include <cstdint>

namespace opdev::sim {

// x with its quiet bit set (a signalling NaN becomes the quiet NaN of the same payload).
inline float QuietNaN(float x) { return std::bit_cast<float>(std::bit_cast<uint32_t>(x) | 0x00400000u); }

inline bool IsSignalingNaN(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  return (u & 0x7F800000u) == 0x7F800000u && (u & 0x003FFFFFu) != 0 && (u & 0x00400000u) == 0;
}

// The result of a two-operand arithmetic operation whose value IEEE gives as `r`, with the NaN
// an x86 SSE instruction returns: the first NaN operand, quieted. Only commutative operations
// (addition, multiplication) need it spelled out; a NaN produced from non-NaN operands (0 * inf,
// inf - inf) is `r`'s.
inline float FirstNaNOr(float x, float y, float r) {
  return x != x ? QuietNaN(x) : y != y ? QuietNaN(y) : r;
}
inline double QuietNaN(double x) {
  return std::bit_cast<double>(std::bit_cast<uint64_t>(x) | 0x0008000000000000ull);
}
inline double FirstNaNOr(double x, double y, double r) {
  return x != x ? QuietNaN(x) : y != y ? QuietNaN(y) : r;
}

// A float sum chain a0 + x[0] + x[1] + ... in index order, each step with FirstNaNOr's NaN.
// The plain chain gives the same value unless its result is NaN; only then is it taken again
// step by step.
inline float SumChain(float a0, const float* x, int64_t n) {
  float a = a0;
  for (int64_t i = 0; i < n; ++i) a = a + x[i];
  if (a == a) return a;
  a = a0;
  for (int64_t i = 0; i < n; ++i) a = FirstNaNOr(a, x[i], a + x[i]);
  return a;
}

// fmaxf / fminf with the results the C library of Debian 12 (glibc, x86-64) gives, written out:
// a signalling NaN operand gives the first NaN operand, quieted; one quiet NaN gives the other
// operand, two give the first; equal operands (+0 and -0 in either order included) give the
// second.
inline float MaxF(float a, float b) {
  if (IsSignalingNaN(a) || IsSignalingNaN(b)) return FirstNaNOr(a, b, a);
  if (a != a) return b != b ? a : b;
  if (b != b) return a;
  return a > b ? a : b;
}
inline float MinF(float a, float b) {
  if (IsSignalingNaN(a) || IsSignalingNaN(b)) return FirstNaNOr(a, b, a);
  if (a != a) return b != b ? a : b;
  if (b != b) return a;
  return a < b ? a : b;
}

}  // namespace opdev::sim
