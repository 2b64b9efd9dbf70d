// Cube simulation tests: kernels written for these tests in the official Cube structure
// (tests/data/sim/matmul_*.py) run through the simulator and are compared bit for bit with
// a reference that accumulates in FP32 in the documented order (k ascending, one rounding per
// step, from 0 / the bias row), and within rounding of a float64 reference. Also the
// per-core context (AIC/AIV kinds, block and subblock indices) of mixed launches.
#include "sim_test_util.h"

#include "opdev/sim/cube_ops.h"
#include "opdev/support/half.h"

#include <cmath>

using namespace opdev;

namespace {

// out[m, n] = init(n) + sum_k a(m, k) * b(k, n), FP32, k ascending, fused steps.
std::vector<float> SeqRef(const std::function<float(int64_t, int64_t)>& a,
                          const std::function<float(int64_t, int64_t)>& b, int64_t M, int64_t K, int64_t N,
                          const std::function<float(int64_t)>& init = nullptr) {
  std::vector<float> out(static_cast<size_t>(M * N));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      float s = init ? init(n) : 0.0f;
      for (int64_t k = 0; k < K; ++k) s = std::fma(a(m, k), b(k, n), s);
      out[m * N + n] = s;
    }
  return out;
}

double F64Err(const precision::Tensor& y, const std::function<float(int64_t, int64_t)>& a,
              const std::function<float(int64_t, int64_t)>& b, int64_t M, int64_t K, int64_t N) {
  double worst = 0;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += static_cast<double>(a(m, k)) * b(k, n);
      double d = std::fabs(y.GetDouble(m * N + n) - s) / (1.0 + std::fabs(s));
      worst = std::isnan(d) ? INFINITY : std::max(worst, d);
    }
  return worst;
}

