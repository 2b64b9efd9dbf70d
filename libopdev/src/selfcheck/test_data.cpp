// S4-5 ⑧ (the tests' data match DESIGN §8 and SPEC) and the test side of ⑥ (nothing between
// the wrapper call and the comparison changes the kernel's result). Each DESIGN §8 test is
// traced statement by statement, local helpers inlined with their literal arguments
// (`_run_case([3, 200], "col_tail")`), and every tensor it builds is modelled: shape, dtype
// and value distribution (random with a support, or constant). Then:
//   * the tensors handed to the wrapper have the §8 case's shape and the primary inputs'
//     dtype (module_interfaces.yaml, else SPEC) — SC-TEST-DATA-SHAPE / -DTYPE;
//   * their values are not degenerate (zeros, ones, full, fill_, uninitialised, × 0, literal
//     data) — SC-TEST-DATA-DEGENERATE — and stay inside SPEC's value_range, covering both
//     signs when the range has both — SC-TEST-DATA-RANGE; inputs are not overwritten after
//     they are built — SC-TEST-DATA-MODIFIED;
//   * `_assert_precision` receives the wrapper's own result and the same inputs in the same
//     order — SC-TEST-DATA-SWAPPED;
//   * the result is not changed after the wrapper returns, and no try/except substitutes a
//     golden for it — SC-TEST-POST-WRAPPER / SC-TEST-GOLDEN-FALLBACK.
// Data the tracer cannot follow is a warning (SC-TEST-DATA-UNTRACED), never a pass claim.
#include "semantic_rules.h"

#include "py_eval.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <cmath>
#include <limits>

namespace opdev::selfcheck {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Data {
  enum class Dist { kUnknown, kRandom, kConstant, kUninit };
  Dist dist = Dist::kUnknown;
  std::string origin;                          // "torch.randn", "torch.zeros", ...
  std::optional<std::vector<std::int64_t>> shape;
  std::string dtype;                           // canonical; "" = torch's default
  double lo = -kInf, hi = kInf;                // typical support (normal: mean ± 3σ)
  bool modified = false;                       // overwritten after it was built
  int line = 0;
};

struct WrapperCall {
  int line = 0;
  std::vector<std::string> args;  // argument names ("" for non-names)
  std::string result;             // bound name ("" when not assigned)
};

struct AssertCall {
  int line = 0;
  std::vector<std::string> args;
};

const std::set<std::string> kSameData = {"to", "half", "float", "bfloat16", "double", "npu", "cuda",
                                         "cpu", "contiguous", "clone", "detach", "requires_grad_"};

class Tracer {
 public:
  explicit Tracer(const CheckContext& c) : c_(c), f_(*c.file) {
    consts_ = ModuleConstants(f_.module);
  }

  void TraceTest(const FunctionInfo& t) {
    PyEnv env = consts_;
    fn_stack_ = {t.name};
    Body(t.def->body, &env, 0);
  }

  std::map<std::string, Data> data;
  std::vector<WrapperCall> wrapper_calls;
  std::vector<AssertCall> asserts;
  bool golden_fallback = false;
  int early_return_line = 0;  // a return reached before the wrapper call
  std::vector<std::pair<int, std::string>> post_wrapper;  // (line, what)

