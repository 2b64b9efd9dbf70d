// The verifier view: hand-broken KB_USAGE.json files (mutations of the generated softmax
// usage file), each of which must get its own finding with category kb_usage_invalid and a
// line; plus the invariant-prefix parser and bad inputs of generation.
#include <catch2/catch.hpp>

#include "kbusage_test_util.h"
#include "opdev/kbusage/check.h"
#include "opdev/kbusage/generate.h"
#include "opdev/kbusage/invariant_prefix.h"
#include "opdev/kbusage/planned_location.h"

#include <functional>

using namespace kbu_test;
using namespace opdev::kbusage;
namespace json = boost::json;

namespace {

GenerateOptions Opts() {
  GenerateOptions o;
  o.kb_root = KbRoot();
  return o;
}

opdev::Diagnostics CheckL0(const fs::path& op) {
  opdev::Diagnostics d;
  CheckOptions co;
  co.kb_root = KbRoot();
  co.mode = opdev::plan::Mode::kL0;
  auto s = CheckKbUsage(op.string(), co, &d);
  REQUIRE(s.ok());
  return d;
}

json::object& Rec(json::value& doc, size_t i) { return doc.at("invariants").at(i).as_object(); }
json::object& Impl(json::value& doc, size_t i) { return Rec(doc, i)["implementation"].as_object(); }
void SetInv(json::value& doc, size_t i, const std::string& s) { Rec(doc, i)["invariant"] = s; }
std::string Inv(json::value& doc, size_t i) { return std::string(Rec(doc, i)["invariant"].as_string()); }

struct Broken {
  const char* name;
  const char* expected;
  std::function<void(json::value&)> mutate;  // on the JSON document
  std::function<std::string(const std::string&)> raw;  // or on the bytes
};

}  // namespace

TEST_CASE("invariant prefix parses, re-encodes and rejects malformed prefixes") {
  auto built = BuildInvariant("optional_patterns", "R01", {"A > b", "归约 \"x\""}, "rule text");
  REQUIRE(built.ok());
  CHECK(*built == "[optional_patterns:\"R01\" | [\"A > b\", \"归约 \\\"x\\\"\"]] rule text");
  auto p = ParseInvariant(*built);
  REQUIRE(p.ok());
  CHECK(p->canonical);
  CHECK(p->selection_field == "optional_patterns");
  CHECK(p->req_id == "R01");
  CHECK(p->source_anchors == std::vector<std::string>{"A > b", "归约 \"x\""});
  CHECK(p->rest == "rule text");
  auto ascii = ParseInvariant("[optional_patterns:\"R01\" | [\"A > b\", \"\\u5f52\"]] t");
  REQUIRE(ascii.ok());
  CHECK_FALSE(ascii->canonical);
  auto tight = ParseInvariant("[optional_patterns:\"R01\" | [\"a\",\"b\"]] t");
  REQUIRE(tight.ok());
  CHECK_FALSE(tight->canonical);
  for (const char* bad : {"optional_patterns:\"R01\" | []] t", "[optional_patterns \"R01\" | []] t",
                          "[optional_patterns:R01 | []] t", "[optional_patterns:\"R01\" |[]] t",
                          "[optional_patterns:\"R01\" | []]t", "[optional_patterns:\"R01\" | [1]] t",
                          "[optional_patterns:\"R01\" | [\"a\"", ""}) {
    INFO(bad);
    CHECK_FALSE(ParseInvariant(bad).ok());
  }
}

