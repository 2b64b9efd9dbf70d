// The verifier's view of KB_USAGE.json (stage4.md §6, verifier module-check #7 and
// stage4-check #14, static part): for every class, the file loads as JSON; required fields
// and types; schema_version equals topology-map.json contract.contract_version; op and
// class_id match the selection; every reference is selected; the invariant prefix parses and
// re-encodes to the same bytes; every quadruple maps to an active requirement, with the
// requirement's anchors and invariant verbatim; status is implemented or deviated (never
// verified / not_applicable), deviated carries a justification; files and symbols exist;
// final records point at custom/<op>/test_<op>.py, staged ones at a staged file; record
// counts per mode; the empty-set rule. Every finding has category kb_usage_invalid (a
// bindings/selection disagreement is design_violation) and names file and line.
#pragma once

#include "opdev/plan/round_plan.h"
#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opdev::kbusage {

struct CheckOptions {
  std::string kb_root;
  // L0; L1-module (staged records optional, at most one per active requirement per file);
  // L1-finalize / L1-finalize-retry (exactly one final per active requirement).
  plan::Mode mode = plan::Mode::kL0;
  // L1-module: the current Module; staged records for later Modules are errors.
  std::optional<std::int64_t> module_k;
  // Finalize: Modules whose staged files passed module-check; staged records of other
  // Modules are stale. nullopt = every Module.
  std::optional<std::vector<std::int64_t>> module_checked;
};

struct CheckSummary {
  size_t classes = 0;
  size_t records = 0;
  size_t final_records = 0;
  size_t staged_records = 0;
  boost::json::object ToJson() const;
};

namespace code {
inline constexpr const char* kChkMissing = "KBU-MISSING";
inline constexpr const char* kChkUnreadable = "KBU-UNREADABLE";
inline constexpr const char* kChkJson = "KBU-JSON";
inline constexpr const char* kChkDuplicateKey = "KBU-DUPLICATE-KEY";
inline constexpr const char* kChkFieldMissing = "KBU-FIELD-MISSING";
inline constexpr const char* kChkFieldType = "KBU-FIELD-TYPE";
inline constexpr const char* kChkFieldUnknown = "KBU-FIELD-UNKNOWN";
inline constexpr const char* kChkSchemaVersion = "KBU-SCHEMA-VERSION";
inline constexpr const char* kChkOp = "KBU-OP";
inline constexpr const char* kChkClassId = "KBU-CLASS-ID";
inline constexpr const char* kChkRefUnselected = "KBU-REF-UNSELECTED";
inline constexpr const char* kChkPrefix = "KBU-PREFIX";
inline constexpr const char* kChkPrefixEncoding = "KBU-PREFIX-ENCODING";
inline constexpr const char* kChkQuadUnknown = "KBU-QUAD-UNKNOWN";
inline constexpr const char* kChkQuadInactive = "KBU-QUAD-INACTIVE";
inline constexpr const char* kChkAnchors = "KBU-ANCHORS-MISMATCH";
inline constexpr const char* kChkInvariant = "KBU-INVARIANT-MISMATCH";
inline constexpr const char* kChkStatusForbidden = "KBU-STATUS-FORBIDDEN";
inline constexpr const char* kChkStatusUnknown = "KBU-STATUS-UNKNOWN";
inline constexpr const char* kChkNoJustification = "KBU-DEVIATED-NO-JUSTIFICATION";
inline constexpr const char* kChkFileOutside = "KBU-FILE-OUTSIDE";
inline constexpr const char* kChkFileUnexpected = "KBU-FILE-UNEXPECTED";
inline constexpr const char* kChkFileMissing = "KBU-FILE-MISSING";
inline constexpr const char* kChkFileUnparsable = "KBU-FILE-UNPARSABLE";
inline constexpr const char* kChkSymbolMissing = "KBU-SYMBOL-MISSING";
inline constexpr const char* kChkStagedInL0 = "KBU-STAGED-IN-L0";
inline constexpr const char* kChkFinalMissing = "KBU-FINAL-MISSING";
inline constexpr const char* kChkFinalDuplicate = "KBU-FINAL-DUPLICATE";
inline constexpr const char* kChkStagedDuplicate = "KBU-STAGED-DUPLICATE";
inline constexpr const char* kChkStagedUnchecked = "KBU-STAGED-UNCHECKED";
inline constexpr const char* kChkStagedFuture = "KBU-STAGED-FUTURE";
inline constexpr const char* kChkEmptyRule = "KBU-EMPTY-RULE";
}  // namespace code

// Checks every class's KB_USAGE.json of `op_dir`. The status is an error only when the
// frozen inputs themselves are unusable (no bindings, no selection, no topology-map.json);
// findings about the usage files are diagnostics.
absl::StatusOr<CheckSummary> CheckKbUsage(const std::string& op_dir, const CheckOptions& opts,
                                          Diagnostics* diags);

}  // namespace opdev::kbusage
