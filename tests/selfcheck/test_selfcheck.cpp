// Tests of the stage4-check self-check: the reference op dir (tests/data/selfcheck/softmax
// with the real SPEC.md) passes every static item; each entry of
// tests/data/selfcheck/violations.json breaks exactly the item it names; the dynamic items
// from run evidence; cases.yaml for S4-12; KB usage checked in the same call.
#include <catch2/catch.hpp>

#include "opdev/plan/round_plan.h"
#include "opdev/selfcheck/selfcheck.h"
#include "opdev/support/file_io.h"
#include "workspace.h"

#include <boost/json/parse.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace opdev::selfcheck;

namespace {
const fs::path kData = fs::path(OPDEV_SOURCE_DIR) / "tests/data/selfcheck";

fs::path CopyOpDir(const std::string& tag) {
  fs::path dir = opdev_test::ScratchDir("selfcheck_" + tag) / "softmax";
  fs::remove_all(dir.parent_path());
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(kData / "softmax")) fs::copy(e.path(), dir / e.path().filename());
  // The published SPEC (supported range, value_range) for the semantic rules ⑦ and ⑧.
  fs::copy_file(fs::path(OPDEV_SHARED_DIR) / "fixtures/softmax/SPEC.md", dir / "SPEC.md");
  return dir;
}

void Replace(const fs::path& file, const std::string& find, const std::string& replace) {
  auto text = opdev::ReadTextFile(file.string());
  REQUIRE(text.ok());
  size_t p = text->find(find);
  REQUIRE(p != std::string::npos);
  text->replace(p, find.size(), replace);
  REQUIRE(opdev::WriteFileAtomic(file.string(), *text).ok());
}

const ItemResult* Item(const SelfCheckReport& r, const std::string& id) {
  for (const auto& i : r.items)
    if (i.id == id) return &i;
  return nullptr;
}

// The import probe (S4-13) starts Python with torch: only the tests about it use it.
SelfCheckReport Check(const fs::path& dir, SelfCheckOptions o = {}, bool probe = false) {
  o.op_dir = dir.string();
  o.python = probe ? OPDEV_PYTHON : "";
  auto r = RunSelfCheck(o);
  REQUIRE(r.ok());
  return *r;
}
}  // namespace

TEST_CASE("the reference softmax op dir passes every static stage4-check item") {
  SelfCheckReport r = Check(CopyOpDir("good"), {}, true);
  CHECK(r.mode == "stage4");
  CHECK(r.file == "test_softmax.py");
  REQUIRE(r.items.size() == 15);
  for (int k = 1; k <= 15; ++k) CHECK(r.items[static_cast<size_t>(k - 1)].id == "S4-" + std::to_string(k));
  for (const auto& i : r.items) {
    INFO(i.id << " " << i.title << ": " << i.evidence << "\n" << i.findings.ToText());
    if (i.id == "S4-14") {
      CHECK(i.status == ItemStatus::kNotAvailable);  // the op dir has no KB_USAGE.json
    } else if (i.id == "S4-8" || i.id == "S4-9") {
      CHECK(i.status == ItemStatus::kBlocked);  // no run in this call
    } else {
      CHECK(i.status == ItemStatus::kPass);
      CHECK_FALSE(i.findings.HasErrors());
    }
  }
  CHECK(r.failed == 0);
  CHECK(r.blocked == 2);
  const ItemResult* cheat = Item(r, "S4-5");
  CHECK(cheat->evidence.find("⑦: 3 wrapper guard(s) (3 decided, 0 not decidable)") != std::string::npos);
  CHECK(cheat->evidence.find("⑧: 8 §8 test(s) traced to their data") != std::string::npos);
  CHECK(r.failure_category.empty());
  const ItemResult* probe = Item(r, "S4-13");
  REQUIRE(probe);
  CHECK(probe->evidence.find("imports cleanly alone") != std::string::npos);
  const ItemResult* chain = Item(r, "S4-15");
  CHECK(chain->evidence.find("host chain: softmax_wrapper, _num_tiles") != std::string::npos);
  CHECK(chain->evidence.find("1 torch.empty") != std::string::npos);
  CHECK(Item(r, "S4-10")->evidence == "8 test(s) in the file, 8 in DESIGN §8");
}

