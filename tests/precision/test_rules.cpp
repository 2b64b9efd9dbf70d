// Table-driven tests of every scheme-A rule with hand-computed expectations: thresholds,
// element tolerance, the four pass checks and their boundaries, NaN/Inf rules, the exact
// path, empty tensors, shape/dtype rules, multi-output lists and the summary text.
#include <catch2/catch.hpp>

#include "opdev/precision/compare.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

using namespace opdev::precision;
using opdev::DType;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::string kRule(100, '-');

Tensor T(DType dt, std::vector<double> v, Shape shape = {}) {
  if (shape.empty() && !v.empty()) shape = {static_cast<int64_t>(v.size())};
  auto t = Tensor::FromDoubles(dt, shape, v);
  REQUIRE(t.ok());
  return *t;
}

std::vector<double> Repeat(double x, int n) { return std::vector<double>(static_cast<size_t>(n), x); }

struct Case {
  const char* name;
  Tensor actual, golden;
  std::optional<std::string> dtype;
  bool passed;
  std::string summary;     // exact expected summary ("" = not checked here)
  bool has_metrics;
  double ratio, max_abs, mean_abs, mean_rel;
  std::vector<std::string> failed_checks;
};

std::string Block(bool pass, const std::string& atol_row, const std::string& rtol_row,
                  const std::string& ratio_row, const std::string& max_row) {
  return std::string("precision ") + (pass ? "PASS" : "FAIL") + "\n" + atol_row + "\n" +
         rtol_row + "\n" + ratio_row + "\n" + max_row + "\n" + kRule;
}

}  // namespace

TEST_CASE("threshold table, ULP and max-abs limit") {
  auto f16 = ThresholdsFor(DType::kFloat16);
  REQUIRE(f16);
  CHECK(f16->rtol == std::ldexp(1.0, -9));
  CHECK(f16->atol == std::ldexp(1.0, -9));
  CHECK(f16->ulp == std::ldexp(1.0, -10));
  CHECK(f16->max_abs_error_limit == 0.1);  // max(0.1, 32 * 2^-10 = 0.03125)
  CHECK(f16->finfo_max == 65504.0);
  auto bf16 = ThresholdsFor(DType::kBFloat16);
  REQUIRE(bf16);
  CHECK(bf16->rtol == 0.015625);
  CHECK(bf16->atol == 0.015625);
  CHECK(bf16->ulp == 0.0078125);
  CHECK(bf16->max_abs_error_limit == 1.0);  // max(1.0, 0.25)
  CHECK(bf16->finfo_max == 3.3895313892515355e38);
  auto f32 = ThresholdsFor(DType::kFloat32);
  REQUIRE(f32);
  CHECK(f32->rtol == std::ldexp(1.0, -10));
  CHECK(f32->atol == std::ldexp(1.0, -16));
  CHECK(f32->max_abs_error_limit == 0.01);
  CHECK(f32->finfo_max == 3.4028234663852886e38);
  auto f64 = ThresholdsFor(DType::kFloat64);
  REQUIRE(f64);
  CHECK(f64->ulp == std::ldexp(1.0, -52));
  CHECK(f64->max_abs_error_limit == 0.01);
  CHECK_FALSE(ThresholdsFor(DType::kInt32));
  CHECK_FALSE(ThresholdsFor(DType::kBool));
}

TEST_CASE("comparison dtype names are exactly the seven of the spec") {
  CHECK(ParseComparisonDType("half") == DType::kFloat16);
  CHECK(ParseComparisonDType("float16") == DType::kFloat16);
  CHECK(ParseComparisonDType("bfloat16") == DType::kBFloat16);
  CHECK(ParseComparisonDType("float") == DType::kFloat32);
  CHECK(ParseComparisonDType("float32") == DType::kFloat32);
  CHECK(ParseComparisonDType("double") == DType::kFloat64);
  CHECK(ParseComparisonDType("float64") == DType::kFloat64);
  for (const char* bad : {"fp16", "FP32", "torch.float16", "bf16", "int32", "Float32", ""})
    CHECK_FALSE(ParseComparisonDType(bad));
}

