// The host-chain audit: traces the wrapper's host call chain (local helpers it calls, their
// default arguments and decorators, and the module-level values they read; never the kernel
// or VF bodies) in statement order and classifies every torch call, tensor method,
// attribute, subscript, operator and truth test that involves a tensor:
//   * allowed (fixtures/kb/constraints/wrapper-boundary.md): argument checks, the metadata
//     shape/ndim/dtype/device/layout and dim()/size()/stride()/numel()/storage_offset(),
//     Python integers derived from them, torch.empty for outputs, one launch;
//   * cheating, SC-VALUE-DEPENDENT (⑤): reads tensor data on the host — comparisons, truth
//     tests, item()/tolist()/numpy(), int()/float()/sum()/max()… of a tensor, sort/topk/
//     argmax/unique/where/nonzero and the other selection operations;
//   * cheating, SC-HOST-COMPUTE: arithmetic or math on tensor values (operators, softmax,
//     exp, sum, in-place writes into inputs);
//   * cheating, SC-POST-LAUNCH (⑥): after the launch, any operation on the kernel's output
//     other than reading its metadata, and returning something the kernel never received;
//   * wrapper_boundary_violation, SC-WRAPPER-BOUNDARY: everything else not provably in the
//     allowlist (casts, views, contiguous(), slicing, other torch calls, formatting).
#include "host_chain.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <map>
#include <set>

