// DESIGN_BINDINGS.json rules (reference §3.2, verifier stage3 #12): schema, the four allowed
// kind/status pairs, complete active requirements, unique keys, bindings [] iff the selection
// is empty, binding triples equal to the selection triples (both ways) with equal reasons, and
// every active planned_location found in DESIGN.md.
#include "contract/checks.h"
#include "contract/text_util.h"

#include <map>
#include <set>
#include <tuple>

namespace opdev::contract {

namespace {

bool AllowedPair(const std::string& kind, const std::string& status) {
  return (kind == "precondition" && status == "met") ||
         (kind == "obligation" && (status == "applies" || status == "not_triggered")) ||
         (kind == "validation_scope" && status == "applies");
}

// Section numbers cited as "§N" (N = 0…99) in `s`, with "§N.M" read as §N.
std::vector<int> CitedSections(const std::string& s) {
  std::vector<int> out;
  const std::string mark = "§";
  for (size_t p = s.find(mark); p != std::string::npos; p = s.find(mark, p + 1)) {
    size_t q = p + mark.size();
    size_t e = q;
    while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e]))) ++e;
    if (e > q) out.push_back(std::atoi(s.substr(q, e - q).c_str()));
  }
  return out;
}

void CheckPlannedLocation(const DesignDoc& design, const DesignBindings& db, const Binding& b,
                          const Requirement& r, Diagnostics* diags) {
  int line = r.FieldLine("planned_location");
  std::string who = b.reference + " " + r.req_id;
  auto cited = CitedSections(r.planned_location);
  if (cited.empty()) {
    // No § cited: accept when the text names a DESIGN heading verbatim.
    bool named = false;
    std::string pl = RemoveSpaces(r.planned_location);
    for (const auto& s : design.sections) {
      named = named || (!s.title.empty() && Contains(pl, RemoveSpaces(s.title)));
      for (const auto& sub : s.subsections)
        named = named || (sub.title.size() > 3 && Contains(pl, RemoveSpaces(sub.title)));
    }
    if (!named)
      AddError(diags, "BINDINGS-PLANNED-LOCATION", category::kDesignViolation, db.path, line, "",
               who + ": planned_location names no DESIGN.md location (no §N and no heading)",
               r.planned_location);
    return;
  }
  for (int n : cited)
    if (!design.FindSection(n))
      AddError(diags, "BINDINGS-PLANNED-LOCATION", category::kDesignViolation, db.path, line,
               "§" + std::to_string(n),
               who + ": planned_location cites §" + std::to_string(n) +
                   ", which DESIGN.md does not have",
               r.planned_location);
}

}  // namespace

