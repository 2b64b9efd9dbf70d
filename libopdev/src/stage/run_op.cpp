// `opdev run` as a library call: resolve the file, wrapper, golden and DESIGN §8 cases of
// the op dir, run them on the chosen backend, and triage.
#include "opdev/stage/run_op.h"

#include "stage/report_dir.h"

#include "opdev/contract/design_doc.h"
#include "opdev/contract/module_interfaces.h"
#include "opdev/contract/spec_contract.h"
#include "opdev/precision/compare.h"
#include "opdev/plan/naming.h"
#include "opdev/support/file_io.h"
#include "opdev/runtime/device_env.h"
#include "opdev/runtime/sim_runner.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace opdev::stage {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t`");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t`");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> ShapeSymbols(const std::string& text) {
  std::string t = Trim(text);
  if (!t.empty() && t.front() == '[') t = t.substr(1);
  if (!t.empty() && t.back() == ']') t.pop_back();
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= t.size()) {
    size_t c = t.find(',', start);
    std::string part = Trim(t.substr(start, c == std::string::npos ? std::string::npos : c - start));
    if (!part.empty()) out.push_back(part);
    if (c == std::string::npos) break;
    start = c + 1;
  }
  return out;
}

// The simulator inputs of a case: the §8 shape binds the symbols of the first primary input's
// shape (or `dims` binds every symbol by name); every primary input takes its shape from those
// symbols (or literal dims), and its value range from the SPEC input of the same name.
std::optional<runtime::SimCase> SimCaseFor(const std::string& name, const std::vector<std::int64_t>& shape,
                                           const std::vector<std::pair<std::string, std::int64_t>>& dims,
                                           const contract::ModuleInterfaces& mi,
                                           const std::optional<contract::SpecContract>& spec) {
  if (mi.primary_inputs.empty()) return std::nullopt;
  auto first_syms = ShapeSymbols(mi.primary_inputs.front().shape);
  runtime::SimCase sc;
  sc.name = name;
  std::map<std::string, std::int64_t> sym;
  for (size_t i = 0; i < first_syms.size() && i < shape.size(); ++i) sym[first_syms[i]] = shape[i];
  bool ok = shape.size() == first_syms.size();
  if (!dims.empty()) {  // `M=.., K=.., N=..`: every symbol by name
    for (const auto& [sym_name, value] : dims) sym[sym_name] = value;
    ok = true;
  }
  for (const auto& in : mi.primary_inputs) {
    runtime::SimInput si;
    si.name = in.name;
    if (spec)
      if (const contract::SpecTensor* t = spec->FindInput(in.name)) si.value_range = t->value_range;
    auto dt = ParseDType(in.dtype);
    if (!dt) ok = false;
    else si.dtype = *dt;
    for (const auto& s : ShapeSymbols(in.shape)) {
      auto it = sym.find(s);
      if (it != sym.end()) si.shape.push_back(it->second);
      else if (!s.empty() && std::all_of(s.begin(), s.end(), ::isdigit)) si.shape.push_back(std::stoll(s));
      else ok = false;
    }
    sc.inputs.push_back(si);
  }
  if (!ok) return std::nullopt;
  return sc;
}

