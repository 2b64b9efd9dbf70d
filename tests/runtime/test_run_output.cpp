// Tests of run-output parsing: PASS lines in both summary forms, precision failures inside
// tracebacks, labels with brackets, case assignment by label.
#include <catch2/catch.hpp>

#include "opdev/runtime/run_output.h"
#include "opdev/support/file_io.h"

using namespace opdev::runtime;

namespace {
const std::string kCustom = std::string(OPDEV_SOURCE_DIR) + "/tests/data/runtime/custom/";
std::string Read(const std::string& rel) {
  auto t = opdev::ReadTextFile(kCustom + rel);
  REQUIRE(t.ok());
  return *t;
}
}  // namespace

TEST_CASE("scheme-A multi-line and one-line summaries give the same metric fields") {
  auto multi = ParsePrecisionSummary(
      "precision FAIL\n"
      "    atol            : 3.815e-03  thresh=1.953e-03  check=GT [CHECK_FAILED]\n"
      "    rtol            : 1.000e-03  thresh=1.953e-03  check=GT\n"
      "    matched_ratio   : 0.6200     thresh=0.9900     check=LT [CHECK_FAILED]\n"
      "    max_abs_error   : 2.471e-01  thresh=1.000e-01  check=GT [CHECK_FAILED]\n");
  REQUIRE(multi.matched_ratio);
  CHECK(*multi.matched_ratio == Approx(0.62));
  CHECK(*multi.max_abs_error == Approx(0.2471));
  CHECK(*multi.mean_abs_error == Approx(3.815e-3));
  CHECK(*multi.mean_rel_error == Approx(1.0e-3));
  CHECK(multi.failed_checks == std::vector<std::string>{"atol", "matched_ratio", "max_abs_error"});
  auto one = ParsePrecisionSummary(
      "matched_ratio=0.999000 (req>=0.99), max_abs_error=9.765625e-04 (limit=1.000000e-01)");
  CHECK(*one.matched_ratio == Approx(0.999));
  CHECK(*one.max_abs_error == Approx(9.765625e-4));
  CHECK_FALSE(one.mean_abs_error);
  CHECK(ParsePrecisionSummary("nothing here").empty());
}

TEST_CASE("eight multi-line PASS blocks are eight PASS events with labels kept whole") {
  auto parsed = ParseRunOutput(Read("all_pass/test_all_pass.py.stderr"));
  REQUIRE(parsed.events.size() == 8);
  CHECK(parsed.pass_lines == 8);
  CHECK(parsed.events[0].label == "aligned [3,128]");
  CHECK(parsed.events[4].label == "multitile [7,200]");
  CHECK(parsed.events[7].label == "p0_batch32_n4096");
  CHECK(*parsed.events[2].metrics.max_abs_error == Approx(4.883e-4));
  CHECK(*parsed.events[2].metrics.matched_ratio == 1.0);
  CHECK(parsed.tracebacks.empty());
  // The newest summary has no "matched_ratio=" — the verifier grep would miss it.
  CHECK_FALSE(parsed.has_matched_ratio_eq);
  CHECK(ParseRunOutput(Read("oneline_pass/test_oneline_pass.py.stderr")).has_matched_ratio_eq);
}

TEST_CASE("a precision failure is found inside its traceback with the failing test") {
  auto parsed = ParseRunOutput(Read("precision_fail/test_precision_fail.py.stderr"));
  REQUIRE(parsed.tracebacks.size() == 1);
  const Traceback& tb = parsed.tracebacks[0];
  CHECK(tb.exception_type == "AssertionError");
  CHECK(tb.test_function == "test_precision_fail_col_tail");
  REQUIRE(tb.frames.size() == 3);
  CHECK(tb.frames[2].function == "_assert_precision");
  CHECK(tb.frames[1].line == 212);
  REQUIRE(parsed.events.size() == 3);
  const CaseResult& fail = parsed.events[2];
  CHECK(fail.status == CaseStatus::kPrecisionFail);
  CHECK(*fail.metrics.matched_ratio == Approx(0.62));
  CHECK(fail.metrics.failed_checks.size() == 4);
  CHECK(fail.summary.rfind("precision FAIL", 0) == 0);

  std::vector<std::string> expected = {
      "test_precision_fail_aligned", "test_precision_fail_row_tail", "test_precision_fail_col_tail",
      "test_precision_fail_tail2d"};
  auto cases = AssignCases(parsed, expected, "precision_fail");
  REQUIRE(cases.size() == 4);
  CHECK(cases[0].status == CaseStatus::kPass);
  CHECK(cases[0].label == "aligned [3,128]");
  CHECK(cases[1].status == CaseStatus::kPass);
  CHECK(cases[2].status == CaseStatus::kPrecisionFail);
  CHECK(cases[3].status == CaseStatus::kNotRun);
}

TEST_CASE("labels match by case suffix only on a word boundary and unmatched labels are kept") {
  ParsedOutput parsed = ParseRunOutput(
      "[tail2d [4,200]] PASS (matched_ratio=1.0, max_abs_error=0.0)\n"
      "[INFO:root:ignored] text\n"
      "INFO:root:[mystery] PASS (matched_ratio=1.0, max_abs_error=0.0)\n");
  REQUIRE(parsed.events.size() == 2);
  CHECK(parsed.events[1].label == "mystery");
  auto cases = AssignCases(parsed, {"test_op_tail", "test_op_tail2d"}, "op");
  REQUIRE(cases.size() == 3);
  CHECK(cases[0].status == CaseStatus::kNotRun);   // "tail" must not take "tail2d [4,200]"
  CHECK(cases[1].status == CaseStatus::kPass);
  CHECK(cases[2].name == "mystery");
}

