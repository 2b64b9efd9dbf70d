// AST helpers for codegen.
#include "ast_util.h"

#include "opdev/pyfront/parser.h"

#include <cctype>

namespace opdev::codegen {

void ForEachStmt(const std::vector<py::StmtPtr>& body,
                 const std::function<void(const py::Stmt&)>& fn) {
  for (const auto& s : body) {
    if (!s) continue;
    fn(*s);
    ForEachStmt(s->body, fn);
    ForEachStmt(s->orelse, fn);
    ForEachStmt(s->finalbody, fn);
    for (const auto& h : s->handlers) ForEachStmt(h.body, fn);
    for (const auto& c : s->cases) ForEachStmt(c.body, fn);
  }
}

void ForEachCallIn(const std::vector<py::StmtPtr>& body,
                   const std::function<void(const py::Expr&)>& fn) {
  for (const auto& s : body)
    if (s) py::ForEachCall(*s, fn);
}

std::vector<py::StmtPtr> ParseSnippet(const std::string& source) {
  Diagnostics d;
  auto m = py::ParseModule(source, "<codegen>", &d);
  if (!m.ok()) return {};
  return std::move(m->body);
}

py::StmtPtr ParseOneStmt(const std::string& source) {
  auto v = ParseSnippet(source);
  if (v.empty()) return nullptr;
  return std::move(v.front());
}

py::ExprPtr ParseExpr(const std::string& source) {
  Diagnostics d;
  auto e = py::ParseExpression(source, "<codegen>", &d);
  if (!e.ok()) return nullptr;
  return std::move(*e);
}

std::vector<CallAssignment> CallAssignments(const std::vector<py::StmtPtr>& body) {
  std::vector<CallAssignment> out;
  ForEachStmt(body, [&](const py::Stmt& s) {
    if (!s.Is(py::StmtKind::kAssign) || !s.value) return;
    if (s.targets.size() != 1 || !s.targets[0]->Is(py::ExprKind::kName)) return;
    if (!s.value->Is(py::ExprKind::kCall)) return;
    out.push_back({s.targets[0]->id, s.value.get(), &s});
  });
  return out;
}

std::vector<std::string> NameTokens(std::string_view name) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : name) {
    if (c == '_' || !std::isalnum(static_cast<unsigned char>(c))) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

void LineMappedSource::Add(int indent, const std::string& text, int design_line) {
  text_ += std::string(static_cast<size_t>(indent) * 4, ' ') + text + "\n";
  lines_.push_back(design_line);
}

int LineMappedSource::DesignLine(int generated) const {
  if (generated < 1 || static_cast<size_t>(generated) > lines_.size()) return 0;
  return lines_[generated - 1];
}

void RemapLines(py::Module& m, const LineMappedSource& src) {
  struct V : py::AstVisitor {
    const LineMappedSource* src;
    void Fix(const py::Span& s) {
      py::Span& w = const_cast<py::Span&>(s);
      int l = src->DesignLine(w.line), e = src->DesignLine(w.end_line);
      w.line = l;
      w.end_line = e ? e : l;
    }
    bool EnterStmt(const py::Stmt& s) override {
      Fix(s.span);
      return true;
    }
    bool EnterExpr(const py::Expr& e) override {
      Fix(e.span);
      for (const auto& k : e.keywords) Fix(k.span);
      return true;
    }
  } v;
  v.src = &src;
  py::Walk(m, v);
}

}  // namespace opdev::codegen
