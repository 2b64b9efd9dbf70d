// ExpF32 (exp_f32.h): std::exp per lane, or, on AVX2 + FMA hosts, the C library's expf
// sequence four lanes at a time (eight with AVX-512).
//
// glibc's expf (the FMA variant its CPU dispatch picks when the CPU has AVX2 and FMA), for
// |x| < 88, with N = 32, all arithmetic in double:
//   z  = InvLn2N * x + Shift            (one fused multiply-add; Shift = 1.5 * 2^52 rounds
//                                        z to the integer k in its low mantissa bits)
//   kd = z - Shift
//   r  = InvLn2N * x - kd               (fused multiply-subtract)
//   s  = 2^(k/N), built from T[k mod N] (the bits of 2^(j/N) less j * 2^52 / N) plus k << 47
//   y  = ((C0 * r + C1) * r^2 + (C2 * r + 1)) * s    (three fused multiply-adds, one product)
//   result = y rounded to float.
// The coefficients below are the ones the host library uses; the table is 2^(j/32) rounded
// to double. A check at first use compares the vector path with std::exp on 32 Ki inputs
// across the whole range and turns it off on any difference (another C library, another
// algorithm), so the results are std::exp's on every host.
#include "exp_f32.h"

#include "opdev/support/cpu_features.h"

