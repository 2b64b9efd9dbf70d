// The "budget" step: the on-chip memory budget of a kernel file or an op dir's DESIGN §3
// map, their comparison, and optionally an SVG memory map.
// Request: {"path": kernel.py or op dir, "target"?, "design"?: DESIGN.md or "-", "svg"?: FILE}
#include "opdev/budget/budget_file.h"
#include "opdev/budget/memory_map_svg.h"
#include "opdev/steps/step.h"
#include "opdev/support/file_io.h"
#include "steps/step_util.h"

#include <sstream>

namespace opdev::steps {

StepResult RunBudgetStep(const StepContext& ctx, const boost::json::object& request) {
  RequestReader rr(request);
  const std::string path = rr.String("path", /*required=*/true);
  std::string error;
  auto target = TargetOf(ctx, rr, &error);
  const std::string design = rr.String("design");
  const std::string svg = rr.String("svg");
  if (!rr.Ok()) return StepResult::Error(rr.error);
  if (!target) return StepResult::Error(error);

  auto fb = budget::BudgetPath(path, *target, design);
  if (!fb.ok()) return StepResult::Error(std::string(fb.status().message()));
  if (!svg.empty()) {
    if (auto st = WriteFileAtomic(svg, budget::RenderMemoryMapSvg(fb->primary())); !st.ok())
      return StepResult::Error(std::string(st.message()));
  }
  StepResult r;
  r.status = fb->ok() ? kStatusOk : kStatusFindings;
  r.document = fb->ToJson();
  std::ostringstream out, err;
  if (fb->kernel) out << budget::BudgetReportToText(*fb->kernel);
  if (fb->design) out << budget::BudgetReportToText(*fb->design);
  Diagnostics all = fb->inputs;
  if (fb->kernel) all.Append(fb->kernel->diagnostics);
  if (fb->design) all.Append(fb->design->diagnostics);
  all.Append(fb->comparison);
  if (fb->kernel && fb->design && fb->comparison.empty())
    out << "kernel slots match the DESIGN §3 address map\n";
  if (!all.empty()) WriteDiagnosticsText(all, err);
  r.text = out.str();
  r.text_err = err.str();
  return r;
}

}  // namespace opdev::steps
