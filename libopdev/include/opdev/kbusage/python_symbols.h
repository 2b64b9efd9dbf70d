// The def/class names of a produced Python file, for KB usage symbol-existence checks:
// top-level functions and classes ("softmax_wrapper"), methods ("Cls.method") and nested
// functions ("outer.inner"), plus which top-level functions are @pl.jit kernels.
#pragma once

#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <set>
#include <string>
#include <vector>

namespace opdev::kbusage {

struct PythonSymbols {
  std::string path;
  std::set<std::string> names;            // qualified def/class names
  std::vector<std::string> kernels;       // top-level defs decorated with pl.jit, in order
  bool Has(const std::string& name) const { return names.count(name) > 0; }
};

// Parses the file with pyfront. I/O errors are the status; a syntax error is an
// InvalidArgument status and a PY-SYNTAX diagnostic in `diags`.
absl::StatusOr<PythonSymbols> LoadPythonSymbols(const std::string& path, Diagnostics* diags);

// " / "-joined symbol list of a record, trimmed ("a / b" -> {"a", "b"}).
std::vector<std::string> SplitSymbolList(const std::string& symbol);

}  // namespace opdev::kbusage
