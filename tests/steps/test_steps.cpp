// Tests of the library steps (opdev/steps/step.h) that the command and the C ABI share:
// dispatch, call failures as values with the command's messages, request validation in one
// place (compare), the context's fallbacks, text renderings and the log callback.
#include "opdev/steps/compare_step.h"
#include "opdev/steps/step.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using opdev::steps::RunStep;
using opdev::steps::StepContext;
using opdev::steps::StepResult;
namespace json = boost::json;

namespace {

const std::string kSoftmax = std::string(OPDEV_SOURCE_DIR) + "/examples/softmax";
const std::string kKbRoot = std::string(OPDEV_SHARED_DIR) + "/fixtures/kb";

// A copy of examples/softmax in <tmp>/opdev_steps_<name>/custom/softmax.
fs::path SoftmaxCopy(const std::string& name) {
  fs::path ws = fs::temp_directory_path() / ("opdev_steps_" + name);
  fs::remove_all(ws);
  fs::create_directories(ws / "custom");
  fs::copy(kSoftmax, ws / "custom" / "softmax", fs::copy_options::recursive);
  return ws / "custom" / "softmax";
}

StepResult Failed(const std::string& step, const json::object& request) {
  StepResult r = RunStep(step, StepContext{}, request);
  CHECK(r.status == opdev::steps::kStatusError);
  CHECK(r.call_failed);
  CHECK(r.document.as_object().size() == 1);
  return r;
}

}  // namespace

TEST_CASE("the table holds every step of a round, in order") {
  CHECK(opdev::steps::StepNames() ==
        std::vector<std::string>{"check", "plan", "gen", "lint", "budget", "selfcheck", "sim",
                                 "run", "compare", "usage-generate", "usage-check", "stage"});
  StepResult r = Failed("simulate", {});
  CHECK(r.ErrorMessage() == "unknown step 'simulate'");
  CHECK(r.text_err == "unknown step 'simulate'\n");
}

TEST_CASE("request fields are typed, and a missing one is named") {
  CHECK(Failed("plan", {}).ErrorMessage() == "request field 'op_dir' is required");
  CHECK(Failed("plan", {{"op_dir", "x"}, {"module_k", true}}).ErrorMessage() ==
        "request field 'module_k' must be an integer");
  CHECK(Failed("run", {{"op_dir", "x"}, {"timeout", "soon"}}).ErrorMessage() ==
        "request field 'timeout' must be a number");
  CHECK(Failed("gen", {{"op_dir", 3}}).ErrorMessage() == "request field 'op_dir' must be a string");
  CHECK(Failed("usage-generate", {{"op_dir", kSoftmax}, {"kb_root", kKbRoot}, {"deviation", "x"}})
            .ErrorMessage() == "request field 'deviation' must be a list of strings");
}

TEST_CASE("option checks give the command's messages") {
  CHECK(Failed("run", {{"op_dir", "x"}, {"backend", "gpu"}}).ErrorMessage() ==
        "--backend must be sim or npu");
  CHECK(Failed("run", {{"op_dir", "x"}, {"module_k", 0}}).ErrorMessage() ==
        "--module-k must be a positive integer");
  CHECK(Failed("run", {{"op_dir", "x"}, {"idle_timeout", -1}}).ErrorMessage() ==
        "timeouts must be positive");
  CHECK(Failed("stage", {{"op_dir", "x"}, {"timeout", 0}}).ErrorMessage() ==
        "timeouts must be positive");
  CHECK(Failed("stage", {{"op_dir", "x"}, {"device", -1}}).ErrorMessage() == "--device must be >= 0");
  CHECK(Failed("stage", {{"op_dir", "x"}, {"module_k", 2}, {"finalize", true}}).ErrorMessage() ==
        "--module-k and --finalize exclude each other");
  CHECK(Failed("selfcheck", {{"op_dir", "x"}, {"module_k", 2}, {"finalize", true}}).ErrorMessage() ==
        "--module-k and --finalize exclude each other");
  CHECK(Failed("gen", {{"op_dir", "x"}, {"module_k", "1"}, {"finalize", true}}).ErrorMessage() ==
        "--module-k and --finalize are exclusive");
  CHECK(Failed("gen", {{"op_dir", "x"}, {"target", "a9"}}).ErrorMessage() == "unknown target a9");
  CHECK(Failed("usage-generate", {{"op_dir", kSoftmax}, {"kb_root", kKbRoot}, {"mode", "L0"}})
            .ErrorMessage() == "--mode is for check; generate takes the dispatch");
  CHECK(Failed("usage-check", {{"op_dir", kSoftmax}, {"kb_root", kKbRoot}, {"module_checked", "1,x"}})
            .ErrorMessage() == "--module-checked: 'x' is not a positive Module number");
}

