// Lowering of the pyfront AST into the interpreter's program form (program.h): imports become
// module aliases, qualified `pl.*`/`vf.*`/torch names become builtins or constants, function
// locals become slots, and wrapper statements outside the wrapper boundary become skips.
#include "program.h"

#include "opdev/api/catalog.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

#include <algorithm>
#include <set>

namespace opdev::sim {

namespace {

struct Scope {
  Program* prog = nullptr;
  HazardSink* sink = nullptr;
  std::map<std::string, int> locals;  // empty at module level
  bool module_level = false;
  FuncKind kind = FuncKind::kHelper;
  const FuncIR* func = nullptr;  // the function being lowered (its closure names)
};

// ---- local-name collection ------------------------------------------------------------

void CollectTargets(const py::Expr& e, std::set<std::string>& out) {
  switch (e.kind) {
    case py::ExprKind::kName: out.insert(e.id); break;
    case py::ExprKind::kTuple: case py::ExprKind::kList:
      for (const auto& x : e.elts) CollectTargets(*x, out);
      break;
    case py::ExprKind::kStarred: if (e.value_expr) CollectTargets(*e.value_expr, out); break;
    default: break;
  }
}

// The names the statements of `body` bind (assignment, loop and `with ... as` targets, defs,
// classes, exception names) into `out` and the names they declare global or nonlocal into
// `decl`; with `into_defs`, also the names bound inside nested defs and classes.
void CollectBindings(const std::vector<py::StmtPtr>& body, bool into_defs, std::set<std::string>& out,
                     std::set<std::string>& decl) {
  for (const auto& s : body) {
    switch (s->kind) {
      case py::StmtKind::kAssign: for (const auto& t : s->targets) CollectTargets(*t, out); break;
      case py::StmtKind::kAugAssign: case py::StmtKind::kAnnAssign:
        if (s->target) CollectTargets(*s->target, out);
        break;
      case py::StmtKind::kFor: if (s->target) CollectTargets(*s->target, out); break;
      case py::StmtKind::kWith:
        for (const auto& it : s->items) if (it.optional_vars) CollectTargets(*it.optional_vars, out);
        break;
      case py::StmtKind::kGlobal: case py::StmtKind::kNonlocal:
        for (const auto& n : s->identifiers) decl.insert(n);
        break;
      case py::StmtKind::kFunctionDef: case py::StmtKind::kClassDef:
        out.insert(s->name);
        if (!into_defs) continue;
        break;
      case py::StmtKind::kTry:
        for (const auto& h : s->handlers) {
          if (!h.name.empty()) out.insert(h.name);
          CollectBindings(h.body, into_defs, out, decl);
        }
        CollectBindings(s->finalbody, into_defs, out, decl);
        break;
      default: break;
    }
    CollectBindings(s->body, into_defs, out, decl);
    CollectBindings(s->orelse, into_defs, out, decl);
  }
}

// ---- qualified names --------------------------------------------------------------------

std::string Canonical(std::string q) {
  static const std::vector<std::pair<std::string, std::string>> prefixes = {
      {"pypto_pro.language.Vf", "vf"}, {"pypto_pro.language.vf", "vf"},
      {"pypto_pro.language", "pl"},    {"pl.Vf", "vf"},
      {"pl.vf", "vf"},                 {"pypto_pro.runtime.platform", "platform"},
      {"pypto_pro.runtime", "runtime"}, {"runtime.platform", "platform"},
  };
  for (const auto& [from, to] : prefixes) {
    if (q == from) return to;
    if (absl::StartsWith(q, from + ".")) return to + q.substr(from.size());
  }
  return q;
}

// Qualified name of a Name/Attribute chain rooted at a module alias; "" otherwise.
std::string Qualify(const py::Expr& e, const Scope& sc) {
  if (e.kind == py::ExprKind::kName) {
    if (!sc.module_level && sc.locals.count(e.id)) return "";
    if (sc.func && (sc.func->closure.count(e.id) || sc.func->lexical_defs.count(e.id))) return "";
    auto it = sc.prog->globals.find(e.id);
    if (it != sc.prog->globals.end() && it->second.kind == VK::kModule) return it->second.s;
    return "";
  }
  if (e.kind == py::ExprKind::kAttribute && e.value_expr) {
    std::string base = Qualify(*e.value_expr, sc);
    if (base.empty()) return "";
    return Canonical(base + "." + e.id);
  }
  return "";
}

bool IsKnownNamespace(const std::string& q) {
  static const std::set<std::string> ns = {
      "pl", "vf", "pl.system", "pl.pipeline", "platform", "runtime", "pl.MaskPattern",
      "pl.CastLayout", "pl.MemorySpace", "pl.MergeMode", "pl.TilePad", "pl.FillPadMode",
      "pl.PipeType", "pl.MemBarMode", "pl.LoadDist", "pl.StoreDist", "pl.RoundMode",
      "pl.VFRoundMode", "pl.AccPhase", "pl.STPhase", "pl.AtomicType", "pl.AccToVecMode",
      "pl.SaturateMode", "pl.DuplicatePos", "pl.DataCopyMode", "pl.SyncCoreType",
      "pl.CrossCoreSyncMode", "pl.CompactMode", "pl.TileLayout", "pl.Layout"};
  return ns.count(q) > 0;
}

std::unique_ptr<XNode> Lower(const py::Expr& e, Scope& sc);

std::unique_ptr<XNode> Make(XK k, int line) {
  auto n = std::make_unique<XNode>();
  n->kind = k;
  n->line = line;
  return n;
}

// Integer arithmetic as Interp::PeekInt reads it: a module name, or a binary operation whose
// operands are locals, constants, module names or such operations (no call, no attribute).
bool IntArithmetic(const XNode& x) {
  if (x.kind == XK::kGlobal) return true;
  if (x.kind != XK::kBin) return false;
  auto leaf = [](const XNode& y) {
    return y.kind == XK::kLocal || y.kind == XK::kConst || y.kind == XK::kGlobal || IntArithmetic(y);
  };
  return leaf(*x.a) && leaf(*x.b);
}

// A call of a builtin with a bound form (program.h, XNode::bound) gets it when it passes the
// positional operands the form takes and only constant keywords of names it understands; any
// other call shape keeps the builtin's general entry alone.
void BindCall(XNode& n) {
  if (!n.a || n.a->kind != XK::kBuiltinRef || (n.a->pipe_spec && !BindsOnPipe(*n.a->pipe_spec))) return;
  const BoundBuiltin b = FindBoundBuiltin(n.a->name);
  if (!b.fn || n.items.size() != b.operands || b.operands > kMaxBoundOperands) return;
  for (const auto& [k, x] : n.kwargs)
    if (x->kind != XK::kConst || std::find(b.keywords.begin(), b.keywords.end(), k) == b.keywords.end()) return;
  for (const auto& [k, x] : n.kwargs) n.bound_kwargs.emplace_back(k, x->constant);
  n.bound_keys_valid = b.decode && b.decode(n.bound_kwargs, &n.bound_keys);
  n.bound = b.fn;
  n.bound_inline = true;
  for (size_t i = 0; i < n.items.size(); ++i) {
    const XNode& x = *n.items[i];
    if (x.kind == XK::kLocal) n.bound_ops[i].slot = x.slot;
    else if (x.kind == XK::kConst) n.bound_ops[i].value = &x.constant;
    else n.bound_inline = false;
  }
  if (n.bound_inline) return;
  using Form = XNode::OperandForm;
  n.bound_direct = true;
  for (size_t i = 0; i < n.items.size() && n.bound_direct; ++i) {
    const XNode& x = *n.items[i];
    if (x.kind == XK::kLocal) n.direct_forms[i] = Form::kSlot;
    else if (x.kind == XK::kConst) n.direct_forms[i] = Form::kConst;
    else if (IntArithmetic(x)) n.direct_forms[i] = Form::kInt;
    else if (x.kind == XK::kCall && x.bound && (x.bound_inline || x.bound_direct)) n.direct_forms[i] = Form::kCall;
    else n.bound_direct = false;
  }
  if (n.bound_direct) n.direct_values = std::make_unique<std::array<Value, kMaxBoundOperands>>();
}

std::unique_ptr<XNode> LowerQualified(const std::string& q, int line) {
  Value c;
  if (FindConstant(q, &c)) {
    auto n = Make(XK::kConst, line);
    n->constant = c;
    return n;
  }
  if (BuiltinFn fn = FindBuiltin(q)) {
    auto n = Make(XK::kBuiltinRef, line);
    n->fn = fn;
    n->pipe_spec = FindPipeOpSpec(q);
    n->name = q;
    return n;
  }
  if ((absl::StartsWith(q, "pl.") || absl::StartsWith(q, "vf.")) && !IsKnownNamespace(q)) {
    auto n = Make(XK::kUnsupported, line);
    n->name = q;
    // A spelling the frontend no longer defines fails there at compile time: the catalog's
    // replacement, not a simulator gap.
    for (const api::Legacy* l : api::Catalog::Builtin().FindLegacy(q)) {
      if (l->status != "removed") continue;
      n->name = q + " is not defined by PyPTO-Pro (" + l->changed_in + "; the frontend rejects it): use " +
                l->replacement;
      n->constant = Value::Str(std::string(hazard::kUnsupported));
      break;
    }
    return n;
  }
  auto n = Make(XK::kConst, line);
  n->constant = Value::Module(q);
  return n;
}

std::unique_ptr<XNode> LowerConstant(const py::Expr& e) {
  auto n = Make(XK::kConst, e.span.line);
  switch (e.const_kind) {
    case py::ConstKind::kNone: n->constant = Value::None(); break;
    case py::ConstKind::kTrue: n->constant = Value::Bool(true); break;
    case py::ConstKind::kFalse: n->constant = Value::Bool(false); break;
    case py::ConstKind::kInt: {
      auto v = py::IntValue(e);
      if (v) {
        n->constant = Value::Int(*v);
        break;
      }
      // Python keeps it as a big int; the simulator's ints are int64 (docs/simulator.md, "Limits").
      auto u = Make(XK::kUnsupported, e.span.line);
      u->name = "integer literal of " + std::to_string(e.value.size()) +
                " digits leaves the int64 range; the simulator's integers are int64";
      u->constant = Value::Str(std::string(hazard::kLimit));
      return u;
    }
    case py::ConstKind::kFloat: n->constant = Value::Float(std::strtod(e.value.c_str(), nullptr)); break;
    case py::ConstKind::kStr: n->constant = Value::Str(e.value); break;
    default: {
      auto u = Make(XK::kUnsupported, e.span.line);
      u->name = "this constant kind";
      return u;
    }
  }
  return n;
}

std::unique_ptr<XNode> Lower(const py::Expr& e, Scope& sc) {
  const int line = e.span.line;
  switch (e.kind) {
    case py::ExprKind::kConstant: return LowerConstant(e);
    case py::ExprKind::kName: {
      if (!sc.module_level) {
        auto it = sc.locals.find(e.id);
        if (it != sc.locals.end()) {
          auto n = Make(XK::kLocal, line);
          n->slot = it->second;
          n->name = e.id;
          return n;
        }
      }
      if (sc.func) {
        // A name of an enclosing function: its nested def, or a closure variable.
        auto d = sc.func->lexical_defs.find(e.id);
        if (d != sc.func->lexical_defs.end()) {
          auto f = sc.prog->funcs.find(d->second);
          if (f != sc.prog->funcs.end()) {
            auto n = Make(XK::kConst, line);
            n->constant = Value::Obj(VK::kFunc, std::make_shared<const FuncIR*>(f->second.get()));
            return n;
          }
        }
        auto c = sc.func->closure.find(e.id);
        if (c != sc.func->closure.end()) {
          auto n = Make(XK::kGlobal, line);
          n->name = c->second;
          sc.prog->global_refs.push_back(n.get());
          return n;
        }
      }
      std::string q = Qualify(e, sc);
      if (!q.empty()) return LowerQualified(q, line);
      auto n = Make(XK::kGlobal, line);
      n->name = e.id;
      sc.prog->global_refs.push_back(n.get());
      return n;
    }
    case py::ExprKind::kAttribute: {
      std::string q = Qualify(e, sc);
      if (!q.empty()) return LowerQualified(q, line);
      auto n = Make(XK::kAttr, line);
      n->a = Lower(*e.value_expr, sc);
      n->name = e.id;
      n->name_text = Text(e.id);
      return n;
    }
    case py::ExprKind::kSubscript: {
      auto n = Make(XK::kSubscript, line);
      n->a = Lower(*e.value_expr, sc);
      n->b = Lower(*e.slice, sc);
      return n;
    }
    case py::ExprKind::kSlice: {
      auto n = Make(XK::kSlice, line);
      if (e.lower) n->a = Lower(*e.lower, sc);
      if (e.upper) n->b = Lower(*e.upper, sc);
      if (e.step) n->c = Lower(*e.step, sc);
      return n;
    }
    case py::ExprKind::kCall: {
      // Refused forms first: a node lowered and then dropped would leave its global lookups
      // registered in prog->global_refs.
      for (const auto& x : e.args)
        if (x->kind == py::ExprKind::kStarred) {
          auto u = Make(XK::kUnsupported, line);
          u->name = "*args in a call";
          return u;
        }
      for (const auto& kw : e.keywords)
        if (kw.arg.empty()) {
          auto u = Make(XK::kUnsupported, line);
          u->name = "**kwargs in a call";
          return u;
        }
      auto n = Make(XK::kCall, line);
      n->a = Lower(*e.func, sc);
      for (const auto& x : e.args) n->items.push_back(Lower(*x, sc));
      for (const auto& kw : e.keywords) n->kwargs.emplace_back(kw.arg, Lower(*kw.value, sc));
      BindCall(*n);
      return n;
    }
    case py::ExprKind::kBinOp: {
      auto n = Make(XK::kBin, line);
      n->op = e.op;
      n->a = Lower(*e.left, sc);
      n->b = Lower(*e.right, sc);
      return n;
    }
    case py::ExprKind::kUnaryOp: {
      // Fold negative number literals.
      if (e.op == py::Op::kUSub && e.operand->kind == py::ExprKind::kConstant) {
        auto c = LowerConstant(*e.operand);
        if (c->kind == XK::kConst && c->constant.kind == VK::kInt) { c->constant.i = -c->constant.i; return c; }
        if (c->kind == XK::kConst && c->constant.kind == VK::kFloat) { c->constant.f = -c->constant.f; return c; }
      }
      auto n = Make(XK::kUnary, line);
      n->op = e.op;
      n->a = Lower(*e.operand, sc);
      return n;
    }
    case py::ExprKind::kBoolOp: {
      auto n = Make(XK::kBoolOp, line);
      n->op = e.op;
      for (const auto& x : e.elts) n->items.push_back(Lower(*x, sc));
      return n;
    }
    case py::ExprKind::kCompare: {
      auto n = Make(XK::kCompare, line);
      n->a = Lower(*e.left, sc);
      n->ops = e.ops;
      for (const auto& x : e.elts) n->items.push_back(Lower(*x, sc));
      return n;
    }
    case py::ExprKind::kIfExp: {
      auto n = Make(XK::kIfExp, line);
      n->a = Lower(*e.test, sc);
      n->b = Lower(*e.body, sc);
      n->c = Lower(*e.orelse, sc);
      return n;
    }
    case py::ExprKind::kTuple: case py::ExprKind::kList: {
      auto n = Make(e.kind == py::ExprKind::kTuple ? XK::kTuple : XK::kList, line);
      for (const auto& x : e.elts) n->items.push_back(Lower(*x, sc));
      return n;
    }
    case py::ExprKind::kDict: {
      for (size_t i = 0; i < e.elts.size(); ++i)
        if (!e.keys[i]) {  // refused before anything is lowered, as for a call
          auto u = Make(XK::kUnsupported, line);
          u->name = "**mapping in a dict";
          return u;
        }
      auto n = Make(XK::kDict, line);
      for (size_t i = 0; i < e.elts.size(); ++i) {
        n->keys.push_back(Lower(*e.keys[i], sc));
        n->items.push_back(Lower(*e.elts[i], sc));
      }
      return n;
    }
    case py::ExprKind::kJoinedStr: {
      // f-strings only appear in messages: evaluate to a placeholder text.
      auto n = Make(XK::kConst, line);
      n->constant = Value::Str("<formatted string>");
      return n;
    }
    default: {
      auto n = Make(XK::kUnsupported, line);
      n->name = std::string(py::ExprKindName(e.kind)) + " expression";
      return n;
    }
  }
}

// ---- wrapper boundary --------------------------------------------------------------------

// Host statements a wrapper may contain; returns "" when allowed, else the reason.
class BoundaryCheck : public py::AstVisitor {
 public:
  explicit BoundaryCheck(const Scope& sc) : sc_(sc) {}
  std::string reason;