TEST_CASE("scheme A rules, table-driven") {
  std::vector<double> hundred_ones = Repeat(1.0, 100);
  std::vector<double> one_off = hundred_ones;
  one_off[7] = 1.0625;  // error 2^-4 > tolerance 2^-8: 1 of 100 fails
  std::vector<double> two_off = one_off;
  two_off[50] = 1.0625;
  std::vector<double> zeros1000 = Repeat(0.0, 1000);
  std::vector<double> at_limit = zeros1000;
  at_limit[3] = 0.1;
  std::vector<double> above_limit = zeros1000;
  above_limit[3] = std::nextafter(0.1, 1.0);
  std::vector<double> inf_vs_finite_a = Repeat(1.0, 202);
  inf_vs_finite_a[0] = kInf;
  std::vector<double> ones202 = Repeat(1.0, 202);
  std::vector<double> tol_edge = Repeat(1.0, 1000);
  tol_edge[999] = 1.0 + 0x1p-8;  // f16: exactly atol + rtol*|1| = 2^-9 + 2^-9
  std::vector<double> tol_above = Repeat(1.0, 1000);
  tol_above[999] = 1.0 + 0x1p-8 + 0x1p-10;  // the next float16 above
  std::vector<double> bias = Repeat(8.007, 1000);

  std::vector<Case> cases = {
      {"identical float32", T(DType::kFloat32, {1, 2, 3, 4}), T(DType::kFloat32, {1, 2, 3, 4}),
       std::nullopt, true,
       Block(true, "    atol            : 0.000e+00 thresh=1.526e-05 check=GT",
             "    rtol            : 0.000e+00 thresh=9.766e-04 check=GT",
             "    matched_ratio   : 1.0000    thresh=0.9900    check=LT",
             "    max_abs_error   : 0.000e+00 thresh=1.000e-02 check=GT"),
       true, 1.0, 0, 0, 0, {}},
      // 99 of 100 pass: ratio exactly 0.99 passes (>=). mean_abs = 0.0625/100.
      {"ratio exactly 0.99", T(DType::kFloat16, one_off), T(DType::kFloat16, hundred_ones),
       std::nullopt, true,
       Block(true, "    atol            : 6.250e-04 thresh=1.953e-03 check=GT",
             "    rtol            : 6.250e-04 thresh=1.953e-03 check=GT",
             "    matched_ratio   : 0.9900    thresh=0.9900    check=LT",
             "    max_abs_error   : 6.250e-02 thresh=1.000e-01 check=GT"),
       true, 0.99, 0.0625, 0.000625, 0.000625, {}},
      {"ratio 0.98 fails", T(DType::kFloat16, two_off), T(DType::kFloat16, hundred_ones),
       std::nullopt, false,
       Block(false, "    atol            : 1.250e-03 thresh=1.953e-03 check=GT",
             "    rtol            : 1.250e-03 thresh=1.953e-03 check=GT",
             "    matched_ratio   : 0.9800    thresh=0.9900    check=LT  [CHECK_FAILED]",
             "    max_abs_error   : 6.250e-02 thresh=1.000e-01 check=GT"),
       true, 0.98, 0.0625, 0.00125, 0.00125, {"matched_ratio"}},
      // float64 data judged by the float16 row: max error exactly 0.1 = limit passes;
      // |g| = 0 everywhere, so no relative error is averaged (mean_rel = 0).
      {"max error exactly at the limit", T(DType::kFloat64, at_limit),
       T(DType::kFloat64, zeros1000), "float16", true, "", true, 0.999, 0.1, 0.1 / 1000, 0, {}},
      {"max error one ulp above the limit", T(DType::kFloat64, above_limit),
       T(DType::kFloat64, zeros1000), "float16", false, "", true, 0.999,
       std::nextafter(0.1, 1.0), std::nextafter(0.1, 1.0) / 1000, 0, {"max_abs_error"}},
      // The element tolerance is inclusive: error == atol + rtol*|g| passes.
      {"element error exactly at tolerance", T(DType::kFloat16, tol_edge),
       T(DType::kFloat16, Repeat(1.0, 1000)), std::nullopt, true, "", true, 1.0, 0x1p-8,
       0x1p-8 / 1000, 0x1p-8 / 1000, {}},
      {"element error one ulp above tolerance", T(DType::kFloat16, tol_above),
       T(DType::kFloat16, Repeat(1.0, 1000)), std::nullopt, true, "", true, 0.999,
       0x1p-8 + 0x1p-10, (0x1p-8 + 0x1p-10) / 1000, (0x1p-8 + 0x1p-10) / 1000, {}},
      // One-sided Inf becomes 65504 (float16 max): error 65503 on 1 of 202 elements.
      {"Inf vs finite", T(DType::kFloat16, inf_vs_finite_a), T(DType::kFloat16, ones202),
       std::nullopt, false,
       Block(false, "    atol            : 3.243e+02 thresh=1.953e-03 check=GT  [CHECK_FAILED]",
             "    rtol            : 3.243e+02 thresh=1.953e-03 check=GT  [CHECK_FAILED]",
             "    matched_ratio   : 0.9950    thresh=0.9900    check=LT",
             "    max_abs_error   : 6.550e+04 thresh=1.000e-01 check=GT  [CHECK_FAILED]"),
       true, 201.0 / 202, 65503, 65503.0 / 202, 65503.0 / 202, {"atol", "rtol", "max_abs_error"}},
      {"Inf vs the dtype's max is an exact match", T(DType::kFloat16, {kInf, -kInf, 2}),
       T(DType::kFloat16, {65504, -65504, 2}), std::nullopt, true, "", true, 1.0, 0, 0, 0, {}},
      {"bfloat16 Inf vs finite uses the bfloat16 max", T(DType::kBFloat16, {kInf}),
       T(DType::kBFloat16, {3.3895313892515355e38}), std::nullopt, true, "", true, 1.0, 0, 0,
       0, {}},
      {"same-sign Inf matches and is excluded", T(DType::kFloat32, {kInf, -kInf, 1.0, 2.0}),
       T(DType::kFloat32, {kInf, -kInf, 1.0, 2.5}), std::nullopt, false, "", true, 0.75, 0.5,
       0.25, 0.1, {"atol", "rtol", "matched_ratio", "max_abs_error"}},
      {"opposite-sign Inf", T(DType::kFloat32, {kInf, -kInf, 1.0}),
       T(DType::kFloat32, {-kInf, -kInf, 1.0}), std::nullopt, false,
       "Inf sign mismatch: 1 positions", false, 0, 0, 0, 0, {}},
      {"NaN on one side", T(DType::kFloat16, {1.0, kNaN, 3.0, kNaN}),
       T(DType::kFloat16, {1.0, 2.0, 3.0, kNaN}), std::nullopt, false,
       "NaN position mismatch: 1 positions differ", false, 0, 0, 0, 0, {}},
      {"NaN mismatch is reported before Inf sign", T(DType::kFloat32, {kNaN, kInf}),
       T(DType::kFloat32, {1.0, -kInf}), std::nullopt, false,
       "NaN position mismatch: 1 positions differ", false, 0, 0, 0, 0, {}},
      {"NaN-only tensors: nothing compared, ratio 1", T(DType::kFloat32, {kNaN, kNaN}),
       T(DType::kFloat32, {kNaN, kNaN}), std::nullopt, true,
       Block(true, "    atol            : 0.000e+00 thresh=1.526e-05 check=GT",
             "    rtol            : 0.000e+00 thresh=9.766e-04 check=GT",
             "    matched_ratio   : 1.0000    thresh=0.9900    check=LT",
             "    max_abs_error   : 0.000e+00 thresh=1.000e-02 check=GT"),
       true, 1.0, 0, 0, 0, {}},
      {"zero golden is left out of the relative mean", T(DType::kFloat32, {0.001, 1.0005}),
       T(DType::kFloat32, {0.0, 1.0}), std::nullopt, false, "", true, 0.5,
       static_cast<double>(0.001f),
       (static_cast<double>(0.001f) + (static_cast<double>(1.0005f) - 1.0)) / 2,
       static_cast<double>(1.0005f) - 1.0, {"atol", "matched_ratio"}},
      {"negative zero equals zero", T(DType::kFloat32, {-0.0}), T(DType::kFloat32, {0.0}),
       std::nullopt, true, "", true, 1.0, 0, 0, 0, {}},
      // Mean checks alone can fail a verdict: every element within tolerance, biased.
      {"mean absolute error fails alone", T(DType::kFloat64, bias),
       T(DType::kFloat64, Repeat(8.0, 1000)), std::nullopt, false, "", true, 1.0, 8.007 - 8.0,
       8.007 - 8.0, (8.007 - 8.0) / 8.0, {"atol"}},
      // bfloat16: one ulp (2^-7) off passes; exactly at tolerance (2^-5) fails the means.
      {"bfloat16 one ulp passes", T(DType::kBFloat16, {1.0078125}), T(DType::kBFloat16, {1.0}),
       std::nullopt, true, "", true, 1.0, 0.0078125, 0.0078125, 0.0078125, {}},
      {"bfloat16 at tolerance fails the means", T(DType::kBFloat16, {1.03125}),
       T(DType::kBFloat16, {1.0}), std::nullopt, false, "", true, 1.0, 0.03125, 0.03125,
       0.03125, {"atol", "rtol"}},
      // Mixed dtypes: the actual's row applies unless a dtype name is given.
      {"float16 actual vs float32 golden uses the float16 row", T(DType::kFloat16, {1.0}),
       T(DType::kFloat32, {1.001}), std::nullopt, true, "", true, 1.0,
       static_cast<double>(1.001f) - 1.0, static_cast<double>(1.001f) - 1.0,
       (static_cast<double>(1.001f) - 1.0) / static_cast<double>(1.001f), {}},
      {"the same pair judged as float32 fails", T(DType::kFloat16, {1.0}),
       T(DType::kFloat32, {1.001}), "float32", false, "", true, 0.0,
       static_cast<double>(1.001f) - 1.0, static_cast<double>(1.001f) - 1.0,
       (static_cast<double>(1.001f) - 1.0) / static_cast<double>(1.001f),
       {"atol", "rtol", "matched_ratio"}},
      {"empty floating tensor", T(DType::kFloat16, {}, {0, 4}), T(DType::kFloat16, {}, {0, 4}),
       std::nullopt, true, "empty tensor", false, 0, 0, 0, 0, {}},
      {"empty integer tensor", T(DType::kInt32, {}, {0}), T(DType::kInt32, {}, {0}),
       std::nullopt, true, "empty tensor", false, 0, 0, 0, 0, {}},
      {"integer exact match", T(DType::kInt32, {1, 2, 3, 4}), T(DType::kInt32, {1, 2, 3, 4}),
       std::nullopt, true, "exact match (integer)", true, 1.0, 0, 0, 0, {}},
      {"integer mismatch", T(DType::kInt32, {1, 2, 3, 4}), T(DType::kInt32, {1, 2, 0, 4}),
       std::nullopt, false, "integer mismatch: 1/4 elements differ", true, 0.75, 0, 0, 0, {}},
      {"int64 mismatch", T(DType::kInt64, {-1, 5}), T(DType::kInt64, {1, 5}), std::nullopt,
       false, "integer mismatch: 1/2 elements differ", true, 0.5, 0, 0, 0, {}},
      {"bool mismatch", T(DType::kBool, {1, 0, 1, 1}), T(DType::kBool, {1, 1, 1, 0}),
       std::nullopt, false, "integer mismatch: 2/4 elements differ", true, 0.5, 0, 0, 0, {}},
      {"uint8 exact", T(DType::kUInt8, {0, 255}), T(DType::kUInt8, {0, 255}), std::nullopt, true,
       "exact match (integer)", true, 1.0, 0, 0, 0, {}},
      {"integer dtype mismatch", T(DType::kInt32, {1}), T(DType::kInt64, {1}), std::nullopt,
       false, "dtype mismatch for exact comparison: actual=torch.int32, golden=torch.int64",
       false, 0, 0, 0, 0, {}},
      {"integer actual vs float golden", T(DType::kInt32, {1}), T(DType::kFloat32, {1}),
       std::nullopt, false,
       "dtype mismatch for exact comparison: actual=torch.int32, golden=torch.float32", false,
       0, 0, 0, 0, {}},
      {"float actual vs integer golden", T(DType::kFloat32, {1}), T(DType::kInt32, {1}),
       std::nullopt, false,
       "unsupported dtype pair for floating comparison: actual=torch.float32, "
       "golden=torch.int32",
       false, 0, 0, 0, 0, {}},
      {"integers judged by a float row", T(DType::kInt32, {1}), T(DType::kInt32, {1}), "half",
       false,
       "unsupported dtype pair for floating comparison: actual=torch.int32, golden=torch.int32",
       false, 0, 0, 0, 0, {}},
      {"shape mismatch", T(DType::kFloat32, Repeat(0, 6), {2, 3}),
       T(DType::kFloat32, Repeat(0, 6), {3, 2}), std::nullopt, false,
       "shape mismatch: actual=(2, 3) vs golden=(3, 2)", false, 0, 0, 0, 0, {}},
      {"1-d vs 2-d shape", T(DType::kFloat32, Repeat(0, 5)),
       T(DType::kFloat32, Repeat(0, 5), {1, 5}), std::nullopt, false,
       "shape mismatch: actual=(5,) vs golden=(1, 5)", false, 0, 0, 0, 0, {}},
      {"0-d vs 1-d shape", T(DType::kFloat32, {1.0}, Shape{}).Reshaped({}).value(),
       T(DType::kFloat32, {1.0}), std::nullopt, false, "shape mismatch: actual=() vs golden=(1,)",
       false, 0, 0, 0, 0, {}},
      {"unsupported dtype name", T(DType::kFloat32, {1}), T(DType::kFloat32, {1}), "fp32",
       false, "unsupported dtype: fp32", false, 0, 0, 0, 0, {}},
  };

  for (const Case& c : cases) {
    SECTION(c.name) {
      CompareOptions opts;
      opts.dtype = c.dtype;
      PrecisionResult r = CheckPrecision(c.actual, c.golden, opts);
      INFO(r.summary);
      CHECK(r.passed == c.passed);
      if (!c.summary.empty()) CHECK(r.summary == c.summary);
      if (c.has_metrics) {
        REQUIRE(r.outputs.size() == 1);
        REQUIRE(r.outputs[0]);
        const TensorComparison& t = *r.outputs[0];
        REQUIRE(t.has_metrics);
        CHECK(t.matched_ratio == Approx(c.ratio).epsilon(1e-15));
        if (t.path == ComparePath::kFloating) {
          CHECK(t.max_abs_error == Approx(c.max_abs).epsilon(1e-15));
          CHECK(t.mean_abs_error == Approx(c.mean_abs).epsilon(1e-12));
          CHECK(t.mean_rel_error == Approx(c.mean_rel).epsilon(1e-12));
          CHECK(t.failed_checks == c.failed_checks);
        }
      }
    }
  }
}

