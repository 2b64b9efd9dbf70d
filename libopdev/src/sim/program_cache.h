// The process-wide cache of lowered kernel sources: a source run again — the cases of a stage
// round, the launches of a test file, a benchmark — is parsed and lowered once. An entry is
// found by its file name and identical text; a run takes the entry's run lock, restores the
// module values lowering left (RestoreModuleState) and starts its hazard sink from a copy of
// lowering's, so it observes exactly what a run of a freshly lowered program does.
#pragma once

#include "program.h"
#include "value.h"

#include "opdev/sim/hazards.h"
#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace opdev::sim {

struct LoweredProgram {
  std::string file;  // the name findings carry
  std::string text;  // the source it was lowered from
  std::unique_ptr<Program> prog;
  HazardSink lowering;                           // what lowering reported (static hazards)
  std::map<std::string, Value> initial_globals;  // module values as lowering left them
  std::mutex run_mu;  // held by the run using `prog` (a run changes module values)

  // The API catalog check of the whole module, computed on first use.
  const Diagnostics& Api();

 private:
  std::once_flag api_once_;
  Diagnostics api_;
};

// The lowered program of `text` named `file`: from the cache when this name and text were
// lowered before (*hit true), else parsed and lowered now and kept. A parse error is returned,
// never cached. The cache keeps one entry per file name and the most recently used few.
absl::StatusOr<std::shared_ptr<LoweredProgram>> GetLoweredProgram(const std::string& file, std::string_view text,
                                                                  bool* hit);

// Parses and lowers `text` without the cache (a run that finds its entry busy).
absl::StatusOr<std::shared_ptr<LoweredProgram>> LowerSource(const std::string& file, std::string_view text);

// Drops every cached program.
void ClearProgramCache();

}  // namespace opdev::sim