TEST_CASE("each recorded violation fails exactly the item it targets") {
  auto text = opdev::ReadTextFile((kData / "violations.json").string());
  REQUIRE(text.ok());
  auto doc = boost::json::parse(*text).as_object();
  int n = 0;
  for (const auto& v : doc.at("violations").as_array()) {
    const auto& o = v.as_object();
    std::string item(o.at("item").as_string()), code(o.at("code").as_string());
    std::string why(o.at("violation").as_string());
    INFO(item << ": " << why);
    fs::path dir = CopyOpDir("violation");
    fs::path file = dir / std::string(o.at("file").as_string());
    Replace(file, std::string(o.at("find").as_string()), std::string(o.at("replace").as_string()));
    if (o.contains("extra")) {
      const auto& x = o.at("extra").as_object();
      Replace(file, std::string(x.at("find").as_string()), std::string(x.at("replace").as_string()));
    }
    SelfCheckReport r = Check(dir, {}, item == "S4-13");
    const ItemResult* it = Item(r, item);
    REQUIRE(it);
    INFO(it->findings.ToText());
    CHECK(it->status == ItemStatus::kFail);
    CHECK(it->findings.HasCode(code));
    CHECK_FALSE(it->category.empty());
    bool worst_ok = r.failure_category == it->category ||
                    CategoryPriority(r.failure_category) <= CategoryPriority(it->category);
    CHECK(worst_ok);
    ++n;
  }
  CHECK(n >= 25);
}

TEST_CASE("findings name the file, line and rule") {
  fs::path dir = CopyOpDir("location");
  Replace(dir / "test_softmax.py", "    softmax_kernel[None, block_dim](x, y)\n",
          "    softmax_kernel[None, block_dim](x.contiguous(), y)\n");
  SelfCheckReport r = Check(dir);
  const ItemResult* b = Item(r, "S4-15");
  REQUIRE(b->findings.size() == 1);
  const auto& d = b->findings.items()[0];
  CHECK(d.file == "test_softmax.py");
  CHECK(d.line == 119);  // the launch line of tests/data/selfcheck/softmax/test_softmax.py
  CHECK(d.code == "SC-WRAPPER-BOUNDARY");
  CHECK(d.category == "wrapper_boundary_violation");
  CHECK(d.message.find(".contiguous()") != std::string::npos);
  CHECK(d.evidence == "softmax_kernel[None, block_dim](x.contiguous(), y)");
}

TEST_CASE("a missing file blocks the items that read it and fails S4-2") {
  fs::path dir = CopyOpDir("missing");
  fs::remove(dir / "test_softmax.py");
  SelfCheckReport r = Check(dir);
  CHECK(Item(r, "S4-2")->status == ItemStatus::kFail);
  CHECK(Item(r, "S4-2")->category == "missing_file");
  CHECK(Item(r, "S4-5")->status == ItemStatus::kBlocked);
  CHECK(r.failure_category == "missing_file");
}

TEST_CASE("a syntax error is reported with its line and blocks the rest") {
  fs::path dir = CopyOpDir("syntax");
  Replace(dir / "test_softmax.py", "def _num_tiles(rows):", "def _num_tiles(rows:");
  SelfCheckReport r = Check(dir);
  const ItemResult* e = Item(r, "S4-2");
  CHECK(e->status == ItemStatus::kFail);
  REQUIRE_FALSE(e->findings.empty());
  CHECK(e->findings.items()[0].code == "PY-SYNTAX");
  CHECK(e->findings.items()[0].line > 0);
}

TEST_CASE("without golden_cpu the signature item is blocked, not passed") {
  fs::path dir = CopyOpDir("noguard");
  fs::remove(dir / "softmax_golden_cpu.py");
  SelfCheckReport r = Check(dir);
  CHECK(Item(r, "S4-12")->status == ItemStatus::kBlocked);
}