TEST_CASE("several outputs with None placeholders") {
  Tensor x = T(DType::kFloat32, {1, 2, 3});
  Tensor y = T(DType::kFloat32, {1, 2, 4});
  const std::string pass_block =
      Block(true, "    atol            : 0.000e+00 thresh=1.526e-05 check=GT",
            "    rtol            : 0.000e+00 thresh=9.766e-04 check=GT",
            "    matched_ratio   : 1.0000    thresh=0.9900    check=LT",
            "    max_abs_error   : 0.000e+00 thresh=1.000e-02 check=GT");
  using List = std::vector<std::optional<Tensor>>;

  auto r = CheckPrecision(List{x, std::nullopt, x}, List{x, std::nullopt, x});
  CHECK(r.passed);
  CHECK(r.summary == "output[0]: " + pass_block + "; output[2]: " + pass_block);
  REQUIRE(r.outputs.size() == 3);
  CHECK_FALSE(r.outputs[1].has_value());

  r = CheckPrecision(List{x, y}, List{x, x});
  CHECK_FALSE(r.passed);
  CHECK(r.summary.rfind("output[0]: precision PASS", 0) == 0);
  CHECK(r.summary.find("; output[1]: precision FAIL") != std::string::npos);

  r = CheckPrecision(List{x, std::nullopt}, List{x, x});
  CHECK_FALSE(r.passed);
  CHECK(r.summary == "output[0]: " + pass_block + "; output[1]: one side is None");

  r = CheckPrecision(List{std::nullopt, std::nullopt}, List{std::nullopt, std::nullopt});
  CHECK_FALSE(r.passed);
  CHECK(r.summary == "no tensor output was compared");

  r = CheckPrecision(List{std::nullopt}, List{x});
  CHECK_FALSE(r.passed);
  CHECK(r.summary == "output[0]: one side is None; no tensor output was compared");

  r = CheckPrecision(List{x, x}, List{x});
  CHECK_FALSE(r.passed);
  CHECK(r.summary == "output count mismatch: actual=2 vs golden=1");

  // The count check comes before the dtype-name check, like the reference.
  CompareOptions bad;
  bad.dtype = "int8";
  r = CheckPrecision(List{x, x}, List{x}, bad);
  CHECK(r.summary == "output count mismatch: actual=2 vs golden=1");
  r = CheckPrecision(List{x}, List{x}, bad);
  CHECK(r.summary == "unsupported dtype: int8");

  // A single output has no prefix.
  r = CheckPrecision(List{x}, List{x});
  CHECK(r.summary == pass_block);
}

