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

GenerateResult GenerateKernelFile(const std::string& op_dir, const GenerateOptions& opts) {
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
  if (plan->mode != plan::Mode::kL0) {
    diags.Error(code::kModeUnsupported, category::kCapabilityGap, op_dir, 0,
                absl::StrFormat("generation of %s rounds (%s) needs the Cube/fusion backend, "
                                "which this build does not provide; only L0 pure-Vector "
                                "operators are generated",
                                std::string(plan::ModeName(plan->mode)), plan->product.rel));
    return result;
  }

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
  // launch policy around it.
  std::unique_ptr<Backend> backend = SelectBackend(ctx);
  if (!backend || !backend->PrepareRegions(*code, ctx)) return result;
  const size_t errors_before_kernel = diags.ErrorCount();
  std::optional<ComposedKernel> defs;
  if (auto sig = ReadKernelSignature(code->Kernel(), ctx)) {
    std::vector<ModuleCode> modules;
    if (auto m = backend->BuildModule(*code, *sig, ctx)) modules.push_back(std::move(*m));
    if (!modules.empty() && diags.ErrorCount() == errors_before_kernel)
      defs = ComposeKernel(*sig, std::move(modules), ctx);
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
  const std::string backend_name(backend->Name());
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
      slots, budget::SlotsFromDesignMap(design, ctx.target), category::kImplementationError);
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
  result.file = std::move(f);
  return result;
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