TEST_CASE("S4-8/S4-9 take the run: exit status, PASS lines, the verifier's metric grep") {
  fs::path dir = CopyOpDir("run");
  auto pass = [](const std::string& label) {
    opdev::runtime::CaseResult c;
    c.name = label;
    c.status = opdev::runtime::CaseStatus::kPass;
    return c;
  };
  RunEvidence ev;
  ev.backend = "npu";
  ev.command = "python custom/softmax/test_softmax.py";
  ev.exit_code = 0;
  ev.output = "[aligned [3,128]] PASS (matched_ratio=1.000000 (req>=0.99), max_abs_error=1.2e-04 (limit=1e-01))\n";
  ev.cases = {pass("test_softmax_aligned")};
  SelfCheckOptions o;
  o.run = ev;
  SelfCheckReport r = Check(dir, o);
  CHECK(Item(r, "S4-8")->status == ItemStatus::kPass);
  CHECK(Item(r, "S4-9")->status == ItemStatus::kPass);

  // The newest precision_compare prints `matched_ratio   : …`: the verifier's grep fails.
  ev.output = "[aligned [3,128]] PASS (precision PASS\natol            : 1.0e-05 thresh=1.9e-03 check=LT\n"
              "matched_ratio   : 1.0000 thresh=0.99 check=GT\nmax_abs_error   : 1.2e-04 thresh=1.0e-01 check=LT)\n";
  o.run = ev;
  r = Check(dir, o);
  CHECK(Item(r, "S4-9")->status == ItemStatus::kFail);
  CHECK(Item(r, "S4-9")->findings.HasCode("SC-RUN-METRICS"));

  // A non-zero exit with a traceback fails both, with the run's category.
  ev.exit_code = 1;
  ev.failure_category = "runtime_failure";
  ev.output = "Traceback (most recent call last):\n  File \"x.py\", line 3\nRuntimeError: boom\n";
  ev.cases = {};
  o.run = ev;
  r = Check(dir, o);
  CHECK(Item(r, "S4-8")->status == ItemStatus::kFail);
  CHECK(Item(r, "S4-8")->category == "runtime_failure");
  CHECK(Item(r, "S4-9")->findings.HasCode("SC-RUN-ERROR-OUTPUT"));
  CHECK(Item(r, "S4-9")->findings.HasCode("SC-RUN-NO-PASS"));

  // An environment failure is not measured: blocked with env_error, never failed or passed.
  ev.not_measured = true;
  ev.not_measured_reason = "No module named 'torch_npu'";
  o.run = ev;
  r = Check(dir, o);
  CHECK(Item(r, "S4-8")->status == ItemStatus::kBlocked);
  CHECK(Item(r, "S4-8")->category == "env_error");

  // In-process simulator cases: a precision failure means the file would exit non-zero.
  RunEvidence sim;
  sim.backend = "sim";
  sim.command = "opdev simulator";
  opdev::runtime::CaseResult bad = pass("test_softmax_col_tail");
  bad.status = opdev::runtime::CaseStatus::kPrecisionFail;
  sim.cases = {pass("test_softmax_aligned"), bad};
  sim.compare_prints_eq = true;
  o.run = sim;
  r = Check(dir, o);
  CHECK(Item(r, "S4-8")->category == "precision_failure");
  CHECK(Item(r, "S4-9")->findings.HasCode("SC-RUN-CASE"));

  // ⑥ coverage: output elements never written, yet a case passed.
  sim.cases = {pass("test_softmax_aligned")};
  sim.hazards.Error("SIM-OUT-UNWRITTEN", "implementation_error", "test_softmax.py", 110, "y[3:4, :] never written");
  SelfCheckReport r2 = Check(dir, {});
  ApplyRunEvidence(&r2, sim);
  CHECK(Item(r2, "S4-8")->status == ItemStatus::kPass);
  CHECK(Item(r2, "S4-5")->findings.HasCode("SC-POST-LAUNCH"));
  CHECK(r2.failure_category == "cheating");
}

TEST_CASE("S4-12 reads cases.yaml when present: an input some case omits needs a default") {
  fs::path dir = CopyOpDir("cases");
  Replace(dir / "test_softmax.py", "def softmax_wrapper(x):", "def softmax_wrapper(x, bias):");
  opdev_test::Write(dir / "cases.yaml",
               "cases:\n  - name: full\n    input_shapes: [[3, 128], [128]]\n"
               "  - name: no_bias\n    input_shapes: [[3, 128], null]\n");
  SelfCheckReport r = Check(dir);
  const ItemResult* s = Item(r, "S4-12");
  INFO(s->findings.ToText());
  CHECK(s->status == ItemStatus::kFail);
  CHECK(s->findings.HasCode("SC-SIGNATURE-DEFAULT"));
  CHECK(s->evidence.find("cases.yaml") != std::string::npos);
  Replace(dir / "test_softmax.py", "def softmax_wrapper(x, bias):", "def softmax_wrapper(x, bias=None):");
  SelfCheckReport ok = Check(dir);
  CHECK(Item(ok, "S4-12")->status == ItemStatus::kPass);
  // An unusable cases.yaml falls back to the golden signature (with a warning).
  opdev_test::Write(dir / "cases.yaml", "cases: 3\n");
  SelfCheckReport fb = Check(dir);
  const ItemResult* f = Item(fb, "S4-12");
  CHECK(f->findings.HasCode("SC-CASES-UNREADABLE"));
  CHECK(f->status == ItemStatus::kPass);
}

TEST_CASE("S4-6: a VF barrier that orders a later access, or the next iteration's, is not extra") {
  fs::path dir = CopyOpDir("barrier");
  // Inside the output loop, after the store: the next iteration's load follows it.
  Replace(dir / "test_softmax.py",
          "            vf.store_align(out_tile + (base + r * LANES), vf.add(h0, h1, mask16), mask16)\n",
          "            vf.store_align(out_tile + (base + r * LANES), vf.add(h0, h1, mask16), mask16)\n"
          "            vf.mem_bar(mode=pl.MemBarMode.VST_VLD)\n");
  // Between the passes: the loads of the next pass follow it.
  Replace(dir / "test_softmax.py", "        row_sum_b = vf.full(row_sum, all32)\n",
          "        row_sum_b = vf.full(row_sum, all32)\n        vf.mem_bar()\n");
  SelfCheckReport r = Check(dir);
  const ItemResult* b = Item(r, "S4-6");
  INFO(b->findings.ToText());
  CHECK(b->status == ItemStatus::kPass);
  CHECK(b->evidence.find("2 vf.mem_bar(s)") != std::string::npos);
}
