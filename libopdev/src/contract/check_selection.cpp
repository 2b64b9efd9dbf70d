// KB_SELECTION.json rules (reference §2.1/§2.3): schema_version = topology contract_version,
// class_id per layout, known topologies and properties, reasons, path namespaces, the
// no_matching_pattern flag, and each selected KB file present at the KB root with the
// recorded sha256.
#include "contract/checks.h"
#include "contract/text_util.h"

#include "opdev/support/file_io.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;

namespace opdev::contract {

namespace {

bool IsSha256Ref(const std::string& s) {
  const std::string p = "sha256:";
  if (s.rfind(p, 0) != 0 || s.size() != p.size() + 64) return false;
  return std::all_of(s.begin() + p.size(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

void CheckReferenceFile(const OpDir& od, const KbSelection& s, const KbReference& r,
                        Diagnostics* diags) {
  if (od.kb_root.empty() || r.path.empty()) return;
  fs::path file = fs::path(od.kb_root) / r.path;
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    AddError(diags, "KBSEL-REF-MISSING", category::kKbSelectionInvalid, s.path,
             r.FieldLine("path"), "",
             "selected KB reference " + r.path + " does not exist under the KB root " + od.kb_root);
    return;
  }
  if (!IsSha256Ref(r.sha256)) return;  // KBSEL-SHA256-FORMAT already
  auto bytes = ReadTextFile(file.string(), ReadOptions{kMaxInputFileBytes, false});
  if (!bytes.ok()) {
    AddError(diags, "KBSEL-REF-MISSING", category::kKbSelectionInvalid, s.path,
             r.FieldLine("path"), "",
             "selected KB reference " + r.path + " cannot be read: " +
                 std::string(bytes.status().message()));
    return;
  }
  std::string actual = "sha256:" + Sha256Hex(*bytes);
  if (actual != r.sha256)
    AddError(diags, "KBSEL-SHA256-MISMATCH", category::kKbSelectionInvalid, s.path,
             r.FieldLine("sha256"), "",
             "stale sha256 for " + r.path + ": the KB file hashes to " + actual,
             r.sha256);
}

}  // namespace

void CheckSelections(const OpDir& od, const CheckOptions& opts, Diagnostics* diags) {
  for (const auto& s : od.selections) {
    const std::string& f = s.path;
    if (s.schema_version && od.topology && od.topology->contract_version &&
        *s.schema_version != *od.topology->contract_version)
      AddError(diags, "KBSEL-SCHEMA-VERSION", category::kKbSelectionInvalid, f,
               s.FieldLine("schema_version"), "",
               "schema_version " + std::to_string(*s.schema_version) +
                   " differs from topology-map contract.contract_version " +
                   std::to_string(*od.topology->contract_version));
    std::string want_class = s.class_dir == "." ? "." : s.class_dir;
    if (!s.class_id.empty() && s.class_id != want_class)
      AddError(diags, "KBSEL-CLASS-ID", category::kKbSelectionInvalid, f, s.FieldLine("class_id"),
               "",
               s.class_dir == "."
                   ? "a flat selection (<op_dir>/KB_SELECTION.json) must have class_id \".\""
                   : "a split selection in " + s.class_dir + "/ must have class_id \"" +
                         s.class_dir + "\"",
               s.class_id);
    if (od.modules && !od.modules->op.empty() && !s.op.empty() && s.op != od.modules->op)
      AddError(diags, "KBSEL-OP-MISMATCH", category::kKbSelectionInvalid, f, s.FieldLine("op"), "",
               "op '" + s.op + "' differs from module_interfaces.yaml op '" + od.modules->op + "'");
    if (std::find(s.present_fields.begin(), s.present_fields.end(), "topology") !=
        s.present_fields.end())
      AddError(diags, "KBSEL-LEGACY-TOPOLOGY", category::kKbSelectionInvalid, f,
               s.FieldLine("topology"), "",
               "legacy field 'topology' is not allowed (contract v3 uses the 'topologies' array)");
    std::set<std::string> topo_seen;
    for (const auto& t : s.topologies) {
      if (!topo_seen.insert(t).second)
        AddError(diags, "KBSEL-TOPOLOGY-UNKNOWN", category::kKbSelectionInvalid, f,
                 s.FieldLine("topologies"), "", "duplicate topology '" + t + "'");
      else if (od.topology && !od.topology->topologies.empty() &&
               !std::binary_search(od.topology->topologies.begin(), od.topology->topologies.end(), t))
        AddError(diags, "KBSEL-TOPOLOGY-UNKNOWN", category::kKbSelectionInvalid, f,
                 s.FieldLine("topologies"), "",
                 "topology '" + t + "' is not a key of topology-map.json topologies");
    }
    if (od.topology && !od.topology->property_keys.empty())
      for (const auto& [k, line] : s.property_lines)
        if (std::find(od.topology->property_keys.begin(), od.topology->property_keys.end(), k) ==
            od.topology->property_keys.end())
          AddError(diags, "KBSEL-PROPERTY-UNKNOWN", category::kKbSelectionInvalid, f, line, "",
                   "property '" + k + "' is not in topology-map contract.property_keys");
    if (s.no_matching_pattern) {
      bool has_patterns = !s.optional_patterns.empty();
      if (*s.no_matching_pattern == has_patterns)
        AddError(diags, "KBSEL-NO-MATCHING-PATTERN", category::kKbSelectionInvalid, f,
                 s.FieldLine("no_matching_pattern"), "",
                 has_patterns ? "no_matching_pattern is true but patterns are selected"
                              : "no_matching_pattern is false but no pattern is selected");
    }
    std::set<std::string> seen;
    for (const auto* r : s.AllReferences()) {
      if (Trim(r->reason).empty())
        AddError(diags, "KBSEL-REASON-EMPTY", category::kKbSelectionInvalid, f,
                 r->FieldLine("reason"), "", "reason must be non-empty for " + r->path);
      std::string ns = r->selection_field == "optional_patterns" ? "patterns/" : "constraints/";
      bool bad_path = r->path.empty() || r->path[0] == '/' || Contains(r->path, "..") ||
                      Contains(r->path, "\\") || r->path.rfind(ns, 0) != 0;
      if (bad_path && !r->path.empty()) {
        AddError(diags, "KBSEL-PATH-INVALID", category::kKbSelectionInvalid, f,
                 r->FieldLine("path"), "",
                 r->selection_field + " path must be a relative path under " + ns +
                     " (it escapes its namespace)",
                 r->path);
      }
      if (!seen.insert(r->path).second)
        AddError(diags, "KBSEL-DUPLICATE-REF", category::kKbSelectionInvalid, f,
                 r->FieldLine("path"), "", "reference " + r->path + " is selected twice");
      if (!r->sha256.empty() && !IsSha256Ref(r->sha256))
        AddError(diags, "KBSEL-SHA256-FORMAT", category::kKbSelectionInvalid, f,
                 r->FieldLine("sha256"), "",
                 "sha256 must be \"sha256:\" followed by 64 lowercase hex digits", r->sha256);
      if (opts.verify_kb_files && !bad_path) CheckReferenceFile(od, s, *r, diags);
    }
  }
}

}  // namespace opdev::contract
