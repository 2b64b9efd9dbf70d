// Static self-check items on the file's structure: the import gate (S4-1/MC-2), device
// (S4-3), precision standard (S4-4), test cases against DESIGN §8 (S4-10), dynamic
// dimensions (S4-11), wrapper and signature (S4-12), the staged golden's imports (MC-6) and
// the module-check pre-check (MC-0: the frozen Bindings and DESIGN are readable).
#include "check_context.h"

#include "opdev/contract/design_bindings.h"
#include "opdev/pyfront/parser.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>

#include <yaml-cpp/yaml.h>

namespace fs = std::filesystem;

namespace opdev::selfcheck {
namespace {

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }
bool EndsWith(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

// Every Name/Attribute/keyword/string constant visited, for "mentions" checks.
void ForEachExpr(const py::Module& m, const std::function<void(const py::Expr&)>& fn) {
  struct V : py::AstVisitor {
    const std::function<void(const py::Expr&)>* fn;
    bool EnterExpr(const py::Expr& e) override {
      (*fn)(e);
      return true;
    }
  } v;
  v.fn = &fn;
  py::Walk(m, v);
}

bool ReachesCall(const KernelFile& f, const std::string& root, const std::string& callee) {
  for (const auto& fn : Reachable(f, root))
    for (const auto* c : f.CallsIn(fn))
      if (c->name == callee || EndsWith(c->name, "." + callee)) return true;
  return false;
}

// cases.yaml (written by the driver; upstream publishes no schema). Accepted forms: a list
// of cases, or a mapping with `cases:`; each case has `name` and `input_shapes` (or
// `input_shape`): a list by the wrapper's parameter order, where a null entry or a shorter
// list omits the input, or a mapping by input name, where a null value or a missing key
// omits it. Returns (input, case) pairs for every omission, or nullopt with the reason.
std::optional<std::vector<std::pair<std::string, std::string>>> OmittedInputs(
    const std::string& path, const std::vector<std::pair<std::string, bool>>& params, std::string* why) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const std::exception& e) {
    *why = e.what();
    return std::nullopt;
  }
  YAML::Node cases = root.IsMap() ? root["cases"] : root;
  if (!cases || !cases.IsSequence()) {
    *why = "no list of cases";
    return std::nullopt;
  }
  std::vector<std::string> names;
  for (const auto& [n, d] : params) names.push_back(n);
  std::set<std::string> in_any;
  std::vector<std::pair<std::string, std::string>> out;
  size_t k = 0;
  for (const auto& cs : cases) {
    ++k;
    if (!cs.IsMap()) {
      *why = absl::StrCat("case ", k, " is not a mapping");
      return std::nullopt;
    }
    std::string cname = cs["name"] && cs["name"].IsScalar() ? cs["name"].as<std::string>() : absl::StrCat("#", k);
    YAML::Node shapes = cs["input_shapes"] ? cs["input_shapes"] : cs["input_shape"];
    if (!shapes) {
      *why = absl::StrCat("case ", cname, " has no input_shapes");
      return std::nullopt;
    }
    if (shapes.IsSequence()) {
      for (size_t i = 0; i < names.size(); ++i) {
        bool present = i < shapes.size() && !shapes[i].IsNull();
        if (present) in_any.insert(names[i]);
        else out.push_back({names[i], cname});
      }
    } else if (shapes.IsMap()) {
      for (const auto& n : names) {
        bool present = shapes[n] && !shapes[n].IsNull();
        if (present) in_any.insert(n);
        else out.push_back({n, cname});
      }
    } else {
      *why = absl::StrCat("case ", cname, ": input_shapes is neither a list nor a mapping");
      return std::nullopt;
    }
  }
  // Parameters no case ever passes are not inputs of the cases (scalars, options).
  std::vector<std::pair<std::string, std::string>> omitted;
  for (const auto& o : out)
    if (in_any.count(o.first)) omitted.push_back(o);
  return omitted;
}

}  // namespace

std::string CheckContext::Path(const std::string& rel) const {
  return (fs::path(op_dir) / rel).string();
}