TEST_CASE("planned_location: files, claimed and descriptive symbols") {
  auto loc = ParsePlannedLocation(
      "DESIGN.md §0 Module list; test_softmax.py: softmax_tile_group_kernel / softmax_rows_vf "
      "(@pl.vector_function).");
  REQUIRE(loc.files.size() == 1);
  CHECK(loc.files[0].file == "test_softmax.py");
  REQUIRE(loc.files[0].items.size() == 2);
  CHECK(loc.files[0].items[0].head == "softmax_tile_group_kernel");
  CHECK(loc.files[0].items[0].claimed);
  CHECK(loc.files[0].items[1].head == "softmax_rows_vf");
  CHECK(loc.files[0].items[1].claimed);
  auto desc = ParsePlannedLocation("test_softmax.py: col-tail cases ([3,200],[4,200]).");
  REQUIRE(desc.files[0].items.size() == 1);
  CHECK_FALSE(desc.files[0].items[0].claimed);
  auto call = ParsePlannedLocation("test_softmax.py: make_tile_group(mutex_ids=[0,1]) / x y");
  REQUIRE(call.files[0].items.size() == 2);
  CHECK_FALSE(call.files[0].items[0].claimed);
  CHECK(ParsePlannedLocation("DESIGN.md §3 高水位 (UB 196608/253952 = 77.4%).").files.empty());
  auto nosym = ParsePlannedLocation("DESIGN.md §8; test_softmax.py + golden.");
  REQUIRE(nosym.files.size() == 1);
  CHECK(nosym.files[0].items.empty());
  auto two = ParsePlannedLocation(
      "test_x.py: VF mirroring pro_ops/vf_api/test_softmax_tile_group_vf.py; "
      "modules/test_x_module12.py: x_kernel");
  REQUIRE(two.files.size() == 3);
  CHECK(two.For("test_x_module12.py").size() == 1);
  CHECK(two.For("test_x_module12.py")[0]->items[0].head == "x_kernel");
}