// Triage of a simulator run.
runtime::Triage TriageSim(const runtime::SimRunResult& s, const runtime::TriageContext& ctx) {
  using runtime::CaseStatus;
  runtime::Triage t;
  t.total = static_cast<int>(s.cases.size());
  for (const auto& c : s.cases)
    if (c.status == CaseStatus::kPass) ++t.passed;
  if (!s.golden_error.empty()) {
    bool env = s.golden_error.find("No module named") != std::string::npos ||
               s.golden_error.find("spawn") != std::string::npos ||
               s.golden_error.find("No such file") != std::string::npos;
    t.category = env ? std::string(category::kEnvError) : "golden_failure";
    t.outcome = env ? runtime::Outcome::kNotMeasured : runtime::Outcome::kFail;
    t.rule = env ? "env.golden" : "golden.failed";
    t.summary = s.golden_error;
    t.evidence.push_back(s.golden_error);
    t.next_action = env ? "install torch/numpy for the golden's interpreter (--python) and rerun"
                        : "the Stage 2 golden does not run: report golden_failure; do not edit it";
    return t;
  }
  const Diagnostic* first = nullptr;
  for (const auto& h : s.hazards.items())
    if (h.severity == Severity::kError && !first) first = &h;
  if (first) {
    t.outcome = runtime::Outcome::kFail;
    t.rule = "sim.hazard";
    runtime::HazardRoute route = runtime::RouteHazard(first->code);
    t.category = first->category.empty() ? route.category : first->category;
    t.layer = route.layer;
    t.suspicion = route.explanation;
    t.summary = absl::StrCat("simulator hazard ", first->code, ": ", first->message);
    int n = 0;
    for (const auto& h : s.hazards.items())
      if (h.severity == Severity::kError && n++ < 5)
        t.evidence.push_back(absl::StrCat(h.file, ":", h.line, ": ", h.code, ": ", h.message,
                                          h.evidence.empty() ? "" : " (" + h.evidence + ")"));
    t.next_action = absl::StrCat("fix ", first->file, ":", first->line, "; review the '", route.layer,
                                 "' layer, then rerun all cases");
    return t;
  }
  bool errors = std::any_of(s.cases.begin(), s.cases.end(),
                            [](const runtime::CaseResult& c) { return c.status == CaseStatus::kError; });
  if (errors) {
    t.outcome = runtime::Outcome::kFail;
    t.category = std::string(category::kRuntimeFailure);
    t.rule = "sim.error";
    for (const auto& c : s.cases)
      if (c.status == CaseStatus::kError) t.evidence.push_back(absl::StrCat(c.name, ": ", c.error));
    t.summary = absl::StrCat("the simulator could not run: ", t.evidence.front());
    t.next_action = "read the error; an unsupported construct is a simulator limit, not a kernel defect "
                    "(confirm on the NPU)";
    return t;
  }
  bool precision = std::any_of(s.cases.begin(), s.cases.end(), [](const runtime::CaseResult& c) {
    return c.status == CaseStatus::kPrecisionFail;
  });
  if (precision) {
    t.outcome = runtime::Outcome::kFail;
    t.category = std::string(category::kPrecisionFailure);
    t.rule = "precision.scheme_a";
    t.precision = runtime::ClassifyPrecision(s.cases, ctx);
    t.layer = t.precision->layer;
    t.summary = absl::StrCat("precision below scheme A in ", t.precision->failing.size(),
                             " case(s): ", t.precision->symptom);
    for (const auto& c : s.cases)
      if (c.status == CaseStatus::kPrecisionFail)
        t.evidence.push_back(absl::StrCat(c.name, " ", c.label, ": ", c.summary.substr(0, c.summary.find('\n', 20))));
    t.next_action = absl::StrCat("review '", t.precision->layer, "': ", t.precision->check_first);
    return t;
  }
  t.outcome = runtime::Outcome::kPass;
  t.rule = "pass";
  t.summary = absl::StrCat("all ", t.total, " case(s) pass scheme A on the simulator");
  t.next_action = "confirm on the NPU (opdev run --backend npu)";
  for (const auto& h : s.hazards.items())
    if (h.severity == Severity::kWarning) t.notes.push_back(h.ToText());
  return t;
}

}  // namespace

boost::json::object RunOpResult::ToJson() const {
  boost::json::object o;
  o["backend"] = backend;
  o["op"] = op;
  o["file"] = file;
  o["wrapper"] = wrapper;
  boost::json::array cmds;
  for (const auto& c : commands) cmds.emplace_back(c);
  o["commands"] = std::move(cmds);
  boost::json::array cs;
  for (const auto& c : cases) cs.push_back(c.ToJson());
  o["cases"] = std::move(cs);
  o["hazards"] = hazards.ToJson();
  o["triage"] = triage.ToJson();
  if (launch) o["launch"] = launch->ToJson();
  boost::json::object l;
  for (const auto& [k, v] : logs) l[k] = v;
  o["logs"] = std::move(l);
  return o;
}

