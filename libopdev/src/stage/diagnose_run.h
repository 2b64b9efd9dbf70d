// The round's triage of its run: the DESIGN facts the cases are measured against, the
// per-case outcomes, the hazards grouped with their DESIGN origins (source map), and — for a
// failed simulator run — the reruns of the first failing case (alone, another seed, shrunk)
// with provenance and the localisation of its wrong elements; then triage::Diagnose routes
// it. Used by stage.cpp only.
#pragma once

#include "opdev/stage/run_op.h"
#include "opdev/triage/diagnosis.h"

#include <optional>
#include <string>
#include <vector>

namespace opdev::stage {

struct RunDiagnosis {
  std::vector<triage::HazardGroup> hazards;     // always (may be empty)
  std::optional<triage::Diagnosis> diagnosis;   // only when the run failed
  std::vector<std::string> commands;            // what the reruns are equivalent to
  std::string note;                             // why a part could not run, if any
};

struct DiagnoseRunOptions {
  RunOpOptions run;            // how the run was made (op dir, backend, python, logs)
  bool generated = false;      // this round wrote the kernel file
  bool reruns = true;          // rerun / shrink / localise on the simulator
  bool shrink = true;          // shrink to a minimal repro (with reruns)
};

RunDiagnosis DiagnoseRun(const DiagnoseRunOptions& opts, const RunOpResult& run);

}  // namespace opdev::stage
