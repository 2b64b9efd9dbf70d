// Extraction of DESIGN §1 / §2.1 code into line-preserving pyfront ASTs.
#include "design_code.h"

#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"

#include "absl/strings/str_split.h"

#include <cctype>
#include <regex>

namespace opdev::codegen {
namespace {

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> out = absl::StrSplit(text, '\n');
  if (!out.empty() && out.back().empty()) out.pop_back();
  for (auto& l : out)
    if (!l.empty() && l.back() == '\r') l.pop_back();
  return out;
}

size_t Indent(const std::string& l) {
  size_t i = 0;
  while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i;
  return i;
}

bool Blank(const std::string& l) { return Indent(l) == l.size(); }

std::string Trim(const std::string& l) {
  size_t b = Indent(l), e = l.size();
  while (e > b && std::isspace(static_cast<unsigned char>(l[e - 1]))) --e;
  return l.substr(b, e - b);
}

// A prose label such as "Module 1 — softmax_vf_row_reduce (section_vector, ...):".
bool IsLabelLine(const std::string& l) {
  static const std::regex kLabel(R"(^\s*Module\s*\d+\b.*$)");
  return std::regex_match(l, kLabel);
}

// Builds source whose line i is DESIGN line i: `first_line` is the DESIGN line of lines[0].
std::string Positioned(const std::vector<std::string>& lines, int first_line, size_t dedent,
                       const std::vector<bool>& keep) {
  std::string src(static_cast<size_t>(first_line - 1), '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    if (keep[i] && !Blank(lines[i]))
      src += lines[i].size() >= dedent ? lines[i].substr(dedent) : Trim(lines[i]);
    src += '\n';
  }
  return src;
}

void SyntaxFinding(const Diagnostics& parse, const std::string& file, const std::string& section,
                   const std::vector<std::string>& design_lines, Diagnostics* diags) {
  for (const Diagnostic& p : parse.items()) {
    Diagnostic d = p;
    d.code = "CODEGEN-DESIGN-SYNTAX";
    d.category = std::string(category::kDesignViolation);
    d.file = file;
    d.section = section;
    d.message = "DESIGN code does not parse as Python: " + p.message;
    if (p.line >= 1 && static_cast<size_t>(p.line) <= design_lines.size())
      d.evidence = Trim(design_lines[p.line - 1]);
    diags->Add(std::move(d));
  }
}

std::optional<py::Module> ParsePositioned(const std::string& src, const std::string& file,
                                          const std::string& section,
                                          const std::vector<std::string>& design_lines,
                                          Diagnostics* diags) {
  Diagnostics parse;
  auto m = py::ParseModule(src, file, &parse);
  if (!m.ok()) {
    if (parse.empty())
      diags->Error("CODEGEN-DESIGN-SYNTAX", category::kDesignViolation, file, 0,
                   "DESIGN code does not parse: " + std::string(m.status().message()));
    SyntaxFinding(parse, file, section, design_lines, diags);
    return std::nullopt;
  }
  return std::move(*m);
}

std::string DecoratorText(const py::Stmt& def, std::string_view dotted) {
  for (const auto& d : def.decorator_list)
    if (py::DecoratorName(*d) == dotted) return py::PrintExpr(*d);
  return "";
}

// Region header: a comment at the block's base indentation naming a kernel or VF.
struct Header {
  RegionKind kind;
  std::string name;
  std::string decorator;
};

std::optional<Header> ParseHeader(const std::string& trimmed) {
  if (trimmed.empty() || trimmed[0] != '#') return std::nullopt;
  static const std::regex kVf(R"(@pl\.vector_function\s+([A-Za-z_][A-Za-z0-9_]*))");
  static const std::regex kJit(R"(@(pl\.jit(\([^()]*\))?))");
  std::smatch m;
  if (std::regex_search(trimmed, m, kVf)) return Header{RegionKind::kVectorFunction, m[1], ""};
  if (std::regex_search(trimmed, m, kJit)) return Header{RegionKind::kKernel, "", m[1]};
  if (trimmed.find("常量") != std::string::npos ||
      trimmed.find("onstant") != std::string::npos)
    return Header{RegionKind::kConstants, "", ""};
  return std::nullopt;
}

}  // namespace

std::string Dedent(const std::string& text) {
  auto lines = SplitLines(text);
  size_t common = std::string::npos;
  for (const auto& l : lines)
    if (!Blank(l)) common = std::min(common, Indent(l));
  if (common == std::string::npos) common = 0;
  std::string out;
  for (const auto& l : lines) {
    out += Blank(l) ? "" : l.substr(common);
    out += '\n';
  }
  return out;
}

const CodeRegion* DesignCode::Kernel() const {
  for (const auto& r : regions)
    if (r.kind == RegionKind::kKernel) return &r;
  return nullptr;
}

std::vector<const CodeRegion*> DesignCode::VectorFunctions() const {
  std::vector<const CodeRegion*> out;
  for (const auto& r : regions)
    if (r.kind == RegionKind::kVectorFunction) out.push_back(&r);
  return out;
}

const CodeRegion* DesignCode::ConstantsRegion() const {
  for (const auto& r : regions)
    if (r.kind == RegionKind::kConstants) return &r;
  return nullptr;
}

void ReportNoKernelCode(const contract::DesignDoc& design, Diagnostics* diags) {
  diags->Error("CODEGEN-NO-KERNEL-CODE", category::kDesignViolation, design.path,
               design.FindSection(1) ? design.FindSection(1)->line : 0,
               "DESIGN §1 gives no kernel code (no `# ... @pl.jit ...` region and no "
               "@pl.jit def) and no vf API chain (vector_selection api_sequence) to build a "
               "pure-vec skeleton from: nothing to generate")
      .section = "§1";
}

