// The kernel file as the self-check sees it: its pyfront AST indexed by top-level function
// (jit kernel, VF functions, wrapper, tests), every import with whether it runs at module
// level, and every call with its enclosing top-level function and loop depth.
#pragma once

#include "opdev/pyfront/ast.h"
#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <string>
#include <vector>

namespace opdev::selfcheck {

struct FunctionInfo {
  const py::Stmt* def = nullptr;
  std::string name;
  std::vector<std::string> decorators;  // dotted names
  bool is_jit = false;                  // @pl.jit / @pl.jit(...)
  bool is_vf = false;                   // @pl.vector_function
  bool auto_mutex = false;              // @pl.jit(auto_mutex=True)
  bool is_test = false;                 // def test_...
  int line = 0;
};

struct ImportInfo {
  std::string module;                   // "pypto_pro.language"; for `from M import a` it is M
  std::vector<std::string> names;       // imported names (from-import) or the module itself
  std::string asname;                   // `import a.b as c`: "c"
  bool is_from = false;
  bool module_level = false;            // runs when the file is imported
  std::string function;                 // enclosing top-level function ("" at module level)
  int line = 0;
};

struct CallSite {
  const py::Expr* call = nullptr;
  std::string name;       // dotted callee ("pl.load", "torch.empty", "x.size"), "" otherwise
  std::string launched;   // `k[grid](...)` → "k"; a direct `k(...)` leaves this empty
  std::string function;   // enclosing top-level function, "" at module level
  int loop_depth = 0;     // for/while/comprehension nesting inside that function
  int line = 0;
};

struct KernelFile {
  std::string path;       // as opened
  std::string rel;        // op-dir-relative
  std::string source;
  py::Module module;
  std::vector<FunctionInfo> functions;  // top-level defs in order
  std::vector<ImportInfo> imports;
  std::vector<CallSite> calls;

  const FunctionInfo* Find(const std::string& name) const;
  std::vector<const FunctionInfo*> Jits() const;
  std::vector<const FunctionInfo*> Vfs() const;
  std::vector<const FunctionInfo*> Tests() const;
  std::vector<const CallSite*> CallsIn(const std::string& function) const;
};

// Parses and indexes. Syntax errors are returned as the status with the PY-SYNTAX finding
// in diags.
absl::StatusOr<KernelFile> LoadKernelFile(const std::string& path, const std::string& rel,
                                          Diagnostics* diags);

// Adds a finding located in the kernel file.
Diagnostic& AddFinding(Diagnostics* d, const KernelFile& f, std::string code,
                       std::string_view category, int line, std::string message,
                       std::string evidence = {});

// The source text of a line (1-based), trimmed; "" when out of range.
std::string LineText(const KernelFile& f, int line);

}  // namespace opdev::selfcheck
