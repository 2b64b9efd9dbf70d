// Tests of module-check (opdev selfcheck --module-k K) on the L1 fixture: the three-Module
// fusion op of tests/data/kbusage/fused with the structurally complete Module 1 staged file
// of tests/data/selfcheck/fused. The verifier's order (pre-check, #1, #2, #5, #6, #3, #4,
// #7), the staged KB_USAGE record rules through the kbusage checker, the dynamic items from
// run evidence, and failing_module_boundary.
#include <catch2/catch.hpp>

#include "workspace.h"

#include "opdev/kbusage/generate.h"
#include "opdev/plan/round_plan.h"
#include "opdev/selfcheck/selfcheck.h"

#include <boost/json.hpp>

#include <filesystem>

namespace fs = std::filesystem;
using namespace opdev::selfcheck;

namespace {

const fs::path kSrc = fs::path(OPDEV_SOURCE_DIR) / "tests/data";
const std::string kKbRoot = std::string(OPDEV_SHARED_DIR) + "/fixtures/kb";

fs::path FusedOpDir(const std::string& tag) {
  fs::path ws = opdev_test::FreshWorkspace("selfcheck_module_" + tag);
  fs::path op = ws / "custom" / "fused";
  fs::copy(kSrc / "kbusage/fused", op, fs::copy_options::recursive);
  fs::remove_all(op / "rounds");
  fs::copy(kSrc / "selfcheck/fused/modules", op / "modules",
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  opdev_test::Write(op / "fused_golden.py", "def _get_device():\n    return 'cpu'\n");
  return op;
}

void GenerateUsage(const fs::path& op, std::int64_t k) {
  opdev::plan::Dispatch d;
  d.module_k = k;
  opdev::Diagnostics diags;
  auto plan = opdev::plan::PlanRound(op.string(), d, &diags);
  INFO(diags.ToText());
  REQUIRE(plan.ok());
  opdev::kbusage::GenerateOptions go;
  go.kb_root = kKbRoot;
  auto g = opdev::kbusage::GenerateKbUsage(*plan, go, &diags);
  INFO(diags.ToText());
  REQUIRE(g.ok());
}

RunEvidence PassingRun() {
  RunEvidence ev;
  ev.backend = "npu";
  ev.command = "python custom/fused/modules/test_fused_module1.py";
  ev.exit_code = 0;
  ev.output = "[aligned [16,32]] PASS (matched_ratio=1.000000 (req>=0.99), max_abs_error=0.0e+00 (limit=1.0e-02))\n"
              "[tail [20,32]] PASS (matched_ratio=1.000000 (req>=0.99), max_abs_error=0.0e+00 (limit=1.0e-02))\n";
  for (const char* n : {"test_fused_module1_aligned", "test_fused_module1_tail"}) {
    opdev::runtime::CaseResult c;
    c.name = n;
    c.status = opdev::runtime::CaseStatus::kPass;
    ev.cases.push_back(c);
  }
  return ev;
}

SelfCheckReport Check(const fs::path& op, std::optional<RunEvidence> run = PassingRun()) {
  SelfCheckOptions o;
  o.op_dir = op.string();
  o.module_k = 1;
  o.kb_root = kKbRoot;
  o.python = "";
  o.run = std::move(run);
  auto r = RunSelfCheck(o);
  REQUIRE(r.ok());
  return *r;
}

const ItemResult& Item(const SelfCheckReport& r, const std::string& id) {
  for (const auto& i : r.items)
    if (i.id == id) return i;
  FAIL("no item " << id);
  return r.items.front();
}

void Replace(const fs::path& file, const std::string& find, const std::string& replace) {
  std::string text = opdev_test::Read(file);
  size_t p = text.find(find);
  REQUIRE(p != std::string::npos);
  text.replace(p, find.size(), replace);
  opdev_test::Write(file, text);
}

}  // namespace

TEST_CASE("module-check: the Module 1 staged file passes every item, in the verifier's order") {
  fs::path op = FusedOpDir("good");
  GenerateUsage(op, 1);
  SelfCheckReport r = Check(op);
  CHECK(r.mode == "module");
  CHECK(r.file == "modules/test_fused_module1.py");
  std::vector<std::string> order;
  for (const auto& i : r.items) order.push_back(i.id);
  CHECK(order == std::vector<std::string>{"MC-0", "MC-1", "MC-2", "MC-5", "MC-6", "MC-3", "MC-4", "MC-7", "L1-RO"});
  for (const auto& i : r.items) {
    INFO(i.id << ": " << i.evidence << "\n" << i.findings.ToText());
    if (i.id == "L1-RO") CHECK(i.status == ItemStatus::kSkipped);
    else CHECK(i.status == ItemStatus::kPass);
  }
  CHECK(Item(r, "MC-7").evidence.find("2 record(s)") != std::string::npos);
  CHECK(r.failure_category.empty());
  CHECK(r.ToJson().at("failing_module_boundary").is_null());
}

TEST_CASE("module-check: no usage is not_available, no run leaves MC-3/MC-4 blocked") {
  fs::path op = FusedOpDir("nousage");
  SelfCheckReport r = Check(op, std::nullopt);
  CHECK(Item(r, "MC-7").status == ItemStatus::kNotAvailable);
  CHECK(Item(r, "MC-3").status == ItemStatus::kBlocked);
  CHECK(Item(r, "MC-4").status == ItemStatus::kBlocked);
  CHECK(r.failed == 0);
}

TEST_CASE("module-check: a broken frozen DESIGN_BINDINGS fails the pre-check and stops the run items") {
  fs::path op = FusedOpDir("precheck");
  opdev_test::Write(op / "DESIGN_BINDINGS.json", "{\"schema_version\": 1, \"bindings\": [");
  SelfCheckReport r = Check(op);
  CHECK(Item(r, "MC-0").status == ItemStatus::kFail);
  CHECK(Item(r, "MC-0").category == "design_violation");
  CHECK(Item(r, "MC-3").status == ItemStatus::kBlocked);
  CHECK(Item(r, "MC-3").evidence.find("pre-check") != std::string::npos);
  CHECK(r.failure_category == "design_violation");
  CHECK(r.ToJson().at("failing_module_boundary").as_int64() == 1);
}

TEST_CASE("module-check: each staged-file violation fails its item with the verifier's category") {
  struct Mutation {
    const char* what;
    const char* file;
    const char* find;
    const char* replace;
    const char* item;
    const char* code;
    const char* category;
  };
  const Mutation kMutations[] = {
      {"a second @pl.jit kernel", "modules/test_fused_module1.py", "def fused_wrapper_module1(x, w):",
       "@pl.jit\ndef extra_kernel(h: pl.Tensor[[pl.DYNAMIC], pl.DT_FP32]):\n    pass\n\n\ndef fused_wrapper_module1(x, w):",
       "MC-5", "SC-JIT-COUNT", "cheating"},
      {"the launch in a host loop", "modules/test_fused_module1.py", "    fused_kernel[None, block_dim](x, w, h)\n",
       "    for _ in range(2):\n        fused_kernel[None, block_dim](x, w, h)\n", "MC-5", "SC-LAUNCH-IN-LOOP", "cheating"},
      {"the result computed on the host", "modules/test_fused_module1.py", "    fused_kernel[None, block_dim](x, w, h)\n",
       "    fused_kernel[None, block_dim](x, w, h)\n    h = torch.matmul(x.float(), w.float())\n", "MC-5",
       "SC-POST-LAUNCH", "cheating"},
      {"a value-dependent host decision", "modules/test_fused_module1.py", "    m_tiles = (x.shape[0]",
       "    if (w == 0).all():\n        raise ValueError(\"zero weights\")\n    m_tiles = (x.shape[0]", "MC-5",
       "SC-VALUE-DEPENDENT", "cheating"},
      {"a cast outside the kernel", "modules/test_fused_module1.py", "    fused_kernel[None, block_dim](x, w, h)\n",
       "    fused_kernel[None, block_dim](x.contiguous(), w, h)\n", "MC-5", "SC-WRAPPER-BOUNDARY",
       "wrapper_boundary_violation"},
      {"the staged golden imports the staged file", "modules/fused_golden_stage1.py", "import torch\n",
       "import torch\nfrom test_fused_module1 import fused_wrapper_module1\n", "MC-6", "SC-STAGED-GOLDEN-IMPORT",
       "import_violation"},
      {"the non-Pro front end", "modules/test_fused_module1.py", "import pypto_pro.language as pl\n",
       "import pypto_pro.language as pl\nimport pypto.frontend\n", "MC-2", "SC-IMPORT-FRONTEND", "import_violation"},
  };
  for (const auto& m : kMutations) {
    INFO(m.what);
    fs::path op = FusedOpDir("mutation");
    GenerateUsage(op, 1);
    Replace(op / m.file, m.find, m.replace);
    SelfCheckReport r = Check(op);
    const ItemResult& it = Item(r, m.item);
    INFO(it.findings.ToText());
    CHECK(it.status == ItemStatus::kFail);
    CHECK(it.findings.HasCode(m.code));
    CHECK(it.category == m.category);
    CHECK(r.ToJson().at("failing_module_boundary").as_int64() == 1);
  }
}

TEST_CASE("module-check #7: staged KB_USAGE records follow the staged rules") {
  fs::path op = FusedOpDir("usage");
  GenerateUsage(op, 1);
  // A record pointing at a symbol the staged file does not have is fabricated usage.
  Replace(op / "KB_USAGE.json", "\"symbol\": \"fused_wrapper_module1\"", "\"symbol\": \"fused_wrapper_module9\"");
  SelfCheckReport r = Check(op);
  const ItemResult& u = Item(r, "MC-7");
  INFO(u.findings.ToText());
  CHECK(u.status == ItemStatus::kFail);
  CHECK(u.category == "kb_usage_invalid");
  CHECK(r.failure_category == "kb_usage_invalid");

  // The same file checked as if it were Module 1 of a later round passes again once fixed.
  Replace(op / "KB_USAGE.json", "\"symbol\": \"fused_wrapper_module9\"", "\"symbol\": \"fused_wrapper_module1\"");
  CHECK(Item(Check(op), "MC-7").status == ItemStatus::kPass);
}
