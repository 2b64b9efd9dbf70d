// Fixpipe quantisation tests: pl.store / pl.move Acc -> Vec with scale= (a per-tensor scale and
// a per-channel Scaling tile filled by pl.move Mat -> Scaling) and relu_pre_mode, compared
// element for element with the documented conversion (ReLU, then the scale with its float32
// bits cut to sign + 8 exponent + 10 mantissa bits, multiplied in FP32, then round to nearest
// even and saturate); and the misuses the frontend rejects, each SIM-FIX-QUANT at its line.
#include "sim_test_util.h"

#include "opdev/sim/fixpipe.h"
#include "opdev/sim/hazards.h"
#include "opdev/support/file_io.h"
#include "opdev/support/half.h"

#include <cmath>
#include <cstring>

using namespace opdev;
using simtest::HasAt;
using simtest::LineOf;

namespace {

constexpr const char* kFile = "matmul_quant_fp32.py";
constexpr const char* kEntry = "matmul_quant_kernel";

uint32_t F32Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float Cut(float f) {  // the fixpipe's scale: the low 13 mantissa bits dropped
  uint32_t b = F32Bits(f) & 0xFFFFE000u;
  float r;
  std::memcpy(&r, &b, 4);
  return r;
}
double Int8(float v) { return std::clamp(std::nearbyint(static_cast<double>(v)), -128.0, 127.0); }

float ChannelScale(int64_t n) { return 0.25f + 0.37f * static_cast<float>(n); }

// q: values in [-3, 3] and a row of x.5 boundaries for the 0.1 scale (5 * 0.1f rounds to 1,
// 5 * the cut 0.1 to 0); k: the identity, so acc == q exactly.
std::vector<precision::Tensor> Inputs(DType out_t = DType::kInt8) {
  auto q = simtest::Random(DType::kFloat32, {64, 64}, -3, 3, 7);
  std::vector<double> qv(64 * 64), kv(64 * 64, 0.0), sv(64);
  for (int64_t i = 0; i < 64 * 64; ++i) qv[i] = static_cast<float>(q.GetDouble(i));
  for (int64_t c = 0; c < 64; ++c) qv[c] = 5.0;
  for (int64_t i = 0; i < 64; ++i) kv[i * 64 + i] = 1.0;
  for (int64_t n = 0; n < 64; ++n)
    sv[n] = static_cast<double>((uint64_t{1} << 46) | F32Bits(ChannelScale(n)));
  return {*precision::Tensor::FromDoubles(DType::kFloat32, {64, 64}, qv),
          *precision::Tensor::FromDoubles(DType::kFloat32, {64, 64}, kv),
          *precision::Tensor::FromDoubles(DType::kInt64, {1, 64}, sv),
          *precision::Tensor::Zeros(out_t, {64, 64}),
          *precision::Tensor::Zeros(DType::kInt8, {64, 64}),
          *precision::Tensor::Zeros(DType::kInt8, {64, 64}),
          *precision::Tensor::Zeros(DType::kFloat16, {64, 64})};
}

sim::SimResult RunSrc(const std::string& src) {
  sim::SimOptions opts;
  opts.entry = kEntry;
  const bool u8 = src.find("out_t: pl.Tensor[[64, 64], pl.DT_UINT8]") != std::string::npos;
  auto r = sim::RunKernelSource(src, "quant.py", Inputs(u8 ? DType::kUInt8 : DType::kInt8), opts);
  REQUIRE(r.ok());
  return *r;
}

const precision::Tensor& Out(const sim::SimResult& r, const std::string& name) {
  for (const auto& o : r.outputs)
    if (o.name == name) return o.tensor;
  FAIL("no output " << name);
  return r.outputs[0].tensor;
}

}  // namespace

TEST_CASE("fixpipe: DeqScale keeps sign, exponent and the top 10 mantissa bits") {
  CHECK(sim::DeqScale(F32Bits(2.0f)) == 2.0f);
  CHECK(sim::DeqScale(F32Bits(-0.5f)) == -0.5f);
  CHECK(sim::DeqScale(F32Bits(0.1f)) == Cut(0.1f));
  CHECK(sim::DeqScale(F32Bits(0.1f)) < 0.1f);
  // An INT64 deqTensor element: the low 32 bits, whatever the high ones hold.
  CHECK(sim::DeqTensorScale((uint64_t{1} << 46) | F32Bits(3.0f)) == 3.0f);
}