absl::StatusOr<RunOpResult> RunOp(const RunOpOptions& opts) {
  std::error_code ec;
  if (!fs::is_directory(opts.op_dir, ec)) return absl::NotFoundError(opts.op_dir + ": not a directory");
  if (opts.backend != "sim" && opts.backend != "npu")
    return absl::InvalidArgumentError("--backend must be sim or npu, got '" + opts.backend + "'");
  RunOpResult r;
  r.backend = opts.backend;
  const fs::path dir(opts.op_dir);
  Diagnostics diags;
  std::optional<contract::ModuleInterfaces> mi;
  if (fs::exists(dir / "module_interfaces.yaml")) {
    auto m = contract::LoadModuleInterfaces((dir / "module_interfaces.yaml").string(), &diags);
    if (m.ok()) mi = std::move(*m);
  }
  r.op = mi && !mi->op.empty() ? mi->op : fs::absolute(dir).lexically_normal().filename().string();
  if (r.op.empty()) r.op = fs::absolute(dir).lexically_normal().parent_path().filename().string();
  std::string golden_module, golden_fn;
  if (opts.module_k) {
    r.file = plan::StagedFile(r.op, *opts.module_k);
    r.wrapper = plan::StagedWrapper(r.op, *opts.module_k);
    golden_module = "modules." + plan::StageGoldenModule(r.op, *opts.module_k);
    golden_fn = plan::StageGoldenModule(r.op, *opts.module_k);
    if (mi)
      if (const auto* md = mi->FindModule(*opts.module_k); md && !md->golden_stage_fn.empty())
        golden_fn = md->golden_stage_fn;
  } else {
    r.file = plan::FinalFile(r.op);
    r.wrapper = plan::FinalWrapper(r.op);
    golden_module = plan::FinalGoldenModule(r.op);
    golden_fn = golden_module;
  }
  if (!opts.file.empty()) r.file = opts.file;
  r.golden_module = golden_module;
  r.golden_fn = golden_fn;
  std::string log_dir = opts.log_dir.empty() ? (dir / "reports/opdev/run").string() : opts.log_dir;
  // The default log dir is under the op dir: never written through a reports/ symlink.
  if (opts.log_dir.empty())
    if (absl::Status st = CheckReportDir(opts.op_dir, log_dir, {}, true); !st.ok()) return st;

  // DESIGN §8 cases (names, shapes) for per-case results and the precision grouping.
  runtime::TriageContext ctx;
  std::vector<contract::TestCase> cases;
  if (fs::exists(dir / "DESIGN.md")) {
    auto d = contract::LoadDesignDoc((dir / "DESIGN.md").string(), &diags);
    if (d.ok()) cases = d->TestCases();
  }
  std::string dtype = mi && !mi->primary_inputs.empty() ? mi->primary_inputs.front().dtype : "";
  for (const auto& c : cases) ctx.shapes.push_back({c.name, c.shape, dtype});
  if (!opts.case_name.empty()) {
    auto it = std::find_if(cases.begin(), cases.end(),
                           [&](const contract::TestCase& c) { return c.name == opts.case_name; });
    if (it == cases.end() && !cases.empty())
      return absl::NotFoundError(absl::StrCat("no DESIGN §8 case named ", opts.case_name));
    if (it != cases.end()) cases = {*it};
  }

  const bool device_run = opts.backend == "npu" || !opts.design_cases;
  if (device_run) {
    runtime::LaunchOptions lo;
    lo.op_dir = opts.op_dir;
    lo.op = r.op;
    lo.test_file = r.file;
    lo.interpreter = opts.interpreter;
    lo.device = opts.device;
    if (opts.backend == "sim") {
      // The same command on opdev's CPU device: no chip to discover, the device's packages
      // on PYTHONPATH, the interpreter that has torch.
      runtime::DeviceEnvOptions eo;
      eo.target = opts.target;
      auto env = runtime::CpuDeviceEnvironment(eo, std::getenv("PYTHONPATH"));
      if (!env.ok()) return env.status();
      for (const auto& [k, v] : env->vars) lo.env[k] = v;
      lo.interpreter = opts.python;
      lo.discover_device = false;
      lo.device.reset();
    }
    lo.npu_smi = opts.npu_smi;
    lo.timeout_seconds = opts.timeout_seconds;
    lo.idle_timeout_seconds = opts.idle_timeout_seconds;
    lo.case_name = opts.case_name;
    for (const auto& c : cases) lo.expected_cases.push_back(c.name);
    lo.log_dir = log_dir;
    if (opts.progress) {
      size_t total = lo.expected_cases.size();
      auto done = std::make_shared<size_t>(0);
      lo.on_line = [&opts, total, done](const std::string& line) {
        if (line.find("] PASS (") != std::string::npos)
          opts.progress(absl::StrCat("case ", ++*done, "/", total, " PASS"));
        else if (line.find("Traceback (most recent call last)") != std::string::npos)
          opts.progress(absl::StrCat("case ", *done + 1, "/", total, " raised"));
      };
    }
    auto l = runtime::Launch(lo);
    if (!l.ok()) return l.status();
    r.commands = l->preflight_commands;
    r.commands.push_back(l->command);
    r.cases = l->cases;
    r.triage = runtime::TriageLaunch(*l, ctx);
    if (!l->combined_path.empty()) {
      r.logs.push_back({"stdout", l->stdout_path});
      r.logs.push_back({"stderr", l->stderr_path});
      r.logs.push_back({"combined", l->combined_path});
    }
    r.launch = std::move(*l);
    return r;
  }

  // Simulator.
  if (cases.empty())
    return absl::FailedPreconditionError(
        "the simulator needs the DESIGN §8 cases (names and shapes): DESIGN.md has none");
  if (!mi || mi->primary_inputs.empty())
    return absl::FailedPreconditionError(
        "the simulator needs module_interfaces.yaml primary_inputs (names, shapes, dtypes)");
  runtime::SimRunOptions so;
  so.op_dir = opts.op_dir;
  so.file = r.file;
  so.wrapper = r.wrapper;
  so.golden_module = golden_module;
  so.golden_fn = golden_fn;
  so.python = opts.python;
  so.work_dir = (fs::path(log_dir) / "sim").string();
  std::vector<std::string> unsupported;
  const auto spec = contract::LoadSpecContract(opts.op_dir, &diags);
  for (const auto& c : cases) {
    auto sc = SimCaseFor(c.name, c.shape, c.dims, *mi, spec);
    if (!sc) {
      unsupported.push_back(c.name);
      continue;
    }
    so.cases.push_back(*sc);
  }
  if (so.cases.empty())
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot derive the simulator's input shapes from DESIGN §8 and primary_inputs for: ",
        absl::StrJoin(unsupported, ", ")));
  if (opts.progress) {
    auto done = std::make_shared<size_t>(0);
    size_t total = so.cases.size();
    so.on_case = [&opts, total, done](const std::string& line) {
      opts.progress(absl::StrCat("case ", ++*done, "/", total, " ", line));
    };
  }
  auto s = runtime::RunOnSimulator(so);
  if (!s.ok()) return s.status();
  r.commands = s->commands;
  r.cases = s->cases;
  for (const auto& name : unsupported) {
    runtime::CaseResult cr;
    cr.name = name;
    cr.status = runtime::CaseStatus::kNotRun;
    cr.error = "input shapes not derivable from DESIGN §8 and primary_inputs";
    r.cases.push_back(cr);
  }
  r.hazards = s->hazards;
  r.triage = TriageSim(*s, ctx);
  if (!unsupported.empty() && r.triage.outcome == runtime::Outcome::kPass) {
    r.triage.outcome = runtime::Outcome::kFail;
    r.triage.category = std::string(category::kRuntimeFailure);
    r.triage.rule = "sim.cases_not_run";
    r.triage.summary = absl::StrCat(unsupported.size(), " case(s) could not be simulated: ",
                                    absl::StrJoin(unsupported, ", "));
  }
  r.logs.push_back({"sim_work_dir", so.work_dir});
  return r;
}

