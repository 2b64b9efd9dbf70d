// The call checker (see checker.h): one pass over the module that tracks the execution
// context (host code, @pl.jit kernel body, section_vector / section_cube, @pl.vector_function
// body), resolves pl/vf references through the file's import aliases and checks each call
// against the catalog.
#include "opdev/api/checker.h"

#include <algorithm>
#include <set>

namespace opdev::api {

// ---- aliases ---------------------------------------------------------------------------

AliasResolver::AliasResolver(const py::Module& module) {
  bool imports_pypto = false;
  for (const auto& s : module.body) {
    if (s->kind == py::StmtKind::kImport) {
      for (const auto& a : s->names) {
        if (a.name == "pypto_pro.language") {
          imports_pypto = true;
          aliases_.emplace_back(a.asname.empty() ? "pypto_pro.language" : a.asname, "pl");
        } else if (a.name.rfind("pypto_pro", 0) == 0) {
          imports_pypto = true;
        }
      }
    } else if (s->kind == py::StmtKind::kImportFrom) {
      if (s->module == "pypto_pro") {
        for (const auto& a : s->names) {
          if (a.name == "language") {
            imports_pypto = true;
            aliases_.emplace_back(a.asname.empty() ? "language" : a.asname, "pl");
          }
        }
      } else if (s->module == "pypto_pro.language") {
        imports_pypto = true;
        for (const auto& a : s->names) {
          std::string local = a.asname.empty() ? a.name : a.asname;
          if (a.name == "Vf") {
            aliases_.emplace_back(local, "vf");
          } else if (a.name == "*") {
            continue;
          } else {
            aliases_.emplace_back(local, "pl." + a.name);
          }
        }
      }
    }
  }
  if (!imports_pypto) aliases_.emplace_back("pl", "pl");
  // `vf` is the reserved VF namespace; samples import it as `Vf as vf`.
  bool has_vf = false;
  for (const auto& [local, canon] : aliases_) has_vf |= local == "vf";
  if (!has_vf) aliases_.emplace_back("vf", "vf");
}

std::string AliasResolver::CanonicalDotted(const std::string& dotted) const {
  std::string head = dotted.substr(0, dotted.find('.'));
  std::string rest = dotted.size() > head.size() ? dotted.substr(head.size()) : "";
  // Longest alias match first ("pypto_pro.language.x").
  const std::pair<std::string, std::string>* best = nullptr;
  for (const auto& a : aliases_) {
    if (dotted == a.first || dotted.rfind(a.first + ".", 0) == 0) {
      if (!best || a.first.size() > best->first.size()) best = &a;
    }
  }
  if (!best) return {};
  std::string canon = best->second + dotted.substr(best->first.size());
  // pl.Vf.x is the vf namespace too.
  if (canon.rfind("pl.Vf.", 0) == 0) canon = "vf." + canon.substr(6);
  return canon;
}

std::string AliasResolver::Canonical(const py::Expr& e) const {
  auto d = py::DottedName(e);
  if (!d) return {};
  return CanonicalDotted(*d);
}

// ---- checker ---------------------------------------------------------------------------

namespace {

enum class Ctx { kHost, kKernel, kVector, kCube, kVf, kHelper };

const char* CtxName(Ctx c) {
  switch (c) {
    case Ctx::kHost: return "host code";
    case Ctx::kKernel: return "a kernel body outside any section";
    case Ctx::kVector: return "pl.section_vector()";
    case Ctx::kCube: return "pl.section_cube()";
    case Ctx::kVf: return "a @pl.vector_function body";
    case Ctx::kHelper: return "a helper function";
  }
  return "?";
}

class Checker {
 public:
  Checker(const py::Module& m, const Catalog& c, const CheckOptions& o)
      : mod_(m), cat_(c), opts_(o), alias_(m) {}

  Diagnostics Run() {
    for (const auto& s : mod_.body) {
      if (s->kind == py::StmtKind::kFunctionDef) {
        for (const auto& d : s->decorator_list) {
          if (alias_.CanonicalDotted(py::DecoratorName(*d)) == "pl.vector_function") {
            vf_functions_.insert(s->name);
          }
        }
      }
    }
    for (const auto& s : mod_.body) Stmt(*s, Ctx::kHost);
    diags_.Sort();
    return std::move(diags_);
  }