std::set<std::string> Reachable(const KernelFile& f, const std::string& root) {
  std::set<std::string> seen{root};
  std::vector<std::string> work{root};
  while (!work.empty()) {
    std::string fn = work.back();
    work.pop_back();
    for (const auto* c : f.CallsIn(fn)) {
      if (c->name.empty() || c->name.find('.') != std::string::npos) continue;
      if (f.Find(c->name) && !seen.count(c->name)) {
        seen.insert(c->name);
        work.push_back(c->name);
      }
    }
  }
  return seen;
}

void Conclude(ItemResult* r) {
  if (r->status == ItemStatus::kBlocked || r->status == ItemStatus::kNotAvailable ||
      r->status == ItemStatus::kSkipped)
    return;
  r->status = r->findings.HasErrors() ? ItemStatus::kFail : ItemStatus::kPass;
  r->category.clear();
  for (const auto& d : r->findings.items()) {
    if (d.severity != Severity::kError) continue;
    if (r->category.empty() || CategoryPriority(d.category) < CategoryPriority(r->category))
      r->category = d.category;
  }
}

ItemResult CheckImportGate(const CheckContext& c) {
  ItemResult r;
  const KernelFile& f = *c.file;
  bool has_pl = false;
  for (const auto& i : f.imports) {
    if (!i.is_from && i.module == "pypto_pro.language" && i.asname == "pl" && i.module_level)
      has_pl = true;
    bool frontend = i.module == "pypto.frontend" || StartsWith(i.module, "pypto.frontend.") ||
                    (i.is_from && i.module == "pypto" &&
                     std::find(i.names.begin(), i.names.end(), "frontend") != i.names.end());
    if (frontend)
      AddFinding(&r.findings, f, "SC-IMPORT-FRONTEND", cat::kImportViolation, i.line,
                 "the non-Pro pypto.frontend is imported; PyPTO-Pro files use pypto_pro.language only");
  }
  if (!has_pl)
    AddFinding(&r.findings, f, "SC-IMPORT-GATE", cat::kImportViolation, 1,
               "missing the module-level `import pypto_pro.language as pl`", f.rel);
  for (const auto& fn : f.functions)
    for (const auto& d : fn.decorators)
      if (d == "pypto.frontend.jit" || d == "frontend.jit")
        AddFinding(&r.findings, f, "SC-IMPORT-FRONTEND-JIT", cat::kImportViolation, fn.line,
                   absl::StrCat("@", d, " on ", fn.name, " is the non-Pro front end"));
  r.evidence = absl::StrCat(f.imports.size(), " import statement(s) inspected");
  Conclude(&r);
  return r;
}

ItemResult CheckDevice(const CheckContext& c) {
  ItemResult r;
  const KernelFile& f = *c.file;
  static const std::regex kNpuLiteral(R"(^npu:\d+$)");
  // Hard-coded devices anywhere in the test file.
  ForEachExpr(f.module, [&](const py::Expr& e) {
    if (auto s = py::StringValue(e); s && std::regex_match(*s, kNpuLiteral))
      AddFinding(&r.findings, f, "SC-DEVICE-HARDCODED", cat::kIncompleteStructure, e.span.line,
                 absl::StrCat("hard-coded device \"", *s, "\"; take the device from ", c.op,
                              "_golden._get_device()"));
    if (e.Is(py::ExprKind::kCall)) {
      std::string name = py::CallName(e);
      bool device_call = name == "torch.device" || name == "torch.npu.set_device" ||
                         EndsWith(name, ".npu") || name == "torch_npu.npu.set_device";
      if (device_call) {
        for (const auto& a : e.args)
          if (py::IntValue(*a) || (py::StringValue(*a) && *py::StringValue(*a) == "npu" && e.args.size() > 1))
            AddFinding(&r.findings, f, "SC-DEVICE-HARDCODED", cat::kIncompleteStructure,
                       e.span.line, absl::StrCat(name, "(...) with a literal device"));
      }
    }
  });
  // _get_device imported from <op>_golden and reached by every test.
  const std::string golden = c.op + "_golden";
  bool imported = false;
  for (const auto& i : f.imports) {
    if (i.is_from && i.module == golden &&
        std::find(i.names.begin(), i.names.end(), "_get_device") != i.names.end())
      imported = true;
    if (!i.is_from && i.module == golden) imported = true;
  }
  if (!imported)
    AddFinding(&r.findings, f, "SC-DEVICE-NOT-GOLDEN", cat::kIncompleteStructure, 1,
               absl::StrCat("no `from ", golden, " import _get_device`: the device must come from ",
                            golden, "._get_device()"), f.rel);
  for (const auto* t : f.Tests())
    if (!ReachesCall(f, t->name, "_get_device"))
      AddFinding(&r.findings, f, "SC-DEVICE-NOT-GOLDEN", cat::kIncompleteStructure, t->line,
                 absl::StrCat(t->name, " never calls _get_device()"));
  r.evidence = absl::StrCat(f.Tests().size(), " test(s) traced for _get_device()");
  Conclude(&r);
  return r;
}