  bool EnterExpr(const py::Expr& e) override {
    if (!reason.empty()) return false;
    if (e.kind == py::ExprKind::kCall) {
      std::string q = Qualify(*e.func, sc_);
      if (!q.empty()) {
        static const std::set<std::string> ok = {
            "torch.empty", "torch.empty_like", "platform.get_platform_info", "math.ceil",
            "math.floor", "math.prod"};
        if (!ok.count(q)) reason = "calls " + q + "()";
        return reason.empty();
      }
      if (e.func->kind == py::ExprKind::kName) {
        static const std::set<std::string> ok = {
            "min", "max", "len", "int", "float", "isinstance", "tuple", "list", "str",
            "get_platform_info", "ValueError", "TypeError", "RuntimeError", "AssertionError",
            "abs", "bool"};
        const std::string& n = e.func->id;
        if (ok.count(n)) return true;
        auto it = sc_.prog->funcs.find(n);
        if (it != sc_.prog->funcs.end()) return true;  // kernel launch or helper
        reason = "calls " + n + "()";
        return false;
      }
      if (e.func->kind == py::ExprKind::kAttribute) {
        static const std::set<std::string> ok = {"dim", "size", "is_contiguous", "numel",
                                                 "element_size", "stride"};
        if (!ok.count(e.func->id)) {
          reason = "calls ." + e.func->id + "()";
          return false;
        }
        return true;
      }
      if (e.func->kind == py::ExprKind::kSubscript) return true;  // kernel[None, n](...)
      reason = "calls a computed function";
      return false;
    }
    if (e.kind == py::ExprKind::kAttribute) {
      std::string q = Qualify(e, sc_);
      if (!q.empty()) return false;  // a dtype or module member
      static const std::set<std::string> ok = {"shape", "ndim", "dtype", "device",
                                               "vector_core_num", "core_num", "cube_core_num",
                                               "soc_version", "dim", "size", "is_contiguous",
                                               "numel", "element_size", "stride"};
      if (!ok.count(e.id)) reason = "uses ." + e.id;
      return reason.empty();
    }
    if (e.kind == py::ExprKind::kListComp || e.kind == py::ExprKind::kGeneratorExp ||
        e.kind == py::ExprKind::kLambda) {
      reason = "uses a " + std::string(py::ExprKindName(e.kind));
      return false;
    }
    return true;
  }

