// What every self-check item needs: the mode, the names this round must use, the parsed
// kernel file and DESIGN.md, and a helper for call-graph reachability inside the file.
#pragma once

#include "kernel_file.h"

#include "opdev/contract/design_doc.h"
#include "opdev/contract/module_interfaces.h"
#include "opdev/contract/spec_contract.h"
#include "opdev/selfcheck/selfcheck.h"

#include <optional>
#include <set>
#include <string>

namespace opdev::selfcheck {

// Failure categories of the verifier that support/diagnostic.h does not list.
namespace cat {
inline constexpr std::string_view kImportViolation = "import_violation";
inline constexpr std::string_view kCheating = "cheating";
inline constexpr std::string_view kPerfViolation = "perf_violation";
inline constexpr std::string_view kSignatureMismatch = "signature_mismatch";
inline constexpr std::string_view kDeliveryImportUnsafe = "delivery_import_unsafe";
inline constexpr std::string_view kWrapperBoundary = "wrapper_boundary_violation";
inline constexpr std::string_view kIncompleteStructure = "incomplete_structure";
inline constexpr std::string_view kMissingFile = "missing_file";
inline constexpr std::string_view kDesignViolation = "design_violation";
inline constexpr std::string_view kKbUsageInvalid = "kb_usage_invalid";
}  // namespace cat

struct CheckContext {
  const SelfCheckOptions* opts = nullptr;
  std::string op_dir;
  std::string op;
  bool module_mode = false;       // module-check (L1 Module k)
  std::int64_t module_k = 0;
  std::string file_rel;           // the checked file, op-dir-relative
  std::string file_path;
  std::string wrapper;            // <op>_wrapper or <op>_wrapper_module<s>
  std::string golden_module;      // <op>_golden_cpu or <op>_golden_stage<s>
  std::string golden_rel;         // its file, op-dir-relative
  std::string golden_fn;          // the CPU golden function name
  const KernelFile* file = nullptr;            // null when missing or unparsable
  std::optional<contract::DesignDoc> design;   // null when DESIGN.md is missing
  std::optional<contract::SpecContract> spec;  // SPEC.md machine contract, when readable
  std::optional<contract::ModuleInterfaces> mi;  // module_interfaces.yaml, when readable

  std::string Path(const std::string& rel) const;
};

// Top-level functions reachable from `root` by calls to plain names (root included).
std::set<std::string> Reachable(const KernelFile& f, const std::string& root);

// Items. Each returns its result; the orchestrator fills id/title.
ItemResult CheckImportGate(const CheckContext& c);          // S4-1 / MC-2
ItemResult CheckDevice(const CheckContext& c);              // S4-3
ItemResult CheckPrecisionStandard(const CheckContext& c);   // S4-4
ItemResult CheckNoCheating(const CheckContext& c);          // S4-5 ①–⑧ / MC-5 cheating part
ItemResult CheckBuffersAndSync(const CheckContext& c);      // S4-6
ItemResult CheckVectorSelection(const CheckContext& c);     // S4-7
ItemResult CheckTestCases(const CheckContext& c);           // S4-10
ItemResult CheckDynamicDims(const CheckContext& c);         // S4-11
ItemResult CheckWrapperSignature(const CheckContext& c);    // S4-12
ItemResult CheckDeliveryImport(const CheckContext& c);      // S4-13
ItemResult CheckWrapperBoundary(const CheckContext& c);     // S4-15 / MC-5 boundary part
ItemResult CheckStagedGoldenImports(const CheckContext& c); // MC-6
ItemResult CheckModulePrecheck(const CheckContext& c);      // MC-0 (frozen Bindings and DESIGN)

// Dynamic items from a run (run_items.cpp).
ItemResult RunExitItem(const std::optional<RunEvidence>& run, const std::string& file_rel);  // S4-8 / MC-3
ItemResult RunPassItem(const std::optional<RunEvidence>& run, const std::string& file_rel,
                       bool module_mode);                                                      // S4-9 / MC-4
Diagnostics CoverageFindings(const RunEvidence& run, const std::string& file_rel);            // S4-5 ⑥

// Sets status/category from the findings: fail when any error, the worst category wins.
void Conclude(ItemResult* r);

}  // namespace opdev::selfcheck