 private:
  Diagnostic& Report(std::string_view code, Severity sev, const py::Span& at,
                     std::string message, std::string evidence = {}) {
    Diagnostic d;
    d.code = std::string(code);
    d.severity = sev;
    d.category = std::string(code == kKernelSyntax || code == kContext || code == kMteInVf ||
                                     code == kVfCallContext
                                 ? category::kDesignViolation
                                 : category::kImplementationError);
    d.file = mod_.filename;
    d.line = at.line;
    d.column = at.col;
    d.message = std::move(message);
    d.evidence = std::move(evidence);
    return diags_.Add(std::move(d));
  }

  // Context of a def at module level.
  Ctx DefContext(const py::Stmt& s) {
    for (const auto& d : s.decorator_list) {
      std::string n = alias_.CanonicalDotted(py::DecoratorName(*d));
      if (n == "pl.vector_function") return Ctx::kVf;
      if (n == "pl.jit" || n == "pl.kernel" || n == "pl.function") return Ctx::kKernel;
      // A stage only marks a function for the pipeline transform and does not change it
      // (programming_paradigm_overview.md): it is called inside a section, whose domain it takes.
      if (n == "pl.pipeline.stage") return Ctx::kHelper;
    }
    return Ctx::kHost;
  }

  bool InKernel(Ctx c) const {
    return c == Ctx::kKernel || c == Ctx::kVector || c == Ctx::kCube || c == Ctx::kVf;
  }

  void Body(const std::vector<py::StmtPtr>& body, Ctx c) {
    for (const auto& s : body) Stmt(*s, c);
  }

  void KernelSyntax(const py::Span& at, Ctx c, const std::string& what) {
    if (!opts_.check_syntax || !InKernel(c)) return;
    Report(kKernelSyntax, Severity::kError, at,
           what + " is not supported in " + CtxName(c) + " (PyPTO-Pro kernels are compiled "
                  "from a restricted Python subset)");
  }