ItemResult CheckPrecisionStandard(const CheckContext& c) {
  ItemResult r;
  const KernelFile& f = *c.file;
  for (const auto& call : f.calls) {
    if (EndsWith(call.name, "assert_close") || EndsWith(call.name, "assert_allclose") ||
        call.name == "torch.allclose" || call.name == "numpy.allclose" || call.name == "np.allclose" ||
        call.name == "torch.isclose")
      AddFinding(&r.findings, f, "SC-PRECISION-ASSERT-CLOSE", cat::kCheating, call.line,
                 absl::StrCat(call.name, "() is a custom tolerance; compare with _assert_precision "
                              "(scheme A, fixed thresholds)"));
    if (call.name == "check_precision" || EndsWith(call.name, ".check_precision")) {
      bool custom = call.call->args.size() > 3;
      for (const auto& kw : call.call->keywords)
        if (kw.arg != "dtype_str") custom = true;
      if (custom)
        AddFinding(&r.findings, f, "SC-PRECISION-CUSTOM-TOL", cat::kCheating, call.line,
                   "check_precision takes (actual, golden[, dtype_str]) only: no thresholds");
    }
  }
  ForEachExpr(f.module, [&](const py::Expr& e) {
    if (e.Is(py::ExprKind::kCall))
      for (const auto& kw : e.keywords)
        if (kw.arg == "atol_override" || kw.arg == "rtol_override")
          AddFinding(&r.findings, f, "SC-PRECISION-OVERRIDE", cat::kCheating, kw.span.line,
                     absl::StrCat(kw.arg, "= overrides the fixed thresholds"));
    if (e.Is(py::ExprKind::kName) && (e.id == "atol_override" || e.id == "rtol_override"))
      AddFinding(&r.findings, f, "SC-PRECISION-OVERRIDE", cat::kCheating, e.span.line,
                 absl::StrCat(e.id, " overrides the fixed thresholds"));
  });
  if (!f.Find("_assert_precision"))
    AddFinding(&r.findings, f, "SC-PRECISION-NO-ASSERT", cat::kIncompleteStructure, 1,
               "no _assert_precision helper (the template's scheme-A comparison)", f.rel);
  for (const auto* t : f.Tests())
    if (!ReachesCall(f, t->name, "_assert_precision"))
      AddFinding(&r.findings, f, "SC-PRECISION-NO-ASSERT", cat::kIncompleteStructure, t->line,
                 absl::StrCat(t->name, " never calls _assert_precision"));
  bool golden_cpu = false;
  for (const auto& i : f.imports) {
    std::string m = i.module;
    if (m == c.golden_module || m == "modules." + c.golden_module) golden_cpu = true;
    if (i.is_from && m == c.op + "_golden" &&
        std::find(i.names.begin(), i.names.end(), c.op + "_golden") != i.names.end())
      AddFinding(&r.findings, f, "SC-PRECISION-NPU-GOLDEN", cat::kCheating, i.line,
                 absl::StrCat("compares against the NPU golden ", c.op,
                              "_golden; the reference is the CPU FP32 ", c.golden_module));
  }
  if (!golden_cpu)
    AddFinding(&r.findings, f, "SC-PRECISION-NO-GOLDEN-CPU", cat::kIncompleteStructure, 1,
               absl::StrCat(c.golden_module, " is never imported: the comparison must use the CPU "
                            "FP32 golden"), f.rel);
  r.evidence = absl::StrCat("golden: ", c.golden_module);
  Conclude(&r);
  return r;
}

