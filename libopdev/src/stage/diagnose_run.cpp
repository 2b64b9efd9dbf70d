// The round's triage of its run (see diagnose_run.h).
#include "diagnose_run.h"

#include "opdev/codegen/source_map.h"
#include "opdev/contract/spec_contract.h"
#include "opdev/contract/design_doc.h"
#include "opdev/contract/module_interfaces.h"
#include "opdev/pyfront/parser.h"
#include "opdev/sim/simulator.h"
#include "opdev/support/file_io.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace fs = std::filesystem;

namespace opdev::stage {
namespace {

std::vector<std::string> Symbols(const std::string& text) {
  std::string t = text;
  for (char& c : t)
    if (c == '[' || c == ']' || c == ',' || c == '`') c = ' ';
  std::istringstream in(t);
  std::vector<std::string> out;
  for (std::string s; in >> s;) out.push_back(s);
  return out;
}

// The lines of a scheme-A summary that name a failed check, whitespace folded.
std::string FailedChecks(const std::string& summary) {
  std::vector<std::string> out;
  std::istringstream in(summary);
  for (std::string l; std::getline(in, l);) {
    if (l.find("CHECK_FAILED") == std::string::npos) continue;
    std::string f;
    bool space = false;
    for (char c : l) {
      if (c == ' ' || c == '\t') { space = !f.empty(); continue; }
      if (space) f += ' ';
      space = false;
      f += c;
    }
    out.push_back(f);
  }
  if (out.empty()) {
    // NaN / shape messages have no check rows: the first line is the reason.
    std::string first = summary.substr(0, summary.find('\n'));
    if (!first.empty()) out.push_back(first);
  }
  return absl::StrJoin(out, "; ");
}

}  // namespace

RunDiagnosis DiagnoseRun(const DiagnoseRunOptions& opts, const RunOpResult& run) {
  RunDiagnosis rd;
  const fs::path dir(opts.run.op_dir);
  Diagnostics ignored;
  std::optional<contract::DesignDoc> design;
  if (auto d = contract::LoadDesignDoc((dir / "DESIGN.md").string(), &ignored); d.ok()) design = std::move(*d);
  std::optional<contract::ModuleInterfaces> mi;
  if (fs::exists(dir / "module_interfaces.yaml"))
    if (auto m = contract::LoadModuleInterfaces((dir / "module_interfaces.yaml").string(), &ignored); m.ok())
      mi = std::move(*m);
  const std::string kernel_path = (dir / run.file).string();
  std::optional<codegen::SourceMap> map = codegen::LoadMatchingSourceMap(kernel_path);
  std::optional<py::Module> kernel;
  if (auto text = ReadTextFile(kernel_path); text.ok()) {
    Diagnostics pd;
    if (auto m = py::ParseModule(*text, kernel_path, &pd); m.ok()) kernel = std::move(*m);
  }
  std::vector<triage::CaseHazards> per_case;
  for (const auto& c : run.cases) per_case.push_back({c.name, c.hazards, false});
  auto group = [&] { return triage::GroupHazards(per_case, map ? &*map : nullptr, design ? &*design : nullptr); };
  if (run.triage.outcome == runtime::Outcome::kPass) {
    rd.hazards = group();
    return rd;
  }

  // Facts and per-case outcomes.
  std::vector<std::string> symbols;
  std::string dtype;
  if (mi && !mi->primary_inputs.empty()) {
    symbols = Symbols(mi->primary_inputs.front().shape);
    dtype = mi->primary_inputs.front().dtype;
  }
  triage::ShapeFacts facts;
  if (design) facts = triage::DeriveShapeFacts(*design, symbols, dtype, sim::SimOptions{}.vector_core_num);
  else facts.symbols = symbols;
  {
    Diagnostics sd;
    if (auto spec = contract::LoadSpecContract(opts.run.op_dir, &sd)) {
      facts.ranges = spec->dynamic_axes;
      if (!spec->inputs.empty()) facts.value_range = spec->inputs.front().value_range;
    }
  }
  std::map<std::string, std::vector<std::int64_t>> shapes;
  if (design)
    for (const auto& t : design->TestCases()) shapes[t.name] = t.shape;
  triage::DiagnoseInput in;
  in.facts = facts;
  int first_fail = -1;
  for (size_t i = 0; i < run.cases.size(); ++i) {
    const auto& c = run.cases[i];
    triage::CaseFacts f;
    f.name = c.name;
    f.shape = shapes.count(c.name) ? shapes[c.name] : std::vector<std::int64_t>{};
    f.dtype = dtype;
    switch (c.status) {
      case runtime::CaseStatus::kPass: f.outcome = triage::CaseOutcome::kPass; break;
      case runtime::CaseStatus::kPrecisionFail:
      case runtime::CaseStatus::kError: f.outcome = triage::CaseOutcome::kFail; break;
      case runtime::CaseStatus::kNotRun: f.outcome = triage::CaseOutcome::kNotMeasured; break;
    }
    f.special_values = c.summary.find("NaN position mismatch") != std::string::npos ||
                       c.summary.find("Inf sign mismatch") != std::string::npos;
    if (f.outcome == triage::CaseOutcome::kFail && first_fail < 0) first_fail = static_cast<int>(i);
    in.cases.push_back(f);
  }
  if (first_fail >= 0) {
    const auto& c = run.cases[static_cast<size_t>(first_fail)];
    in.first_failure_text = c.status == runtime::CaseStatus::kError
                                ? absl::StrCat(c.name, ": ", c.error)
                                : absl::StrCat(c.name, " ", c.label, ": ", FailedChecks(c.summary));
  }
  const bool environment = run.triage.outcome == runtime::Outcome::kNotMeasured;
  const bool sim_reruns = opts.reruns && opts.run.backend == "sim" && !environment;

  // The test file under the CPU device stops at its first failing case (an assertion ends the
  // script), so the cases after it are not measured and the bisection would see a few cases
  // only. The triage then measures every §8 case itself on the DESIGN-case simulator — each
  // case its own kernel run with the run's seed convention (42 + case index) — and uses those
  // outcomes for the cases the run did not measure; for the others it keeps the run's outcome
  // and records whether the rerun agrees. The hazards of these reruns are grouped too (the
  // test-file run reports error hazards only, as exceptions).
  bool all_cases_rerun = false;
  const bool stopped = std::any_of(in.cases.begin(), in.cases.end(), [](const triage::CaseFacts& f) {
    return f.outcome == triage::CaseOutcome::kNotMeasured && !f.shape.empty();
  });
  if (sim_reruns && !opts.run.design_cases && stopped) {
    auto runner = MakeSimCaseRunner(opts.run, run, /*provenance=*/false, "cases");
    std::vector<triage::ReproCase> batch;
    std::vector<size_t> index;
    for (size_t i = 0; i < in.cases.size(); ++i) {
      if (in.cases[i].shape.empty()) continue;
      batch.push_back({in.cases[i].name, in.cases[i].shape, 42 + static_cast<std::uint64_t>(i)});
      index.push_back(i);
    }
    absl::StatusOr<std::vector<triage::ReproRun>> res =
        runner.ok() ? (*runner)(batch) : absl::StatusOr<std::vector<triage::ReproRun>>(runner.status());
    if (!res.ok() || res->size() != batch.size()) {
      rd.note = absl::StrCat("the run did not measure every §8 case and the triage could not rerun them: ",
                             res.ok() ? "the runner returned a wrong number of runs" : res.status().message());
    } else {
      all_cases_rerun = true;
      int measured_by_run = 0, rerun_only = 0;
      std::vector<std::string> disagree, unjudgeable;
      for (size_t k = 0; k < batch.size(); ++k) {
        triage::CaseFacts& f = in.cases[index[k]];
        const triage::ReproRun& rr = (*res)[k];
        triage::CaseOutcome o = rr.status == runtime::CaseStatus::kPass ? triage::CaseOutcome::kPass
                                : rr.status == runtime::CaseStatus::kNotRun ? triage::CaseOutcome::kNotMeasured
                                                                            : triage::CaseOutcome::kFail;
        // A failure the exact result would have too measures nothing about the kernel.
        if (!rr.unjudgeable.empty()) {
          o = triage::CaseOutcome::kNotMeasured;
          unjudgeable.push_back(f.name);
        }
        f.rerun = o;
        if (f.outcome == triage::CaseOutcome::kNotMeasured) {
          f.outcome = o;
          f.measured_by = "triage_rerun";
          f.special_values = rr.summary.find("NaN position mismatch") != std::string::npos ||
                             rr.summary.find("Inf sign mismatch") != std::string::npos;
          if (o != triage::CaseOutcome::kNotMeasured) ++rerun_only;
          else f.measured_by = "";
        } else {
          ++measured_by_run;
          if (o != f.outcome && o != triage::CaseOutcome::kNotMeasured)  // unjudgeable reruns agree with anything
            disagree.push_back(absl::StrCat(f.name, " (run: ", triage::CaseOutcomeName(f.outcome),
                                            ", rerun: ", triage::CaseOutcomeName(o), ")"));
        }
        per_case.push_back({f.name, rr.hazards, true});
      }
      in.measurement = absl::StrCat(
          "The run measured ", measured_by_run, " of ", in.cases.size(),
          " §8 cases (the test file stops at its first failing case); the triage ran every case on the "
          "DESIGN-case simulator and measured the other ", rerun_only, " there",
          disagree.empty() ? std::string("; for the cases both measured the outcomes agree")
                           : absl::StrCat("; the two paths disagree on ", absl::StrJoin(disagree, ", "),
                                          ", so the separation mixes paths"),
          unjudgeable.empty()
              ? std::string()
              : absl::StrCat("; scheme A cannot judge the rerun of ", absl::StrJoin(unjudgeable, ", "),
                             " (the exact result rounded to the output dtype fails it too), so ",
                             unjudgeable.size() == 1 ? "it counts" : "they count",
                             " as not measured unless the run measured ", unjudgeable.size() == 1 ? "it" : "them"));
    }
    if (first_fail < 0)  // the run failed without a failing case of its own: the first rerun failure
      for (size_t i = 0; i < in.cases.size() && first_fail < 0; ++i)
        if (in.cases[i].outcome == triage::CaseOutcome::kFail) first_fail = static_cast<int>(i);
  }

  // Reruns, shrink and localisation on the simulator.
  if (sim_reruns && first_fail >= 0 &&
      !in.cases[static_cast<size_t>(first_fail)].shape.empty()) {
    auto runner = MakeSimCaseRunner(opts.run, run);
    if (!runner.ok()) {
      rd.note = absl::StrCat("no reruns: ", runner.status().message());
    } else {
      const auto& fc = in.cases[static_cast<size_t>(first_fail)];
      const std::uint64_t seed = 42 + static_cast<std::uint64_t>(first_fail);  // the run's own seed
      triage::ReproOptions ropts;
      ropts.same_path = opts.run.design_cases;  // the runner is the DESIGN-case simulator
      if (!opts.shrink) ropts.max_rounds = 0;
      auto rp = triage::MakeTrustworthy(fc.name, fc.shape, seed, facts, *runner, ropts);
      if (!rp.ok()) {
        rd.note = absl::StrCat("no reruns: ", rp.status().message());
      } else {
        in.repro = *rp;
        // The rerun alone is the triage's own measurement of that case: its hazards count
        // when the case was not already rerun above.
        if (!all_cases_rerun && rp->alone) per_case.push_back({fc.name, rp->alone->hazards, true});
        rd.commands.push_back(absl::StrCat("opdev run ", opts.run.op_dir, " --backend sim --case ", fc.name,
                                           "   # rerun alone (and with seed ", seed + triage::ReproOptions{}.other_seed_offset,
                                           "), then ", rp->runs - 2, " shrink run(s) in ",
                                           (fs::path(opts.run.log_dir) / "triage").string()));
        const triage::ReproRun* src = rp->alone && rp->alone->actual ? &*rp->alone : nullptr;
        if (src && src->golden)
          in.localisation = triage::Localise(fc.name, *src->actual, *src->golden, src->origin, facts,
                                             kernel ? &*kernel : nullptr);
      }
    }
  }
  rd.hazards = group();
  in.hazards = rd.hazards;
  in.route.kernel_file = kernel_path;
  in.route.generated = opts.generated;
  in.route.has_map = map.has_value();
  in.route.design = design ? &*design : nullptr;
  in.route.kernel = kernel ? &*kernel : nullptr;
  in.route.environment = environment;
  in.route.fallback_category = run.triage.category;
  // The map and the kernel AST live in this frame; Diagnose copies what it keeps.
  in.route.map = map ? &*map : nullptr;
  rd.diagnosis = triage::Diagnose(std::move(in));
  return rd;
}

}  // namespace opdev::stage