  void Stmt(const py::Stmt& s, Ctx c) {
    switch (s.kind) {
      case py::StmtKind::kFunctionDef: {
        for (const auto& d : s.decorator_list) Expr(*d, Ctx::kHost, /*decorator=*/true);
        if (s.args) Arguments(*s.args, Ctx::kHost);
        if (s.returns) Expr(*s.returns, Ctx::kHost);
        Ctx inner = Ctx::kHost;
        if (c == Ctx::kHost) {
          inner = DefContext(s);
        } else {
          KernelSyntax(s.span, c, "a nested function definition");
          inner = Ctx::kHelper;
        }
        if (s.is_async) KernelSyntax(s.span, inner, "async def");
        Body(s.body, inner);
        return;
      }
      case py::StmtKind::kClassDef:
        KernelSyntax(s.span, c, "a class definition");
        for (const auto& d : s.decorator_list) Expr(*d, Ctx::kHost, true);
        for (const auto& b : s.bases) Expr(*b, c);
        Body(s.body, InKernel(c) ? Ctx::kHelper : Ctx::kHost);
        return;
      case py::StmtKind::kWith: {
        Ctx inner = c;
        for (const auto& it : s.items) {
          std::string name = alias_.Canonical(*(it.context_expr->kind == py::ExprKind::kCall
                                                    ? it.context_expr->func
                                                    : it.context_expr));
          if (name == "pl.section_vector" || name == "pl.section_cube" ||
              name == "pl.section_vf") {
            if (c != Ctx::kKernel && c != Ctx::kHelper && opts_.check_context &&
                name != "pl.section_vf") {
              Report(kContext, Severity::kError, it.context_expr->span,
                     name + "() is only legal directly in a kernel body, not in " +
                         CtxName(c));
            }
            inner = name == "pl.section_cube" ? Ctx::kCube
                    : name == "pl.section_vf" ? Ctx::kVf
                                              : Ctx::kVector;
          } else {
            KernelSyntax(it.context_expr->span, c, "a `with` statement other than "
                                                    "pl.section_vector()/pl.section_cube()");
          }
          Expr(*it.context_expr, c);
          if (it.optional_vars) Expr(*it.optional_vars, c);
        }
        if (s.is_async) KernelSyntax(s.span, c, "async with");
        Body(s.body, inner);
        return;
      }
      case py::StmtKind::kTry:
        KernelSyntax(s.span, c, s.is_star ? "try/except*" : "try/except");
        Body(s.body, c);
        for (const auto& h : s.handlers) {
          if (h.type) Expr(*h.type, c);
          Body(h.body, c);
        }
        Body(s.orelse, c);
        Body(s.finalbody, c);
        return;
      case py::StmtKind::kRaise:
        KernelSyntax(s.span, c, "raise");
        break;
      case py::StmtKind::kImport:
      case py::StmtKind::kImportFrom:
        KernelSyntax(s.span, c, "import");
        break;
      case py::StmtKind::kGlobal:
      case py::StmtKind::kNonlocal:
        KernelSyntax(s.span, c, s.kind == py::StmtKind::kGlobal ? "global" : "nonlocal");
        break;
      case py::StmtKind::kDelete:
        KernelSyntax(s.span, c, "del");
        break;
      case py::StmtKind::kMatch:
        KernelSyntax(s.span, c, "match");
        break;
      case py::StmtKind::kFor:
        if (s.is_async) KernelSyntax(s.span, c, "async for");
        break;
      case py::StmtKind::kExpr:
        if (s.value && s.value->kind == py::ExprKind::kCall) {
          std::string n = alias_.Canonical(*s.value->func);
          if (const Function* f = cat_.FindFunction(n); f && f->results > 0) {
            Report(kVfResultUnused, Severity::kError, s.value->span,
                   n + " produces " + std::to_string(f->results) +
                       " result register(s) and must be assigned (`dst = " + n + "(...)`)",
                   f->source);
          }
        }
        break;
      default:
        break;
    }
    // Generic descent into the statement's expressions and bodies.
    for (const auto& t : s.targets) Expr(*t, c);
    if (s.target) Expr(*s.target, c);
    if (s.annotation) Expr(*s.annotation, c);
    if (s.iter) Expr(*s.iter, c);
    if (s.test) Expr(*s.test, c);
    if (s.msg) Expr(*s.msg, c);
    if (s.value) Expr(*s.value, c);
    if (s.exc) Expr(*s.exc, c);
    if (s.cause) Expr(*s.cause, c);
    if (s.subject) Expr(*s.subject, c);
    Body(s.body, c);
    for (const auto& mc : s.cases) {
      if (mc.guard) Expr(*mc.guard, c);
      Body(mc.body, c);
    }
    Body(s.orelse, c);
  }

  void Arguments(const py::Arguments& a, Ctx c) {
    auto ann = [&](const py::Arg& p) {
      if (p.annotation) Expr(*p.annotation, c);
    };
    for (const auto& p : a.posonlyargs) ann(p);
    for (const auto& p : a.args) ann(p);
    for (const auto& p : a.kwonlyargs) ann(p);
    if (a.vararg) ann(*a.vararg);
    if (a.kwarg) ann(*a.kwarg);
    for (const auto& d : a.defaults) Expr(*d, c);
    for (const auto& d : a.kw_defaults) {
      if (d) Expr(*d, c);
    }
  }

  void Expr(const py::Expr& e, Ctx c, bool decorator = false) {
    switch (e.kind) {
      case py::ExprKind::kCall:
        Call(e, c, decorator);
        return;
      case py::ExprKind::kAttribute:
      case py::ExprKind::kName:
        Reference(e, c, decorator);
        if (e.kind == py::ExprKind::kAttribute && !py::DottedName(e)) Expr(*e.value_expr, c);
        return;
      case py::ExprKind::kLambda:
        KernelSyntax(e.span, c, "lambda");
        break;
      case py::ExprKind::kYield:
      case py::ExprKind::kYieldFrom:
        KernelSyntax(e.span, c, "yield");
        break;
      case py::ExprKind::kAwait:
        KernelSyntax(e.span, c, "await");
        break;
      case py::ExprKind::kListComp:
      case py::ExprKind::kSetComp:
      case py::ExprKind::kDictComp:
      case py::ExprKind::kGeneratorExp:
        KernelSyntax(e.span, c, "a comprehension");
        break;
      case py::ExprKind::kNamedExpr:
        KernelSyntax(e.span, c, "an assignment expression (:=)");
        break;
      default:
        break;
    }
    // Children.
    struct Children : py::AstVisitor {
      Checker* self;
      Ctx ctx;
      const py::Expr* root;
      bool EnterExpr(const py::Expr& x) override {
        if (&x == root) return true;
        self->Expr(x, ctx);
        return false;
      }
    } ch;
    ch.self = this;
    ch.ctx = c;
    ch.root = &e;
    py::Walk(e, ch);
  }

