// The step-8 self-check: every item of the verifier's stage4-check (1–15) and module-check
// (pre-check, 1–7, in the verifier's order), plus the L1 rule that only this round's staged
// file changed. Static items are evaluated on the pyfront AST of the kernel file (never by
// grep); S4-14 / MC-7 run the KB usage checker in the same call; the dynamic items (S4-8/9,
// MC-3/4) take the result of a run of the file (RunEvidence: exit status, output, per-case
// results, simulator hazards) and are `blocked` without one. Each item has a stable id, a
// status and Diagnostic findings carrying the verifier's failure category.
//
//   opdev::selfcheck::SelfCheckOptions o;
//   o.op_dir = "custom/softmax";
//   auto report = opdev::selfcheck::RunSelfCheck(o);
//   // report->items[i].id == "S4-5", .status == ItemStatus::kFail, .findings = {...}
//   opdev::selfcheck::ApplyRunEvidence(&*report, evidence);  // after the run: S4-8/9
#pragma once

#include "opdev/plan/read_only_guard.h"
#include "opdev/runtime/run_output.h"
#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opdev::selfcheck {

enum class ItemStatus {
  kPass,
  kFail,
  kBlocked,       // the item cannot be decided from what exists (e.g. no golden_cpu)
  kNotAvailable,  // the checking capability is not part of this build
  kSkipped,       // does not apply to this mode / run
};
std::string_view ItemStatusName(ItemStatus s);  // "pass", "fail", "blocked", ...

struct ItemResult {
  std::string id;        // "S4-1" … "S4-15", "MC-0" (pre-check), "MC-1" … "MC-7", "L1-RO"
  std::string title;
  ItemStatus status = ItemStatus::kPass;
  std::string category;  // failure category when it fails (priority-ordered worst)
  std::string evidence;  // one line: what was looked at
  Diagnostics findings;
  boost::json::object ToJson() const;
};

// What a run of the round's file showed, for the dynamic items (S4-8/9, MC-3/4) and the
// output-coverage part of ⑥. Filled by whoever ran it (stage::RunEvidenceOf).
struct RunEvidence {
  std::string backend;               // "npu" | "sim"
  std::string command;               // what ran
  std::optional<int> exit_code;      // the process's exit status; nullopt: no process (the
                                     // simulator ran the cases in-process)
  std::string output;                // what the process printed (stdout + stderr), if any
  bool not_measured = false;         // an environment failure: no result (未测量)
  std::string not_measured_reason;
  std::string failure_category;      // the run's triage category when it failed
  std::vector<runtime::CaseResult> cases;
  Diagnostics hazards;               // simulator hazards (SIM-OUT-UNWRITTEN: output coverage)
  // Does the op dir's precision_compare.py print the literal `matched_ratio=` /
  // `max_abs_error=` the verifier greps for (nullopt: no such file)? Used when there is no
  // process output (simulator backend).
  std::optional<bool> compare_prints_eq;
};

struct SelfCheckReport {
  std::string mode;        // "stage4" (L0/finalize) or "module" (L1 Module k)
  std::string file;        // the checked kernel file (op-dir-relative)
  std::optional<std::int64_t> module_k;
  std::vector<ItemResult> items;
  // Worst category by the verifier's priority (kb_selection_invalid → … → others), or "".
  std::string failure_category;
  int failed = 0, passed = 0, blocked = 0, not_available = 0;
  ItemResult* Find(std::string_view id);
  // Recomputes the counts and failure_category from the items (after an item was updated).
  void Recount();
  Diagnostics AllFindings() const;
  boost::json::object ToJson() const;
};

struct SelfCheckOptions {
  std::string op_dir;
  std::string op;                          // default: module_interfaces `op`, else dir name
  std::optional<std::int64_t> module_k;    // L1 Module k: module-check items
  bool finalize = false;                   // L1 finalize: stage4-check items, L1 file
  std::string file;                        // override the checked file (op-dir-relative)
  std::string kb_root;
  // Interpreter for the delivery import probe (item 13). Empty: the AST rule only.
  std::string python = "/usr/bin/python3";
  double probe_timeout_seconds = 120;
  // Read-only snapshot taken before the round (L1: historical staged files unchanged).
  std::optional<plan::ReadOnlySnapshot> snapshot;
  // Item S4-14 / MC-7 runs the KB usage checker (kbusage/check.h) on the op dir with
  // kb_root (empty: the contract module's KB root search); false skips it (not_available).
  bool check_kb_usage = true;
  // The result of running the file, when the caller ran it (else S4-8/9, MC-3/4 are blocked).
  std::optional<RunEvidence> run;
};

// Runs every item. The status is an error only when the op dir is not a directory.
absl::StatusOr<SelfCheckReport> RunSelfCheck(const SelfCheckOptions& opts);

// Re-evaluates the dynamic items (S4-8/9 or MC-3/4) and the coverage part of S4-5 ⑥ from a
// run made after the static items, then recounts.
void ApplyRunEvidence(SelfCheckReport* report, const RunEvidence& run);

// Does `precision_compare.py` source print `matched_ratio=` and `max_abs_error=` literally?
bool ComparePrintsEq(const std::string& precision_compare_source);

// The verifier's category priority: lower is more important; unknown categories rank last.
int CategoryPriority(std::string_view category);

}  // namespace opdev::selfcheck