TEST_CASE("fixpipe: per-tensor and per-channel scale on pl.store and pl.move Acc -> Vec") {
  auto src = *ReadTextFile(simtest::DataPath(kFile));
  auto r = RunSrc(src);
  INFO(r.hazards.ToText());
  REQUIRE(r.completed);
  CHECK_FALSE(r.hazards.HasErrors());
  auto in = Inputs();
  const auto& q = in[0];
  const auto &t = Out(r, "out_t"), &c = Out(r, "out_c"), &v = Out(r, "out_v"), &h = Out(r, "out_h");
  int64_t bad_t = 0, bad_c = 0, bad_v = 0, bad_h = 0;
  for (int64_t m = 0; m < 64; ++m)
    for (int64_t n = 0; n < 64; ++n) {
      const int64_t i = m * 64 + n;
      const float a = static_cast<float>(q.GetDouble(i));
      bad_t += t.GetDouble(i) != Int8(std::max(a, 0.0f) * Cut(0.1f));
      const double ch = Int8(a * Cut(ChannelScale(n)));
      bad_c += c.GetDouble(i) != ch;
      bad_v += v.GetDouble(i) != ch;
      bad_h += h.GetDouble(i) != static_cast<double>(HalfToFloat(FloatToHalf(a * 0.5f)));
    }
  CHECK(bad_t == 0);
  CHECK(bad_c == 0);
  CHECK(bad_v == 0);
  CHECK(bad_h == 0);
  // The x.5 row: 5 * the cut 0.1 is below 0.5, so it rounds to 0 (the full float32 0.1 gives 1).
  CHECK(t.GetDouble(0) == 0.0);
}

TEST_CASE("fixpipe: misuse of scale= and Scaling tiles is reported at its line") {
  auto base = *ReadTextFile(simtest::DataPath(kFile));
  struct M {
    const char* name;
    const char* from;
    const char* to;
    const char* code;
    const char* at;
    const char* from2 = nullptr;  // a second edit, when one is not enough
    const char* to2 = nullptr;
  };
  const M muts[] = {
      {"per-channel with relu", "pl.store(out_c, acc, [0, 0], scale=s_fb)",
       "pl.store(out_c, acc, [0, 0], scale=s_fb, relu_pre_mode=pl.ReluPreMode.NormalRelu)", "SIM-FIX-QUANT",
       "scale=s_fb, relu_pre_mode"},
      {"per-channel with phase", "pl.store(out_c, acc, [0, 0], scale=s_fb)",
       "pl.store(out_c, acc, [0, 0], scale=s_fb, phase=pl.STPhase.Final)", "SIM-FIX-QUANT", "scale=s_fb, phase"},
      {"per-channel with a dual mode", "scale=s_fb, acc_to_vec_mode=pl.AccToVecMode.SingleModeVec0",
       "scale=s_fb, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM", "SIM-FIX-QUANT", "DualModeSplitM"},
      {"scale tile in Mat", "pl.store(out_c, acc, [0, 0], scale=s_fb)", "pl.store(out_c, acc, [0, 0], scale=s_mat)",
       "SIM-FIX-QUANT", "scale=s_mat"},
      {"scale tile of FP32", "dtype=pl.DT_INT64, target_memory=pl.MemorySpace.Scaling",
       "dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Scaling", "SIM-FIX-QUANT", "pl.move(s_fb, s_mat)"},
      {"scale tile [1, 8]", "shape=[1, 64], dtype=pl.DT_INT64, target_memory=pl.MemorySpace.Scaling",
       "shape=[1, 8], dtype=pl.DT_INT64, target_memory=pl.MemorySpace.Scaling", "SIM-FIX-QUANT",
       "pl.move(s_fb, s_mat)"},
      {"a GM tensor as scale", "pl.store(out_c, acc, [0, 0], scale=s_fb)", "pl.store(out_c, acc, [0, 0], scale=s)",
       "SIM-FIX-QUANT", "scale=s)"},
      {"scaled FP32 -> BF16 move", "dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec",
       "dtype=pl.DT_BF16, target_memory=pl.MemorySpace.Vec", "SIM-FIX-QUANT", "pl.move(vec_h, acc, scale=0.5"},
      {"scaled store into UINT8", "out_t: pl.Tensor[[64, 64], pl.DT_INT8]", "out_t: pl.Tensor[[64, 64], pl.DT_UINT8]",
       "SIM-FIX-QUANT", "pl.store(out_t, acc"},
      {"scale tile narrower than the Acc columns", "shape=[1, 64], dtype=pl.DT_INT64, target_memory=pl.MemorySpace.Scaling",
       "shape=[1, 32], dtype=pl.DT_INT64, target_memory=pl.MemorySpace.Scaling", "SIM-CUBE-SHAPE",
       "pl.store(out_c, acc, [0, 0], scale=s_fb)", "shape=[1, 64], dtype=pl.DT_INT64, target_memory=pl.MemorySpace.Mat",
       "shape=[1, 32], dtype=pl.DT_INT64, target_memory=pl.MemorySpace.Mat"},
      {"Scaling tile never filled", "pl.move(s_fb, s_mat)", "pass", "SIM-UNINIT-READ",
       "pl.store(out_c, acc, [0, 0], scale=s_fb)"},
  };
  for (const M& m : muts) {
    CAPTURE(m.name);
    std::string src = simtest::Mutate(base, m.from, m.to);
    if (m.from2) src = simtest::Mutate(src, m.from2, m.to2);
    auto r = RunSrc(src);
    INFO(r.hazards.ToText());
    CHECK(HasAt(r.hazards, m.code, LineOf(src, m.at)));
    CHECK(r.hazards.HasErrors());
  }
}
