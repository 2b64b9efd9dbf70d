// Helpers shared by the simulator tests: deterministic inputs, double-precision references,
// running a test kernel from tests/data/sim, planting defects in kernel text, and tiles
// described directly for the memory-model tests.
#pragma once

#include "opdev/precision/tensor.h"
#include "opdev/sim/simulator.h"
#include "opdev/sim/tile.h"

#include <catch2/catch.hpp>

#include <algorithm>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simtest {

// A tile of [r, c] `dt` elements at byte `addr` of `space`, its valid window the whole shape
// (no layout: the space's default).
inline opdev::sim::Tile MakeTile(int64_t r, int64_t c, opdev::DType dt, uint64_t addr,
                                 std::optional<opdev::sim::Layout> layout = std::nullopt,
                                 opdev::MemSpace space = opdev::MemSpace::kVec) {
  opdev::sim::Tile t;
  t.type.shape = {r, c};
  t.type.dtype = dt;
  t.type.space = space;
  t.type.layout = layout;
  t.addr = addr;
  t.size = t.type.Bytes();
  t.valid_rows = r;
  t.valid_cols = c;
  t.name = "t";
  return t;
}

inline std::string DataPath(const std::string& name) {
  return std::string(OPDEV_SOURCE_DIR) + "/tests/data/sim/" + name;
}

// Uniform values in [lo, hi) from a fixed LCG, rounded to the dtype.
inline opdev::precision::Tensor Random(opdev::DType dt, std::vector<int64_t> shape, double lo, double hi,
                                       uint64_t seed = 1) {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<double> v(static_cast<size_t>(n));
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (auto& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    double u = static_cast<double>(s >> 11) / 9007199254740992.0;
    x = lo + (hi - lo) * u;
  }
  return *opdev::precision::Tensor::FromDoubles(dt, shape, v);
}

// Row softmax in double of a 2-D tensor.
inline std::vector<double> SoftmaxRef(const opdev::precision::Tensor& x) {
  int64_t r = x.shape()[0], c = x.shape()[1];
  std::vector<double> out(static_cast<size_t>(r * c));
  for (int64_t i = 0; i < r; ++i) {
    double m = -1e300;
    for (int64_t j = 0; j < c; ++j) m = std::max(m, x.GetDouble(i * c + j));
    double s = 0;
    for (int64_t j = 0; j < c; ++j) s += std::exp(x.GetDouble(i * c + j) - m);
    for (int64_t j = 0; j < c; ++j) out[i * c + j] = std::exp(x.GetDouble(i * c + j) - m) / s;
  }
  return out;
}

inline double MaxAbsDiff(const opdev::precision::Tensor& a, const std::vector<double>& ref) {
  double d = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    double x = a.GetDouble(i);
    if (std::isnan(x)) return INFINITY;
    d = std::max(d, std::fabs(x - ref[static_cast<size_t>(i)]));
  }
  return d;
}

// Replaces the single occurrence of `from` (must exist exactly once).
inline std::string Mutate(std::string src, const std::string& from, const std::string& to) {
  auto pos = src.find(from);
  REQUIRE(pos != std::string::npos);
  REQUIRE(src.find(from, pos + 1) == std::string::npos);
  return src.replace(pos, from.size(), to);
}

// Replaces the n-th (0-based) occurrence of `from`.
inline std::string MutateNth(std::string src, const std::string& from, const std::string& to, int n) {
  size_t pos = src.find(from);
  for (int i = 0; i < n && pos != std::string::npos; ++i) pos = src.find(from, pos + 1);
  REQUIRE(pos != std::string::npos);
  return src.replace(pos, from.size(), to);
}

// 1-based line of the n-th occurrence of `needle`.
inline int LineOf(const std::string& src, const std::string& needle, int n = 0) {
  size_t pos = src.find(needle);
  for (int i = 0; i < n && pos != std::string::npos; ++i) pos = src.find(needle, pos + 1);
  REQUIRE(pos != std::string::npos);
  return 1 + static_cast<int>(std::count(src.begin(), src.begin() + static_cast<long>(pos), '\n'));
}

inline bool HasAt(const opdev::Diagnostics& d, std::string_view code, int line) {
  for (const auto& x : d.items())
    if (x.code == code && x.line == line) return true;
  return false;
}

// Whether some error (any code) is reported at `line`.
inline bool HasErrorAt(const opdev::Diagnostics& d, int line) {
  for (const auto& x : d.items())
    if (x.severity == opdev::Severity::kError && x.line == line) return true;
  return false;
}

}  // namespace simtest
