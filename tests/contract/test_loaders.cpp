// The JSON/YAML contract loaders on the real softmax run and the real KB, plus their handling
// of malformed and hostile input (values and lines checked by hand against the fixtures).
#include "contract_test_util.h"

#include "opdev/contract/check.h"
#include "opdev/contract/design_bindings.h"
#include "opdev/contract/kb_selection.h"
#include "opdev/contract/module_interfaces.h"
#include "opdev/contract/op_dir.h"
#include "opdev/contract/topology_map.h"

#include <cstdlib>

using namespace opdev;
using namespace opdev::contract;
using namespace contract_test;

TEST_CASE("DESIGN_BINDINGS.json: 12 bindings, 41 requirements, 32 active, with lines") {
  Diagnostics diags;
  auto db = LoadDesignBindings(kFixtureDir + "/DESIGN_BINDINGS.json", &diags);
  REQUIRE(db.ok());
  CHECK(diags.empty());
  CHECK(db->schema_version == 1);
  REQUIRE(db->bindings.size() == 12);
  size_t reqs = 0;
  for (const auto& b : db->bindings) reqs += b.requirements.size();
  CHECK(reqs == 41);
  CHECK(db->ActiveRequirements().size() == 32);
  const Binding& b0 = db->bindings[0];
  CHECK(b0.class_id == ".");
  CHECK(b0.selection_field == "optional_patterns");
  CHECK(b0.reference == "patterns/vec-row-reduce-broadcast.md");
  CHECK(b0.line == 4);
  CHECK(b0.FieldLine("reference") == 7);
  REQUIRE(b0.requirements.size() == 3);
  const Requirement& r = b0.requirements[1];
  CHECK(r.req_id == "R02");
  CHECK(r.kind == "obligation");
  CHECK(r.status == "applies");
  CHECK(r.IsActive());
  CHECK(r.source_anchors.size() == 1);
  CHECK(r.FieldLine("req_id") == 24);
  CHECK(r.FieldLine("status") == 29);
  CHECK(r.unknown_fields.empty());
  CHECK(b0.requirements[2].kind == "validation_scope");
  CHECK_FALSE(b0.requirements[2].IsActive());
  const Binding& last = db->bindings.back();
  CHECK(last.reference == "constraints/wrapper-boundary.md");
  CHECK(last.selection_field == "required_constraints");
}

TEST_CASE("KB_SELECTION.json flat: fields, references and lines") {
  Diagnostics diags;
  auto sel = LoadKbSelection(kFixtureDir + "/KB_SELECTION.json", ".", &diags);
  REQUIRE(sel.ok());
  CHECK(diags.empty());
  CHECK(sel->schema_version == 3);
  CHECK(sel->op == "softmax");
  CHECK(sel->class_id == ".");
  CHECK(sel->topologies == std::vector<std::string>{"row-reduction", "multi-phase-fusion"});
  CHECK(sel->property_lines.size() == 8);
  CHECK(sel->optional_patterns.size() == 3);
  CHECK(sel->required_constraints.size() == 9);
  CHECK(sel->no_matching_pattern == false);
  CHECK(sel->optional_patterns[0].path == "patterns/vec-row-reduce-broadcast.md");
  CHECK(sel->optional_patterns[0].line == 24);
  CHECK(sel->optional_patterns[0].FieldLine("path") == 25);
  CHECK(sel->required_constraints[0].path == "constraints/vec.md");
  CHECK(sel->required_constraints[0].sha256 ==
        "sha256:d64d79b58ebb1f1c07ec686eb58de27671ee270d9d2359f262a8d0be07d247a4");
  CHECK(sel->AllReferences().size() == 12);
  CHECK(sel->FieldLine("no_matching_pattern") == 87);
}

