// Tests of the diagnostics beside the verdict: cosine similarity, RMSE, relative errors,
// histogram, worst elements, failure profile per row/column/tile and the §8 findings; and of
// the streaming engine's determinism across thread counts (the instruction-set builds are
// tested in test_scan_kernels.cpp).
#include <catch2/catch.hpp>

#include "opdev/precision/compare.h"
#include "precision/scan.h"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace opdev::precision;
using opdev::DType;

namespace {

Tensor T(DType dt, Shape shape, const std::vector<double>& v) {
  auto t = Tensor::FromDoubles(dt, std::move(shape), v);
  REQUIRE(t.ok());
  return *t;
}

std::vector<double> Ramp(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = 0.5 + static_cast<double>(i % 7) * 0.25;
  return v;
}

std::vector<std::string> Codes(const ErrorDiagnostics& d) {
  std::vector<std::string> c;
  for (const auto& f : d.findings.items()) c.push_back(f.code);
  return c;
}

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST_CASE("diagnostic metrics, hand-computed") {
  // a = (1, 2, 2), g = (1, 2, 4): errors (0, 0, 2).
  auto r = CompareTensor(T(DType::kFloat64, {3}, {1, 2, 2}), T(DType::kFloat64, {3}, {1, 2, 4}));
  REQUIRE(r.diagnostics);
  const ErrorDiagnostics& d = *r.diagnostics;
  CHECK(d.cosine_similarity == Approx((1 + 4 + 8) / (3.0 * std::sqrt(21.0))).epsilon(1e-15));
  CHECK(d.rmse == Approx(std::sqrt(4.0 / 3)).epsilon(1e-15));
  CHECK(d.max_rel_error == 0.5);
  CHECK(d.rel_euclidean_distance == Approx(2 / std::sqrt(21.0)).epsilon(1e-15));
  CHECK(d.failed == 1);
  CHECK(d.compared == 3);
  // Histogram of error / tolerance: two zeros, one with 2 / (2^-16 + 4 * 2^-10) > 16.
  REQUIRE(d.histogram.size() == 8);
  CHECK(d.histogram[0].count == 2);
  CHECK(d.histogram[7].count == 1);
  CHECK(std::isinf(d.histogram[7].hi));
  REQUIRE(d.worst.size() == 1);  // elements with zero error are not listed
  CHECK(d.worst[0].index == std::vector<int64_t>{2});
  CHECK(d.worst[0].actual == 2);
  CHECK(d.worst[0].golden == 4);
  CHECK(d.worst[0].abs_error == 2);
  CHECK(d.first_failure == std::vector<int64_t>{2});
}

TEST_CASE("worst elements carry multi-dimensional indices, worst first") {
  std::vector<double> g = Ramp(2 * 3 * 4);
  std::vector<double> a = g;
  a[5] += 0.5;   // (0, 1, 1)
  a[23] += 1.0;  // (1, 2, 3)
  a[12] -= 0.25; // (1, 0, 0)
  CompareOptions o;
  o.worst_k = 2;
  auto r = CompareTensor(T(DType::kFloat32, {2, 3, 4}, a), T(DType::kFloat32, {2, 3, 4}, g), o);
  REQUIRE(r.diagnostics);
  REQUIRE(r.diagnostics->worst.size() == 2);
  CHECK(r.diagnostics->worst[0].index == std::vector<int64_t>{1, 2, 3});
  CHECK(r.diagnostics->worst[0].abs_error == 1.0);
  CHECK(r.diagnostics->worst[1].index == std::vector<int64_t>{0, 1, 1});
  CHECK(r.diagnostics->first_failure == std::vector<int64_t>{0, 1, 1});
  CHECK(r.diagnostics->failing_rows == 3);  // rows 1 (twice), 2 and 0 of axis -2
}

TEST_CASE("findings: only tail tiles fail") {
  // (33, 70) with 16x32 tiles: grid 3x3, the last tile row has 1 row, the last column 6.
  std::vector<double> g = Ramp(33 * 70), a = g;
  for (int c = 0; c < 70; ++c) a[static_cast<size_t>(32 * 70 + c)] += 1;
  for (int r = 0; r < 33; ++r)
    for (int c = 64; c < 70; ++c) a[static_cast<size_t>(r * 70 + c)] += 1;
  CompareOptions o;
  o.tile = std::make_pair(int64_t{16}, int64_t{32});
  auto res = CompareTensor(T(DType::kFloat16, {33, 70}, a), T(DType::kFloat16, {33, 70}, g), o);
  REQUIRE(res.diagnostics);
  const ErrorDiagnostics& d = *res.diagnostics;
  CHECK_FALSE(res.passed);
  CHECK(d.tile_grid_rows == 3);
  CHECK(d.tile_grid_cols == 3);
  REQUIRE(d.failing_tiles.size() == 5);  // (0,2) (1,2) (2,0) (2,1) (2,2)
  for (const TileFailures& t : d.failing_tiles) CHECK(t.tail);
  CHECK(d.failing_tiles[0].tile_row == 0);
  CHECK(d.failing_tiles[0].tile_col == 2);
  CHECK(d.failing_tiles[0].failed == 16 * 6);
  CHECK(d.failing_tiles[0].elements == 16 * 6);
  CHECK(d.failing_tiles[2].tile_row == 2);
  CHECK(d.failing_tiles[2].tile_col == 0);
  CHECK(d.failing_tiles[2].elements == 32);
  auto codes = Codes(d);
  CHECK(Has(codes, "PRECISION-TAIL-TILES"));
  const opdev::Diagnostic* f = d.findings.Find("PRECISION-TAIL-TILES");
  REQUIRE(f);
  CHECK(f->message.find("all failures are in tail tiles") != std::string::npos);
  CHECK(f->message.find("only tails fail") != std::string::npos);
  CHECK(f->category == "precision_failure");
}

TEST_CASE("findings: failures start at a row (tile boundary)") {
  std::vector<double> g = Ramp(64 * 32), a = g;
  for (size_t i = 32 * 32; i < a.size(); ++i) a[i] *= 2;
  CompareOptions o;
  o.tile = std::make_pair(int64_t{16}, int64_t{32});
  auto res = CompareTensor(T(DType::kFloat32, {64, 32}, a), T(DType::kFloat32, {64, 32}, g), o);
  REQUIRE(res.diagnostics);
  const ErrorDiagnostics& d = *res.diagnostics;
  CHECK(d.first_failing_row == 32);
  CHECK(d.last_failing_row == 63);
  CHECK(d.failing_rows == 32);
  auto codes = Codes(d);
  CHECK(Has(codes, "PRECISION-ROWS-FROM"));
  CHECK(Has(codes, "PRECISION-SOME-TILES"));
  CHECK_FALSE(Has(codes, "PRECISION-TAIL-TILES"));
  CHECK_FALSE(Has(codes, "PRECISION-WRONG-EVERYWHERE"));
  const opdev::Diagnostic* f = d.findings.Find("PRECISION-ROWS-FROM");
  REQUIRE(f);
  CHECK(f->message.find("failures start at row 32 of 64") != std::string::npos);
  CHECK(f->message.find("at a tile boundary") != std::string::npos);
}

TEST_CASE("findings: wrong everywhere, scaled, unwritten, special values") {
  std::vector<double> g = Ramp(40 * 40), scaled = g, zeros(g.size(), 0.0), noisy = g;
  for (double& x : scaled) x *= 1.5;
  std::mt19937 rng(1);
  for (double& x : noisy) x += std::uniform_real_distribution<double>(0.5, 1.0)(rng);
  auto sc = CompareTensor(T(DType::kFloat32, {40, 40}, scaled), T(DType::kFloat32, {40, 40}, g));
  auto sc_codes = Codes(*sc.diagnostics);
  CHECK(Has(sc_codes, "PRECISION-SCALED-OUTPUT"));
  CHECK(Has(sc_codes, "PRECISION-WRONG-EVERYWHERE"));
  CHECK(sc.diagnostics->findings.Find("PRECISION-SCALED-OUTPUT")->message.find("actual ≈ 1.5 × golden") !=
        std::string::npos);
  auto z = CompareTensor(T(DType::kFloat32, {40, 40}, zeros), T(DType::kFloat32, {40, 40}, g));
  CHECK(Has(Codes(*z.diagnostics), "PRECISION-ZERO-OUTPUT"));
  auto n = CompareTensor(T(DType::kFloat32, {40, 40}, noisy), T(DType::kFloat32, {40, 40}, g));
  auto n_codes = Codes(*n.diagnostics);
  CHECK(Has(n_codes, "PRECISION-WRONG-EVERYWHERE"));
  CHECK_FALSE(Has(n_codes, "PRECISION-SCALED-OUTPUT"));
  std::vector<double> nan_a = g;
  nan_a[45] = std::nan("");
  auto s = CompareTensor(T(DType::kFloat16, {40, 40}, nan_a), T(DType::kFloat16, {40, 40}, g));
  CHECK(s.summary == "NaN position mismatch: 1 positions differ");
  REQUIRE(s.diagnostics);
  const opdev::Diagnostic* f = s.diagnostics->findings.Find("PRECISION-SPECIAL-VALUES");
  REQUIRE(f);
  CHECK(f->evidence.find("first in row 1") != std::string::npos);
  // A passing comparison has no findings.
  auto ok = CompareTensor(T(DType::kFloat32, {40, 40}, g), T(DType::kFloat32, {40, 40}, g));
  CHECK(ok.diagnostics->findings.empty());
}

TEST_CASE("diagnostics never change the verdict or the metrics") {
  std::mt19937 rng(11);
  std::normal_distribution<double> nd;
  std::vector<double> g(100000), a(100000);
  for (size_t i = 0; i < g.size(); ++i) {
    g[i] = nd(rng);
    a[i] = g[i] * (1 + 2e-3 * nd(rng));
  }
  a[777] = std::numeric_limits<double>::infinity();
  Tensor ta = T(DType::kFloat16, {100, 1000}, a), tg = T(DType::kFloat32, {100, 1000}, g);
  CompareOptions with, without;
  with.tile = std::make_pair(int64_t{8}, int64_t{128});
  without.diagnostics = false;
  auto r1 = CompareTensor(ta, tg, with);
  auto r2 = CompareTensor(ta, tg, without);
  CHECK(r1.summary == r2.summary);
  CHECK(r1.matched_ratio == r2.matched_ratio);
  CHECK(r1.mean_abs_error == r2.mean_abs_error);
  CHECK(r1.mean_rel_error == r2.mean_rel_error);
  CHECK(r1.max_abs_error == r2.max_abs_error);
  CHECK_FALSE(r2.diagnostics);
}

TEST_CASE("results do not depend on the thread count") {
  std::mt19937 rng(5);
  std::normal_distribution<double> nd;
  const int64_t n = (int64_t{1} << 18) + 12345;  // several chunks and a partial block
  std::vector<double> g(static_cast<size_t>(n)), a(static_cast<size_t>(n));
  for (size_t i = 0; i < g.size(); ++i) {
    g[i] = nd(rng) * 10;
    a[i] = g[i] + nd(rng) * 0.01;
  }
  a[1000] = std::nan("");
  g[1000] = std::nan("");
  Tensor ta = T(DType::kBFloat16, {n}, a), tg = T(DType::kFloat32, {n}, g);
  std::string first;
  for (int threads : {1, 2, 3, 7}) {
    CompareOptions o;
    o.threads = threads;
    auto r = CheckPrecision(ta, tg, o);
    std::string j = boost::json::serialize(ToJson(r));
    if (first.empty()) first = j;
    CHECK(j == first);
  }
}

TEST_CASE("JSON and text reports") {
  std::vector<double> g = Ramp(4 * 8), a = g;
  a[9] += 1;
  CompareOptions o;
  o.tile = std::make_pair(int64_t{2}, int64_t{4});
  auto r = CheckPrecision(T(DType::kFloat32, {4, 8}, a), T(DType::kFloat32, {4, 8}, g), o);
  boost::json::object j = ToJson(r);
  CHECK(j.at("verdict").as_string() == "FAIL");
  CHECK(j.at("summary").as_string() == r.summary);
  const auto& out = j.at("outputs").as_array().at(0).as_object();
  CHECK(out.at("path").as_string() == "floating");
  CHECK(out.at("metrics").as_object().at("max_abs_error").as_double() == 1.0);
  const auto& diag = out.at("diagnostics").as_object();
  CHECK(diag.at("worst").as_array().at(0).as_object().at("index").as_array().size() == 2);
  CHECK(diag.at("tiles").as_object().at("failing_tiles").as_array().size() == 1);
  std::string text = RenderReport(r);
  CHECK(text.rfind(r.summary + "\n", 0) == 0);
  CHECK(text.find("worst elements:") != std::string::npos);
  CHECK(text.find("[1, 1]  actual=") != std::string::npos);
  CHECK(text.find("tile (0, 0): 1/8 fail") != std::string::npos);
}
