// Joining separation, repro, localisation, hazards and root cause (see diagnosis.h).
#include "opdev/triage/diagnosis.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace opdev::triage {
namespace {

std::string ShapeText(const std::vector<std::int64_t>& s) { return absl::StrCat("[", absl::StrJoin(s, ","), "]"); }

std::string Cell(std::string s) {
  for (size_t p = 0; (p = s.find('|', p)) != std::string::npos; p += 2) s.replace(p, 1, "\\|");
  for (size_t p; (p = s.find('\n')) != std::string::npos;) s.replace(p, 1, " ");
  return s;
}

// A SIM-GM-RACE message names the accessing core first and the other after ", which "
// ("AIC 0 writes 'ws'[0, 3] at line 41, which AIV 1 (block 0, subblock 1) read at line 77 ...");
// true when one is an AIC and the other an AIV (a producer and its consumer).
bool CrossKindRace(std::string_view message) {
  const size_t which = message.find(", which ");
  if (which == std::string_view::npos) return false;
  const std::string_view first = message.substr(0, 3), second = message.substr(which + 8, 3);
  return (first == "AIC" && second == "AIV") || (first == "AIV" && second == "AIC");
}

}  // namespace

boost::json::object Diagnosis::ToJson() const {
  boost::json::object o;
  const SymptomRow& row = RowOf(separation.symptom);
  boost::json::object sym;
  sym["row"] = std::string(row.key);
  sym["symptom"] = std::string(row.symptom);
  sym["check_first"] = std::string(row.check_first);
  sym["layer"] = std::string(row.layer);
  o["symptom"] = std::move(sym);
  o["separation"] = separation.ToJson();
  o["facts"] = facts.ToJson();
  o["attributes"] = attributes.ToJson();
  o["repro"] = repro ? boost::json::value(repro->ToJson()) : boost::json::value(nullptr);
  o["localisation"] = localisation ? boost::json::value(localisation->ToJson()) : boost::json::value(nullptr);
  o["root_cause"] = root.ToJson();
  o["flaky"] = flaky;
  o["measurement"] = measurement;
  o["why"] = why;
  o["next_action"] = next_action;
  return o;
}

std::string Diagnosis::ToMarkdown() const {
  std::string md;
  const SymptomRow& row = RowOf(separation.symptom);
  absl::StrAppend(&md, why, "\n\n");
  if (!measurement.empty()) absl::StrAppend(&md, "- **measurement**: ", measurement, "\n");
  absl::StrAppend(&md, "- **separation**: ", separation.sentence, "\n");
  absl::StrAppend(&md, "- **§8 symptom**: ", row.symptom, " — check first: ", row.check_first,
                  " (layer: ", row.layer, ")\n");
  if (!root.category.empty())
    absl::StrAppend(&md, "- **root cause**: ", root.category, root.suspected ? " (suspected)" : "",
                    root.Location().empty() ? "" : " at " + root.Location(),
                    root.code.empty() ? "" : " — " + root.code, "\n");
  if (!root.design_text.empty())
    for (size_t i = 0; i < root.design_text.size() && i < root.design_lines.size(); ++i)
      absl::StrAppend(&md, "  - DESIGN.md:", root.design_lines[i], ": `", root.design_text[i], "`\n");
  if (!root.route.empty()) absl::StrAppend(&md, "- **routing**: ", root.route, "\n");
  if (localisation) absl::StrAppend(&md, "- **localisation** (", localisation->case_name, "): ", localisation->sentence, "\n");
  if (repro) absl::StrAppend(&md, "- **trustworthy failure / minimal repro**: ", repro->sentence, "\n");
  absl::StrAppend(&md, "- **next action**: ", next_action, "\n");
  if (!hazards.empty()) {
    absl::StrAppend(&md, "\n### Hazards (each once)\n\n| code | severity | where | DESIGN origin | cases | message |\n|---|---|---|---|---|---|\n");
    for (const auto& g : hazards)
      absl::StrAppend(&md, "| ", g.hazard.code, " | ", std::string(SeverityName(g.hazard.severity)), " | ",
                      g.hazard.file.substr(g.hazard.file.find_last_of('/') + 1), ":", g.hazard.line, " | ",
                      Cell(g.origin.Text().empty() ? "—" : g.origin.Text()), " | ", absl::StrJoin(g.cases, ", "),
                      " | ", Cell(g.hazard.message.substr(0, 200)), " |\n");
  }
  if (!attributes.measures.empty()) {
    absl::StrAppend(&md, "\n### Case attributes\n\n| case | outcome | measured by | shape | tiles | block_dim | registers/row | row tail | col tail |\n|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < attributes.measures.size() && i < attributes.cases.size(); ++i) {
      const auto& m = attributes.measures[i];
      const auto& c = attributes.cases[i];
      const char* out = c.outcome == CaseOutcome::kFail ? "FAIL" : c.outcome == CaseOutcome::kPass ? "PASS" : "—";
      std::string by = c.outcome == CaseOutcome::kNotMeasured ? "—" : c.measured_by == "run" ? "run" : "triage rerun";
      if (c.rerun && c.measured_by == "run")
        absl::StrAppend(&by, " (rerun: ", *c.rerun == c.outcome ? "same" : CaseOutcomeName(*c.rerun), ")");
      absl::StrAppend(&md, "| ", c.name, " | ", out, " | ", by, " | ", ShapeText(c.shape), " | ", m.tiles, " | ", m.block_dim,
                      " | ", m.registers, " | ", m.row_tail, " | ", m.col_tail, " |\n");
    }
  }
  return md;
}

