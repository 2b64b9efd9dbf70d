// The "selfcheck" step: the static items of the verifier's stage4-check (or module-check)
// on an op dir's kernel file. Never writes anything.
// Request: {"op_dir", "module_k"?, "finalize"?, "file"?, "kb_root"?, "snapshot"?: FILE,
//           "python"?, "no_probe"?}
#include "opdev/kbusage/check.h"
#include "opdev/plan/read_only_guard.h"
#include "opdev/selfcheck/selfcheck.h"
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
  if (!rr.Ok()) return StepResult::Error(rr.error);
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
  if (!o.kb_root.empty()) {
    o.kb_usage_check = [&o](const std::string& dir) -> std::optional<Diagnostics> {
      Diagnostics d;
      kbusage::CheckOptions ko;
      ko.kb_root = o.kb_root;
      if (o.module_k) {
        ko.mode = plan::Mode::kL1Module;
        ko.module_k = *o.module_k;
      } else if (o.finalize) {
        ko.mode = plan::Mode::kL1Finalize;
      }
      auto s = kbusage::CheckKbUsage(dir, ko, &d);
      if (!s.ok()) d.Error("KBU-INPUTS", "kb_usage_invalid", dir, 0, std::string(s.status().message()));
      return d;
    };
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
      << "\n";
  r.text = out.str();
  return r;
}

}  // namespace opdev::steps
