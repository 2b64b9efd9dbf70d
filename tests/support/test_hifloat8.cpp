// Tests of the HiFloat8 codec: every code against a decoder written from the field table of
// opdev/support/hifloat8.h (the framework's device print layout), the special codes, the round
// trip of every finite code, and the documented rounding (nearest, ties away from zero,
// saturation at ±32768).
#include <catch2/catch.hpp>

#include "opdev/support/dtype.h"
#include "opdev/support/hifloat8.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace opdev;

namespace {

// Decoder from the bit string, MSB first: sign, dot field by its prefix, exponent (sign bit
// then magnitude), mantissa. Written independently of the library's decoder.
double RefDecode(int code) {
  std::string b;
  for (int i = 7; i >= 0; --i) b += ((code >> i) & 1) ? '1' : '0';
  const double sign = b[0] == '1' ? -1.0 : 1.0;
  auto bits = [&](int from, int n) {
    int v = 0;
    for (int i = 0; i < n; ++i) v = v * 2 + (b[from + i] - '0');
    return v;
  };
  int exp_sign_at, exp_bits, base, mant_at, mant_bits;
  if (b.compare(1, 2, "11") == 0) {
    exp_sign_at = 3; exp_bits = 3; base = 8; mant_at = 7; mant_bits = 1;
  } else if (b.compare(1, 2, "10") == 0) {
    exp_sign_at = 3; exp_bits = 2; base = 4; mant_at = 6; mant_bits = 2;
  } else if (b.compare(1, 2, "01") == 0) {
    exp_sign_at = 3; exp_bits = 1; base = 2; mant_at = 5; mant_bits = 3;
  } else if (b.compare(1, 3, "001") == 0) {
    exp_sign_at = 4; exp_bits = 0; base = 1; mant_at = 5; mant_bits = 3;
  } else if (b.compare(1, 4, "0001") == 0) {
    exp_sign_at = -1; exp_bits = 0; base = 0; mant_at = 5; mant_bits = 3;
  } else {  // 0000 mmm
    const int m = bits(5, 3);
    if (m == 0) return b[0] == '1' ? NAN : 0.0;
    return sign * std::pow(2.0, m - 23);
  }
  const int mag = base + (exp_bits ? bits(exp_sign_at + 1, exp_bits) : 0);
  const int e = exp_sign_at >= 0 && b[exp_sign_at] == '1' ? -mag : mag;
  const int m = bits(mant_at, mant_bits);
  if (base == 8 && e == 15 && m == 1) return sign * INFINITY;
  return sign * (1.0 + m / std::pow(2.0, mant_bits)) * std::pow(2.0, e);
}

float NextUp(float v) { return std::nextafter(v, INFINITY); }
float NextDown(float v) { return std::nextafter(v, -INFINITY); }

}  // namespace

TEST_CASE("hifloat8: every one of the 256 codes decodes to the layout's value") {
  for (int c = 0; c < 256; ++c) {
    CAPTURE(c);
    const double want = RefDecode(c);
    const float got = HiFloat8ToFloat(static_cast<uint8_t>(c));
    if (std::isnan(want)) {
      CHECK(std::isnan(got));
    } else {
      CHECK(static_cast<double>(got) == want);
    }
  }
  // Anchors from the framework's decoder, by hand.
  CHECK(HiFloat8ToFloat(0x08) == 1.0f);
  CHECK(HiFloat8ToFloat(0x09) == 1.125f);
  CHECK(HiFloat8ToFloat(0x10) == 2.0f);
  CHECK(HiFloat8ToFloat(0x18) == 0.5f);
  CHECK(HiFloat8ToFloat(0x20) == 4.0f);
  CHECK(HiFloat8ToFloat(0x30) == 0.25f);
  CHECK(HiFloat8ToFloat(0x40) == 16.0f);
  CHECK(HiFloat8ToFloat(0x60) == 256.0f);
  CHECK(HiFloat8ToFloat(0x6D) == 24576.0f);
  CHECK(HiFloat8ToFloat(0x6E) == 32768.0f);
  CHECK(HiFloat8ToFloat(0x7E) == std::ldexp(1.0f, -15));
  CHECK(HiFloat8ToFloat(0x7F) == std::ldexp(1.5f, -15));
  CHECK(HiFloat8ToFloat(0x01) == std::ldexp(1.0f, -22));
  CHECK(HiFloat8ToFloat(0x07) == std::ldexp(1.0f, -16));
  CHECK(HiFloat8ToFloat(0x88) == -1.0f);
}