sim::SimResult Run(const std::string& file, const std::string& entry, std::vector<precision::Tensor> in,
                   int64_t block_dim = 0) {
  sim::SimOptions opts;
  opts.entry = entry;
  opts.block_dim = block_dim;
  auto r = sim::RunKernelFile(simtest::DataPath(file), in, opts);
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("cube: 128x128x128 tile matmul (load_tile -> move -> matmul -> store_tile) is bit-exact") {
  auto mn = GENERATE(std::pair<int64_t, int64_t>{128, 128}, std::pair<int64_t, int64_t>{512, 384},
                     std::pair<int64_t, int64_t>{3072, 256});
  const int64_t M = mn.first, N = mn.second, K = 128;
  CAPTURE(M, N);
  auto a = simtest::Random(DType::kFloat16, {M, K}, -2.0, 2.0, 21);
  auto b = simtest::Random(DType::kFloat16, {K, N}, -2.0, 2.0, 22);
  auto r = Run("matmul_basic_fp16.py", "matmul_basic_wrapper", {a, b});
  INFO(r.hazards.ToText());
  CHECK(r.completed);
  CHECK(r.hazards.empty());
  REQUIRE(r.outputs.size() == 1);
  const auto& y = r.outputs[0].tensor;
  REQUIRE(y.dtype() == DType::kFloat32);
  auto fa = [&](int64_t m, int64_t k) { return static_cast<float>(a.GetDouble(m * K + k)); };
  auto fb = [&](int64_t k, int64_t n) { return static_cast<float>(b.GetDouble(k * N + n)); };
  auto ref = SeqRef(fa, fb, M, K, N);
  int64_t bad = 0;
  for (int64_t i = 0; i < M * N; ++i) bad += y.GetDouble(i) != ref[static_cast<size_t>(i)];
  CHECK(bad == 0);
  CHECK(F64Err(y, fa, fb, M, K, N) < 1e-5);
  CHECK(r.stats.block_dim == std::min<int64_t>(24, M / 128));
  CHECK(r.stats.cores_run == r.stats.block_dim);  // cube-only: one AIC per block
}

TEST_CASE("cube: dynamic two-level-K matmul (move offsets, Partial/Final, tails on M/N/K, snake order)") {
  struct Shape {
    int64_t M, N, K, cores;
  };
  auto s = GENERATE(Shape{256, 300, 208, 0}, Shape{250, 77, 8, 0}, Shape{512, 640, 520, 0},
                    Shape{256, 256, 64, 0}, Shape{512, 300, 200, 1}, Shape{1024, 130, 136, 3});
  CAPTURE(s.M, s.N, s.K, s.cores);
  auto a = simtest::Random(DType::kFloat16, {s.M, s.K}, -1.0, 1.0, 31);
  auto b = simtest::Random(DType::kFloat16, {s.K, s.N}, -1.0, 1.0, 32);
  auto r = Run("matmul_dynamic_fp16.py", "matmul_dynamic_wrapper", {a, b}, s.cores);
  INFO(r.hazards.ToText());
  CHECK(r.completed);
  CHECK(r.hazards.empty());
  REQUIRE(r.outputs.size() == 1);
  const auto& y = r.outputs[0].tensor;
  REQUIRE(y.dtype() == DType::kFloat16);
  auto fa = [&](int64_t m, int64_t k) { return static_cast<float>(a.GetDouble(m * s.K + k)); };
  auto fb = [&](int64_t k, int64_t n) { return static_cast<float>(b.GetDouble(k * s.N + n)); };
  auto ref = SeqRef(fa, fb, s.M, s.K, s.N);
  int64_t bad = 0;
  for (int64_t i = 0; i < s.M * s.N; ++i)
    bad += y.GetDouble(i) != HalfToFloat(FloatToHalf(ref[static_cast<size_t>(i)]));
  CHECK(bad == 0);
  CHECK(F64Err(y, fa, fb, s.M, s.K, s.N) < 2e-3);
}

TEST_CASE("cube: bias + BF16 K-split matmul (Mat BF16 -> Bias FP32 move, bias on the first K block)") {
  struct Shape {
    int64_t M, N, K;
  };
  auto s = GENERATE(Shape{128, 128, 128}, Shape{256, 384, 384}, Shape{128, 256, 256});
  CAPTURE(s.M, s.N, s.K);
  auto a = simtest::Random(DType::kBFloat16, {s.M, s.K}, -1.0, 1.0, 41);
  auto b = simtest::Random(DType::kBFloat16, {s.K, s.N}, -1.0, 1.0, 42);
  auto bias = simtest::Random(DType::kBFloat16, {1, s.N}, -4.0, 4.0, 43);
  auto c = *precision::Tensor::Zeros(DType::kFloat32, {s.M, s.N});
  auto r = Run("matmul_bias_bf16.py", "matmul_bias_kernel", {a, b, bias, c}, 4);
  INFO(r.hazards.ToText());
  CHECK(r.completed);
  CHECK(r.hazards.empty());
  REQUIRE(r.outputs.size() == 1);
  const auto& y = r.outputs[0].tensor;
  auto fa = [&](int64_t m, int64_t k) { return static_cast<float>(a.GetDouble(m * s.K + k)); };
  auto fb = [&](int64_t k, int64_t n) { return static_cast<float>(b.GetDouble(k * s.N + n)); };
  auto ref = SeqRef(fa, fb, s.M, s.K, s.N, [&](int64_t n) { return static_cast<float>(bias.GetDouble(n)); });
  int64_t bad = 0;
  for (int64_t i = 0; i < s.M * s.N; ++i) bad += y.GetDouble(i) != ref[static_cast<size_t>(i)];
  CHECK(bad == 0);
}

TEST_CASE("cube: transposed loads (order=[1, 0] into ZN Mat tiles), FP32 operands, tails") {
  struct Shape {
    int64_t M, N, K;
  };
  auto s = GENERATE(Shape{64, 64, 64}, Shape{48, 16, 40}, Shape{16, 64, 8}, Shape{33, 17, 5});
  CAPTURE(s.M, s.N, s.K);
  auto at = simtest::Random(DType::kFloat32, {s.K, s.M}, -1.0, 1.0, 51);
  auto bt = simtest::Random(DType::kFloat32, {s.N, s.K}, -1.0, 1.0, 52);
  auto out = *precision::Tensor::Zeros(DType::kFloat32, {s.M, s.N});
  auto r = Run("matmul_transpose_fp32.py", "matmul_transpose_kernel", {at, bt, out});
  INFO(r.hazards.ToText());
  CHECK(r.completed);
  CHECK(r.hazards.empty());
  REQUIRE(r.outputs.size() == 1);
  const auto& y = r.outputs[0].tensor;
  auto fa = [&](int64_t m, int64_t k) { return static_cast<float>(at.GetDouble(k * s.M + m)); };
  auto fb = [&](int64_t k, int64_t n) { return static_cast<float>(bt.GetDouble(n * s.K + k)); };
  auto ref = SeqRef(fa, fb, s.M, s.K, s.N);
  int64_t bad = 0;
  for (int64_t i = 0; i < s.M * s.N; ++i) bad += y.GetDouble(i) != ref[static_cast<size_t>(i)];
  CHECK(bad == 0);
}

TEST_CASE("cube: the GEMM kernel keeps the per-element order (blocked == naive, bit for bit)") {
  // Shapes cover the 32- and 16-column blocks, the column tail and the row tail.
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{7, 33, 19}, {64, 64, 64}, {5, 16, 1}, {1, 1, 1},
                         {9, 80, 23}, {4, 48, 5}, {6, 31, 7}}) {
    CAPTURE(m, n, k);
    std::vector<float> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n)), c(static_cast<size_t>(m * n));
    uint32_t x = 12345;
    auto rnd = [&] { x = x * 1664525u + 1013904223u; return static_cast<float>(x >> 8) / 16777216.0f - 0.5f; };
    for (auto& v : a) v = rnd();
    for (auto& v : b) v = rnd();
    for (auto& v : c) v = rnd();
    std::vector<float> want = c;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t p = 0; p < k; ++p) want[i * n + j] = std::fma(a[i * k + p], b[p * n + j], want[i * n + j]);
    std::vector<float> got = c;
    sim::cube::GemmF32(a.data(), b.data(), got.data(), m, n, k, false);
    CHECK(got == want);
    // Every variant this CPU can run. The vector ones fuse every step whatever the exact-product
    // flag says; the portable one's exact-product form is a plain multiply and add, equal to
    // the fused step only for exact products (below), so it is not run on these.
    for (bool exact : {false, true})
      for (int lanes : {1, 8, 16}) {
        if (lanes == 1 && exact) continue;
        CAPTURE(exact, lanes);
        std::vector<float> v = c;
        if (sim::cube::GemmF32Variant(lanes, a.data(), b.data(), v.data(), m, n, k, exact)) CHECK(v == want);
      }
    // FP16-valued operands (exact products): every variant, exact-product form included.
    std::vector<float> ah = a, bh = b, wanth = c;
    for (auto& v : ah) v = HalfToFloat(FloatToHalf(v));
    for (auto& v : bh) v = HalfToFloat(FloatToHalf(v));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t p = 0; p < k; ++p) wanth[i * n + j] = std::fma(ah[i * k + p], bh[p * n + j], wanth[i * n + j]);
    std::vector<float> goth = c;
    sim::cube::GemmF32(ah.data(), bh.data(), goth.data(), m, n, k, true);
    CHECK(goth == wanth);
    for (int lanes : {1, 8, 16}) {
      CAPTURE(lanes);
      std::vector<float> v = c;
      if (sim::cube::GemmF32Variant(lanes, ah.data(), bh.data(), v.data(), m, n, k, true)) CHECK(v == wanth);
    }
  }
}

