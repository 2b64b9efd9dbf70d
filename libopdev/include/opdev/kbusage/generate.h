// KB_USAGE.json generation (stage4.md §6) for every class of an op dir, for the round a
// RoundPlan describes: one record per active requirement (obligation + applies) per
// implementation artifact, the invariant prefix built with Python's json.dumps encoding,
// implementation.file/symbol resolved from planned_location and checked to exist in the
// produced file, schema_version from topology-map.json. Mode rules:
//   L0        exactly one final record per active requirement, no staged records;
//   L1-module staged records for this Module's file (at most one per active requirement),
//             other records kept;
//   finalize  staged records kept only when their file exists, passed module-check and
//             still validates; exactly one final record per active requirement.
// All classes are computed first; nothing is written when any error was found. Files are
// written atomically; usage is wiped only on first entry or when the upstream artifacts
// changed (their hash is kept in the sidecar `.opdev_kb_usage_state.json`, owned by opdev).
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

// A deviation DESIGN froze for one requirement: the record gets status "deviated" and this
// justification.
struct Deviation {
  std::string class_id = ".";
  std::string reference;
  std::string req_id;
  std::string justification;
};

struct GenerateOptions {
  std::string kb_root;  // directory holding topology-map.json
  // Finalize: Modules whose staged files passed module-check. nullopt = every Module
  // 1..module_count (the orchestrator finalizes only after all Modules were verified).
  std::optional<std::vector<std::int64_t>> module_checked;
  std::vector<Deviation> deviations;
  // planned_location that names no file / no resolvable symbol: by default a warning
  // (suspected design_violation) and the record points at the file's @pl.jit kernel; when
  // strict, an error and nothing is written.
  bool strict_locations = false;
  bool dry_run = false;  // compute and report, write nothing
  // Directories never written into (resolved through symlinks), e.g. the shared reference
  // tree; an op dir inside one is KBU-PROTECTED and nothing is written.
  std::vector<std::string> protected_roots;
};

struct ClassUsage {
  std::string class_id;
  std::string usage_rel;       // op-dir-relative KB_USAGE.json
  std::string content;         // the file's bytes
  size_t final_records = 0;
  size_t staged_records = 0;
  size_t kept_records = 0;     // carried over from the existing file
  size_t dropped_records = 0;  // existing records removed (stale, replaced, wiped)
  bool wiped = false;
};

struct GenerateResult {
  std::vector<ClassUsage> classes;
  std::string sidecar_rel;
  std::string upstream_sha256;
  bool written = false;
  boost::json::object ToJson() const;
};

// Diagnostic codes of generation (file = DESIGN_BINDINGS.json line of the requirement, or
// the usage/produced file).
namespace code {
inline constexpr const char* kGenProductMissing = "KBU-PRODUCT-MISSING";     // missing_file
inline constexpr const char* kGenProductUnparsable = "KBU-PRODUCT-UNPARSABLE";
inline constexpr const char* kGenSymbolMissing = "KBU-SYMBOL-MISSING";       // claimed symbol absent
inline constexpr const char* kGenLocNoFile = "KBU-LOC-NO-FILE";              // planned_location names no .py
inline constexpr const char* kGenLocOtherFile = "KBU-LOC-OTHER-FILE";        // names only other files
inline constexpr const char* kGenLocNoSymbol = "KBU-LOC-NO-SYMBOL";          // no resolvable symbol
inline constexpr const char* kGenNoFallback = "KBU-NO-FALLBACK";             // no kernel to point at
inline constexpr const char* kGenEmptyRule = "KBU-EMPTY-RULE";
inline constexpr const char* kGenBindingUnselected = "KBU-BINDING-UNSELECTED";
inline constexpr const char* kGenDeviationUnknown = "KBU-DEVIATION-UNKNOWN";
inline constexpr const char* kGenExistingInvalid = "KBU-EXISTING-INVALID";   // existing file not JSON
inline constexpr const char* kGenStagedSkipped = "KBU-STAGED-SKIPPED";       // note
inline constexpr const char* kGenStagedDropped = "KBU-STAGED-DROPPED";       // note
inline constexpr const char* kGenWiped = "KBU-WIPED";                        // note
inline constexpr const char* kGenWrite = "KBU-WRITE";
inline constexpr const char* kGenProtected = "KBU-PROTECTED";              // input_error
inline constexpr const char* kGenReadOnly = "KBU-READ-ONLY";                // input_error: target not replaceable
}  // namespace code

inline constexpr const char* kSidecarFile = ".opdev_kb_usage_state.json";

absl::StatusOr<GenerateResult> GenerateKbUsage(const plan::RoundPlan& plan,
                                               const GenerateOptions& opts, Diagnostics* diags);

}  // namespace opdev::kbusage
