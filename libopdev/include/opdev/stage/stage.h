// The whole Stage 4 round, end to end: check → plan → gen (or verify the existing file with
// no_gen) → budget → self-check → run (simulator or NPU) → compare → KB usage generate +
// check → read-only guard → verdict. Every step is recorded with its status, commands and
// findings; the verdict carries the failure category (verifier vocabulary and priority),
// per-case results, hazards, per-quadruple KB evidence, artifact paths and a suggested next
// action. It is opdev's self-verification and never claims a verifier PASS.
//
//   opdev::stage::StageOptions o;
//   o.op_dir = "examples/softmax";
//   o.backend = "sim";
//   auto report = opdev::stage::RunStage(o);   // writes <op_dir>/reports/opdev/stage_report.{json,md}
//   // report->verdict.outcome == "CLEAN" | "FAIL" | "NOT_MEASURED" | "INCOMPLETE"
#pragma once

#include "opdev/runtime/run_output.h"
#include "opdev/support/diagnostic.h"
#include "opdev/triage/diagnosis.h"

#include "absl/status/statusor.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace opdev::stage {

// Where the report goes, relative to the op dir (created when missing).
inline constexpr const char* kReportDir = "reports/opdev";

struct StageOptions {
  std::string op_dir;
  std::string kb_root;                  // empty: the contract module's KB root search
  std::optional<std::int64_t> module_k;
  bool finalize = false;
  std::string backend = "sim";          // "sim" | "npu"
  bool no_gen = false;                  // verify the existing file instead of generating
  // sim: the run step uses the DESIGN §8 runner (RunOpOptions::design_cases, diagnostic mode)
  // instead of the test file under the CPU device; its report does not depend on how the
  // test file's stdout and stderr interleave.
  bool design_cases = false;
  bool triage_reruns = true;            // sim: rerun, shrink and localise the first failing case
  bool triage_shrink = true;            // with triage_reruns: also shrink to a minimal repro
  // NPU backend.
  std::string interpreter = "python";
  std::optional<int> device;
  std::string npu_smi = "npu-smi";
  double timeout_seconds = 1800;
  double idle_timeout_seconds = 900;
  // Python with torch for the CPU golden (sim backend) and the delivery import probe.
  std::string python = "/usr/bin/python3";
  std::string report_dir;               // empty: <op_dir>/reports/opdev
  bool write_report = true;
  // Trees no report may be written into (the stage step passes the shared reference tree and
  // the KB root); a default report dir must also resolve inside the op dir (no symlink escape).
  std::vector<std::string> protected_roots;
  // Progress lines ("[3/10] budget ...", "case 2/8 PASS ..."); may be empty.
  std::function<void(const std::string&)> progress;
};

enum class StepStatus { kOk, kFindings, kFailed, kNotAvailable, kSkipped };
std::string_view StepStatusName(StepStatus s);  // "ok", "findings", "failed", "not_available", "skipped"

struct StepRecord {
  std::string name;                   // check, plan, gen, budget, selfcheck, run, compare, usage, guard
  StepStatus status = StepStatus::kOk;
  std::string summary;
  std::vector<std::string> commands;  // external commands this step ran
  Diagnostics findings;
  boost::json::value detail;          // step-specific JSON (plan, budget, self-check, ...)
  boost::json::object ToJson() const;
};

struct KbEvidence {                   // one active requirement (the identity quadruple)
  std::string class_id, reference, selection_field, req_id;
  std::string invariant, planned_location, verification_method;
  std::string usage_file, usage_symbol, usage_status;  // the record written, if any
};

struct Verdict {
  // CLEAN: every step ran and passed. FAIL: a step found a defect. NOT_MEASURED: the run
  // hit an environment problem (never reported as 0/N). INCOMPLETE: no defect found but a
  // step could not run (capability missing, blocked item): not a pass.
  // FLAKY: the run failed but the first failing case passed when rerun alone (not a pass).
  std::string outcome = "INCOMPLETE";
  std::string failure_category;       // worst by the verifier's priority; "" when CLEAN
  bool suspected = false;             // a design_violation from a test: the verifier decides
  std::string summary;
  std::string why;                    // the triage paragraph when the run failed
  std::string next_action;
  std::vector<std::string> evidence;
};

struct StageReport {
  std::string op, op_dir, mode, backend;
  boost::json::object dispatch;
  bool generated = false;
  std::string kernel_file;            // op-dir-relative
  std::vector<StepRecord> steps;
  std::vector<runtime::CaseResult> cases;
  Diagnostics hazards;                // every hazard of every case, as the run reported them
  std::vector<triage::HazardGroup> hazard_groups;  // each once, with its cases (the report's list)
  std::optional<triage::Diagnosis> diagnosis;      // the triage of a failed run
  std::vector<KbEvidence> kb_evidence;
  std::vector<std::pair<std::string, std::string>> artifacts;  // (role, path)
  Verdict verdict;
  std::string report_json_path, report_md_path;

  std::vector<std::string> Commands() const;
  boost::json::object ToJson() const;
  std::string ToMarkdown() const;
  std::string ToText() const;         // the command's summary
};

// Runs the round. The status is an error only when the call cannot start (no op dir, bad
// backend name, report folder not writable); everything else is in the report.
absl::StatusOr<StageReport> RunStage(const StageOptions& opts);

}  // namespace opdev::stage