TEST_CASE("hifloat8: zero, NaN and infinity codes") {
  const float z = HiFloat8ToFloat(0x00);
  CHECK(z == 0.0f);
  CHECK_FALSE(std::signbit(z));
  CHECK(std::isnan(HiFloat8ToFloat(kHiFloat8NaN)));
  CHECK(HiFloat8ToFloat(kHiFloat8PosInf) == INFINITY);
  CHECK(HiFloat8ToFloat(kHiFloat8NegInf) == -INFINITY);
  int nan = 0, inf = 0;
  for (int c = 0; c < 256; ++c) {
    const float v = HiFloat8ToFloat(static_cast<uint8_t>(c));
    nan += std::isnan(v);
    inf += std::isinf(v);
  }
  CHECK(nan == 1);  // no negative zero: 1_0000_000 is the only NaN
  CHECK(inf == 2);
  CHECK(FloatToHiFloat8(NAN) == kHiFloat8NaN);
  CHECK(FloatToHiFloat8(-0.0f) == 0x00);
  CHECK(FloatToHiFloat8(0.0f) == 0x00);
  CHECK(DTypeSize(DType::kHiFloat8) == 1);
  CHECK(ParseDType("pl.DT_HF8") == DType::kHiFloat8);
  CHECK(DTypePlName(DType::kHiFloat8) == "DT_HF8");
}

TEST_CASE("hifloat8: encoding a decoded finite value returns its code") {
  std::vector<float> seen;
  for (int c = 0; c < 256; ++c) {
    const float v = HiFloat8ToFloat(static_cast<uint8_t>(c));
    if (!std::isfinite(v)) continue;
    CAPTURE(c, v);
    CHECK(FloatToHiFloat8(v) == c);
    seen.push_back(v);
  }
  CHECK(seen.size() == 253);  // 256 - NaN - two infinities
  std::sort(seen.begin(), seen.end());
  CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());  // every value once
}

TEST_CASE("hifloat8: round to nearest on the value grid, ties away from zero, saturation") {
  std::vector<float> grid;
  for (int c = 0; c < 128; ++c) {
    const float v = HiFloat8ToFloat(static_cast<uint8_t>(c));
    if (std::isfinite(v)) grid.push_back(v);
  }
  std::sort(grid.begin(), grid.end());
  REQUIRE(grid.size() == 127);
  for (size_t i = 0; i + 1 < grid.size(); ++i) {
    const float lo = grid[i], hi = grid[i + 1];
    const float mid = static_cast<float>((static_cast<double>(lo) + hi) / 2);  // exact: few bits
    REQUIRE(static_cast<double>(mid) == (static_cast<double>(lo) + hi) / 2);
    CAPTURE(lo, hi, mid);
    CHECK(FloatToHiFloat8(mid) == FloatToHiFloat8(hi));            // tie: away from zero
    CHECK(FloatToHiFloat8(NextDown(mid)) == FloatToHiFloat8(lo));  // just below: down
    CHECK(FloatToHiFloat8(NextUp(mid)) == FloatToHiFloat8(hi));
    CHECK(FloatToHiFloat8(-mid) == (FloatToHiFloat8(hi) | 0x80));  // negative tie: away from zero
    CHECK(FloatToHiFloat8(-NextDown(mid)) == (FloatToHiFloat8(lo) == 0 ? 0 : (FloatToHiFloat8(lo) | 0x80)));
  }
  CHECK(FloatToHiFloat8(std::ldexp(1.0f, -23)) == 0x01);  // half the smallest: tie, away from zero
  CHECK(FloatToHiFloat8(NextDown(std::ldexp(1.0f, -23))) == 0x00);
  CHECK(FloatToHiFloat8(1e-30f) == 0x00);
  CHECK(FloatToHiFloat8(-1e-30f) == 0x00);  // no negative zero
  CHECK(FloatToHiFloat8(40000.0f) == 0x6E);  // beyond the largest finite value: saturates
  CHECK(FloatToHiFloat8(INFINITY) == 0x6E);
  CHECK(FloatToHiFloat8(-INFINITY) == 0xEE);
  CHECK(FloatToHiFloat8(1.0625f) == 0x09);   // 1 + 1/16: tie between 1 and 1.125, away from zero
  CHECK(FloatToHiFloat8(1.06f) == 0x08);
}