TEST_CASE("compare validates its options in one place, for files and buffers") {
  json::array pairs{json::array{"a.npy", "g.npy"}};
  auto msg = [&](json::object extra) {
    extra["pairs"] = pairs;
    return Failed("compare", extra).ErrorMessage();
  };
  CHECK(msg({{"tile", "16"}}) == "--tile: expected two positive integers R,C, got '16'");
  CHECK(msg({{"tile", json::array{0, 4}}}) == "--tile: expected two positive integers R,C, got '0,4'");
  CHECK(msg({{"dtype", "fp16"}}) == "unsupported dtype: fp16");
  CHECK(msg({{"actual_dtype", "bogus"}}) == "--actual-dtype: unknown dtype 'bogus'");
  CHECK(msg({{"golden_dtype", "bogus"}}) == "--golden-dtype: unknown dtype 'bogus'");
  CHECK(msg({{"shape", "4,x"}}).rfind("--shape: ", 0) == 0);
  // Options are checked before any file is read.
  CHECK(msg({{"tile", "1"}}).find("a.npy") == std::string::npos);
  CHECK(msg({}) == "a.npy: no such file");
  CHECK(Failed("compare", {}).ErrorMessage() == "expected ACTUAL GOLDEN file pairs");

  std::vector<float> a(16, 1.0f), g(16, 1.0f);
  auto view = [](const std::vector<float>& v) {
    return opdev::precision::Tensor::View(opdev::DType::kFloat32, {4, 4}, nullptr,
                                          reinterpret_cast<const std::byte*>(v.data()));
  };
  std::vector<std::optional<opdev::precision::Tensor>> av{view(a)}, gv{view(g)};
  StepResult bad = opdev::steps::CompareTensors(av, gv, {{"tile", json::array{4}}});
  CHECK(bad.call_failed);
  CHECK(bad.ErrorMessage() == "--tile: expected two positive integers R,C, got '4'");
  StepResult ok = opdev::steps::CompareTensors(av, gv, {{"tile", "2,2"}, {"summary_only", true}});
  CHECK(ok.status == opdev::steps::kStatusOk);
  CHECK(ok.document.as_object().at("verdict") == "PASS");
  CHECK(ok.text.find("precision PASS") != std::string::npos);
  CHECK(ok.text == std::string(ok.document.as_object().at("summary").as_string()) + "\n");
}

TEST_CASE("the context supplies the KB root and target a request omits") {
  StepContext ctx;
  ctx.kb_root = kKbRoot;
  ctx.target = opdev::Target::kA3;
  StepResult r = RunStep("check", ctx, {{"op_dir", kSoftmax}});
  CHECK(r.status == opdev::steps::kStatusOk);
  CHECK(r.document.as_object().at("kb_root").as_string() == kKbRoot.c_str());
  CHECK(r.document.as_object().at("target") == "a3");
  CHECK(r.text.empty());
  CHECK(r.text_err.find("0 error(s), ") != std::string::npos);
  // The request wins over the context.
  r = RunStep("check", ctx, {{"op_dir", kSoftmax}, {"target", "a5"}});
  CHECK(r.document.as_object().at("target") == "a5");
}

TEST_CASE("findings are documents, not call failures") {
  fs::path op = SoftmaxCopy("findings");
  StepResult r = RunStep("plan", StepContext{}, {{"op_dir", op.string()}, {"module_k", "two"}});
  CHECK(r.status == opdev::steps::kStatusFindings);
  CHECK_FALSE(r.call_failed);
  CHECK(r.document.as_object().at("status") == "errors");
  CHECK(r.document.as_object().at("plan").is_null());
  CHECK(r.text_err.find("1 error(s)") != std::string::npos);
  fs::remove_all(op.parent_path().parent_path());
}

TEST_CASE("gen, budget and run render the command's text, run logs progress") {
  fs::path op = SoftmaxCopy("round");
  StepResult shown = RunStep("gen", StepContext{}, {{"op_dir", op.string()}, {"stdout", true}});
  REQUIRE(shown.status == opdev::steps::kStatusOk);
  CHECK(shown.text.find("@pl.jit") != std::string::npos);
  CHECK(shown.document.as_object().at("written") == "");
  CHECK_FALSE(fs::exists(op / "test_softmax.py"));

  StepResult gen = RunStep("gen", StepContext{}, {{"op_dir", op.string()}});
  REQUIRE(gen.status == opdev::steps::kStatusOk);
  CHECK(gen.text.rfind("wrote " + (op / "test_softmax.py").string(), 0) == 0);
  CHECK(fs::exists(op / "test_softmax.py"));

  StepResult budget = RunStep("budget", StepContext{}, {{"path", op.string()}});
  CHECK(budget.status == opdev::steps::kStatusOk);
  CHECK(budget.text.find("kernel slots match the DESIGN §3 address map") != std::string::npos);

  std::vector<std::string> lines;
  StepContext ctx;
  ctx.log = [&lines](int level, const std::string& line) {
    CHECK(level == 0);
    lines.push_back(line);
  };
  auto cases = gen.document.as_object().at("file").as_object().at("tests").as_array();
  REQUIRE_FALSE(cases.empty());
  std::string one(cases[0].as_string());
  StepResult run = RunStep("run", ctx, {{"op_dir", op.string()}, {"case", one}});
  CHECK((run.status == opdev::steps::kStatusOk || run.status == opdev::steps::kStatusFindings));
  CHECK(run.text.find("/1 PASS)") != std::string::npos);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("case 1/1 ", 0) == 0);
  fs::remove_all(op.parent_path().parent_path());
}

