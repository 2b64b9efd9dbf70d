// The dispatch planner: from an op dir and a dispatch to the complete plan of one Stage 4
// round (stage4.md §3): mode, the one file to produce, wrapper and golden names, where to
// start from, the exact run command, prerequisites and the read-only set. Invalid
// dispatches become dispatch_invalid diagnostics and no plan.
//
//   opdev::Diagnostics diags;
//   opdev::plan::Dispatch d;  d.module_k = 2;
//   auto plan = opdev::plan::PlanRound("custom/fused", d, &diags);
//   // plan->product == "modules/test_fused_module12.py", plan->wrapper ==
//   // "fused_wrapper_module12", plan->run_command == "python custom/fused/modules/test_fused_module12.py"
#pragma once

#include "opdev/plan/dispatch.h"
#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::plan {

enum class Mode { kL0, kL1Module, kL1Finalize, kL1FinalizeRetry };
std::string_view ModeName(Mode m);  // "L0", "L1-module", "L1-finalize", "L1-finalize-retry"
std::optional<Mode> ParseModeName(std::string_view name);

// Why a file is read-only in this round.
enum class ReadOnlyKind {
  kFrozenContract,  // DESIGN.md, DESIGN_BINDINGS.json, module_interfaces.yaml, SPEC.md, selections, ...
  kGolden,          // <op>_golden.py, <op>_golden_cpu.py, modules/<op>_golden_stage*.py
  kHistory,         // staged files other than this round's product (and, in a Module round, the final file)
};
std::string_view ReadOnlyKindName(ReadOnlyKind k);  // "frozen_contract", "golden", "history"

struct PlannedPath {
  std::string rel;    // relative to the op dir, '/'-separated
  std::string path;   // op_dir joined with rel
  bool exists = false;
  std::string why;    // one-line purpose
};

struct ReadOnlyFile {
  std::string rel;
  std::string path;
  ReadOnlyKind kind = ReadOnlyKind::kFrozenContract;
  bool is_symlink = false;
};

struct RoundPlan {
  std::string op;              // from module_interfaces.yaml `op`
  std::string op_dir;          // as given
  Dispatch dispatch;
  Mode mode = Mode::kL0;
  bool is_fusion = false;
  std::int64_t module_count = 0;
  std::optional<std::int64_t> module_k;
  std::string suffix;          // cumulative suffix of module_k; "" for L0/finalize

  PlannedPath product;         // the one kernel/test file this round writes
  std::string product_workspace_path;  // custom/<op>/<product.rel>, as recorded in KB_USAGE
  std::string wrapper;         // <op>_wrapper or <op>_wrapper_module<suffix>
  std::string golden_module;   // import name: <op>_golden_cpu or <op>_golden_stage<suffix>
  std::string golden_file;     // relative to the op dir
  std::optional<PlannedPath> starting_point;  // copy/edit source; nullopt = from the template
  std::string starting_point_reason;

  std::string run_command;     // exactly as the pipeline runs it, from the workspace root
  std::string run_cwd;         // the workspace root (parent of custom/)
  std::vector<PlannedPath> prerequisites;
  std::vector<ReadOnlyFile> read_only;
  std::vector<std::string> writable;  // op-dir-relative files the round may write
  std::vector<std::string> kb_usage_files;  // op-dir-relative KB_USAGE.json per class

  boost::json::object ToJson() const;
};

namespace code {
inline constexpr const char* kPlanInterfaces = "PLAN-INTERFACES";        // module_interfaces.yaml unusable
inline constexpr const char* kPlanNoIsFusion = "PLAN-NO-IS-FUSION";
inline constexpr const char* kPlanModuleCount = "PLAN-MODULE-COUNT";
inline constexpr const char* kPlanOpName = "PLAN-OP-NAME";
inline constexpr const char* kPlanPrereqMissing = "PLAN-PREREQ-MISSING";  // missing_file
inline constexpr const char* kPlanSymlink = "PLAN-SYMLINK";              // read-only or product symlinked
inline constexpr const char* kPlanWorkspace = "PLAN-WORKSPACE";          // op dir not under custom/
}  // namespace code

// Plans one round. Reads <op_dir>/module_interfaces.yaml (is_fusion, module_count, op) and
// looks at which files exist. Returns an error status (with findings in `diags`) when the
// op dir or module_interfaces.yaml is unusable or the dispatch is invalid; returns a plan
// plus error findings when prerequisites are missing or read-only files are symlinks.
absl::StatusOr<RoundPlan> PlanRound(const std::string& op_dir, const Dispatch& dispatch,
                                    Diagnostics* diags);

}  // namespace opdev::plan