TEST_CASE("core context: mixed launches run 1 AIC + 2 AIV per block with the documented indices") {
  const int64_t bd = 3;
  auto out = *precision::Tensor::Zeros(DType::kFloat32, {2 * bd, 16});
  auto r = Run("spmd_indices.py", "mixed_kernel", {out}, bd);
  INFO(r.hazards.ToText());
  CHECK(r.completed);
  CHECK(r.hazards.empty());
  CHECK(r.stats.cores_run == 3 * bd);
  REQUIRE(r.outputs.size() == 1);
  const auto& y = r.outputs[0].tensor;
  for (int64_t v = 0; v < 2 * bd; ++v) {
    // AIV v: get_block_idx() = v (flattened), get_subblock_idx() = v % 2, get_subblock_num() = 2,
    // get_block_num() = bd; the AIC of the block wrote nothing (its section_cube is empty).
    CAPTURE(v);
    CHECK(y.GetDouble(v * 16 + 0) == v);
    CHECK(y.GetDouble(v * 16 + 1) == v % 2);
    CHECK(y.GetDouble(v * 16 + 2) == 2);
    CHECK(y.GetDouble(v * 16 + 3) == bd);
  }
  auto out2 = *precision::Tensor::Zeros(DType::kFloat32, {bd, 16});
  auto r2 = Run("spmd_indices.py", "vector_kernel", {out2}, bd);
  INFO(r2.hazards.ToText());
  CHECK(r2.hazards.empty());
  CHECK(r2.stats.cores_run == bd);
  for (int64_t v = 0; v < bd; ++v) {
    CHECK(r2.outputs[0].tensor.GetDouble(v * 16 + 0) == v);
    CHECK(r2.outputs[0].tensor.GetDouble(v * 16 + 1) == 0);
    CHECK(r2.outputs[0].tensor.GetDouble(v * 16 + 2) == 1);
  }
}