selfcheck::RunEvidence RunEvidenceOf(const RunOpResult& run, const std::string& op_dir) {
  selfcheck::RunEvidence e;
  e.backend = run.backend;
  e.command = run.commands.empty() ? run.backend : run.commands.back();
  if (run.launch && run.launch->process && run.launch->process->termination == runtime::Termination::kExited) {
    e.exit_code = run.launch->process->exit_code;
    e.output = run.launch->process->combined_text;
    e.command = run.launch->command;
  } else if (run.launch && run.launch->process) {
    e.exit_code = 128 + run.launch->process->signal;  // killed: a non-zero status
    e.output = run.launch->process->combined_text;
    e.command = run.launch->command;
  }
  e.not_measured = run.triage.outcome == runtime::Outcome::kNotMeasured;
  if (e.not_measured) e.not_measured_reason = run.triage.summary;
  e.failure_category = run.triage.category;
  e.cases = run.cases;
  e.hazards = run.hazards;
  auto src = ReadTextFile((fs::path(op_dir) / "precision_compare.py").string());
  if (src.ok()) e.compare_prints_eq = selfcheck::ComparePrintsEq(*src);
  return e;
}

absl::StatusOr<triage::CaseRunner> MakeSimCaseRunner(const RunOpOptions& opts, const RunOpResult& run,
                                                     bool provenance, const std::string& tag) {
  const fs::path dir(opts.op_dir);
  Diagnostics diags;
  auto mi = contract::LoadModuleInterfaces((dir / "module_interfaces.yaml").string(), &diags);
  if (!mi.ok()) return mi.status();
  if (mi->primary_inputs.empty())
    return absl::FailedPreconditionError("module_interfaces.yaml has no primary_inputs");
  std::string log_dir = opts.log_dir.empty() ? (dir / "reports/opdev/run").string() : opts.log_dir;
  runtime::SimRunOptions base;
  base.op_dir = opts.op_dir;
  base.file = run.file;
  base.wrapper = run.wrapper;
  base.golden_module = run.golden_module;
  base.golden_fn = run.golden_fn;
  base.python = opts.python;
  base.record_provenance = provenance;
  base.keep_tensors = true;  // the rounded-golden check below
  auto counter = std::make_shared<int>(0);
  contract::ModuleInterfaces interfaces = std::move(*mi);
  std::optional<contract::SpecContract> spec = contract::LoadSpecContract(opts.op_dir, &diags);
  return triage::CaseRunner([base, interfaces, spec, log_dir, counter, tag](const std::vector<triage::ReproCase>& batch)
                                -> absl::StatusOr<std::vector<triage::ReproRun>> {
    runtime::SimRunOptions so = base;
    so.work_dir = (fs::path(log_dir) / "triage" / absl::StrCat(tag, ++*counter)).string();
    std::vector<size_t> index(batch.size(), SIZE_MAX);
    for (size_t i = 0; i < batch.size(); ++i) {
      auto sc = SimCaseFor(absl::StrCat("t", i), batch[i].shape, {}, interfaces, spec);
      if (!sc) continue;
      sc->seed = batch[i].seed;
      index[i] = so.cases.size();
      so.cases.push_back(*sc);
    }
    std::vector<triage::ReproRun> out(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) out[i].request = batch[i];
    if (so.cases.empty()) return out;
    auto s = runtime::RunOnSimulator(so);
    if (!s.ok()) return s.status();
    if (!s->golden_error.empty()) return absl::FailedPreconditionError(s->golden_error);
    for (size_t i = 0; i < batch.size(); ++i) {
      if (index[i] == SIZE_MAX || index[i] >= s->cases.size()) {
        out[i].error = "input shapes not derivable from primary_inputs";
        continue;
      }
      const runtime::CaseResult& c = s->cases[index[i]];
      out[i].status = c.status;
      out[i].summary = c.summary;
      out[i].error = c.error;
      out[i].hazards = c.hazards;
      for (const auto& h : c.hazards.items())
        if (h.severity == Severity::kError &&
            std::find(out[i].error_codes.begin(), out[i].error_codes.end(), h.code) == out[i].error_codes.end())
          out[i].error_codes.push_back(h.code);
      for (auto& t : s->tensors)
        if (t.name == c.name) {
          out[i].actual = t.actual;
          out[i].golden = t.golden;
          out[i].origin = std::move(t.origin);
        }
      // Would the exact result, rounded to the output dtype, pass scheme A? If not, this
      // case's failure says nothing about the kernel (its inputs are outside what scheme A
      // can judge for that dtype).
      if (c.status == runtime::CaseStatus::kPrecisionFail && out[i].actual && out[i].golden &&
          out[i].actual->numel() == out[i].golden->numel()) {
        const precision::Tensor& g = *out[i].golden;
        std::vector<double> v(static_cast<size_t>(g.numel()));
        for (std::int64_t k = 0; k < g.numel(); ++k) v[static_cast<size_t>(k)] = g.GetDouble(k);
        if (auto rounded = precision::Tensor::FromDoubles(out[i].actual->dtype(), g.shape(), v); rounded.ok()) {
          precision::PrecisionResult pr = precision::CheckPrecision(*rounded, g);
          if (!pr.passed) {
            std::string checks;
            for (const auto& o : pr.outputs)
              if (o)
                for (const auto& f : o->failed_checks) checks += (checks.empty() ? "" : ", ") + f;
            out[i].unjudgeable = absl::StrCat("the golden rounded to ", std::string(DTypeName(out[i].actual->dtype())),
                                              " fails scheme A too (", checks.empty() ? "see summary" : checks, ")");
          }
        }
      }
      if (!base.record_provenance) {  // tensors were kept only for the check above
        out[i].actual.reset();
        out[i].golden.reset();
      }
    }
    return out;
  });
}

}  // namespace opdev::stage
