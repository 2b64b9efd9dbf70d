// The "stage" step: the whole Stage 4 round with its verdict report. Progress lines go to
// the context's log callback.
// Request: {"op_dir", "kb_root"?, "module_k"?, "finalize"?, "backend"?: "sim"|"npu",
//           "no_gen"?, "design_cases"? (sim: the DESIGN §8 runner for the run step),
//           "python"? (NPU run; else the context's), "probe_python"? (golden and
//           import probe), "device"?, "npu_smi"?, "timeout"?, "idle_timeout"?, "report_dir"?}
#include "opdev/stage/stage.h"
#include "opdev/steps/step.h"
#include "steps/step_util.h"


namespace opdev::steps {

StepResult RunStageStep(const StepContext& ctx, const boost::json::object& request) {
  RequestReader rr(request);
  stage::StageOptions o;
  o.op_dir = rr.String("op_dir", /*required=*/true);
  o.kb_root = KbRootOf(ctx, rr);
  auto module_k = rr.Int("module_k");
  o.finalize = rr.Bool("finalize");
  o.no_gen = rr.Bool("no_gen");
  o.design_cases = rr.Bool("design_cases");
  o.interpreter = PythonOf(ctx, rr, o.interpreter);
  if (std::string p = rr.String("probe_python"); !p.empty()) o.python = p;
  o.report_dir = rr.String("report_dir");
  o.protected_roots.push_back(ProtectedSharedRoot());
  if (!o.kb_root.empty()) o.protected_roots.push_back(o.kb_root);
  std::string bad = ReadLaunchFields(rr, o);
  if (!rr.Ok()) return StepResult::Error(rr.error);
  if (!bad.empty()) return StepResult::Error(bad);
  if (module_k) {
    if (*module_k <= 0) return StepResult::Error("--module-k must be a positive integer");
    if (o.finalize) return StepResult::Error("--module-k and --finalize exclude each other");
    o.module_k = *module_k;
  }
  if (ctx.log) o.progress = [&ctx](const std::string& line) { ctx.log(0, line); };

  auto res = stage::RunStage(o);
  if (!res.ok()) return StepResult::Error(std::string(res.status().message()));
  StepResult r;
  r.status = res->verdict.outcome == "CLEAN" ? kStatusOk : kStatusFindings;
  r.document = res->ToJson();
  r.text = res->ToText();
  return r;
}

}  // namespace opdev::steps