TEST_CASE("legacy one-line summary and report line") {
  std::vector<double> v = Repeat(1.0, 100);
  std::vector<double> a = v;
  a[7] = 1.0625;
  auto r = CheckPrecision(T(DType::kFloat16, a), T(DType::kFloat16, v));
  REQUIRE(r.outputs[0]);
  CHECK(r.outputs[0]->LegacyLine() ==
        "matched_ratio=0.990000 (req>=0.99), max_abs_error=6.250000e-02 (limit=1.000000e-01)");
  std::string line = r.ReportLine("softmax case 0");
  CHECK(line.rfind("[softmax case 0] PASS (matched_ratio=0.990000 (req>=0.99), max_abs_error=", 0) == 0);
  CHECK(line.find("matched_ratio   : 0.9900") != std::string::npos);
  CHECK(line.find("max_abs_error   : 6.250e-02") != std::string::npos);

  auto ri = CheckPrecision(T(DType::kInt32, {1, 2}), T(DType::kInt32, {1, 2}));
  CHECK(ri.outputs[0]->LegacyLine() ==
        "exact match (integer): matched_ratio=1.000000, max_abs_error=0.000000e+00");
}

TEST_CASE("python-compatible number formatting") {
  CHECK(PyFormat("%.3e", 0.0) == "0.000e+00");
  CHECK(PyFormat("%.3e", 65503.0) == "6.550e+04");
  CHECK(PyFormat("%.3e", kInf) == "inf");
  CHECK(PyFormat("%.3e", -kNaN) == "nan");
  CHECK(PyFormat("%.4f", 0.99) == "0.9900");
}

TEST_CASE("Inf errors in float64 stay Inf, as in the reference") {
  // One-sided Inf in float64 becomes DBL_MAX; the error to -DBL_MAX overflows to Inf.
  auto r = CheckPrecision(T(DType::kFloat64, {kInf, 1.0}), T(DType::kFloat64, {-1.7976931348623157e308, 1.0}));
  REQUIRE(r.outputs[0]);
  CHECK(std::isinf(r.outputs[0]->max_abs_error));
  CHECK(r.summary.find("max_abs_error   : inf       thresh=1.000e-02 check=GT  [CHECK_FAILED]") !=
        std::string::npos);
}
