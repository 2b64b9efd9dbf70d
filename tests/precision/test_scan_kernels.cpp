// Tests of the streaming comparison's instruction-set builds (baseline, AVX2+F16C, AVX-512):
// exact conversion of every float16/bfloat16 bit pattern, the fused block kernel against a
// scalar float64 model lane for lane (ties at the tolerance and at the histogram edges,
// zero goldens, subnormals, every dtype pair), non-finite detection at every lane, and
// whole scans that agree bit for bit between the builds and whose failure profile matches a
// brute-force pass.
#include <catch2/catch.hpp>

#include "opdev/precision/compare.h"
#include "opdev/support/half.h"
#include "precision/scan.h"
#include "precision/scan_kernel.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace opdev::precision;
using opdev::DType;

namespace {

std::vector<const ScanKernels*> Builds() {
  const ScanKernels* k[8];
  int n = AvailableScanKernels(k, 8);
  return std::vector<const ScanKernels*>(k, k + n);
}

bool SameDouble(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  return std::memcmp(&x, &y, sizeof x) == 0;  // also tells -0 from +0
}

// binary16 value from first principles (independent of opdev/support/half.h).
double HalfByFormula(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  double mag;
  if (exp == 0x1F)
    mag = man ? std::numeric_limits<double>::quiet_NaN() : HUGE_VAL;
  else if (exp == 0)
    mag = std::ldexp(man, -24);
  else
    mag = std::ldexp(1024 + man, exp - 25);
  return sign ? -mag : mag;
}

double BFloat16ByFormula(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

Tensor T(DType dt, const std::vector<double>& v) {
  auto t = Tensor::FromDoubles(dt, {static_cast<int64_t>(v.size())}, v);
  REQUIRE(t.ok());
  return *t;
}

// The scalar model of one block: what FusedBlock must produce, bit for bit.
BlockSums Model(const Tensor& a, const Tensor& g, int64_t base, const BlockParams& p,
                bool diag) {
  double sabs[kScanLanes] = {}, srel[kScanLanes] = {}, ssq[kScanLanes] = {},
         sag[kScanLanes] = {}, saa[kScanLanes] = {}, sgg[kScanLanes] = {};
  BlockSums o{};
  o.finite = true;
  for (int i = 0; i < kScanBlock; ++i) {
    double av = a.GetDouble(base + i), gv = g.GetDouble(base + i);
    int lane = i % kScanLanes;
    double d = std::fabs(av - gv), ag = std::fabs(gv);
    double tol = p.atol + p.rtol * ag;
    if (d <= tol) ++o.passed;
    sabs[lane] += d;
    o.max_abs = std::max(o.max_abs, d);
    if (ag > 0) {
      double q = d / ag;
      srel[lane] += q;
      if (diag) o.max_rel = std::max(o.max_rel, q);
      ++o.rel_count;
    }
    if (diag) {
      volatile double prod;  // keep each product rounded on its own
      prod = d * d; ssq[lane] += prod;
      prod = av * gv; sag[lane] += prod;
      prod = av * av; saa[lane] += prod;
      prod = gv * gv; sgg[lane] += prod;
      for (int e = 0; e < kPassEdges; ++e) o.above_edge[e] += d > tol * kHistEdge[e];
    }
  }
  auto sum8 = [](const double* v) {
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
  };
  o.sum_abs = sum8(sabs);
  o.sum_rel = sum8(srel);
  if (diag) {
    o.sum_sq = sum8(ssq);
    o.sum_ag = sum8(sag);
    o.sum_aa = sum8(saa);
    o.sum_gg = sum8(sgg);
  }
  return o;
}

void CheckSame(const BlockSums& x, const BlockSums& y) {
  CHECK(x.finite == y.finite);
  CHECK(SameDouble(x.sum_abs, y.sum_abs));
  CHECK(SameDouble(x.sum_rel, y.sum_rel));
  CHECK(SameDouble(x.max_abs, y.max_abs));
  CHECK(SameDouble(x.max_rel, y.max_rel));
  CHECK(SameDouble(x.sum_sq, y.sum_sq));
  CHECK(SameDouble(x.sum_ag, y.sum_ag));
  CHECK(SameDouble(x.sum_aa, y.sum_aa));
  CHECK(SameDouble(x.sum_gg, y.sum_gg));
  CHECK(x.passed == y.passed);
  CHECK(x.rel_count == y.rel_count);
  for (int e = 0; e < kPassEdges; ++e) CHECK(x.above_edge[e] == y.above_edge[e]);
}

constexpr DType kFloatTypes[] = {DType::kFloat16, DType::kBFloat16, DType::kFloat32,
                                 DType::kFloat64};

// Goldens and actuals of several kinds: exact ties at the tolerance and at the histogram
// edges (powers of two keep every product exact), zero and subnormal goldens, equal pairs,
// large and random values, rounded to the tensors' dtypes by the caller.
void MakeBlockValues(std::mt19937_64& rng, const BlockParams& p, std::vector<double>& a,
                     std::vector<double>& g) {
  std::normal_distribution<double> nd;
  std::uniform_int_distribution<int> kind(0, 9);
  a.resize(kScanBlock);
  g.resize(kScanBlock);
  for (int i = 0; i < kScanBlock; ++i) {
    double gv = std::ldexp(1.0, static_cast<int>(nd(rng) * 3));
    if (nd(rng) < 0) gv = -gv;
    double tol = p.atol + p.rtol * std::fabs(gv);
    double av;
    switch (kind(rng)) {
      case 0: av = gv + tol; break;                   // exactly at tolerance: passes
      case 1: av = gv - tol * 0.5; break;             // exactly at the 1/2 edge
      case 2: av = gv + tol * 0.0625; break;          // exactly at the 1/16 edge
      case 3: gv = 0; av = nd(rng) * 1e-3; break;     // zero golden: no relative error
      case 4: gv = std::ldexp(1.0, -140); av = gv * 3; break;  // tiny goldens
      case 5: av = gv; break;
      case 6: gv = nd(rng) * 1e4; av = gv * (1 + 1e-3 * nd(rng)); break;
      case 7: av = gv + tol * 2; break;               // fails, bin (1, 2]
      default: gv = nd(rng); av = gv * (1 + 1e-3 * nd(rng)); break;
    }
    a[static_cast<size_t>(i)] = av;
    g[static_cast<size_t>(i)] = gv;
  }
}

}  // namespace

TEST_CASE("every kernel build converts all float16 and bfloat16 bit patterns exactly") {
  auto builds = Builds();
  REQUIRE(!builds.empty());
  std::vector<uint16_t> bits(65536);
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<uint16_t>(i);
  for (const ScanKernels* k : builds) {
    INFO("kernels: " << k->name);
    std::vector<double> h(65536), b(65536);
    // Whole blocks, then an odd count so the scalar tail of the loader runs too.
    for (size_t at = 0; at < bits.size(); at += kScanBlock) {
      k->load(bits.data() + at, DType::kFloat16, kScanBlock, h.data() + at);
      k->load(bits.data() + at, DType::kBFloat16, kScanBlock, b.data() + at);
    }
    int bad_h = 0, bad_b = 0, bad_prev = 0;
    for (size_t i = 0; i < bits.size(); ++i) {
      uint16_t v = bits[i];
      bad_h += !SameDouble(h[i], HalfByFormula(v));
      bad_b += !SameDouble(b[i], BFloat16ByFormula(v));
      bad_prev += !SameDouble(h[i], static_cast<double>(opdev::HalfToFloat(v))) ||
                  !SameDouble(b[i], static_cast<double>(opdev::BFloat16ToFloat(v)));
    }
    CHECK(bad_h == 0);
    CHECK(bad_b == 0);
    CHECK(bad_prev == 0);
    std::vector<double> tail(kScanBlock);
    k->load(bits.data() + 0x7BF0, DType::kFloat16, 29, tail.data());  // ... 65504, Inf, NaN
    for (int i = 0; i < 29; ++i)
      CHECK(SameDouble(tail[static_cast<size_t>(i)], HalfByFormula(static_cast<uint16_t>(0x7BF0 + i))));
  }
}

TEST_CASE("the fused block kernel equals the scalar float64 model for every dtype pair") {
  auto builds = Builds();
  const BlockParams params[] = {{0x1p-9, 0x1p-9}, {0x1p-6, 0x1p-6}, {0x1p-10, 0x1p-16}};
  std::mt19937_64 rng(17);
  for (DType at : kFloatTypes) {
    for (DType gt : kFloatTypes) {
      for (const BlockParams& p : params) {
        std::vector<double> av, gv;
        MakeBlockValues(rng, p, av, gv);
        Tensor a = T(at, av), g = T(gt, gv);
        for (bool diag : {false, true}) {
          BlockSums want = Model(a, g, 0, p, diag);
          for (const ScanKernels* k : builds) {
            INFO(opdev::DTypeName(at) << " vs " << opdev::DTypeName(gt) << ", rtol " << p.rtol
                                      << ", diagnostics " << diag << ", kernels " << k->name);
            BlockSums got{};
            k->block(a.data(), at, g.data(), gt, p, diag, &got);
            CheckSame(got, want);
          }
        }
      }
    }
  }
}

TEST_CASE("the fused kernel counts ties at the tolerance as passing and one ulp more as failing") {
  const BlockParams p{0x1p-9, 0x1p-9};
  std::vector<double> g(kScanBlock), at_tol(kScanBlock), above(kScanBlock);
  for (int i = 0; i < kScanBlock; ++i) {
    double gv = std::ldexp(1.0 + (i % 16) / 16.0, i % 9 - 4);
    double tol = p.atol + p.rtol * gv;
    g[static_cast<size_t>(i)] = gv;
    at_tol[static_cast<size_t>(i)] = gv + tol;  // exact in float64
    above[static_cast<size_t>(i)] = std::nextafter(gv + tol, HUGE_VAL);
  }
  int scalar_pass_at = 0, scalar_pass_above = 0;
  for (int i = 0; i < kScanBlock; ++i) {
    double gv = g[static_cast<size_t>(i)], tol = p.atol + p.rtol * gv;
    scalar_pass_at += std::fabs(at_tol[static_cast<size_t>(i)] - gv) <= tol;
    scalar_pass_above += std::fabs(above[static_cast<size_t>(i)] - gv) <= tol;
  }
  REQUIRE(scalar_pass_at == kScanBlock);  // the construction gives exact ties ...
  REQUIRE(scalar_pass_above == 0);        // ... and errors just above the tolerance
  Tensor tg = T(DType::kFloat64, g), ta = T(DType::kFloat64, at_tol), tb = T(DType::kFloat64, above);
  for (const ScanKernels* k : Builds()) {
    INFO("kernels: " << k->name);
    BlockSums s{};
    k->block(ta.data(), DType::kFloat64, tg.data(), DType::kFloat64, p, true, &s);
    CHECK(s.passed == kScanBlock);
    CHECK(s.above_edge[kPassEdges - 1] == kScanBlock);  // all in (1/2, 1]
    k->block(tb.data(), DType::kFloat64, tg.data(), DType::kFloat64, p, true, &s);
    CHECK(s.passed == 0);
    // The maximum relative error is the exact quotient of the worst element.
    double want = 0;
    for (int i = 0; i < kScanBlock; ++i)
      want = std::max(want, std::fabs(above[static_cast<size_t>(i)] - g[static_cast<size_t>(i)]) /
                                g[static_cast<size_t>(i)]);
    CHECK(SameDouble(s.max_rel, want));
  }
}

TEST_CASE("the fused kernel flags NaN and Inf in any lane of either side") {
  const BlockParams p{0x1p-10, 0x1p-16};
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(), HUGE_VAL, -HUGE_VAL};
  for (const ScanKernels* k : Builds()) {
    for (DType dt : kFloatTypes) {
      INFO("kernels: " << k->name << ", dtype " << opdev::DTypeName(dt));
      std::vector<double> v(kScanBlock, 1.5);
      Tensor ok = T(dt, v);
      BlockSums s{};
      k->block(ok.data(), dt, ok.data(), dt, p, false, &s);
      CHECK(s.finite);
      for (int pos : {0, 1, 3, 4, 7, 8, 9, 255, 504, 511}) {
        for (double x : specials) {
          std::vector<double> w = v;
          w[static_cast<size_t>(pos)] = x;
          Tensor bad = T(dt, w);
          for (bool diag : {false, true}) {
            k->block(bad.data(), dt, ok.data(), dt, p, diag, &s);
            CHECK_FALSE(s.finite);
            k->block(ok.data(), dt, bad.data(), dt, p, diag, &s);
            CHECK_FALSE(s.finite);
          }
        }
      }
    }
  }
}