namespace opdev::selfcheck {
namespace {

const std::set<std::string> kMetaAttrs = {"shape", "ndim", "dtype", "device", "layout"};
const std::set<std::string> kMetaMethods = {"dim", "size", "stride", "numel", "storage_offset"};
const std::set<std::string> kSafeBuiltins = {
    "len", "isinstance", "min", "max", "range", "int", "abs", "tuple", "list", "enumerate",
    "zip", "all", "any", "str", "repr", "bool", "float", "sum", "divmod", "print", "type",
    "ValueError", "TypeError", "RuntimeError", "AssertionError", "NotImplementedError",
    "IndexError", "KeyError", "get_platform_info", "getattr", "hasattr", "sorted"};
// Builtins that read a tensor's values when handed a tensor (⑤).
const std::set<std::string> kValueBuiltins = {"int", "float", "bool", "sum", "min", "max",
                                              "abs", "sorted", "any", "all", "list", "tuple",
                                              "next", "iter", "round", "divmod"};
// Builtins that format a tensor's values (a device sync and a copy, not a decision).
const std::set<std::string> kFormatBuiltins = {"print", "str", "repr", "format"};
// Operations whose result depends on the input values (⑤): selection, comparison, reading
// values back to the host.
const std::set<std::string> kValueOps = {
    "item", "tolist", "numpy", "any", "all", "nonzero", "argmax", "argmin", "max", "min",
    "amax", "amin", "aminmax", "sort", "argsort", "msort", "topk", "kthvalue", "median",
    "mode", "unique", "unique_consecutive", "masked_select", "where", "eq", "ne", "gt", "lt",
    "ge", "le", "greater", "less", "equal", "allclose", "isclose", "isnan", "isinf",
    "isfinite", "bincount", "histc", "searchsorted", "count_nonzero", "bucketize"};
// Arithmetic and math on values (host compute).
const std::set<std::string> kComputeOps = {
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
    "floor_divide", "pow", "neg", "negative", "abs", "exp", "exp2", "expm1", "log", "log2",
    "log10", "log1p", "sqrt", "rsqrt", "sigmoid", "tanh", "relu", "gelu", "silu", "softmax",
    "log_softmax", "softplus", "sum", "mean", "prod", "cumsum", "cumprod", "clamp", "clip",
    "clamp_min", "clamp_max", "maximum", "minimum", "fmax", "fmin", "reciprocal", "sign",
    "round", "floor", "ceil", "trunc", "fmod", "remainder", "matmul", "mm", "bmm", "addmm",
    "baddbmm", "einsum", "dot", "outer", "gather", "scatter", "scatter_add", "index_select",
    "index_add", "take", "flip", "roll", "norm", "var", "std", "logsumexp", "square", "erf",
    "masked_fill", "lerp", "addcmul", "addcdiv", "layer_norm", "rms_norm", "group_norm",
    "batch_norm", "linear", "conv1d", "conv2d", "dropout", "nan_to_num", "diff"};
// Namespaces whose calls are torch operations.
bool IsTorchNamespace(const std::string& name) {
  for (const char* p : {"torch.", "torch_npu.", "F.", "np.", "numpy.", "nn.functional."})
    if (name.rfind(p, 0) == 0) return true;
  return false;
}
std::string LastPart(const std::string& dotted) {
  size_t p = dotted.rfind('.');
  return p == std::string::npos ? dotted : dotted.substr(p + 1);
}
bool IsInPlace(const std::string& method) {
  return method.size() > 1 && method.back() == '_' && method[method.size() - 2] != '_';
}
std::string StripInPlace(const std::string& m) { return IsInPlace(m) ? m.substr(0, m.size() - 1) : m; }

bool IsScalarAnnotation(const py::Expr* a) {
  if (!a) return false;
  auto n = py::DottedName(*a);
  return n && (*n == "int" || *n == "float" || *n == "bool" || *n == "str");
}

bool IsScalarDefault(const py::Expr* d) {
  if (!d || (!d->Is(py::ExprKind::kConstant) && !d->Is(py::ExprKind::kUnaryOp))) return false;
  return py::NumberValue(*d).has_value() || py::StringValue(*d).has_value() ||
         py::BoolValue(*d).has_value();
}

enum class Kind { kBoundary, kCompute, kValue, kPostLaunch };

class Auditor {
 public:
  Auditor(const CheckContext& c, HostChainAudit* out) : f_(*c.file), out_(out) {
    for (const auto* k : f_.Jits()) kernels_.insert(k->name);
    for (const auto* v : f_.Vfs()) kernels_.insert(v->name);
    for (const auto& [name, e] : py::TopLevelAssignments(f_.module)) module_values_[name] = e;
    // Host functions that (transitively) launch a kernel: after a call to one of them, the
    // output is final.
    for (const auto& fn : f_.functions) {
      if (kernels_.count(fn.name)) continue;
      for (const auto& r : Reachable(f_, fn.name))
        for (const auto* call : f_.CallsIn(r))
          if (kernels_.count(call->launched) || (kernels_.count(call->name) && !kernels_.count(r)))
            launching_.insert(fn.name);
    }
  }

  void Run(const std::string& wrapper) {
    queue_.push_back(wrapper);
    for (size_t i = 0; i < queue_.size(); ++i) {
      const FunctionInfo* info = f_.Find(queue_[i]);
      if (!info || kernels_.count(queue_[i])) continue;
      out_->traced.push_back(queue_[i]);
      AuditFunction(*info, i == 0);
    }
    out_->outputs.assign(outputs_.begin(), outputs_.end());
    out_->launched = launched_any_;
  }

 private:
  struct Scope {
    std::set<std::string> tensors;    // names bound to tensors
    std::set<std::string> allocated;  // names bound to torch.empty(...)
    bool after_launch = false;
    bool is_wrapper = false;
    std::string fn;
  };

  void Report(int line, Kind kind, std::string msg) {
    std::string key = absl::StrCat(line, "|", msg);
    if (!reported_.insert(key).second) return;
    switch (kind) {
      case Kind::kBoundary:
        AddFinding(&out_->boundary, f_, "SC-WRAPPER-BOUNDARY", cat::kWrapperBoundary, line, std::move(msg));
        break;
      case Kind::kCompute:
        AddFinding(&out_->cheating, f_, "SC-HOST-COMPUTE", cat::kCheating, line, std::move(msg));
        break;
      case Kind::kValue:
        AddFinding(&out_->cheating, f_, "SC-VALUE-DEPENDENT", cat::kCheating, line, std::move(msg));
        break;
      case Kind::kPostLaunch:
        AddFinding(&out_->cheating, f_, "SC-POST-LAUNCH", cat::kCheating, line, std::move(msg));
        break;
    }
  }

