// The anti-cheat mutation suite on a real delivered kernel: the file `opdev gen` writes for
// examples/softmax (the published softmax contract), with its KB_USAGE.json from `opdev
// usage generate`. The unmutated file passes every item the self-check can decide without
// a run (S4-8/S4-9 stay blocked: no run in this test); each mutation of
// tests/data/selfcheck/anticheat.json (value-dependent host op, post-launch modification,
// narrowing assert, changed §8 shape, zeros data, swapped data, custom thresholds, core
// computation in the wrapper, dev-only import at top level, …) is caught by the item it
// names, with the verifier's category, and the report's primary category is at least as
// important. A real simulator run of the same file shows the dynamic items through the
// run-evidence interface.
#include <catch2/catch.hpp>

#include "workspace.h"

#include "opdev/codegen/generate.h"
#include "opdev/kbusage/generate.h"
#include "opdev/plan/round_plan.h"
#include "opdev/selfcheck/selfcheck.h"
#include "opdev/stage/run_op.h"

#include <boost/json.hpp>

#include <filesystem>

namespace fs = std::filesystem;
using namespace opdev::selfcheck;

namespace {

const std::string kKbRoot = std::string(OPDEV_SHARED_DIR) + "/fixtures/kb";

struct Delivered {
  fs::path op;
  std::string file;  // the generated test_softmax.py
};

// A copy of examples/softmax with the generated kernel file and its KB usage.
const Delivered& Generated() {
  static const Delivered d = [] {
    Delivered out;
    fs::path ws = opdev_test::FreshWorkspace("selfcheck_anticheat");
    out.op = ws / "custom" / "softmax";
    fs::copy(fs::path(OPDEV_SOURCE_DIR) / "examples/softmax", out.op, fs::copy_options::recursive);
    auto g = opdev::codegen::GenerateKernelFile(out.op.string(), {});
    if (!g.ok()) throw std::runtime_error("codegen failed on examples/softmax: " + g.diagnostics.ToText());
    out.file = g.file->content;
    opdev_test::Write(out.op / g.file->rel, out.file);
    opdev::Diagnostics diags;
    auto plan = opdev::plan::PlanRound(out.op.string(), {}, &diags);
    if (!plan.ok()) throw std::runtime_error(diags.ToText());
    opdev::kbusage::GenerateOptions go;
    go.kb_root = kKbRoot;
    if (!opdev::kbusage::GenerateKbUsage(*plan, go, &diags).ok()) throw std::runtime_error(diags.ToText());
    return out;
  }();
  return d;
}

SelfCheckReport Check(const fs::path& op, bool probe) {
  SelfCheckOptions o;
  o.op_dir = op.string();
  o.kb_root = kKbRoot;
  o.python = probe ? OPDEV_PYTHON : "";
  auto r = RunSelfCheck(o);
  REQUIRE(r.ok());
  return *r;
}

const ItemResult* Item(const SelfCheckReport& r, const std::string& id) {
  for (const auto& i : r.items)
    if (i.id == id) return &i;
  return nullptr;
}

}  // namespace

TEST_CASE("anti-cheat: the generated softmax kernel passes every item decidable without a run") {
  const Delivered& d = Generated();
  SelfCheckReport r = Check(d.op, /*probe=*/true);
  for (const auto& i : r.items) {
    INFO(i.id << " " << i.title << ": " << i.evidence << "\n" << i.findings.ToText());
    if (i.id == "S4-8" || i.id == "S4-9") {
      CHECK(i.status == ItemStatus::kBlocked);
    } else {
      CHECK(i.status == ItemStatus::kPass);
      CHECK_FALSE(i.findings.HasErrors());
    }
  }
  CHECK(r.failed == 0);
  CHECK(r.failure_category.empty());
  // The semantic rules really looked: guards decided, every §8 test traced to its data.
  const ItemResult* cheat = Item(r, "S4-5");
  CHECK(cheat->evidence.find("0 not decidable") != std::string::npos);
  CHECK(cheat->evidence.find("⑧: 8 §8 test(s) traced to their data") != std::string::npos);
}

TEST_CASE("anti-cheat: every mutation of the generated kernel is caught with its item and category") {
  const Delivered& d = Generated();
  auto text = opdev_test::Read(fs::path(OPDEV_SOURCE_DIR) / "tests/data/selfcheck/anticheat.json");
  auto doc = boost::json::parse(text).as_object();
  int n = 0;
  for (const auto& v : doc.at("mutations").as_array()) {
    const auto& m = v.as_object();
    const std::string what(m.at("mutation").as_string());
    const std::string item(m.at("item").as_string()), code(m.at("code").as_string());
    const std::string category(m.at("category").as_string());
    INFO(what << " -> " << item << " " << code);
    std::string mutated = d.file;
    for (const auto& e : m.at("edits").as_array()) {
      const std::string find(e.at("find").as_string()), replace(e.at("replace").as_string());
      size_t p = mutated.find(find);
      INFO("find: " << find);
      REQUIRE(p != std::string::npos);
      mutated.replace(p, find.size(), replace);
    }
    opdev_test::Write(d.op / "test_softmax.py", mutated);
    SelfCheckReport r = Check(d.op, item == "S4-13");
    const ItemResult* it = Item(r, item);
    REQUIRE(it);
    INFO(it->evidence << "\n" << it->findings.ToText());
    CHECK(it->status == ItemStatus::kFail);
    CHECK(it->findings.HasCode(code));
    CHECK(it->category == category);
    CHECK(CategoryPriority(r.failure_category) <= CategoryPriority(category));
    ++n;
  }
  opdev_test::Write(d.op / "test_softmax.py", d.file);
  CHECK(n >= 25);
}

TEST_CASE("anti-cheat: a real simulator run of the generated kernel feeds S4-8/S4-9 and ⑥ coverage") {
  const Delivered& d = Generated();
  opdev_test::Write(d.op / "test_softmax.py", d.file);
  opdev::stage::RunOpOptions ro;
  ro.op_dir = d.op.string();
  ro.backend = "sim";
  ro.python = OPDEV_PYTHON;
  auto run = opdev::stage::RunOp(ro);
  REQUIRE(run.ok());
  SelfCheckReport r = Check(d.op, false);
  ApplyRunEvidence(&r, opdev::stage::RunEvidenceOf(*run, d.op.string()));
  const ItemResult* exit_item = Item(r, "S4-8");
  const ItemResult* pass_item = Item(r, "S4-9");
  INFO(exit_item->evidence << "\n" << exit_item->findings.ToText() << pass_item->findings.ToText());
  // The published contract's three column-tail cases miss scheme A on the simulator (the
  // masks DESIGN §1 reuses from the previous loop, README): the file would exit non-zero.
  int precision_failures = 0;
  for (const auto& c : run->cases) precision_failures += c.status == opdev::runtime::CaseStatus::kPrecisionFail;
  REQUIRE(precision_failures > 0);
  CHECK(exit_item->status == ItemStatus::kFail);
  CHECK(exit_item->category == "precision_failure");
  CHECK(pass_item->status == ItemStatus::kFail);
  CHECK(pass_item->findings.HasCode("SC-RUN-CASE"));
  // The generated _assert_precision prints `[label] PASS (matched_ratio=…, max_abs_error=…)`,
  // so the verifier's literal grep finds both names in the test file's own output.
  CHECK_FALSE(pass_item->findings.HasCode("SC-RUN-METRICS"));
  // The kernel wrote every output element: ⑥ holds, S4-5 still passes.
  CHECK(Item(r, "S4-5")->status == ItemStatus::kPass);
  CHECK(r.failure_category == "precision_failure");
}
