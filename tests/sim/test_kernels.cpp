// End-to-end simulator tests: kernels written for these tests (a VF softmax following the
// official tile-group VF structure, an elementwise tile-op kernel) run through their wrapper
// and kernel entries and are compared with double-precision references.
#include "sim_test_util.h"

#include <catch2/catch.hpp>

using namespace opdev;

TEST_CASE("VF softmax (fp32, row and column tails) matches a double reference") {
  auto shape = GENERATE(std::vector<int64_t>{777, 300}, std::vector<int64_t>{2049, 100},
                        std::vector<int64_t>{16, 64}, std::vector<int64_t>{1, 1},
                        std::vector<int64_t>{100, 512}, std::vector<int64_t>{33, 65});
  CAPTURE(shape);
  auto x = simtest::Random(DType::kFloat32, shape, -4.0, 4.0, 7);
  sim::SimOptions opts;
  opts.entry = "softmax_wrapper";
  auto r = sim::RunKernelFile(simtest::DataPath("softmax_vf_fp32.py"), {x}, opts);
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  CHECK(r->completed);
  CHECK(r->hazards.empty());
  REQUIRE(r->outputs.size() == 1);
  const auto& y = r->outputs[0].tensor;
  CHECK(y.shape() == x.shape());
  CHECK(simtest::MaxAbsDiff(y, simtest::SoftmaxRef(x)) < 1e-6);
  int64_t blocks = (shape[0] + 15) / 16;
  CHECK(r->stats.block_dim == std::min<int64_t>(48, blocks));
  CHECK(r->stats.lane_ops > 0);
}

#include "opdev/support/file_io.h"
#include "opdev/support/half.h"

