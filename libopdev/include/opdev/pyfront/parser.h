// Parsing Python 3.11 source into the pyfront AST (ast.h). Syntax errors never crash or
// throw: they become Diagnostic records (code PY-SYNTAX, category input_error) with the
// file, 1-based line and column, and the call returns an InvalidArgument status.
//
//   opdev::Diagnostics diags;
//   absl::StatusOr<opdev::py::Module> mod =
//       opdev::py::ParseModule(source, "custom/softmax/test_softmax.py", &diags);
//   if (!mod.ok()) { /* diags holds "file:line:col: error[PY-SYNTAX]: ..." */ }
#pragma once

#include "opdev/pyfront/ast.h"
#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <string>
#include <string_view>

namespace opdev::py {

// Diagnostic codes produced by the parser.
inline constexpr std::string_view kSyntaxError = "PY-SYNTAX";        // invalid Python
inline constexpr std::string_view kUnsupportedSyntax = "PY-UNSUPPORTED";  // newer than 3.11
inline constexpr std::string_view kIndentError = "PY-INDENT";        // indentation errors
inline constexpr std::string_view kTooDeep = "PY-TOO-DEEP";          // nesting limit hit

struct ParseOptions {
  // Maximum nesting of brackets/expressions/blocks before the parser gives up with
  // PY-TOO-DEEP (CPython's own limits are of the same order); protects the stack.
  int max_depth = 200;
};

// Parses a whole module. On success diags is untouched; on failure it receives one error
// (parsing stops at the first syntax error, as CPython does) and the status is
// InvalidArgument with the same "file:line:col: message" text.
absl::StatusOr<Module> ParseModule(std::string_view source, std::string filename,
                                   Diagnostics* diags, const ParseOptions& opts = {});

// Reads `path` (opdev::ReadTextFile limits: 16 MiB, UTF-8) and parses it. I/O failures are
// returned as the status (NotFound, DataLoss, ...) without a diagnostic.
absl::StatusOr<Module> ParseFile(const std::string& path, Diagnostics* diags,
                                 const ParseOptions& opts = {});

// Parses a single expression (as `eval` input; surrounding whitespace allowed).
absl::StatusOr<ExprPtr> ParseExpression(std::string_view source, std::string filename,
                                        Diagnostics* diags, const ParseOptions& opts = {});

}  // namespace opdev::py
