// S4-15: the wrapper boundary audit. Traces the wrapper's whole host call chain (local
// helpers it calls, their default arguments and decorators, and the module-level values
// they read; never the kernel or VF bodies) and enumerates every torch call, tensor
// attribute, subscript, method and operator. Only the allowlist of
// fixtures/kb/constraints/wrapper-boundary.md passes: argument checks, the metadata
// shape/ndim/dim()/size()/stride()/dtype/device/layout/numel()/storage_offset(), Python
// integers derived from them, torch.empty for outputs, one launch. Tensor arithmetic on the
// host is reported as cheating, everything else outside the list as
// wrapper_boundary_violation.
#include "check_context.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <functional>
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
// Builtins that read a tensor's data when handed a tensor.
const std::set<std::string> kDataReaders = {"int", "float", "bool", "list", "tuple", "sum",
                                             "min", "max", "abs", "print", "str", "repr",
                                             "sorted", "any", "all", "enumerate", "zip"};

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

class BoundaryAudit {
 public:
  BoundaryAudit(const CheckContext& c, ItemResult* r) : c_(c), f_(*c.file), r_(r) {
    for (const auto* k : f_.Jits()) kernels_.insert(k->name);
    for (const auto* v : f_.Vfs()) kernels_.insert(v->name);
    for (const auto& [name, e] : py::TopLevelAssignments(f_.module)) module_values_[name] = e;
  }

  // The wrapper first (every non-scalar parameter may be a tensor), then each local helper
  // it reaches, with the parameters that receive tensors at its call sites.
  void Run(const std::string& wrapper) {
    queue_.push_back(wrapper);
    for (size_t i = 0; i < queue_.size(); ++i) {
      const FunctionInfo* info = f_.Find(queue_[i]);
      if (!info || kernels_.count(queue_[i])) continue;
      traced_.push_back(queue_[i]);
      AuditFunction(*info, i == 0);
    }
  }
  const std::vector<std::string>& traced() const { return traced_; }
  int torch_empty() const { return torch_empty_; }

 private:
  void Violation(int line, std::string code, std::string_view category, std::string msg) {
    std::string key = absl::StrCat(line, "|", msg);
    if (!reported_.insert(key).second) return;
    AddFinding(&r_->findings, f_, std::move(code), category, line, std::move(msg));
  }

  static std::vector<const py::Arg*> Params(const py::Arguments& a) {
    std::vector<const py::Arg*> params;
    for (const auto& p : a.posonlyargs) params.push_back(&p);
    for (const auto& p : a.args) params.push_back(&p);
    for (const auto& p : a.kwonlyargs) params.push_back(&p);
    return params;
  }

  // A call to a local helper: remember which of its parameters receive tensors.
  void NoteHelperCall(const py::Expr& call, const std::string& name,
                      const std::set<std::string>& tensors) {
    const FunctionInfo* h = f_.Find(name);
    if (!h || kernels_.count(name)) return;
    auto params = Params(*h->def->args);
    auto& tp = helper_tensors_[name];
    for (size_t i = 0; i < call.args.size() && i < params.size(); ++i)
      if (IsTensorExpr(*call.args[i], tensors)) tp.insert(params[i]->arg);
    for (const auto& k : call.keywords)
      if (k.value && IsTensorExpr(*k.value, tensors)) tp.insert(k.arg);
    if (std::find(queue_.begin(), queue_.end(), name) == queue_.end()) queue_.push_back(name);
  }

