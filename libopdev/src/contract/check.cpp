// The contract validator's driver and its table of rules (see check.h).
#include "opdev/contract/check.h"

#include "contract/checks.h"

#include <algorithm>
#include <filesystem>

namespace opdev::contract {

namespace c = category;

const std::vector<RuleInfo>& ContractRules() {
  static const std::vector<RuleInfo> rules = [] {
    std::vector<RuleInfo> r = {
        // Files and syntax.
        {"CONTRACT-FILE-MISSING", c::kMissingFile, "a required contract file (DESIGN.md, DESIGN_BINDINGS.json, module_interfaces.yaml, KB_SELECTION.json) or the op dir is missing"},
        {"CONTRACT-FILE-UNREADABLE", c::kInputError, "a contract file is a directory, not a regular file, over 16 MiB, or not UTF-8"},
        {"CONTRACT-SYMLINK-ESCAPE", c::kInputError, "a contract file is a symlink leading outside the op dir (not read)"},
        {"CONTRACT-OPTIONAL-MISSING", c::kMissingFile, "SPEC.md or EXPLORE_REPORT.md is absent (warning)"},
        {"KB-ROOT-MISSING", c::kInputError, "no KB root found, or the given KB root is not a directory"},
        {"JSON-SYNTAX", c::kInputError, "malformed JSON (line of the parse error)"},
        {"JSON-DUPLICATE-KEY", c::kDesignViolation, "a JSON object repeats a member (category of the file's owner)"},
        {"YAML-SYNTAX", c::kInputError, "malformed YAML (line of the parser mark)"},
        {"CONTRACT-INPUT-LIMIT", c::kInputError, "a contract file exceeds an explicit input bound (JSON nested deeper than 64; DESIGN.md over 4 MiB, a line over 64 KiB, a table row over 128 cells, over 4096 '[' in one paragraph, block nesting over 32); not parsed further"},
        // DESIGN.md structure.
        {"DESIGN-SECTION-COUNT", c::kIncompleteStructure, "DESIGN.md does not have exactly 11 '## §' sections"},
        {"DESIGN-SECTION-MISSING", c::kIncompleteStructure, "one of §0…§10 is missing (reported at the heading standing in its place)"},
        {"DESIGN-SECTION-DUPLICATE", c::kIncompleteStructure, "a § section appears twice"},
        {"DESIGN-SECTION-ORDER", c::kIncompleteStructure, "a § section is out of order"},
        {"DESIGN-SECTION-UNKNOWN", c::kIncompleteStructure, "a '## §N' with N > 10"},
        {"DESIGN-PLACEHOLDER", c::kIncompleteStructure, "待定 / TBD / TODO left in the frozen design"},
        {"DESIGN-WRAPPER-BOUNDARY", c::kDesignViolation, "the body of 'Wrapper 边界外操作' is not exactly 空"},
        {"DESIGN-WRAPPER-BOUNDARY-MISSING", c::kIncompleteStructure, "§0 has no 'Wrapper 边界外操作' subsection"},
        {"DESIGN-TABLE-MISSING", c::kIncompleteStructure, "a required table (§0 Module 列表, §2 Tile 属性表, §3 地址映射表, §8 case 表) is missing"},
        {"DESIGN-CASES-TOO-FEW", c::kIncompleteStructure, "§8 lists fewer than 4 test_ cases"},
        {"DESIGN-CASE-DUPLICATE", c::kDesignViolation, "a §8 case name is listed twice"},
        {"DESIGN-EVAL-FAILED", c::kDesignViolation, "§9 records a ❌"},
        {"DESIGN-DATAFLOW-INCOMPLETE", c::kIncompleteStructure, "§10 does not show load_tile/store_tile"},
        {"DESIGN-REFERENCE-SAMPLE-MISSING", c::kIncompleteStructure, "§4 names no 参考样例"},
        {"DESIGN-TILE-GROUP-MISSING", c::kDesignViolation, "the design never uses make_tile_group"},
        {"DESIGN-OPNAME-MISSING", c::kIncompleteStructure, "no op_name line under 算子名称"},
        {"DESIGN-OPNAME-MISMATCH", c::kDesignViolation, "op_name differs from module_interfaces.yaml op"},
        // vector_selection.
        {"DESIGN-VSEL-MISSING", c::kIncompleteStructure, "a Vector Module exists but §1 freezes no vector_selection"},
        {"DESIGN-VSEL-IMPLEMENTATION", c::kDesignViolation, "a Vector step's implementation is not vf|tile_op"},
        {"DESIGN-VSEL-NONCOMPUTE", c::kDesignViolation, "a data-movement-only row uses an implementation outside vf|tile_op (warning)"},
        {"DESIGN-VSEL-REASON", c::kDesignViolation, "decision_reason is not default_vf|kb_template_required, or contradicts the implementation"},
        {"DESIGN-VSEL-TILEOP-EVIDENCE", c::kDesignViolation, "tile_op without kb_template_required and evidence citing a selected KB reference"},
        // Memory.
        {"DESIGN-ADDR-UNPARSABLE", c::kDesignViolation, "a §3 address row lacks a known space or integer start/slot bytes/slots/end"},
        {"DESIGN-ADDR-RANGE", c::kDesignViolation, "end ≠ start + slot bytes × slots (half-open ranges)"},
        {"DESIGN-ADDR-ALIGN", c::kDesignViolation, "a start (or later slot) is not aligned for its space (Vec/Mat 32 B, Left/Right 512 B, Acc 64 B)"},
        {"DESIGN-ADDR-OVERLAP", c::kDesignViolation, "two coexisting tiles of one space overlap"},
        {"DESIGN-ADDR-CAPACITY", c::kDesignViolation, "a space's high-water exceeds the target's capacity"},
        {"DESIGN-HIGHWATER-MISMATCH", c::kDesignViolation, "the stated high-water differs from the map's maximum end"},
        {"DESIGN-HIGHWATER-CAPACITY", c::kDesignViolation, "the stated capacity differs from the target's (warning)"},
        {"DESIGN-SLOT-BYTES", c::kDesignViolation, "§3 slot bytes ≠ shape × dtype size"},
        {"DESIGN-TILE-BYTES", c::kDesignViolation, "§2 tile size ≠ shape × dtype size"},
        {"DESIGN-TILE-ADDR-MISMATCH", c::kDesignViolation, "a §2 tile and its §3 entries disagree (bytes, shape, dtype, space) or the tile has no §3 entry"},
        {"DESIGN-GROUP-DEPTH", c::kDesignViolation, "a TileGroup's depth differs from the slots §3 lists for it"},
        {"DESIGN-MUTEX-RANGE", c::kDesignViolation, "a mutex id is outside [0, 31]"},
        {"DESIGN-MUTEX-DUPLICATE", c::kDesignViolation, "a mutex id is used by two TileGroup slots"},
        {"DESIGN-EVENT-RANGE", c::kDesignViolation, "a §6 event_id is outside [0, 16)"},
        // Cube Modules.
        {"DESIGN-CUBE-SPACE-MISSING", c::kDesignViolation, "a section_cube Module's §2 Tile 属性表 has no Left, Right or Acc tile"},
        {"DESIGN-CUBE-OPERAND-SPACE", c::kDesignViolation, "a §1 pl.matmul/pl.matmul_acc operand is not in its space (lhs→Left, rhs→Right, dst/acc→Acc)"},
        {"DESIGN-CUBE-ACC-FRACTAL", c::kDesignViolation, "an Acc tile's M×N×dtype bytes is below the 1024-byte L0C fractal"},
        {"DESIGN-CUBE-TILE-ALIGN", c::kDesignViolation, "a Mat/Left/Right/Acc tile shape is not a whole number of fractals (16 rows; K of 32 B / dtype size)"},
        {"DESIGN-CUBE-BLOCK-DIM", c::kDesignViolation, "§5 block_dim is not capped by core_num for a kernel with a Cube section (or by vector_core_num for a Vector-only one)"},
        // DESIGN_BINDINGS.json.
        {"BINDINGS-FIELD-MISSING", c::kDesignViolation, "a required field of the root, a binding or a requirement is missing"},
        {"BINDINGS-FIELD-TYPE", c::kDesignViolation, "a field has the wrong JSON type"},
        {"BINDINGS-FIELD-UNKNOWN", c::kDesignViolation, "a field outside the schema (no other fields are allowed)"},
        {"BINDINGS-SCHEMA-VERSION", c::kDesignViolation, "schema_version is not 1"},
        {"BINDINGS-SELECTION-FIELD", c::kDesignViolation, "selection_field is not optional_patterns|required_constraints"},
        {"BINDINGS-KIND-STATUS", c::kDesignViolation, "kind/status pair outside precondition/met, obligation/applies, obligation/not_triggered, validation_scope/applies"},
        {"BINDINGS-ACTIVE-INCOMPLETE", c::kDesignViolation, "an active requirement has an empty invariant, planned_location, verification_method or source_anchors"},
        {"BINDINGS-NO-ACTIVE", c::kDesignViolation, "a binding has no obligation/applies requirement"},
        {"BINDINGS-DUPLICATE-REQ", c::kDesignViolation, "(class_id, selection_field, reference, req_id) is not unique"},
        {"BINDINGS-DUPLICATE-BINDING", c::kDesignViolation, "a binding triple appears twice"},
        {"BINDINGS-EMPTY-MISMATCH", c::kDesignViolation, "bindings is [] but the selection is not empty, or the reverse"},
        {"BINDINGS-NOT-SELECTED", c::kDesignViolation, "a binding matches no KB_SELECTION entry"},
        {"BINDINGS-MISSING-BINDING", c::kDesignViolation, "a selected reference has no binding"},
        {"BINDINGS-REASON-MISMATCH", c::kDesignViolation, "selection_reason differs from the selection's reason"},
        {"BINDINGS-PLANNED-LOCATION", c::kDesignViolation, "an active planned_location cites a § DESIGN.md lacks, or no DESIGN location"},
        // KB_SELECTION.json and the KB.
        {"KBSEL-FIELD-MISSING", c::kKbSelectionInvalid, "a required field is missing"},
        {"KBSEL-FIELD-TYPE", c::kKbSelectionInvalid, "a field has the wrong JSON type (no_matching_pattern must be a JSON boolean)"},
        {"KBSEL-FIELD-UNKNOWN", c::kKbSelectionInvalid, "a field outside the v3 schema (warning)"},
        {"KBSEL-SCHEMA-VERSION", c::kKbSelectionInvalid, "schema_version ≠ topology-map contract.contract_version"},
        {"KBSEL-CLASS-ID", c::kKbSelectionInvalid, "class_id is not \".\" (flat) or the class directory (split)"},
        {"KBSEL-OP-MISMATCH", c::kKbSelectionInvalid, "op differs from module_interfaces.yaml op"},
        {"KBSEL-LEGACY-TOPOLOGY", c::kKbSelectionInvalid, "the v2 field 'topology' is present"},
        {"KBSEL-TOPOLOGY-UNKNOWN", c::kKbSelectionInvalid, "a topology is duplicated or not a topology-map key"},
        {"KBSEL-PROPERTY-UNKNOWN", c::kKbSelectionInvalid, "a property key is not in contract.property_keys"},
        {"KBSEL-NO-MATCHING-PATTERN", c::kKbSelectionInvalid, "no_matching_pattern disagrees with the selected patterns"},
        {"KBSEL-REASON-EMPTY", c::kKbSelectionInvalid, "a reference has an empty reason"},
        {"KBSEL-PATH-INVALID", c::kKbSelectionInvalid, "a path is absolute, contains .., or leaves patterns/ resp. constraints/"},
        {"KBSEL-DUPLICATE-REF", c::kKbSelectionInvalid, "a reference is selected twice"},
        {"KBSEL-SHA256-FORMAT", c::kKbSelectionInvalid, "sha256 is not \"sha256:<64 lowercase hex>\""},
        {"KBSEL-REF-MISSING", c::kKbSelectionInvalid, "a selected file does not exist under the KB root"},
        {"KBSEL-SHA256-MISMATCH", c::kKbSelectionInvalid, "a selected file's bytes do not hash to the recorded sha256"},
        {"TOPOLOGY-CONTRACT-VERSION", c::kKbSelectionInvalid, "topology-map.json contract.contract_version is missing or not a JSON integer"},
        {"TOPOLOGY-FIELD-TYPE", c::kKbSelectionInvalid, "topology-map.json is not a JSON object"},
        // module_interfaces.yaml.
        {"MODIF-FIELD-MISSING", c::kIncompleteStructure, "a required key is missing, or modules is empty"},
        {"MODIF-FIELD-TYPE", c::kDesignViolation, "a key has the wrong type, or the file is not a mapping"},
        {"MODIF-FIELD-UNKNOWN", c::kDesignViolation, "an unknown top-level key (warning)"},
        {"MODIF-MODULE-COUNT", c::kDesignViolation, "module_count ≠ number of modules"},
        {"MODIF-MODULE-ID", c::kDesignViolation, "module ids are not 1, 2, … in order"},
        {"MODIF-SECTION", c::kDesignViolation, "a module's section is not vector|cube"},
        {"MODIF-NO-OUTPUT", c::kDesignViolation, "a module declares no output"},
        {"MODIF-SHAPE", c::kDesignViolation, "a shape expression uses tokens other than int/name and + - * //"},
        {"MODIF-DTYPE", c::kDesignViolation, "an unknown dtype"},
        {"MODIF-INPUT-PRIMARY", c::kDesignViolation, "a 'primary' input is not among primary_inputs"},
        {"MODIF-INPUT-SOURCE", c::kDesignViolation, "an input's source is not primary or an output of an earlier module"},
        {"MODIF-FINAL-SOURCE", c::kDesignViolation, "a final output does not name an existing module output"},
        {"MODIF-OUTPUT-UNUSED", c::kDesignViolation, "a module output is neither consumed later nor final"},
        {"MODIF-GOLDEN-STAGE-FN", c::kDesignViolation, "golden_stage_fn is not <op>_golden_stage<cumulative suffix>"},
        {"MODIF-FUSION", c::kDesignViolation, "is_fusion disagrees with the Modules' sections (true iff cube and vector)"},
        {"MODIF-DESIGN-MODULES", c::kDesignViolation, "the YAML modules disagree with DESIGN §0 (count or section)"},
    };
    std::sort(r.begin(), r.end(), [](const RuleInfo& a, const RuleInfo& b) { return a.code < b.code; });
    return r;
  }();
  return rules;
}

const RuleInfo* FindRule(std::string_view code) {
  for (const auto& r : ContractRules())
    if (r.code == code) return &r;
  return nullptr;
}

void CheckOpDir(const OpDir& od, const CheckOptions& opts, Diagnostics* diags) {
  std::error_code ec;
  for (const char* optional : {"SPEC.md", "EXPLORE_REPORT.md"}) {
    std::filesystem::path p = std::filesystem::path(od.dir) / optional;
    if (!std::filesystem::exists(p, ec))
      diags->Warning("CONTRACT-OPTIONAL-MISSING", category::kMissingFile, p.string(), 0,
                     std::string(optional) + " is absent (Stage 4 reads it for dims and API constraints)");
  }
  CheckDesignStructure(od, opts, diags);
  CheckVectorSelection(od, opts, diags);
  CheckDesignMemory(od, opts, diags);
  CheckCubeModules(od, opts, diags);
  CheckBindings(od, opts, diags);
  CheckSelections(od, opts, diags);
  CheckModuleInterfaces(od, opts, diags);
  diags->Sort();
}

absl::Status CheckOpDirPath(const std::string& dir, const LoadOptions& load,
                            const CheckOptions& opts, Diagnostics* diags) {
  auto od = LoadOpDir(dir, load, diags);
  if (!od.ok()) {
    diags->Sort();
    return od.status();
  }
  CheckOpDir(*od, opts, diags);
  return absl::OkStatus();
}

bool HasInputErrors(const Diagnostics& diags) {
  for (const auto& d : diags.items())
    if (d.severity == Severity::kError && d.category == category::kInputError) return true;
  return false;
}

}  // namespace opdev::contract
