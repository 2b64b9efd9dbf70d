// Generation of a Stage 4 kernel file from a frozen op dir: `opdev gen` as a library call.
// The round plan names the file, wrapper and goldens; the backend for a pure-Vector L0 op
// (vector_vf) transcribes DESIGN §1 with declarations completed from §2/§3 (or, when §1 gives
// only vector_selection API chains, builds the kernel from the pure-vec pattern skeleton A / B /
// B+ / C the chain and its pattern field name; see docs/codegen.md), the shared
// emitters add the header, helpers, §5 wrapper, §8 tests and runner, and the result is
// printed through pyfront, re-parsed and budgeted against DESIGN §3 before it is returned.
// Faithful transcription, never silent repair: any design defect is a design_violation
// finding at its DESIGN line, and then no file is produced.
//
//   opdev::codegen::GenerateOptions opts;                 // L0, target A5
//   auto r = opdev::codegen::GenerateKernelFile("custom/softmax", opts);
//   if (r.ok()) opdev::codegen::WriteGeneratedFile(*r.file, r.file->path, {});
#pragma once

#include "opdev/budget/budget_check.h"
#include "opdev/codegen/source_map.h"
#include "opdev/plan/dispatch.h"
#include "opdev/support/diagnostic.h"
#include "opdev/support/target.h"

#include "absl/status/status.h"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace opdev::codegen {

struct GenerateOptions {
  plan::Dispatch dispatch;      // empty = L0
  Target target = Target::kA5;  // capacities for the budget check
};

struct GeneratedFile {
  std::string rel;        // op-dir-relative product, e.g. "test_softmax.py"
  std::string path;       // <op_dir>/<rel>
  std::string content;    // the whole file, deterministic for the same inputs
  std::string op;
  std::string kernel;     // the @pl.jit kernel
  std::string wrapper;    // <op>_wrapper
  std::vector<std::string> vector_functions;
  std::vector<std::string> tests;  // one per DESIGN §8 row, in order
  budget::BudgetReport budget;     // on-chip budget of the generated file
  // Where each line came from (written beside the file as <file>.srcmap.json by the callers
  // that write it; see opdev/codegen/source_map.h).
  std::optional<SourceMap> source_map;
};

struct GenerateResult {
  std::optional<GeneratedFile> file;  // only when there is no error finding
  Diagnostics diagnostics;            // design_violation / input findings, notes, warnings
  bool ok() const { return file.has_value() && !diagnostics.HasErrors(); }
  boost::json::object ToJson() const;
};

GenerateResult GenerateKernelFile(const std::string& op_dir, const GenerateOptions& opts);

struct WriteOptions {
  // Directories that are never written into (resolved through symlinks), e.g. the shared
  // reference tree.
  std::vector<std::string> protected_roots;
};

// Writes `content` atomically to `path`. Refuses (FailedPrecondition, file untouched) when the
// existing file is not writable, when `path` is a frozen contract name (DESIGN.md, SPEC.md,
// DESIGN_BINDINGS.json, module_interfaces.yaml, KB_SELECTION.json, golden files), or when it
// lies inside a protected root.
absl::Status WriteGeneratedFile(const std::string& path, const std::string& content,
                                const WriteOptions& opts);

// Diagnostic codes of codegen (all design_violation unless noted).
namespace code {
inline constexpr const char* kUndefinedName = "CODEGEN-UNDEFINED-NAME";
inline constexpr const char* kAddressMismatch = "CODEGEN-ADDRESS-MISMATCH";
inline constexpr const char* kMutexMismatch = "CODEGEN-MUTEX-MISMATCH";
inline constexpr const char* kDepthMismatch = "CODEGEN-DEPTH-MISMATCH";
inline constexpr const char* kSlotMismatch = "CODEGEN-SLOT-MISMATCH";
inline constexpr const char* kVfCallMismatch = "CODEGEN-VF-CALL-MISMATCH";
inline constexpr const char* kMteInVf = "CODEGEN-MTE-IN-VF";
inline constexpr const char* kUnknownApi = "CODEGEN-UNKNOWN-API";
inline constexpr const char* kConstantMismatch = "CODEGEN-CONSTANT-MISMATCH";
inline constexpr const char* kValidShapeOrder = "CODEGEN-VALIDSHAPE-ORDER";
inline constexpr const char* kLaunchMissing = "CODEGEN-LAUNCH-MISSING";
inline constexpr const char* kDesignSyntax = "CODEGEN-DESIGN-SYNTAX";
inline constexpr const char* kTileTableConflict = "CODEGEN-TILE-TABLE-CONFLICT";
inline constexpr const char* kTileSizeMismatch = "CODEGEN-TILE-SIZE-MISMATCH";
inline constexpr const char* kModeUnsupported = "CODEGEN-MODE-UNSUPPORTED";  // capability_gap
}  // namespace code

}  // namespace opdev::codegen