ItemResult CheckTestCases(const CheckContext& c) {
  ItemResult r;
  const KernelFile& f = *c.file;
  std::vector<std::string> tests;
  for (const auto* t : f.Tests()) tests.push_back(t->name);
  if (tests.size() < 4)
    AddFinding(&r.findings, f, "SC-TEST-COUNT", cat::kIncompleteStructure, 1,
               absl::StrCat("at least 4 `def test_` are required, found ", tests.size()), f.rel);
  if (!c.design) {
    r.status = ItemStatus::kBlocked;
    r.evidence = "DESIGN.md is missing: the §8 cases cannot be compared";
    r.category = std::string(cat::kDesignViolation);
    return r;
  }
  auto cases = c.design->TestCases();
  std::set<std::string> want, have(tests.begin(), tests.end());
  for (const auto& tc : cases) {
    want.insert(tc.name);
    if (!have.count(tc.name))
      AddFinding(&r.findings, f, "SC-TEST-MISSING-CASE", cat::kIncompleteStructure, 1,
                 absl::StrCat("DESIGN §8 case ", tc.name, " (DESIGN.md line ", tc.line,
                              ") has no `def ", tc.name, "`"), tc.shape_text);
  }
  for (const auto* t : f.Tests())
    if (!want.count(t->name))
      AddFinding(&r.findings, f, "SC-TEST-EXTRA-CASE", cat::kIncompleteStructure, t->line,
                 absl::StrCat(t->name, " is not a DESIGN §8 case (names must match §8 exactly)"));
  r.evidence = absl::StrCat(tests.size(), " test(s) in the file, ", cases.size(), " in DESIGN §8");
  Conclude(&r);
  return r;
}

ItemResult CheckDynamicDims(const CheckContext& c) {
  ItemResult r;
  const KernelFile& f = *c.file;
  std::set<std::string> module_names;
  for (const auto& [name, e] : py::TopLevelAssignments(f.module)) module_names.insert(name);
  int tensors = 0;
  for (const auto* k : f.Jits()) {
    const auto& args = *k->def->args;
    for (const auto& a : args.args) {
      if (!a.annotation) continue;
      const py::Expr& ann = *a.annotation;
      if (!ann.Is(py::ExprKind::kSubscript) || !ann.value_expr) continue;
      auto base = py::DottedName(*ann.value_expr);
      if (!base || (*base != "pl.Tensor")) continue;
      ++tensors;
      const py::Expr* sl = ann.slice.get();
      if (!sl || !sl->Is(py::ExprKind::kTuple) || sl->elts.size() != 2 ||
          !sl->elts[0]->Is(py::ExprKind::kList)) {
        AddFinding(&r.findings, f, "SC-DYN-DIM", cat::kIncompleteStructure, a.span.line,
                   absl::StrCat("parameter ", a.arg, ": expected pl.Tensor[[dims...], pl.DT_*]"));
        continue;
      }
      for (const auto& d : sl->elts[0]->elts) {
        auto dn = py::DottedName(*d);
        bool ok = (dn && (*dn == "pl.DYNAMIC" || module_names.count(*dn))) ||
                  (py::IntValue(*d) && *py::IntValue(*d) > 0);
        if (!ok)
          AddFinding(&r.findings, f, "SC-DYN-DIM", cat::kIncompleteStructure, d->span.line,
                     absl::StrCat("parameter ", a.arg, ": a dimension must be pl.DYNAMIC, a positive "
                                  "integer or a module-level constant"));
      }
      auto dt = py::DottedName(*sl->elts[1]);
      if (!dt || !StartsWith(*dt, "pl.DT_"))
        AddFinding(&r.findings, f, "SC-DYN-DIM", cat::kIncompleteStructure, sl->elts[1]->span.line,
                   absl::StrCat("parameter ", a.arg, ": the dtype must be a pl.DT_* constant"));
    }
  }
  r.evidence = absl::StrCat(tensors, " pl.Tensor parameter annotation(s)");
  Conclude(&r);
  return r;
}