  void AuditFunction(const FunctionInfo& fi, bool is_wrapper) {
    const py::Stmt& def = *fi.def;
    std::set<std::string> tensors;
    const py::Arguments& a = *def.args;
    std::vector<const py::Arg*> params = Params(a);
    if (!is_wrapper) tensors = helper_tensors_[fi.name];
    size_t first_default = a.posonlyargs.size() + a.args.size() - a.defaults.size();
    for (size_t i = 0; is_wrapper && i < params.size(); ++i) {
      const py::Expr* dflt = nullptr;
      size_t npos = a.posonlyargs.size() + a.args.size();
      if (i < npos && i >= first_default) dflt = a.defaults[i - first_default].get();
      if (i >= npos && i - npos < a.kw_defaults.size()) dflt = a.kw_defaults[i - npos].get();
      if (!IsScalarAnnotation(params[i]->annotation.get()) && !IsScalarDefault(dflt))
        tensors.insert(params[i]->arg);
    }
    if (is_wrapper && a.vararg) tensors.insert(a.vararg->arg);
    // Decorators and default arguments run on the host too.
    for (const auto& d : def.decorator_list) AuditExpr(*d, tensors, "decorator of " + fi.name);
    for (const auto& d : a.defaults) AuditExpr(*d, tensors, "default argument of " + fi.name);
    for (const auto& d : a.kw_defaults)
      if (d) AuditExpr(*d, tensors, "default argument of " + fi.name);
    for (const auto& s : def.body) AuditStmt(*s, tensors, fi.name);
  }

  // Does the expression evaluate to a tensor we track?
  bool IsTensorExpr(const py::Expr& e, const std::set<std::string>& tensors) const {
    if (e.Is(py::ExprKind::kName)) return tensors.count(e.id) > 0;
    if (e.Is(py::ExprKind::kCall) && py::CallName(e) == "torch.empty") return true;
    return false;
  }

  void AuditStmt(const py::Stmt& s, std::set<std::string>& tensors, const std::string& fn) {
    switch (s.kind) {
      case py::StmtKind::kAssign:
        if (s.value) AuditExpr(*s.value, tensors, fn);
        for (const auto& t : s.targets) {
          if (t->Is(py::ExprKind::kSubscript) && t->value_expr && IsTensorExpr(*t->value_expr, tensors))
            Violation(s.span.line, "SC-WRAPPER-BOUNDARY", cat::kWrapperBoundary,
                      "writes into a tensor on the host (subscript assignment)");
          if (t->Is(py::ExprKind::kName) && s.value && IsTensorExpr(*s.value, tensors))
            tensors.insert(t->id);
        }
        return;
      case py::StmtKind::kAugAssign:
        if (s.value) AuditExpr(*s.value, tensors, fn);
        if (s.target && IsTensorExpr(*s.target, tensors))
          Violation(s.span.line, "SC-HOST-COMPUTE", cat::kCheating,
                    absl::StrCat("host arithmetic on tensor `", s.target->id, "` in ", fn));
        return;
      case py::StmtKind::kFor:
        if (s.iter) AuditExpr(*s.iter, tensors, fn);
        if (s.iter && s.target && s.target->Is(py::ExprKind::kName) && IsTensorExpr(*s.iter, tensors))
          tensors.insert(s.target->id);  // elements of a TensorList
        break;
      default:
        for (const py::Expr* e : {s.value.get(), s.test.get(), s.msg.get(), s.exc.get(),
                                  s.cause.get(), s.iter.get()})
          if (e) AuditExpr(*e, tensors, fn);
        for (const auto& w : s.items)
          if (w.context_expr) AuditExpr(*w.context_expr, tensors, fn);
        break;
    }
    for (const auto& b : s.body) AuditStmt(*b, tensors, fn);
    for (const auto& b : s.orelse) AuditStmt(*b, tensors, fn);
    for (const auto& h : s.handlers)
      for (const auto& b : h.body) AuditStmt(*b, tensors, fn);
    for (const auto& b : s.finalbody) AuditStmt(*b, tensors, fn);
  }

  void AuditExpr(const py::Expr& root, const std::set<std::string>& tensors, const std::string& fn) {
    struct V : py::AstVisitor {
      BoundaryAudit* self;
      const std::set<std::string>* tensors;
      const std::string* fn;
      std::set<const py::Expr*> callee_attrs;
      bool EnterExpr(const py::Expr& e) override { return self->Visit(e, *tensors, *fn, &callee_attrs); }
    } v;
    v.self = this;
    v.tensors = &tensors;
    v.fn = &fn;
    py::Walk(root, v);
  }

