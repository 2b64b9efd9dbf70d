// Small AST helpers for codegen: statement iteration, building nodes from Python snippets,
// and in-place expression rewriting over ASTs codegen owns.
#pragma once

#include "opdev/pyfront/ast.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::codegen {

// Pre-order over every statement of `body` and the bodies nested in it.
void ForEachStmt(const std::vector<py::StmtPtr>& body,
                 const std::function<void(const py::Stmt&)>& fn);
// Every Call in `body`, in source order.
void ForEachCallIn(const std::vector<py::StmtPtr>& body,
                   const std::function<void(const py::Expr&)>& fn);

// Parses generated Python; the snippet is produced by codegen itself, so a failure is a
// programming error reported through the returned empty vector.
std::vector<py::StmtPtr> ParseSnippet(const std::string& source);
py::StmtPtr ParseOneStmt(const std::string& source);
py::ExprPtr ParseExpr(const std::string& source);

// Assignments `NAME = <call>` anywhere in body: (name, call expr, statement).
struct CallAssignment {
  std::string name;
  const py::Expr* call = nullptr;
  const py::Stmt* stmt = nullptr;
};
std::vector<CallAssignment> CallAssignments(const std::vector<py::StmtPtr>& body);

// Python text built line by line by a skeleton; every generated line remembers the DESIGN line
// it stands for, so findings on the built AST point into DESIGN.
class LineMappedSource {
 public:
  void Add(int indent, const std::string& text, int design_line);
  const std::string& text() const { return text_; }
  int DesignLine(int generated) const;

 private:
  std::string text_;
  std::vector<int> lines_;
};
// Rewrites every span of `m` (parsed from `src.text()`) to the DESIGN lines.
void RemapLines(py::Module& m, const LineMappedSource& src);

// Name tokens for fuzzy matching: "in_tile" -> {"in", "tile"}.
std::vector<std::string> NameTokens(std::string_view name);

}  // namespace opdev::codegen
