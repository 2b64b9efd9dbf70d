// The "plan" step: the plan of one Stage 4 round from the dispatch, and the read-only guard.
// Request: {"op_dir", "module_k"?: K, "finalize"?, "retry"?, "cleanup_failed"?,
//           "dispatch"?: {...} or "JSON" or "@FILE", "snapshot_out"?: FILE}
//       or {"snapshot_check": FILE} (compare the read-only files with a snapshot).
#include "opdev/plan/dispatch.h"
#include "opdev/plan/read_only_guard.h"
#include "opdev/plan/round_plan.h"
#include "opdev/steps/step.h"
#include "opdev/support/file_io.h"
#include "steps/step_util.h"

#include <boost/json.hpp>

#include <iomanip>
#include <sstream>

namespace opdev::steps {
namespace {

void WritePlanText(const plan::RoundPlan& p, std::ostream& out) {
  auto row = [&out](const std::string& k, const std::string& v) {
    out << std::left << std::setw(16) << (k + ":") << v << "\n";
  };
  std::string mode(plan::ModeName(p.mode));
  if (p.module_k) mode += " (module_k=" + std::to_string(*p.module_k) + ", suffix " + p.suffix + ")";
  row("mode", mode);
  row("op", p.op + " (is_fusion: " + (p.is_fusion ? "true" : "false") + ", " +
                std::to_string(p.module_count) + " module(s))");
  row("product", p.product.rel + (p.product.exists ? " (exists)" : " (new)"));
  row("wrapper", p.wrapper);
  row("golden", p.golden_module + " (" + p.golden_file + ")");
  row("starting point", (p.starting_point ? p.starting_point->rel + " -- " : std::string()) +
                            p.starting_point_reason);
  row("run", p.run_command + (p.run_cwd.empty() ? "" : "   (from " + p.run_cwd + ")"));
  out << "prerequisites:\n";
  for (const auto& q : p.prerequisites)
    out << "  " << (q.exists ? "ok      " : "MISSING ") << q.rel << "  (" << q.why << ")\n";
  out << "read-only (" << p.read_only.size() << "):\n";
  for (const auto& f : p.read_only)
    out << "  " << std::left << std::setw(16) << plan::ReadOnlyKindName(f.kind) << f.rel
        << (f.is_symlink ? "  (symlink!)" : "") << "\n";
  out << "writable:\n";
  for (const auto& w : p.writable) out << "  " << w << "\n";
}

StepResult SnapshotCheck(const std::string& file) {
  auto text = ReadTextFile(file);
  if (!text.ok()) return StepResult::Error(std::string(text.status().message()));
  boost::system::error_code ec;
  auto v = boost::json::parse(*text, ec);
  if (ec) return StepResult::Error(file + ": not JSON (" + ec.message() + ")");
  auto snap = plan::ReadOnlySnapshot::FromJson(v);
  if (!snap.ok()) return StepResult::Error(file + ": " + std::string(snap.status().message()));
  Diagnostics diags = plan::CheckReadOnlySnapshot(*snap);
  StepResult r;
  r.status = diags.HasErrors() ? kStatusFindings : kStatusOk;
  boost::json::object o;
  o["snapshot"] = file;
  o["files_checked"] = snap->files.size();
  o["status"] = diags.HasErrors() ? "changed" : "unchanged";
  o["diagnostics"] = diags.ToJson();
  r.document = std::move(o);
  std::ostringstream out, err;
  if (!diags.empty()) WriteDiagnosticsText(diags, err);
  else out << "read-only set unchanged (" << snap->files.size() << " files)\n";
  r.text = out.str();
  r.text_err = err.str();
  return r;
}

}  // namespace

StepResult RunPlanStep(const StepContext&, const boost::json::object& request) {
  RequestReader rr(request);
  std::string snapshot_check = rr.String("snapshot_check");
  if (!rr.Ok()) return StepResult::Error(rr.error);
  if (!snapshot_check.empty()) return SnapshotCheck(snapshot_check);

  const std::string dir = rr.String("op_dir", /*required=*/true);
  plan::DispatchArgs da;
  da.module_k = rr.IntOrString("module_k");
  da.finalize = rr.Bool("finalize");
  da.retry_of_verifier = rr.Bool("retry");
  if (rr.Bool("cleanup_failed")) da.cleanup_succeeded = false;
  if (const auto* d = request.if_contains("dispatch"); d && !d->is_null()) {
    if (d->is_string()) da.dispatch_json = std::string(d->as_string());
    else if (d->is_object()) da.dispatch_json = boost::json::serialize(*d);
    else if (rr.error.empty()) rr.error = "request field 'dispatch' must be an object or a string";
  }
  const std::string snapshot_out = rr.String("snapshot_out");
  if (!rr.Ok()) return StepResult::Error(rr.error);

  Diagnostics diags;
  auto dispatch = plan::DispatchFromArgs(da, &diags);
  std::optional<plan::RoundPlan> plan;
  bool input_error = false;
  if (dispatch) {
    auto p = plan::PlanRound(dir, *dispatch, &diags);
    if (p.ok()) {
      plan = std::move(*p);
    } else {
      // No plan: an invalid dispatch is a finding (1); an unusable op dir is an input error (2).
      input_error = !diags.HasCode(plan::code::kDispatchConflict) &&
                    !diags.HasCode(plan::code::kDispatchNotFusion) &&
                    !diags.HasCode(plan::code::kDispatchNeedsModule) &&
                    !diags.HasCode(plan::code::kDispatchRange) &&
                    !diags.HasCode(plan::code::kDispatchEarlyFinalize) &&
                    !diags.HasCode(plan::code::kDispatchRetryNoFinal) &&
                    !diags.HasCode(plan::code::kPlanNoIsFusion);
    }
  }
  std::optional<plan::ReadOnlySnapshot> snap;
  if (plan && !snapshot_out.empty()) {
    auto s = plan::TakeReadOnlySnapshot(*plan);
    if (!s.ok()) return StepResult::Error(std::string(s.status().message()));
    auto st = WriteFileAtomic(snapshot_out, boost::json::serialize(s->ToJson()) + "\n");
    if (!st.ok()) return StepResult::Error(std::string(st.message()));
    snap = std::move(*s);
  }
  StepResult r;
  r.status = input_error ? kStatusError : (!plan || diags.HasErrors()) ? kStatusFindings : kStatusOk;
  boost::json::object o;
  o["op_dir"] = dir;
  o["status"] = StatusWord(r.status);
  if (plan) o["plan"] = plan->ToJson(); else o["plan"] = nullptr;
  if (snap) o["snapshot"] = snapshot_out;
  o["errors"] = diags.ErrorCount();
  o["warnings"] = diags.WarningCount();
  o["diagnostics"] = diags.ToJson();
  r.document = std::move(o);
  std::ostringstream out, err;
  if (plan) WritePlanText(*plan, out);
  if (snap)
    out << "snapshot:       " << snap->files.size() << " read-only file(s) hashed into "
        << snapshot_out << "\n";
  if (!diags.empty()) WriteDiagnosticsText(diags, err);
  r.text = out.str();
  r.text_err = err.str();
  return r;
}

}  // namespace opdev::steps