TEST_CASE("module_interfaces.yaml: is_fusion, modules, wiring, lines") {
  Diagnostics diags;
  auto mi = LoadModuleInterfaces(kFixtureDir + "/module_interfaces.yaml", &diags);
  REQUIRE(mi.ok());
  CHECK(diags.empty());
  CHECK(mi->schema_version == 1);
  CHECK(mi->op == "softmax");
  CHECK(mi->module_count == 1);
  CHECK(mi->has_cross_core == false);
  CHECK(mi->is_fusion == false);
  CHECK(mi->FieldLine("is_fusion") == 5);
  REQUIRE(mi->primary_inputs.size() == 1);
  CHECK(mi->primary_inputs[0].name == "x");
  CHECK(mi->primary_inputs[0].shape == "[B, N]");
  CHECK(mi->primary_inputs[0].dtype == "float16");
  REQUIRE(mi->modules.size() == 1);
  const ModuleDecl& m = mi->modules[0];
  CHECK(m.id == 1);
  CHECK(m.name == "softmax_vf_row_reduce");
  CHECK(NormalizeSection(m.section) == "vector");
  CHECK(m.golden_steps.size() == 4);
  CHECK(m.golden_steps[0].rfind("row_max:", 0) == 0);
  REQUIRE(m.inputs.size() == 1);
  CHECK(m.inputs[0].IsPrimary());
  CHECK(m.inputs[0].line == 26);
  REQUIRE(m.outputs.size() == 1);
  CHECK(m.outputs[0].name == "y");
  CHECK(m.golden_stage_fn == "softmax_golden_stage1");
  CHECK(m.FieldLine("golden_stage_fn") == 29);
  REQUIRE(mi->final_outputs.size() == 1);
  CHECK(mi->final_outputs[0].SourceModule() == 1);
  CHECK(mi->final_outputs[0].line == 31);
  REQUIRE(mi->composition_verification);
  CHECK(mi->composition_verification->atol == Approx(0.001));
  CHECK(mi->composition_verification->seeds == std::vector<std::int64_t>{42, 123, 456});
  CHECK(mi->composition_verification->shapes.size() == 3);
  CHECK(mi->composition_verification->shapes[2].at("x") == "[32, 4096]");
}

TEST_CASE("topology-map.json: contract_version 3 read from the file") {
  Diagnostics diags;
  auto tm = LoadTopologyMap(kKbRoot + "/topology-map.json", &diags);
  REQUIRE(tm.ok());
  CHECK(diags.empty());
  CHECK(tm->contract_version == 3);
  CHECK(tm->contract_version_line == 6);
  CHECK(tm->topologies.size() == 10);
  CHECK(tm->property_keys.size() == 9);
  CHECK(tm->implementation_statuses ==
        std::vector<std::string>{"implemented", "deviated", "not_applicable"});
  CHECK(tm->usage_filename == "KB_USAGE.json");
}

TEST_CASE("topology-map.json: a contract_version that is not a JSON integer is rejected") {
  std::string text = ReadAll(kKbRoot + "/topology-map.json");
  for (const char* bad : {"\"3\"", "true", "3.0"}) {
    std::string t = text;
    const std::string good = "\"contract_version\": 3";
    t.replace(t.find(good), good.size(), std::string("\"contract_version\": ") + bad);
    Diagnostics diags;
    auto tm = ParseTopologyMap(t, "topology-map.json", &diags);
    REQUIRE(tm.ok());
    CHECK_FALSE(tm->contract_version.has_value());
    const Diagnostic* d = diags.Find("TOPOLOGY-CONTRACT-VERSION");
    REQUIRE(d);
    CHECK(d->line == 6);
    CHECK(d->category == "kb_selection_invalid");
  }
}

