// KB usage generate -> check round trips on a split layout with two classes, an empty
// selection, and an L1 fusion op through Modules 1..3 and the finalize (staged + final).
#include <catch2/catch.hpp>

#include "kbusage_test_util.h"
#include "opdev/kbusage/check.h"
#include "opdev/kbusage/generate.h"

using namespace kbu_test;
using namespace opdev::kbusage;
using opdev::plan::Mode;

namespace {
GenerateOptions Opts() {
  GenerateOptions o;
  o.kb_root = KbRoot();
  return o;
}
opdev::Diagnostics CheckMode(const fs::path& op, Mode mode,
                             std::optional<std::int64_t> k = std::nullopt,
                             std::optional<std::vector<std::int64_t>> checked = std::nullopt) {
  opdev::Diagnostics d;
  CheckOptions co;
  co.kb_root = KbRoot();
  co.mode = mode;
  co.module_k = k;
  co.module_checked = checked;
  auto s = CheckKbUsage(op.string(), co, &d);
  REQUIRE(s.ok());
  return d;
}
// (file, symbol) of every record, in order.
std::vector<std::pair<std::string, std::string>> Records(const fs::path& usage) {
  std::vector<std::pair<std::string, std::string>> out;
  auto doc = ReadJson(usage);
  for (const auto& r : doc.at("invariants").as_array())
    out.emplace_back(std::string(r.at("implementation").at("file").as_string()),
                     std::string(r.at("implementation").at("symbol").as_string()));
  return out;
}
opdev::plan::Dispatch ModuleK(int k) {
  opdev::plan::Dispatch d;
  d.module_k = k;
  return d;
}
}  // namespace

TEST_CASE("split layout: one KB_USAGE.json per class, class_id from the class directory") {
  auto ws = FreshWorkspace("split");
  auto op = CopyOpDir(ws, "split", "duo");
  auto plan = Plan(op);
  CHECK(plan.kb_usage_files == std::vector<std::string>{"fp16/KB_USAGE.json", "fp32/KB_USAGE.json"});
  opdev::Diagnostics diags;
  auto res = GenerateKbUsage(plan, Opts(), &diags);
  INFO(diags.ToText());
  REQUIRE(res.ok());
  REQUIRE(res->classes.size() == 2);
  CHECK(res->classes[0].class_id == "fp16");
  CHECK(res->classes[0].final_records == 3);  // R02 of the pattern is not_triggered
  CHECK(res->classes[1].class_id == "fp32");
  CHECK(res->classes[1].final_records == 3);  // vec.md R01 is a met precondition
  // fp32 vec.md R02 names no file: warned, pointed at the kernel.
  REQUIRE(diags.Find(code::kGenLocNoFile) != nullptr);
  CHECK(diags.Find(code::kGenLocNoFile)->message.find("fp32") != std::string::npos);

  auto fp16 = ReadJson(op / "fp16/KB_USAGE.json");
  CHECK(fp16.at("class_id").as_string() == "fp16");
  CHECK(fp16.at("op").as_string() == "duo");
  // CJK, quotes and backslashes in anchors, encoded as Python does (hand-computed).
  CHECK(std::string(fp16.at("invariants").at(0).at("invariant").as_string()) ==
        "[optional_patterns:\"R01\" | [\"Applies when > 行归约后广播\", "
        "\"Dataflow > reduce / broadcast \\\"quoted\\\" \\\\ path\"]] "
        "fp16 rows: reduce_sum in fp32 then broadcast-divide (归一化).");
  auto recs = Records(op / "fp16/KB_USAGE.json");
  CHECK(recs[0] == std::make_pair(std::string("custom/duo/test_duo.py"),
                                  std::string("duo_kernel / duo_rows_vf")));
  CHECK(recs[1].second == "duo_rows_vf");
  CHECK(recs[2].second == "duo_wrapper");
  CHECK(Records(op / "fp32/KB_USAGE.json")[1].second == "duo_kernel");

  auto found = CheckMode(op, Mode::kL0);
  INFO(found.ToText());
  CHECK_FALSE(found.HasErrors());

  // fp16 records copied into the fp32 file: the identity quadruple takes the class from
  // the file, so vec.md R01 is fp32's met precondition (inactive) and the pattern's R01
  // carries fp16's anchors and invariant text.
  auto fp32 = ReadJson(op / "fp32/KB_USAGE.json");
  fp32.at("invariants").as_array().push_back(fp16.at("invariants").at(1));
  fp32.at("invariants").as_array().push_back(fp16.at("invariants").at(0));
  Write(op / "fp32/KB_USAGE.json", *PyJsonDumpsForTest(fp32));
  auto broken = CheckMode(op, Mode::kL0);
  INFO(broken.ToText());
  CHECK(broken.HasCode(code::kChkQuadInactive));
  CHECK(broken.HasCode(code::kChkAnchors));
  CHECK(broken.HasCode(code::kChkInvariant));
  CHECK(broken.HasCode(code::kChkFinalDuplicate));
  for (const auto& f : broken.items()) {
    if (f.severity == opdev::Severity::kError) CHECK(f.file.find("fp32") != std::string::npos);
  }
}