TEST_CASE("lint and sim are steps: findings, the catalogue and their call failures") {
  const std::string findings_py = std::string(OPDEV_SOURCE_DIR) + "/tests/data/api/lint_findings.py";
  StepResult lint = RunStep("lint", StepContext{}, {{"file", json::array{json::string(findings_py)}}});
  CHECK(lint.status == opdev::steps::kStatusFindings);
  CHECK_FALSE(lint.call_failed);
  CHECK(lint.document.as_object().at("status") == "findings");
  CHECK(lint.document.as_object().at("errors").to_number<int64_t>() > 0);
  CHECK(lint.text.find(findings_py + ":") == 0);  // compiler-style lines, then the counts
  CHECK(lint.text.find(" error(s), ") != std::string::npos);

  StepResult shown = RunStep("lint", StepContext{}, {{"show", "pl.load"}});
  CHECK(shown.status == opdev::steps::kStatusOk);
  CHECK(shown.document.as_object().at("name") == "pl.load");
  CHECK(shown.text.rfind("pl.load(", 0) == 0);
  CHECK(Failed("lint", {{"show", "pl.no_such_call"}}).ErrorMessage() ==
        "no catalog entry named 'pl.no_such_call'");
  CHECK(Failed("lint", {}).ErrorMessage() == "missing FILE (see --help)");
  CHECK(Failed("lint", {{"file", "k.py"}}).ErrorMessage() ==
        "request field 'file' must be a list of strings");

  StepResult hazards = RunStep("sim", StepContext{}, {{"hazards", true}});
  CHECK(hazards.status == opdev::steps::kStatusOk);
  REQUIRE(hazards.document.is_array());
  CHECK(hazards.document.as_array().at(0).as_object().at("code") == "SIM-GM-OOB");
  CHECK(hazards.text.rfind("SIM-GM-OOB  [error, ", 0) == 0);
  CHECK(Failed("sim", {}).ErrorMessage() == "missing FILE");
  CHECK(Failed("sim", {{"file", "k.py"}}).ErrorMessage() == "missing --entry NAME");
  CHECK(Failed("sim", {{"file", "k.py"}, {"entry", "f"}}).ErrorMessage() == "missing --out-dir DIR");
  CHECK(Failed("sim", {{"file", "k.py"}, {"entry", "f"}, {"out_dir", "o"}, {"target", "a9"}})
            .ErrorMessage() == "unknown target a9");
  CHECK(Failed("sim", {{"scalar", json::array{"x"}}}).ErrorMessage() ==
        "request field 'scalar' must be a list of numbers");
  CHECK(Failed("sim", {{"file", "/nonexistent/k.py"}, {"entry", "f"}, {"out_dir", "o"},
                       {"in", json::array{"/nonexistent/x.npy"}}})
            .ErrorMessage()
            .find("/nonexistent/x.npy") != std::string::npos);
  CHECK(Failed("sim", {{"file", "k.py"}, {"entry", "f"}, {"out_dir", "o"}, {"schedule_seed", -1}}).ErrorMessage() ==
        "--schedule-seed must be >= 0 (0: the fixed core order)");
  CHECK(Failed("sim", {{"file", "k.py"}, {"entry", "f"}, {"out_dir", "o"}, {"schedule_seed", "x"}})
            .ErrorMessage()
            .find("schedule_seed") != std::string::npos);
}

TEST_CASE("stage step: a report_dir inside the request's KB root is refused before any step runs") {
  fs::path op = SoftmaxCopy("stage_kb_report");
  fs::path kb = op.parent_path().parent_path() / "kb";
  fs::copy(kKbRoot, kb, fs::copy_options::recursive);
  StepResult r = Failed("stage", {{"op_dir", op.string()},
                                  {"kb_root", kb.string()},
                                  {"report_dir", (kb / "reports").string()}});
  CHECK(r.ErrorMessage().find("read-only reference tree") != std::string::npos);
  CHECK_FALSE(fs::exists(kb / "reports"));
  fs::remove_all(op.parent_path().parent_path());
}