 private:
  std::optional<Data> DataOf(const py::Expr& e, const PyEnv& env) {
    if (e.Is(py::ExprKind::kName)) {
      auto it = data.find(e.id);
      if (it != data.end()) return it->second;
      return std::nullopt;
    }
    if (e.Is(py::ExprKind::kBinOp) && e.left && e.right) {
      auto l = DataOf(*e.left, env), r = DataOf(*e.right, env);
      PyVal lv = EvalPy(*e.left, env), rv = EvalPy(*e.right, env);
      auto num = [](const PyVal& v) -> std::optional<double> {
        if (v.kind == PyVal::Kind::kInt) return static_cast<double>(v.i);
        if (v.kind == PyVal::Kind::kFloat) return v.f;
        return std::nullopt;
      };
      if (l && r) {
        Data x = *l;
        x.dist = (l->dist == Data::Dist::kConstant && r->dist == Data::Dist::kConstant) ? Data::Dist::kConstant
                                                                                        : Data::Dist::kRandom;
        x.lo = -kInf;
        x.hi = kInf;
        x.origin = absl::StrCat(l->origin, " ", std::string(py::OpText(e.op)), " ", r->origin);
        return x;
      }
      const Data* t = l ? &*l : r ? &*r : nullptr;
      auto k = l ? num(rv) : num(lv);
      if (!t || !k) return t ? std::optional<Data>(*t) : std::nullopt;
      Data x = *t;
      double a = x.lo, b = x.hi;
      switch (e.op) {
        case py::Op::kAdd: a += *k; b += *k; break;
        case py::Op::kSub:
          if (l) { a -= *k; b -= *k; } else { double na = *k - b, nb = *k - a; a = na; b = nb; }
          break;
        case py::Op::kMult:
          if (*k == 0) { x.dist = Data::Dist::kConstant; a = b = 0; x.origin += " * 0"; break; }
          a *= *k; b *= *k; if (a > b) std::swap(a, b);
          break;
        case py::Op::kDiv:
          if (l && *k != 0) { a /= *k; b /= *k; if (a > b) std::swap(a, b); }
          else { a = -kInf; b = kInf; }
          break;
        default: a = -kInf; b = kInf; break;
      }
      x.lo = std::isnan(a) ? -kInf : a;
      x.hi = std::isnan(b) ? kInf : b;
      return x;
    }
    if (!e.Is(py::ExprKind::kCall) || !e.func) return std::nullopt;
    const py::Expr& func = *e.func;
    // Methods on a tensor expression: .to(...), .half(), .uniform_(a, b), .abs(), ...
    if (func.Is(py::ExprKind::kAttribute) && func.value_expr) {
      auto base = DataOf(*func.value_expr, env);
      if (base) return Method(*base, func.id, e, env);
    }
    std::string name = py::CallName(e);
    if (name.rfind("torch.", 0) != 0) return std::nullopt;
    const std::string fn = name.substr(6);
    Data x;
    x.origin = name;
    x.line = e.span.line;
    if (const py::Expr* dt = py::FindKeyword(e, "dtype")) x.dtype = DtypeOf(*dt, env);
    auto shape_from = [&](size_t first) -> std::optional<std::vector<std::int64_t>> {
      if (const py::Expr* sz = py::FindKeyword(e, "size")) return EvalPy(*sz, env).Ints();
      if (e.args.size() == first + 1) {
        PyVal v = EvalPy(*e.args[first], env);
        if (auto s = v.Ints()) return s;
        if (v.kind == PyVal::Kind::kInt) return std::vector<std::int64_t>{v.i};
        return std::nullopt;
      }
      std::vector<std::int64_t> dims;
      for (size_t i = first; i < e.args.size(); ++i) {
        PyVal v = EvalPy(*e.args[i], env);
        if (v.kind != PyVal::Kind::kInt) return std::nullopt;
        dims.push_back(v.i);
      }
      return dims.empty() ? std::nullopt : std::optional(dims);
    };
    auto like = [&]() -> std::optional<Data> {
      if (e.args.empty()) return std::nullopt;
      return DataOf(*e.args[0], env);
    };
    if (fn == "randn" || fn == "rand" || fn == "empty" || fn == "zeros" || fn == "ones") {
      x.shape = shape_from(0);
      if (fn == "randn") { x.dist = Data::Dist::kRandom; x.lo = -3; x.hi = 3; }
      if (fn == "rand") { x.dist = Data::Dist::kRandom; x.lo = 0; x.hi = 1; }
      if (fn == "empty") x.dist = Data::Dist::kUninit;
      if (fn == "zeros" || fn == "ones") { x.dist = Data::Dist::kConstant; x.lo = x.hi = fn == "ones" ? 1 : 0; }
      return x;
    }
    if (fn == "full") {
      x.shape = e.args.empty() ? std::nullopt : EvalPy(*e.args[0], env).Ints();
      x.dist = Data::Dist::kConstant;
      return x;
    }
    if (fn == "randint") {
      // randint(high, size) / randint(low, high, size)
      std::vector<PyVal> a;
      for (const auto& arg : e.args) a.push_back(EvalPy(*arg, env));
      x.dist = Data::Dist::kRandom;
      if (a.size() >= 2 && a.back().Ints()) {
        x.shape = a.back().Ints();
        double low = a.size() == 3 && a[0].kind == PyVal::Kind::kInt ? static_cast<double>(a[0].i) : 0;
        const PyVal& high = a[a.size() - 2];
        x.lo = low;
        x.hi = high.kind == PyVal::Kind::kInt ? static_cast<double>(high.i - 1) : kInf;
        if (x.lo >= x.hi) x.dist = Data::Dist::kConstant;
      }
      if (x.dtype.empty()) x.dtype = "int64";
      return x;
    }
    if (fn == "normal") {
      x.dist = Data::Dist::kRandom;
      if (const py::Expr* sz = py::FindKeyword(e, "size")) x.shape = EvalPy(*sz, env).Ints();
      else if (e.args.size() >= 3) x.shape = EvalPy(*e.args[2], env).Ints();
      return x;  // torch.normal(mean, std, size): support left unbounded
    }
    if (fn == "zeros_like" || fn == "ones_like" || fn == "full_like" || fn == "empty_like" ||
        fn == "randn_like" || fn == "rand_like") {
      auto b = like();
      if (b) {
        x.shape = b->shape;
        if (x.dtype.empty()) x.dtype = b->dtype;
      }
      if (fn == "randn_like") { x.dist = Data::Dist::kRandom; x.lo = -3; x.hi = 3; }
      else if (fn == "rand_like") { x.dist = Data::Dist::kRandom; x.lo = 0; x.hi = 1; }
      else if (fn == "empty_like") x.dist = Data::Dist::kUninit;
      else x.dist = Data::Dist::kConstant;
      return x;
    }
    if (fn == "tensor" || fn == "as_tensor") {
      // Literal values written in the test are fixed data, not a distribution; anything
      // else (numpy draws, another tensor) is not followed.
      if (e.args.empty() || !EvalPy(*e.args[0], env).known()) return std::nullopt;
      x.dist = Data::Dist::kConstant;
      x.origin = name + " (literal data)";
      return x;
    }
    if (fn == "arange" || fn == "linspace") {
      x.dist = Data::Dist::kConstant;
      x.origin = name + " (a fixed ramp)";
      return x;
    }
    return std::nullopt;
  }

