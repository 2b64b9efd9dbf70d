// Tests of the dispatch planner: names for k = 1..6, every dispatch mode on real and built
// op dirs, every invalid dispatch, strict dispatch parsing and bad module_interfaces.yaml.
#include <catch2/catch.hpp>

#include "opdev/plan/dispatch.h"
#include "opdev/plan/naming.h"
#include "opdev/plan/round_plan.h"
#include "plan_test_util.h"

#include <boost/json.hpp>

using namespace opdev::plan;
using namespace plan_test;

namespace {
bool HasReadOnly(const RoundPlan& p, const std::string& rel, ReadOnlyKind kind) {
  for (const auto& f : p.read_only)
    if (f.rel == rel) return f.kind == kind;
  return false;
}
bool InReadOnly(const RoundPlan& p, const std::string& rel) {
  for (const auto& f : p.read_only)
    if (f.rel == rel) return true;
  return false;
}
Dispatch Module(std::int64_t k) {
  Dispatch d;
  d.module_k = k;
  return d;
}
Dispatch Finalize(bool retry = false) {
  Dispatch d;
  d.finalize = true;
  d.retry_of_verifier = retry;
  return d;
}
}  // namespace

TEST_CASE("cumulative suffix, staged file, wrapper and golden names for k = 1..6") {
  const char* suffix[] = {"1", "12", "123", "1234", "12345", "123456"};
  for (int k = 1; k <= 6; ++k) {
    std::string s = suffix[k - 1];
    CHECK(ModuleSuffix(k) == s);
    CHECK(StagedFile("fa", k) == "modules/test_fa_module" + s + ".py");
    CHECK(StagedWrapper("fa", k) == "fa_wrapper_module" + s);
    CHECK(StageGoldenModule("fa", k) == "fa_golden_stage" + s);
    CHECK(StageGoldenFile("fa", k) == "modules/fa_golden_stage" + s + ".py");
  }
  CHECK(ModuleSuffix(0).empty());
  CHECK(ModuleSuffix(10) == "12345678910");
  CHECK(FinalFile("softmax") == "test_softmax.py");
  CHECK(FinalWrapper("softmax") == "softmax_wrapper");
  CHECK(FinalGoldenModule("softmax") == "softmax_golden_cpu");
  CHECK(WorkspacePath("softmax", "test_softmax.py") == "custom/softmax/test_softmax.py");
}

TEST_CASE("L0 on the real softmax inputs") {
  auto ws = FreshWorkspace("l0");
  auto op = SoftmaxOpDir(ws);
  opdev::Diagnostics diags;
  auto plan = PlanRound(op.string(), Dispatch{}, &diags);
  REQUIRE(plan.ok());
  INFO(diags.ToText());
  CHECK_FALSE(diags.HasErrors());
  CHECK(plan->mode == Mode::kL0);
  CHECK(plan->op == "softmax");
  CHECK_FALSE(plan->is_fusion);
  CHECK(plan->module_count == 1);
  CHECK(plan->product.rel == "test_softmax.py");
  CHECK_FALSE(plan->product.exists);
  CHECK(plan->product_workspace_path == "custom/softmax/test_softmax.py");
  CHECK(plan->wrapper == "softmax_wrapper");
  CHECK(plan->golden_module == "softmax_golden_cpu");
  CHECK(plan->golden_file == "softmax_golden_cpu.py");
  CHECK_FALSE(plan->starting_point.has_value());
  CHECK(plan->run_command == "python custom/softmax/test_softmax.py");
  CHECK(fs::equivalent(plan->run_cwd, ws));
  CHECK(HasReadOnly(*plan, "DESIGN.md", ReadOnlyKind::kFrozenContract));
  CHECK(HasReadOnly(*plan, "DESIGN_BINDINGS.json", ReadOnlyKind::kFrozenContract));
  CHECK(HasReadOnly(*plan, "module_interfaces.yaml", ReadOnlyKind::kFrozenContract));
  CHECK(HasReadOnly(*plan, "KB_SELECTION.json", ReadOnlyKind::kFrozenContract));
  CHECK(HasReadOnly(*plan, "SPEC.md", ReadOnlyKind::kFrozenContract));
  CHECK(HasReadOnly(*plan, "softmax_golden.py", ReadOnlyKind::kGolden));
  CHECK(HasReadOnly(*plan, "softmax_golden_cpu.py", ReadOnlyKind::kGolden));
  CHECK_FALSE(InReadOnly(*plan, "test_softmax.py"));
  CHECK(plan->kb_usage_files == std::vector<std::string>{"KB_USAGE.json"});
  auto j = plan->ToJson();
  CHECK(j["mode"] == "L0");
  CHECK(j["run_command"] == "python custom/softmax/test_softmax.py");

  // A redo edits the existing file; a missing CPU golden is a missing prerequisite.
  Write(op / "test_softmax.py", "# v1\n");
  fs::remove(op / "softmax_golden_cpu.py");
  opdev::Diagnostics d2;
  auto redo = PlanRound(op.string(), Dispatch{}, &d2);
  REQUIRE(redo.ok());
  REQUIRE(redo->starting_point.has_value());
  CHECK(redo->starting_point->rel == "test_softmax.py");
  REQUIRE(d2.Find(code::kPlanPrereqMissing) != nullptr);
  CHECK(d2.Find(code::kPlanPrereqMissing)->category == "missing_file");
  CHECK(d2.Find(code::kPlanPrereqMissing)->file.find("softmax_golden_cpu.py") != std::string::npos);
}

