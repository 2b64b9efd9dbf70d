// The NPU launcher: runs exactly the pipeline's command for an op dir
// (`python custom/<op>/test_<op>.py`, or the L1 staged file) from the directory the
// pipeline runs it in, with TILE_FWK_DEVICE_ID from --device or idle-chip discovery, a
// wall-clock timeout, a no-output watchdog, stdout/stderr captured to files, and the
// per-case results parsed from the output. Environment problems found before the launch
// are returned in the result (for triage), not as an error status.
#pragma once

#include "opdev/runtime/npu_smi.h"
#include "opdev/runtime/process.h"
#include "opdev/runtime/run_output.h"

#include "absl/status/statusor.h"

#include <boost/json/object.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opdev::runtime {

inline constexpr double kDefaultTimeoutSeconds = 1800;     // compilation can take minutes
inline constexpr double kDefaultIdleTimeoutSeconds = 900;  // no output at all for 15 min

struct LaunchOptions {
  std::string op_dir;          // custom/<op> (any path; resolved to absolute)
  std::string op;              // default: the op dir's name
  // The file to run, relative to the op dir. Default "test_<op>.py"; L1 staged files are
  // "modules/test_<op>_module<suffix>.py".
  std::string test_file;
  std::string interpreter = "python";  // the pipeline's command uses `python`
  std::optional<int> device;           // --device; otherwise idle-chip discovery
  bool discover_device = true;         // false: leave TILE_FWK_DEVICE_ID as inherited
  std::string npu_smi = "npu-smi";
  double timeout_seconds = kDefaultTimeoutSeconds;
  double idle_timeout_seconds = kDefaultIdleTimeoutSeconds;
  std::string case_name;               // run one test function alone (debugging rerun)
  std::vector<std::string> expected_cases;  // test functions in order, for per-case results
  std::string log_dir;                 // where run.stdout.log / run.stderr.log / run.log go
  std::map<std::string, std::string> env;   // extra variables
  std::function<void(const std::string& line)> on_line;  // each output line, as it arrives
};

struct LaunchResult {
  std::vector<std::string> argv;
  std::string command;        // rendered argv, e.g. "python custom/softmax/test_softmax.py"
  std::string cwd;            // where it ran
  std::map<std::string, std::string> env_set;  // variables opdev set (TILE_FWK_DEVICE_ID)
  std::optional<DeviceChoice> device;
  std::vector<std::string> preflight_commands;  // npu-smi invocations
  // A problem found before launching (npu-smi missing/silent, no idle chip, test file
  // missing); when set, the test was not run and `process` is empty.
  std::string preflight_error;
  std::string preflight_kind;  // "npu_smi_missing", "npu_smi_silent", "no_idle_chip", "missing_file"
  std::optional<ProcessResult> process;
  ParsedOutput parsed;
  std::vector<CaseResult> cases;
  std::string stdout_path, stderr_path, combined_path;

  bool launched() const { return process.has_value(); }
  boost::json::object ToJson() const;
};

// Works out argv and cwd: when the op dir sits in a directory named "custom", the command
// runs from that directory's parent as `python custom/<op>/<file>` (the pipeline's form);
// otherwise from the op dir's parent as `python <op>/<file>`.
struct CommandPlan {
  std::vector<std::string> argv;
  std::string cwd;
  std::string script;  // the script path as passed (relative to cwd)
};
absl::StatusOr<CommandPlan> PlanCommand(const LaunchOptions& opts);

// Runs the test file. Errors only for a call that cannot be made (no op dir, log dir not
// writable); everything about the run itself is in the result.
absl::StatusOr<LaunchResult> Launch(const LaunchOptions& opts);

}  // namespace opdev::runtime