TEST_CASE("hand-broken KB_USAGE.json files each get the right finding") {
  auto ws = FreshWorkspace("broken");
  auto op = SoftmaxOpDir(ws);
  {
    opdev::Diagnostics d;
    REQUIRE(GenerateKbUsage(Plan(op), Opts(), &d).ok());
  }
  const std::string good = Read(op / "KB_USAGE.json");
  REQUIRE_FALSE(CheckL0(op).HasErrors());
  // Record 0: vec-row-reduce-broadcast R01 (two anchors). The inactive online-softmax-tail
  // R04 (not_triggered) is built by hand below.
  std::vector<Broken> cases = {
      {"truncated file", code::kChkJson, nullptr,
       [](const std::string& s) { return s.substr(0, s.size() / 2); }},
      {"placeholder schema_version", code::kChkSchemaVersion,
       [](json::value& v) {
         v.as_object()["schema_version"] =
             "{replace with the integer topology-map.json contract.contract_version}";
       }, nullptr},
      {"old schema_version", code::kChkSchemaVersion,
       [](json::value& v) { v.as_object()["schema_version"] = 2; }, nullptr},
      {"schema_version true", code::kChkSchemaVersion,
       [](json::value& v) { v.as_object()["schema_version"] = true; }, nullptr},
      {"wrong op", code::kChkOp, [](json::value& v) { v.as_object()["op"] = "softmax_v2"; }, nullptr},
      {"wrong class_id", code::kChkClassId,
       [](json::value& v) { v.as_object()["class_id"] = "softmax"; }, nullptr},
      {"no invariants", code::kChkFieldMissing,
       [](json::value& v) { v.as_object().erase("invariants"); }, nullptr},
      {"record not an object", code::kChkFieldType,
       [](json::value& v) { v.at("invariants").as_array().push_back("R01"); }, nullptr},
      {"unselected reference", code::kChkRefUnselected,
       [](json::value& v) { Rec(v, 0)["reference"] = "patterns/online-softmax.md"; }, nullptr},
      {"prefix without the space after ]", code::kChkPrefix,
       [](json::value& v) {
         std::string s = Inv(v, 0);
         s.erase(s.find("]] ") + 2, 1);
         SetInv(v, 0, s);
       }, nullptr},
      {"anchors joined without Python's separator", code::kChkPrefixEncoding,
       [](json::value& v) {
         std::string s = Inv(v, 0);
         auto pos = s.find("\", \"");
         s.replace(pos, 4, "\",\"");
         SetInv(v, 0, s);
       }, nullptr},
      {"non-ASCII escaped (ensure_ascii=True)", code::kChkPrefixEncoding,
       [](json::value& v) {
         // constraints/vec-mask-width R01's anchor has no CJK; put one in via an escape.
         std::string s = Inv(v, 0);
         auto pos = s.find("Applies when");
         s.replace(pos, 7, "\\u5f52lies");
         SetInv(v, 0, s);
       }, nullptr},
      {"unknown req_id", code::kChkQuadUnknown,
       [](json::value& v) {
         std::string s = Inv(v, 0);
         s.replace(s.find("\"R01\""), 5, "\"R09\"");
         SetInv(v, 0, s);
       }, nullptr},
      {"inactive requirement", code::kChkQuadInactive,
       [](json::value& v) {
         // online-softmax-tail R04 is obligation + not_triggered.
         json::object r = Rec(v, 0);
         r["reference"] = "patterns/online-softmax-tail.md";
         r["invariant"] = "[optional_patterns:\"R04\" | []] x";
         v.at("invariants").as_array().push_back(r);
       }, nullptr},
      {"anchors reordered", code::kChkAnchors,
       [](json::value& v) {
         std::string s = Inv(v, 0);
         auto p = ParseInvariant(s);
         auto anchors = p->source_anchors;
         std::swap(anchors[0], anchors[1]);
         SetInv(v, 0, *BuildInvariant(p->selection_field, p->req_id, anchors, p->rest));
       }, nullptr},
      {"invariant paraphrased", code::kChkInvariant,
       [](json::value& v) { SetInv(v, 0, Inv(v, 0) + " (paraphrased)"); }, nullptr},
      {"status verified", code::kChkStatusForbidden,
       [](json::value& v) { Impl(v, 3)["status"] = "verified"; }, nullptr},
      {"status not_applicable", code::kChkStatusForbidden,
       [](json::value& v) { Impl(v, 3)["status"] = "not_applicable"; }, nullptr},
      {"status unknown", code::kChkStatusUnknown,
       [](json::value& v) { Impl(v, 3)["status"] = "done"; }, nullptr},
      {"deviated without justification", code::kChkNoJustification,
       [](json::value& v) { Impl(v, 3)["status"] = "deviated"; }, nullptr},
      {"absolute file", code::kChkFileOutside,
       [](json::value& v) { Impl(v, 1)["file"] = "/work/custom/softmax/test_softmax.py"; }, nullptr},
      {"file relative to the op dir", code::kChkFileOutside,
       [](json::value& v) { Impl(v, 1)["file"] = "test_softmax.py"; }, nullptr},
      {"final record pointing at the golden", code::kChkFileUnexpected,
       [](json::value& v) { Impl(v, 1)["file"] = "custom/softmax/softmax_golden.py"; }, nullptr},
      {"fabricated symbol", code::kChkSymbolMissing,
       [](json::value& v) { Impl(v, 2)["symbol"] = "softmax_kernel_v2"; }, nullptr},
      {"one of several symbols fabricated", code::kChkSymbolMissing,
       [](json::value& v) { Impl(v, 0)["symbol"] = "softmax_tile_group_kernel / rows_vf"; },
       nullptr},
      {"duplicate final record", code::kChkFinalDuplicate,
       [](json::value& v) { v.at("invariants").as_array().push_back(Rec(v, 4)); }, nullptr},
      {"missing final record", code::kChkFinalMissing,
       [](json::value& v) { v.at("invariants").as_array().erase(v.at("invariants").as_array().begin() + 5); },
       nullptr},
      {"empty invariants with a non-empty selection", code::kChkFinalMissing,
       [](json::value& v) { v.at("invariants").as_array().clear(); }, nullptr},
      {"staged record in L0", code::kChkStagedInL0,
       [](json::value& v) {
         json::object r = Rec(v, 0);
         r["implementation"].as_object()["file"] = "custom/softmax/modules/test_softmax_module1.py";
         v.at("invariants").as_array().push_back(r);
       }, nullptr},
      {"implementation without status", code::kChkFieldMissing,
       [](json::value& v) { Impl(v, 6).erase("status"); }, nullptr},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      std::string text;
      if (c.raw) {
        text = c.raw(good);
      } else {
        json::value doc = json::parse(good);
        c.mutate(doc);
        text = *PyJsonDumpsForTest(doc);
      }
      Write(op / "KB_USAGE.json", text);
      auto found = CheckL0(op);
      INFO(c.name << "\n" << found.ToText());
      const auto* f = found.Find(c.expected);
      REQUIRE(f != nullptr);
      CHECK(f->severity == opdev::Severity::kError);
      CHECK(f->category == "kb_usage_invalid");
      CHECK(f->line > 0);
      CHECK(f->file.find("KB_USAGE.json") != std::string::npos);
    }
  }
  Write(op / "KB_USAGE.json", good);
  CHECK_FALSE(CheckL0(op).HasErrors());
}