TEST_CASE("empty selection: bindings [] and invariants [] round-trip / records are rejected") {
  auto ws = FreshWorkspace("empty");
  auto op = CopyOpDir(ws, "empty", "ident");
  opdev::Diagnostics diags;
  auto res = GenerateKbUsage(Plan(op), Opts(), &diags);
  INFO(diags.ToText());
  REQUIRE(res.ok());
  CHECK(Read(op / "KB_USAGE.json") ==
        "{\n  \"schema_version\": 3,\n  \"op\": \"ident\",\n  \"class_id\": \".\",\n"
        "  \"invariants\": []\n}\n");
  CHECK_FALSE(CheckMode(op, Mode::kL0).HasErrors());

  Write(op / "KB_USAGE.json",
        "{\"schema_version\": 3, \"op\": \"ident\", \"class_id\": \".\", \"invariants\": "
        "[{\"reference\": \"constraints/vec.md\", \"invariant\": \"[required_constraints:\\\"R01\\\" | []] x\", "
        "\"implementation\": {\"file\": \"custom/ident/test_ident.py\", \"symbol\": \"ident_kernel\", "
        "\"status\": \"implemented\"}}]}\n");
  auto found = CheckMode(op, Mode::kL0);
  CHECK(found.HasCode(code::kChkEmptyRule));
  CHECK(found.HasCode(code::kChkRefUnselected));

  // Bindings present although nothing is selected: generation refuses and writes nothing.
  std::string before = Read(op / "KB_USAGE.json");
  fs::copy_file(Data("split/DESIGN_BINDINGS.json"), op / "DESIGN_BINDINGS.json",
                fs::copy_options::overwrite_existing);
  opdev::Diagnostics d2;
  CHECK_FALSE(GenerateKbUsage(Plan(op), Opts(), &d2).ok());
  CHECK(d2.HasCode(code::kGenEmptyRule));
  CHECK(Read(op / "KB_USAGE.json") == before);
}