void CheckBindings(const OpDir& od, const CheckOptions&, Diagnostics* diags) {
  if (!od.bindings) return;
  const DesignBindings& db = *od.bindings;
  const std::string& f = db.path;
  if (db.schema_version && *db.schema_version != 1)
    AddError(diags, "BINDINGS-SCHEMA-VERSION", category::kDesignViolation, f,
             db.schema_version_line, "",
             "schema_version must be 1, found " + std::to_string(*db.schema_version));

  using Triple = std::tuple<std::string, std::string, std::string>;
  std::map<Triple, const Binding*> seen_bindings;
  std::set<std::tuple<std::string, std::string, std::string, std::string>> seen_reqs;
  for (const auto& b : db.bindings) {
    if (!b.selection_field.empty() && b.selection_field != "optional_patterns" &&
        b.selection_field != "required_constraints")
      AddError(diags, "BINDINGS-SELECTION-FIELD", category::kDesignViolation, f,
               b.FieldLine("selection_field"), "",
               "selection_field must be 'optional_patterns' or 'required_constraints'",
               b.selection_field);
    Triple t{b.class_id, b.selection_field, b.reference};
    if (!seen_bindings.emplace(t, &b).second)
      AddError(diags, "BINDINGS-DUPLICATE-BINDING", category::kDesignViolation, f, b.line, "",
               "binding (" + b.class_id + ", " + b.selection_field + ", " + b.reference +
                   ") appears more than once");
    bool has_active = false;
    for (const auto& r : b.requirements) {
      std::string who = b.reference + " " + r.req_id;
      if (!r.kind.empty() && !r.status.empty() && !AllowedPair(r.kind, r.status))
        AddError(diags, "BINDINGS-KIND-STATUS", category::kDesignViolation, f,
                 r.FieldLine("status"), "",
                 who + ": kind/status pair '" + r.kind + "/" + r.status +
                     "' is not allowed (precondition/met, obligation/applies, "
                     "obligation/not_triggered, validation_scope/applies)");
      if (!seen_reqs.emplace(b.class_id, b.selection_field, b.reference, r.req_id).second)
        AddError(diags, "BINDINGS-DUPLICATE-REQ", category::kDesignViolation, f,
                 r.FieldLine("req_id"), "",
                 "requirement key (" + b.class_id + ", " + b.selection_field + ", " + b.reference +
                     ", " + r.req_id + ") is not unique");
      if (!r.IsActive()) continue;
      has_active = true;
      for (const char* fld : {"invariant", "planned_location", "verification_method"}) {
        const std::string& v = std::string(fld) == "invariant" ? r.invariant
                               : std::string(fld) == "planned_location" ? r.planned_location
                                                                        : r.verification_method;
        if (Trim(v).empty() && r.Has(fld))
          AddError(diags, "BINDINGS-ACTIVE-INCOMPLETE", category::kDesignViolation, f,
                   r.FieldLine(fld), "", who + ": active requirement has an empty " + fld);
      }
      if (r.source_anchors.empty() && r.Has("source_anchors"))
        AddError(diags, "BINDINGS-ACTIVE-INCOMPLETE", category::kDesignViolation, f,
                 r.FieldLine("source_anchors"), "", who + ": active requirement has no source_anchors");
      if (od.design && !Trim(r.planned_location).empty())
        CheckPlannedLocation(*od.design, db, b, r, diags);
    }
    if (!has_active && !b.requirements.empty())
      AddError(diags, "BINDINGS-NO-ACTIVE", category::kDesignViolation, f, b.line, "",
               "binding " + b.reference + " has no active requirement (kind obligation, status applies)");
  }

  // Agreement with the selection.
  if (od.selections.empty()) return;
  std::map<Triple, const KbReference*> selected;
  for (const auto& s : od.selections)
    for (const auto* r : s.AllReferences())
      selected.emplace(Triple{s.class_id, r->selection_field, r->path}, r);
  if (selected.empty() != db.bindings.empty())
    AddError(diags, "BINDINGS-EMPTY-MISMATCH", category::kDesignViolation, f, db.bindings_line, "",
             selected.empty() ? "the selection is empty, so bindings must be []"
                              : "bindings is [] but the selection names " +
                                    std::to_string(selected.size()) + " reference(s)");
  if (db.bindings.empty()) return;
  for (const auto& [t, b] : seen_bindings) {
    auto it = selected.find(t);
    if (it == selected.end()) {
      AddError(diags, "BINDINGS-NOT-SELECTED", category::kDesignViolation, f, b->line, "",
               "binding (" + std::get<0>(t) + ", " + std::get<1>(t) + ", " + std::get<2>(t) +
                   ") matches no KB_SELECTION entry");
      continue;
    }
    if (b->Has("selection_reason") && b->selection_reason != it->second->reason)
      AddError(diags, "BINDINGS-REASON-MISMATCH", category::kDesignViolation, f,
               b->FieldLine("selection_reason"), "",
               "selection_reason of " + b->reference + " differs from the KB_SELECTION reason");
  }
  for (const auto& s : od.selections)
    for (const auto* r : s.AllReferences())
      if (!seen_bindings.count(Triple{s.class_id, r->selection_field, r->path}))
        AddError(diags, "BINDINGS-MISSING-BINDING", category::kDesignViolation, s.path, r->line, "",
                 "selected reference " + r->path + " (" + r->selection_field +
                     ") has no binding in DESIGN_BINDINGS.json");
}

}  // namespace opdev::contract