TEST_CASE("check: missing usage file, missing implementation file, unparsable kernel file") {
  auto ws = FreshWorkspace("check_files");
  auto op = SoftmaxOpDir(ws);
  {
    opdev::Diagnostics d;
    REQUIRE(GenerateKbUsage(Plan(op), Opts(), &d).ok());
  }
  fs::rename(op / "KB_USAGE.json", ws / "saved.json");
  CHECK(CheckL0(op).HasCode(code::kChkMissing));
  fs::rename(ws / "saved.json", op / "KB_USAGE.json");
  Write(op / "test_softmax.py", "def broken(:\n");
  CHECK(CheckL0(op).HasCode(code::kChkFileUnparsable));
  fs::remove(op / "test_softmax.py");
  auto d = CheckL0(op);
  CHECK(d.HasCode(code::kChkFileMissing));
  // Unusable frozen inputs are a status, not findings.
  fs::remove(op / "DESIGN_BINDINGS.json");
  opdev::Diagnostics d2;
  CheckOptions co;
  co.kb_root = KbRoot();
  CHECK_FALSE(CheckKbUsage(op.string(), co, &d2).ok());
}

TEST_CASE("generation bad inputs: clear findings and nothing overwritten") {
  auto ws = FreshWorkspace("gen_bad");
  auto op = SoftmaxOpDir(ws);
  const std::string bindings = Read(op / "DESIGN_BINDINGS.json");
  auto run = [&](opdev::Diagnostics* d, GenerateOptions o) {
    return GenerateKbUsage(Plan(op), o, d);
  };
  SECTION("existing KB_USAGE.json that is not JSON is never overwritten") {
    Write(op / "KB_USAGE.json", "{ not json");
    opdev::Diagnostics d;
    CHECK_FALSE(run(&d, Opts()).ok());
    REQUIRE(d.Find(code::kGenExistingInvalid) != nullptr);
    CHECK(d.Find(code::kGenExistingInvalid)->line == 1);
    CHECK(Read(op / "KB_USAGE.json") == "{ not json");
  }
  SECTION("duplicate req_id") {
    std::string b = bindings;
    auto pos = b.find("\"req_id\": \"R02\"");
    b.replace(pos, 15, "\"req_id\": \"R01\"");
    Write(op / "DESIGN_BINDINGS.json", b);
    opdev::Diagnostics d;
    CHECK_FALSE(run(&d, Opts()).ok());
    REQUIRE(d.Find("KBU-DUP-REQ") != nullptr);
    CHECK(d.Find("KBU-DUP-REQ")->line > 0);
    CHECK_FALSE(fs::exists(op / "KB_USAGE.json"));
  }
  SECTION("unknown binding field") {
    std::string b = bindings;
    b.replace(b.find("\"req_id\": \"R01\""), 0, "\"owner\": \"someone\", ");
    Write(op / "DESIGN_BINDINGS.json", b);
    opdev::Diagnostics d;
    auto r = run(&d, Opts());
    INFO(d.ToText());
    CHECK_FALSE(r.ok());
    CHECK(d.HasErrors());
    CHECK_FALSE(fs::exists(op / "KB_USAGE.json"));
  }
  SECTION("claimed symbol missing from the produced file") {
    std::string py = Read(op / "test_softmax.py");
    py.replace(py.find("def softmax_wrapper"), 19, "def softmax_entry");
    py.replace(py.find("softmax_wrapper(x), x"), 15, "softmax_entry");
    Write(op / "test_softmax.py", py);
    opdev::Diagnostics d;
    CHECK_FALSE(run(&d, Opts()).ok());
    REQUIRE(d.Find(code::kGenSymbolMissing) != nullptr);
    CHECK(d.Find(code::kGenSymbolMissing)->message.find("softmax_wrapper") != std::string::npos);
    CHECK_FALSE(fs::exists(op / "KB_USAGE.json"));
  }
  SECTION("planned_location naming no file is an error when strict") {
    GenerateOptions o = Opts();
    o.strict_locations = true;
    opdev::Diagnostics d;
    CHECK_FALSE(run(&d, o).ok());
    REQUIRE(d.Find(code::kGenLocNoFile) != nullptr);
    CHECK(d.Find(code::kGenLocNoFile)->severity == opdev::Severity::kError);
    CHECK_FALSE(fs::exists(op / "KB_USAGE.json"));
  }
  SECTION("deviation: recorded with its justification; unknown deviations refused") {
    GenerateOptions o = Opts();
    o.deviations.push_back({".", "constraints/tiling.md", "R02", "DESIGN §3 froze 77% UB"});
    opdev::Diagnostics d;
    REQUIRE(run(&d, o).ok());
    auto doc = ReadJson(op / "KB_USAGE.json");
    bool seen = false;
    for (const auto& r : doc.at("invariants").as_array()) {
      if (r.at("implementation").at("status") == "deviated") {
        seen = true;
        CHECK(r.at("reference") == "constraints/tiling.md");
        CHECK(r.at("justification") == "DESIGN §3 froze 77% UB");
      }
    }
    CHECK(seen);
    CHECK_FALSE(CheckL0(op).HasErrors());
    GenerateOptions bad = Opts();
    bad.deviations.push_back({".", "constraints/tiling.md", "R04", "not active"});
    opdev::Diagnostics d2;
    CHECK_FALSE(run(&d2, bad).ok());
    CHECK(d2.HasCode(code::kGenDeviationUnknown));
  }
  SECTION("an op dir inside a protected root is never written") {
    GenerateOptions o = Opts();
    o.protected_roots.push_back(ws.string());
    opdev::Diagnostics d;
    CHECK_FALSE(run(&d, o).ok());
    CHECK(d.HasCode(code::kGenProtected));
    CHECK_FALSE(fs::exists(op / "KB_USAGE.json"));
    CHECK_FALSE(fs::exists(op / kSidecarFile));
  }
  SECTION("product missing") {
    fs::remove(op / "test_softmax.py");
    opdev::Diagnostics d;
    CHECK_FALSE(run(&d, Opts()).ok());
    CHECK(d.HasCode(code::kGenProductMissing));
  }
  SECTION("topology-map.json without an integer contract_version") {
    fs::path kb = ws / "kb";
    fs::create_directories(kb);
    std::string topo = Read(fs::path(KbRoot()) / "topology-map.json");
    auto pos = topo.find("\"contract_version\": 3");
    REQUIRE(pos != std::string::npos);
    topo.replace(pos, 21, "\"contract_version\": \"3\"");
    Write(kb / "topology-map.json", topo);
    GenerateOptions o = Opts();
    o.kb_root = kb.string();
    opdev::Diagnostics d;
    CHECK_FALSE(run(&d, o).ok());
    CHECK(d.HasErrors());
    CHECK_FALSE(fs::exists(op / "KB_USAGE.json"));
  }
  SECTION("schema_version follows the file, never a constant") {
    fs::path kb = ws / "kb4";
    fs::create_directories(kb);
    std::string topo = Read(fs::path(KbRoot()) / "topology-map.json");
    topo.replace(topo.find("\"contract_version\": 3"), 21, "\"contract_version\": 4");
    Write(kb / "topology-map.json", topo);
    GenerateOptions o = Opts();
    o.kb_root = kb.string();
    opdev::Diagnostics d;
    REQUIRE(run(&d, o).ok());
    CHECK(ReadJson(op / "KB_USAGE.json").at("schema_version").as_int64() == 4);
    // Checked against the real KB (3), it is wrong.
    CHECK(CheckL0(op).HasCode(code::kChkSchemaVersion));
  }
}
