// The run-time dispatched fp16 <-> fp32 block conversions of lane_convert.h: the portable
// loops, and an AVX2 + F16C variant picked once per process by the CPU's features.
#include "lane_convert.h"

#include "opdev/support/cpu_features.h"

#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace opdev::sim {
namespace {

// The portable loops (the block templates are always_inline).
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
// The AVX2 + F16C variant: blocks of 64 lanes go through the conversion instructions, which
// give the scalar converters' bits for every finite value and infinity (fp16 -> fp32 is
// exact; fp32 -> fp16 rounds to nearest even, as FloatToHalf does, subnormal results
// included). Widening quiets a signalling NaN, so in a block with a NaN or an infinity among
// its sources those lanes are redone in vector form: sign, all-ones exponent and the 10
// mantissa bits shifted up, F32FromHalves' bits. Narrowing a NaN keeps its top payload bits
// and sets the quiet bit, as FloatToHalf does, by the instruction set's definition; its NaN
// and infinity lanes are redone by FloatToHalf all the same, so the bits never rest on that.
// The last n % 64 lanes go through the portable loop (compiled for AVX2 here). No "fma": no
// multiply-add may be contracted, so the bits stay the baseline's.
__attribute__((target("avx2,f16c"))) void WidenAvx2(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  const __m256i exp16 = _mm256_set1_epi16(0x7C00);
  const __m256i exp32 = _mm256_set1_epi32(0x7C00), sign32 = _mm256_set1_epi32(0x8000);
  const __m256i man32 = _mm256_set1_epi32(0x3FF), inf32 = _mm256_set1_epi32(0x7F800000);
  for (; i + 64 <= n; i += 64) {
    __m256i special = _mm256_setzero_si256();
    for (int k = 0; k < 64; k += 16) {
      const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + k));
      special = _mm256_or_si256(special, _mm256_cmpeq_epi16(_mm256_and_si256(h, exp16), exp16));
    }
    for (int k = 0; k < 64; k += 8)
      _mm256_storeu_ps(out + i + k, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + k))));
    if (_mm256_testz_si256(special, special)) continue;
    for (int k = 0; k < 64; k += 8) {
      const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + k)));
      const __m256i is_special = _mm256_cmpeq_epi32(_mm256_and_si256(w, exp32), exp32);
      const __m256i bits = _mm256_or_si256(_mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(w, sign32), 16), inf32),
                                           _mm256_slli_epi32(_mm256_and_si256(w, man32), 13));
      const __m256 f = _mm256_loadu_ps(out + i + k);
      _mm256_storeu_ps(out + i + k, _mm256_blendv_ps(f, _mm256_castsi256_ps(bits), _mm256_castsi256_ps(is_special)));
    }
  }
  for (; i < n; ++i) F32FromHalves<1>(in + i, out + i);
}
__attribute__((target("avx2,f16c"))) void NarrowAvx2(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  const __m256i abs_mask = _mm256_set1_epi32(0x7FFFFFFF);
  const __m256i below_inf = _mm256_set1_epi32(0x7F7FFFFF);
  for (; i + 64 <= n; i += 64) {
    uint64_t special = 0;  // bit k: lane i + k is an infinity or a NaN
    for (int k = 0; k < 64; k += 8) {
      const __m256 x = _mm256_loadu_ps(in + i + k);
      // |x| above the largest finite bits: Inf or NaN (a signed compare is right: |x| is
      // non-negative).
      const __m256i a = _mm256_and_si256(_mm256_castps_si256(x), abs_mask);
      special |= static_cast<uint64_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(a, below_inf)))) << k;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + k),
                       _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    for (; special != 0; special &= special - 1) {
      const int64_t k = i + __builtin_ctzll(special);
      out[k] = FloatToHalf(in[k]);
    }
  }
  for (; i < n; ++i) HalvesFromF32<1>(in + i, out + i);
}
// Sixteen words at a time: each word's chosen half moved to its low 16 bits, the two
// registers packed to 16-bit lanes (unsigned saturation never applies: every value fits) and
// the pack's lane interleaving undone.
__attribute__((target("avx2"))) void HalvesOfWordsAvx2(const uint8_t* words, int half, uint16_t* out) {
  const __m256i low = _mm256_set1_epi32(0xFFFF);
  for (int i = 0; i < 64; i += 16) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + 4 * i));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + 4 * i + 32));
    if (half) {
      a = _mm256_srli_epi32(a, 16);
      b = _mm256_srli_epi32(b, 16);
    } else {
      a = _mm256_and_si256(a, low);
      b = _mm256_and_si256(b, low);
    }
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), packed);
  }
}
#endif

void HalvesOfWordsBase(const uint8_t* words, int half, uint16_t* out) {
  uint32_t w[64];
  std::memcpy(w, words, sizeof w);
  const int sh = 16 * half;
  for (int i = 0; i < 64; ++i) out[i] = static_cast<uint16_t>(w[i] >> sh);
}

}  // namespace

void HalvesOfWords64(const uint8_t* words, int half, uint16_t* out) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (CpuHasAvx2F16c()) return HalvesOfWordsAvx2(words, half, out);
#endif
  HalvesOfWordsBase(words, half, out);
}

void F32FromHalvesN(const uint16_t* in, float* out, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (CpuHasAvx2F16c()) return WidenAvx2(in, out, n);
#endif
  WidenBase(in, out, n);
}

void HalvesFromF32N(const float* in, uint16_t* out, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (CpuHasAvx2F16c()) return NarrowAvx2(in, out, n);
#endif
  NarrowBase(in, out, n);
}

}  // namespace opdev::sim