  // A Name/Attribute chain that is not called: pl.DT_FP16, pl.MaskPattern.ALL, pl.DN, ...
  void Reference(const py::Expr& e, Ctx c, bool decorator) {
    std::string n = alias_.Canonical(e);
    if (n.empty() || n == "pl" || n == "vf") return;
    if (cat_.IsNamespace(n)) return;
    if (cat_.FindConstant(n) || cat_.FindEnum(n)) return;
    if (const Function* f = cat_.FindFunction(n)) {
      if (decorator && !f->legal.decorator) {
        Report(kContext, Severity::kError, e.span, n + " is not a decorator", f->source);
      }
      return;
    }
    // Enum member?
    size_t dot = n.rfind('.');
    if (dot != std::string::npos) {
      std::string owner = n.substr(0, dot), member = n.substr(dot + 1);
      if (const Enum* en = cat_.FindEnum(owner)) {
        if (!en->HasMember(member)) {
          std::string all;
          for (const auto& m : en->members) all += (all.empty() ? "" : ", ") + m;
          Report(kUnknown, Severity::kError, e.span,
                 "unknown member " + member + " of " + owner + " (members: " + all + ")",
                 en->source);
        }
        return;
      }
      // Attribute of a constant (pl.DT_FP16.get_bit) or of a function: not checked.
      std::string head = owner;
      while (!head.empty()) {
        if (cat_.FindConstant(head) || cat_.FindFunction(head)) return;
        size_t d = head.rfind('.');
        if (d == std::string::npos) break;
        head = head.substr(0, d);
      }
    }
    Unknown(e, n, c);
  }

  void Unknown(const py::Expr& at, const std::string& n, Ctx c) {
    auto legacy = cat_.FindLegacy(n);
    if (!legacy.empty()) {
      const Legacy& l = *legacy.front();
      bool deprecated = l.status == "deprecated";
      Report(kLegacy, deprecated ? Severity::kWarning : Severity::kError, at.span,
             n + " is a legacy spelling (" + l.status + "; " + l.changed_in + "); use " +
                 l.replacement,
             l.source);
      return;
    }
    Report(kUnknown, Severity::kError, at.span,
           "unknown PyPTO-Pro API " + n + Suggest(n), "");
    (void)c;
  }

  // "; did you mean pl.xxx?" for a near name in the same namespace.
  std::string Suggest(const std::string& n) const {
    size_t dot = n.rfind('.');
    if (dot == std::string::npos) return {};
    std::string ns = n.substr(0, dot + 1), leaf = n.substr(dot + 1);
    std::string best;
    size_t best_d = 3;
    for (const auto& f : cat_.functions()) {
      if (f.name.rfind(ns, 0) != 0 || f.name.find('.', ns.size()) != std::string::npos) continue;
      size_t d = EditDistance(leaf, f.name.substr(ns.size()));
      if (d < best_d) {
        best_d = d;
        best = f.name;
      }
    }
    return best.empty() ? "" : "; did you mean " + best + "?";
  }

  static size_t EditDistance(const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
      }
      std::swap(prev, cur);
    }
    return prev[b.size()];
  }

