// DESIGN_BINDINGS.json: the frozen list of KB requirements and where DESIGN.md puts them
// (reference/pypto-pro-contracts.md §3.2). Loaded with Boost.JSON; every binding, requirement
// and field keeps its source line. Shape problems (missing/mistyped/unknown fields) are
// reported as Diagnostics while the model keeps what could be read; semantic rules (allowed
// kind/status pairs, selection agreement, planned_location) live in check.h.
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

struct Requirement {
  std::string req_id;                       // "R01"
  std::string kind;                         // obligation | precondition | validation_scope
  std::string status;                       // applies | met | not_triggered
  std::vector<std::string> source_anchors;  // "heading path > item label"
  std::string class_evidence;
  std::string invariant;
  std::string planned_location;
  std::string verification_method;
  std::vector<std::string> present_fields;  // field names present in the input, in order
  std::vector<UnknownField> unknown_fields;
  int line = 0;                             // line of the requirement object
  std::map<std::string, int> field_lines;   // field name -> line

  // Active = obligation + applies: the requirements Stage 4 must implement and record.
  bool IsActive() const { return kind == "obligation" && status == "applies"; }
  bool Has(std::string_view field) const;
  int FieldLine(const std::string& field) const;  // falls back to `line`
};

struct Binding {
  std::string class_id;         // "." in the flat layout
  std::string selection_field;  // optional_patterns | required_constraints
  std::string reference;        // KB path, equal to the selection entry's `path`
  std::string selection_reason; // equal to the selection entry's `reason`
  std::vector<Requirement> requirements;
  std::vector<std::string> present_fields;
  std::vector<UnknownField> unknown_fields;
  int line = 0;
  std::map<std::string, int> field_lines;

  bool Has(std::string_view field) const;
  int FieldLine(const std::string& field) const;
};

struct DesignBindings {
  std::string path;  // as given to the loader
  std::optional<std::int64_t> schema_version;  // must be 1
  std::vector<Binding> bindings;
  std::vector<UnknownField> unknown_fields;
  int schema_version_line = 0;
  int bindings_line = 0;

  // All active requirements with their binding, in file order.
  std::vector<std::pair<const Binding*, const Requirement*>> ActiveRequirements() const;
};

// Reads and parses `path`. Returns a non-OK status (and adds a diagnostic) when the file is
// missing or unreadable (NotFound / FailedPrecondition / ResourceExhausted / DataLoss) or is
// not JSON (InvalidArgument, JSON-SYNTAX with the line of the error). Otherwise returns the
// model; structural findings (BINDINGS-FIELD-*, JSON-DUPLICATE-KEY) are added to `diags`.
absl::StatusOr<DesignBindings> LoadDesignBindings(const std::string& path, Diagnostics* diags);
// Same on text already read; `path` is only used in diagnostics.
absl::StatusOr<DesignBindings> ParseDesignBindings(std::string_view text, const std::string& path,
                                                   Diagnostics* diags);

}  // namespace opdev::contract
