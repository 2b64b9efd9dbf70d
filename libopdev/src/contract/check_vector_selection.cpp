// §1 vector_selection rules: every Vector step froze `implementation` vf|tile_op and
// `decision_reason` default_vf|kb_template_required; tile_op only with kb_template_required
// and evidence citing a selected KB reference (reference §3.4, verifier stage3 #10).
#include "contract/checks.h"
#include "contract/text_util.h"

#include <filesystem>

namespace opdev::contract {

namespace {

// A row whose API sequence only moves data (pl.load/pl.store, load_align/store_align, ...)
// is not a Vector compute step.
bool IsDataMovementOnly(const VectorSelection& v) {
  std::string s = v.api_sequence;
  static const char* kMoves[] = {"pl.load_tile", "pl.store_tile", "pl.load", "pl.store",
                                 "vf.load_align", "vf.store_align", "load_align", "store_align",
                                 "pl.move", "pl.copy"};
  bool any = false;
  for (const char* m : kMoves) {
    size_t p;
    while ((p = s.find(m)) != std::string::npos) { s.erase(p, std::string(m).size()); any = true; }
  }
  return any && !Contains(s, "vf.") && !Contains(s, "pl.");
}

}  // namespace

void CheckVectorSelection(const OpDir& od, const CheckOptions&, Diagnostics* diags) {
  if (!od.design) return;
  const DesignDoc& d = *od.design;
  auto sels = d.VectorSelections();
  bool has_vector = false;
  for (const auto& m : d.Modules()) has_vector = has_vector || Contains(m.section, "vector");
  if (od.modules)
    for (const auto& m : od.modules->modules) has_vector = has_vector || NormalizeSection(m.section) == "vector";
  if (sels.empty()) {
    if (has_vector && d.FindSection(1))
      AddError(diags, "DESIGN-VSEL-MISSING", category::kIncompleteStructure, d.path,
               d.FindSection(1)->line, "§1",
               "a Vector Module exists but §1 freezes no vector_selection (table with "
               "step | implementation | api_sequence | decision_reason | kb_template_evidence | ...)");
    return;
  }
  for (const auto& v : sels) {
    bool impl_ok = v.implementation == "vf" || v.implementation == "tile_op";
    if (!impl_ok) {
      if (IsDataMovementOnly(v))
        AddWarning(diags, "DESIGN-VSEL-NONCOMPUTE", category::kDesignViolation, d.path, v.line,
                   "§1",
                   "step '" + v.step + "' only moves data (not a Vector compute step) and its "
                   "implementation '" + v.implementation + "' is outside vf|tile_op",
                   v.api_sequence);
      else
        AddError(diags, "DESIGN-VSEL-IMPLEMENTATION", category::kDesignViolation, d.path, v.line,
                 "§1", "step '" + v.step + "': implementation must be 'vf' or 'tile_op'",
                 v.implementation);
    }
    if (v.decision_reason != "default_vf" && v.decision_reason != "kb_template_required") {
      AddError(diags, "DESIGN-VSEL-REASON", category::kDesignViolation, d.path, v.line, "§1",
               "step '" + v.step + "': decision_reason must be 'default_vf' or 'kb_template_required'",
               v.decision_reason);
      continue;
    }
    if (v.implementation == "tile_op") {
      bool cited = false;
      for (const auto* r : od.AllReferences()) {
        std::string base = std::filesystem::path(r->path).filename().string();
        std::string stem = std::filesystem::path(r->path).stem().string();
        cited = cited || Contains(v.kb_template_evidence, r->path) ||
                Contains(v.kb_template_evidence, base) || Contains(v.kb_template_evidence, stem);
      }
      if (v.decision_reason != "kb_template_required" || !cited)
        AddError(diags, "DESIGN-VSEL-TILEOP-EVIDENCE", category::kDesignViolation, d.path, v.line,
                 "§1",
                 "step '" + v.step + "': tile_op is allowed only with decision_reason "
                 "kb_template_required and kb_template_evidence quoting a selected KB reference",
                 v.kb_template_evidence);
    } else if (v.implementation == "vf" && v.decision_reason == "kb_template_required") {
      AddError(diags, "DESIGN-VSEL-REASON", category::kDesignViolation, d.path, v.line, "§1",
               "step '" + v.step + "': implementation vf contradicts decision_reason "
               "kb_template_required (a required KB template means tile_op)",
               v.decision_reason);
    }
  }
}

}  // namespace opdev::contract