  std::string DtypeOf(const py::Expr& e, const PyEnv& env) {
    PyVal v = EvalPy(e, env);
    if (v.kind == PyVal::Kind::kDtype) return v.s;
    if (auto dn = py::DottedName(e)) return CanonicalDtype(*dn);
    return "?";
  }

  std::optional<Data> Method(Data x, const std::string& m, const py::Expr& call, const PyEnv& env) {
    if (kSameData.count(m)) {
      if (m == "half") x.dtype = "float16";
      if (m == "float") x.dtype = "float32";
      if (m == "bfloat16") x.dtype = "bfloat16";
      if (m == "double") x.dtype = "float64";
      if (m == "to") {
        if (const py::Expr* dt = py::FindKeyword(call, "dtype")) x.dtype = DtypeOf(*dt, env);
        for (const auto& a : call.args) {
          std::string d = DtypeOf(*a, env);
          if (!d.empty() && d != "?") x.dtype = d;
        }
      }
      return x;
    }
    auto num = [&](size_t i) -> std::optional<double> {
      if (i >= call.args.size()) return std::nullopt;
      PyVal v = EvalPy(*call.args[i], env);
      if (v.kind == PyVal::Kind::kInt) return static_cast<double>(v.i);
      if (v.kind == PyVal::Kind::kFloat) return v.f;
      return std::nullopt;
    };
    if (m == "uniform_") {
      x.dist = Data::Dist::kRandom;
      x.origin += ".uniform_()";
      x.lo = num(0).value_or(0);
      x.hi = num(1).value_or(1);
      return x;
    }
    if (m == "normal_" || m == "random_" || m == "bernoulli_" || m == "exponential_") {
      x.dist = Data::Dist::kRandom;
      x.origin += absl::StrCat(".", m, "()");
      x.lo = -kInf;
      x.hi = kInf;
      if (m == "normal_") {
        double mean = num(0).value_or(0), sd = num(1).value_or(1);
        x.lo = mean - 3 * sd;
        x.hi = mean + 3 * sd;
      }
      return x;
    }
    if (m == "zero_" || m == "fill_") {
      x.dist = Data::Dist::kConstant;
      x.origin += absl::StrCat(".", m, "()");
      x.lo = x.hi = m == "zero_" ? 0 : num(0).value_or(0);
      return x;
    }
    if (m == "abs" || m == "abs_") {
      double a = std::fabs(x.lo), b = std::fabs(x.hi);
      x.hi = std::max(a, b);
      x.lo = (x.lo <= 0 && x.hi >= 0) ? 0 : std::min(a, b);
      x.origin += ".abs()";
      return x;
    }
    if (m == "clamp" || m == "clamp_" || m == "clip") {
      if (auto lo = num(0)) x.lo = std::max(x.lo, *lo);
      if (auto hi = num(1)) x.hi = std::min(x.hi, *hi);
      if (x.lo >= x.hi) x.dist = Data::Dist::kConstant;
      x.origin += ".clamp()";
      return x;
    }
    if (m == "reshape" || m == "view") {
      std::vector<std::int64_t> dims;
      if (call.args.size() == 1) {
        if (auto s = EvalPy(*call.args[0], env).Ints()) dims = *s;
      } else {
        for (const auto& a : call.args) {
          PyVal v = EvalPy(*a, env);
          if (v.kind == PyVal::Kind::kInt) dims.push_back(v.i);
        }
      }
      x.shape = dims.empty() ? std::nullopt : std::optional(dims);
      return x;
    }
    // Any other transform of built data (softmax, exp, sort, …) feeds the kernel something
    // other than the drawn distribution: the test changes its own inputs.
    x.dist = x.dist == Data::Dist::kConstant ? x.dist : Data::Dist::kRandom;
    x.lo = -kInf;
    x.hi = kInf;
    x.origin += absl::StrCat(".", m, "()");
    if (m != "contiguous" && m != "flatten" && m != "squeeze" && m != "unsqueeze") x.modified = true;
    return x;
  }

