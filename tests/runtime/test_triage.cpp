// Table-driven tests of failure triage over scripted runs (tests/data/runtime/custom/*,
// replayed by the fake-python stand-in) and behavioural runs (hang, timeout, signal).
#include <catch2/catch.hpp>

#include "opdev/runtime/triage.h"

#include <cstdlib>

using namespace opdev::runtime;

namespace {
const std::string kData = std::string(OPDEV_SOURCE_DIR) + "/tests/data/runtime/";

std::vector<std::string> Softmax8(const std::string& op) {
  std::vector<std::string> v;
  for (const char* c : {"aligned", "row_tail", "col_tail", "tail2d", "multitile", "p0_batch1_n128",
                        "p0_batch4_n2048", "p0_batch32_n4096"})
    v.push_back("test_" + op + "_" + c);
  return v;
}

LaunchResult Replay(const std::string& op) {
  LaunchOptions o;
  o.op_dir = kData + "custom/" + op;
  o.interpreter = kData + "fake-python";
  o.device = 0;
  o.expected_cases = Softmax8(op);
  auto r = Launch(o);
  REQUIRE(r.ok());
  REQUIRE(r->launched());
  return *r;
}
}  // namespace

TEST_CASE("scripted runs are classified as the spec's routing table says") {
  struct Row {
    const char* op;
    const char* category;  // "" = none
    Outcome outcome;
    const char* rule;
    const char* evidence;  // substring of the first evidence line
  };
  const Row rows[] = {
      {"all_pass", "", Outcome::kPass, "pass", ""},
      {"precision_fail", "precision_failure", Outcome::kFail, "precision.scheme_a",
       "test_precision_fail_col_tail: matched_ratio=0.62"},
      {"aicore", "runtime_failure", Outcome::kFail, "runtime.aicore", "error code=507015"},
      {"compile", "runtime_failure", Outcome::kFail, "runtime.compile",
       "kernel.cpp:118:23: error: no matching function for call to 'TLOAD'"},
      {"sync_fault", "env_error", Outcome::kNotMeasured, "env.sync", "npuSynchronizeDevice"},
      {"import_fail", "env_error", Outcome::kNotMeasured, "env.import", "No module named 'torch_npu'"},
      {"device_fail", "env_error", Outcome::kNotMeasured, "env.device", "Invalid device ID"},
      {"no_pass", "runtime_failure", Outcome::kFail, "runtime.no_pass", ""},
      {"some_pass", "runtime_failure", Outcome::kFail, "runtime.cases_missing", ""},
      {"type_error", "runtime_failure", Outcome::kFail, "runtime.exception", "Traceback"},
  };
  for (const Row& row : rows) {
    INFO(row.op);
    LaunchResult l = Replay(row.op);
    Triage t = TriageLaunch(l, {});
    CHECK(t.category == row.category);
    CHECK(t.outcome == row.outcome);
    CHECK(t.rule == row.rule);
    if (*row.evidence) {
      REQUIRE_FALSE(t.evidence.empty());
      CHECK(t.evidence[0].find(row.evidence) != std::string::npos);
    }
    CHECK_FALSE(t.next_action.empty());
  }
}

TEST_CASE("env errors are not measured and never reported as 0/N") {
  Triage t = TriageLaunch(Replay("sync_fault"), {});
  auto j = t.ToJson();
  CHECK(j.at("cases").as_string() == "not measured");
  CHECK(j.at("measured").as_bool() == false);
  Triage pass = TriageLaunch(Replay("all_pass"), {});
  CHECK(pass.ToJson().at("cases").as_string() == "8/8");
  CHECK(pass.passed == 8);
  // The newest summary form lacks the strings the verifier greps for: noted, not failed.
  REQUIRE_FALSE(pass.notes.empty());
  CHECK(pass.notes[0].find("matched_ratio=") != std::string::npos);
  CHECK(TriageLaunch(Replay("oneline_pass"), {}).category == "runtime_failure");  // 4 of 8 ran
}

TEST_CASE("a compile error reports its first error line and AICore names the tail case") {
  Triage c = TriageLaunch(Replay("compile"), {});
  CHECK(c.summary.find("kernel.cpp:118:23: error:") != std::string::npos);
  CHECK(c.summary.find("vstore_align") == std::string::npos);
  Triage a = TriageLaunch(Replay("aicore"), {});
  CHECK(a.suspicion.find("out-of-range DMA") != std::string::npos);
  CHECK(a.layer == "tails");
  REQUIRE(a.evidence.size() == 2);
  CHECK(a.evidence[1] == "failing case(s): test_aicore_tail2d (tail)");
}