TEST_CASE("whole scans agree bit for bit between the kernel builds") {
  std::mt19937_64 rng(23);
  std::normal_distribution<double> nd;
  const int64_t n = 3 * 65536 + 1000 + 7;  // several chunks and a partial block of 495
  std::vector<double> g(static_cast<size_t>(n)), a(static_cast<size_t>(n));
  for (size_t i = 0; i < g.size(); ++i) {
    g[i] = nd(rng);
    a[i] = g[i] * (1 + 3e-3 * nd(rng));
  }
  a[70000] = std::nan("");
  g[70000] = std::nan("");
  a[70001] = HUGE_VAL;        // one-sided Inf: compared against finfo.max
  g[150000] = -HUGE_VAL;
  a[150000] = -HUGE_VAL;      // matched Inf
  g[n - 3] = 0;               // in the partial block
  Tensor ta = T(DType::kFloat16, a), tg = T(DType::kFloat32, g);
  ScanParams p;
  p.rtol = 0x1p-9;
  p.atol = 0x1p-9;
  p.replace_max = 65504.0;
  p.threads = 2;
  // {rows, cols, tile rows, tile cols}: the tensor's own rows, then batch-folded rows.
  const int64_t geometries[2][4] = {{n / 5, 5, 16, 4}, {7, 5, 3, 2}};
  for (const auto& geo : geometries)
  for (bool diag : {false, true}) {
    p.rows = geo[0];
    p.cols = geo[1];
    p.tile_rows = geo[2];
    p.tile_cols = geo[3];
    INFO("rows " << p.rows << ", cols " << p.cols);
    p.diagnostics = diag;
    p.worst_k = diag ? 10 : 0;
    p.kernels = Builds().front();
    ScanResult want = ScanFloating(ta, tg, p);
    CHECK(want.compared == n - 2);
    CHECK(want.special_matched == 2);
    CHECK(want.passed < want.compared);
    if (diag) {
      // The failure profile against a brute-force pass with divisions per element.
      const int64_t grid_cols = (p.cols + p.tile_cols - 1) / p.tile_cols;
      const int64_t grid_rows = (p.rows + p.tile_rows - 1) / p.tile_rows;
      std::vector<int64_t> rows(static_cast<size_t>(p.rows)), cols(static_cast<size_t>(p.cols)),
          tiles(static_cast<size_t>(grid_rows * grid_cols));
      int64_t hist[kHistBins] = {}, first = -1;
      for (int64_t i = 0; i < n; ++i) {
        double av = ta.GetDouble(i), gv = tg.GetDouble(i);
        if (std::isnan(av) || std::isnan(gv) || (std::isinf(av) && std::isinf(gv))) continue;
        if (std::isinf(av)) av = std::copysign(p.replace_max, av);
        if (std::isinf(gv)) gv = std::copysign(p.replace_max, gv);
        double d = std::fabs(av - gv), tol = p.atol + p.rtol * std::fabs(gv);
        int bin = 0;
        while (bin < kHistEdges && d > tol * kHistEdge[bin]) ++bin;
        ++hist[bin];
        if (d <= tol) continue;
        if (first < 0) first = i;
        int64_t row = (i / p.cols) % p.rows, col = i % p.cols;
        ++rows[static_cast<size_t>(row)];
        ++cols[static_cast<size_t>(col)];
        ++tiles[static_cast<size_t>((row / p.tile_rows) * grid_cols + col / p.tile_cols)];
      }
      CHECK(want.first_fail == first);
      CHECK(want.fail_rows == rows);
      CHECK(want.fail_cols == cols);
      CHECK(want.fail_tiles == tiles);
      for (int b = 0; b < kHistBins; ++b) CHECK(want.hist[b] == hist[b]);
    }
    for (const ScanKernels* k : Builds()) {
      INFO("kernels: " << k->name << ", diagnostics " << diag);
      p.kernels = k;
      ScanResult got = ScanFloating(ta, tg, p);
      CHECK(got.compared == want.compared);
      CHECK(got.passed == want.passed);
      CHECK(got.rel_count == want.rel_count);
      CHECK(got.special_matched == want.special_matched);
      CHECK(SameDouble(got.sum_abs, want.sum_abs));
      CHECK(SameDouble(got.sum_rel, want.sum_rel));
      CHECK(SameDouble(got.max_abs, want.max_abs));
      CHECK(SameDouble(got.max_rel, want.max_rel));
      CHECK(SameDouble(got.sum_sq, want.sum_sq));
      CHECK(SameDouble(got.sum_ag, want.sum_ag));
      CHECK(SameDouble(got.sum_aa, want.sum_aa));
      CHECK(SameDouble(got.sum_gg, want.sum_gg));
      for (int b = 0; b < kHistBins; ++b) CHECK(got.hist[b] == want.hist[b]);
      CHECK(got.first_fail == want.first_fail);
      CHECK(got.fail_rows == want.fail_rows);
      CHECK(got.fail_cols == want.fail_cols);
      CHECK(got.fail_tiles == want.fail_tiles);
      REQUIRE(got.worst.size() == want.worst.size());
      for (size_t i = 0; i < got.worst.size(); ++i) CHECK(got.worst[i].flat == want.worst[i].flat);
    }
  }
}