  bool ReachesWrapper(const std::string& fn) const {
    for (const auto& r : Reachable(f_, fn))
      for (const auto* call : f_.CallsIn(r))
        if (call->name == c_.wrapper) return true;
    return false;
  }

  bool IsLocalHelper(const std::string& name) const {
    const FunctionInfo* h = f_.Find(name);
    return h && !h->is_jit && !h->is_vf && !h->is_test && name != c_.wrapper && name != "_assert_precision";
  }

  // Inlines a local helper: parameters bound to the evaluated arguments and to the
  // caller's data.
  std::optional<Data> Inline(const py::Expr& call, const std::string& name, const PyEnv& env, int depth) {
    if (depth > 4) return std::nullopt;
    const FunctionInfo* h = f_.Find(name);
    const py::Arguments& a = *h->def->args;
    std::vector<const py::Arg*> params;
    for (const auto& p : a.posonlyargs) params.push_back(&p);
    for (const auto& p : a.args) params.push_back(&p);
    PyEnv inner = consts_;
    size_t first_default = params.size() - a.defaults.size();
    for (size_t i = first_default; i < params.size(); ++i)
      inner[params[i]->arg] = EvalPy(*a.defaults[i - first_default], consts_);
    auto bind = [&](const std::string& p, const py::Expr& v) {
      inner[p] = EvalPy(v, env);
      if (auto dv = DataOf(v, env)) data[p] = *dv;
      if (v.Is(py::ExprKind::kName)) renames_[p] = Resolve(v.id);
    };
    for (size_t i = 0; i < call.args.size() && i < params.size(); ++i) bind(params[i]->arg, *call.args[i]);
    for (const auto& k : call.keywords)
      if (k.value && !k.arg.empty()) bind(k.arg, *k.value);
    returned_.reset();
    fn_stack_.push_back(name);
    Body(h->def->body, &inner, depth + 1);
    fn_stack_.pop_back();
    stop_ = false;  // the helper's return ends the helper, not the caller
    return returned_;
  }

  std::string Resolve(const std::string& n) const {
    auto it = renames_.find(n);
    return it == renames_.end() ? n : it->second;
  }

  std::vector<std::string> ArgNames(const py::Expr& call) const {
    std::vector<std::string> out;
    for (const auto& a : call.args) out.push_back(a->Is(py::ExprKind::kName) ? Resolve(a->id) : "");
    return out;
  }