TEST_CASE("L1 Module 1 starts from the template and needs its stage golden") {
  auto ws = FreshWorkspace("m1");
  auto op = FusedOpDir(ws, 0);
  opdev::Diagnostics diags;
  auto plan = PlanRound(op.string(), Module(1), &diags);
  REQUIRE(plan.ok());
  INFO(diags.ToText());
  CHECK_FALSE(diags.HasErrors());
  CHECK(plan->mode == Mode::kL1Module);
  CHECK(plan->suffix == "1");
  CHECK(plan->product.rel == "modules/test_fused_module1.py");
  CHECK(plan->wrapper == "fused_wrapper_module1");
  CHECK(plan->golden_module == "fused_golden_stage1");
  CHECK(plan->golden_file == "modules/fused_golden_stage1.py");
  CHECK(plan->run_command == "python custom/fused/modules/test_fused_module1.py");
  CHECK_FALSE(plan->starting_point.has_value());
  CHECK(HasReadOnly(*plan, "modules/fused_golden_stage1.py", ReadOnlyKind::kGolden));
  CHECK(HasReadOnly(*plan, "modules/fused_golden_stage123.py", ReadOnlyKind::kGolden));
}

TEST_CASE("L1 new Module 2 copies Module 1 / redo of Module 2 edits its own file") {
  auto ws = FreshWorkspace("m2");
  auto op = FusedOpDir(ws, 1);
  opdev::Diagnostics diags;
  auto plan = PlanRound(op.string(), Module(2), &diags);
  REQUIRE(plan.ok());
  CHECK_FALSE(diags.HasErrors());
  CHECK(plan->product.rel == "modules/test_fused_module12.py");
  CHECK(plan->wrapper == "fused_wrapper_module12");
  CHECK(plan->golden_module == "fused_golden_stage12");
  REQUIRE(plan->starting_point.has_value());
  CHECK(plan->starting_point->rel == "modules/test_fused_module1.py");
  CHECK(HasReadOnly(*plan, "modules/test_fused_module1.py", ReadOnlyKind::kHistory));

  // Redo: Module 2 (and even 3) exist; edit only module12, module1 and module123 are history.
  Write(op / "modules/test_fused_module12.py", "# m2\n");
  Write(op / "modules/test_fused_module123.py", "# m3\n");
  opdev::Diagnostics d2;
  auto redo = PlanRound(op.string(), Module(2), &d2);
  REQUIRE(redo.ok());
  REQUIRE(redo->starting_point.has_value());
  CHECK(redo->starting_point->rel == "modules/test_fused_module12.py");
  CHECK(HasReadOnly(*redo, "modules/test_fused_module1.py", ReadOnlyKind::kHistory));
  CHECK(HasReadOnly(*redo, "modules/test_fused_module123.py", ReadOnlyKind::kHistory));
  CHECK_FALSE(InReadOnly(*redo, "modules/test_fused_module12.py"));
}

TEST_CASE("L1 Module k>1 without the previous staged file or stage golden is missing_file") {
  auto ws = FreshWorkspace("m2missing");
  auto op = FusedOpDir(ws, 0, /*stage_goldens=*/false);
  opdev::Diagnostics diags;
  auto plan = PlanRound(op.string(), Module(2), &diags);
  REQUIRE(plan.ok());
  int missing = 0;
  bool prev = false, golden = false;
  for (const auto& d : diags.items()) {
    if (d.code != code::kPlanPrereqMissing) continue;
    ++missing;
    CHECK(d.category == "missing_file");
    prev |= d.file.find("modules/test_fused_module1.py") != std::string::npos;
    golden |= d.file.find("modules/fused_golden_stage12.py") != std::string::npos;
  }
  CHECK(missing == 2);
  CHECK(prev);
  CHECK(golden);
}