TEST_CASE("core context: a Cube space used on an AIV is an error with its line") {
  auto out = *precision::Tensor::Zeros(DType::kFloat32, {2, 16});
  auto r = Run("spmd_indices.py", "wrong_core_kernel", {out}, 1);
  INFO(r.hazards.ToText());
  CHECK_FALSE(r.completed);
  CHECK(r.hazards.HasCode("SIM-CORE-SPACE"));
}

TEST_CASE("cube: CopyWindow equals the per-element copy (ZN runs of one element, NZ runs, offsets, unwritten bytes)") {
  // Mat (NZ) sources into Right (ZN: every run one element), Left (NZ: runs of a fractal row)
  // and another Mat tile, FP16 and FP32, windows at offsets; a quarter of the source's
  // elements never written. Expected: each window element's bytes and written flags are the
  // source element's, and nothing outside the window changes.
  for (DType dt : {DType::kFloat16, DType::kFloat32}) {
    for (MemSpace to : {MemSpace::kRight, MemSpace::kLeft, MemSpace::kMat}) {
      DYNAMIC_SECTION(DTypeName(dt) << " -> space " << static_cast<int>(to)) {
        sim::CoreMemory mem(Target::kA5);
        sim::Tile src = simtest::MakeTile(64, 64, dt, 0, std::nullopt, MemSpace::kMat);
        sim::Tile dst = simtest::MakeTile(48, 48, dt, to == MemSpace::kMat ? 32768 : 0, std::nullopt, to);
        sim::SpaceBuffer& sb = mem.Get(MemSpace::kMat);
        const size_t es = DTypeSize(dt);
        for (int64_t r = 0; r < 64; ++r)
          for (int64_t c = 0; c < 64; ++c) {
            if ((r * 64 + c) % 4 == 3) continue;
            const uint64_t off = src.addr + src.ElementOffset(r, c);
            for (size_t k = 0; k < es; ++k) sb.bytes[off + k] = static_cast<uint8_t>(r * 7 + c * 13 + k);
            sb.MarkWritten(off, es);
          }
        const sim::SpaceBuffer& db = mem.Get(to);
        const std::vector<uint8_t> before = db.bytes, before_w = db.written;
        const int64_t dr = 16, dc = 16, sr = 5, sc = 16, rows = 27, cols = 32;
        sim::cube::CopyWindow(mem, dst, dr, dc, src, sr, sc, rows, cols);
        std::vector<uint8_t> in_window(db.bytes.size(), 0);
        int64_t bad = 0;
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c) {
            const uint64_t d = dst.addr + dst.ElementOffset(dr + r, dc + c);
            const uint64_t s = src.addr + src.ElementOffset(sr + r, sc + c);
            bad += std::memcmp(db.bytes.data() + d, sb.bytes.data() + s, es) != 0;
            bad += std::memcmp(db.written.data() + d, sb.written.data() + s, es) != 0;
            std::fill_n(in_window.begin() + static_cast<int64_t>(d), es, 1);
          }
        CHECK(bad == 0);
        int64_t outside = 0;
        for (size_t i = 0; i < db.bytes.size(); ++i)
          if (!in_window[i]) outside += db.bytes[i] != before[i] || db.written[i] != before_w[i];
        CHECK(outside == 0);
      }
    }
  }
}
