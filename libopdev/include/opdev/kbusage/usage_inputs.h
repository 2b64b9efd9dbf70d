// The frozen inputs KB usage generation and checking read, loaded once: op name, module
// count, DESIGN_BINDINGS (indexed by the identity quadruple), every class's KB_SELECTION and
// the KB root's contract_version. Also the path conventions shared by generate and check.
#pragma once

#include "opdev/contract/design_bindings.h"
#include "opdev/contract/kb_selection.h"
#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace opdev::kbusage {

// (class_id, reference, selection_field, req_id): the identity of one requirement.
struct Quad {
  std::string class_id, reference, selection_field, req_id;
  auto Tie() const { return std::tie(class_id, reference, selection_field, req_id); }
  bool operator<(const Quad& o) const { return Tie() < o.Tie(); }
  bool operator==(const Quad& o) const { return Tie() == o.Tie(); }
  std::string ToString() const;  // "<class_id> <selection_field>:<reference>#<req_id>"
};

struct IndexedRequirement {
  const contract::Binding* binding = nullptr;
  const contract::Requirement* req = nullptr;
  size_t order = 0;  // position among all requirements, file order
};

// Holds pointers into its own `bindings`: movable, not copyable.
struct UsageInputs {
  UsageInputs() = default;
  UsageInputs(UsageInputs&&) = default;
  UsageInputs& operator=(UsageInputs&&) = default;
  UsageInputs(const UsageInputs&) = delete;
  UsageInputs& operator=(const UsageInputs&) = delete;

  std::string op_dir;
  std::string op;
  std::int64_t module_count = 0;
  bool is_fusion = false;
  std::string bindings_path;
  contract::DesignBindings bindings;
  std::vector<contract::KbSelection> selections;  // one per class (flat: class_dir ".")
  std::string topology_path;
  std::int64_t contract_version = 0;
  std::map<Quad, IndexedRequirement> requirements;  // every requirement

  bool SelectionEmpty() const;  // union of selected references is empty
  const contract::KbSelection* SelectionForClass(const std::string& class_id) const;
  // Active requirements of one class, in file order.
  std::vector<std::pair<Quad, IndexedRequirement>> ActiveFor(const std::string& class_id) const;
  // Op-dir-relative KB_USAGE.json of a selection: "KB_USAGE.json" or "<class>/KB_USAGE.json".
  static std::string UsageRel(const contract::KbSelection& sel);
};

// Loads the inputs. Unusable inputs (no DESIGN_BINDINGS.json, not JSON, no selection, no
// topology-map.json or no integer contract_version) are an error status plus diagnostics;
// structural problems the loaders report (unknown fields, duplicate keys, duplicate
// requirement ids — KBU-DUP-REQ) are error diagnostics the caller must honour.
absl::StatusOr<UsageInputs> LoadUsageInputs(const std::string& op_dir, const std::string& kb_root,
                                            Diagnostics* diags);

// "custom/<op>/<rel>" for records; ParseRecordFile inverts it: returns the op-dir-relative
// path or nullopt when `file` is not under custom/<op>/.
std::string RecordFile(const std::string& op, const std::string& rel);
std::optional<std::string> ParseRecordFile(const std::string& op, const std::string& file);

// Module number k of "modules/test_<op>_module<suffix_k>.py" (a valid cumulative suffix),
// nullopt for anything else.
std::optional<std::int64_t> StagedModuleOf(const std::string& op, const std::string& rel);

}  // namespace opdev::kbusage
