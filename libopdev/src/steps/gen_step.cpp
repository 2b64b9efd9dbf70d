// The "gen" step: generates the round's kernel file from the frozen op dir and writes it
// atomically (never into a read-only file, a frozen contract or the shared reference tree).
// Request: {"op_dir", "module_k"?: K, "finalize"?, "retry"? (a verifier retry of the
//           finalize), "cleanup_failed"? / "cleanup_succeeded"? (what the orchestrator's cleanup
//           did; neither: opdev performs the cleanup), "target"?, "out"?: FILE,
//           "stdout"?: true (return the file in the text instead of writing it)}
#include "opdev/codegen/generate.h"
#include "opdev/plan/dispatch.h"
#include "opdev/plan/round_plan.h"
#include "opdev/steps/step.h"
#include "steps/step_util.h"

#include <filesystem>
#include <sstream>

namespace opdev::steps {

StepResult RunGenStep(const StepContext& ctx, const boost::json::object& request) {
  RequestReader rr(request);
  const std::string dir = rr.String("op_dir", /*required=*/true);
  std::string error;
  auto target = TargetOf(ctx, rr, &error);
  auto module_k = rr.IntOrString("module_k");
  const bool finalize = rr.Bool("finalize");
  const bool retry = rr.Bool("retry");
  const bool cleanup_failed = rr.Bool("cleanup_failed");
  const bool cleanup_succeeded = rr.Bool("cleanup_succeeded");
  const std::string out_path = rr.String("out");
  const bool to_stdout = rr.Bool("stdout");
  if (!rr.Ok()) return StepResult::Error(rr.error);
  if (!target) return StepResult::Error(error);

  codegen::GenerateOptions gopts;
  gopts.target = *target;
  if (module_k) {
    Diagnostics d;
    auto k = plan::ParseModuleK(*module_k, &d);
    if (!k) return StepResult::Error("--module-k: " + (d.empty() ? "bad value" : d.items()[0].message));
    gopts.dispatch.module_k = *k;
  }
  gopts.dispatch.finalize = finalize;
  gopts.dispatch.retry_of_verifier = retry;
  if (cleanup_failed && cleanup_succeeded)
    return StepResult::Error("--cleanup-failed and --cleanup-succeeded are exclusive");
  if (cleanup_failed) gopts.dispatch.cleanup_succeeded = false;
  if (cleanup_succeeded) gopts.dispatch.cleanup_succeeded = true;
  if (gopts.dispatch.module_k && gopts.dispatch.finalize)
    return StepResult::Error("--module-k and --finalize are exclusive");
  if ((retry || cleanup_failed || cleanup_succeeded) && !finalize)
    return StepResult::Error("--retry, --cleanup-failed and --cleanup-succeeded need --finalize");

  codegen::GenerateResult g = codegen::GenerateKernelFile(dir, gopts);
  std::string written;
  // --out never lands on a file the round must not write (a historical staged file, the final
  // file in a Module round, a frozen contract or golden).
  if (g.ok() && !to_stdout && !out_path.empty()) {
    Diagnostics pd;
    if (auto plan = plan::PlanRound(dir, gopts.dispatch, &pd); plan.ok()) {
      std::error_code ec;
      const auto target = std::filesystem::weakly_canonical(out_path, ec);
      for (const auto& ro : plan->read_only) {
        std::error_code ec2;
        const auto p = std::filesystem::weakly_canonical(ro.path, ec2);
        if (!ec && !ec2 && p == target)
          return StepResult::Error(out_path + ": refusing to write " + ro.rel +
                                   ", which is read-only in this round (" +
                                   std::string(plan::ReadOnlyKindName(ro.kind)) + ")");
      }
    }
  }
  if (g.ok() && !to_stdout) {
    codegen::WriteOptions w;
    w.protected_roots.push_back(ProtectedSharedRoot());
    written = out_path.empty() ? g.file->path : out_path;
    if (auto st = codegen::WriteGeneratedFile(written, g.file->content, w); !st.ok())
      return StepResult::Error(std::string(st.message()));
    if (g.file->source_map)
      if (auto st = codegen::WriteSourceMap(written, *g.file->source_map); !st.ok())
        return StepResult::Error(std::string(st.message()));
  }
  StepResult r;
  r.status = g.ok() ? kStatusOk : kStatusFindings;
  boost::json::object o = g.ToJson();
  o["written"] = written;
  r.document = std::move(o);
  std::ostringstream out, err;
  if (g.ok() && to_stdout) out << g.file->content;
  if (!g.diagnostics.empty()) WriteDiagnosticsText(g.diagnostics, err);
  if (g.ok() && !written.empty()) {
    const auto& f = *g.file;
    out << "wrote " << written << " (" << f.content.size() << " bytes): kernel " << f.kernel
        << ", " << f.vector_functions.size() << " vector function(s), wrapper " << f.wrapper
        << ", " << f.tests.size() << " test(s)\n";
    for (const auto& u : f.budget.spaces)
      out << "budget " << MemSpaceName(u.space) << ": " << budget::HexAddress(u.high_water) << " ("
          << u.high_water << " B) of " << u.capacity << " B\n";
  } else if (!g.ok()) {
    err << "opdev gen: nothing written\n";
  }
  r.text = out.str();
  r.text_err = err.str();
  return r;
}

}  // namespace opdev::steps
