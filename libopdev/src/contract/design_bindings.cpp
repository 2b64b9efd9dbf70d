// Loader of DESIGN_BINDINGS.json into the typed model (see design_bindings.h).
#include "opdev/contract/design_bindings.h"

#include "contract/json_fields.h"
#include "contract/read_input.h"

#include <algorithm>

namespace opdev::contract {

namespace {
constexpr const char* kPrefix = "BINDINGS";

int LineOr(const std::map<std::string, int>& lines, const std::string& f, int fallback) {
  auto it = lines.find(f);
  return it == lines.end() ? fallback : it->second;
}
}  // namespace

bool Requirement::Has(std::string_view f) const {
  return std::find(present_fields.begin(), present_fields.end(), f) != present_fields.end();
}
int Requirement::FieldLine(const std::string& f) const { return LineOr(field_lines, f, line); }
bool Binding::Has(std::string_view f) const {
  return std::find(present_fields.begin(), present_fields.end(), f) != present_fields.end();
}
int Binding::FieldLine(const std::string& f) const { return LineOr(field_lines, f, line); }

std::vector<std::pair<const Binding*, const Requirement*>> DesignBindings::ActiveRequirements()
    const {
  std::vector<std::pair<const Binding*, const Requirement*>> out;
  for (const auto& b : bindings)
    for (const auto& r : b.requirements)
      if (r.IsActive()) out.emplace_back(&b, &r);
  return out;
}

absl::StatusOr<DesignBindings> ParseDesignBindings(std::string_view text, const std::string& path,
                                                   Diagnostics* diags) {
  JsonLocator loc(text);
  auto parsed = ParseJsonContract(text, path, loc, category::kDesignViolation, kPrefix, diags);
  if (!parsed.ok()) return parsed.status();
  const auto& root = parsed->get_object();
  DesignBindings db;
  db.path = path;
  JsonFields top(root, "", loc, path, diags, kPrefix, category::kDesignViolation);
  db.schema_version = top.Int("schema_version");
  db.schema_version_line = top.Line("schema_version");
  db.bindings_line = top.Line("bindings");
  db.unknown_fields = top.Unknown({"schema_version", "bindings"}, true);
  const boost::json::array* arr = top.Array("bindings");
  if (!arr) return db;
  for (size_t i = 0; i < arr->size(); ++i) {
    std::string bptr = "/bindings/" + std::to_string(i);
    const auto& bv = (*arr)[i];
    Binding b;
    b.line = loc.Line(bptr);
    if (!bv.is_object()) {
      if (diags) diags->Error("BINDINGS-FIELD-TYPE", category::kDesignViolation, path, b.line,
                              "binding " + bptr + " must be an object");
      continue;
    }
    JsonFields bf(bv.get_object(), bptr, loc, path, diags, kPrefix, category::kDesignViolation);
    b.class_id = bf.Str("class_id");
    b.selection_field = bf.Str("selection_field");
    b.reference = bf.Str("reference");
    b.selection_reason = bf.Str("selection_reason");
    b.present_fields = bf.Present();
    b.field_lines = bf.Lines();
    b.unknown_fields = bf.Unknown(
        {"class_id", "selection_field", "reference", "selection_reason", "requirements"}, true);
    if (const boost::json::array* reqs = bf.Array("requirements")) {
      for (size_t j = 0; j < reqs->size(); ++j) {
        std::string rptr = bptr + "/requirements/" + std::to_string(j);
        Requirement r;
        r.line = loc.Line(rptr);
        if (!(*reqs)[j].is_object()) {
          if (diags) diags->Error("BINDINGS-FIELD-TYPE", category::kDesignViolation, path, r.line,
                                  "requirement " + rptr + " must be an object");
          continue;
        }
        JsonFields rf((*reqs)[j].get_object(), rptr, loc, path, diags, kPrefix,
                      category::kDesignViolation);
        r.req_id = rf.Str("req_id");
        r.kind = rf.Str("kind");
        r.status = rf.Str("status");
        r.source_anchors = rf.StrList("source_anchors");
        r.class_evidence = rf.Str("class_evidence");
        r.invariant = rf.Str("invariant");
        r.planned_location = rf.Str("planned_location");
        r.verification_method = rf.Str("verification_method");
        r.present_fields = rf.Present();
        r.field_lines = rf.Lines();
        r.unknown_fields = rf.Unknown({"req_id", "kind", "source_anchors", "status",
                                       "class_evidence", "invariant", "planned_location",
                                       "verification_method"},
                                      true);
        b.requirements.push_back(std::move(r));
      }
    }
    db.bindings.push_back(std::move(b));
  }
  return db;
}

absl::StatusOr<DesignBindings> LoadDesignBindings(const std::string& path, Diagnostics* diags) {
  auto text = ReadContractText(path, diags);
  if (!text.ok()) return text.status();
  return ParseDesignBindings(*text, path, diags);
}

}  // namespace opdev::contract
