// `opdev gen` as a library call: plan → DESIGN code → backend → emitters → print → verify.
#include "opdev/codegen/generate.h"

#include "ast_util.h"
#include "composer.h"
#include "design_code.h"
#include "emitters.h"
#include "gen_context.h"
#include "opdev/contract/spec_contract.h"
#include "source_map_builder.h"
#include "table_checks.h"
#include "finalize.h"
#include "l1_slice.h"
#include "opdev/contract/module_interfaces.h"

#include "opdev/api/checker.h"
#include "opdev/budget/const_eval.h"
#include "opdev/budget/design_map.h"
#include "opdev/budget/kernel_budget.h"
#include "opdev/contract/op_dir.h"
#include "opdev/plan/round_plan.h"
#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"
#include "opdev/support/file_io.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <boost/filesystem.hpp>

#include <unistd.h>

namespace opdev::codegen {
namespace {

namespace fs = boost::filesystem;

void ReadConstants(const DesignCode& code, GenContext& ctx) {
  for (const auto& s : code.constants.body) {
    const bool assign = s->Is(py::StmtKind::kAssign) && s->targets.size() == 1 &&
                        s->targets[0]->Is(py::ExprKind::kName);
    if (!assign) {
      ctx.Violation("CODEGEN-CONSTANTS-NOT-ASSIGNMENTS", s->span.line, "§2.1",
                    "DESIGN §2.1 code must hold only `NAME = value` module constants");
      continue;
    }
    const std::string& n = s->targets[0]->id;
    ctx.constant_names.push_back(n);
    if (s->value->Is(py::ExprKind::kConstant) && s->value->const_kind == py::ConstKind::kInt)
      ctx.literal_int_constants.insert(n);
  }
  ctx.constants = budget::FoldModuleConstants(code.constants);
}

// §1 repeats the constants "to be used verbatim": they must agree with §2.1.
void CheckConstantRegion(const DesignCode& code, GenContext& ctx) {
  const CodeRegion* r = code.ConstantsRegion();
  if (!r) return;
  std::map<std::string, const py::Expr*> defs;
  for (const auto& [n, e] : py::TopLevelAssignments(code.constants)) defs[n] = e;
  budget::ConstEnv env1 = budget::FoldModuleConstants(r->ast);
  for (const auto& [n, e] : py::TopLevelAssignments(r->ast)) {
    auto it = defs.find(n);
    if (it == defs.end()) {
      ctx.Violation("CODEGEN-CONSTANT-MISMATCH", e->span.line, "§1",
                    "§1 defines constant " + n + ", which §2.1 (the constants the file uses "
                    "verbatim) does not define");
      continue;
    }
    auto v1 = env1.find(n);
    auto v2 = ctx.constants.find(n);
    bool same = py::AstEqual(*e, *it->second);
    if (!same && v1 != env1.end() && v2 != ctx.constants.end()) same = v1->second == v2->second;
    if (!same)
      ctx.Violation("CODEGEN-CONSTANT-MISMATCH", e->span.line, "§1",
                    absl::StrFormat("§1 sets %s = %s but §2.1 (line %d) sets %s = %s", n,
                                    py::PrintExpr(*e), it->second->span.line, n,
                                    py::PrintExpr(*it->second)));
  }
}

// Every pl.* / vf.* call of the transcribed code resolved against the API catalog. Unknown
// names and misuse are design_violation at the DESIGN line; catalog warnings stay warnings.
void CheckApiUse(const py::Module& check, GenContext& ctx) {
  Diagnostics found = api::CheckModule(check, api::Catalog::Builtin());
  for (const Diagnostic& a : found.items()) {
    if (a.code == api::kMteInVf && ctx.diags->HasCode("CODEGEN-MTE-IN-VF")) continue;
    std::string code = a.code == api::kUnknown ? "CODEGEN-UNKNOWN-API"
                       : a.code == api::kMteInVf ? "CODEGEN-MTE-IN-VF"
                                                 : "CODEGEN-" + a.code;
    if (a.severity == Severity::kError) {
      ctx.Violation(code, a.line, "§1", "DESIGN code against the PyPTO-Pro API catalog: " + a.message,
                    a.evidence.empty() ? ctx.DesignLine(a.line) : a.evidence);
    } else {
      ctx.Warn(code, a.line, "§1", "DESIGN code against the PyPTO-Pro API catalog: " + a.message,
               a.evidence.empty() ? ctx.DesignLine(a.line) : a.evidence)
          .severity = a.severity;
    }
  }
}

std::string Rstrip(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

py::Module MakeModule(std::vector<py::StmtPtr> body, const std::string& name) {
  py::Module m;
  m.filename = name;
  m.body = std::move(body);
  return m;
}

// Shape "[M, N]" of module_interfaces.yaml as SPEC-style symbols.
std::vector<std::string> ShapeSymbols(const std::string& shape) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : shape) {
    if (c == '[' || c == ']' || c == ' ') continue;
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// The names, goldens and tensors of an L1 Module k round (stage4.md §3, §5 step 6).
void SetUpModuleRound(const contract::ModuleInterfaces& mi, int k, bool final, GenContext& ctx) {
  ctx.staged = !final;
  ctx.round_text = final ? absl::StrFormat("L1 finalize, rebuilt from Modules 1..%d", k)
                         : absl::StrFormat("L1 Module %d of %d, staged", k, mi.modules.size());
  const contract::ModuleDecl* md = mi.FindModule(k);
  ctx.golden_fn = !final && md && !md->golden_stage_fn.empty() ? md->golden_stage_fn : "";
  for (const auto& m : mi.modules)
    for (const auto& o : m.outputs) {
      if (ctx.FindTensor(o.name)) continue;
      SpecTensor t;
      t.name = o.name;
      t.shape = ShapeSymbols(o.shape);
      t.dtype = ParseDType(o.dtype);
      t.dtype_text = o.dtype;
      if (!t.dtype) {
        ctx.diags
            ->Error("CODEGEN-L1-TENSOR", category::kDesignViolation, mi.path, o.line,
                    absl::StrFormat("Module %d output %s has dtype `%s`, which is no tensor dtype",
                                    m.id, o.name, o.dtype))
            .evidence = o.dtype;
        continue;
      }
      ctx.workspaces.push_back(std::move(t));
    }
  if (md && !final)
    for (const auto& o : md->outputs) ctx.returns.push_back(o.name);
  if (final)  // the delivery returns the SPEC outputs, never a workspace
    for (const auto& o : ctx.spec->outputs) ctx.returns.push_back(o.name);
}

// Modules 1..k of the fused §1 kernel, each through the backend of its section, composed into
// the one kernel of the round (l1_slice.h says what is kept).
std::optional<ComposedKernel> ComposeModuleRound(const contract::DesignDoc& design, int k,
                                                 const KernelSignature& full_sig,
                                                 const contract::ModuleInterfaces& mi,
                                                 GenContext& ctx, std::string* backend_name) {
  auto slices = SliceFusedKernel(design, k, full_sig.params, ctx);
  if (!slices) return std::nullopt;
  KernelSignature sig;
  sig.name = full_sig.name;
  for (size_t i = 0; i < full_sig.params.size(); ++i)
    if (std::find(slices->used_params.begin(), slices->used_params.end(), full_sig.params[i]) !=
        slices->used_params.end()) {
      sig.params.push_back(full_sig.params[i]);
      if (i < full_sig.param_decls.size()) sig.param_decls.push_back(full_sig.param_decls[i]);
    }
  for (const auto& r : ctx.returns)
    if (std::find(sig.params.begin(), sig.params.end(), r) == sig.params.end()) {
      const contract::ModuleDecl* md = mi.FindModule(k);
      ctx.Violation("CODEGEN-L1-MODULE-OUTPUT", ctx.launch ? ctx.launch->line : 0, "§5",
                    absl::StrFormat("Module %d's output %s (module_interfaces.yaml line %d) is "
                                    "not a §5 launch argument that Modules 1..%d use: the staged "
                                    "wrapper cannot return it",
                                    k, r, md ? md->line : 0, k));
    }
  if (ctx.diags->HasErrors()) return std::nullopt;
  ctx.round_args = sig.params;
  ctx.slot_scope = slices->declared;
  std::vector<ModuleCode> modules;
  std::vector<std::string> names;
  for (auto& slice : slices->modules) {
    std::unique_ptr<Backend> b =
        slice.section == "cube" ? MakeCubeMatmulBackend() : MakeVectorVfBackend();
    if (!b->PrepareRegions(slice.code, ctx)) return std::nullopt;
    auto m = b->BuildModule(slice.code, sig, ctx);
    if (!m) return std::nullopt;
    m->module = slice.module;
    m->kernel_region = nullptr;  // the slice's regions end with this function
    names.push_back(std::string(b->Name()));
    modules.push_back(std::move(*m));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  *backend_name = absl::StrJoin(names, "+");
  auto composed = ComposeKernel(sig, std::move(modules), ctx);
  if (composed) {
    composed->kind_text = "Vector/Cube fusion";
    composed->provenance =
        "the module constants are DESIGN §2.1 verbatim, the kernel is Modules 1..k of the fused\n"
        "DESIGN §1 kernel (each Module's section block through its section's backend, the\n"
        "cross-core calls whose partner Module is still to come left out), the wrapper\n";
  }
  return composed;
}

// The last verified staged file equals the transcription of Modules 1..k-1.
bool CheckStartingPoint(const std::string& op_dir, const GenerateOptions& opts,
                        const plan::RoundPlan& plan, Diagnostics& diags) {
  if (!plan.starting_point || plan.starting_point->rel == plan.product.rel) return true;
  const std::string prev_path = plan.starting_point->path;
  auto prev = ReadTextFile(prev_path);
  if (!prev.ok()) {
    diags.Error("CODEGEN-L1-START", category::kMissingFile, prev_path, 0,
                "the last verified staged file cannot be read: " +
                    std::string(prev.status().message()));
    return false;
  }
  GenerateOptions o = opts;
  o.dispatch.module_k = *plan.module_k - 1;
  GenerateResult again = GenerateKernelFile(op_dir, o);
  if (!again.ok()) {
    diags.Error("CODEGEN-L1-START", category::kImplementationError, prev_path, 0,
                "Modules 1..k-1 cannot be transcribed again to compare with the last verified "
                "staged file");
    return false;
  }
  if (again.file->content == *prev) return true;
  // First differing line, for the message.
  int line = 1;
  const std::string& a = again.file->content;
  const size_t n = std::min(a.size(), prev->size());
  size_t i = 0;
  while (i < n && a[i] == (*prev)[i]) {
    if (a[i] == '\n') ++line;
    ++i;
  }
  diags.Error("CODEGEN-L1-START-DIFFERS", category::kImplementationError, prev_path, line,
              absl::StrFormat("the last verified staged file %s differs from the transcription of "
                              "Modules 1..%d from line %d on: a new Module starts as a copy of "
                              "that file, and opdev cannot carry its edits into Module %d's "
                              "file (regenerate it with `opdev gen --module-k %d`, or extend it "
                              "by hand)",
                              plan.starting_point->rel, *plan.module_k - 1, line,
                              *plan.module_k, *plan.module_k - 1));
  return false;
}

}  // namespace

boost::json::object GenerateResult::ToJson() const {
  boost::json::object o;
  o["ok"] = ok();
  if (file) {
    boost::json::object f;
    f["rel"] = file->rel;
    f["path"] = file->path;
    f["op"] = file->op;
    f["kernel"] = file->kernel;
    f["wrapper"] = file->wrapper;
    boost::json::array vfs, tests;
    for (const auto& v : file->vector_functions) vfs.push_back(boost::json::string(v));
    for (const auto& t : file->tests) tests.push_back(boost::json::string(t));
    f["vector_functions"] = vfs;
    f["tests"] = tests;
    f["bytes"] = file->content.size();
    f["sha256"] = Sha256Hex(file->content);
    f["budget"] = budget::BudgetReportToJson(file->budget);
    o["file"] = f;
  } else {
    o["file"] = nullptr;
  }
  o["diagnostics"] = diagnostics.ToJson();
  return o;
}

namespace {

// One generation: L0, an L1 Module round, or (`rebuild_final`) the final file of a finalize
// round rebuilt from the fused kernel of Modules 1..N.
GenerateResult GenerateRound(const std::string& op_dir, const GenerateOptions& opts,
                             bool rebuild_final) {
  GenerateResult result;
  Diagnostics& diags = result.diagnostics;

  // The round plan names the product.
  Diagnostics plan_diags;
  auto plan = plan::PlanRound(op_dir, opts.dispatch, &plan_diags);
  for (Diagnostic d : plan_diags.items()) {
    if (d.code == plan::code::kPlanPrereqMissing) d.severity = Severity::kWarning;
    diags.Add(std::move(d));
  }
  if (!plan.ok()) {
    if (!diags.HasErrors())
      diags.Error("CODEGEN-PLAN", category::kInputError, op_dir, 0,
                  "cannot plan the round: " + std::string(plan.status().message()));
    return result;
  }
  const bool finalize =
      plan->mode == plan::Mode::kL1Finalize || plan->mode == plan::Mode::kL1FinalizeRetry;
  if (finalize != rebuild_final) {
    diags.Error(code::kModeUnsupported, category::kImplementationError, op_dir, 0,
                absl::StrFormat("%s rounds (%s) are generated by the finalize path",
                                std::string(plan::ModeName(plan->mode)), plan->product.rel));
    return result;
  }
  const bool l1 = plan->mode == plan::Mode::kL1Module || rebuild_final;
  const int module_k = plan->mode == plan::Mode::kL1Module ? static_cast<int>(*plan->module_k)
                       : rebuild_final ? static_cast<int>(plan->module_count)
                                       : 0;

  Diagnostics load_diags;
  contract::LoadOptions lopts;
  auto dir = contract::LoadOpDir(op_dir, lopts, &load_diags);
  if (!dir.ok() || !dir->design) {
    for (const auto& d : load_diags.items())
      if (d.file.find("DESIGN.md") != std::string::npos) diags.Add(d);
    if (!diags.HasErrors())
      diags.Error("CODEGEN-NO-DESIGN", category::kMissingFile, op_dir + "/DESIGN.md", 0,
                  "DESIGN.md is missing or unreadable: nothing to transcribe");
    return result;
  }
  const contract::DesignDoc& design = *dir->design;
  auto spec = contract::LoadSpecContract(op_dir, &diags);
  if (!spec) return result;

  GenContext ctx;
  ctx.design = &design;
  ctx.spec = &*spec;
  ctx.op = plan->op;
  ctx.product_rel = plan->product.rel;
  ctx.wrapper = plan->wrapper;
  ctx.golden_cpu = plan->golden_module;
  ctx.device_golden = plan->op + "_golden";
  ctx.target = opts.target;
  ctx.diags = &diags;
  if (spec->inputs.empty()) return result;
  std::optional<contract::ModuleInterfaces> mi;
  if (l1) {
    Diagnostics mi_diags;
    auto m = contract::LoadModuleInterfaces(op_dir + "/module_interfaces.yaml", &mi_diags);
    if (!m.ok()) {
      diags.Append(mi_diags);
      if (!diags.HasErrors())
        diags.Error("CODEGEN-PLAN", category::kInputError, op_dir + "/module_interfaces.yaml", 0,
                    std::string(m.status().message()));
      return result;
    }
    mi = std::move(*m);
    SetUpModuleRound(*mi, module_k, rebuild_final, ctx);
    if (diags.HasErrors()) return result;
  }

  auto code = ExtractDesignCode(design, &diags, /*require_kernel=*/false);
  if (!code) return result;
  if (!code->Kernel() && !code->VectorFunctions().empty()) {
    ReportNoKernelCode(design, &diags);  // partial code: not a chain-only DESIGN
    return result;
  }
  ReadConstants(*code, ctx);
  CheckConstantRegion(*code, ctx);
  ReadCoreSplit(ctx);
  if (diags.HasErrors()) return result;
  const bool skeleton = !code->Kernel();  // the backend builds the regions from a §1 chain
  // The Module's backend builds its section code; the composer puts the §5 signature and
  // launch policy around it. An L1 round builds Modules 1..k, each with its own backend.
  std::unique_ptr<Backend> backend;
  std::string backend_name;
  const size_t errors_before_kernel = diags.ErrorCount();
  std::optional<ComposedKernel> defs;
  if (l1) {
    if (auto sig = ReadKernelSignature(code->Kernel(), ctx))
      defs = ComposeModuleRound(design, module_k, *sig, *mi, ctx, &backend_name);
    if (diags.ErrorCount() != errors_before_kernel) defs.reset();
  } else {
    backend = SelectBackend(ctx);
    if (!backend || !backend->PrepareRegions(*code, ctx)) return result;
    backend_name = std::string(backend->Name());
    if (auto sig = ReadKernelSignature(code->Kernel(), ctx)) {
      std::vector<ModuleCode> modules;
      if (auto m = backend->BuildModule(*code, *sig, ctx)) modules.push_back(std::move(*m));
      if (!modules.empty() && diags.ErrorCount() == errors_before_kernel)
        defs = ComposeKernel(*sig, std::move(modules), ctx);
    }
  }
  auto wrapper = defs ? EmitWrapper(ctx, defs->kernel_name, defs->launch, defs->wrapper_checks)
                      : std::nullopt;
  auto tests = EmitTests(ctx);
  if (!defs || !wrapper || !tests || diags.HasErrors()) return result;

  // The transcribed code as one module whose lines are DESIGN lines: §2.1 constants, the
  // vector functions and the kernel. Checked against the API catalog and the §2/§3 tables.
  std::vector<py::StmtPtr> check_body;
  for (auto& s : code->constants.body) check_body.push_back(std::move(s));
  const size_t first_def = check_body.size();
  for (auto& v : defs->functions) check_body.push_back(std::move(v));
  check_body.push_back(std::move(defs->kernel));
  py::Module check = MakeModule(std::move(check_body), design.path);
  CheckApiUse(check, ctx);
  budget::BudgetReport design_budget = CheckSlotsAgainstTables(check, ctx);
  defs->kernel = std::move(check.body.back());
  check.body.pop_back();
  for (size_t i = first_def; i < check.body.size(); ++i)
    defs->functions[i - first_def] = std::move(check.body[i]);
  if (diags.HasErrors()) return result;

  // Print.
  Diagnostics sha_diags;
  // Every printed top-level statement is tagged with the part of the composer that made it,
  // for the source map.
  std::vector<PrintedPart> parts;
  py::Module header_mod = MakeModule(
      EmitHeader(ctx, Sha256Hex(design.text), defs->kind_text, defs->provenance), ctx.product_rel);
  std::string header = py::PrintModule(header_mod);
  for (const auto& st : header_mod.body) parts.push_back({st.get(), false, false, "emitter: module header and imports"});
  for (size_t i = 0; i < first_def; ++i) parts.push_back({check.body[i].get(), true, false, "§2.1 constants"});
  std::vector<py::StmtPtr> rest;
  std::vector<std::string> rest_rules;
  auto take = [&](std::vector<py::StmtPtr> v, bool design_part, const std::string& rule) {
    for (auto& st : v) {
      rest.push_back(std::move(st));
      rest_rules.push_back(design_part ? "#design:" + rule : rule);
    }
  };
  take(EmitHelpers(ctx), false, "emitter: input and precision helpers");
  take(std::move(defs->functions), true, backend_name + " backend: function signature and body completion");
  {
    std::vector<py::StmtPtr> k;
    k.push_back(std::move(defs->kernel));
    take(std::move(k), true, "composer: kernel signature (§5 launch, SPEC) and " + backend_name + " section");
  }
  take(std::move(*wrapper), false, "emitter: wrapper (§5 launch contract, SPEC checks)");
  take(std::move(tests->defs), false, "emitter: §8 tests");
  take(EmitMain(ctx, tests->names), false, "emitter: __main__ runner");
  py::Module body_mod = MakeModule(std::move(rest), ctx.product_rel);
  std::string body = py::PrintModule(body_mod);
  for (size_t i = 0; i < body_mod.body.size(); ++i) {
    const std::string& r = rest_rules[i];
    const bool d = r.rfind("#design:", 0) == 0;
    parts.push_back({body_mod.body[i].get(), d, d && skeleton, d ? r.substr(8) : r});
  }
  std::string content = Rstrip(header) + "\n\n" +
                        "# Module constants: DESIGN §2.1, verbatim.\n" +
                        Rstrip(code->constants_text) + "\n\n\n" + Rstrip(body) + "\n";

  // Verify: the file parses, has exactly one @pl.jit, and its budget equals DESIGN §3.
  Diagnostics reparse;
  auto mod = py::ParseModule(content, ctx.product_rel, &reparse);
  if (!mod.ok()) {
    diags.Error("CODEGEN-OUTPUT-SYNTAX", category::kImplementationError, ctx.product_rel, 0,
                "the generated file does not re-parse: " + std::string(mod.status().message()));
    return result;
  }
  int jits = 0;
  for (const auto& d : py::TopLevelDefs(*mod))
    if (d.HasDecorator("pl.jit")) ++jits;
  Diagnostics budget_diags;
  budget::SlotModel slots =
      budget::SlotsFromKernel(*mod, ctx.product_rel, ctx.target, &budget_diags);
  budget::BudgetReport report = budget::CheckBudget(slots);
  Diagnostics map_diff = budget::CompareWithDesignMap(
      slots, ScopedDesignSlots(ctx), category::kImplementationError);
  budget_diags.Append(report.diagnostics);
  budget_diags.Append(map_diff);
  if (jits != 1 || budget_diags.HasErrors()) {
    diags.Error("CODEGEN-OUTPUT-CHECK", category::kImplementationError, ctx.product_rel, 0,
                absl::StrFormat("the generated file fails its own check (%d @pl.jit kernel(s), "
                                "%d budget finding(s))",
                                jits, budget_diags.ErrorCount()));
    diags.Append(budget_diags);
    return result;
  }
  (void)design_budget;

  GeneratedFile f;
  f.rel = ctx.product_rel;
  f.path = plan->product.path;
  f.content = std::move(content);
  f.op = ctx.op;
  f.kernel = defs->kernel_name;
  f.wrapper = ctx.wrapper;
  f.vector_functions = defs->function_names;
  f.tests = tests->names;
  f.budget = std::move(report);
  if (mod->body.size() == parts.size())
    f.source_map = BuildSourceMap(f.rel, f.content, *mod, parts, design);
  // A new Module k > 1 starts as a copy of the last verified staged file: that file must be
  // exactly the transcription of Modules 1..k-1 this round extends.
  if (plan->mode == plan::Mode::kL1Module && module_k > 1 &&
      !CheckStartingPoint(op_dir, opts, *plan, diags))
    return result;
  result.file = std::move(f);
  return result;
}

}  // namespace

GenerateResult GenerateKernelFile(const std::string& op_dir, const GenerateOptions& opts) {
  {
    Diagnostics plan_diags;
    auto plan = plan::PlanRound(op_dir, opts.dispatch, &plan_diags);
    if (plan.ok() &&
        (plan->mode == plan::Mode::kL1Finalize || plan->mode == plan::Mode::kL1FinalizeRetry)) {
      FinalizeContext fc;
      fc.op_dir = op_dir;
      fc.plan = &*plan;
      fc.plan_diags = std::move(plan_diags);
      fc.rebuild = [&opts, &op_dir]() { return GenerateRound(op_dir, opts, true); };
      fc.target = opts.target;
      return FinalizeRound(fc);
    }
  }
  return GenerateRound(op_dir, opts, false);
}

absl::Status WriteGeneratedFile(const std::string& path, const std::string& content,
                                const WriteOptions& opts) {
  static const char* kFrozen[] = {"DESIGN.md", "SPEC.md", "DESIGN_BINDINGS.json",
                                  "module_interfaces.yaml", "KB_SELECTION.json",
                                  "EXPLORE_REPORT.md", "PRO_MATERIAL_INDEX.md",
                                  "PERFORMANCE_CASES.json", "topology-map.json"};
  const std::string base = fs::path(path).filename().string();
  for (const char* f : kFrozen)
    if (base == f)
      return absl::FailedPreconditionError(path + ": refusing to write a frozen contract file");
  if (base.find("_golden") != std::string::npos)
    return absl::FailedPreconditionError(path + ": refusing to write a golden file");
  if (base.size() < 4 || base.substr(base.size() - 3) != ".py")
    return absl::InvalidArgumentError(path + ": the kernel file must be a .py file");
  for (const auto& root : opts.protected_roots) {
    if (root.empty()) continue;
    boost::system::error_code ec;
    fs::path parent = fs::path(path).parent_path();
    if (parent.empty()) parent = ".";
    // Resolve the deepest existing ancestor so new subdirectories are judged correctly.
    fs::path probe = parent;
    while (!probe.empty() && !fs::exists(probe, ec)) probe = probe.parent_path();
    if (probe.empty()) probe = ".";
    if (fs::exists(root, ec) && IsInsideDirectory(probe.string(), root))
      return absl::FailedPreconditionError(path + ": refusing to write inside " + root +
                                           " (read-only reference tree)");
  }
  if (absl::Status st = RefuseReadOnlyTarget(path); !st.ok()) return st;
  return WriteFileAtomic(path, content);
}

}  // namespace opdev::codegen
