// The Stage 4 round: each step calls its module, records what it did, and the verdict is
// derived from the records (never assumed): a step that could not run makes the round
// INCOMPLETE, an environment failure NOT_MEASURED, any defect FAIL.
#include "opdev/stage/stage.h"

#include "diagnose_run.h"

#include "opdev/budget/budget_file.h"
#include "opdev/codegen/generate.h"
#include "opdev/contract/check.h"
#include "opdev/contract/op_dir.h"
#include "opdev/kbusage/check.h"
#include "opdev/kbusage/generate.h"
#include "opdev/plan/naming.h"
#include "opdev/plan/read_only_guard.h"
#include "opdev/plan/round_plan.h"
#include "opdev/selfcheck/selfcheck.h"
#include "opdev/stage/run_op.h"
#include "opdev/support/file_io.h"
#include "opdev/support/json_print.h"
#include "stage/report_dir.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace fs = std::filesystem;

namespace opdev::stage {
namespace {

std::string WorstCategory(const Diagnostics& d) {
  std::string worst;
  for (const auto& x : d.items())
    if (x.severity == Severity::kError &&
        (worst.empty() || selfcheck::CategoryPriority(x.category) < selfcheck::CategoryPriority(worst)))
      worst = x.category;
  return worst;
}

StepStatus FromDiags(const Diagnostics& d) {
  return d.HasErrors() ? StepStatus::kFindings : StepStatus::kOk;
}

}  // namespace

std::string_view StepStatusName(StepStatus s) {
  switch (s) {
    case StepStatus::kOk: return "ok";
    case StepStatus::kFindings: return "findings";
    case StepStatus::kFailed: return "failed";
    case StepStatus::kNotAvailable: return "not_available";
    case StepStatus::kSkipped: return "skipped";
  }
  return "failed";
}

boost::json::object StepRecord::ToJson() const {
  boost::json::object o;
  o["name"] = name;
  o["status"] = std::string(StepStatusName(status));
  o["summary"] = summary;
  boost::json::array c;
  for (const auto& x : commands) c.emplace_back(x);
  o["commands"] = std::move(c);
  o["findings"] = findings.ToJson();
  if (!detail.is_null()) o["detail"] = detail;
  return o;
}

absl::StatusOr<StageReport> RunStage(const StageOptions& opts) {
  std::error_code ec;
  if (!fs::is_directory(opts.op_dir, ec)) return absl::NotFoundError(opts.op_dir + ": not a directory");
  if (opts.backend != "sim" && opts.backend != "npu")
    return absl::InvalidArgumentError("backend must be sim or npu, got '" + opts.backend + "'");
  if (opts.module_k && opts.finalize)
    return absl::InvalidArgumentError("module_k and finalize exclude each other");
  StageReport rep;
  rep.op_dir = opts.op_dir;
  rep.backend = opts.backend;
  const fs::path dir(opts.op_dir);
  const std::string report_dir = opts.report_dir.empty() ? (dir / kReportDir).string() : opts.report_dir;
  if (opts.write_report)
    if (absl::Status st = CheckReportDir(opts.op_dir, report_dir, opts.protected_roots, opts.report_dir.empty()); !st.ok())
      return st;
  const int kSteps = 10;
  int step_no = 0;
  auto progress = [&](const std::string& name) {
    ++step_no;
    if (opts.progress) opts.progress(absl::StrCat("[", step_no, "/", kSteps, "] ", name));
  };
  auto add = [&](StepRecord s) { rep.steps.push_back(std::move(s)); };
  plan::Dispatch dispatch;
  dispatch.module_k = opts.module_k;
  dispatch.finalize = opts.finalize;
  rep.dispatch = dispatch.ToJson();
  bool stop = false;  // a step whose failure makes the later ones meaningless

  // 1. check
  progress("check: frozen contracts");
  {
    StepRecord s;
    s.name = "check";
    contract::LoadOptions lo;
    lo.kb_root = opts.kb_root;
    contract::CheckOptions co;
    auto st = contract::CheckOpDirPath(opts.op_dir, lo, co, &s.findings);
    s.commands.push_back(absl::StrCat("opdev check ", opts.op_dir,
                                      opts.kb_root.empty() ? "" : " --kb-root " + opts.kb_root));
    if (!st.ok()) {
      s.status = StepStatus::kFailed;
      s.summary = std::string(st.message());
      stop = true;
    } else {
      s.status = FromDiags(s.findings);
      s.summary = s.findings.CountsText();
      if (s.findings.HasErrors()) stop = true;  // a broken contract: stop, report design_violation
    }
    add(std::move(s));
  }

  // 2. plan (+ read-only snapshot)
  std::optional<plan::RoundPlan> round;
  std::optional<plan::ReadOnlySnapshot> snapshot;
  progress("plan: dispatch and read-only set");
  {
    StepRecord s;
    s.name = "plan";
    auto p = plan::PlanRound(opts.op_dir, dispatch, &s.findings);
    if (!p.ok()) {
      s.status = StepStatus::kFailed;
      s.summary = std::string(p.status().message());
      stop = true;
    } else {
      round = *p;
      rep.op = round->op;
      rep.mode = std::string(plan::ModeName(round->mode));
      rep.kernel_file = round->product.rel;
      auto snap = plan::TakeReadOnlySnapshot(*round);
      if (snap.ok()) snapshot = *snap;
      else s.findings.Error("STAGE-SNAPSHOT", category::kInputError, opts.op_dir, 0,
                            std::string(snap.status().message()));
      s.status = FromDiags(s.findings);
      s.summary = absl::StrCat(rep.mode, ": product ", round->product.rel, ", wrapper ", round->wrapper,
                               ", ", round->read_only.size(), " read-only file(s) hashed");
      s.detail = round->ToJson();
      if (s.findings.HasErrors()) stop = true;
    }
    add(std::move(s));
  }
  if (rep.op.empty()) rep.op = fs::absolute(dir).lexically_normal().filename().string();
  if (rep.kernel_file.empty()) rep.kernel_file = plan::FinalFile(rep.op);
  const std::string kernel_path = (dir / rep.kernel_file).string();

  // 3. gen (or verify the existing file)
  progress(opts.no_gen ? "gen: verify the existing file (--no-gen)" : "gen: generate the kernel file");
  {
    StepRecord s;
    s.name = "gen";
    if (stop) {
      s.status = StepStatus::kSkipped;
      s.summary = "skipped: an earlier step failed";
    } else if (opts.no_gen) {
      rep.generated = false;
      if (fs::is_regular_file(kernel_path, ec)) {
        s.status = StepStatus::kOk;
        s.summary = absl::StrCat("existing ", rep.kernel_file, " kept as is (sha256 ",
                                 Sha256Hex(ReadTextFile(kernel_path, {kMaxInputFileBytes, false}).value_or("")).substr(0, 12), ")");
      } else {
        s.status = StepStatus::kFindings;
        s.findings.Error("STAGE-NO-FILE", "missing_file", rep.kernel_file, 0,
                         "--no-gen was given but the kernel file does not exist");
        s.summary = "no kernel file to verify";
        stop = true;
      }
    } else {
      codegen::GenerateOptions go;
      go.dispatch = dispatch;
      codegen::GenerateResult g = codegen::GenerateKernelFile(opts.op_dir, go);
      s.findings = g.diagnostics;
      s.detail = g.ToJson();
      if (!g.ok()) {
        s.status = StepStatus::kFindings;
        s.summary = "the generator produced no file";
        stop = true;
      } else {
        codegen::WriteOptions wo;
        auto w = codegen::WriteGeneratedFile(g.file->path, g.file->content, wo);
        if (w.ok() && g.file->source_map) w = codegen::WriteSourceMap(g.file->path, *g.file->source_map);
        if (!w.ok()) {
          s.status = StepStatus::kFailed;
          s.summary = std::string(w.message());
          stop = true;
        } else {
          rep.generated = true;
          rep.kernel_file = g.file->rel;
          s.status = StepStatus::kOk;
          s.summary = absl::StrCat("wrote ", g.file->rel, " (", g.file->tests.size(), " test(s), kernel ",
                                   g.file->kernel, ")");
          s.commands.push_back(absl::StrCat("opdev gen ", opts.op_dir));
        }
      }
    }
    add(std::move(s));
  }
  rep.artifacts.push_back({"kernel_file", kernel_path});

  // 4. budget
  progress("budget: on-chip memory");
  {
    StepRecord s;
    s.name = "budget";
    if (stop) {
      s.status = StepStatus::kSkipped;
      s.summary = "skipped: an earlier step failed";
    } else {
      auto b = budget::BudgetPath(kernel_path, Target::kA5);
      if (!b.ok()) {
        s.status = StepStatus::kFailed;
        s.summary = std::string(b.status().message());
      } else {
        if (b->kernel) s.findings.Append(b->kernel->diagnostics);
        s.findings.Append(b->comparison);
        s.findings.Append(b->inputs);
        s.status = FromDiags(s.findings);
        s.summary = b->ok() ? "fits every memory space; matches DESIGN §3"
                            : absl::StrCat(s.findings.ErrorCount(), " budget error(s)");
        s.detail = b->ToJson();
      }
      s.commands.push_back(absl::StrCat("opdev budget ", kernel_path));
    }
    add(std::move(s));
  }

  // 5. self-check
  progress("selfcheck: static verifier items");
  std::optional<selfcheck::SelfCheckReport> sc;
  {
    StepRecord s;
    s.name = "selfcheck";
    selfcheck::SelfCheckOptions so;
    so.op_dir = opts.op_dir;
    so.module_k = opts.module_k;
    so.finalize = opts.finalize;
    so.kb_root = opts.kb_root;
    so.python = opts.python;
    so.snapshot = snapshot;
    so.check_kb_usage = false;  // the usage step generates and checks; S4-14 / MC-7 take its result
    auto r = selfcheck::RunSelfCheck(so);
    if (!r.ok()) {
      s.status = StepStatus::kFailed;
      s.summary = std::string(r.status().message());
    } else {
      sc = *r;
      s.findings = r->AllFindings();
      s.status = r->failed > 0 ? StepStatus::kFindings : StepStatus::kOk;
      s.summary = absl::StrCat(r->passed, " passed, ", r->failed, " failed, ", r->blocked, " blocked, ",
                               r->not_available, " not available (S4-14 is the usage step)");
      s.detail = r->ToJson();
    }
    s.commands.push_back(absl::StrCat("opdev selfcheck ", opts.op_dir,
                                      opts.module_k ? absl::StrCat(" --module-k ", *opts.module_k) : "",
                                      opts.finalize ? " --finalize" : ""));
    add(std::move(s));
  }

  // 6. run, 7. compare
  progress(absl::StrCat("run: ", opts.backend == "npu" ? "NPU launch" : "the test file on the CPU device"));
  std::optional<RunOpResult> run;
  {
    StepRecord s;
    s.name = "run";
    if (stop) {
      s.status = StepStatus::kSkipped;
      s.summary = "skipped: an earlier step failed";
    } else {
      RunOpOptions ro;
      ro.op_dir = opts.op_dir;
      ro.backend = opts.backend;
      ro.design_cases = opts.design_cases;
      ro.module_k = opts.module_k;
      ro.file = rep.kernel_file;
      ro.interpreter = opts.interpreter;
      ro.device = opts.device;
      ro.npu_smi = opts.npu_smi;
      ro.timeout_seconds = opts.timeout_seconds;
      ro.idle_timeout_seconds = opts.idle_timeout_seconds;
      ro.python = opts.python;
      ro.log_dir = (fs::path(report_dir) / "run").string();
      ro.progress = opts.progress;
      auto r = RunOp(ro);
      if (!r.ok()) {
        s.status = StepStatus::kNotAvailable;
        s.summary = absl::StrCat("could not run: ", r.status().message());
      } else {
        run = std::move(*r);
        s.commands = run->commands;
        rep.cases = run->cases;
        rep.hazards = run->hazards;
        for (const auto& [role, path] : run->logs) rep.artifacts.push_back({"run_" + role, path});
        s.status = run->triage.outcome == runtime::Outcome::kPass ? StepStatus::kOk
                   : run->triage.outcome == runtime::Outcome::kNotMeasured ? StepStatus::kFailed
                                                                           : StepStatus::kFindings;
        s.summary = absl::StrCat(std::string(runtime::OutcomeName(run->triage.outcome)), ": ", run->triage.summary);
        s.detail = run->triage.ToJson();
        // S4-8/9 (MC-3/4) and the coverage part of ⑥ take this run.
        if (sc) selfcheck::ApplyRunEvidence(&*sc, RunEvidenceOf(*run, opts.op_dir));
        // Triage: hazards grouped with their DESIGN origins; a failed run is diagnosed.
        DiagnoseRunOptions dopt;
        dopt.run = ro;
        dopt.generated = rep.generated;
        dopt.reruns = opts.triage_reruns;
        dopt.shrink = opts.triage_shrink;
        RunDiagnosis rd = DiagnoseRun(dopt, *run);
        rep.hazard_groups = std::move(rd.hazards);
        rep.diagnosis = std::move(rd.diagnosis);
        for (auto& c : rd.commands) s.commands.push_back(std::move(c));
        if (!rd.note.empty()) s.summary += " (" + rd.note + ")";
      }
    }
    add(std::move(s));
  }
  progress("compare: scheme A per case");
  {
    StepRecord s;
    s.name = "compare";
    if (!run) {
      s.status = StepStatus::kSkipped;
      s.summary = "no run";
    } else {
      int pass = 0, fail = 0, other = 0;
      for (const auto& c : run->cases) {
        if (c.status == runtime::CaseStatus::kPass) ++pass;
        else if (c.status == runtime::CaseStatus::kPrecisionFail) ++fail;
        else ++other;
      }
      s.status = fail > 0 ? StepStatus::kFindings : StepStatus::kOk;
      s.summary = absl::StrCat(
          run->launch ? "scheme A ran inside the test file (precision_compare); metrics parsed: "
                      : "opdev's scheme-A engine against the CPU FP32 golden: ",
          pass, " pass, ", fail, " below threshold, ", other, " not compared");
    }
    add(std::move(s));
  }

  // 8. KB usage generate + check
  progress("usage: KB_USAGE generate and check");
  {
    StepRecord s;
    s.name = "usage";
    if (!round || stop) {
      s.status = StepStatus::kSkipped;
      s.summary = "skipped: no plan or an earlier step failed";
    } else {
      std::string kb_root = opts.kb_root.empty() ? contract::ResolveKbRoot(opts.op_dir, "") : opts.kb_root;
      kbusage::GenerateOptions go;
      go.kb_root = kb_root;
      auto g = kbusage::GenerateKbUsage(*round, go, &s.findings);
      if (!g.ok()) {
        s.status = StepStatus::kFailed;
        s.summary = absl::StrCat("generate: ", g.status().message());
      } else {
        for (const auto& c : g->classes) rep.artifacts.push_back({"kb_usage", (dir / c.usage_rel).string()});
        kbusage::CheckOptions ko;
        ko.kb_root = kb_root;
        ko.mode = round->mode;
        ko.module_k = opts.module_k;
        auto ch = kbusage::CheckKbUsage(opts.op_dir, ko, &s.findings);
        s.status = !ch.ok() ? StepStatus::kFailed : FromDiags(s.findings);
        s.summary = ch.ok() ? absl::StrCat(ch->records, " record(s) in ", ch->classes, " class(es); ",
                                           s.findings.ErrorCount(), " error(s)")
                            : absl::StrCat("check: ", ch.status().message());
        if (ch.ok()) s.detail = ch->ToJson();
      }
      s.commands.push_back(absl::StrCat("opdev usage generate ", opts.op_dir));
      s.commands.push_back(absl::StrCat("opdev usage check ", opts.op_dir));
      // Per-quadruple evidence from the frozen bindings.
      Diagnostics ld;
      contract::LoadOptions lo;
      lo.kb_root = kb_root;
      auto od = contract::LoadOpDir(opts.op_dir, lo, &ld);
      if (od.ok() && od->bindings) {
        for (const auto& [b, q] : od->bindings->ActiveRequirements()) {
          KbEvidence e;
          e.class_id = b->class_id;
          e.reference = b->reference;
          e.selection_field = b->selection_field;
          e.req_id = q->req_id;
          e.invariant = q->invariant;
          e.planned_location = q->planned_location;
          e.verification_method = q->verification_method;
          rep.kb_evidence.push_back(e);
        }
      }
      // The self-check's S4-14 / MC-7 is this step.
      if (sc)
        for (auto& item : sc->items)
          if (item.id == "S4-14" || item.id == "MC-7") {
            // The self-check's own finding on the code (unearned validation claims) stays.
            Diagnostics claims;
            for (const auto& d : item.findings.items())
              if (d.code == "SC-UNEARNED-CLAIM") claims.Add(d);
            item.findings = s.findings;
            item.findings.Append(claims);
            item.status = s.status == StepStatus::kOk && claims.empty() ? selfcheck::ItemStatus::kPass
                          : s.status == StepStatus::kFindings || !claims.empty() ? selfcheck::ItemStatus::kFail
                                                                                 : selfcheck::ItemStatus::kBlocked;
            item.category = WorstCategory(item.findings);
            item.evidence = "from the usage step: " + s.summary;
          }
      if (sc) sc->Recount();
    }
    add(std::move(s));
  }

  // 9. read-only guard
  progress("guard: read-only files unchanged");
  {
    StepRecord s;
    s.name = "guard";
    if (!snapshot) {
      s.status = StepStatus::kNotAvailable;
      s.summary = "no snapshot was taken (no plan)";
    } else {
      s.findings = plan::CheckReadOnlySnapshot(*snapshot);
      s.status = FromDiags(s.findings);
      s.summary = absl::StrCat(snapshot->files.size(), " read-only file(s) re-hashed; ",
                               s.findings.ErrorCount(), " changed");
    }
    add(std::move(s));
  }

  // 10. verdict
  progress("verdict");
  Verdict& v = rep.verdict;
  bool incomplete = false, failed = false;
  const StepRecord* decider = nullptr;  // the step whose finding is the verdict's category
  for (auto& s : rep.steps) {
    if (s.name == "selfcheck" && sc) {
      s.detail = sc->ToJson();  // with the usage result folded into S4-14 / MC-7
      int fails = 0, blocked = 0;
      for (const auto& i : sc->items) {
        fails += i.status == selfcheck::ItemStatus::kFail;
        blocked += i.status == selfcheck::ItemStatus::kBlocked || i.status == selfcheck::ItemStatus::kNotAvailable;
      }
      s.status = fails ? StepStatus::kFindings : blocked ? StepStatus::kNotAvailable : StepStatus::kOk;
      s.summary = absl::StrCat(static_cast<int>(sc->items.size()) - fails - blocked, " item(s) passed or skipped, ",
                               fails, " failed, ", blocked, " blocked or not available");
    }
    if (s.status == StepStatus::kNotAvailable || s.status == StepStatus::kSkipped) incomplete = true;
    if (s.status == StepStatus::kFindings || s.status == StepStatus::kFailed) failed = true;
    std::string cat = WorstCategory(s.findings);
    if (s.name == "run" && run && !run->triage.category.empty()) cat = run->triage.category;
    if (s.name == "run" && rep.diagnosis && !rep.diagnosis->root.category.empty() &&
        run->triage.outcome == runtime::Outcome::kFail)
      cat = rep.diagnosis->root.category;
    if (s.status == StepStatus::kFailed && cat.empty()) cat = std::string(category::kInputError);
    if (!cat.empty() && (s.status == StepStatus::kFindings || s.status == StepStatus::kFailed) &&
        (v.failure_category.empty() ||
         selfcheck::CategoryPriority(cat) < selfcheck::CategoryPriority(v.failure_category))) {
      v.failure_category = cat;
      decider = &s;
    }
  }
  bool env = run && run->triage.outcome == runtime::Outcome::kNotMeasured;
  if (env) {
    v.outcome = "NOT_MEASURED";
    v.summary = "the run hit an environment problem: cases not measured (未测量)";
  } else if (failed && rep.diagnosis && rep.diagnosis->flaky) {
    v.outcome = "FLAKY";
  } else if (failed) {
    v.outcome = "FAIL";
  } else if (incomplete) {
    v.outcome = "INCOMPLETE";
  } else {
    v.outcome = "CLEAN";
  }
  // The step with the verdict's category decides the summary and the next action, then the
  // first failing step.
  std::vector<const StepRecord*> order;
  if (decider) order.push_back(decider);
  for (const auto& s : rep.steps)
    if (&s != decider) order.push_back(&s);
  for (const StepRecord* sp : order) {
    const StepRecord& s = *sp;
    if (s.status != StepStatus::kFindings && s.status != StepStatus::kFailed) continue;
    if (v.summary.empty()) v.summary = absl::StrCat(s.name, ": ", s.summary);
    if (s.name == "run" && run && rep.diagnosis) {
      const triage::Diagnosis& d = *rep.diagnosis;
      v.next_action = d.next_action;
      v.why = d.why;
      v.suspected = d.root.suspected && v.failure_category == d.root.category;
      v.summary = absl::StrCat("run: ", d.root.category.empty() ? run->triage.category : d.root.category,
                               d.root.suspected ? " (suspected)" : "", " — ", d.separation.sentence,
                               d.root.Location().empty() ? "" : "; at " + d.root.Location());
      v.evidence.clear();
      // The failing metric of each failing case, then the located lines.
      for (const auto& c : run->cases) {
        if (c.status == runtime::CaseStatus::kPrecisionFail) {
          std::string failed;
          std::istringstream in(c.summary);
          for (std::string l; std::getline(in, l);)
            if (l.find("CHECK_FAILED") != std::string::npos) {
              std::string f;
              for (char ch : l) if (!(ch == ' ' && (f.empty() || f.back() == ' '))) f += ch;
              failed += (failed.empty() ? "" : "; ") + f;
            }
          if (failed.empty()) failed = c.summary.substr(0, c.summary.find('\n'));
          v.evidence.push_back(absl::StrCat(c.name, " ", c.label, ": ", failed));
        } else if (c.status == runtime::CaseStatus::kError) {
          v.evidence.push_back(absl::StrCat(c.name, " ", c.label, ": ", c.error));
        }
      }
      for (const auto& g : rep.hazard_groups) {
        bool implicated = std::find(d.root.kernel_lines.begin(), d.root.kernel_lines.end(), g.hazard.line) !=
                          d.root.kernel_lines.end();
        if (!implicated) continue;
        v.evidence.push_back(absl::StrCat(g.hazard.file, ":", g.hazard.line, ": ", g.hazard.code, ": ", g.hazard.message,
                                          g.origin.Text().empty() ? "" : " [" + g.origin.Text() + "]",
                                          " (", g.cases.size(), " case(s))"));
      }
      if (d.localisation && d.localisation->mismatched > 0)
        v.evidence.push_back(absl::StrCat("localisation (", d.localisation->case_name, "): ", d.localisation->sentence));
    } else if (s.name == "run" && run) {
      v.next_action = run->triage.next_action;
      v.evidence = run->triage.evidence;
    } else if (v.next_action.empty()) {
      for (const auto& d : s.findings.items())
        if (d.severity == Severity::kError) {
          v.evidence.push_back(d.ToText().substr(0, d.ToText().find('\n')));
          if (v.evidence.size() >= 5) break;
        }
      v.next_action = s.name == "check" || s.name == "plan"
                          ? "stop: the frozen inputs are broken; report the finding upstream with its location"
                          : absl::StrCat("fix the ", s.name, " findings in this round's file and rerun opdev stage");
    }
    if (!v.next_action.empty() && !v.summary.empty()) break;
  }
  if (v.outcome == "INCOMPLETE") {
    std::vector<std::string> missing;
    for (const auto& s : rep.steps)
      if (s.status == StepStatus::kNotAvailable || s.status == StepStatus::kSkipped)
        missing.push_back(absl::StrCat(s.name, " (", s.summary, ")"));
    v.summary = absl::StrCat("no defect found, but not every step ran: ", missing.empty() ? "" : missing.front());
    v.next_action = "complete the missing steps (e.g. run on the NPU) before handing to the verifier";
  }
  if (v.outcome == "CLEAN") {
    v.summary = absl::StrCat("every step passed on the ", opts.backend, " backend (",
                             rep.cases.size(), " case(s))");
    v.next_action = opts.backend == "sim" ? "run on the NPU (opdev stage --backend npu) and hand to the verifier"
                                          : "hand to the verifier (stage4-check)";
  }

  if (opts.write_report) {
    rep.report_json_path = (fs::path(report_dir) / "stage_report.json").string();
    rep.report_md_path = (fs::path(report_dir) / "stage_report.md").string();
    rep.artifacts.push_back({"report_json", rep.report_json_path});
    rep.artifacts.push_back({"report_md", rep.report_md_path});
    if (auto s = WriteFileAtomic(rep.report_json_path, PrettyJson(rep.ToJson())); !s.ok()) return s;
    if (auto s = WriteFileAtomic(rep.report_md_path, rep.ToMarkdown()); !s.ok()) return s;
  }
  return rep;
}

}  // namespace opdev::stage
