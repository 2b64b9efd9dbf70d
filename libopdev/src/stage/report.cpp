// The verdict report of a round: JSON (docs/report-schema.json) and the Markdown beside it.
#include "opdev/stage/stage.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_format.h"

namespace opdev::stage {
namespace {

constexpr const char* kVerifierNote =
    "opdev self-verification of Stage 4; this is not a verifier PASS (the verifier's "
    "stage4-check / module-check decides).";

std::string Cell(std::string s) {
  for (size_t p; (p = s.find('|')) != std::string::npos;) s.replace(p, 1, "\\|");
  for (size_t p; (p = s.find('\n')) != std::string::npos;) s.replace(p, 1, " ");
  return s;
}

std::string Metric(const std::optional<double>& v, const absl::FormatSpec<double>& fmt) {
  return v ? absl::StrFormat(fmt, *v) : std::string("—");
}

}  // namespace

std::vector<std::string> StageReport::Commands() const {
  std::vector<std::string> all;
  for (const auto& s : steps) all.insert(all.end(), s.commands.begin(), s.commands.end());
  return all;
}

boost::json::object StageReport::ToJson() const {
  boost::json::object o;
  o["schema"] = "opdev.stage-report/1";
  o["op"] = op;
  o["op_dir"] = op_dir;
  o["mode"] = mode;
  o["dispatch"] = dispatch;
  o["backend"] = backend;
  o["generated"] = generated;
  o["kernel_file"] = kernel_file;
  boost::json::object v;
  v["outcome"] = verdict.outcome;
  v["failure_category"] = verdict.failure_category.empty() ? boost::json::value(nullptr)
                                                           : boost::json::value(verdict.failure_category);
  v["suspected"] = verdict.suspected;
  v["summary"] = verdict.summary;
  v["why"] = verdict.why;
  v["next_action"] = verdict.next_action;
  boost::json::array ev;
  for (const auto& e : verdict.evidence) ev.emplace_back(e);
  v["evidence"] = std::move(ev);
  v["verifier_pass_claimed"] = false;
  v["note"] = kVerifierNote;
  o["verdict"] = std::move(v);
  boost::json::array cmds;
  for (const auto& c : Commands()) cmds.emplace_back(c);
  o["commands"] = std::move(cmds);
  boost::json::array st;
  for (const auto& s : steps) st.push_back(s.ToJson());
  o["steps"] = std::move(st);
  boost::json::array cs;
  for (const auto& c : cases) cs.push_back(c.ToJson());
  o["cases"] = std::move(cs);
  boost::json::array hz;
  for (const auto& g : hazard_groups) hz.push_back(g.ToJson());
  o["hazards"] = std::move(hz);
  o["triage"] = diagnosis ? boost::json::value(diagnosis->ToJson()) : boost::json::value(nullptr);
  boost::json::array kb;
  for (const auto& e : kb_evidence) {
    boost::json::object q;
    q["class_id"] = e.class_id;
    q["reference"] = e.reference;
    q["selection_field"] = e.selection_field;
    q["req_id"] = e.req_id;
    q["invariant"] = e.invariant;
    q["planned_location"] = e.planned_location;
    q["verification_method"] = e.verification_method;
    kb.push_back(std::move(q));
  }
  o["kb_evidence"] = std::move(kb);
  boost::json::array art;
  for (const auto& [role, path] : artifacts) {
    boost::json::object a;
    a["role"] = role;
    a["path"] = path;
    art.push_back(std::move(a));
  }
  o["artifacts"] = std::move(art);
  return o;
}

std::string StageReport::ToMarkdown() const {
  std::string md;
  absl::StrAppend(&md, "# opdev stage report: ", op, " (", mode.empty() ? "?" : mode, ", ", backend, ")\n\n");
  absl::StrAppend(&md, "> ", kVerifierNote, "\n\n");
  absl::StrAppend(&md, "## Verdict\n\n");
  absl::StrAppend(&md, "- **outcome**: ", verdict.outcome, "\n");
  absl::StrAppend(&md, "- **failure_category**: ",
                  verdict.failure_category.empty() ? "none" : verdict.failure_category,
                  verdict.suspected ? " (suspected)" : "", "\n");
  absl::StrAppend(&md, "- **summary**: ", verdict.summary, "\n");
  if (!verdict.why.empty()) absl::StrAppend(&md, "- **why**: ", verdict.why, "\n");
  absl::StrAppend(&md, "- **next action**: ", verdict.next_action, "\n");
  absl::StrAppend(&md, "- **kernel file**: `", kernel_file, "` (", generated ? "generated" : "existing", ")\n");
  if (!verdict.evidence.empty()) {
    absl::StrAppend(&md, "\nEvidence:\n\n```\n");
    for (const auto& e : verdict.evidence) absl::StrAppend(&md, e, "\n");
    absl::StrAppend(&md, "```\n");
  }
  absl::StrAppend(&md, "\n## Steps\n\n| # | step | status | summary |\n|---|---|---|---|\n");
  int n = 0;
  for (const auto& s : steps)
    absl::StrAppend(&md, "| ", ++n, " | ", s.name, " | ", std::string(StepStatusName(s.status)), " | ", Cell(s.summary), " |\n");
  absl::StrAppend(&md, "\n## Commands\n\n```\n");
  for (const auto& c : Commands()) absl::StrAppend(&md, c.substr(0, 300), "\n");
  absl::StrAppend(&md, "```\n\n## Cases\n\n");
  if (cases.empty()) {
    absl::StrAppend(&md, "No case ran.\n");
  } else {
    absl::StrAppend(&md, "| case | status | matched_ratio | max_abs_error | mean_abs_error | mean_rel_error | note |\n"
                         "|---|---|---|---|---|---|---|\n");
    for (const auto& c : cases)
      absl::StrAppend(&md, "| ", c.name, " | ", std::string(runtime::CaseStatusName(c.status)), " | ",
                      Metric(c.metrics.matched_ratio, "%.4f"), " | ", Metric(c.metrics.max_abs_error, "%.3e"),
                      " | ", Metric(c.metrics.mean_abs_error, "%.3e"), " | ",
                      Metric(c.metrics.mean_rel_error, "%.3e"), " | ", Cell(c.error.substr(0, 160)), " |\n");
  }
  if (diagnosis) {
    absl::StrAppend(&md, "\n## Triage\n\n", diagnosis->ToMarkdown());
  } else if (!hazard_groups.empty()) {
    absl::StrAppend(&md, "\n## Hazards (each once)\n\n| code | severity | where | cases | message |\n|---|---|---|---|---|\n");
    for (const auto& g : hazard_groups)
      absl::StrAppend(&md, "| ", g.hazard.code, " | ", std::string(SeverityName(g.hazard.severity)), " | ",
                      g.hazard.file.substr(g.hazard.file.find_last_of('/') + 1), ":", g.hazard.line, " | ",
                      absl::StrJoin(g.cases, ", "), " | ", Cell(g.hazard.message.substr(0, 200)), " |\n");
  }
  absl::StrAppend(&md, "\n## KB evidence (active requirements)\n\n");
  if (kb_evidence.empty()) {
    absl::StrAppend(&md, "No active requirement (or the bindings could not be read).\n");
  } else {
    absl::StrAppend(&md, "| class_id | reference | selection_field | req_id | planned_location |\n|---|---|---|---|---|\n");
    for (const auto& e : kb_evidence)
      absl::StrAppend(&md, "| ", Cell(e.class_id), " | ", Cell(e.reference), " | ", Cell(e.selection_field),
                      " | ", Cell(e.req_id), " | ", Cell(e.planned_location.substr(0, 120)), " |\n");
  }
  absl::StrAppend(&md, "\n## Findings\n\n");
  bool any = false;
  for (const auto& s : steps) {
    if (s.findings.empty()) continue;
    any = true;
    absl::StrAppend(&md, "### ", s.name, "\n\n```\n", s.findings.ToText(), "```\n\n");
  }
  if (!any) absl::StrAppend(&md, "None.\n\n");
  absl::StrAppend(&md, "## Artifacts\n\n");
  for (const auto& [role, path] : artifacts) absl::StrAppend(&md, "- ", role, ": `", path, "`\n");
  return md;
}

std::string StageReport::ToText() const {
  std::string out = absl::StrCat("opdev stage ", op, " (", mode, ", ", backend, ")\n");
  for (const auto& s : steps)
    absl::StrAppend(&out, "  ", s.name, ": ", std::string(StepStatusName(s.status)), " - ", s.summary, "\n");
  absl::StrAppend(&out, "verdict: ", verdict.outcome,
                  verdict.failure_category.empty() ? "" : "  failure_category: " + verdict.failure_category,
                  verdict.suspected ? " (suspected)" : "", "\n  ", verdict.summary, "\n");
  if (diagnosis)
    for (const auto& l : diagnosis->SummaryLines()) absl::StrAppend(&out, "  ", l, "\n");
  absl::StrAppend(&out, "  next: ", verdict.next_action, "\n");
  for (const auto& e : verdict.evidence) absl::StrAppend(&out, "  evidence: ", e, "\n");
  absl::StrAppend(&out, "  (self-verification only; not a verifier PASS)\n");
  if (!report_json_path.empty()) absl::StrAppend(&out, "report: ", report_json_path, "\n        ", report_md_path, "\n");
  return out;
}

}  // namespace opdev::stage
