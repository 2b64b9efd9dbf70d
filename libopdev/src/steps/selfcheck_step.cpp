// The "selfcheck" step: the items of the verifier's stage4-check (or module-check) on an op
// dir's kernel file. Without "backend" it never writes anything and the dynamic items are
// blocked; with "backend" it first runs the file as the "run" step does (logs under
// reports/opdev/run/) and the dynamic items take that run.
// Request: {"op_dir", "module_k"?, "finalize"?, "file"?, "kb_root"?, "snapshot"?: FILE,
//           "python"?, "no_probe"?, "backend"?: "sim"|"npu", "device"?, "npu_smi"?,
//           "timeout"?, "idle_timeout"?}
#include "opdev/plan/read_only_guard.h"
#include "opdev/selfcheck/selfcheck.h"
#include "opdev/stage/run_op.h"
#include "opdev/steps/step.h"
#include "opdev/support/file_io.h"
#include "steps/step_util.h"

#include <boost/json/parse.hpp>

#include <iomanip>
#include <sstream>

namespace opdev::steps {

StepResult RunSelfcheckStep(const StepContext& ctx, const boost::json::object& request) {
  RequestReader rr(request);
  selfcheck::SelfCheckOptions o;
  o.op_dir = rr.String("op_dir", /*required=*/true);
  auto module_k = rr.Int("module_k");
  o.finalize = rr.Bool("finalize");
  o.file = rr.String("file");
  o.kb_root = KbRootOf(ctx, rr);
  const std::string snapshot = rr.String("snapshot");
  const std::string python = PythonOf(ctx, rr, "/usr/bin/python3");
  const bool no_probe = rr.Bool("no_probe");
  const bool run_it = request.contains("backend");
  stage::RunOpOptions ro;
  std::string bad_launch = run_it ? ReadLaunchFields(rr, ro) : "";
  if (!rr.Ok()) return StepResult::Error(rr.error);
  if (!bad_launch.empty()) return StepResult::Error(bad_launch);
  if (module_k && o.finalize) return StepResult::Error("--module-k and --finalize exclude each other");
  if (module_k && *module_k <= 0) return StepResult::Error("--module-k must be a positive integer");
  o.module_k = module_k;
  o.python = no_probe ? "" : python;
  if (!snapshot.empty()) {
    auto text = ReadTextFile(snapshot);
    if (!text.ok()) return StepResult::Error(std::string(text.status().message()));
    boost::system::error_code ec;
    auto v = boost::json::parse(*text, ec);
    if (ec) return StepResult::Error(snapshot + ": not JSON: " + ec.message());
    auto s = plan::ReadOnlySnapshot::FromJson(v);
    if (!s.ok()) return StepResult::Error(std::string(s.status().message()));
    o.snapshot = *s;
  }
  if (run_it) {
    ro.op_dir = o.op_dir;
    ro.module_k = o.module_k;
    ro.file = o.file;
    if (ro.backend == "npu") ro.interpreter = PythonOf(ctx, rr, ro.interpreter);
    else ro.python = python;
    if (ctx.log) ro.progress = [&ctx](const std::string& line) { ctx.log(0, line); };
    auto run = stage::RunOp(ro);
    if (!run.ok()) return StepResult::Error(std::string(run.status().message()));
    o.run = stage::RunEvidenceOf(*run, o.op_dir);
  }
  auto report = selfcheck::RunSelfCheck(o);
  if (!report.ok()) return StepResult::Error(std::string(report.status().message()));
  StepResult r;
  r.status = report->failed > 0 || report->blocked > 0 ? kStatusFindings : kStatusOk;
  r.document = report->ToJson();
  std::ostringstream out;
  out << "self-check (" << report->mode << ") of " << report->file << "\n";
  for (const auto& i : report->items) {
    out << "  " << std::left << std::setw(6) << i.id << std::setw(14)
        << std::string(selfcheck::ItemStatusName(i.status)) << i.title << "\n";
    if (i.status != selfcheck::ItemStatus::kPass && !i.evidence.empty())
      out << "        " << i.evidence << "\n";
  }
  Diagnostics all = report->AllFindings();
  if (!all.empty()) WriteDiagnosticsText(all, out);
  out << report->passed << " passed, " << report->failed << " failed, " << report->blocked
      << " blocked, " << report->not_available << " not available"
      << (report->failure_category.empty() ? "" : "; failure_category: " + report->failure_category)
      << (report->module_k && report->failed > 0
              ? "; failing_module_boundary=" + std::to_string(*report->module_k)
              : "")
      << "\n";
  r.text = out.str();
  return r;
}

}  // namespace opdev::steps
