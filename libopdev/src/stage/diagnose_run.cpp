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
  std::vector<std::pair<std::string, Diagnostics>> per_case;
  for (const auto& c : run.cases) per_case.push_back({c.name, c.hazards});
  rd.hazards = triage::GroupHazards(per_case, map ? &*map : nullptr, design ? &*design : nullptr);
  if (run.triage.outcome == runtime::Outcome::kPass) return rd;

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

  // Reruns, shrink and localisation on the simulator.
  if (opts.reruns && opts.run.backend == "sim" && !environment && first_fail >= 0 &&
      !in.cases[static_cast<size_t>(first_fail)].shape.empty()) {
    auto runner = MakeSimCaseRunner(opts.run, run);
    if (!runner.ok()) {
      rd.note = absl::StrCat("no reruns: ", runner.status().message());
    } else {
      const auto& fc = in.cases[static_cast<size_t>(first_fail)];
      const std::uint64_t seed = 42 + static_cast<std::uint64_t>(first_fail);  // the run's own seed
      triage::ReproOptions ropts;
      ropts.same_path = opts.run.design_cases;  // the runner is the DESIGN-case simulator
      auto rp = triage::MakeTrustworthy(fc.name, fc.shape, seed, facts, *runner, ropts);
      if (!rp.ok()) {
        rd.note = absl::StrCat("no reruns: ", rp.status().message());
      } else {
        in.repro = *rp;
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