  void Call(const py::Expr& call, Ctx c, bool decorator) {
    // Arguments first (their own calls are checked in the same context).
    for (const auto& a : call.args) Expr(*a, c);
    for (const auto& k : call.keywords) Expr(*k.value, c);
    const py::Expr& func = *call.func;
    std::string n = alias_.Canonical(func);
    if (n.empty()) {
      if (func.kind == py::ExprKind::kName && vf_functions_.count(func.id) &&
          opts_.check_context && InKernel(c) && c != Ctx::kVector) {
        Report(kVfCallContext, Severity::kError, call.span,
               "@pl.vector_function " + func.id + " must be called inside "
               "pl.section_vector(), not in " + CtxName(c));
      }
      if (!py::DottedName(func)) Expr(func, c);
      return;
    }
    const Function* f = cat_.FindFunction(n);
    if (!f) {
      Unknown(call, n, c);
      return;
    }
    CheckArgs(call, *f, n);
    CheckStoreOrder(call, n);
    if (decorator && !f->legal.decorator && f->returns != "decorator") {
      Report(kContext, Severity::kError, call.span, n + " is not a decorator", f->source);
    }
    if (opts_.check_context) CheckContext(call, *f, n, c);
  }

  void CheckContext(const py::Expr& call, const Function& f, const std::string& n, Ctx c) {
    const Legality& l = f.legal;
    if (c == Ctx::kVf && !l.vector_function) {
      if (f.mte) {
        Report(kMteInVf, Severity::kError, call.span,
               n + " is a data-movement (MTE, pipe " + f.pipe + ") op and cannot run inside a "
               "@pl.vector_function; move it to the calling pl.section_vector()",
               f.source);
      } else {
        Report(kContext, Severity::kError, call.span,
               n + " is not legal in a @pl.vector_function body (only vf.* plus pl.range and "
               "pl.min are)",
               f.source);
      }
      return;
    }
    bool ok = true;
    switch (c) {
      case Ctx::kVector: ok = l.section_vector; break;
      case Ctx::kCube: ok = l.section_cube; break;
      case Ctx::kKernel: ok = l.kernel || l.section_vector || l.section_cube ? l.kernel : true;
        break;
      case Ctx::kVf:
      case Ctx::kHost:
      case Ctx::kHelper: ok = true; break;
    }
    if (c == Ctx::kHost && n.rfind("vf.", 0) == 0) ok = true;  // only meaningful in kernels
    if (!ok) {
      std::string where;
      if (l.vector_function) where += " @pl.vector_function";
      if (l.section_vector) where += " pl.section_vector()";
      if (l.section_cube) where += " pl.section_cube()";
      if (l.kernel) where += " kernel-body";
      Report(kContext, Severity::kError, call.span,
             n + " is not legal in " + CtxName(c) + " (legal in:" + where + ")", f.source);
    }
  }

  // store.md / store_tile.md: `order` takes ascending axis pairs only ([0, 2]); a literal
  // descending pair ([1, 0]) is rejected by the frontend's parser. A computed order is left to
  // the simulator, which rejects it when it runs.
  void CheckStoreOrder(const py::Expr& call, const std::string& n) {
    if (n != "pl.store" && n != "pl.store_tile") return;
    for (const auto& k : call.keywords) {
      if (k.arg != "order" || !k.value) continue;
      const py::Expr& v = *k.value;
      if (!(v.Is(py::ExprKind::kList) || v.Is(py::ExprKind::kTuple)) || v.elts.size() != 2) continue;
      std::vector<long long> axes;
      for (const auto& e : v.elts) {
        if (!e->Is(py::ExprKind::kConstant) || e->const_kind != py::ConstKind::kInt || e->value.size() > 9) break;
        axes.push_back(std::stoll(e->value));
      }
      if (axes.size() == 2 && axes[0] >= axes[1]) {
        Report(kStoreOrder, Severity::kError, k.span,
               n + ": order must be ascending, got [" + std::to_string(axes[0]) + ", " +
                   std::to_string(axes[1]) + "] (descending orders such as [1, 0] are rejected)",
               "docs/zh/pypto_pro/api/SIMD-API/operation/memory_data_movement/store.md");
      }
    }
  }