ItemResult CheckWrapperSignature(const CheckContext& c) {
  ItemResult r;
  const KernelFile& f = *c.file;
  const FunctionInfo* w = f.Find(c.wrapper);
  if (!w) {
    AddFinding(&r.findings, f, "SC-WRAPPER-MISSING", cat::kSignatureMismatch, 1,
               absl::StrCat("no `def ", c.wrapper, "(`"), f.rel);
    Conclude(&r);
    return r;
  }
  // Tests go through the wrapper and never launch the kernel themselves.
  auto jits = f.Jits();
  std::set<std::string> wrapper_chain = Reachable(f, w->name);
  for (const auto* t : f.Tests()) {
    if (!ReachesCall(f, t->name, c.wrapper))
      AddFinding(&r.findings, f, "SC-TEST-BYPASSES-WRAPPER", cat::kSignatureMismatch, t->line,
                 absl::StrCat(t->name, " does not call ", c.wrapper));
  }
  for (const auto* k : jits)
    for (const auto& call : f.calls)
      if ((call.launched == k->name || call.name == k->name) && !wrapper_chain.count(call.function))
        AddFinding(&r.findings, f, "SC-TEST-BYPASSES-WRAPPER", cat::kSignatureMismatch, call.line,
                   absl::StrCat(call.function.empty() ? "module level" : call.function,
                                " launches ", k->name, " directly instead of through ", c.wrapper));
  // Optional parameters: cases.yaml decides when readable, else the CPU golden's signature,
  // else the item is blocked (never n/a).
  auto defaults_of = [](const py::Arguments& a) {
    std::vector<std::pair<std::string, bool>> m;  // (name, has default) in order
    std::vector<const py::Arg*> pos;
    for (const auto& x : a.posonlyargs) pos.push_back(&x);
    for (const auto& x : a.args) pos.push_back(&x);
    size_t first_default = pos.size() - a.defaults.size();
    for (size_t i = 0; i < pos.size(); ++i) m.push_back({pos[i]->arg, i >= first_default});
    for (size_t i = 0; i < a.kwonlyargs.size(); ++i)
      m.push_back({a.kwonlyargs[i].arg, i < a.kw_defaults.size() && a.kw_defaults[i] != nullptr});
    return m;
  };
  auto wd = defaults_of(*w->def->args);
  auto has_default = [&](const std::string& n) -> std::optional<bool> {
    for (const auto& [name, d] : wd)
      if (name == n) return d;
    return std::nullopt;
  };
  std::string evidence;
  bool decided = false;
  if (fs::exists(c.Path("cases.yaml"))) {
    std::string why;
    auto omitted = OmittedInputs(c.Path("cases.yaml"), wd, &why);
    if (omitted) {
      decided = true;
      for (const auto& [name, case_name] : *omitted) {
        auto d = has_default(name);
        if (!d || !*d)
          AddFinding(&r.findings, f, "SC-SIGNATURE-DEFAULT", cat::kSignatureMismatch, w->line,
                     absl::StrCat("cases.yaml case `", case_name, "` omits input `", name, "` but ", c.wrapper,
                                  d ? " gives it no default (=None)" : " does not accept it"));
      }
      evidence = absl::StrCat("cases.yaml: ", omitted->size(), " omitted input(s) checked for defaults");
    } else {
      r.findings.Warning("SC-CASES-UNREADABLE", cat::kSignatureMismatch, "cases.yaml", 0,
                         absl::StrCat("cases.yaml is not usable (", why, "); falling back to the golden_cpu signature"));
    }
  }
  if (!decided) {
    Diagnostics pd;
    auto golden = py::ParseFile(c.Path(c.golden_rel), &pd);
    const py::Stmt* gdef = nullptr;
    if (golden.ok())
      for (const auto& d : py::TopLevelDefs(*golden))
        if (d.name == c.golden_fn) gdef = d.stmt;
    if (!gdef) {
      r.status = ItemStatus::kBlocked;
      r.category = std::string(cat::kSignatureMismatch);
      r.evidence = absl::StrCat("neither cases.yaml nor ", c.golden_rel, " with def ", c.golden_fn,
                                " is readable: the defaults cannot be checked");
      return r;
    }
    auto g = defaults_of(*gdef->args);
    bool wrapper_kwargs = w->def->args->kwarg.has_value();
    for (const auto& [name, gd] : g) {
      if (!gd) continue;
      auto d = has_default(name);
      if (!d && !wrapper_kwargs)
        AddFinding(&r.findings, f, "SC-SIGNATURE-DEFAULT", cat::kSignatureMismatch, w->line,
                   absl::StrCat(c.golden_fn, " has optional parameter `", name, "` but ", c.wrapper,
                                " does not accept it"));
      else if (d && !*d)
        AddFinding(&r.findings, f, "SC-SIGNATURE-DEFAULT", cat::kSignatureMismatch, w->line,
                   absl::StrCat("`", name, "` is optional in ", c.golden_fn, " (", c.golden_rel,
                                ") but has no default in ", c.wrapper));
    }
    evidence = absl::StrCat("defaults compared with ", c.golden_rel, ":", gdef->span.line);
  }
  r.evidence = evidence;
  Conclude(&r);
  return r;
}