  // Reports `kind`, unless the operation touches the kernel's output after the launch: then
  // it changes, extracts or converts the final result on the host (⑥).
  void Classify(int line, Kind kind, const std::string& msg, bool touches_output, const Scope& s) {
    if (s.after_launch && touches_output) {
      Report(line, Kind::kPostLaunch,
             absl::StrCat(msg, " — after the launch, on the kernel's output: the host changes or "
                               "extracts the final result (the kernel must produce it)"));
      return;
    }
    Report(line, kind, msg);
  }

  static std::vector<const py::Arg*> Params(const py::Arguments& a) {
    std::vector<const py::Arg*> params;
    for (const auto& p : a.posonlyargs) params.push_back(&p);
    for (const auto& p : a.args) params.push_back(&p);
    for (const auto& p : a.kwonlyargs) params.push_back(&p);
    return params;
  }

  void NoteHelperCall(const py::Expr& call, const std::string& name, const Scope& s) {
    const FunctionInfo* h = f_.Find(name);
    if (!h || kernels_.count(name)) return;
    auto params = Params(*h->def->args);
    auto& tp = helper_tensors_[name];
    auto& op = helper_outputs_[name];
    for (size_t i = 0; i < call.args.size() && i < params.size(); ++i) {
      if (IsTensor(*call.args[i], s)) tp.insert(params[i]->arg);
      if (TouchesOutput(*call.args[i], s)) op.insert(params[i]->arg);
    }
    for (const auto& k : call.keywords) {
      if (k.value && IsTensor(*k.value, s)) tp.insert(k.arg);
      if (k.value && TouchesOutput(*k.value, s)) op.insert(k.arg);
    }
    if (!helper_after_launch_.count(name)) helper_after_launch_[name] = s.after_launch;
    if (std::find(queue_.begin(), queue_.end(), name) == queue_.end()) queue_.push_back(name);
  }

  void AuditFunction(const FunctionInfo& fi, bool is_wrapper) {
    const py::Stmt& def = *fi.def;
    Scope s;
    s.fn = fi.name;
    s.is_wrapper = is_wrapper;
    const py::Arguments& a = *def.args;
    std::vector<const py::Arg*> params = Params(a);
    if (!is_wrapper) {
      s.tensors = helper_tensors_[fi.name];
      s.after_launch = helper_after_launch_[fi.name];
      for (const auto& o : helper_outputs_[fi.name]) helper_output_params_[fi.name].insert(o);
    }
    size_t first_default = a.posonlyargs.size() + a.args.size() - a.defaults.size();
    for (size_t i = 0; is_wrapper && i < params.size(); ++i) {
      const py::Expr* dflt = nullptr;
      size_t npos = a.posonlyargs.size() + a.args.size();
      if (i < npos && i >= first_default) dflt = a.defaults[i - first_default].get();
      if (i >= npos && i - npos < a.kw_defaults.size()) dflt = a.kw_defaults[i - npos].get();
      if (!IsScalarAnnotation(params[i]->annotation.get()) && !IsScalarDefault(dflt))
        s.tensors.insert(params[i]->arg);
    }
    if (is_wrapper && a.vararg) s.tensors.insert(a.vararg->arg);
    for (const auto& d : def.decorator_list) AuditExpr(*d, s, "decorator of " + fi.name);
    for (const auto& d : a.defaults) AuditExpr(*d, s, "default argument of " + fi.name);
    for (const auto& d : a.kw_defaults)
      if (d) AuditExpr(*d, s, "default argument of " + fi.name);
    for (const auto& st : def.body) AuditStmt(*st, s);
  }

