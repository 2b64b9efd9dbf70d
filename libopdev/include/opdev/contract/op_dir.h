// An op dir (`custom/<op>/`) as Stage 4 reads it: every frozen contract that is present,
// loaded into its model, plus the KB root with topology-map.json. One call,
// LoadOpDir(), gives the planner, codegen, budget and KB-usage stages the same view.
#pragma once

#include "opdev/contract/design_bindings.h"
#include "opdev/contract/design_doc.h"
#include "opdev/contract/kb_selection.h"
#include "opdev/contract/module_interfaces.h"
#include "opdev/contract/topology_map.h"
#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <optional>
#include <string>
#include <vector>

namespace opdev::contract {

struct OpDir {
  std::string dir;      // op dir as given
  std::string op;       // from module_interfaces `op`, else KB_SELECTION `op`, else DESIGN op_name
  std::string kb_root;  // resolved KB root ("" when none was found)
  std::optional<DesignDoc> design;                   // DESIGN.md
  std::optional<DesignBindings> bindings;            // DESIGN_BINDINGS.json
  std::optional<ModuleInterfaces> modules;           // module_interfaces.yaml
  std::vector<KbSelection> selections;               // flat: one with class_dir "."; split: one per class
  std::optional<TopologyMap> topology;               // <kb_root>/topology-map.json

  // Every selected reference across the classes.
  std::vector<const KbReference*> AllReferences() const;
  bool IsSplit() const;  // any selection with class_dir != "."
};

struct LoadOptions {
  // KB root; empty = resolve with ResolveKbRoot(dir, "").
  std::string kb_root;
};

// The KB root search used when none is given: (1) `explicit_root` when not empty;
// (2) the environment variable OPDEV_KB_ROOT; (3) walking up from the op dir, the first
// ancestor A with `A/../shared/fixtures/kb/topology-map.json` or `A/kb/topology-map.json`.
// Returns "" when nothing is found.
std::string ResolveKbRoot(const std::string& op_dir, const std::string& explicit_root);

// Loads what is present. The call itself fails (status) only when `dir` is not a readable
// directory or an explicitly given KB root does not exist (KB-ROOT-MISSING). Missing or broken
// files are diagnostics (CONTRACT-FILE-MISSING, CONTRACT-FILE-UNREADABLE, JSON-SYNTAX, ...);
// symlinks leading outside the op dir are refused (CONTRACT-SYMLINK-ESCAPE) and not read.
// Never writes anything.
absl::StatusOr<OpDir> LoadOpDir(const std::string& dir, const LoadOptions& opts, Diagnostics* diags);

}  // namespace opdev::contract
