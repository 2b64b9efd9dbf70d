// The "run" step: runs an op dir's kernel file on the CPU simulator or the NPU and triages
// the per-case results. Progress lines go to the context's log callback.
// Request: {"op_dir", "backend"?: "sim"|"npu", "case"?, "module_k"?, "file"?, "python"?,
//           "device"?, "npu_smi"?, "timeout"?, "idle_timeout"?, "log_dir"?, "target"?,
//           "design_cases"?}
// "python" (else the context's) is the NPU run's interpreter or, on sim, the interpreter of
// the test file on the CPU device (design_cases: the golden's).
#include "opdev/stage/run_op.h"
#include "opdev/steps/step.h"
#include "steps/step_util.h"

#include <iomanip>
#include <sstream>

namespace opdev::steps {

StepResult RunRunStep(const StepContext& ctx, const boost::json::object& request) {
  RequestReader rr(request);
  stage::RunOpOptions o;
  o.op_dir = rr.String("op_dir", /*required=*/true);
  o.case_name = rr.String("case");
  auto module_k = rr.Int("module_k");
  o.file = rr.String("file");
  o.log_dir = rr.String("log_dir");
  o.design_cases = rr.Bool("design_cases");
  std::string target_error;
  auto target = TargetOf(ctx, rr, &target_error, "--target: unknown target ");
  if (!target && rr.Ok()) return StepResult::Error(target_error);
  if (target) o.target = *target;
  std::string bad = ReadLaunchFields(rr, o);
  if (!rr.Ok()) return StepResult::Error(rr.error);
  if (!bad.empty()) return StepResult::Error(bad);
  if (module_k) {
    if (*module_k <= 0) return StepResult::Error("--module-k must be a positive integer");
    o.module_k = *module_k;
  }
  if (o.backend == "npu") o.interpreter = PythonOf(ctx, rr, o.interpreter);
  else o.python = PythonOf(ctx, rr, o.python);
  if (ctx.log) o.progress = [&ctx](const std::string& line) { ctx.log(0, line); };

  auto res = stage::RunOp(o);
  if (!res.ok()) return StepResult::Error(std::string(res.status().message()));
  StepResult r;
  r.status = res->triage.outcome == runtime::Outcome::kPass ? kStatusOk : kStatusFindings;
  r.document = res->ToJson();
  std::ostringstream out;
  for (const auto& c : res->commands) out << "$ " << c << "\n";
  for (const auto& c : res->cases) {
    out << "  " << std::left << std::setw(16) << runtime::CaseStatusName(c.status) << c.name;
    if (c.metrics.matched_ratio) out << "  matched_ratio=" << *c.metrics.matched_ratio;
    if (c.metrics.max_abs_error) out << " max_abs_error=" << *c.metrics.max_abs_error;
    if (!c.error.empty()) out << "  " << c.error.substr(0, 200);
    out << "\n";
  }
  if (!res->hazards.empty()) WriteDiagnosticsText(res->hazards, out);
  const auto& t = res->triage;
  out << runtime::OutcomeName(t.outcome)
      << (t.outcome == runtime::Outcome::kNotMeasured
              ? " (not measured)"
              : " (" + std::to_string(t.passed) + "/" + std::to_string(t.total) + " PASS)")
      << (t.category.empty() ? "" : "  failure_category: " + t.category) << "\n  " << t.summary
      << "\n";
  for (const auto& e : t.evidence) out << "  evidence: " << e << "\n";
  if (!t.layer.empty()) out << "  review next: " << t.layer << "\n";
  out << "  next: " << t.next_action << "\n";
  for (const auto& [role, path] : res->logs) out << "  " << role << ": " << path << "\n";
  r.text = out.str();
  return r;
}

}  // namespace opdev::steps
