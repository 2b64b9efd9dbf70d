// The L1 finalize round (stage4.md §3): the final test_<op>.py of a Vector/Cube fusion.
//   * dispatch without cleanup_succeeded: opdev performs the cleanup (cleanup.h) on the last
//     staged file; when its arity guard or the proofread refuses the result, the error is
//     kept (as warnings naming the cleanup) and the final file is rebuilt from the fused
//     kernel of Modules 1..N, which must equal the last verified staged file's kernel;
//   * cleanup_succeeded = true: the existing test_<op>.py (the orchestrator's cleanup output)
//     is proofread, with the idempotent delivery fixes applied;
//   * cleanup_succeeded = false: the orchestrator's cleanup error is its own; the final file
//     is rebuilt as above;
//   * verifier retry: only the existing final file is repaired (delivery fixes, proofread,
//     arity guard); no Module is reopened, no staged file is read for code, cleanup is not
//     rerun.
// The result is the final file and the findings; nothing is written here.
#pragma once

#include "opdev/codegen/generate.h"
#include "opdev/plan/round_plan.h"

#include <functional>
#include <string>

namespace opdev::codegen {

struct FinalizeContext {
  std::string op_dir;
  const plan::RoundPlan* plan = nullptr;
  Diagnostics plan_diags;
  std::function<GenerateResult()> rebuild;  // the final file composed from DESIGN
  Target target = Target::kA5;
};

GenerateResult FinalizeRound(FinalizeContext& fc);

}  // namespace opdev::codegen