  // Does the expression evaluate to a tensor we track?
  bool IsTensor(const py::Expr& e, const Scope& s) const {
    switch (e.kind) {
      case py::ExprKind::kName: return s.tensors.count(e.id) > 0;
      case py::ExprKind::kCall: {
        std::string name = py::CallName(e);
        // torch.* / F.* operations return tensors (torch.Size / torch.numel do not).
        if (name == "torch.empty" ||
            ((name.rfind("torch.", 0) == 0 || name.rfind("F.", 0) == 0) && name != "torch.Size" &&
             name != "torch.numel"))
          return true;
        const py::Expr* func = e.func.get();
        if (func && func->Is(py::ExprKind::kAttribute) && func->value_expr &&
            IsTensor(*func->value_expr, s))
          return !kMetaMethods.count(func->id) && func->id != "item" && func->id != "tolist";
        return false;
      }
      case py::ExprKind::kSubscript:
      case py::ExprKind::kAttribute:
        return e.value_expr && IsTensor(*e.value_expr, s) &&
               (e.kind == py::ExprKind::kSubscript || !kMetaAttrs.count(e.id));
      case py::ExprKind::kBinOp:
        return (e.left && IsTensor(*e.left, s)) || (e.right && IsTensor(*e.right, s));
      default: return false;
    }
  }

  // Does the expression involve the kernel's output (a tensor handed to the launch that the
  // chain allocated, or a value derived from one after the launch)?
  bool TouchesOutput(const py::Expr& e, const Scope& s) const {
    struct V : py::AstVisitor {
      const Auditor* self;
      const Scope* s;
      bool hit = false;
      bool EnterExpr(const py::Expr& x) override {
        if (x.Is(py::ExprKind::kName) && self->IsOutputName(x.id, *s)) hit = true;
        return !hit;
      }
    } v;
    v.self = this;
    v.s = &s;
    py::Walk(e, v);
    return v.hit;
  }
  bool IsOutputName(const std::string& name, const Scope& s) const {
    if (s.is_wrapper) return outputs_.count(name) || derived_.count(name);
    auto it = helper_output_params_.find(s.fn);
    return (it != helper_output_params_.end() && it->second.count(name)) || derived_.count(name);
  }

  bool IsLaunch(const py::Expr& call) const {
    const py::Expr* func = call.func.get();
    if (!func) return false;
    if (func->Is(py::ExprKind::kSubscript) && func->value_expr) {
      auto n = py::DottedName(*func->value_expr);
      return n && kernels_.count(*n);
    }
    return kernels_.count(py::CallName(call)) > 0;
  }

  // A truth test of a tensor (if x:, while x.any():, not x, x and y) reads its values.
  void TruthTest(const py::Expr* test, const Scope& s, const std::string& what) {
    if (!test) return;
    std::vector<const py::Expr*> parts{test};
    if (test->Is(py::ExprKind::kBoolOp))
      for (const auto& v : test->elts) parts.push_back(v.get());
    if (test->Is(py::ExprKind::kUnaryOp) && test->op == py::Op::kNot && test->operand)
      parts.push_back(test->operand.get());
    for (const auto* p : parts)
      if (p && IsTensor(*p, s))
        Classify(test->span.line, Kind::kValue,
                 absl::StrCat(what, " tests a tensor's value on the host in ", s.fn), TouchesOutput(*p, s), s);
  }

