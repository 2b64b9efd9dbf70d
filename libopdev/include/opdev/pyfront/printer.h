// Printing the pyfront AST back to Python source: clean, deterministic, PEP 8-style code.
//
// Rules: 4-space indentation; two blank lines around top-level def/class, one between
// methods; a blank line after the import block and after the module docstring; spaces
// around binary and comparison operators and `=` in assignments, none around keyword `=`
// (except annotated defaults, `x: int = 1`); minimal parentheses from operator precedence;
// strings in double quotes unless the text holds a double quote and no single quote;
// numbers keep their source spelling (0x10000, 1_000, 1e-30). Comments and blank-line
// layout of the input are not kept (the AST has none); long lines are not wrapped.
// Guarantee: ParseModule(PrintModule(m)) is AstEqual to m.
#pragma once

#include "opdev/pyfront/ast.h"

#include <string>

namespace opdev::py {

struct PrintOptions {
  int indent = 4;
};

std::string PrintModule(const Module& m, const PrintOptions& opts = {});
// Statement with its body, at indentation level 0; ends with a newline.
std::string PrintStmt(const Stmt& s, const PrintOptions& opts = {});
// Expression as it would appear on its own line (no trailing newline).
std::string PrintExpr(const Expr& e);

}  // namespace opdev::py
