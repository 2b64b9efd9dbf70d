// DESIGN.md parsing with cmark-gfm: sections, subsections, GFM tables and fenced code blocks
// with source lines (see design_doc.h). The typed accessors are in design_views.cpp.
#include "opdev/contract/design_doc.h"

#include "contract/markdown_limits.h"
#include "contract/read_input.h"
#include "contract/text_util.h"
#include "opdev/contract/source.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

#include <cstring>
#include <memory>
#include <mutex>

namespace opdev::contract {

namespace {

// Plain text of an inline subtree: text and code spans (without backticks), breaks as spaces.
void CollectText(cmark_node* n, std::string* out) {
  for (cmark_node* c = cmark_node_first_child(n); c; c = cmark_node_next(c)) {
    switch (cmark_node_get_type(c)) {
      case CMARK_NODE_TEXT:
      case CMARK_NODE_CODE:
      case CMARK_NODE_HTML_INLINE:
        if (const char* lit = cmark_node_get_literal(c)) *out += lit;
        break;
      case CMARK_NODE_SOFTBREAK:
      case CMARK_NODE_LINEBREAK:
        *out += ' ';
        break;
      default:
        CollectText(c, out);
    }
  }
}

std::string NodeText(cmark_node* n) {
  std::string s;
  CollectText(n, &s);
  return Trim(s);
}

bool IsType(cmark_node* n, const char* type_string) {
  const char* t = cmark_node_get_type_string(n);
  return t && std::strcmp(t, type_string) == 0;
}

struct ParserDeleter {
  void operator()(cmark_parser* p) const { cmark_parser_free(p); }
};
struct NodeDeleter {
  void operator()(cmark_node* n) const { cmark_node_free(n); }
};

}  // namespace

int Table::Column(std::string_view name, bool prefix_match) const {
  for (size_t i = 0; i < headers.size(); ++i)
    if (headers[i] == name) return static_cast<int>(i);
  if (prefix_match)
    for (size_t i = 0; i < headers.size(); ++i)
      if (headers[i].find(name) != std::string::npos) return static_cast<int>(i);
  return -1;
}

std::string Table::Get(const TableRow& row, std::string_view name, bool prefix_match) const {
  int c = Column(name, prefix_match);
  if (c < 0 || c >= static_cast<int>(row.cells.size())) return {};
  return row.cells[c];
}

const Subsection* Section::FindSubsection(std::string_view title_part) const {
  std::string want = RemoveSpaces(title_part);
  for (const auto& s : subsections)
    if (RemoveSpaces(s.title).find(want) != std::string::npos) return &s;
  return nullptr;
}

const Section* DesignDoc::FindSection(int index) const {
  for (const auto& s : sections)
    if (s.index == index) return &s;
  return nullptr;
}

const Section* DesignDoc::SectionAt(int line) const {
  for (const auto& s : sections)
    if (line >= s.line && line <= s.end_line) return &s;
  return nullptr;
}

std::string DesignDoc::Lines(int from, int to) const {
  std::string out;
  for (int l = std::max(from, 1); l <= to && l <= static_cast<int>(lines.size()); ++l) {
    out += lines[l - 1];
    out += '\n';
  }
  return out;
}

namespace {
template <typename T>
std::vector<const T*> InSection(const DesignDoc& d, const std::vector<T>& items, int index,
                                std::string_view subsection) {
  std::vector<const T*> out;
  const Section* s = d.FindSection(index);
  if (!s) return out;
  const Subsection* sub = subsection.empty() ? nullptr : s->FindSubsection(subsection);
  if (!subsection.empty() && !sub) return out;
  for (const auto& t : items) {
    if (t.line < s->line || t.line > s->end_line) continue;
    if (sub && (t.line < sub->line || t.line > sub->end_line)) continue;
    out.push_back(&t);
  }
  return out;
}
}  // namespace

std::vector<const Table*> DesignDoc::TablesIn(int index, std::string_view subsection) const {
  return InSection(*this, tables, index, subsection);
}

std::vector<const CodeBlock*> DesignDoc::CodeIn(int index, std::string_view subsection) const {
  return InSection(*this, code_blocks, index, subsection);
}

const Table* DesignDoc::FindTableWithHeaders(
    std::initializer_list<std::string_view> headers) const {
  for (const auto& t : tables) {
    bool all = true;
    for (auto h : headers) all = all && t.Column(h, true) >= 0;
    if (all) return &t;
  }
  return nullptr;
}

DesignDoc ParseDesignDoc(std::string_view text, const std::string& path) {
  static std::once_flag once;
  std::call_once(once, [] { cmark_gfm_core_extensions_ensure_registered(); });

  DesignDoc doc;
  doc.path = path;
  doc.text = std::string(text);
  doc.lines = SplitLines(doc.text);
  if (auto over = CheckMarkdownLimits(doc.text)) {
    doc.limit_violation = std::move(over->message);
    doc.limit_line = over->line;
    return doc;
  }

  std::unique_ptr<cmark_parser, ParserDeleter> parser(cmark_parser_new(CMARK_OPT_DEFAULT));
  if (cmark_syntax_extension* table = cmark_find_syntax_extension("table"))
    cmark_parser_attach_syntax_extension(parser.get(), table);
  cmark_parser_feed(parser.get(), doc.text.data(), doc.text.size());
  std::unique_ptr<cmark_node, NodeDeleter> root(cmark_parser_finish(parser.get()));

  struct Heading { int level; int line; std::string title; };
  std::vector<Heading> headings;
  for (cmark_node* n = cmark_node_first_child(root.get()); n; n = cmark_node_next(n)) {
    int line = cmark_node_get_start_line(n);
    cmark_node_type type = cmark_node_get_type(n);
    if (type == CMARK_NODE_HEADING) {
      headings.push_back({cmark_node_get_heading_level(n), line, NodeText(n)});
    } else if (type == CMARK_NODE_CODE_BLOCK) {
      CodeBlock cb;
      cb.line = line;
      if (const char* info = cmark_node_get_fence_info(n)) cb.info = Trim(info);
      if (const char* lit = cmark_node_get_literal(n)) cb.text = lit;
      doc.code_blocks.push_back(std::move(cb));
    } else if (IsType(n, "table")) {
      Table t;
      t.line = line;
      for (cmark_node* r = cmark_node_first_child(n); r; r = cmark_node_next(r)) {
        // cmark-gfm names the header row "table_header", body rows "table_row".
        bool header = IsType(r, "table_header");
        if (!header && !IsType(r, "table_row")) continue;
        TableRow row;
        row.line = cmark_node_get_start_line(r);
        for (cmark_node* c = cmark_node_first_child(r); c; c = cmark_node_next(c))
          if (IsType(c, "table_cell")) row.cells.push_back(NodeText(c));
        if (header || cmark_gfm_extensions_get_table_row_is_header(r)) t.headers = row.cells;
        else t.rows.push_back(std::move(row));
      }
      doc.tables.push_back(std::move(t));
    } else if (type == CMARK_NODE_BLOCK_QUOTE) {
      // Code blocks quoted in `>` (the template's vector_selection block) still count.
      cmark_iter* it = cmark_iter_new(n);
      cmark_event_type ev;
      while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node* q = cmark_iter_get_node(it);
        if (ev == CMARK_EVENT_ENTER && cmark_node_get_type(q) == CMARK_NODE_CODE_BLOCK) {
          CodeBlock cb;
          cb.line = cmark_node_get_start_line(q);
          if (const char* info = cmark_node_get_fence_info(q)) cb.info = Trim(info);
          if (const char* lit = cmark_node_get_literal(q)) cb.text = lit;
          doc.code_blocks.push_back(std::move(cb));
        }
      }
      cmark_iter_free(it);
    }
  }