  void AuditStmt(const py::Stmt& st, Scope& s) {
    switch (st.kind) {
      case py::StmtKind::kAssign:
      case py::StmtKind::kAnnAssign: {
        if (st.value) AuditExpr(*st.value, s, s.fn);
        std::vector<const py::Expr*> targets;
        for (const auto& t : st.targets) targets.push_back(t.get());
        if (st.target) targets.push_back(st.target.get());
        for (const auto* t : targets) {
          if (t->Is(py::ExprKind::kSubscript) && t->value_expr && IsTensor(*t->value_expr, s)) {
            const bool into_output = TouchesOutput(*t->value_expr, s);
            if (s.after_launch && into_output)
              Classify(st.span.line, Kind::kPostLaunch, "writes into the output on the host (subscript assignment)", true, s);
            else if (s.allocated.count(t->value_expr->id) || into_output)
              Report(st.span.line, Kind::kBoundary, "writes into a tensor on the host (subscript assignment)");
            else
              Report(st.span.line, Kind::kCompute,
                     absl::StrCat("overwrites input values on the host (subscript assignment) in ", s.fn));
          }
          if (t->Is(py::ExprKind::kName) && st.value) {
            if (s.after_launch && (outputs_.count(t->id) || IsOutputName(t->id, s)) &&
                !(st.value->Is(py::ExprKind::kName) && st.value->id == t->id))
              Report(st.span.line, Kind::kPostLaunch,
                     absl::StrCat("rebinds the kernel's output `", t->id, "` after the launch in ", s.fn,
                                  ": the returned result is no longer what the kernel wrote"));
            if (IsTensor(*st.value, s)) s.tensors.insert(t->id);
            if (py::CallName(*st.value) == "torch.empty") s.allocated.insert(t->id);
            if (s.after_launch && TouchesOutput(*st.value, s)) derived_.insert(t->id);
          }
          if (t->Is(py::ExprKind::kTuple) && st.value && IsTensor(*st.value, s))
            for (const auto& e : t->elts)
              if (e->Is(py::ExprKind::kName)) s.tensors.insert(e->id);
        }
        return;
      }
      case py::StmtKind::kAugAssign:
        if (st.value) AuditExpr(*st.value, s, s.fn);
        if (st.target && (IsTensor(*st.target, s) || (st.value && IsTensor(*st.value, s))))
          Classify(st.span.line, Kind::kCompute,
                   absl::StrCat("host arithmetic `", std::string(py::OpText(st.op)), "=` on a tensor in ", s.fn),
                   TouchesOutput(*st.target, s), s);
        return;
      case py::StmtKind::kFor:
        if (st.iter) AuditExpr(*st.iter, s, s.fn);
        if (st.iter && st.target && st.target->Is(py::ExprKind::kName) && IsTensor(*st.iter, s))
          s.tensors.insert(st.target->id);  // elements of a TensorList
        break;
      case py::StmtKind::kIf:
      case py::StmtKind::kWhile:
      case py::StmtKind::kAssert:
        TruthTest(st.test.get(), s, st.Is(py::StmtKind::kAssert) ? "assert" : st.Is(py::StmtKind::kIf) ? "if" : "while");
        if (st.test) AuditExpr(*st.test, s, s.fn);
        if (st.msg) AuditExpr(*st.msg, s, s.fn);
        break;
      case py::StmtKind::kReturn:
        if (st.value) {
          AuditExpr(*st.value, s, s.fn);
          if (s.is_wrapper) CheckReturn(*st.value, st.span.line, s);
        }
        return;
      default:
        for (const py::Expr* e : {st.value.get(), st.exc.get(), st.cause.get(), st.iter.get()})
          if (e) AuditExpr(*e, s, s.fn);
        for (const auto& w : st.items)
          if (w.context_expr) AuditExpr(*w.context_expr, s, s.fn);
        break;
    }
    for (const auto& b : st.body) AuditStmt(*b, s);
    for (const auto& b : st.orelse) AuditStmt(*b, s);
    for (const auto& h : st.handlers)
      for (const auto& b : h.body) AuditStmt(*b, s);
    for (const auto& b : st.finalbody) AuditStmt(*b, s);
  }

