// DESIGN.md structure rules: the eleven § sections, required tables, §8 cases, placeholders,
// the wrapper boundary, §9 results, §10 dataflow, op_name (reference §3.1 and the verifier's
// stage3-check items 2–9).
#include "contract/checks.h"
#include "contract/text_util.h"

#include <map>
#include <set>

namespace opdev::contract {

Diagnostic& AddError(Diagnostics* diags, const char* code, std::string_view category,
                     const std::string& file, int line, const std::string& section,
                     std::string message, std::string evidence) {
  Diagnostic& d = diags->Error(code, category, file, line, std::move(message));
  d.section = section;
  d.evidence = std::move(evidence);
  return d;
}

Diagnostic& AddWarning(Diagnostics* diags, const char* code, std::string_view category,
                       const std::string& file, int line, const std::string& section,
                       std::string message, std::string evidence) {
  Diagnostic& d = diags->Warning(code, category, file, line, std::move(message));
  d.section = section;
  d.evidence = std::move(evidence);
  return d;
}

namespace {

// Line numbers of fenced code blocks, so that placeholder words in quoted code are still
// reported (the verifier greps the whole file) but headings inside code are not sections.
void CheckSections(const DesignDoc& d, Diagnostics* diags) {
  std::map<int, int> first_line;
  int count = 0;
  int prev_index = -1;
  for (const auto& s : d.sections) {
    if (s.index < 0) continue;
    ++count;
    if (first_line.count(s.index)) {
      AddError(diags, "DESIGN-SECTION-DUPLICATE", category::kIncompleteStructure, d.path, s.line,
               s.number, s.number + " appears twice (first at line " +
                             std::to_string(first_line[s.index]) + ")", "## " + s.title);
      continue;
    }
    if (s.index > 10)
      AddError(diags, "DESIGN-SECTION-UNKNOWN", category::kIncompleteStructure, d.path, s.line,
               s.number, "DESIGN sections are §0…§10; " + s.number + " is not one of them",
               "## " + s.title);
    else if (s.index < prev_index)
      AddError(diags, "DESIGN-SECTION-ORDER", category::kIncompleteStructure, d.path, s.line,
               s.number, s.number + " comes after §" + std::to_string(prev_index),
               "## " + s.title);
    first_line[s.index] = s.line;
    prev_index = std::max(prev_index, s.index);
  }
  for (int i = 0; i <= 10; ++i) {
    if (first_line.count(i)) continue;
    // Report at the heading that now stands where §i should be: the next present section.
    int line = static_cast<int>(d.lines.size());
    for (const auto& s : d.sections)
      if (s.index > i) { line = s.line; break; }
    AddError(diags, "DESIGN-SECTION-MISSING", category::kIncompleteStructure, d.path, line,
             "§" + std::to_string(i), "section '## §" + std::to_string(i) + "' is missing");
  }
  if (count != 11)
    AddError(diags, "DESIGN-SECTION-COUNT", category::kIncompleteStructure, d.path, 0, "",
             "DESIGN.md must have exactly 11 '## §' sections (§0…§10); found " +
                 std::to_string(count));
}

void CheckPlaceholders(const DesignDoc& d, Diagnostics* diags) {
  for (size_t i = 0; i < d.lines.size(); ++i) {
    const std::string& l = d.lines[i];
    for (const char* w : {"待定", "TBD", "TODO"}) {
      if (!Contains(l, w)) continue;
      const Section* s = d.SectionAt(static_cast<int>(i + 1));
      AddError(diags, "DESIGN-PLACEHOLDER", category::kIncompleteStructure, d.path,
               static_cast<int>(i + 1), s ? s->number : "",
               std::string("unresolved placeholder '") + w + "' in the frozen design", Trim(l));
      break;
    }
  }
}

void CheckWrapperBoundary(const DesignDoc& d, Diagnostics* diags) {
  auto body = d.SubsectionBody("Wrapper边界外操作");
  if (!body) {
    int line = d.FindSection(0) ? d.FindSection(0)->line : 0;
    AddError(diags, "DESIGN-WRAPPER-BOUNDARY-MISSING", category::kIncompleteStructure, d.path,
             line, "§0", "subsection '### Wrapper 边界外操作' is missing");
    return;
  }
  if (body->first != "空")
    AddError(diags, "DESIGN-WRAPPER-BOUNDARY", category::kDesignViolation, d.path, body->second,
             "§0", "the body of 'Wrapper 边界外操作' must be exactly '空' (no host-side operations)",
             body->first);
}

void CheckTables(const DesignDoc& d, Diagnostics* diags) {
  struct Need { int section; std::initializer_list<std::string_view> headers; const char* what; };
  const Need needs[] = {
      {0, {"Module", "Section"}, "Module 列表 (Module | 目的 | 输入依赖 | 输出 | Section)"},
      {2, {"变量名", "内存空间"}, "Tile 属性表"},
      {3, {"起始字节", "每槽字节数"}, "片上地址映射表"},
      {8, {"case"}, "目标测试 case 表"},
  };
  for (const auto& n : needs) {
    const Section* s = d.FindSection(n.section);
    if (!s) continue;  // DESIGN-SECTION-MISSING already says it
    bool found = false;
    for (const Table* t : d.TablesIn(n.section)) {
      bool all = true;
      for (auto h : n.headers) all = all && t->Column(h, true) >= 0;
      found = found || all;
    }
    if (!found)
      AddError(diags, "DESIGN-TABLE-MISSING", category::kIncompleteStructure, d.path, s->line,
               s->number, std::string("required table missing: ") + n.what);
  }
}

void CheckCases(const DesignDoc& d, Diagnostics* diags) {
  const Section* s = d.FindSection(8);
  if (!s) return;
  auto cases = d.TestCases();
  auto tables = d.TablesIn(8);
  int line = tables.empty() ? s->line : tables.front()->line;
  if (cases.size() < 4)
    AddError(diags, "DESIGN-CASES-TOO-FEW", category::kIncompleteStructure, d.path, line, "§8",
             "§8 must list at least 4 'test_' cases; found " + std::to_string(cases.size()));
  std::set<std::string> seen;
  for (const auto& c : cases)
    if (!seen.insert(c.name).second)
      AddError(diags, "DESIGN-CASE-DUPLICATE", category::kDesignViolation, d.path, c.line, "§8",
               "test case '" + c.name + "' is listed twice");
}

void CheckEvaluation(const DesignDoc& d, Diagnostics* diags) {
  const Section* s = d.FindSection(9);
  if (!s) return;
  for (int l = s->line; l <= s->end_line && l <= static_cast<int>(d.lines.size()); ++l)
    if (Contains(d.lines[l - 1], "❌"))
      AddError(diags, "DESIGN-EVAL-FAILED", category::kDesignViolation, d.path, l, "§9",
               "§9 records a failed check (❌); the design is not approved", Trim(d.lines[l - 1]));
}

void CheckDataflow(const DesignDoc& d, Diagnostics* diags) {
  const Section* s = d.FindSection(10);
  if (!s) return;
  std::string body = d.Lines(s->line, s->end_line);
  for (const char* w : {"load_tile", "store_tile"})
    if (!Contains(body, w))
      AddError(diags, "DESIGN-DATAFLOW-INCOMPLETE", category::kIncompleteStructure, d.path,
               s->line, "§10", std::string("§10 Tile 数据流全景图 must show ") + w);
}

void CheckKeywords(const DesignDoc& d, Diagnostics* diags) {
  if (const Section* s4 = d.FindSection(4); s4 && !Contains(d.Lines(s4->line, s4->end_line), "参考样例"))
    AddError(diags, "DESIGN-REFERENCE-SAMPLE-MISSING", category::kIncompleteStructure, d.path,
             s4->line, "§4", "§4 must name its 参考样例 (the official sample the structure follows)");
  if (!Contains(d.text, "make_tile_group"))
    AddError(diags, "DESIGN-TILE-GROUP-MISSING", category::kDesignViolation, d.path, 0, "§3",
             "the design never uses make_tile_group (rotating buffers must use make_tile_group + auto_mutex)");
}

void CheckOpName(const OpDir& od, const DesignDoc& d, Diagnostics* diags) {
  int line = 0;
  std::string name = d.OpName(&line);
  if (name.empty()) {
    AddError(diags, "DESIGN-OPNAME-MISSING", category::kIncompleteStructure, d.path, 1, "",
             "no '- **op_name**: <op>' line under '## 算子名称'");
    return;
  }
  if (od.modules && !od.modules->op.empty() && od.modules->op != name)
    AddError(diags, "DESIGN-OPNAME-MISMATCH", category::kDesignViolation, d.path, line, "",
             "op_name '" + name + "' differs from module_interfaces.yaml op '" + od.modules->op + "'");
}

}  // namespace

void CheckDesignStructure(const OpDir& od, const CheckOptions&, Diagnostics* diags) {
  if (!od.design) return;
  const DesignDoc& d = *od.design;
  CheckSections(d, diags);
  CheckPlaceholders(d, diags);
  CheckWrapperBoundary(d, diags);
  CheckTables(d, diags);
  CheckCases(d, diags);
  CheckEvaluation(d, diags);
  CheckDataflow(d, diags);
  CheckKeywords(d, diags);
  CheckOpName(od, d, diags);
}

}  // namespace opdev::contract
