// HiFloat8 decode and round-to-nearest encode (layout: opdev/support/hifloat8.h).
#include "opdev/support/hifloat8.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace opdev {

namespace {

// Value of the lower seven bits (sign excluded); NaN / infinity as floats.
float Magnitude(uint8_t low7) {
  const int dot2 = low7 >> 5;  // the first two bits of the dot field
  int exponent = 0, mant_bits = 3, mant = low7 & 0x7;
  if (dot2 == 3) {  // 11 s eee m
    const int e = 8 + ((low7 >> 1) & 0x7);
    mant_bits = 1;
    mant = low7 & 0x1;
    if (!(low7 & 0x10) && e == 15 && mant == 1) return std::numeric_limits<float>::infinity();
    exponent = (low7 & 0x10) ? -e : e;
  } else if (dot2 == 2) {  // 10 s ee mm
    const int e = 4 + ((low7 >> 2) & 0x3);
    mant_bits = 2;
    mant = low7 & 0x3;
    exponent = (low7 & 0x10) ? -e : e;
  } else if (dot2 == 1) {  // 01 s e mmm
    const int e = 2 + ((low7 >> 3) & 0x1);
    exponent = (low7 & 0x10) ? -e : e;
  } else if (low7 & 0x10) {  // 001 s mmm
    exponent = (low7 & 0x8) ? -1 : 1;
  } else if (low7 & 0x8) {  // 0001 mmm
    exponent = 0;
  } else {  // 0000 mmm: 2^(mmm - 23), mmm = 0 is zero
    return mant == 0 ? 0.0f : std::ldexp(1.0f, mant - 23);
  }
  return std::ldexp(1.0f + static_cast<float>(mant) / static_cast<float>(1 << mant_bits), exponent);
}

struct Grid {
  // The finite non-negative values in ascending order and their codes.
  std::array<float, 127> value{};
  std::array<uint8_t, 127> code{};
  int n = 0;
};

const Grid& PositiveGrid() {
  static const Grid g = [] {
    Grid r;
    std::array<std::pair<float, uint8_t>, 127> v{};
    int n = 0;
    for (int c = 0; c < 0x80; ++c) {
      const float m = Magnitude(static_cast<uint8_t>(c));
      if (std::isfinite(m)) v[n++] = {m, static_cast<uint8_t>(c)};
    }
    std::sort(v.begin(), v.begin() + n);
    for (int i = 0; i < n; ++i) {
      r.value[i] = v[i].first;
      r.code[i] = v[i].second;
    }
    r.n = n;
    return r;
  }();
  return g;
}

}  // namespace

float HiFloat8ToFloat(uint8_t code) {
  if (code == kHiFloat8NaN) return std::numeric_limits<float>::quiet_NaN();
  const float m = Magnitude(code & 0x7F);
  return (code & 0x80) ? -m : m;
}

uint8_t FloatToHiFloat8(float v) {
  if (std::isnan(v)) return kHiFloat8NaN;
  const Grid& g = PositiveGrid();
  const double a = std::min(std::fabs(static_cast<double>(v)), static_cast<double>(kHiFloat8Max));
  // First grid value >= a; a lies in [value[i-1], value[i]].
  const float* hi = std::lower_bound(g.value.data(), g.value.data() + g.n, static_cast<float>(a));
  int i = static_cast<int>(hi - g.value.data());
  if (i < g.n && static_cast<double>(g.value[i]) != a && i > 0) {
    // Midpoint of two grid floats: exact in double. Ties go away from zero (to value[i]).
    const double mid = (static_cast<double>(g.value[i - 1]) + static_cast<double>(g.value[i])) / 2;
    if (a < mid) --i;
  }
  const uint8_t code = g.code[std::min(i, g.n - 1)];
  return (v < 0 && code != 0) ? static_cast<uint8_t>(code | 0x80) : code;
}

}  // namespace opdev