TEST_CASE("elementwise fp16 tile-op kernel (2-D tails) is bit-exact against fp16 RNE arithmetic") {
  auto shape = GENERATE(std::vector<int64_t>{70, 300}, std::vector<int64_t>{32, 128}, std::vector<int64_t>{1, 1});
  CAPTURE(shape);
  auto x = simtest::Random(DType::kFloat16, shape, -100.0, 100.0, 11);
  auto y = simtest::Random(DType::kFloat16, shape, -100.0, 100.0, 12);
  sim::SimOptions opts;
  opts.entry = "add_scale_wrapper";
  auto r = sim::RunKernelFile(simtest::DataPath("add_scale_tile_fp16.py"), {x, y}, opts);
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  CHECK(r->completed);
  CHECK(r->hazards.empty());
  REQUIRE(r->outputs.size() == 1);
  const auto& z = r->outputs[0].tensor;
  REQUIRE(z.dtype() == DType::kFloat16);
  int64_t mismatches = 0;
  for (int64_t i = 0; i < z.numel(); ++i) {
    float sum = HalfToFloat(FloatToHalf(static_cast<float>(x.GetDouble(i)) + static_cast<float>(y.GetDouble(i))));
    float want = HalfToFloat(FloatToHalf(sum * 0.5f));
    mismatches += z.GetDouble(i) != want;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("tile-op softmax (row_max/row_expand_sub/exp/row_sum/row_expand_div, DN [R,1]) matches") {
  auto shape = GENERATE(std::vector<int64_t>{37, 200}, std::vector<int64_t>{8, 256}, std::vector<int64_t>{3, 5});
  CAPTURE(shape);
  auto x = simtest::Random(DType::kFloat32, shape, -4.0, 4.0, 5);
  sim::SimOptions opts;
  opts.entry = "softmax_tile_wrapper";
  auto r = sim::RunKernelFile(simtest::DataPath("softmax_tile_fp32.py"), {x}, opts);
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  CHECK(r->completed);
  CHECK(r->hazards.empty());
  REQUIRE(r->outputs.size() == 1);
  CHECK(simtest::MaxAbsDiff(r->outputs[0].tensor, simtest::SoftmaxRef(x)) < 1e-6);
}

namespace {
// Scheme-A style per-element bound for fp16 outputs: |a - g| <= 2^-9 + 2^-9 |g|.
int64_t Fp16Violations(const precision::Tensor& y, const std::vector<double>& ref) {
  int64_t bad = 0;
  for (int64_t i = 0; i < y.numel(); ++i) {
    double g = ref[static_cast<size_t>(i)];
    double a = y.GetDouble(i);
    if (!(std::fabs(a - g) <= 0.001953125 + 0.001953125 * std::fabs(g))) ++bad;
  }
  return bad;
}
}  // namespace

TEST_CASE("fp16 VF softmax with fp32 accumulation (DESIGN §1 structure) passes every §8 shape") {
  auto shape = GENERATE(std::vector<int64_t>{3, 128}, std::vector<int64_t>{4, 128}, std::vector<int64_t>{3, 200},
                        std::vector<int64_t>{4, 200}, std::vector<int64_t>{7, 200}, std::vector<int64_t>{1, 128},
                        std::vector<int64_t>{4, 2048}, std::vector<int64_t>{32, 4096});
  CAPTURE(shape);
  auto x = simtest::Random(DType::kFloat16, shape, -5.0, 5.0, 21);
  sim::SimOptions opts;
  opts.entry = "softmax_wrapper";
  auto r = sim::RunKernelFile(simtest::DataPath("softmax_vf_fp16.py"), {x}, opts);
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  CHECK(r->completed);
  CHECK(r->hazards.empty());
  REQUIRE(r->outputs.size() == 1);
  CHECK(Fp16Violations(r->outputs[0].tensor, simtest::SoftmaxRef(x)) == 0);
}

TEST_CASE("fp16 softmax whose output loop reuses the sum loop's fp32 masks: stale warning and FAIL on column tails") {
  std::string src = *ReadTextFile(simtest::DataPath("softmax_vf_fp16.py"));
  // Drop the recomputation of mz/mo in the third loop (as the published DESIGN §1 does).
  const std::string twice = "            mz = vf.update_mask((k + 1) // 2, dtype=pl.DT_FP32)\n"
                            "            mo = vf.update_mask(k // 2, dtype=pl.DT_FP32)\n";
  size_t first = src.find(twice);
  REQUIRE(first != std::string::npos);
  size_t second = src.find(twice, first + 1);
  REQUIRE(second != std::string::npos);
  src.erase(second, twice.size());
  sim::SimOptions opts;
  opts.entry = "softmax_wrapper";
  auto tail = simtest::Random(DType::kFloat16, {3, 200}, -5.0, 5.0, 21);
  auto r = sim::RunKernelSource(src, "design_like.py", {tail}, opts);
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  CHECK(r->hazards.HasCode("SIM-VF-STALE-VALUE"));
  CHECK(Fp16Violations(r->outputs[0].tensor, simtest::SoftmaxRef(tail)) > 0);
  auto aligned = simtest::Random(DType::kFloat16, {4, 2048}, -5.0, 5.0, 21);
  auto r2 = sim::RunKernelSource(src, "design_like.py", {aligned}, opts);
  REQUIRE(r2.ok());
  CHECK(Fp16Violations(r2->outputs[0].tensor, simtest::SoftmaxRef(aligned)) == 0);
}

TEST_CASE("kernel entry: the @pl.jit kernel runs directly on given tensors and block_dim") {
  auto x = simtest::Random(DType::kFloat32, {50, 70}, -4.0, 4.0, 9);
  auto y = *precision::Tensor::Zeros(DType::kFloat32, {50, 70});
  sim::SimOptions opts;
  opts.entry = "softmax_kernel";
  opts.block_dim = 3;
  auto r = sim::RunKernelFile(simtest::DataPath("softmax_vf_fp32.py"), {x, y}, opts);
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  CHECK(r->completed);
  CHECK(r->hazards.empty());
  CHECK(r->stats.cores_run == 3);
  REQUIRE(r->outputs.size() == 1);
  CHECK(r->outputs[0].name == "y");
  CHECK(simtest::MaxAbsDiff(r->outputs[0].tensor, simtest::SoftmaxRef(x)) < 1e-6);
}

TEST_CASE("bad calls are errors, not crashes") {
  auto x = simtest::Random(DType::kFloat32, {4, 4}, 0, 1);
  sim::SimOptions opts;
  opts.entry = "no_such_function";
  auto r = sim::RunKernelFile(simtest::DataPath("softmax_vf_fp32.py"), {x}, opts);
  CHECK(absl::IsNotFound(r.status()));
  opts.entry = "row_softmax";
  CHECK(absl::IsInvalidArgument(sim::RunKernelFile(simtest::DataPath("softmax_vf_fp32.py"), {x}, opts).status()));
  opts.entry = "softmax_wrapper";
  CHECK(absl::IsInvalidArgument(sim::RunKernelSource("def f(:\n", "broken.py", {x}, opts).status()));
  CHECK_FALSE(sim::RunKernelFile(simtest::DataPath("missing.py"), {x}, opts).ok());
  // A float16 tensor into an fp32-annotated kernel parameter.
  auto h = simtest::Random(DType::kFloat16, {4, 4}, 0, 1);
  auto r2 = sim::RunKernelFile(simtest::DataPath("softmax_vf_fp32.py"), {h}, opts);
  REQUIRE(r2.ok());
  CHECK_FALSE(r2->completed);
  CHECK(r2->hazards.HasCode("SIM-OP-DTYPE"));
}

namespace {
std::string PyfrontData(const std::string& name) {
  return std::string(OPDEV_SOURCE_DIR) + "/tests/data/pyfront/" + name;
}
}  // namespace

TEST_CASE("pyfront's kernel corpus: VF clamp/leaky with compares and select (1-D tensors) runs exactly") {
  auto x = simtest::Random(DType::kFloat32, {5000}, -10.0, 10.0, 4);
  auto y = *precision::Tensor::Zeros(DType::kFloat32, {5000});
  sim::SimOptions opts;
  opts.entry = "clamp_kernel";
  opts.block_dim = 2;
  auto r = sim::RunKernelFile(PyfrontData("kernel_relu_select_vf.py"), {x, y}, opts);
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  CHECK(r->completed);
  CHECK(r->hazards.empty());
  REQUIRE(r->outputs.size() == 1);
  int64_t bad = 0;
  for (int64_t i = 0; i < 5000; ++i) {
    float v = std::max(std::min(static_cast<float>(x.GetDouble(i)), 6.0f), -6.0f);
    if (v < 0) v = v * 0.01f;
    bad += r->outputs[0].tensor.GetDouble(i) != v;
  }
  CHECK(bad == 0);
}

TEST_CASE("pyfront's kernel corpus: fillpad(min) then row maximum into a DN tile") {
  auto x = simtest::Random(DType::kFloat32, {37, 200}, -10.0, 10.0, 8);
  auto out = *precision::Tensor::Zeros(DType::kFloat32, {37, 1});
  sim::SimOptions opts;
  opts.entry = "row_max";
  opts.block_dim = 2;
  auto r = sim::RunKernelFile(PyfrontData("kernel_fillpad_tail.py"), {x, out}, opts);
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  CHECK(r->completed);
  CHECK_FALSE(r->hazards.HasErrors());
  REQUIRE(r->outputs.size() == 1);
  for (int64_t i = 0; i < 37; ++i) {
    double m = -1e300;
    for (int64_t j = 0; j < 200; ++j) m = std::max(m, x.GetDouble(i * 200 + j));
    CHECK(r->outputs[0].tensor.GetDouble(i) == m);
  }
}