  const int last_line = static_cast<int>(doc.lines.size());
  for (size_t i = 0; i < headings.size(); ++i) {
    const Heading& h = headings[i];
    if (h.level == 2) {
      Section s;
      s.title = h.title;
      s.line = h.line;
      s.end_line = last_line;
      if (h.title.rfind("§", 0) == 0) {
        size_t p = std::strlen("§");
        size_t q = p;
        while (q < h.title.size() && std::isdigit(static_cast<unsigned char>(h.title[q]))) ++q;
        if (q > p) {
          s.index = std::atoi(h.title.substr(p, q - p).c_str());
          s.number = "§" + std::to_string(s.index);
        }
      }
      if (!doc.sections.empty()) doc.sections.back().end_line = h.line - 1;
      doc.sections.push_back(std::move(s));
    } else if (h.level > 2 && !doc.sections.empty()) {
      Subsection sub;
      sub.title = h.title;
      sub.level = h.level;
      sub.line = h.line;
      sub.end_line = last_line;
      for (size_t j = i + 1; j < headings.size(); ++j)
        if (headings[j].level <= h.level) { sub.end_line = headings[j].line - 1; break; }
      doc.sections.back().subsections.push_back(std::move(sub));
    }
  }
  for (auto& s : doc.sections)
    for (auto& sub : s.subsections) sub.end_line = std::min(sub.end_line, s.end_line);

  auto label = [&](int line, std::string* section, std::string* subsection) {
    const Section* s = doc.SectionAt(line);
    if (!s) return;
    *section = s->number.empty() ? s->title : s->number;
    const Subsection* best = nullptr;
    for (const auto& sub : s->subsections)
      if (line >= sub.line && line <= sub.end_line) best = &sub;  // innermost: the last match
    if (best) *subsection = best->title;
  };
  for (auto& t : doc.tables) label(t.line, &t.section, &t.subsection);
  for (auto& c : doc.code_blocks) label(c.line, &c.section, &c.subsection);
  return doc;
}

absl::StatusOr<DesignDoc> LoadDesignDoc(const std::string& path, Diagnostics* diags) {
  auto text = ReadContractText(path, diags);
  if (!text.ok()) return text.status();
  DesignDoc doc = ParseDesignDoc(*text, path);
  if (!doc.limit_violation.empty()) {
    if (diags)
      diags->Error(code::kInputLimit, category::kInputError, path, doc.limit_line,
                   "DESIGN.md not parsed: " + doc.limit_violation);
    return absl::InvalidArgumentError(path + ":" + std::to_string(doc.limit_line) + ": " + doc.limit_violation);
  }
  return doc;
}

}  // namespace opdev::contract