TEST_CASE("L1: staged records per Module, then finalize keeps checked staged and adds finals") {
  auto ws = FreshWorkspace("l1");
  auto op = CopyOpDir(ws, "fused", "fused");
  fs::path rounds = ws / "rounds";
  fs::rename(op / "rounds", rounds);
  const std::string m1 = "custom/fused/modules/test_fused_module1.py";
  const std::string m12 = "custom/fused/modules/test_fused_module12.py";
  const std::string m123 = "custom/fused/modules/test_fused_module123.py";
  const std::string fin = "custom/fused/test_fused.py";

  // Module 1: only fused_kernel / fused_wrapper_module1 exist.
  fs::copy_file(rounds / "test_fused_module1.py", op / "modules/test_fused_module1.py");
  {
    opdev::Diagnostics d;
    auto res = GenerateKbUsage(Plan(op, ModuleK(1)), Opts(), &d);
    INFO(d.ToText());
    REQUIRE(res.ok());
    // sync-stitch R02 names cast_vf, which Module 1 does not have yet: no staged record.
    CHECK(res->classes[0].staged_records == 2);
    CHECK(d.HasCode(code::kGenStagedSkipped));
    auto recs = Records(op / "KB_USAGE.json");
    REQUIRE(recs.size() == 2);
    CHECK(recs[0] == std::make_pair(m1, std::string("fused_kernel")));  // scale_vf not yet
    // <op>_wrapper in a staged file is <op>_wrapper_module<suffix>.
    CHECK(recs[1] == std::make_pair(m1, std::string("fused_wrapper_module1")));
    auto found = CheckMode(op, Mode::kL1Module, 1);
    INFO(found.ToText());
    CHECK_FALSE(found.HasErrors());
  }
  // Module 2: Module 1 records kept, Module 2 records added.
  fs::copy_file(rounds / "test_fused_module12.py", op / "modules/test_fused_module12.py");
  {
    opdev::Diagnostics d;
    auto res = GenerateKbUsage(Plan(op, ModuleK(2)), Opts(), &d);
    INFO(d.ToText());
    REQUIRE(res.ok());
    CHECK(res->classes[0].kept_records == 2);
    CHECK(res->classes[0].staged_records == 2);
    CHECK_FALSE(res->classes[0].wiped);
    auto recs = Records(op / "KB_USAGE.json");
    REQUIRE(recs.size() == 4);
    CHECK(recs[0] == std::make_pair(m1, std::string("fused_kernel")));
    CHECK(recs[1] == std::make_pair(m12, std::string("fused_kernel / scale_vf")));
    CHECK(recs[3] == std::make_pair(m12, std::string("fused_wrapper_module12")));
    CHECK_FALSE(CheckMode(op, Mode::kL1Module, 2).HasErrors());
    // Redo of Module 2 replaces only Module 2's records.
    opdev::Diagnostics d2;
    auto redo = GenerateKbUsage(Plan(op, ModuleK(2)), Opts(), &d2);
    REQUIRE(redo.ok());
    CHECK(Records(op / "KB_USAGE.json").size() == 4);
    // Checked as Module 1 the Module 2 records are from the future.
    CHECK(CheckMode(op, Mode::kL1Module, 1).HasCode(code::kChkStagedFuture));
  }
  fs::copy_file(rounds / "test_fused_module123.py", op / "modules/test_fused_module123.py");
  {
    opdev::Diagnostics d;
    REQUIRE(GenerateKbUsage(Plan(op, ModuleK(3)), Opts(), &d).ok());
    CHECK(Records(op / "KB_USAGE.json").size() == 7);
    CHECK(Records(op / "KB_USAGE.json")[3] == std::make_pair(m123, std::string("cast_vf")));
  }
  // Finalize before the final file exists: the check in finalize mode wants finals.
  CHECK(CheckMode(op, Mode::kL1Finalize).HasCode(code::kChkFinalMissing));
  fs::copy_file(rounds / "test_fused.py", op / "test_fused.py");
  {
    opdev::plan::Dispatch fd;
    fd.finalize = true;
    GenerateOptions o = Opts();
    o.module_checked = std::vector<std::int64_t>{1, 3};  // Module 2's records are stale
    opdev::Diagnostics d;
    auto res = GenerateKbUsage(Plan(op, fd), o, &d);
    INFO(d.ToText());
    REQUIRE(res.ok());
    CHECK(res->classes[0].final_records == 3);
    CHECK(res->classes[0].kept_records == 5);
    CHECK(res->classes[0].dropped_records == 2);
    CHECK(d.HasCode(code::kGenStagedDropped));
    auto recs = Records(op / "KB_USAGE.json");
    REQUIRE(recs.size() == 8);
    // Grouped per requirement: staged Module 1, staged Module 3, final.
    CHECK(recs[0].first == m1);
    CHECK(recs[1].first == m123);
    CHECK(recs[2] == std::make_pair(fin, std::string("fused_kernel / scale_vf")));
    CHECK(recs[3] == std::make_pair(m123, std::string("cast_vf")));
    CHECK(recs[4] == std::make_pair(fin, std::string("cast_vf")));
    CHECK(recs[5] == std::make_pair(m1, std::string("fused_wrapper_module1")));
    CHECK(recs[7] == std::make_pair(fin, std::string("fused_wrapper")));
    auto found = CheckMode(op, Mode::kL1Finalize, std::nullopt, std::vector<std::int64_t>{1, 3});
    INFO(found.ToText());
    CHECK_FALSE(found.HasErrors());
    // The verifier told that only Module 3 passed: Module 1's records are stale.
    CHECK(CheckMode(op, Mode::kL1Finalize, std::nullopt, std::vector<std::int64_t>{3})
              .HasCode(code::kChkStagedUnchecked));
    // As L0 the staged records are illegal.
    CHECK(CheckMode(op, Mode::kL0).HasCode(code::kChkStagedInL0));
  }
  // A staged file that lost its symbol: its records are dropped as stale on the next finalize.
  Write(op / "modules/test_fused_module1.py", "def fused_wrapper_module1(x, w):\n    pass\n");
  {
    opdev::plan::Dispatch fd;
    fd.finalize = true;
    opdev::Diagnostics d;
    auto res = GenerateKbUsage(Plan(op, fd), Opts(), &d);
    REQUIRE(res.ok());
    auto recs = Records(op / "KB_USAGE.json");
    CHECK(recs.size() == 7);  // Module 1's fused_kernel record is stale
    for (const auto& r : recs) {
      if (r.first == m1) CHECK(r.second == "fused_wrapper_module1");
    }
    CHECK_FALSE(CheckMode(op, Mode::kL1Finalize).HasErrors());
  }
}
