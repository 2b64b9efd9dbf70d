// KB_SELECTION.json: the KB references Stage 1 selected for one class
// (reference/pypto-pro-contracts.md §2.1). Two layouts: flat (`<op_dir>/KB_SELECTION.json`,
// class_id ".") and split (`<op_dir>/<class>/KB_SELECTION.json`, class_id "<class>").
#pragma once

#include "opdev/contract/source.h"
#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::contract {

struct KbReference {
  std::string selection_field;  // "optional_patterns" or "required_constraints"
  std::string path;             // relative to the KB root, e.g. "patterns/online-softmax-tail.md"
  std::string sha256;           // "sha256:<64 lowercase hex>" as recorded
  std::string reason;
  std::vector<UnknownField> unknown_fields;
  int line = 0;                 // line of the entry object
  std::map<std::string, int> field_lines;
  int FieldLine(const std::string& field) const;
};

struct KbSelection {
  std::string path;       // file path as loaded
  std::string class_dir;  // "." for the flat layout, else the class directory name
  std::optional<std::int64_t> schema_version;  // must equal topology contract_version
  std::string op;
  std::string class_id;
  std::vector<std::string> topologies;
  std::map<std::string, int> property_lines;   // property key -> line (values not modelled)
  std::vector<KbReference> optional_patterns;
  std::vector<KbReference> required_constraints;
  std::optional<bool> no_matching_pattern;     // nullopt when missing or not a JSON bool
  std::vector<std::string> present_fields;
  std::vector<UnknownField> unknown_fields;
  std::map<std::string, int> field_lines;      // top-level member -> line
  int FieldLine(const std::string& field) const;

  // optional_patterns then required_constraints.
  std::vector<const KbReference*> AllReferences() const;
};

// Loads one KB_SELECTION.json; `class_dir` is "." (flat) or the split class directory name.
// Errors as for LoadDesignBindings; field problems become KBSEL-FIELD-* diagnostics.
absl::StatusOr<KbSelection> LoadKbSelection(const std::string& path, const std::string& class_dir,
                                            Diagnostics* diags);
absl::StatusOr<KbSelection> ParseKbSelection(std::string_view text, const std::string& path,
                                             const std::string& class_dir, Diagnostics* diags);

// The selection files of an op dir: `<op_dir>/KB_SELECTION.json` (flat) and every
// `<op_dir>/<class>/KB_SELECTION.json` (split), as (path, class_dir) pairs sorted by path.
std::vector<std::pair<std::string, std::string>> FindKbSelectionFiles(const std::string& op_dir);

}  // namespace opdev::contract
