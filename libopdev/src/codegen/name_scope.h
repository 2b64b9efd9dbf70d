// Name resolution over a function body in source order, as PyPTO-Pro's tracer sees it:
// which names are read before any binding (free names: VF parameters, or undefined names),
// and which names are read after the loop that bound them has ended (the DSL scopes loop
// bodies, so such a read sees a loop-local value or fails to compile).
#pragma once

#include "opdev/pyfront/ast.h"

#include <set>
#include <string>
#include <vector>

namespace opdev::codegen {

struct NameUse {
  std::string name;
  int line = 0;
  int col = 0;
  int def_line = 0;  // loop escapes: the line of the binding inside the ended loop
};

struct NameScope {
  std::vector<NameUse> free;          // first read of each name read before it was bound
  std::vector<NameUse> loop_escapes;  // first read of each loop-scoped name after its loop
  std::set<std::string> bound;        // every name bound in the body
};

// `globals`: names visible without a binding (module constants, pl, vf, builtins, ...).
// `params`: names bound on entry.
NameScope AnalyzeNames(const std::vector<py::StmtPtr>& body, const std::set<std::string>& globals,
                       const std::set<std::string>& params);

// Python builtins a kernel file may read.
const std::set<std::string>& PythonBuiltins();

}  // namespace opdev::codegen