  void Call(const py::Expr& call, const std::string& target, PyEnv* env, int depth) {
    std::string name = py::CallName(call);
    if (name == c_.wrapper) {
      WrapperCall w;
      w.line = call.span.line;
      w.args = ArgNames(call);
      w.result = target;
      wrapper_calls.push_back(w);
      wrapper_result_ = target;
      return;
    }
    if (name == "_assert_precision") {
      AssertCall a;
      a.line = call.span.line;
      a.args = ArgNames(call);
      asserts.push_back(a);
      return;
    }
    if (IsLocalHelper(name)) {
      auto r = Inline(call, name, *env, depth);
      if (!target.empty() && r) data[target] = *r;
      return;
    }
    // In-place methods on data: x.zero_(), x.uniform_(-1, 1), y.mul_(2) after the wrapper.
    if (call.func && call.func->Is(py::ExprKind::kAttribute) && call.func->value_expr &&
        call.func->value_expr->Is(py::ExprKind::kName)) {
      const std::string& obj = call.func->value_expr->id;
      const std::string& m = call.func->id;
      if (!wrapper_result_.empty() && obj == wrapper_result_ && m.size() > 1 && m.back() == '_')
        post_wrapper.push_back({call.span.line, absl::StrCat(".", m, "() on the wrapper's result")});
      auto it = data.find(obj);
      if (it != data.end() && m.size() > 1 && m.back() == '_' && m != "requires_grad_") {
        if (auto nd = Method(it->second, m, call, *env)) {
          nd->modified = it->second.dist != Data::Dist::kUninit && it->second.dist != Data::Dist::kUnknown &&
                         m != "uniform_" && m != "normal_";
          nd->line = it->second.line;
          it->second = *nd;
        }
      }
    }
  }

  void Body(const std::vector<py::StmtPtr>& body, PyEnv* env, int depth) {
    for (const auto& s : body) {
      if (stop_) return;
      Stmt(*s, env, depth);
    }
  }

  bool Mentions(const py::Expr& e, const std::string& name) const {
    if (name.empty()) return false;
    bool hit = false;
    struct V : py::AstVisitor {
      const std::string* n;
      bool* hit;
      bool EnterExpr(const py::Expr& x) override {
        if (x.Is(py::ExprKind::kName) && x.id == *n) *hit = true;
        return !*hit;
      }
    } v;
    v.n = &name;
    v.hit = &hit;
    py::Walk(e, v);
    return hit;
  }

  void Stmt(const py::Stmt& s, PyEnv* env, int depth) {
    switch (s.kind) {
      case py::StmtKind::kAssign:
      case py::StmtKind::kAnnAssign: {
        if (!s.value) return;
        std::string target;
        const py::Expr* t0 = s.targets.empty() ? s.target.get() : s.targets[0].get();
        if (t0 && t0->Is(py::ExprKind::kName)) target = t0->id;
        if (t0 && t0->Is(py::ExprKind::kSubscript) && t0->value_expr && t0->value_expr->Is(py::ExprKind::kName)) {
          const std::string& obj = t0->value_expr->id;
          if (obj == wrapper_result_ && !obj.empty())
            post_wrapper.push_back({s.span.line, "writes into the wrapper's result"});
          if (auto it = data.find(obj); it != data.end()) {
            it->second.modified = true;
            if (!modified_line_.count(obj)) modified_line_[obj] = s.span.line;
          }
          return;
        }
        // Reassigning the wrapper's result after the call.
        if (!target.empty() && target == wrapper_result_ && !(s.value->Is(py::ExprKind::kCall) &&
                                                               py::CallName(*s.value) == c_.wrapper)) {
          post_wrapper.push_back({s.span.line, Mentions(*s.value, target)
                                                   ? "transforms the wrapper's result before the comparison"
                                                   : "replaces the wrapper's result before the comparison"});
          return;
        }
        if (s.value->Is(py::ExprKind::kCall)) {
          std::string name = py::CallName(*s.value);
          if (name == c_.wrapper || name == "_assert_precision" || IsLocalHelper(name)) {
            Call(*s.value, target, env, depth);
            ExecAssign(s, env);
            return;
          }
        }
        if (!target.empty()) {
          if (auto dv = DataOf(*s.value, *env)) {
            data[target] = *dv;
            renames_.erase(target);
          }
        }
        ExecAssign(s, env);
        return;
      }
      case py::StmtKind::kExpr:
        if (s.value && s.value->Is(py::ExprKind::kCall)) Call(*s.value, "", env, depth);
        return;
      case py::StmtKind::kReturn:
        if (s.value) returned_ = DataOf(*s.value, *env);
        // A return reached before the wrapper ran drops the case (⑦ in the tests).
        // Only in a function on the way to the wrapper call (a data helper's return is not).
        if (wrapper_calls.empty() && !early_return_line && ReachesWrapper(fn_stack_.back()))
          early_return_line = s.span.line;
        stop_ = true;
        return;
      case py::StmtKind::kTry: {
        size_t before = wrapper_calls.size();
        Body(s.body, env, depth);
        if (wrapper_calls.size() > before)
          for (const auto& h : s.handlers)
            for (const auto& b : h.body) {
              bool assigns_result = false;
              for (const auto& t : b->targets)
                if (t->Is(py::ExprKind::kName) && t->id == wrapper_calls.back().result) assigns_result = true;
              if (assigns_result || b->Is(py::StmtKind::kPass)) golden_fallback = true;
            }
        Body(s.finalbody, env, depth);
        return;
      }
      case py::StmtKind::kIf: {
        // A decidable condition (`if dtype.is_floating_point:`) takes one branch only.
        std::optional<bool> t = s.test ? EvalPy(*s.test, *env).Truth() : std::nullopt;
        if (!t || *t) Body(s.body, env, depth);
        if (!t || !*t) Body(s.orelse, env, depth);
        return;
      }
      default:
        Body(s.body, env, depth);
        Body(s.orelse, env, depth);
        return;
    }
  }