  bool Visit(const py::Expr& e, const std::set<std::string>& tensors, const std::string& fn,
             std::set<const py::Expr*>* callee_attrs) {
    const int line = e.span.line;
    switch (e.kind) {
      case py::ExprKind::kCall: {
        std::string name = py::CallName(e);
        const py::Expr* func = e.func.get();
        if (func && func->Is(py::ExprKind::kAttribute)) callee_attrs->insert(func);
        if (func && func->Is(py::ExprKind::kSubscript) && func->value_expr &&
            py::DottedName(*func->value_expr) && kernels_.count(*py::DottedName(*func->value_expr)))
          return true;  // the launch
        if (name == "torch.empty") {
          ++torch_empty_;
          return true;
        }
        if (name.rfind("torch.", 0) == 0 || name.rfind("torch_npu.", 0) == 0 ||
            name.rfind("F.", 0) == 0 || name.rfind("np.", 0) == 0 || name.rfind("numpy.", 0) == 0) {
          Violation(line, "SC-WRAPPER-BOUNDARY", cat::kWrapperBoundary,
                    absl::StrCat(name, "() in ", fn, ": torch.empty is the only torch call a wrapper may make"));
          return true;
        }
        // Method on a tensor.
        if (func && func->Is(py::ExprKind::kAttribute) && func->value_expr &&
            IsTensorExpr(*func->value_expr, tensors)) {
          if (!kMetaMethods.count(func->id))
            Violation(line, "SC-WRAPPER-BOUNDARY", cat::kWrapperBoundary,
                      absl::StrCat(".", func->id, "() on a tensor in ", fn,
                                   ": only dim()/size()/stride()/numel()/storage_offset() may be called"));
          return true;
        }
        // A plain function: local helpers are traced separately; builtins are allowed
        // unless they read tensor data; anything else handed a tensor cannot be proven.
        bool tensor_arg = false;
        for (const auto& a : e.args)
          if (IsTensorExpr(*a, tensors)) tensor_arg = true;
        for (const auto& k : e.keywords)
          if (k.value && IsTensorExpr(*k.value, tensors)) tensor_arg = true;
        if (!name.empty() && f_.Find(name)) {
          NoteHelperCall(e, name, tensors);
          return true;
        }
        if (kernels_.count(name)) return true;
        if (tensor_arg) {
          if (kSafeBuiltins.count(name) && !kDataReaders.count(name)) return true;
          Violation(line, "SC-WRAPPER-BOUNDARY", cat::kWrapperBoundary,
                    absl::StrCat(name.empty() ? "a call" : name + "()", " receives a tensor in ", fn,
                                 ": not provably metadata-only"));
        }
        return true;
      }
      case py::ExprKind::kAttribute: {
        if (callee_attrs->count(&e)) return true;
        if (e.value_expr && IsTensorExpr(*e.value_expr, tensors) && !kMetaAttrs.count(e.id))
          Violation(line, "SC-WRAPPER-BOUNDARY", cat::kWrapperBoundary,
                    absl::StrCat("tensor attribute .", e.id, " in ", fn,
                                 ": only shape/ndim/dtype/device/layout may be read"));
        return true;
      }
      case py::ExprKind::kSubscript:
        if (e.value_expr && IsTensorExpr(*e.value_expr, tensors))
          Violation(line, "SC-WRAPPER-BOUNDARY", cat::kWrapperBoundary,
                    absl::StrCat("indexes or slices tensor `", e.value_expr->id, "` in ", fn,
                                 ": slicing dispatches a device op"));
        return true;
      case py::ExprKind::kBinOp:
        if ((e.left && IsTensorExpr(*e.left, tensors)) || (e.right && IsTensorExpr(*e.right, tensors)))
          Violation(line, "SC-HOST-COMPUTE", cat::kCheating,
                    absl::StrCat("host arithmetic `", std::string(py::OpText(e.op)), "` on a tensor in ", fn));
        return true;
      case py::ExprKind::kUnaryOp:
        if (e.op != py::Op::kNot && e.operand && IsTensorExpr(*e.operand, tensors))
          Violation(line, "SC-HOST-COMPUTE", cat::kCheating,
                    absl::StrCat("host arithmetic `", std::string(py::OpText(e.op)), "` on a tensor in ", fn));
        return true;
      case py::ExprKind::kCompare: {
        std::vector<const py::Expr*> operands{e.left.get()};
        for (const auto& x : e.elts) operands.push_back(x.get());
        bool identity = std::all_of(e.ops.begin(), e.ops.end(), [](py::Op o) {
          return o == py::Op::kIs || o == py::Op::kIsNot;
        });
        if (!identity)
          for (const auto* o : operands)
            if (o && IsTensorExpr(*o, tensors))
              Violation(line, "SC-HOST-COMPUTE", cat::kCheating,
                        absl::StrCat("compares tensor values on the host in ", fn));
        return true;
      }
      case py::ExprKind::kFormattedValue:
        if (e.value_expr && IsTensorExpr(*e.value_expr, tensors))
          Violation(line, "SC-WRAPPER-BOUNDARY", cat::kWrapperBoundary,
                    absl::StrCat("formats tensor values into a string in ", fn));
        return true;
      case py::ExprKind::kName: {
        // Module-level values the chain reads are host code too.
        auto it = module_values_.find(e.id);
        if (it != module_values_.end() && audited_globals_.insert(e.id).second)
          AuditGlobal(e.id, *it->second, fn);
        return true;
      }
      default:
        return true;
    }
  }