 private:
  const Scope& sc_;
};

std::string WrapperViolation(const py::Stmt& s, const Scope& sc) {
  switch (s.kind) {
    case py::StmtKind::kFor: return "a host loop";
    case py::StmtKind::kWhile: return "a host while loop";
    case py::StmtKind::kTry: return "try/except";
    case py::StmtKind::kImport: case py::StmtKind::kImportFrom: return "";
    case py::StmtKind::kRaise: case py::StmtKind::kAssert: return "";
    default: break;
  }
  BoundaryCheck v(sc);
  if (s.kind == py::StmtKind::kIf) {
    py::Walk(*s.test, v);
  } else {
    for (const auto& t : s.targets) py::Walk(*t, v);
    if (s.value) py::Walk(*s.value, v);
    if (s.target) py::Walk(*s.target, v);
  }
  return v.reason;
}

// ---- statements --------------------------------------------------------------------------

std::vector<SNode> LowerBody(const std::vector<py::StmtPtr>& body, Scope& sc);

SNode LowerStmt(const py::Stmt& s, Scope& sc) {
  SNode n;
  n.line = s.span.line;
  if (sc.kind == FuncKind::kHost && !sc.module_level) {
    std::string why = WrapperViolation(s, sc);
    if (!why.empty()) {
      n.kind = SK::kSkip;
      n.note = why;
      return n;
    }
  }
  switch (s.kind) {
    case py::StmtKind::kAssign:
      n.kind = SK::kAssign;
      for (const auto& t : s.targets) n.targets.push_back(Lower(*t, sc));
      n.value = Lower(*s.value, sc);
      break;
    case py::StmtKind::kAnnAssign:
      if (!s.value) { n.kind = SK::kPass; break; }
      n.kind = SK::kAssign;
      n.targets.push_back(Lower(*s.target, sc));
      n.value = Lower(*s.value, sc);
      break;
    case py::StmtKind::kAugAssign:
      n.kind = SK::kAugAssign;
      n.target = Lower(*s.target, sc);
      n.value = Lower(*s.value, sc);
      n.op = s.op;
      break;
    case py::StmtKind::kExpr:
      // Docstrings and bare constants do nothing.
      if (s.value->kind == py::ExprKind::kConstant) { n.kind = SK::kPass; break; }
      n.kind = SK::kExpr;
      n.value = Lower(*s.value, sc);
      break;
    case py::StmtKind::kIf:
      n.kind = SK::kIf;
      n.test = Lower(*s.test, sc);
      n.body = LowerBody(s.body, sc);
      n.orelse = LowerBody(s.orelse, sc);
      break;
    case py::StmtKind::kFor:
      n.kind = SK::kFor;
      n.target = Lower(*s.target, sc);
      n.iter = Lower(*s.iter, sc);
      n.body = LowerBody(s.body, sc);
      n.orelse = LowerBody(s.orelse, sc);
      break;
    case py::StmtKind::kWhile:
      n.kind = SK::kWhile;
      n.test = Lower(*s.test, sc);
      n.body = LowerBody(s.body, sc);
      n.orelse = LowerBody(s.orelse, sc);
      break;
    case py::StmtKind::kBreak: n.kind = SK::kBreak; break;
    case py::StmtKind::kContinue: n.kind = SK::kContinue; break;
    case py::StmtKind::kPass: case py::StmtKind::kGlobal: case py::StmtKind::kNonlocal:
    case py::StmtKind::kImport: case py::StmtKind::kImportFrom:
      n.kind = SK::kPass;
      break;
    case py::StmtKind::kReturn:
      n.kind = SK::kReturn;
      if (s.value) n.value = Lower(*s.value, sc);
      break;
    case py::StmtKind::kWith:
      n.kind = SK::kWith;
      for (const auto& item : s.items) {
        const py::Expr* c = item.context_expr.get();
        if (c && c->kind == py::ExprKind::kCall && c->func) {
          std::string q = Qualify(*c->func, sc);
          if (q == "pl.section_cube") n.section = Section::kCube;
          if (q == "pl.section_vector") n.section = Section::kVector;
        }
      }
      n.body = LowerBody(s.body, sc);
      break;
    case py::StmtKind::kAssert:
      n.kind = SK::kAssert;
      n.test = Lower(*s.test, sc);
      if (s.msg) n.msg = Lower(*s.msg, sc);
      break;
    case py::StmtKind::kRaise:
      n.kind = SK::kRaise;
      if (s.exc) n.value = Lower(*s.exc, sc);
      break;
    default:
      n.kind = SK::kSkip;
      n.note = std::string(py::StmtKindName(s.kind)) + " statement";
      break;
  }
  return n;
}

std::vector<SNode> LowerBody(const std::vector<py::StmtPtr>& body, Scope& sc) {
  std::vector<SNode> out;
  out.reserve(body.size());
  for (const auto& s : body) out.push_back(LowerStmt(*s, sc));
  return out;
}

void LowerFunction(FuncIR& f, Program& prog, HazardSink& sink) {
  const py::Stmt& def = *f.def;
  Scope sc;
  sc.prog = &prog;
  sc.sink = &sink;
  sc.kind = f.kind;
  sc.func = f.nested ? &f : nullptr;
  std::set<std::string> names, globals_decl;
  const py::Arguments& a = *def.args;
  for (const auto* group : {&a.posonlyargs, &a.args, &a.kwonlyargs})
    for (const auto& arg : *group) {
      f.params.push_back({arg.arg, arg.annotation.get()});
      names.insert(arg.arg);
    }
  CollectBindings(def.body, /*into_defs=*/true, names, globals_decl);
  for (const auto& g : globals_decl) names.erase(g);
  // Parameters first, in order, then the other locals sorted.
  for (const auto& p : f.params) {
    sc.locals[p.name] = static_cast<int>(f.slot_names.size());
    f.slot_names.push_back(p.name);
  }
  for (const auto& n : names) {
    if (sc.locals.count(n)) continue;
    sc.locals[n] = static_cast<int>(f.slot_names.size());
    f.slot_names.push_back(n);
  }
  for (const auto& d : a.defaults) f.defaults.push_back(Lower(*d, sc));
  if (f.simt_max_threads_src) f.simt_max_threads = Lower(*f.simt_max_threads_src, sc);
  f.body = LowerBody(def.body, sc);
}

void AddImport(Program& prog, const py::Stmt& s) {
  if (s.kind == py::StmtKind::kImport) {
    for (const auto& al : s.names) {
      if (!al.asname.empty()) {
        prog.globals[al.asname] = Value::Module(Canonical(al.name));
      } else {
        std::string root = al.name.substr(0, al.name.find('.'));
        prog.globals[root] = Value::Module(root);
      }
    }
    return;
  }
  for (const auto& al : s.names) {
    std::string bound = al.asname.empty() ? al.name : al.asname;
    std::string q = Canonical(s.module + "." + al.name);
    Value c;
    if (FindConstant(q, &c)) { prog.globals[bound] = c; continue; }
    if (BuiltinFn fn = FindBuiltin(q)) {
      Value b;
      b.kind = VK::kBuiltin;
      b.fn = fn;
      b.s = q;
      prog.globals[bound] = b;
      continue;
    }
    prog.globals[bound] = Value::Module(q);
  }
}

void FindSections(const std::vector<SNode>& body, bool* cube, bool* vector) {
  for (const SNode& n : body) {
    if (n.section == Section::kCube) *cube = true;
    if (n.section == Section::kVector) *vector = true;
    FindSections(n.body, cube, vector);
    FindSections(n.orelse, cube, vector);
  }
}

LaunchKind LaunchOf(const std::vector<SNode>& body) {
  bool cube = false, vector = false;
  FindSections(body, &cube, &vector);
  if (cube && vector) return LaunchKind::kMixed;
  return cube ? LaunchKind::kCubeOnly : LaunchKind::kVectorOnly;
}

FuncKind KindOf(const py::Stmt& def, bool* auto_mutex) {
  for (const auto& d : def.decorator_list) {
    std::string n = py::DecoratorName(*d);
    std::string c = Canonical(n);
    if (c == "pl.jit" || absl::EndsWith(n, ".jit") || n == "jit") {
      if (d->kind == py::ExprKind::kCall) {
        if (const py::Expr* am = py::FindKeyword(*d, "auto_mutex")) {
          if (auto b = py::BoolValue(*am)) *auto_mutex = *b;
        }
      }
      return FuncKind::kJit;
    }
    if (c == "pl.vector_function" || absl::EndsWith(n, "vector_function")) return FuncKind::kVector;
    if (c == "pl.simt.function" || absl::EndsWith(n, "simt.function")) return FuncKind::kSimt;
    if (c == "pl.inline" || absl::EndsWith(n, ".inline")) return FuncKind::kHelper;
  }
  return FuncKind::kHost;
}

// @pl.pipeline.stage marks a stage; @pl.jit(pipeline=<not None>) turns the pipeline transform on
// for the kernel (pipeline_stage.h), with preload= when it is a literal.
void PipelineOf(const py::Stmt& def, FuncIR* f) {
  for (const auto& d : def.decorator_list) {
    std::string n = py::DecoratorName(*d);
    std::string c = Canonical(n);
    if (c == "pl.pipeline.stage" || absl::EndsWith(n, "pipeline.stage")) f->pipeline_stage = true;
    if (f->kind != FuncKind::kJit || d->kind != py::ExprKind::kCall) continue;
    const py::Expr* p = py::FindKeyword(*d, "pipeline");
    if (!p || p->kind == py::ExprKind::kConstant) continue;  // absent, or pipeline=None
    f->pipeline = true;
    if (p->kind == py::ExprKind::kCall)
      if (const py::Expr* pre = py::FindKeyword(*p, "preload"))
        if (auto v = py::IntValue(*pre)) f->pipeline_preload = *v;
  }
}

// @pl.simt.function(max_threads=N): N's expression (lowered with the function, evaluated at
// the launch). A bare @pl.simt.function, or one without max_threads, is a SIMT helper.
const py::Expr* SimtMaxThreads(const py::Stmt& def) {
  for (const auto& d : def.decorator_list) {
    std::string n = py::DecoratorName(*d);
    if (Canonical(n) != "pl.simt.function" && !absl::EndsWith(n, "simt.function")) continue;
    if (d->kind != py::ExprKind::kCall) return nullptr;
    return py::FindKeyword(*d, "max_threads");
  }
  return nullptr;
}

// ---- nested definitions (kernel factories) ---------------------------------------------

// Function definitions of a function body: compound statements are searched, the bodies of
// nested defs and classes are not (they are scopes of their own).
void DirectDefs(const std::vector<py::StmtPtr>& body, std::vector<const py::Stmt*>& out) {
  for (const auto& s : body) {
    if (s->kind == py::StmtKind::kFunctionDef) {
      out.push_back(s.get());
      continue;
    }
    if (s->kind == py::StmtKind::kClassDef) continue;
    DirectDefs(s->body, out);
    DirectDefs(s->orelse, out);
    DirectDefs(s->finalbody, out);
    for (const auto& h : s->handlers) DirectDefs(h.body, out);
  }
}

// Names bound in a function's own scope: parameters, assignment and loop targets, `with ...
// as` names, defs and classes; not the names of nested scopes.
void ScopeNames(const py::Stmt& def, std::set<std::string>& out) {
  std::set<std::string> decl;
  if (def.args) {
    const py::Arguments& a = *def.args;
    for (const auto* group : {&a.posonlyargs, &a.args, &a.kwonlyargs})
      for (const auto& arg : *group) out.insert(arg.arg);
    if (a.vararg) out.insert(a.vararg->arg);
    if (a.kwarg) out.insert(a.kwarg->arg);
  }
  CollectBindings(def.body, /*into_defs=*/false, out, decl);
  for (const auto& n : decl) out.erase(n);
}

struct EnclosingScope {
  std::set<std::string> names;                 // bound in that function
  std::map<std::string, std::string> defs;     // its nested defs: name -> Program::funcs key
};

// Registers the functions defined inside `def` (qualified name `qual`) and, recursively,
// theirs, each with the names it can read from its enclosing functions.
void AddNestedDefs(Program& prog, const py::Stmt& def, const std::string& qual,
                   std::vector<EnclosingScope>& chain) {
  std::vector<const py::Stmt*> defs;
  DirectDefs(def.body, defs);
  if (defs.empty()) return;
  EnclosingScope here;
  ScopeNames(def, here.names);
  std::vector<std::pair<const py::Stmt*, FuncIR*>> added;
  for (const py::Stmt* d : defs) {
    std::string name = qual + ".<locals>." + d->name;
    std::string key = prog.funcs.count(name) ? absl::StrCat(name, "@", d->span.line) : name;
    if (prog.funcs.count(key)) continue;  // the same def twice cannot happen; be safe
    auto f = std::make_unique<FuncIR>();
    f->name = name;
    f->line = d->span.line;
    f->def = d;
    f->kind = KindOf(*d, &f->auto_mutex);
    PipelineOf(*d, f.get());
    f->nested = true;
    added.emplace_back(d, f.get());
    here.defs.emplace(d->name, key);  // the first def of a name is the one calls resolve to
    prog.funcs[key] = std::move(f);
  }
  chain.push_back(std::move(here));
  for (auto& [d, f] : added) {
    for (auto scope = chain.rbegin(); scope != chain.rend(); ++scope)
      for (const auto& n : scope->names) {
        if (f->lexical_defs.count(n) || f->closure.count(n)) continue;
        auto nd = scope->defs.find(n);
        if (nd != scope->defs.end()) {
          f->lexical_defs[n] = nd->second;
        } else {
          std::string key = ClosureKey(f->name, n);
          f->closure[n] = key;
          prog.globals[key] = Value::Unavailable(
              "a variable of the enclosing function that the host did not pass (not a number, string, "
              "tuple, dtype, enum member or dataclass instance)");
        }
      }
  }
  for (auto& [d, f] : added) AddNestedDefs(prog, *d, f->name, chain);
  chain.pop_back();
}

}  // namespace

// The tiling-key schema a @pl.jit decorator names (tiling_key.md): the module-level class's
// `NAME = TilingKeyField(bits=B, values=[...])` attributes in class order. A schema the
// simulator cannot read keeps the reason in `problem`.
std::shared_ptr<const TilingKeySchema> TilingKeyOf(const py::Stmt& def, const py::Module& m) {
  for (const auto& d : def.decorator_list) {
    if (d->kind != py::ExprKind::kCall) continue;
    const py::Expr* tk = py::FindKeyword(*d, "tiling_key");
    if (!tk || (tk->kind == py::ExprKind::kConstant && !py::IntValue(*tk) && !py::NumberValue(*tk))) continue;
    auto schema = std::make_shared<TilingKeySchema>();
    schema->cls = py::DottedName(*tk).value_or("");
    const py::Stmt* cls = nullptr;
    for (const auto& s : m.body)
      if (s->kind == py::StmtKind::kClassDef && s->name == schema->cls) cls = s.get();
    if (!cls) {
      schema->problem = "tiling_key=" + schema->cls + " is not a class of this file";
      return schema;
    }
    schema->line = cls->span.line;
    for (const auto& s : cls->body) {
      if (s->kind == py::StmtKind::kFunctionDef && s->name == "is_valid") {
        schema->problem = "the schema's is_valid() is not evaluated by the simulator";
        continue;
      }
      if (s->kind != py::StmtKind::kAssign || s->targets.size() != 1 || !s->value ||
          s->targets[0]->kind != py::ExprKind::kName || s->value->kind != py::ExprKind::kCall)
        continue;
      if (!absl::EndsWith(py::DottedName(*s->value->func).value_or(""), "TilingKeyField")) continue;
      TilingKeyFieldInfo f;
      f.name = s->targets[0]->id;
      const py::Expr* vals = py::FindKeyword(*s->value, "values");
      if (!vals && s->value->args.size() >= 2) vals = s->value->args[1].get();
      bool ok = vals && (vals->kind == py::ExprKind::kList || vals->kind == py::ExprKind::kTuple);
      for (size_t i = 0; ok && i < vals->elts.size(); ++i) {
        auto v = py::IntValue(*vals->elts[i]);
        ok = v.has_value();
        if (ok) f.values.push_back(*v);
      }
      if (!ok || f.values.empty()) {
        schema->problem = "field " + f.name + ": values= is not a literal list of ints";
        continue;
      }
      schema->fields.push_back(std::move(f));
    }
    if (schema->fields.empty() && schema->problem.empty())
      schema->problem = "class " + schema->cls + " declares no TilingKeyField";
    return schema;
  }
  return nullptr;
}

// The datatype schema a @pl.jit decorator gives (`datatype={"param": "name", ...}`), checked as
// the frontend's jit.py checks it when the decorator runs: a non-empty dict of string keys
// naming parameters of the kernel and identifier values naming neither a parameter nor a
// tiling-key field. A dict the simulator cannot read or the frontend refuses keeps the reason
// in `problem` (the launch reports it).
std::shared_ptr<const DatatypeSchema> DatatypeOf(const py::Stmt& def, const TilingKeySchema* tiling_key) {
  for (const auto& d : def.decorator_list) {
    if (d->kind != py::ExprKind::kCall) continue;
    const py::Expr* dt = py::FindKeyword(*d, "datatype");
    if (!dt || (dt->kind == py::ExprKind::kConstant && !py::StringValue(*dt) && !py::NumberValue(*dt))) continue;
    auto schema = std::make_shared<DatatypeSchema>();
    schema->line = dt->span.line;
    if (dt->kind != py::ExprKind::kDict) {
      schema->problem = "datatype= is not a literal dict of parameter names to dtype variable names";
      return schema;
    }
    if (dt->keys.empty()) schema->problem = "datatype must be a non-empty dict mapping param name to dtype variable name";
    std::set<std::string> params;
    const py::Arguments& a = *def.args;
    for (const auto* group : {&a.posonlyargs, &a.args, &a.kwonlyargs})
      for (const auto& arg : *group) params.insert(arg.arg);
    for (size_t i = 0; i < dt->keys.size() && schema->problem.empty(); ++i) {
      std::optional<std::string> param = dt->keys[i] ? py::StringValue(*dt->keys[i]) : std::nullopt;
      std::optional<std::string> var = py::StringValue(*dt->elts[i]);
      if (!param || !var) {
        schema->problem = "datatype= entries must be literal strings (parameter name: dtype variable name)";
      } else if (param->empty()) {
        schema->problem = "datatype param names must be non-empty strings";
      } else if (!py::IsIdentifier(*var)) {
        schema->problem = "datatype variable for param '" + *param + "' must be a valid Python identifier, got '" +
                          *var + "'";
      } else if (!params.count(*param)) {
        schema->problem = "datatype param '" + *param + "' is not a parameter of kernel '" + def.name + "'";
      } else if (params.count(*var)) {
        schema->problem = "datatype variable name '" + *var + "' conflicts with a kernel parameter";
      } else if (tiling_key && std::any_of(tiling_key->fields.begin(), tiling_key->fields.end(),
                                           [&](const auto& f) { return f.name == *var; })) {
        schema->problem = "datatype variable name '" + *var + "' conflicts with a tiling_key field";
      } else {
        schema->params.emplace_back(*param, *var);
      }
    }
    return schema;
  }
  return nullptr;
}

std::unique_ptr<Program> LowerProgram(py::Module module, const std::string& file, HazardSink& sink) {
  auto prog = std::make_unique<Program>();
  prog->file = file;
  prog->module = std::move(module);
  // Builtin Python names are resolved by the interpreter when no global shadows them.
  for (const auto& s : prog->module.body) {
    if (s->kind == py::StmtKind::kImport || s->kind == py::StmtKind::kImportFrom) AddImport(*prog, *s);
  }
  for (const auto& s : prog->module.body) {
    if (s->kind != py::StmtKind::kFunctionDef) continue;
    auto f = std::make_unique<FuncIR>();
    f->name = s->name;
    f->line = s->span.line;
    f->def = s.get();
    f->kind = KindOf(*s, &f->auto_mutex);
    PipelineOf(*s, f.get());
    if (f->kind == FuncKind::kJit) {
      f->tiling_key = TilingKeyOf(*s, prog->module);
      f->datatype = DatatypeOf(*s, f->tiling_key.get());
    }
    if (f->kind == FuncKind::kSimt) f->simt_max_threads_src = SimtMaxThreads(*s);
    auto v = std::make_shared<const FuncIR*>(f.get());
    prog->globals[s->name] = Value::Obj(VK::kFunc, v);
    prog->funcs[s->name] = std::move(f);
  }
  // Functions defined inside module-level functions (kernel factories: a kernel per dtype or
  // shape, its closure variables set by the factory's arguments).
  for (const auto& s : prog->module.body) {
    if (s->kind != py::StmtKind::kFunctionDef) continue;
    std::vector<EnclosingScope> chain;
    AddNestedDefs(*prog, *s, s->name, chain);
  }
  // Functions called from a kernel or VF body are helpers (inlined), not host code, and so
  // are the functions those helpers call (the FA samples' compute_* stages call allocators).
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& entry : prog->funcs) {
      auto& f = entry.second;  // not a structured binding: clang 14 cannot capture one
      if (f->kind == FuncKind::kHost) continue;
      py::ForEachCall(*f->def, [&](const py::Expr& call) {
        if (call.func->kind != py::ExprKind::kName) return;
        FuncIR* callee = const_cast<FuncIR*>(ResolveCallee(*prog, *f, call.func->id));
        if (callee && callee->kind == FuncKind::kHost) {
          callee->kind = FuncKind::kHelper;
          changed = true;
        }
      });
    }
  }
  // Module-level statements: constants (assignments) only; everything else is host setup.
  Scope sc;
  sc.prog = prog.get();
  sc.sink = &sink;
  sc.module_level = true;
  for (const auto& s : prog->module.body) {
    if (s->kind == py::StmtKind::kAssign || s->kind == py::StmtKind::kAnnAssign ||
        s->kind == py::StmtKind::kAugAssign)
      prog->module_body.push_back(LowerStmt(*s, sc));
  }
  for (auto& [name, f] : prog->funcs) {
    LowerFunction(*f, *prog, sink);
    if (f->kind == FuncKind::kJit) f->launch = LaunchOf(f->body);
  }
  std::set<std::string> module_names;
  for (const auto& [name, v] : prog->globals) module_names.insert(name);
  for (const auto& s : prog->module.body) {
    std::set<std::string> assigned, ignored;
    if (s->kind == py::StmtKind::kAssign || s->kind == py::StmtKind::kAnnAssign) {
      for (const auto& t : s->targets) CollectTargets(*t, module_names);
      if (s->target) CollectTargets(*s->target, module_names);
    }
  }
  for (auto& [name, f] : prog->funcs) {
    if (f->kind != FuncKind::kVector) continue;
    if (!f->nested) {
      CheckVectorFunction(*f->def, module_names, sink);
      continue;
    }
    std::set<std::string> names = module_names;  // an enclosing function's names are compile-time too
    for (const auto& [n, k] : f->closure) names.insert(n);
    for (const auto& [n, k] : f->lexical_defs) names.insert(n);
    CheckVectorFunction(*f->def, names, sink);
  }
  return prog;
}

