// Loading and indexing the frozen inputs of KB usage generation and checking.
#include "opdev/kbusage/usage_inputs.h"

#include "opdev/contract/module_interfaces.h"
#include "opdev/contract/topology_map.h"
#include "opdev/plan/naming.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace opdev::kbusage {

std::string Quad::ToString() const {
  return class_id + " " + selection_field + ":" + reference + "#" + req_id;
}

bool UsageInputs::SelectionEmpty() const {
  for (const auto& s : selections)
    if (!s.AllReferences().empty()) return false;
  return true;
}

const contract::KbSelection* UsageInputs::SelectionForClass(const std::string& class_id) const {
  for (const auto& s : selections)
    if (s.class_id == class_id) return &s;
  return nullptr;
}

std::vector<std::pair<Quad, IndexedRequirement>> UsageInputs::ActiveFor(
    const std::string& class_id) const {
  std::vector<std::pair<Quad, IndexedRequirement>> out;
  for (const auto& [q, r] : requirements)
    if (q.class_id == class_id && r.req->IsActive()) out.emplace_back(q, r);
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.second.order < b.second.order; });
  return out;
}

std::string UsageInputs::UsageRel(const contract::KbSelection& sel) {
  return sel.class_dir == "." ? "KB_USAGE.json" : sel.class_dir + "/KB_USAGE.json";
}

std::string RecordFile(const std::string& op, const std::string& rel) {
  return plan::WorkspacePath(op, rel);
}

std::optional<std::string> ParseRecordFile(const std::string& op, const std::string& file) {
  std::string prefix = "custom/" + op + "/";
  if (file.rfind(prefix, 0) != 0 || file.size() == prefix.size()) return std::nullopt;
  std::string rel = file.substr(prefix.size());
  fs::path norm = fs::path(rel).lexically_normal();
  if (norm.is_absolute() || norm.string() != rel || rel.find("..") != std::string::npos)
    return std::nullopt;
  return rel;
}

std::optional<std::int64_t> StagedModuleOf(const std::string& op, const std::string& rel) {
  std::string prefix = "modules/test_" + op + "_module";
  if (rel.rfind(prefix, 0) != 0 || rel.size() < prefix.size() + 4) return std::nullopt;
  if (rel.substr(rel.size() - 3) != ".py") return std::nullopt;
  std::string suffix = rel.substr(prefix.size(), rel.size() - prefix.size() - 3);
  for (std::int64_t k = 1; k <= 64; ++k) {
    std::string s = plan::ModuleSuffix(k);
    if (s == suffix) return k;
    if (s.size() > suffix.size()) break;
  }
  return std::nullopt;
}

absl::StatusOr<UsageInputs> LoadUsageInputs(const std::string& op_dir, const std::string& kb_root,
                                            Diagnostics* diags) {
  Diagnostics local;
  Diagnostics& d = diags ? *diags : local;
  UsageInputs in;
  in.op_dir = op_dir;
  std::error_code ec;
  if (!fs::is_directory(op_dir, ec)) {
    d.Error("KBU-INPUT", category::kInputError, op_dir, 0, "op dir is not a directory");
    return absl::NotFoundError("op dir not found: " + op_dir);
  }

  // module_interfaces.yaml: op and module count (optional for checking).
  std::string mi_path = (fs::path(op_dir) / "module_interfaces.yaml").string();
  if (fs::exists(mi_path, ec)) {
    Diagnostics mid;
    auto mi = contract::LoadModuleInterfaces(mi_path, &mid);
    if (mi.ok()) {
      in.op = mi->op;
      in.module_count = mi->module_count.value_or(static_cast<std::int64_t>(mi->modules.size()));
      in.is_fusion = mi->is_fusion.value_or(false);
    }
  }

  // Selections.
  for (const auto& [path, class_dir] : contract::FindKbSelectionFiles(op_dir)) {
    auto sel = contract::LoadKbSelection(path, class_dir, &d);
    if (!sel.ok()) return sel.status();
    in.selections.push_back(std::move(*sel));
  }
  if (in.selections.empty()) {
    d.Error("KBU-NO-SELECTION", category::kKbSelectionInvalid, op_dir, 0,
            "no KB_SELECTION.json (flat) or <class>/KB_SELECTION.json (split) in the op dir");
    return absl::FailedPreconditionError("no KB selection");
  }
  for (const auto& s : in.selections) {
    if (in.op.empty()) in.op = s.op;
    if (s.op != in.op) {
      d.Error("KBU-OP-MISMATCH", category::kKbSelectionInvalid, s.path, s.FieldLine("op"),
              "selection op '" + s.op + "' differs from the op '" + in.op + "'");
    }
    std::string expected_class = s.class_dir;
    if (s.class_id != expected_class) {
      d.Error("KBU-CLASS-ID", category::kKbSelectionInvalid, s.path, s.FieldLine("class_id"),
              "class_id '" + s.class_id + "' does not match its layout (expected '" +
                  expected_class + "')");
    }
  }
  if (in.op.empty()) {
    d.Error("KBU-NO-OP", category::kInputError, op_dir, 0, "the operator name is unknown");
    return absl::FailedPreconditionError("no op name");
  }

  // Topology map.
  in.topology_path = (fs::path(kb_root) / "topology-map.json").string();
  auto topo = contract::LoadTopologyMap(in.topology_path, &d);
  if (!topo.ok()) return topo.status();
  if (!topo->contract_version) {
    d.Error("KBU-CONTRACT-VERSION", category::kKbSelectionInvalid, in.topology_path,
            topo->contract_version_line,
            "topology-map.json has no integer contract.contract_version; schema_version "
            "cannot be set");
    return absl::FailedPreconditionError("no contract_version");
  }
  in.contract_version = *topo->contract_version;

  // Bindings.
  in.bindings_path = (fs::path(op_dir) / "DESIGN_BINDINGS.json").string();
  auto b = contract::LoadDesignBindings(in.bindings_path, &d);
  if (!b.ok()) return b.status();
  in.bindings = std::move(*b);
  size_t order = 0;
  for (const auto& bind : in.bindings.bindings) {
    for (const auto& r : bind.requirements) {
      Quad q{bind.class_id, bind.reference, bind.selection_field, r.req_id};
      IndexedRequirement ir{&bind, &r, order++};
      if (!in.requirements.emplace(q, ir).second) {
        d.Error("KBU-DUP-REQ", category::kDesignViolation, in.bindings_path, r.FieldLine("req_id"),
                "duplicate requirement " + q.ToString() +
                    ": the quadruple must be unique, records could not be told apart")
            .evidence = r.req_id;
      }
    }
  }
  return in;
}

}  // namespace opdev::kbusage