TEST_CASE("L1 finalize: cleanup output, cleanup failure and verifier retry") {
  auto ws = FreshWorkspace("fin");
  auto op = FusedOpDir(ws, 3);
  {
    // Cleanup failed (no test_fused.py): rebuild from the last verified staged file.
    opdev::Diagnostics diags;
    auto plan = PlanRound(op.string(), Finalize(), &diags);
    REQUIRE(plan.ok());
    CHECK_FALSE(diags.HasErrors());
    CHECK(plan->mode == Mode::kL1Finalize);
    CHECK(plan->product.rel == "test_fused.py");
    CHECK(plan->wrapper == "fused_wrapper");
    CHECK(plan->golden_module == "fused_golden_cpu");
    REQUIRE(plan->starting_point.has_value());
    CHECK(plan->starting_point->rel == "modules/test_fused_module123.py");
    CHECK(plan->run_command == "python custom/fused/test_fused.py");
    for (const char* s : {"modules/test_fused_module1.py", "modules/test_fused_module12.py",
                          "modules/test_fused_module123.py"})
      CHECK(HasReadOnly(*plan, s, ReadOnlyKind::kHistory));
  }
  Write(op / "test_fused.py", "# cleanup output\n");
  {
    opdev::Diagnostics diags;
    auto plan = PlanRound(op.string(), Finalize(), &diags);
    REQUIRE(plan.ok());
    REQUIRE(plan->starting_point.has_value());
    CHECK(plan->starting_point->rel == "test_fused.py");
  }
  {
    // The orchestrator says cleanup failed: the stale final file is not reused.
    Dispatch d = Finalize();
    d.cleanup_succeeded = false;
    opdev::Diagnostics diags;
    auto plan = PlanRound(op.string(), d, &diags);
    REQUIRE(plan.ok());
    CHECK(plan->starting_point->rel == "modules/test_fused_module123.py");
  }
  {
    opdev::Diagnostics diags;
    auto plan = PlanRound(op.string(), Finalize(/*retry=*/true), &diags);
    REQUIRE(plan.ok());
    CHECK(plan->mode == Mode::kL1FinalizeRetry);
    CHECK(plan->starting_point->rel == "test_fused.py");
    CHECK(HasReadOnly(*plan, "modules/test_fused_module123.py", ReadOnlyKind::kHistory));
    CHECK(plan->ToJson()["mode"] == "L1-finalize-retry");
  }
}

namespace {
void ExpectInvalid(const fs::path& op, const Dispatch& d, const char* expected_code) {
  opdev::Diagnostics diags;
  auto plan = PlanRound(op.string(), d, &diags);
  INFO(expected_code << "\n" << diags.ToText());
  CHECK_FALSE(plan.ok());
  const auto* f = diags.Find(expected_code);
  REQUIRE(f != nullptr);
  CHECK(f->category == "dispatch_invalid");
  CHECK(f->severity == opdev::Severity::kError);
}
}  // namespace

TEST_CASE("every invalid dispatch is dispatch_invalid and yields no plan") {
  auto ws = FreshWorkspace("invalid");
  auto fused = FusedOpDir(ws, 2);
  auto softmax = SoftmaxOpDir(ws);
  Dispatch both = Module(1);
  both.finalize = true;
  ExpectInvalid(fused, both, code::kDispatchConflict);
  ExpectInvalid(softmax, Module(1), code::kDispatchNotFusion);
  ExpectInvalid(softmax, Finalize(), code::kDispatchNotFusion);
  ExpectInvalid(fused, Module(4), code::kDispatchRange);
  ExpectInvalid(fused, Module(0), code::kDispatchRange);
  ExpectInvalid(fused, Module(-1), code::kDispatchRange);
  ExpectInvalid(fused, Finalize(), code::kDispatchEarlyFinalize);  // module123 missing
  ExpectInvalid(fused, Dispatch{}, code::kDispatchNeedsModule);
  Write(fused / "modules/test_fused_module123.py", "# m3\n");
  ExpectInvalid(fused, Finalize(/*retry=*/true), code::kDispatchRetryNoFinal);
  opdev::Diagnostics diags;
  CHECK(PlanRound(fused.string(), Finalize(), &diags).ok());
}

