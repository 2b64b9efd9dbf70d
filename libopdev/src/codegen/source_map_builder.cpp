// Parallel walk of the printed and re-parsed trees (see source_map_builder.h).
#include "source_map_builder.h"

#include "opdev/support/file_io.h"

#include <algorithm>
#include <sstream>

namespace opdev::codegen {
namespace {

std::string Squash(const std::string& s) {
  std::string o;
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r') o += c;
  return o;
}

// A DESIGN line without its comment, as `;`-separated pieces, spaces removed.
std::vector<std::string> DesignPieces(const std::string& line) {
  std::string code;
  char quote = 0;
  for (char c : line) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      break;
    }
    code += c;
  }
  std::vector<std::string> out;
  std::stringstream in(code);
  for (std::string piece; std::getline(in, piece, ';');)
    if (!Squash(piece).empty()) out.push_back(Squash(piece));
  return out;
}

struct Walker {
  const std::vector<std::string>* file_lines;
  const contract::DesignDoc* design;
  std::vector<LineOrigin>* out;

  // A DESIGN line that holds code or a table row (spans of nodes opdev built from snippets
  // point elsewhere, e.g. at the first lines).
  bool InDesignContent(int dl) const {
    if (dl <= 0 || dl > static_cast<int>(design->lines.size())) return false;
    for (const auto& cb : design->code_blocks) {
      const int n = static_cast<int>(std::count(cb.text.begin(), cb.text.end(), '\n'));
      if (dl > cb.line && dl <= cb.line + n) return true;
    }
    for (const auto& t : design->tables)
      for (const auto& r : t.rows)
        if (r.line == dl) return true;
    return false;
  }

  void Mark(int file_line, const py::Stmt& printed, const PrintedPart& part) {
    if (file_line <= 0 || file_line > static_cast<int>(file_lines->size())) return;
    LineOrigin o;
    o.line = file_line;
    const int dl = printed.span.line;
    const bool in_design = part.from_design && InDesignContent(dl);
    if (in_design) {
      o.design_line = dl;
      if (const auto* s = design->SectionAt(dl)) o.section = s->number;
      auto file_pieces = DesignPieces((*file_lines)[static_cast<size_t>(file_line - 1)]);
      std::string text = file_pieces.empty() ? "" : file_pieces.front();
      auto pieces = DesignPieces(design->lines[static_cast<size_t>(dl - 1)]);
      const bool verbatim = std::find(pieces.begin(), pieces.end(), text) != pieces.end();
      if (part.skeleton) {
        o.kind = OriginKind::kSkeleton;
        o.rule = "pure-vec pattern skeleton (from the DESIGN line)";
      } else {
        o.kind = verbatim ? OriginKind::kDesignVerbatim : OriginKind::kDesignDerived;
        if (!verbatim) o.rule = "derived from the DESIGN line";
      }
    } else {
      o.kind = part.from_design ? OriginKind::kSkeleton : OriginKind::kEmitter;
      o.rule = part.rule;
    }
    out->push_back(o);
  }

  void Stmts(const std::vector<py::StmtPtr>& printed, const std::vector<py::StmtPtr>& reparsed,
             const PrintedPart& part) {
    for (size_t i = 0; i < printed.size() && i < reparsed.size(); ++i) Stmt(*printed[i], *reparsed[i], part);
  }

  void Stmt(const py::Stmt& p, const py::Stmt& r, const PrintedPart& part) {
    for (size_t i = 0; i < p.decorator_list.size() && i < r.decorator_list.size(); ++i)
      Mark(r.decorator_list[i]->span.line, p, part);
    Mark(r.span.line, p, part);
    Stmts(p.body, r.body, part);
    Stmts(p.orelse, r.orelse, part);
    Stmts(p.finalbody, r.finalbody, part);
    for (size_t i = 0; i < p.handlers.size() && i < r.handlers.size(); ++i) Stmts(p.handlers[i].body, r.handlers[i].body, part);
  }
};

}  // namespace

SourceMap BuildSourceMap(const std::string& file_rel, const std::string& content, const py::Module& reparsed,
                         const std::vector<PrintedPart>& parts, const contract::DesignDoc& design) {
  SourceMap m;
  m.file = file_rel;
  m.sha256 = Sha256Hex(content);
  m.design = "DESIGN.md";
  m.design_sha256 = Sha256Hex(design.text);
  std::vector<std::string> lines;
  std::stringstream in(content);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  Walker w{&lines, &design, &m.lines};
  for (size_t i = 0; i < parts.size() && i < reparsed.body.size(); ++i)
    if (parts[i].stmt) w.Stmt(*parts[i].stmt, *reparsed.body[i], parts[i]);
  std::sort(m.lines.begin(), m.lines.end(), [](const LineOrigin& a, const LineOrigin& b) { return a.line < b.line; });
  m.lines.erase(std::unique(m.lines.begin(), m.lines.end(),
                            [](const LineOrigin& a, const LineOrigin& b) { return a.line == b.line; }),
                m.lines.end());
  return m;
}

}  // namespace opdev::codegen