std::vector<std::string> Diagnosis::SummaryLines() const {
  std::vector<std::string> out;
  out.push_back(absl::StrCat("why: ", why));
  out.push_back(absl::StrCat("symptom: ", RowOf(separation.symptom).symptom, " — check first: ",
                             RowOf(separation.symptom).check_first));
  if (!root.Location().empty())
    out.push_back(absl::StrCat("location: ", root.Location(), root.code.empty() ? "" : " (" + root.code + ")"));
  if (repro && repro->Reproduced())
    out.push_back(absl::StrCat("minimal repro: ", ShapeText(repro->minimal_shape), " (", repro->verdict, ")"));
  else if (repro)
    out.push_back(absl::StrCat("rerun: ", repro->case_name, " ", repro->verdict));
  out.push_back(absl::StrCat("hazards: ", hazards.size(), " distinct"));
  return out;
}

Diagnosis Diagnose(DiagnoseInput in) {
  Diagnosis d;
  d.facts = in.facts;
  d.attributes = DeriveAttributes(in.cases, in.facts);
  d.separation = Bisect(d.attributes);
  d.repro = in.repro;
  d.localisation = in.localisation;
  d.hazards = in.hazards;
  in.route.hazards = in.hazards;
  in.route.localisation = in.localisation;
  d.root = Route(in.route);
  d.flaky = d.repro && d.repro->verdict == "flaky";
  d.measurement = in.measurement;
  // An error hazard that names a §8 row outright overrides the shape-only symptom: output
  // coverage (never written, written by two cores, a GM element two cores of one kind access
  // unordered) is "cores" even when the multi-tile cases are the failing ones; a GM element an
  // AIC and an AIV access unordered, and every cross-core event or on-chip race hazard
  // (SIM-XCORE-*), is the producer/consumer order of "sync warnings, pipeline results wrong";
  // an operand dtype is "by dtype". A never-written value read is the producer/consumer row
  // only when the shapes do not separate (a tail read of padding is a tail). An out-of-range
  // DMA on tail cases stays "only tails fail".
  // A second core's store of the same values (SIM-OUT-MULTI-CORE-SAME, a warning: the result
  // does not depend on the order) names the cores row too when it is what the route chose: the
  // output split is wrong.
  if (!d.root.code.empty() && d.root.code.find("OUT-MULTI-CORE-SAME") != std::string::npos)
    d.separation.symptom = Symptom::kCores;
  if (!d.root.code.empty() && d.root.basis == "error_hazard") {
    const std::string& c = d.root.code;
    if (c.find("GM-RACE") != std::string::npos)
      d.separation.symptom = CrossKindRace(d.root.message) ? Symptom::kSyncPipeline : Symptom::kCores;
    else if (c.find("OUT-UNWRITTEN") != std::string::npos || c.find("MULTI-CORE") != std::string::npos)
      d.separation.symptom = Symptom::kCores;
    else if (c.find("XCORE-") != std::string::npos)
      d.separation.symptom = Symptom::kSyncPipeline;
    else if (c.find("OP-DTYPE") != std::string::npos)
      d.separation.symptom = Symptom::kDtypeConfig;
    else if (c.find("UNINIT") != std::string::npos && d.separation.kind != "separated")
      d.separation.symptom = Symptom::kSyncPipeline;
  }
  if (in.route.environment) d.separation.symptom = Symptom::kEnvironment;
  const SymptomRow& row = RowOf(d.separation.symptom);

  // The paragraph.
  std::vector<std::string> why;
  const size_t nf = d.separation.failing.size(), np = d.separation.passing.size();
  if (in.route.environment) {
    why.push_back("The run hit an environment problem, so no case was measured.");
  } else if (nf > 0) {
    if (!d.measurement.empty()) why.push_back(absl::StrCat(d.measurement, "."));
    why.push_back(absl::StrCat(nf, " of ", nf + np, " measured case(s) fail: ", d.separation.sentence, "."));
  }
  if (!in.route.environment)
    why.push_back(absl::StrCat("§8 points to \"", row.symptom, "\": check ", row.check_first, "."));
  if (d.localisation && d.localisation->mismatched > 0) why.push_back(absl::StrCat(d.localisation->sentence, "."));
  if (!d.root.code.empty())
    why.push_back(absl::StrCat("The simulator reports ", d.root.code, " at ", d.root.Location().empty() ? d.root.kernel_file : d.root.Location().substr(0, d.root.Location().find(" ←")),
                               ": ", d.root.message, d.root.message.empty() || d.root.message.back() == '.' ? "" : "."));
  else if (d.root.basis == "writer")
    why.push_back(absl::StrCat("No hazard names a line; the wrong elements were written at ",
                               d.root.Location().substr(0, d.root.Location().find(" ←")), "."));
  if (d.root.origin == "design" || d.root.origin == "design_derived") {
    std::vector<std::string> lines;
    for (size_t i = 0; i < d.root.design_lines.size(); ++i)
      lines.push_back(absl::StrCat(d.root.design_lines[i], i < d.root.design_text.size() ? " (`" + d.root.design_text[i] + "`)" : ""));
    why.push_back(absl::StrCat("That code was ", d.root.origin == "design" ? "transcribed verbatim from" : "derived from",
                               " DESIGN.md line ", absl::StrJoin(lines, ", "),
                               ", so the defect is in the frozen design (suspected design_violation); codegen does not repair it."));
  } else if (d.root.origin == "skeleton" || d.root.origin == "emitter") {
    why.push_back(absl::StrCat("That line was written by opdev's own ", d.root.origin, " (", d.root.rule,
                               "), not by DESIGN: an opdev defect (implementation_error)."));
  } else if (d.root.origin == "kernel") {
    why.push_back(in.route.generated
                      ? "The file no longer matches its source map, so the defect is the kernel line's (implementation_error)."
                      : "The file is hand-written or edited (no matching source map), so the defect is the kernel line's (implementation_error).");
  }
  if (d.repro) why.push_back(absl::StrCat(d.repro->sentence, "."));
  d.why = absl::StrJoin(why, " ");

  // The next action.
  std::string after;
  const bool reproduced = d.repro && d.repro->Reproduced();
  if (reproduced) {
    std::string opposite = d.separation.passing.empty() ? "" : d.separation.passing.front();
    after = absl::StrCat("; after a fix rerun the minimal repro ", ShapeText(d.repro->minimal_shape),
                         opposite.empty() ? "" : ", then a case through the opposite branch (" + opposite + ")",
                         ", then all §8 cases");
  }
  if (d.flaky) {
    d.next_action = absl::StrCat("the failure is flaky: ", d.repro->case_name,
                                 " passes when rerun alone; look for state that crosses cases (uninitialised "
                                 "memory, ordering, timing) before changing code, and rerun the whole file");
  } else if (d.root.category == category::kDesignViolation) {
    d.next_action = absl::StrCat(
        "report a suspected design_violation with the original error (",
        in.first_failure_text.empty() ? d.root.code : in.first_failure_text, "), ",
        reproduced ? absl::StrCat("the minimal repro (", d.repro->case_name, " shrunk to ", ShapeText(d.repro->minimal_shape), ")")
                   : absl::StrCat("the first failing case (", d.repro ? d.repro->case_name : std::string("see the case table"),
                                  d.repro ? absl::StrCat("; its reruns are ", d.repro->verdict) : "", ")"),
        " and the contract location (DESIGN.md:", absl::StrJoin(d.root.design_lines, ", "),
        "); do not change DESIGN or work around it in the kernel");
  } else if (d.root.category == category::kImplementationError && (d.root.origin == "skeleton" || d.root.origin == "emitter")) {
    d.next_action = absl::StrCat("report an opdev defect: ", d.root.Location(), " was written by opdev (", d.root.rule,
                                 "); do not hand-edit the generated file silently (a hand edit drops its source map)", after);
  } else if (d.root.category == category::kImplementationError) {
    d.next_action = absl::StrCat("fix ", d.root.Location(), " (", row.layer, ": ", row.check_first, ")", after);
  } else if (d.root.category == category::kCapabilityGap) {
    d.next_action = absl::StrCat("the simulator does not model what ", d.root.Location(),
                                 " uses: confirm on the NPU (opdev run --backend npu); not a kernel defect until shown there");
  } else if (d.root.category == category::kEnvError) {
    d.next_action = "environment problem: report env_error with the evidence; do not change the kernel or the environment";
  } else {
    d.next_action = absl::StrCat("review '", row.layer, "': ", row.check_first, after);
  }
  return d;
}

}  // namespace opdev::triage
