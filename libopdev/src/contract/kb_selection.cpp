// Loader of KB_SELECTION.json (flat and split layouts) into the typed model (see kb_selection.h).
#include "opdev/contract/kb_selection.h"

#include "contract/json_fields.h"
#include "contract/read_input.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace opdev::contract {

namespace {
constexpr const char* kPrefix = "KBSEL";

void LoadRefs(JsonFields& top, const char* field, const JsonLocator& loc,
              const std::string& path, Diagnostics* diags, std::vector<KbReference>* out) {
  const boost::json::array* arr = top.Array(field);
  if (!arr) return;
  for (size_t i = 0; i < arr->size(); ++i) {
    std::string ptr = "/" + std::string(field) + "/" + std::to_string(i);
    KbReference r;
    r.selection_field = field;
    r.line = loc.Line(ptr);
    if (!(*arr)[i].is_object()) {
      if (diags) diags->Error("KBSEL-FIELD-TYPE", category::kKbSelectionInvalid, path, r.line,
                              std::string(field) + " entry " + ptr + " must be an object {path, sha256, reason}");
      continue;
    }
    JsonFields f((*arr)[i].get_object(), ptr, loc, path, diags, kPrefix,
                 category::kKbSelectionInvalid);
    r.path = f.Str("path");
    r.sha256 = f.Str("sha256");
    r.reason = f.Str("reason");
    r.field_lines = f.Lines();
    r.unknown_fields = f.Unknown({"path", "sha256", "reason"}, true);
    out->push_back(std::move(r));
  }
}
}  // namespace

int KbReference::FieldLine(const std::string& f) const {
  auto it = field_lines.find(f);
  return it == field_lines.end() ? line : it->second;
}

int KbSelection::FieldLine(const std::string& f) const {
  auto it = field_lines.find(f);
  return it == field_lines.end() ? 1 : it->second;
}

std::vector<const KbReference*> KbSelection::AllReferences() const {
  std::vector<const KbReference*> out;
  for (const auto& r : optional_patterns) out.push_back(&r);
  for (const auto& r : required_constraints) out.push_back(&r);
  return out;
}

absl::StatusOr<KbSelection> ParseKbSelection(std::string_view text, const std::string& path,
                                             const std::string& class_dir, Diagnostics* diags) {
  JsonLocator loc(text);
  auto parsed = ParseJsonContract(text, path, loc, category::kKbSelectionInvalid, kPrefix, diags);
  if (!parsed.ok()) return parsed.status();
  const auto& root = parsed->get_object();
  KbSelection sel;
  sel.path = path;
  sel.class_dir = class_dir;
  JsonFields top(root, "", loc, path, diags, kPrefix, category::kKbSelectionInvalid);
  sel.schema_version = top.Int("schema_version");
  sel.op = top.Str("op");
  sel.class_id = top.Str("class_id");
  sel.topologies = top.StrList("topologies");
  if (const auto* props = top.Object("properties")) {
    for (const auto& kv : *props)
      sel.property_lines[std::string(kv.key())] =
          loc.Line("/properties/" + JsonPointerToken(std::string(kv.key())));
  }
  LoadRefs(top, "optional_patterns", loc, path, diags, &sel.optional_patterns);
  LoadRefs(top, "required_constraints", loc, path, diags, &sel.required_constraints);
  sel.no_matching_pattern = top.Bool("no_matching_pattern");
  sel.present_fields = top.Present();
  sel.field_lines = top.Lines();
  // `failure_signatures` appeared in older plan skills; accepted. A legacy singular
  // `topology` is reported by the validator (KBSEL-LEGACY-TOPOLOGY).
  sel.unknown_fields = top.Unknown({"schema_version", "op", "class_id", "topologies", "properties",
                                    "optional_patterns", "required_constraints",
                                    "no_matching_pattern", "failure_signatures", "topology"},
                                   true, Severity::kWarning);
  return sel;
}

absl::StatusOr<KbSelection> LoadKbSelection(const std::string& path, const std::string& class_dir,
                                            Diagnostics* diags) {
  auto text = ReadContractText(path, diags);
  if (!text.ok()) return text.status();
  return ParseKbSelection(*text, path, class_dir, diags);
}

std::vector<std::pair<std::string, std::string>> FindKbSelectionFiles(const std::string& op_dir) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  fs::path flat = fs::path(op_dir) / "KB_SELECTION.json";
  if (fs::exists(flat, ec)) out.emplace_back(flat.string(), ".");
  for (fs::directory_iterator it(op_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec)) continue;
    std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.' || name == "modules") continue;
    fs::path f = it->path() / "KB_SELECTION.json";
    if (fs::exists(f, ec)) out.emplace_back(f.string(), name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace opdev::contract
