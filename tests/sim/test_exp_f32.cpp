// The simulator's array exp (sim/exp_f32.h) against the host's std::exp, bit for bit, in the
// variant chosen for this host and in each vector variant the CPU can run: a sweep of every
// 251st float bit pattern (both signs, every exponent, NaNs and infinities) and the edges of
// its fast range. The hidden [.exhaustive] case checks all 2^32 patterns.
#include "sim/exp_f32.h"

#include "opdev/support/cpu_features.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

using opdev::sim::ExpF32;

namespace {

// `lanes` 0: ExpF32 as chosen for this host; 4 or 8: that vector variant.
void Exp(int lanes, const float* in, float* out, int64_t n) {
  if (lanes == 0) ExpF32(in, out, n);
  else REQUIRE(opdev::sim::ExpF32Variant(lanes, in, out, n));
}

// Bit patterns [first, first + count * step) by step: how many results differ from
// std::exp's, and the first such input.
int64_t Mismatches(int lanes, uint64_t first, uint64_t count, uint64_t step, uint32_t* first_bad) {
  constexpr size_t kBlock = 4099;  // not a multiple of the vector width: every tail length
  std::vector<float> x(kBlock), y(kBlock);
  int64_t bad = 0;
  for (uint64_t done = 0; done < count;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kBlock, count - done));
    for (size_t i = 0; i < n; ++i) {
      const uint32_t b = static_cast<uint32_t>(first + (done + i) * step);
      std::memcpy(&x[i], &b, 4);
    }
    Exp(lanes, x.data(), y.data(), static_cast<int64_t>(n));
    for (size_t i = 0; i < n; ++i) {
      const float want = std::exp(x[i]);
      if (std::memcmp(&want, &y[i], 4) != 0) {
        if (bad++ == 0) std::memcpy(first_bad, &x[i], 4);
      }
    }
    done += n;
  }
  return bad;
}

// The variants this CPU can run: the chosen one, and each vector width on its own.
std::vector<int> Variants() {
  std::vector<int> v{0};
  if (opdev::CpuHasAvx2Fma()) v.push_back(4);
  if (opdev::CpuHasAvx2Fma() && opdev::CpuHasAvx512()) v.push_back(8);
  return v;
}

}  // namespace

TEST_CASE("the simulator's exp takes the vector path on a CPU with AVX2 and FMA") {
  // Otherwise the comparisons below would only compare std::exp with itself.
  CHECK(opdev::sim::ExpF32Vectorised() == opdev::CpuHasAvx2Fma());
}

TEST_CASE("the simulator's exp equals std::exp on a sweep of all float bit patterns") {
  for (int lanes : Variants()) {
    uint32_t first_bad = 0;
    const int64_t bad = Mismatches(lanes, 0, (uint64_t{1} << 32) / 251 + 1, 251, &first_bad);
    INFO("variant " << lanes << ": first differing input bits 0x" << std::hex << first_bad);
    CHECK(bad == 0);
  }
}

TEST_CASE("the simulator's exp equals std::exp at the edges of its fast range") {
  std::vector<float> x;
  for (float edge : {88.0f, 87.99999f, 88.72283f, 88.72284f, 100.0f, 103.97f, 103.972084f, 104.0f, 150.0f,
                     0.0f, 1e-30f, 1e-45f, 1.0f, 0.5f, 2.0f})
    for (float sign : {1.0f, -1.0f})
      for (int k = -3; k <= 3; ++k) x.push_back(std::nextafter(sign * edge, sign * edge + static_cast<float>(k)));
  x.push_back(std::numeric_limits<float>::infinity());
  x.push_back(-std::numeric_limits<float>::infinity());
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  x.push_back(-std::numeric_limits<float>::quiet_NaN());
  x.push_back(std::numeric_limits<float>::denorm_min());
  std::vector<float> y(x.size());
  for (int lanes : Variants())
    for (size_t len = 1; len <= x.size(); len += 3) {  // every lane position, every tail length
      Exp(lanes, x.data(), y.data(), static_cast<int64_t>(len));
      for (size_t i = 0; i < len; ++i) {
        const float want = std::exp(x[i]);
        INFO("variant " << lanes << ", x = " << x[i]);
        CHECK(std::memcmp(&want, &y[i], 4) == 0);
      }
    }
}

TEST_CASE("the simulator's exp equals std::exp on every float bit pattern", "[.exhaustive]") {
  for (int lanes : Variants()) {
    if (lanes == 0) continue;  // one of the others
    uint32_t first_bad = 0;
    const int64_t bad = Mismatches(lanes, 0, uint64_t{1} << 32, 1, &first_bad);
    INFO("variant " << lanes << ": first differing input bits 0x" << std::hex << first_bad);
    CHECK(bad == 0);
  }
}