ItemResult CheckStagedGoldenImports(const CheckContext& c) {
  ItemResult r;
  Diagnostics pd;
  auto g = py::ParseFile(c.Path(c.golden_rel), &pd);
  if (!g.ok()) {
    r.status = ItemStatus::kBlocked;
    r.category = std::string(cat::kMissingFile);
    r.evidence = absl::StrCat(c.golden_rel, ": ", g.status().message());
    return r;
  }
  const std::string staged = "test_" + c.op + "_module";
  for (const auto& s : g->body) {
    std::function<void(const py::Stmt&)> visit = [&](const py::Stmt& st) {
      if (st.Is(py::StmtKind::kImport) || st.Is(py::StmtKind::kImportFrom)) {
        std::vector<std::string> mods;
        if (st.Is(py::StmtKind::kImport))
          for (const auto& a : st.names) mods.push_back(a.name);
        else {
          mods.push_back(st.module);
          for (const auto& a : st.names) mods.push_back(st.module.empty() ? a.name : st.module + "." + a.name);
        }
        for (const auto& m : mods)
          if (m.find(staged) != std::string::npos) {
            r.findings.Error("SC-STAGED-GOLDEN-IMPORT", cat::kImportViolation, c.golden_rel,
                             st.span.line, absl::StrCat("the staged golden imports the staged implementation `", m, "`"));
            break;
          }
      }
      for (const auto& b : st.body) visit(*b);
      for (const auto& b : st.orelse) visit(*b);
      for (const auto& h : st.handlers)
        for (const auto& b : h.body) visit(*b);
      for (const auto& b : st.finalbody) visit(*b);
    };
    visit(*s);
  }
  r.evidence = c.golden_rel;
  Conclude(&r);
  return r;
}

ItemResult CheckModulePrecheck(const CheckContext& c) {
  ItemResult r;
  const std::string bindings_rel = "DESIGN_BINDINGS.json";
  Diagnostics ld;
  auto b = contract::LoadDesignBindings(c.Path(bindings_rel), &ld);
  for (const auto& d : ld.items())
    if (d.severity == Severity::kError)
      r.findings.Error("SC-MODULE-PRECHECK", cat::kDesignViolation, d.file.empty() ? bindings_rel : d.file, d.line,
                       absl::StrCat("frozen DESIGN_BINDINGS.json: ", d.code, ": ", d.message));
  if (!b.ok() && ld.empty())
    r.findings.Error("SC-MODULE-PRECHECK", cat::kDesignViolation, bindings_rel, 0,
                     absl::StrCat("frozen DESIGN_BINDINGS.json unreadable: ", b.status().message()));
  size_t active = 0;
  if (b.ok()) {
    for (const auto& [binding, req] : b->ActiveRequirements()) {
      ++active;
      for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
               {"invariant", req->invariant}, {"planned_location", req->planned_location},
               {"verification_method", req->verification_method}})
        if (value.empty())
          r.findings.Error("SC-MODULE-PRECHECK", cat::kDesignViolation, bindings_rel, binding->line,
                           absl::StrCat(binding->reference, " ", req->req_id, ": active requirement without ", field,
                                        " (module-check #7 needs it)"));
    }
  }
  if (!c.design)
    r.findings.Error("SC-MODULE-PRECHECK", cat::kDesignViolation, "DESIGN.md", 0,
                     "frozen DESIGN.md is missing or unreadable");
  r.evidence = absl::StrCat("DESIGN_BINDINGS.json ", b.ok() ? absl::StrCat("parsed, ", active, " active requirement(s)") : "not usable",
                            "; DESIGN.md ", c.design ? "parsed" : "missing");
  Conclude(&r);
  return r;
}

}  // namespace opdev::selfcheck