  const CheckContext& c_;
  const KernelFile& f_;
  PyEnv consts_;
  std::string wrapper_result_;
  std::map<std::string, std::string> renames_;  // helper parameter -> caller's name
  std::optional<Data> returned_;
  bool stop_ = false;
  std::vector<std::string> fn_stack_;  // the test, then the helpers being inlined

 public:
  std::map<std::string, int> modified_line_;
  std::string Name(const std::string& n) const { return Resolve(n); }
};

std::string Interval(double lo, double hi) {
  auto t = [](double v) { return std::isinf(v) ? std::string(v < 0 ? "-inf" : "inf") : absl::StrCat(v); };
  return absl::StrCat("[", t(lo), ", ", t(hi), "]");
}

}  // namespace

Diagnostics CheckTestData(const CheckContext& c, std::string* evidence) {
  Diagnostics d;
  const KernelFile& f = *c.file;
  if (!c.design) {
    *evidence = "⑧: DESIGN.md missing";
    return d;
  }
  // Expected dtype of each wrapper input: module_interfaces primary_inputs, else SPEC.
  std::vector<std::string> want_dtype;
  std::vector<std::optional<std::pair<double, double>>> value_range;
  if (c.mi)
    for (const auto& p : c.mi->primary_inputs) want_dtype.push_back(CanonicalDtype(p.dtype));
  if (c.spec) {
    for (size_t i = 0; i < c.spec->inputs.size(); ++i) {
      if (i >= want_dtype.size()) want_dtype.push_back(CanonicalDtype(c.spec->inputs[i].dtype_text));
      value_range.push_back(c.spec->inputs[i].value_range);
    }
  }
  int traced = 0, untraced = 0;
  for (const auto& tc : c.design->TestCases()) {
    const FunctionInfo* t = f.Find(tc.name);
    if (!t) continue;  // S4-10 reports it
    Tracer tr(c);
    tr.TraceTest(*t);
    if (tr.early_return_line)
      AddFinding(&d, f, "SC-RANGE-NARROWED", cat::kCheating, tr.early_return_line,
                 absl::StrCat(tc.name, " returns before calling ", c.wrapper,
                              " for its DESIGN §8 shape: the case never runs (the tests narrow the range)"));
    if (tr.wrapper_calls.empty()) continue;  // S4-12 reports a test that never calls it
    const WrapperCall& w = tr.wrapper_calls.front();
    bool all_traced = true;
    for (size_t i = 0; i < w.args.size(); ++i) {
      const std::string& n = w.args[i];
      auto it = n.empty() ? tr.data.end() : tr.data.find(n);
      if (it == tr.data.end() || it->second.dist == Data::Dist::kUnknown) {
        all_traced = false;
        d.Warning("SC-TEST-DATA-UNTRACED", cat::kCheating, f.rel, w.line,
                  absl::StrCat(tc.name, ": argument ", i + 1, " of ", c.wrapper,
                               " could not be traced to a tensor constructor; its data is not checked"));
        continue;
      }
      const Data& x = it->second;
      const int line = x.line > 0 ? x.line : w.line;
      if (i == 0 && x.shape && !tc.shape.empty() && *x.shape != tc.shape)
        AddFinding(&d, f, "SC-TEST-DATA-SHAPE", cat::kCheating, line,
                   absl::StrCat(tc.name, " builds its input with shape [", absl::StrJoin(*x.shape, ", "),
                                "], but DESIGN §8 (DESIGN.md line ", tc.line, ") fixes [",
                                absl::StrJoin(tc.shape, ", "), "]"));
      if (i < want_dtype.size() && !want_dtype[i].empty()) {
        const std::string got = x.dtype.empty() ? "float32" : x.dtype;  // torch's default dtype
        if (got != want_dtype[i])
          AddFinding(&d, f, "SC-TEST-DATA-DTYPE", cat::kCheating, line,
                     absl::StrCat(tc.name, " feeds ", got, " data as input ", i + 1, "; the contract's dtype is ",
                                  want_dtype[i]));
      }
      if (x.dist == Data::Dist::kConstant || x.dist == Data::Dist::kUninit)
        AddFinding(&d, f, "SC-TEST-DATA-DEGENERATE", cat::kCheating, line,
                   absl::StrCat(tc.name, " feeds degenerate data (", x.origin,
                                x.dist == Data::Dist::kUninit ? ", uninitialised" : ", constant values",
                                "): the test data must follow the value distribution of SPEC/DESIGN §8"));
      else if (x.modified)
        AddFinding(&d, f, "SC-TEST-DATA-MODIFIED", cat::kCheating,
                   tr.modified_line_.count(n) ? tr.modified_line_.at(n) : line,
                   absl::StrCat(tc.name, " overwrites its input data after building it"));
      else if (i < value_range.size() && value_range[i] && x.dist == Data::Dist::kRandom) {
        const auto [vlo, vhi] = *value_range[i];
        const double slack = 1e-9 * std::max(1.0, std::fabs(vhi - vlo));
        if (x.lo < vlo - slack || x.hi > vhi + slack)
          AddFinding(&d, f, "SC-TEST-DATA-RANGE", cat::kCheating, line,
                     absl::StrCat(tc.name, ": typical input values ", Interval(x.lo, x.hi), " (", x.origin,
                                  ") leave SPEC's value_range ", Interval(vlo, vhi)));
        else if (vlo < 0 && vhi > 0 && (x.lo >= 0 || x.hi <= 0))
          AddFinding(&d, f, "SC-TEST-DATA-RANGE", cat::kCheating, line,
                     absl::StrCat(tc.name, ": input values ", Interval(x.lo, x.hi), " (", x.origin,
                                  ") cover one sign only of SPEC's value_range ", Interval(vlo, vhi)));
      }
    }
    all_traced ? ++traced : ++untraced;
    // The comparison gets the wrapper's result and the wrapper's inputs.
    if (!tr.asserts.empty()) {
      const AssertCall& a = tr.asserts.front();
      std::vector<std::string> want = {w.result};
      want.insert(want.end(), w.args.begin(), w.args.end());
      bool same = a.args.size() == want.size();
      for (size_t i = 0; same && i < want.size(); ++i) same = !want[i].empty() && a.args[i] == want[i];
      if (!same)
        AddFinding(&d, f, "SC-TEST-DATA-SWAPPED", cat::kCheating, a.line,
                   absl::StrCat(tc.name, " compares (", absl::StrJoin(a.args, ", "), ") but ran ", c.wrapper, "(",
                                absl::StrJoin(w.args, ", "), ") -> ", w.result.empty() ? "<unbound>" : w.result,
                                ": _assert_precision must get the wrapper's result and the same inputs"));
    }
    for (const auto& [line, what] : tr.post_wrapper)
      AddFinding(&d, f, "SC-TEST-POST-WRAPPER", cat::kCheating, line,
                 absl::StrCat(tc.name, " ", what, ": the kernel must produce the final result"));
    if (tr.golden_fallback)
      AddFinding(&d, f, "SC-TEST-GOLDEN-FALLBACK", cat::kCheating, w.line,
                 absl::StrCat(tc.name, " catches a failure of ", c.wrapper,
                              " and carries on (golden fallback masking): a crash must fail the test"));
  }
  *evidence = absl::StrCat("⑧: ", traced, " §8 test(s) traced to their data", untraced ? absl::StrCat(", ", untraced, " not fully traceable") : "");
  return d;
}

}  // namespace opdev::selfcheck
