// HF8 (HiFloat8) Cube tests: tests/data/sim/matmul_hf8.py multiplies HF8 operands (uint8 code
// tensors annotated pl.DT_HF8, as the frontend passes them) with FP32 accumulation over two K
// blocks; the result is compared bit for bit with a reference that decodes the codes and
// accumulates in FP32 in the documented order (k ascending, one rounding per step), and the
// HF8 store (scale 0.5) with the documented FP32 -> HF8 rounding of that reference.
#include "sim_test_util.h"

#include "opdev/support/hifloat8.h"

#include <cmath>
#include <cstring>

using namespace opdev;

namespace {

constexpr int64_t kM = 64, kK = 128, kN = 64;

// Finite HF8 codes from a fixed LCG, with magnitudes spread over the grid (a few large ones
// so that the FP32 sums round), and their decoded values.
std::vector<uint8_t> Codes(int64_t n, uint64_t seed) {
  std::vector<uint8_t> out(static_cast<size_t>(n));
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (auto& c : out) {
    do {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      c = static_cast<uint8_t>(s >> 56);
    } while (!std::isfinite(HiFloat8ToFloat(c)) || std::fabs(HiFloat8ToFloat(c)) > 64.0f);
  }
  return out;
}

precision::Tensor CodeTensor(const std::vector<uint8_t>& codes, std::vector<int64_t> shape) {
  return *precision::Tensor::FromBytes(DType::kUInt8, shape, codes.data(), codes.size());
}

std::vector<float> Ref(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  std::vector<float> out(static_cast<size_t>(kM * kN));
  for (int64_t m = 0; m < kM; ++m)
    for (int64_t n = 0; n < kN; ++n) {
      float s = 0.0f;
      for (int64_t k = 0; k < kK; ++k) {
        const float p = HiFloat8ToFloat(a[m * kK + k]) * HiFloat8ToFloat(b[k * kN + n]);  // exact
        s += p;
      }
      out[m * kN + n] = s;
    }
  return out;
}

sim::SimResult Run(const std::string& entry, std::vector<precision::Tensor> in) {
  sim::SimOptions opts;
  opts.entry = entry;
  auto r = sim::RunKernelFile(simtest::DataPath("matmul_hf8.py"), in, opts);
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("cube hf8: HF8 x HF8 -> FP32 over two K blocks is bit-exact with the FP32 reference") {
  const auto a = Codes(kM * kK, 31), b = Codes(kK * kN, 32);
  auto out = *precision::Tensor::Zeros(DType::kFloat32, {kM, kN});
  auto r = Run("matmul_hf8_fp32_kernel", {CodeTensor(a, {kM, kK}), CodeTensor(b, {kK, kN}), out});
  INFO(r.hazards.ToText());
  CHECK(r.completed);
  CHECK(r.hazards.empty());
  REQUIRE(r.outputs.size() == 1);
  const auto& y = r.outputs[0].tensor;
  REQUIRE(y.dtype() == DType::kFloat32);
  const auto ref = Ref(a, b);
  int64_t bad = 0, rounded = 0;
  double exact_err = 0;
  for (int64_t i = 0; i < kM * kN; ++i) {
    bad += static_cast<float>(y.GetDouble(i)) != ref[static_cast<size_t>(i)];
    // The same sums in double: FP32 accumulation does round here, so the test sees the order.
    double s = 0;
    for (int64_t k = 0; k < kK; ++k)
      s += static_cast<double>(HiFloat8ToFloat(a[(i / kN) * kK + k])) * HiFloat8ToFloat(b[k * kN + i % kN]);
    rounded += s != static_cast<double>(ref[static_cast<size_t>(i)]);
    exact_err = std::max(exact_err, std::fabs(s - y.GetDouble(i)) / (1.0 + std::fabs(s)));
  }
  CHECK(bad == 0);
  CHECK(rounded > 0);
  CHECK(exact_err < 1e-4);  // FP32 accumulation of sums up to ~10^5 against the exact sum
}

TEST_CASE("cube hf8: the FIX store into an HF8 tensor rounds acc * scale to nearest (ties away)") {
  const auto a = Codes(kM * kK, 41), b = Codes(kK * kN, 42);
  std::vector<uint8_t> zeros(static_cast<size_t>(kM * kN), 0);
  auto r = Run("matmul_hf8_hf8_kernel", {CodeTensor(a, {kM, kK}), CodeTensor(b, {kK, kN}), CodeTensor(zeros, {kM, kN})});
  INFO(r.hazards.ToText());
  CHECK(r.completed);
  CHECK(r.hazards.empty());
  REQUIRE(r.outputs.size() == 1);
  const auto& y = r.outputs[0].tensor;
  REQUIRE(y.itemsize() == 1);
  const auto ref = Ref(a, b);
  int64_t bad = 0, inexact = 0;
  for (int64_t i = 0; i < kM * kN; ++i) {
    uint8_t got;
    std::memcpy(&got, y.data() + i, 1);
    const float want_v = ref[static_cast<size_t>(i)] * 0.5f;
    bad += got != FloatToHiFloat8(want_v);
    inexact += HiFloat8ToFloat(got) != want_v;
  }
  CHECK(bad == 0);
  CHECK(inexact > 0);  // the store did round
}

TEST_CASE("cube hf8: HF8 x FP16 is a dtype error / so is an FP16 tensor for an HF8 parameter") {
  const auto a = Codes(kM * kM, 51);
  auto out = *precision::Tensor::Zeros(DType::kFloat32, {kM, kN});
  auto bh = *precision::Tensor::Zeros(DType::kFloat16, {kM, kN});
  auto r = Run("matmul_hf8_fp16_kernel", {CodeTensor(a, {kM, kM}), bh, out});
  CHECK_FALSE(r.completed);
  INFO(r.hazards.ToText());
  CHECK(r.hazards.ToText().find("SIM-OP-DTYPE") != std::string::npos);
  CHECK(r.hazards.ToText().find("HF8") != std::string::npos);

  const auto a2 = Codes(kM * kK, 52);
  auto bk = *precision::Tensor::Zeros(DType::kFloat16, {kK, kN});
  auto r2 = Run("matmul_hf8_fp32_kernel", {CodeTensor(a2, {kM, kK}), bk, out});
  CHECK_FALSE(r2.completed);
  INFO(r2.hazards.ToText());
  CHECK(r2.hazards.ToText().find("annotated pl.DT_HF8 but receives a float16 tensor") != std::string::npos);
}