  // ⑥: the wrapper returns what the kernel wrote — names the launch received.
  void CheckReturn(const py::Expr& v, int line, const Scope& s) {
    if (!s.after_launch) return;
    std::vector<const py::Expr*> items;
    if (v.Is(py::ExprKind::kTuple) || v.Is(py::ExprKind::kList))
      for (const auto& e : v.elts) items.push_back(e.get());
    else
      items.push_back(&v);
    bool all_launched = true;
    for (const auto* e : items) {
      if (e->Is(py::ExprKind::kConstant)) continue;  // None placeholders
      // The kernel's outputs (the allocated tensors it received); an in-place kernel with no
      // allocated output returns one of its arguments.
      const std::set<std::string>& ok = outputs_.empty() ? launch_args_ : outputs_;
      if (e->Is(py::ExprKind::kName) && ok.count(e->id) && !derived_.count(e->id)) continue;
      all_launched = false;
      if (e->Is(py::ExprKind::kName) && (s.tensors.count(e->id) || derived_.count(e->id)))
        Report(line, Kind::kPostLaunch,
               absl::StrCat("the wrapper returns `", e->id, "`, which is not a tensor the kernel received: "
                            "the returned result is not the kernel's output"));
      else if (!e->Is(py::ExprKind::kName))
        Report(line, Kind::kPostLaunch,
               "the wrapper returns an expression evaluated on the host, not the tensor the kernel wrote");
    }
    if (all_launched) out_->returns_output = true;
  }

  void AuditExpr(const py::Expr& root, Scope& s, const std::string& where) {
    struct V : py::AstVisitor {
      Auditor* self;
      Scope* s;
      const std::string* where;
      std::set<const py::Expr*> callee_attrs;
      bool EnterExpr(const py::Expr& e) override { return self->Visit(e, *s, *where, &callee_attrs); }
    } v;
    v.self = this;
    v.s = &s;
    v.where = &where;
    py::Walk(root, v);
  }

  bool Visit(const py::Expr& e, Scope& s, const std::string& fn, std::set<const py::Expr*>* callee_attrs) {
    const int line = e.span.line;
    switch (e.kind) {
      case py::ExprKind::kCall: return VisitCall(e, s, fn, callee_attrs);
      case py::ExprKind::kAttribute: {
        if (callee_attrs->count(&e)) return true;
        if (e.value_expr && IsTensor(*e.value_expr, s) && !kMetaAttrs.count(e.id))
          Classify(line, Kind::kBoundary,
                   absl::StrCat("tensor attribute .", e.id, " in ", fn,
                                ": only shape/ndim/dtype/device/layout may be read"),
                   TouchesOutput(*e.value_expr, s), s);
        return true;
      }
      case py::ExprKind::kSubscript:
        if (e.value_expr && IsTensor(*e.value_expr, s))
          Classify(line, Kind::kBoundary,
                   absl::StrCat("indexes or slices a tensor in ", fn, ": slicing dispatches a device op"),
                   TouchesOutput(*e.value_expr, s), s);
        return true;
      case py::ExprKind::kBinOp:
        if ((e.left && IsTensor(*e.left, s)) || (e.right && IsTensor(*e.right, s)))
          Classify(line, Kind::kCompute,
                   absl::StrCat("host arithmetic `", std::string(py::OpText(e.op)), "` on a tensor in ", fn),
                   TouchesOutput(e, s), s);
        return true;
      case py::ExprKind::kUnaryOp:
        if (e.operand && IsTensor(*e.operand, s))
          Classify(line, e.op == py::Op::kNot ? Kind::kValue : Kind::kCompute,
                   e.op == py::Op::kNot
                       ? absl::StrCat("`not` tests a tensor's value on the host in ", fn)
                       : absl::StrCat("host arithmetic `", std::string(py::OpText(e.op)), "` on a tensor in ", fn),
                   TouchesOutput(e, s), s);
        return true;
      case py::ExprKind::kIfExp:
        TruthTest(e.test.get(), s, "a conditional expression");
        return true;
      case py::ExprKind::kCompare: {
        std::vector<const py::Expr*> operands{e.left.get()};
        for (const auto& x : e.elts) operands.push_back(x.get());
        bool identity = std::all_of(e.ops.begin(), e.ops.end(), [](py::Op o) {
          return o == py::Op::kIs || o == py::Op::kIsNot;
        });
        if (!identity)
          for (const auto* o : operands)
            if (o && IsTensor(*o, s)) {
              Classify(line, Kind::kValue,
                       absl::StrCat("compares tensor values on the host in ", fn,
                                    ": a value-dependent decision outside the kernel"),
                       TouchesOutput(*o, s), s);
              break;
            }
        return true;
      }
      case py::ExprKind::kFormattedValue:
        if (e.value_expr && IsTensor(*e.value_expr, s))
          Classify(line, Kind::kBoundary, absl::StrCat("formats tensor values into a string in ", fn),
                   TouchesOutput(*e.value_expr, s), s);
        return true;
      case py::ExprKind::kListComp:
      case py::ExprKind::kSetComp:
      case py::ExprKind::kGeneratorExp:
      case py::ExprKind::kDictComp:
        for (const auto& g : e.generators)
          if (g.iter && IsTensor(*g.iter, s) && !g.ifs.empty())
            Classify(line, Kind::kValue,
                     absl::StrCat("filters tensor elements on the host in ", fn), TouchesOutput(*g.iter, s), s);
        return true;
      case py::ExprKind::kName: {
        auto it = module_values_.find(e.id);
        if (it != module_values_.end() && audited_globals_.insert(e.id).second) AuditGlobal(e.id, *it->second, fn);
        return true;
      }
      default:
        return true;
    }
  }