std::string ClosureKey(const std::string& qualname, const std::string& name) {
  return qualname + ":" + name;
}

void RestoreModuleState(Program& prog, const std::map<std::string, Value>& initial) {
  for (const XNode* n : prog.global_refs) n->global = nullptr;
  prog.globals = initial;
}

const FuncIR* FindFunction(const Program& prog, const std::string& name, int line) {
  auto covers = [line](const FuncIR& f) {
    if (line <= 0) return true;
    int first = f.def->span.line;
    for (const auto& d : f.def->decorator_list) first = std::min(first, d->span.line);
    return line >= first && line <= f.def->span.line;
  };
  auto it = prog.funcs.find(name);
  if (it != prog.funcs.end() && covers(*it->second)) return it->second.get();
  // Second and later defs of one qualified name (a def per branch of a factory): `name@line`.
  for (auto j = prog.funcs.lower_bound(name + "@"); j != prog.funcs.end() && absl::StartsWith(j->first, name + "@"); ++j)
    if (covers(*j->second)) return j->second.get();
  return nullptr;
}

const FuncIR* ResolveCallee(const Program& prog, const FuncIR& caller, const std::string& name) {
  auto d = caller.lexical_defs.find(name);
  if (d != caller.lexical_defs.end()) {
    auto it = prog.funcs.find(d->second);
    return it == prog.funcs.end() ? nullptr : it->second.get();
  }
  if (caller.closure.count(name)) return nullptr;
  auto it = prog.funcs.find(name);
  return it == prog.funcs.end() || it->second->nested ? nullptr : it->second.get();
}

}  // namespace opdev::sim
