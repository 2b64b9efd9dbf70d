// Regression tests for the input bounds of the contract loaders (issue 18, defects 1, 8, 9):
// JSON nested tens of thousands of levels deep, pathological DESIGN.md Markdown (bracket
// nesting, a 10k-column table, an over-long line, deep block nesting), and a module without
// golden_steps in module_interfaces.yaml. Each minimised input is generated here; each must end
// in a diagnostic with the file, the line and the rule, never a crash or a long run.
#include "contract_test_util.h"

#include "opdev/contract/check.h"
#include "opdev/contract/design_doc.h"

using namespace opdev;
using namespace opdev::contract;
using namespace contract_test;

namespace {

Diagnostics Check(const std::string& dir) {
  Diagnostics diags;
  LoadOptions load;
  load.kb_root = kKbRoot;
  (void)CheckOpDirPath(dir, load, CheckOptions{}, &diags);
  return diags;
}

std::string Nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

TEST_CASE("DESIGN_BINDINGS.json nested 30000 levels deep: CONTRACT-INPUT-LIMIT, no stack overflow") {
  ScratchOpDir s;
  s.Mutate("DESIGN_BINDINGS.json", "\"schema_version\": 1,", "\"schema_version\": 1,\n  \"deep\": " + Nested(30000) + ",");
  Diagnostics d = Check(s.dir());
  const Diagnostic* u = d.Find("CONTRACT-INPUT-LIMIT");
  REQUIRE(u);
  CHECK(u->file == s.path("DESIGN_BINDINGS.json"));
  CHECK(u->line == 3);
  CHECK(u->category == "input_error");
  CHECK(u->message.find("64 levels") != std::string::npos);
}

TEST_CASE("KB_SELECTION.json nested 20000 levels deep (an object chain): CONTRACT-INPUT-LIMIT") {
  ScratchOpDir s;
  std::string deep;
  for (int i = 0; i < 20000; ++i) deep += "{\"k\":";
  deep += "1";
  for (int i = 0; i < 20000; ++i) deep += "}";
  s.Mutate("KB_SELECTION.json", "\"schema_version\": 3,", "\"schema_version\": 3,\n  \"deep\": " + deep + ",");
  Diagnostics d = Check(s.dir());
  const Diagnostic* u = d.Find("CONTRACT-INPUT-LIMIT");
  REQUIRE(u);
  CHECK(u->file == s.path("KB_SELECTION.json"));
  CHECK(u->line == 3);
}

TEST_CASE("JSON nesting within the limit still parses (fields are checked, not refused)") {
  ScratchOpDir s;
  s.Mutate("DESIGN_BINDINGS.json", "\"schema_version\": 1,", "\"schema_version\": 1,\n  \"deep\": " + Nested(20) + ",");
  Diagnostics d = Check(s.dir());
  CHECK_FALSE(d.Find("CONTRACT-INPUT-LIMIT"));
  CHECK_FALSE(d.Find("JSON-SYNTAX"));
}

TEST_CASE("DESIGN.md with an unclosed image-link bracket run repeated 100k times: refused before cmark-gfm, with the line") {
  ScratchOpDir s;
  std::string text = ReadAll(s.path("DESIGN.md"));
  int lines = static_cast<int>(CountOf(text, "\n"));
  std::string evil;
  for (int i = 0; i < 100000; ++i) evil += "![[]()";
  WriteAll(s.path("DESIGN.md"), text + "\n" + evil + "\n");
  Diagnostics d = Check(s.dir());
  const Diagnostic* u = d.Find("CONTRACT-INPUT-LIMIT");
  REQUIRE(u);
  CHECK(u->file == s.path("DESIGN.md"));
  CHECK(u->line == lines + 2);
  CHECK(u->category == "input_error");
  CHECK(u->message.find("bytes per line") != std::string::npos);
}

TEST_CASE("DESIGN.md brackets spread over many short lines of one paragraph: refused") {
  std::string text = "# t\n\n";
  for (int i = 0; i < 20000; ++i) text += "![[]()\n";
  DesignDoc doc = ParseDesignDoc(text, "DESIGN.md");
  CHECK(doc.limit_line == 3);
  CHECK(doc.limit_violation.find("'['") != std::string::npos);
  CHECK(doc.sections.empty());
}

TEST_CASE("DESIGN.md with a 10k-column table: refused at the row") {
  ScratchOpDir s;
  std::string text = ReadAll(s.path("DESIGN.md"));
  int lines = static_cast<int>(CountOf(text, "\n"));
  std::string row = "|";
  for (int i = 0; i < 10000; ++i) row += " a |";
  WriteAll(s.path("DESIGN.md"), text + "\n" + row + "\n" + row + "\n");
  Diagnostics d = Check(s.dir());
  const Diagnostic* u = d.Find("CONTRACT-INPUT-LIMIT");
  REQUIRE(u);
  CHECK(u->line == lines + 2);
  CHECK(u->message.find("table cells") != std::string::npos);
}

TEST_CASE("DESIGN.md block quotes nested 1000 deep: refused") {
  std::string text = "# t\n\n" + std::string(1000, '>') + " x\n";
  DesignDoc doc = ParseDesignDoc(text, "DESIGN.md");
  CHECK(doc.limit_line == 3);
  CHECK(doc.limit_violation.find("nested") != std::string::npos);
}

TEST_CASE("the published DESIGN.md and the KB template stay within the Markdown bounds") {
  for (const std::string& p : {kFixtureDir + "/DESIGN.md", kFixtureDir + "/SPEC.md", kKbRoot + "/design-template.md"}) {
    DesignDoc doc = ParseDesignDoc(ReadAll(p), p);
    INFO(p);
    CHECK(doc.limit_violation.empty());
    CHECK_FALSE(doc.sections.empty());
  }
}

TEST_CASE("a module without golden_steps: MODIF-FIELD-MISSING with the module's line") {
  ScratchOpDir s;
  s.Mutate("module_interfaces.yaml",
           "    golden_steps:\n"
           "      - \"row_max: m[b] = max_j(x[b,j])  # per-row reduction, fp16-exact\"\n"
           "      - \"exp_shift: e[b,i] = exp(x[b,i] - m[b])  # via vf.exp_sub fp16->fp32\"\n"
           "      - \"row_sum: s[b] = sum_j(e[b,j])  # fp32 accumulation\"\n"
           "      - \"normalize: y[b,i] = e[b,i] / s[b]  # fp32 div, then astype fp32->fp16 store\"\n",
           "");
  Diagnostics d = Check(s.dir());
  CHECK_FALSE(d.Find("YAML-SYNTAX"));
  const Diagnostic* m = d.Find("MODIF-FIELD-MISSING");
  REQUIRE(m);
  CHECK(m->file == s.path("module_interfaces.yaml"));
  CHECK(m->line == 10);
  CHECK(m->message.find("golden_steps") != std::string::npos);
}