TEST_CASE("precision failures are grouped by case shape with the layer to review") {
  auto mk = [](const char* name, CaseStatus s, const char* summary = "") {
    CaseResult c;
    c.name = name;
    c.status = s;
    c.summary = summary;
    return c;
  };
  using S = CaseStatus;
  TriageContext ctx;
  ctx.shapes = {{"test_a", {3, 128}, "float16"}, {"test_b", {4, 128}, "float16"},
                {"test_c", {3, 200}, "float16"}, {"test_big", {32, 4096}, "float16"},
                {"test_bf", {3, 128}, "bfloat16"}};
  // Tails only: by name.
  auto p = ClassifyPrecision({mk("test_a", S::kPass), mk("test_row_tail", S::kPrecisionFail)}, {});
  CHECK(p.id == "tails_only");
  CHECK(p.layer == "tails");
  // Tails only: by the tile shape {3, 128} (test_b has 4 rows, test_c 200 columns).
  ctx.tile_shape = {3, 128};
  p = ClassifyPrecision({mk("test_a", S::kPass), mk("test_b", S::kPrecisionFail),
                         mk("test_c", S::kPrecisionFail)}, ctx);
  CHECK(p.id == "tails_only");
  ctx.tile_shape.clear();
  // Only the largest shape fails.
  p = ClassifyPrecision({mk("test_a", S::kPass), mk("test_c", S::kPass),
                         mk("test_big", S::kPrecisionFail)}, ctx);
  CHECK(p.id == "large_only");
  CHECK(p.layer == "tiles and capacity");
  // Grouped by dtype.
  p = ClassifyPrecision({mk("test_a", S::kPass), mk("test_bf", S::kPrecisionFail)}, ctx);
  CHECK(p.id == "by_dtype");
  // Everywhere.
  p = ClassifyPrecision({mk("test_a", S::kPrecisionFail), mk("test_c", S::kPrecisionFail)}, ctx);
  CHECK(p.id == "everywhere");
  CHECK(p.layer == "math and dims");
  // NaN positions.
  p = ClassifyPrecision({mk("test_a", S::kPass),
                         mk("test_c", S::kPrecisionFail, "NaN position mismatch: 3 positions differ")}, ctx);
  CHECK(p.id == "special_values");
  // One measured failure, rest not run: ask for isolated reruns.
  p = ClassifyPrecision({mk("test_a", S::kPrecisionFail), mk("test_c", S::kNotRun)}, ctx);
  CHECK(p.id == "single_case");
  CHECK(p.not_run == std::vector<std::string>{"test_c"});
  // Mixed.
  p = ClassifyPrecision({mk("test_a", S::kPrecisionFail), mk("test_big", S::kPass),
                         mk("test_c", S::kPass)}, ctx);
  CHECK(p.id == "mixed");
}

TEST_CASE("hangs, timeouts, signals, missing interpreters and npu-smi are classified") {
  LaunchOptions o;
  o.interpreter = OPDEV_PYTHON;
  o.device = 0;
  o.op_dir = kData + "custom/py_hang";
  o.idle_timeout_seconds = 1;
  Triage hang = TriageLaunch(*Launch(o), {});
  CHECK(hang.category == "env_error");
  CHECK(hang.rule == "env.hang");
  CHECK(hang.outcome == Outcome::kNotMeasured);
  CHECK(hang.summary.find("suspected hang") != std::string::npos);

  o.op_dir = kData + "custom/py_timeout";
  o.idle_timeout_seconds = 10;
  o.timeout_seconds = 1;
  Triage timeout = TriageLaunch(*Launch(o), {});
  CHECK(timeout.rule == "env.timeout");
  CHECK(timeout.category == "env_error");

  o.op_dir = kData + "custom/py_signal";
  o.timeout_seconds = 60;
  Triage sig = TriageLaunch(*Launch(o), {});
  CHECK(sig.rule == "runtime.signal");
  CHECK(sig.summary.find("SIGSEGV") != std::string::npos);

  o.interpreter = "/nonexistent/python";
  Triage interp = TriageLaunch(*Launch(o), {});
  CHECK(interp.rule == "env.interpreter");
  CHECK(interp.category == "env_error");

  o.interpreter = OPDEV_PYTHON;
  o.device.reset();
  o.npu_smi = kData + "npu-smi/fake-npu-smi";
  ::setenv("FAKE_NPU_SMI_INFO", "/nonexistent", 1);
  Triage silent = TriageLaunch(*Launch(o), {});
  CHECK(silent.rule == "env.npu_smi_silent");
  CHECK(silent.outcome == Outcome::kNotMeasured);
  ::setenv("FAKE_NPU_SMI_INFO", (kData + "npu-smi/info_all_busy.txt").c_str(), 1);
  CHECK(TriageLaunch(*Launch(o), {}).rule == "env.no_idle_chip");
  ::unsetenv("FAKE_NPU_SMI_INFO");

  o.op_dir = kData + "custom/py_cases";
  o.device = 0;
  o.test_file = "missing.py";
  Triage miss = TriageLaunch(*Launch(o), {});
  CHECK(miss.category == "missing_file");
}

TEST_CASE("simulator hazards route to categories and layers") {
  CHECK(RouteHazard("ub_out_of_range_store").layer == "tails");
  CHECK(RouteHazard("address_overlap").category == "design_violation");
  CHECK(RouteHazard("RACE_read_after_write").layer == "sync and ownership");
  CHECK(RouteHazard("uninitialized_read").layer == "core split and cross-tile state");
  CHECK(RouteHazard("unsupported_api").category == "capability_gap");
  CHECK(RouteHazard("something new").category == "runtime_failure");
}
