// The float results IEEE 754 leaves to the implementation, chosen here explicitly: which NaN
// an operation with two NaN operands returns, and which zero a maximum or minimum of +0 and -0
// returns. Written out, they no longer depend on the compiler (which may commute an addition
// or swap the operands of fmaxf at one call site and not at another) or on the build type
// (docs/simulator.md, "Two NaN operands, equal zeros").
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

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

// True when some z[i] is NaN; also true, rarely, without one (infinities of both signs in one
// of the running sums), never false with one. Four independent 4-lane sums in registers (GCC
// keeps an array of sums in memory), so nothing is reassociated.
// (GCC 12, inlining this into a loop of a constant 64 lanes, reports the tail loop that then
// never runs as undefined behaviour at iteration 2^62: a false positive, silenced here only.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Waggressive-loop-optimizations"
#endif
inline bool MayHoldNaN(const float* z, int64_t n) {
  using F4 = float __attribute__((vector_size(16)));
  F4 a0 = {}, a1 = {}, a2 = {}, a3 = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    F4 v0, v1, v2, v3;
    std::memcpy(&v0, z + i, sizeof v0);
    std::memcpy(&v1, z + i + 4, sizeof v1);
    std::memcpy(&v2, z + i + 8, sizeof v2);
    std::memcpy(&v3, z + i + 12, sizeof v3);
    a0 += v0, a1 += v1, a2 += v2, a3 += v3;
  }
  const F4 a = (a0 + a1) + (a2 + a3);
  float t = (a[0] + a[1]) + (a[2] + a[3]);
  for (; i < n; ++i) t += z[i];
  return t != t;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// After z[i] = x[i] op y[i] over n lanes for a commutative op (z aliasing neither operand):
// gives the lanes whose result is NaN FirstNaNOr's NaN. The plain lane loop stays vectorised;
// only a pass that may hold a NaN result takes the second loop.
inline void FirstNaNLanes(const float* x, const float* y, float* z, int64_t n) {
  if (!MayHoldNaN(z, n)) return;
  for (int64_t i = 0; i < n; ++i) z[i] = FirstNaNOr(x[i], y[i], z[i]);
}
// The same for z[i] = x[i] op s, or s op x[i] when `scalar_first`.
inline void FirstNaNLanes(const float* x, float s, float* z, int64_t n, bool scalar_first) {
  if (!MayHoldNaN(z, n)) return;
  for (int64_t i = 0; i < n; ++i) z[i] = scalar_first ? FirstNaNOr(s, x[i], z[i]) : FirstNaNOr(x[i], s, z[i]);
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
