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

}  // namespace opdev::codegen