std::optional<DesignCode> ExtractDesignCode(const contract::DesignDoc& design,
                                            Diagnostics* diags, bool require_kernel) {
  DesignCode out;
  const std::string& file = design.path;
  bool failed = false;

  // §2.1 constants.
  if (const contract::CodeBlock* cb = design.ConstantsCode()) {
    auto lines = SplitLines(cb->text);
    std::vector<bool> keep(lines.size(), true);
    size_t common = std::string::npos;
    for (const auto& l : lines)
      if (!Blank(l)) common = std::min(common, Indent(l));
    if (common == std::string::npos) common = 0;
    auto m = ParsePositioned(Positioned(lines, cb->line + 1, common, keep), file, "§2.1",
                             design.lines, diags);
    if (!m)
      failed = true;
    else
      out.constants = std::move(*m);
    out.constants_line = cb->line;
    out.constants_text = Dedent(cb->text);
  } else {
    diags->Error("CODEGEN-NO-CONSTANTS", category::kDesignViolation, file, 0,
                 "DESIGN §2.1 has no constants code block: the module constants cannot be "
                 "transcribed")
        .section = "§2.1";
    failed = true;
  }

  // §1 code blocks.
  for (const contract::CodeBlock* cb : design.CodeIn(1)) {
    auto lines = SplitLines(cb->text);
    std::vector<bool> code_line(lines.size(), true);
    for (size_t i = 0; i < lines.size(); ++i)
      if (IsLabelLine(lines[i])) code_line[i] = false;
    size_t base = std::string::npos;
    for (size_t i = 0; i < lines.size(); ++i)
      if (code_line[i] && !Blank(lines[i])) base = std::min(base, Indent(lines[i]));
    if (base == std::string::npos) continue;
    const int first = cb->line + 1;

    // Headers at the base indentation.
    std::vector<std::pair<size_t, Header>> headers;
    for (size_t i = 0; i < lines.size(); ++i)
      if (code_line[i] && !Blank(lines[i]) && Indent(lines[i]) == base)
        if (auto h = ParseHeader(Trim(lines[i]))) headers.push_back({i, *h});

    if (headers.empty()) {
      // Complete Python with decorated defs?
      Diagnostics probe;
      auto m = py::ParseModule(Positioned(lines, first, base, code_line), file, &probe);
      if (!m.ok()) continue;  // prose or pseudo-code without kernel markers: not ours
      bool any = false;
      for (auto& st : m->body) {
        if (!st->Is(py::StmtKind::kFunctionDef)) continue;
        std::string jit = DecoratorText(*st, "pl.jit");
        std::string vf = DecoratorText(*st, "pl.vector_function");
        if (jit.empty() && vf.empty()) continue;
        any = true;
        CodeRegion r;
        r.kind = jit.empty() ? RegionKind::kVectorFunction : RegionKind::kKernel;
        r.name = st->name;
        r.decorator = jit.empty() ? vf : jit;
        r.line = st->span.line;
        r.from_def = true;
        for (const auto& a : st->args->args) {
          r.params.push_back(a.arg);
          r.param_annotations.push_back(a.annotation ? py::PrintExpr(*a.annotation) : "");
        }
        r.ast.filename = file;
        r.ast.body = std::move(st->body);
        out.regions.push_back(std::move(r));
      }
      if (any) {
        CodeRegion c;
        c.kind = RegionKind::kConstants;
        c.line = cb->line;
        c.ast.filename = file;
        for (auto& st : m->body)
          if (st && st->Is(py::StmtKind::kAssign)) c.ast.body.push_back(std::move(st));
        if (!c.ast.body.empty()) out.regions.push_back(std::move(c));
      }
      continue;
    }

    for (size_t h = 0; h < headers.size(); ++h) {
      const size_t from = headers[h].first;
      const size_t to = h + 1 < headers.size() ? headers[h + 1].first : lines.size();
      std::vector<bool> keep(lines.size(), false);
      for (size_t i = from + 1; i < to; ++i) keep[i] = code_line[i];
      auto m = ParsePositioned(Positioned(lines, first, base, keep), file, "§1", design.lines,
                               diags);
      if (!m) {
        failed = true;
        continue;
      }
      CodeRegion r;
      r.kind = headers[h].second.kind;
      r.name = headers[h].second.name;
      r.decorator = headers[h].second.decorator;
      r.line = first + static_cast<int>(from);
      r.ast = std::move(*m);
      out.regions.push_back(std::move(r));
    }
  }

  int kernels = 0;
  for (const auto& r : out.regions)
    if (r.kind == RegionKind::kKernel) ++kernels;
  if (kernels == 0 && !failed && require_kernel) {
    ReportNoKernelCode(design, diags);
    failed = true;
  }
  if (kernels > 1) {
    const CodeRegion* second = nullptr;
    int seen = 0;
    for (const auto& r : out.regions)
      if (r.kind == RegionKind::kKernel && ++seen == 2) second = &r;
    diags->Error("CODEGEN-MULTIPLE-KERNELS", category::kDesignViolation, file,
                 second ? second->line : 0,
                 "DESIGN §1 gives more than one @pl.jit kernel; a delivered file holds "
                 "exactly one")
        .section = "§1";
    failed = true;
  }
  if (failed) return std::nullopt;
  return out;
}

}  // namespace opdev::codegen
