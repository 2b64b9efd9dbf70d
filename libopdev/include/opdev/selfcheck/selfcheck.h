// The step-8 self-check: every static item of the verifier's stage4-check (1–7, 10–15) and
// module-check (1, 2, 5, 6, 7), evaluated on the pyfront AST of the kernel file (never by
// grep), plus the L1 rule that only this round's staged file changed. Each item has a stable
// id, a status and Diagnostic findings carrying the verifier's failure category. The
// dynamic items (run the file, look at its output) belong to the runtime, not here.
//
//   opdev::selfcheck::SelfCheckOptions o;
//   o.op_dir = "custom/softmax";
//   auto report = opdev::selfcheck::RunSelfCheck(o);
//   // report->items[i].id == "S4-5", .status == ItemStatus::kFail, .findings = {...}
#pragma once

#include "opdev/plan/read_only_guard.h"
#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
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
  std::string id;        // "S4-1" … "S4-15", "MC-1" … "MC-7", "L1-RO"
  std::string title;
  ItemStatus status = ItemStatus::kPass;
  std::string category;  // failure category when it fails (priority-ordered worst)
  std::string evidence;  // one line: what was looked at
  Diagnostics findings;
  boost::json::object ToJson() const;
};

struct SelfCheckReport {
  std::string mode;        // "stage4" (L0/finalize) or "module" (L1 Module k)
  std::string file;        // the checked kernel file (op-dir-relative)
  std::vector<ItemResult> items;
  // Worst category by the verifier's priority (kb_selection_invalid → … → others), or "".
  std::string failure_category;
  int failed = 0, passed = 0, blocked = 0, not_available = 0;
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
  // Optional KB-usage check (item S4-14 / MC-7): returns findings for the op dir, or
  // nullopt when no checker is available. The stage wires the kbusage module in here.
  std::function<std::optional<Diagnostics>(const std::string& op_dir)> kb_usage_check;
};

// Runs every item. The status is an error only when the op dir is not a directory.
absl::StatusOr<SelfCheckReport> RunSelfCheck(const SelfCheckOptions& opts);

// The verifier's category priority: lower is more important; unknown categories rank last.
int CategoryPriority(std::string_view category);

}  // namespace opdev::selfcheck
