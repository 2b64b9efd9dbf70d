// `opdev budget` as a library call: the on-chip budget of a kernel file, of an op dir's
// DESIGN §3 map, or of both with their comparison. For an op dir the kernel is its
// test_<op>.py when present; a kernel file is compared with the DESIGN.md beside it (or the
// one given).
#pragma once

#include "opdev/budget/budget_check.h"
#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <optional>
#include <string>

namespace opdev::budget {

struct FileBudget {
  std::string kernel_path;                // "" when only the DESIGN map was budgeted
  std::string design_path;                // "" when no DESIGN was used
  std::optional<BudgetReport> kernel;     // budget of the kernel file
  std::optional<BudgetReport> design;     // budget of the DESIGN §3 map
  Diagnostics comparison;                 // kernel vs §3 (BUDGET-MAP-MISMATCH)
  Diagnostics inputs;                     // parse/unresolved findings of the inputs
  // The report shown first: the kernel when present, else the DESIGN map.
  const BudgetReport& primary() const { return kernel ? *kernel : *design; }
  bool ok() const;
  boost::json::object ToJson() const;
};

// `path`: a kernel .py file or an op dir. `design_path`: "" = auto (DESIGN.md beside the
// kernel / in the op dir), "-" = none. Errors (status) only for unreadable or unusable
// inputs: a missing path, a directory without DESIGN.md or kernel, a file that is not Python.
absl::StatusOr<FileBudget> BudgetPath(const std::string& path, Target target,
                                      const std::string& design_path = "");

}  // namespace opdev::budget
