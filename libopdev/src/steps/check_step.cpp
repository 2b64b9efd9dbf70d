// The "check" step: validate the frozen contracts of an op dir.
// Request: {"op_dir": "...", "kb_root"?: "...", "target"?: "a5"|"a3"} (kb_root and target
// default to the context's).
#include "opdev/contract/check.h"
#include "opdev/steps/step.h"
#include "steps/step_util.h"

#include <sstream>

namespace opdev::steps {

StepResult RunCheckStep(const StepContext& ctx, const boost::json::object& request) {
  RequestReader rr(request);
  std::string dir = rr.String("op_dir", /*required=*/true);
  std::string kb_root = rr.String("kb_root");
  std::string target_name = rr.String("target");
  if (!rr.Ok()) return StepResult::Error(rr.error);
  Target target = ctx.target;
  if (!target_name.empty()) {
    auto t = ParseTarget(target_name);
    if (!t) return StepResult::Error("unknown target '" + target_name + "' (expected a5 or a3)");
    target = *t;
  }
  contract::LoadOptions load;
  load.kb_root = kb_root.empty() ? ctx.kb_root : kb_root;
  contract::CheckOptions check;
  check.target = target;
  Diagnostics diags;
  absl::Status st = contract::CheckOpDirPath(dir, load, check, &diags);
  StepResult r;
  r.status = !st.ok() || contract::HasInputErrors(diags) ? kStatusError
             : diags.HasErrors()                          ? kStatusFindings
                                                          : kStatusOk;
  boost::json::object o;
  o["op_dir"] = dir;
  o["kb_root"] = contract::ResolveKbRoot(dir, load.kb_root);
  o["target"] = std::string(TargetName(target));
  o["status"] = r.status == kStatusOk ? "clean" : r.status == kStatusFindings ? "errors" : "input_error";
  o["errors"] = diags.ErrorCount();
  o["warnings"] = diags.WarningCount();
  o["diagnostics"] = diags.ToJson();
  if (!st.ok() && diags.empty()) o["error"] = std::string(st.message());
  r.document = std::move(o);
  std::ostringstream err;
  if (!st.ok() && diags.empty()) err << st.message() << "\n";
  WriteDiagnosticsText(diags, err);
  r.text_err = err.str();
  return r;
}

}  // namespace opdev::steps