TEST_CASE("a module-level import error is a traceback without a test function") {
  auto parsed = ParseRunOutput(Read("import_fail/test_import_fail.py.stderr"));
  REQUIRE(parsed.tracebacks.size() == 1);
  CHECK(parsed.tracebacks[0].exception_type == "ModuleNotFoundError");
  CHECK(parsed.tracebacks[0].message == "No module named 'torch_npu'");
  CHECK(parsed.tracebacks[0].test_function.empty());
  auto cases = AssignCases(parsed, {"test_a"}, "x");
  REQUIRE(cases.size() == 2);
  CHECK(cases[1].name == "(module level)");
  CHECK(cases[1].status == CaseStatus::kError);
}

TEST_CASE("the AssertionError of the _assert_precision opdev gen writes is a precision failure") {
  const std::string out =
      "Traceback (most recent call last):\n"
      "  File \"custom/softmax/test_softmax.py\", line 300, in <module>\n"
      "    test_softmax_col_tail()\n"
      "  File \"custom/softmax/test_softmax.py\", line 250, in test_softmax_col_tail\n"
      "    _assert_precision(\"test_softmax_col_tail [3, 200]\", y, x)\n"
      "  File \"custom/softmax/test_softmax.py\", line 40, in _assert_precision\n"
      "    raise AssertionError(\"[{}] precision FAIL: {}\".format(label, summary))\n"
      "AssertionError: [test_softmax_col_tail [3, 200]] precision FAIL: precision FAIL\n"
      "    atol            : 3.333e-03 thresh=1.953e-03 check=GT  [CHECK_FAILED]\n"
      "    rtol            : 6.667e-01 thresh=1.953e-03 check=GT  [CHECK_FAILED]\n"
      "    matched_ratio   : 0.9967    thresh=0.9900    check=LT\n"
      "    max_abs_error   : 1.000e+00 thresh=1.000e-01 check=GT  [CHECK_FAILED]\n";
  auto parsed = ParseRunOutput(out);
  REQUIRE(parsed.tracebacks.size() == 1);
  REQUIRE(parsed.events.size() == 1);
  const CaseResult& fail = parsed.events[0];
  CHECK(fail.name == "test_softmax_col_tail");
  CHECK(fail.status == CaseStatus::kPrecisionFail);
  CHECK(fail.summary.rfind("precision FAIL", 0) == 0);
  REQUIRE(fail.metrics.matched_ratio.has_value());
  CHECK(*fail.metrics.matched_ratio == Approx(0.9967));
  CHECK(fail.metrics.failed_checks.size() == 3);

  // Any other AssertionError stays an error.
  auto other = ParseRunOutput(
      "Traceback (most recent call last):\n"
      "  File \"t.py\", line 5, in test_x\n"
      "    assert y.shape == x.shape\n"
      "AssertionError: shapes differ\n");
  REQUIRE(other.events.size() == 1);
  CHECK(other.events[0].status == CaseStatus::kError);
}

TEST_CASE("the CPU device's SimulatorWarning lines are warnings of the case printed next") {
  const std::string out =
      "/w/softmax/test_softmax.py:100: SimulatorWarning: SIM-VF-STALE-VALUE: 'm' is read in this loop but only "
      "assigned inside an earlier loop (line 89)\n"
      "  d_even = vf.div(e_even, row_sum_b, m)\n"
      "[test_softmax_aligned [3, 128]] PASS (matched_ratio=1.0000, max_abs_error=0.000e+00)\n"
      "/w/softmax/test_softmax.py:100: SimulatorWarning: SIM-VF-STALE-VALUE: 'm' is read in this loop\n"
      "/w/softmax/test_softmax.py:102: SimulatorWarning: SIM-MASK-DTYPE: vf.astype: mask built for 2-byte elements\n"
      "/w/softmax/test_softmax.py:102: SimulatorWarning: SIM-MASK-DTYPE: vf.astype: mask built for 2-byte elements\n"
      "[test_softmax_row_tail [4, 128]] PASS (matched_ratio=1.0000, max_abs_error=0.000e+00)\n"
      "a UserWarning: precision_compare.py is not next to the test\n";
  auto p = ParseRunOutput(out);
  REQUIRE(p.simulator_warnings.size() == 4);
  CHECK(p.simulator_warnings[0].output_line == 1);
  REQUIRE(p.events.size() == 2);
  REQUIRE(p.events[0].hazards.items().size() == 1);
  CHECK(p.events[0].hazards.items()[0].code == "SIM-VF-STALE-VALUE");
  REQUIRE(p.events[1].hazards.items().size() == 2);  // one entry per code and line
  const opdev::Diagnostic* mask = nullptr;
  for (const auto& d : p.events[1].hazards.items())
    if (d.code == "SIM-MASK-DTYPE") mask = &d;
  REQUIRE(mask != nullptr);
  CHECK(mask->severity == opdev::Severity::kWarning);
  CHECK(mask->category == "implementation_error");
  CHECK(mask->file == "/w/softmax/test_softmax.py");
  CHECK(mask->line == 102);
  CHECK(mask->message == "vf.astype: mask built for 2-byte elements");
  auto cases = AssignCases(p, {"test_softmax_aligned", "test_softmax_row_tail"}, "softmax");
  REQUIRE(cases.size() == 2);
  CHECK(cases[1].hazards.items().size() == 2);
}