  bool VisitCall(const py::Expr& e, Scope& s, const std::string& fn, std::set<const py::Expr*>* callee_attrs) {
    const int line = e.span.line;
    std::string name = py::CallName(e);
    const py::Expr* func = e.func.get();
    if (func && func->Is(py::ExprKind::kAttribute)) callee_attrs->insert(func);
    bool tensor_arg = false, output_arg = false;
    for (const auto& a : e.args) {
      if (IsTensor(*a, s)) tensor_arg = true;
      if (TouchesOutput(*a, s)) output_arg = true;
    }
    for (const auto& k : e.keywords) {
      if (k.value && IsTensor(*k.value, s)) tensor_arg = true;
      if (k.value && TouchesOutput(*k.value, s)) output_arg = true;
    }
    if (IsLaunch(e)) {
      for (const auto& a : e.args)
        if (a->Is(py::ExprKind::kName)) {
          launch_args_.insert(a->id);
          if (s.allocated.count(a->id) || (!s.is_wrapper && IsOutputName(a->id, s))) outputs_.insert(a->id);
        }
      for (const auto& k : e.keywords)
        if (k.value && k.value->Is(py::ExprKind::kName)) {
          launch_args_.insert(k.value->id);
          if (s.allocated.count(k.value->id)) outputs_.insert(k.value->id);
        }
      s.after_launch = true;
      launched_any_ = true;
      return true;
    }
    if (name == "torch.empty") {
      ++out_->torch_empty;
      if (s.after_launch)
        Report(line, Kind::kPostLaunch, absl::StrCat("torch.empty after the launch in ", fn,
                                                     ": a tensor the kernel never writes"));
      return true;
    }
    if (IsTorchNamespace(name)) {
      const std::string op = StripInPlace(LastPart(name));
      Kind k = !tensor_arg ? Kind::kBoundary
               : kValueOps.count(op) ? Kind::kValue
               : kComputeOps.count(op) ? Kind::kCompute
                                       : Kind::kBoundary;
      std::string why = k == Kind::kValue ? ": a value-dependent operation on the host"
                        : k == Kind::kCompute ? ": core computation on the host"
                                              : ": torch.empty is the only torch call a wrapper may make";
      Classify(line, k, absl::StrCat(name, "() in ", fn, why), output_arg, s);
      return true;
    }
    // A method on a tensor.
    if (func && func->Is(py::ExprKind::kAttribute) && func->value_expr && IsTensor(*func->value_expr, s)) {
      const std::string& m = func->id;
      if (kMetaMethods.count(m)) return true;
      const bool on_output = TouchesOutput(*func->value_expr, s) || output_arg;
      const std::string op = StripInPlace(m);
      Kind k = kValueOps.count(op) ? Kind::kValue : kComputeOps.count(op) ? Kind::kCompute : Kind::kBoundary;
      if (IsInPlace(m) && k == Kind::kBoundary) {
        // fill_/zero_/copy_/…: initialising an allocated output is a boundary matter; writing
        // values into an input changes the data the kernel sees.
        const bool into_alloc = func->value_expr->Is(py::ExprKind::kName) && s.allocated.count(func->value_expr->id);
        k = into_alloc ? Kind::kBoundary : Kind::kCompute;
      }
      std::string why = k == Kind::kValue ? ": reads tensor values on the host (value-dependent)"
                        : k == Kind::kCompute ? ": core computation on the host"
                                              : ": only dim()/size()/stride()/numel()/storage_offset() may be called";
      Classify(line, k, absl::StrCat(".", m, "() on a tensor in ", fn, why), on_output, s);
      return true;
    }
    // A plain function: local helpers are traced separately; builtins are allowed unless
    // they read tensor values; anything else handed a tensor cannot be proven.
    if (!name.empty() && f_.Find(name) && !kernels_.count(name)) {
      NoteHelperCall(e, name, s);
      if (launching_.count(name)) {
        s.after_launch = true;
        launched_any_ = true;
        for (const auto& a : e.args)
          if (a->Is(py::ExprKind::kName) && s.allocated.count(a->id)) {
            outputs_.insert(a->id);
            launch_args_.insert(a->id);
          }
      }
      return true;
    }
    if (tensor_arg) {
      if (kValueBuiltins.count(name))
        Classify(line, Kind::kValue,
                 absl::StrCat(name, "() of a tensor in ", fn, ": reads tensor values on the host"), output_arg, s);
      else if (kFormatBuiltins.count(name))
        Classify(line, Kind::kBoundary, absl::StrCat(name, "() formats tensor values in ", fn), output_arg, s);
      else if (!kSafeBuiltins.count(name))
        Classify(line, Kind::kBoundary,
                 absl::StrCat(name.empty() ? "a call" : name + "()", " receives a tensor in ", fn,
                              ": not provably metadata-only"),
                 output_arg, s);
    }
    return true;
  }