  void AuditGlobal(const std::string& name, const py::Expr& value, const std::string& fn) {
    std::set<std::string> none;
    std::string where = absl::StrCat("module-level `", name, "` read by ", fn);
    struct V : py::AstVisitor {
      BoundaryAudit* self;
      std::string where;
      bool EnterExpr(const py::Expr& e) override {
        if (e.Is(py::ExprKind::kCall)) {
          std::string n = py::CallName(e);
          if (n.rfind("torch.", 0) == 0 && n != "torch.empty")
            self->Violation(e.span.line, "SC-WRAPPER-BOUNDARY", cat::kWrapperBoundary,
                            absl::StrCat(n, "() in ", where));
        }
        return true;
      }
    } v;
    v.self = this;
    v.where = where;
    py::Walk(value, v);
  }

  const CheckContext& c_;
  const KernelFile& f_;
  ItemResult* r_;
  std::set<std::string> kernels_;
  std::map<std::string, const py::Expr*> module_values_;
  std::set<std::string> audited_globals_;
  std::set<std::string> reported_;
  std::vector<std::string> traced_;
  std::vector<std::string> queue_;
  std::map<std::string, std::set<std::string>> helper_tensors_;
  int torch_empty_ = 0;
};

}  // namespace

ItemResult CheckWrapperBoundary(const CheckContext& c) {
  ItemResult r;
  const KernelFile& f = *c.file;
  if (!f.Find(c.wrapper)) {
    r.status = ItemStatus::kBlocked;
    r.category = std::string(cat::kSignatureMismatch);
    r.evidence = absl::StrCat("no ", c.wrapper, " to audit");
    return r;
  }
  BoundaryAudit audit(c, &r);
  audit.Run(c.wrapper);
  r.evidence = absl::StrCat("host chain: ", absl::StrJoin(audit.traced(), ", "), "; ",
                            audit.torch_empty(), " torch.empty call(s)");
  Conclude(&r);
  return r;
}

}  // namespace opdev::selfcheck