  void CheckArgs(const py::Expr& call, const Function& f, const std::string& n) {
    bool star_args = false, star_kwargs = false;
    for (const auto& a : call.args) star_args |= a->kind == py::ExprKind::kStarred;
    for (const auto& k : call.keywords) star_kwargs |= k.arg.empty();
    std::vector<const Param*> positional;
    for (const auto& p : f.params) {
      if (p.kind != ParamKind::kKeywordOnly) positional.push_back(&p);
    }
    size_t npos = call.args.size();
    std::set<std::string> given;
    if (!star_args) {
      if (npos > positional.size() && f.varargs.empty()) {
        // A legacy call form with a different arity (set_validshape(t, r, c)).
        for (const Legacy* l : cat_.FindLegacy(n)) {
          if (l->status == "changed_signature") {
            Report(kLegacy, Severity::kError, call.span,
                   n + " called with the legacy form " + l->form + " (" + l->changed_in +
                       "); use " + l->replacement,
                   l->source);
            return;
          }
        }
        Report(kArity, Severity::kError, call.span,
               n + " takes at most " + std::to_string(positional.size()) +
                   " positional argument(s) but " + std::to_string(npos) + " were given",
               Signature(f));
        return;
      }
      for (size_t i = 0; i < npos && i < positional.size(); ++i) given.insert(positional[i]->name);
    }
    for (const auto& k : call.keywords) {
      if (k.arg.empty()) continue;
      const Param* p = f.FindParam(k.arg);
      if (!p) {
        if (!f.kwargs.empty()) continue;
        const Legacy* legacy_form = nullptr;
        for (const Legacy* l : cat_.FindLegacy(n)) {
          if (l->status == "changed_signature" &&
              l->form.find(k.arg + "=") != std::string::npos) {
            legacy_form = l;
          }
        }
        if (legacy_form) {
          Report(kLegacy, Severity::kError, k.span,
                 n + ": keyword " + k.arg + "= is the legacy form " + legacy_form->form +
                     " (" + legacy_form->changed_in + "); use " + legacy_form->replacement,
                 legacy_form->source);
        } else {
          Report(kUnknownKeyword, Severity::kError, k.span,
                 n + " has no parameter named '" + k.arg + "'", Signature(f));
        }
        continue;
      }
      if (p->kind == ParamKind::kPositionalOnly) {
        Report(kPositionalOnly, Severity::kError, k.span,
               n + ": '" + k.arg + "' is an operand and must be passed positionally (the "
               "PyPTO-Pro parser treats keywords as attributes)",
               Signature(f));
        given.insert(k.arg);  // reported once, not again as missing
        continue;
      }
      if (given.count(k.arg)) {
        Report(kDuplicateArg, Severity::kError, k.span,
               n + " got multiple values for '" + k.arg + "'", Signature(f));
        continue;
      }
      given.insert(k.arg);
    }
    if (star_args || star_kwargs) return;
    std::vector<std::string> missing;
    for (const auto& p : f.params) {
      if (p.required() && !given.count(p.name)) missing.push_back(p.name);
    }
    if (!missing.empty()) {
      std::string list;
      for (const auto& m : missing) list += (list.empty() ? "'" : ", '") + m + "'";
      Report(kArity, Severity::kError, call.span,
             n + " is missing required argument(s) " + list, Signature(f));
    }
  }

  static std::string Signature(const Function& f) {
    std::string s = f.name + "(";
    bool first = true, star = false;
    auto sep = [&] {
      if (!first) s += ", ";
      first = false;
    };
    bool had_posonly = false;
    for (const auto& p : f.params) {
      if (p.kind != ParamKind::kPositionalOnly && had_posonly) {
        sep();
        s += "/";
        had_posonly = false;
      }
      if (p.kind == ParamKind::kPositionalOnly) had_posonly = true;
      if (p.kind == ParamKind::kKeywordOnly && !star) {
        sep();
        s += f.varargs.empty() ? "*" : "*" + f.varargs;
        star = true;
      }
      sep();
      s += p.name;
      if (p.default_value) s += "=" + *p.default_value;
    }
    if (had_posonly) {
      sep();
      s += "/";
    }
    if (!f.varargs.empty() && !star) {
      sep();
      s += "*" + f.varargs;
    }
    if (!f.kwargs.empty()) {
      sep();
      s += "**" + f.kwargs;
    }
    return s + ")  [" + f.source + "]";
  }

  const py::Module& mod_;
  const Catalog& cat_;
  const CheckOptions& opts_;
  AliasResolver alias_;
  std::set<std::string> vf_functions_;
  Diagnostics diags_;
};

}  // namespace

Diagnostics CheckModule(const py::Module& module, const Catalog& catalog,
                        const CheckOptions& opts) {
  Checker c(module, catalog, opts);
  return c.Run();
}

}  // namespace opdev::api