  void AuditGlobal(const std::string& name, const py::Expr& value, const std::string& fn) {
    std::string where = absl::StrCat("module-level `", name, "` read by ", fn);
    struct V : py::AstVisitor {
      Auditor* self;
      std::string where;
      bool EnterExpr(const py::Expr& e) override {
        if (e.Is(py::ExprKind::kCall)) {
          std::string n = py::CallName(e);
          if (IsTorchNamespace(n) && n != "torch.empty")
            self->Report(e.span.line, Kind::kBoundary, absl::StrCat(n, "() in ", where));
        }
        return true;
      }
    } v;
    v.self = this;
    v.where = where;
    py::Walk(value, v);
  }

  const KernelFile& f_;
  HostChainAudit* out_;
  std::set<std::string> kernels_, launching_;
  std::map<std::string, const py::Expr*> module_values_;
  std::set<std::string> audited_globals_, reported_;
  std::vector<std::string> queue_;
  std::map<std::string, std::set<std::string>> helper_tensors_, helper_outputs_, helper_output_params_;
  std::map<std::string, bool> helper_after_launch_;
  std::set<std::string> outputs_, launch_args_, derived_;
  bool launched_any_ = false;
};

}  // namespace

HostChainAudit AuditHostChain(const CheckContext& c) {
  HostChainAudit out;
  Auditor a(c, &out);
  a.Run(c.wrapper);
  return out;
}

}  // namespace opdev::selfcheck