#include <cmath>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace opdev::sim {
namespace {

using ExpFn = void (*)(const float*, float*, int64_t);

void ExpScalar(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::exp(in[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)

constexpr double kInvLn2N = 0x1.71547652b82fep+5;  // 32 / ln 2
constexpr double kShift = 0x1.8p+52;
constexpr double kC0 = 0x1.c6af84b912394p-20;
constexpr double kC1 = 0x1.ebfce50fac4f3p-13;
constexpr double kC2 = 0x1.62e42ff0c52d6p-6;

struct Table {
  alignas(32) uint64_t t[32];
  Table() {
    for (int j = 0; j < 32; ++j) {
      const double v = static_cast<double>(exp2l(static_cast<long double>(j) / 32.0L));
      uint64_t b;
      std::memcpy(&b, &v, 8);
      t[j] = b - (static_cast<uint64_t>(j) << 47);
    }
  }
};
const Table& T() {
  static const Table table;
  return table;
}

// Lanes [i, i + 4) have |x| < 88 (no infinity, no NaN): the main path of the algorithm.
__attribute__((target("avx2,fma"))) inline __m128 Exp4(__m128 x, const uint64_t* tab) {
  const __m256d xd = _mm256_cvtps_pd(x);
  const __m256d inv = _mm256_set1_pd(kInvLn2N), shift = _mm256_set1_pd(kShift);
  const __m256d z = _mm256_fmadd_pd(inv, xd, shift);
  const __m256i ki = _mm256_castpd_si256(z);
  const __m256d kd = _mm256_sub_pd(z, shift);
  const __m256d r = _mm256_fmsub_pd(inv, xd, kd);
  const __m256i idx = _mm256_and_si256(ki, _mm256_set1_epi64x(31));
  const __m256i tj = _mm256_i64gather_epi64(reinterpret_cast<const long long*>(tab), idx, 8);
  const __m256d s = _mm256_castsi256_pd(_mm256_add_epi64(_mm256_slli_epi64(ki, 47), tj));
  const __m256d p = _mm256_fmadd_pd(r, _mm256_set1_pd(kC0), _mm256_set1_pd(kC1));
  const __m256d r2 = _mm256_mul_pd(r, r);
  const __m256d q = _mm256_fmadd_pd(r, _mm256_set1_pd(kC2), _mm256_set1_pd(1.0));
  const __m256d y = _mm256_mul_pd(_mm256_fmadd_pd(p, r2, q), s);
  return _mm256_cvtpd_ps(y);
}

__attribute__((target("avx2,fma"))) void ExpAvx2Fma(const float* in, float* out, int64_t n) {
  const uint64_t* tab = T().t;
  const __m128i abstop_mask = _mm_set1_epi32(0x7ff), limit = _mm_set1_epi32(0x42a);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128 x = _mm_loadu_ps(in + i);
    // abstop = (bits >> 20) & 0x7ff; above 0x42a: |x| >= 88, infinity or NaN.
    const __m128i top = _mm_and_si128(_mm_srli_epi32(_mm_castps_si128(x), 20), abstop_mask);
    if (_mm_movemask_epi8(_mm_cmpgt_epi32(top, limit)) != 0) {
      ExpScalar(in + i, out + i, 4);
      continue;
    }
    _mm_storeu_ps(out + i, Exp4(x, tab));
  }
  ExpScalar(in + i, out + i, n - i);
}

// The same eight lanes at a time (AVX-512: the same operations on wider registers). GCC 12's
// AVX-512 intrinsics pass an undefined vector as the unused merge source, which its
// -Wmaybe-uninitialized reports once inlined here.
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f,avx512dq,avx512vl,avx2,fma"))) void ExpAvx512(const float* in, float* out,
                                                                             int64_t n) {
  const uint64_t* tab = T().t;
  const __m512d inv = _mm512_set1_pd(kInvLn2N), shift = _mm512_set1_pd(kShift);
  const __m256i abstop_mask = _mm256_set1_epi32(0x7ff), limit = _mm256_set1_epi32(0x42a);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(in + i);
    const __m256i top = _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(x), 20), abstop_mask);
    if (!_mm256_testz_si256(_mm256_cmpgt_epi32(top, limit), _mm256_cmpgt_epi32(top, limit))) {
      ExpScalar(in + i, out + i, 8);
      continue;
    }
    const __m512d xd = _mm512_cvtps_pd(x);
    const __m512d z = _mm512_fmadd_pd(inv, xd, shift);
    const __m512i ki = _mm512_castpd_si512(z);
    const __m512d kd = _mm512_sub_pd(z, shift);
    const __m512d r = _mm512_fmsub_pd(inv, xd, kd);
    const __m512i idx = _mm512_and_si512(ki, _mm512_set1_epi64(31));
    const __m512i tj = _mm512_i64gather_epi64(idx, tab, 8);
    const __m512d s = _mm512_castsi512_pd(_mm512_add_epi64(_mm512_slli_epi64(ki, 47), tj));
    const __m512d p = _mm512_fmadd_pd(r, _mm512_set1_pd(kC0), _mm512_set1_pd(kC1));
    const __m512d r2 = _mm512_mul_pd(r, r);
    const __m512d q = _mm512_fmadd_pd(r, _mm512_set1_pd(kC2), _mm512_set1_pd(1.0));
    _mm256_storeu_ps(out + i, _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_fmadd_pd(p, r2, q), s)));
  }
  ExpAvx2Fma(in + i, out + i, n - i);
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// The vector path against std::exp: a sweep of [-88, 88] and pseudo-random bit patterns over
// every exponent (special lanes included).
bool VectorPathAgrees(ExpFn fn) {
  constexpr int kN = 1 << 14;
  std::vector<float> x(2 * kN), v(2 * kN), s(2 * kN);
  for (int k = 0; k < kN; ++k) {
    x[k] = -88.0f + 176.0f * static_cast<float>(k) / kN;
    const uint32_t b = static_cast<uint32_t>(k) * 0x9E3779B1u;
    std::memcpy(&x[kN + k], &b, 4);
  }
  fn(x.data(), v.data(), 2 * kN);
  ExpScalar(x.data(), s.data(), 2 * kN);
  return std::memcmp(v.data(), s.data(), v.size() * sizeof(float)) == 0;
}

#endif

// The path ExpF32 takes on this host: the widest vector variant the CPU has, if it agrees.
ExpFn Chosen() {
  static const ExpFn fn = [] {
#if defined(__x86_64__) && defined(__GNUC__)
    if (CpuHasAvx2Fma()) {
      const ExpFn v = CpuHasAvx512() ? ExpAvx512 : ExpAvx2Fma;
      if (VectorPathAgrees(v)) return v;
    }
#endif
    return ExpScalar;
  }();
  return fn;
}

}  // namespace

void ExpF32(const float* in, float* out, int64_t n) { Chosen()(in, out, n); }

bool ExpF32Vectorised() { return Chosen() != ExpScalar; }

bool ExpF32Variant(int lanes, const float* in, float* out, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (lanes == 4 && CpuHasAvx2Fma()) return ExpAvx2Fma(in, out, n), true;
  if (lanes == 8 && CpuHasAvx2Fma() && CpuHasAvx512()) return ExpAvx512(in, out, n), true;
#endif
  (void)lanes, (void)in, (void)out, (void)n;
  return false;
}

}  // namespace opdev::sim