TEST_CASE("JSON loaders: syntax error lines, duplicate keys, wrong top-level type") {
  Diagnostics d1;
  auto a = ParseDesignBindings("{\n  \"schema_version\": 1,\n  \"bindings\": [\n    {,}\n  ]\n}\n",
                               "b.json", &d1);
  CHECK_FALSE(a.ok());
  REQUIRE(d1.Find("JSON-SYNTAX"));
  CHECK(d1.Find("JSON-SYNTAX")->line == 4);
  CHECK(d1.Find("JSON-SYNTAX")->category == "input_error");

  Diagnostics d2;
  auto b = ParseKbSelection("{\"schema_version\": 3,\n\"op\": \"a\",\n\"op\": \"b\"}", "s.json", ".", &d2);
  REQUIRE(b.ok());
  REQUIRE(d2.Find("JSON-DUPLICATE-KEY"));
  CHECK(d2.Find("JSON-DUPLICATE-KEY")->line == 3);
  CHECK(d2.HasCode("KBSEL-FIELD-MISSING"));  // class_id, topologies, ...

  Diagnostics d3;
  CHECK_FALSE(ParseDesignBindings("[1, 2]", "b.json", &d3).ok());
  CHECK(d3.HasCode("BINDINGS-FIELD-TYPE"));

  Diagnostics d4;
  CHECK_FALSE(ParseDesignBindings("", "b.json", &d4).ok());
  CHECK(d4.HasCode("JSON-SYNTAX"));

  Diagnostics d5;
  auto c = ParseDesignBindings("{\"schema_version\": \"1\", \"bindings\": {}}", "b.json", &d5);
  REQUIRE(c.ok());
  CHECK(d5.items().size() == 2);
  CHECK(d5.HasCode("BINDINGS-FIELD-TYPE"));
}

TEST_CASE("module_interfaces.yaml: empty, scalar and wrongly typed documents") {
  Diagnostics d1;
  auto a = ParseModuleInterfaces("", "m.yaml", &d1);
  REQUIRE(a.ok());
  CHECK(d1.HasCode("MODIF-FIELD-TYPE"));
  Diagnostics d2;
  auto b = ParseModuleInterfaces("op: x\nmodule_count: one\nis_fusion: maybe\nmodules: 3\n", "m.yaml", &d2);
  REQUIRE(b.ok());
  CHECK(d2.HasCode("MODIF-FIELD-TYPE"));
  const Diagnostic* d = d2.Find("MODIF-FIELD-TYPE");
  CHECK(d->line == 2);
  Diagnostics d3;
  auto c = ParseModuleInterfaces("op: x\nmodule_count: 1\nis_fusion: false\nmodules: []\n"
                                 "primary_inputs: []\nfinal_outputs: []\n", "m.yaml", &d3);
  REQUIRE(c.ok());
  REQUIRE(d3.Find("MODIF-FIELD-MISSING"));
  CHECK(d3.Find("MODIF-FIELD-MISSING")->message.find("empty") != std::string::npos);
}

TEST_CASE("split layout: one KB_SELECTION.json per class directory, class_id = directory") {
  ScratchOpDir s;
  std::string text = ReadAll(s.path("KB_SELECTION.json"));
  fs::remove(s.path("KB_SELECTION.json"));
  for (const char* cls : {"fp16", "bf16"}) {
    fs::create_directories(s.dir() + "/" + cls);
    std::string t = text;
    const std::string flat = "\"class_id\": \".\"";
    t.replace(t.find(flat), flat.size(), std::string("\"class_id\": \"") + cls + "\"");
    WriteAll(s.dir() + "/" + cls + "/KB_SELECTION.json", t);
  }
  auto files = FindKbSelectionFiles(s.dir());
  REQUIRE(files.size() == 2);
  CHECK(files[0].second == "bf16");
  CHECK(files[1].second == "fp16");
  Diagnostics diags;
  auto od = LoadOpDir(s.dir(), LoadOptions{kKbRoot}, &diags);
  REQUIRE(od.ok());
  INFO(diags.ToText());
  CHECK(od->IsSplit());
  CHECK(od->selections.size() == 2);
  CHECK(od->AllReferences().size() == 24);
  CheckOpDir(*od, CheckOptions{}, &diags);
  CHECK_FALSE(diags.HasCode("KBSEL-CLASS-ID"));
  // The bindings still name class ".", so they match neither class: reported both ways.
  CHECK(diags.HasCode("BINDINGS-NOT-SELECTED"));
  CHECK(diags.HasCode("BINDINGS-MISSING-BINDING"));

  // A split class whose class_id is "." is wrong.
  WriteAll(s.dir() + "/fp16/KB_SELECTION.json", text);
  Diagnostics d2;
  REQUIRE(CheckOpDirPath(s.dir(), LoadOptions{kKbRoot}, CheckOptions{}, &d2).ok());
  REQUIRE(d2.Find("KBSEL-CLASS-ID"));
  CHECK(d2.Find("KBSEL-CLASS-ID")->line == 4);
}
