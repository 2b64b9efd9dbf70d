// Where a kernel line sits: the function around it and its enclosing `for` loops, each with
// its position among the sibling loops of the same body ("the 3rd loop of softmax_rows_vf",
// which a DESIGN calls pass 3). Triage uses it to name the loop whose stores are wrong and to
// tie hazards to that loop.
#pragma once

#include "opdev/pyfront/ast.h"

#include <string>
#include <vector>

namespace opdev::triage {

struct LoopContext {
  int line = 0, end_line = 0;  // span of the `for`/`while` statement
  int index = 0;               // 1-based among the loops of the same body
  int siblings = 0;            // loops in that body
  std::string target;          // loop variable ("r"), when a simple name
};

struct LineContext {
  std::string function;               // innermost def containing the line ("" at module level)
  int function_line = 0, function_end = 0;
  std::vector<LoopContext> loops;     // outermost first
  // "loop 3 of 3 (line 140, over r) in softmax_rows_vf", or "" when not in a loop.
  std::string Describe() const;
  // The innermost loop, or nullptr.
  const LoopContext* Innermost() const { return loops.empty() ? nullptr : &loops.back(); }
};

LineContext DescribeLine(const py::Module& module, int line);

}  // namespace opdev::triage
