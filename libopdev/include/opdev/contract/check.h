// Validation of a loaded op dir: the stage-3 contract rules Stage 4 relies on before any code
// is written (issue #2 item 6, reference/pypto-pro-contracts.md §2–§4.3). Every rule has a
// stable diagnostic code and a failure category from the verifier vocabulary; ContractRules()
// lists them (docs/contract.md shows the same table). Findings are collected, never thrown.
#pragma once

#include "opdev/contract/op_dir.h"
#include "opdev/support/diagnostic.h"
#include "opdev/support/target.h"

#include "absl/status/status.h"

#include <string>
#include <string_view>
#include <vector>

namespace opdev::contract {

struct CheckOptions {
  Target target = Target::kA5;  // capacities for the high-water rule
  bool verify_kb_files = true;  // check that selected KB files exist and their sha256
};

struct RuleInfo {
  std::string_view code;
  std::string_view category;
  std::string_view summary;
};

// Every diagnostic code the loaders and the validator can emit, sorted by code.
const std::vector<RuleInfo>& ContractRules();
const RuleInfo* FindRule(std::string_view code);

// Runs every rule on `od` and appends the findings to `diags` (then sorts them).
void CheckOpDir(const OpDir& od, const CheckOptions& opts, Diagnostics* diags);

// Loads (LoadOpDir) and checks in one call. The status is not OK only when the op dir itself
// or an explicitly given KB root cannot be used; everything else is a diagnostic.
absl::Status CheckOpDirPath(const std::string& dir, const LoadOptions& load,
                            const CheckOptions& opts, Diagnostics* diags);

// True when a finding means the input could not be read at all (category input_error):
// `opdev check` exits 2 for those, 1 for other errors.
bool HasInputErrors(const Diagnostics& diags);

}  // namespace opdev::contract