TEST_CASE("dispatch JSON is parsed strictly") {
  auto parse = [](const char* text, opdev::Diagnostics* d) {
    return ParseDispatchJson(boost::json::parse(text), "dispatch.json", d);
  };
  {
    opdev::Diagnostics d;
    auto ok = parse(R"({"module_k": 2, "finalize": false})", &d);
    REQUIRE(ok.has_value());
    CHECK(*ok->module_k == 2);
    CHECK_FALSE(ok->finalize);
  }
  {
    opdev::Diagnostics d;
    auto ok = parse(R"({"module_k": null, "finalize": true, "retry_of_verifier": true,
                        "cleanup_succeeded": false})", &d);
    REQUIRE(ok.has_value());
    CHECK_FALSE(ok->module_k.has_value());
    CHECK(ok->finalize);
    CHECK(ok->retry_of_verifier);
    CHECK(ok->cleanup_succeeded == std::optional<bool>(false));
  }
  for (const char* bad : {R"({"module_k": "2"})", R"({"module_k": 2.0})", R"({"module_k": true})",
                          R"({"finalize": "true"})", R"({"finalize": 1})", R"([1])",
                          R"({"retry_of_verifier": 0})"}) {
    opdev::Diagnostics d;
    INFO(bad);
    CHECK_FALSE(parse(bad, &d).has_value());
    REQUIRE(d.Find(code::kDispatchType) != nullptr);
    CHECK(d.Find(code::kDispatchType)->category == "dispatch_invalid");
  }
  opdev::Diagnostics d;
  CHECK_FALSE(parse(R"({"module": 2})", &d).has_value());
  CHECK(d.HasCode(code::kDispatchUnknown));

  opdev::Diagnostics dk;
  CHECK(ParseModuleK("2", &dk) == std::optional<std::int64_t>(2));
  CHECK(ParseModuleK("-1", &dk) == std::optional<std::int64_t>(-1));
  CHECK_FALSE(dk.HasErrors());
  for (const char* bad : {"2.0", "two", "", "99999999999999999999", "1e3", " 2"}) {
    opdev::Diagnostics e;
    INFO(bad);
    CHECK_FALSE(ParseModuleK(bad, &e).has_value());
    CHECK(e.HasCode(code::kDispatchType));
  }
}

TEST_CASE("module_interfaces.yaml without is_fusion or missing stops the planner") {
  auto ws = FreshWorkspace("nofusion");
  auto op = FusedOpDir(ws, 0);
  std::string yaml = Read(op / "module_interfaces.yaml");
  auto pos = yaml.find("is_fusion: true\n");
  REQUIRE(pos != std::string::npos);
  yaml.erase(pos, std::string("is_fusion: true\n").size());
  Write(op / "module_interfaces.yaml", yaml);
  opdev::Diagnostics diags;
  auto plan = PlanRound(op.string(), Module(1), &diags);
  CHECK_FALSE(plan.ok());
  REQUIRE(diags.Find(code::kPlanNoIsFusion) != nullptr);
  CHECK(diags.Find(code::kPlanNoIsFusion)->category == "design_violation");

  fs::remove(op / "module_interfaces.yaml");
  opdev::Diagnostics d2;
  CHECK_FALSE(PlanRound(op.string(), Module(1), &d2).ok());
  CHECK(d2.HasErrors());

  opdev::Diagnostics d3;
  CHECK_FALSE(PlanRound((ws / "custom" / "nope").string(), Dispatch{}, &d3).ok());
  CHECK(d3.HasErrors());
}

TEST_CASE("a symlinked history file or product is refused") {
  auto ws = FreshWorkspace("symlink");
  auto op = FusedOpDir(ws, 1);
  fs::rename(op / "modules/test_fused_module1.py", ws / "elsewhere.py");
  fs::create_symlink(ws / "elsewhere.py", op / "modules/test_fused_module1.py");
  opdev::Diagnostics diags;
  auto plan = PlanRound(op.string(), Module(2), &diags);
  REQUIRE(plan.ok());
  REQUIRE(diags.Find(code::kPlanSymlink) != nullptr);
  CHECK(diags.Find(code::kPlanSymlink)->file.find("test_fused_module1.py") != std::string::npos);

  fs::create_symlink(ws / "elsewhere.py", op / "modules/test_fused_module12.py");
  opdev::Diagnostics d2;
  auto p2 = PlanRound(op.string(), Module(2), &d2);
  REQUIRE(p2.ok());
  bool product_flagged = false;
  for (const auto& d : d2.items())
    product_flagged |= d.code == code::kPlanSymlink &&
                       d.file.find("test_fused_module12.py") != std::string::npos;
  CHECK(product_flagged);
}
