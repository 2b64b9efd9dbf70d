// Child-process execution for the launcher: argv execution without a shell (posix_spawn),
// a new process group, stdout/stderr streamed to files, a wall-clock timeout, a no-output
// watchdog for suspected hangs, and a kill of the whole process group when either fires.
#pragma once

#include "absl/status/statusor.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::runtime {

struct ProcessSpec {
  std::vector<std::string> argv;   // argv[0] is looked up on PATH when it has no '/'
  std::string cwd;                 // empty: the current directory
  // Variables set (or replaced) on top of the inherited environment.
  std::map<std::string, std::string> env;
  std::vector<std::string> unset_env;  // variables removed from the inherited environment
  std::string stdout_path;         // where stdout is written (empty: discarded)
  std::string stderr_path;         // where stderr is written (empty: discarded)
  std::string combined_path;       // both streams interleaved in arrival order (optional)
  double timeout_seconds = 0;      // 0: none. Wall clock, then the group is killed.
  double idle_timeout_seconds = 0; // 0: none. No byte on either stream for this long = hang.
  double kill_grace_seconds = 2;   // SIGTERM to the group, then SIGKILL after this grace
  // Called with every chunk of output as it arrives (is_stderr, bytes). Optional.
  std::function<void(bool, std::string_view)> on_output;
};

enum class Termination {
  kExited,       // the process exited by itself (see exit_code)
  kSignaled,     // the process died from a signal it did not get from us
  kTimedOut,     // killed by us: the wall-clock timeout fired
  kIdleKilled,   // killed by us: the no-output watchdog fired
  kSpawnFailed,  // the program could not be started (see spawn_error)
};

std::string_view TerminationName(Termination t);

struct ProcessResult {
  Termination termination = Termination::kExited;
  int exit_code = -1;          // valid for kExited
  int signal = 0;              // valid for kSignaled (and the signal we sent otherwise)
  std::string spawn_error;     // valid for kSpawnFailed, e.g. "No such file or directory"
  double wall_seconds = 0;
  double seconds_since_last_output = 0;  // at the end of the run
  std::string stdout_text;     // the captured streams (also in the files)
  std::string stderr_text;
  std::string combined_text;

  bool ok() const { return termination == Termination::kExited && exit_code == 0; }
};

// Runs the process to completion (or kill). A spawn failure is a ProcessResult with
// kSpawnFailed, not an error status; errors are reserved for failures of the call itself
// (an empty argv, an output file that cannot be created).
absl::StatusOr<ProcessResult> RunProcess(const ProcessSpec& spec);

// Shell-like rendering of an argv for reports ("python3 custom/softmax/test_softmax.py");
// arguments with spaces or quotes are single-quoted. Never executed.
std::string RenderCommand(const std::vector<std::string>& argv);

}  // namespace opdev::runtime
