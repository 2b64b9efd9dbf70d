// `opdev run`: runs the kernel file of an op dir on one backend and triages the result.
// npu: the pipeline's exact command through the launcher (runtime/launcher.h); sim: every
// DESIGN §8 case through the CPU simulator against the CPU FP32 golden
// (runtime/sim_runner.h). Both give per-case results and a Triage with the failure
// category, evidence and the next action.
#pragma once

#include "opdev/runtime/launcher.h"
#include "opdev/runtime/sim_runner.h"
#include "opdev/runtime/triage.h"
#include "opdev/selfcheck/selfcheck.h"
#include "opdev/support/target.h"

#include "opdev/triage/repro.h"

#include "absl/status/statusor.h"

#include <boost/json/object.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace opdev::stage {

struct RunOpOptions {
  std::string op_dir;
  std::string backend = "sim";           // "sim" | "npu"
  std::optional<std::int64_t> module_k;  // L1 staged file
  std::string file;                      // override (op-dir-relative)
  std::string case_name;                 // one case alone
  // npu
  std::string interpreter = "python";
  std::optional<int> device;
  std::string npu_smi = "npu-smi";
  double timeout_seconds = runtime::kDefaultTimeoutSeconds;
  double idle_timeout_seconds = runtime::kDefaultIdleTimeoutSeconds;
  // sim: by default the pipeline's command (`python custom/<op>/test_<op>.py`) runs under
  // opdev's CPU device (runtime/device_env.h) with `python` as the interpreter, the same
  // process handling, timeouts and output parsing as npu. design_cases: the diagnostic mode
  // instead, every DESIGN §8 case through the wrapper with inputs derived from
  // module_interfaces.yaml, against the CPU FP32 golden run by `python`.
  bool design_cases = false;
  Target target = Target::kA5;
  std::string python = "/usr/bin/python3";
  std::string log_dir;                   // empty: <op_dir>/reports/opdev/run
  std::function<void(const std::string&)> progress;
};

struct RunOpResult {
  std::string backend;
  std::string op, file, wrapper;
  std::string golden_module, golden_fn;  // the CPU golden the simulator compares with
  std::vector<std::string> commands;
  std::vector<runtime::CaseResult> cases;
  Diagnostics hazards;                   // sim only
  runtime::Triage triage;
  std::optional<runtime::LaunchResult> launch;  // npu only
  std::vector<std::pair<std::string, std::string>> logs;  // (role, path)
  boost::json::object ToJson() const;
};

// Errors only for an unusable call (no op dir, unknown backend, unknown case).
absl::StatusOr<RunOpResult> RunOp(const RunOpOptions& opts);

// What the self-check's dynamic items need from a run: the process's exit status and
// combined output when a process ran, else the per-case results; the triage's environment
// verdict; the simulator's hazards; whether the op dir's precision_compare.py prints the
// literal `matched_ratio=`/`max_abs_error=`.
selfcheck::RunEvidence RunEvidenceOf(const RunOpResult& run, const std::string& op_dir);

// The simulator as a triage::CaseRunner for the file `run` ran: each batch is one simulator
// pass over its shapes (one golden process; each case its own kernel run), with
// per-instruction provenance unless `provenance` is false, under <log_dir>/triage/batch<N>/
// (<log_dir>/triage/<tag><N>/ with a non-empty `tag`). Shapes bind to the first primary
// input's symbols as in RunOp.
absl::StatusOr<triage::CaseRunner> MakeSimCaseRunner(const RunOpOptions& opts, const RunOpResult& run,
                                                     bool provenance = true, const std::string& tag = "batch");

}  // namespace opdev::stage
