// The self-check's evaluator of host-side Python expressions (see py_eval.h).
#include "py_eval.h"

#include "opdev/budget/const_eval.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <cmath>
#include <limits>

namespace opdev::selfcheck {
namespace {

using K = PyVal::Kind;

bool Add(std::int64_t a, std::int64_t b, std::int64_t* r) { return !__builtin_add_overflow(a, b, r); }
bool Sub(std::int64_t a, std::int64_t b, std::int64_t* r) { return !__builtin_sub_overflow(a, b, r); }
bool Mul(std::int64_t a, std::int64_t b, std::int64_t* r) { return !__builtin_mul_overflow(a, b, r); }

std::optional<double> Num(const PyVal& v) {
  if (v.kind == K::kInt) return static_cast<double>(v.i);
  if (v.kind == K::kFloat) return v.f;
  if (v.kind == K::kBool) return v.b ? 1.0 : 0.0;
  return std::nullopt;
}

PyVal IntOp(py::Op op, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  switch (op) {
    case py::Op::kAdd: return Add(a, b, &r) ? PyVal::Int(r) : PyVal{};
    case py::Op::kSub: return Sub(a, b, &r) ? PyVal::Int(r) : PyVal{};
    case py::Op::kMult: return Mul(a, b, &r) ? PyVal::Int(r) : PyVal{};
    case py::Op::kFloorDiv:
    case py::Op::kMod: {
      if (b == 0 || (a == std::numeric_limits<std::int64_t>::min() && b == -1)) return {};
      std::int64_t q = a / b, m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) {
        --q;
        m += b;
      }
      return PyVal::Int(op == py::Op::kMod ? m : q);
    }
    case py::Op::kPow: {
      if (b < 0 || b > 62) return {};
      std::int64_t acc = 1;
      for (std::int64_t k = 0; k < b; ++k)
        if (!Mul(acc, a, &acc)) return {};
      return PyVal::Int(acc);
    }
    case py::Op::kBitAnd: return PyVal::Int(a & b);
    case py::Op::kBitOr: return PyVal::Int(a | b);
    case py::Op::kBitXor: return PyVal::Int(a ^ b);
    case py::Op::kLShift: return b >= 0 && b < 62 && a >= 0 && a <= (INT64_MAX >> b) ? PyVal::Int(a << b) : PyVal{};
    case py::Op::kRShift: return b >= 0 ? PyVal::Int(b >= 63 ? (a < 0 ? -1 : 0) : a >> b) : PyVal{};
    default: return {};
  }
}

std::optional<bool> Equal(const PyVal& a, const PyVal& b) {
  if (!a.known() || !b.known()) return std::nullopt;
  if (a.kind == K::kNone || b.kind == K::kNone) return a.kind == b.kind;
  if (auto x = Num(a), y = Num(b); x && y) return *x == *y;
  if (a.kind == K::kStr && b.kind == K::kStr) return a.s == b.s;
  if (a.kind == K::kDtype && b.kind == K::kDtype) return a.s == b.s;
  if (a.kind == K::kSeq && b.kind == K::kSeq) {
    if (a.items.size() != b.items.size()) return false;
    for (size_t i = 0; i < a.items.size(); ++i) {
      auto e = Equal(a.items[i], b.items[i]);
      if (!e) return std::nullopt;
      if (!*e) return false;
    }
    return true;
  }
  if (a.kind == K::kTensor || b.kind == K::kTensor) return std::nullopt;  // elementwise
  return false;
}

std::optional<bool> CompareOne(py::Op op, const PyVal& a, const PyVal& b) {
  switch (op) {
    case py::Op::kEq: return Equal(a, b);
    case py::Op::kNotEq: {
      auto e = Equal(a, b);
      return e ? std::optional<bool>(!*e) : std::nullopt;
    }
    case py::Op::kIs:
    case py::Op::kIsNot: {
      if (!a.known() || !b.known()) return std::nullopt;
      bool same = (a.kind == K::kNone && b.kind == K::kNone) ||
                  (a.kind == K::kDtype && b.kind == K::kDtype && a.s == b.s) ||
                  (a.kind == K::kBool && b.kind == K::kBool && a.b == b.b);
      if (a.kind != K::kNone && b.kind != K::kNone && !(a.kind == K::kDtype && b.kind == K::kDtype) &&
          a.kind != K::kBool)
        return std::nullopt;
      return op == py::Op::kIs ? same : !same;
    }
    case py::Op::kIn:
    case py::Op::kNotIn: {
      if (b.kind != K::kSeq) return std::nullopt;
      bool found = false;
      for (const auto& x : b.items) {
        auto e = Equal(a, x);
        if (!e) return std::nullopt;
        if (*e) found = true;
      }
      return op == py::Op::kIn ? found : !found;
    }
    default: {
      auto x = Num(a), y = Num(b);
      if (!x || !y) return std::nullopt;
      switch (op) {
        case py::Op::kLt: return *x < *y;
        case py::Op::kLtE: return *x <= *y;
        case py::Op::kGt: return *x > *y;
        case py::Op::kGtE: return *x >= *y;
        default: return std::nullopt;
      }
    }
  }
}

PyVal Seq(std::vector<PyVal> items) {
  PyVal v;
  v.kind = K::kSeq;
  v.items = std::move(items);
  return v;
}

PyVal ShapeOf(const PyVal& t) {
  std::vector<PyVal> d;
  for (auto x : t.shape) d.push_back(PyVal::Int(x));
  return Seq(std::move(d));
}

PyVal Index(const PyVal& seq, const PyVal& idx) {
  if (seq.kind != K::kSeq || idx.kind != K::kInt) return {};
  std::int64_t n = static_cast<std::int64_t>(seq.items.size());
  std::int64_t i = idx.i < 0 ? idx.i + n : idx.i;
  if (i < 0 || i >= n) return {};
  return seq.items[static_cast<size_t>(i)];
}

}  // namespace

std::optional<bool> PyVal::Truth() const {
  switch (kind) {
    case K::kNone: return false;
    case K::kInt: return i != 0;
    case K::kFloat: return f != 0;
    case K::kBool: return b;
    case K::kStr: return !s.empty();
    case K::kSeq: return !items.empty();
    case K::kDtype: return true;
    default: return std::nullopt;
  }
}

std::optional<std::vector<std::int64_t>> PyVal::Ints() const {
  if (kind != K::kSeq) return std::nullopt;
  std::vector<std::int64_t> out;
  for (const auto& x : items) {
    if (x.kind != K::kInt) return std::nullopt;
    out.push_back(x.i);
  }
  return out;
}

std::string PyVal::ToText() const {
  switch (kind) {
    case K::kNone: return "None";
    case K::kInt: return std::to_string(i);
    case K::kFloat: return absl::StrCat(f);
    case K::kBool: return b ? "True" : "False";
    case K::kStr: return absl::StrCat("'", s, "'");
    case K::kDtype: return "torch." + s;
    case K::kSeq: {
      std::vector<std::string> p;
      for (const auto& x : items) p.push_back(x.ToText());
      return absl::StrCat("[", absl::StrJoin(p, ", "), "]");
    }
    case K::kTensor: return absl::StrCat("tensor[", absl::StrJoin(shape, ", "), "] ", dtype);
    default: return "?";
  }
}

std::string CanonicalDtype(const std::string& spelled) {
  std::string s = spelled;
  for (const char* p : {"torch.", "np.", "numpy."})
    if (s.rfind(p, 0) == 0) s = s.substr(std::string(p).size());
  static const std::map<std::string, std::string> kNames = {
      {"float16", "float16"}, {"half", "float16"},    {"fp16", "float16"},
      {"bfloat16", "bfloat16"}, {"bf16", "bfloat16"}, {"float32", "float32"},
      {"float", "float32"},   {"fp32", "float32"},    {"float64", "float64"},
      {"double", "float64"},  {"int8", "int8"},       {"uint8", "uint8"},
      {"int16", "int16"},     {"short", "int16"},     {"int32", "int32"},
      {"int", "int32"},       {"int64", "int64"},     {"long", "int64"},
      {"bool", "bool"}};
  auto it = kNames.find(s);
  return it == kNames.end() ? "" : it->second;
}

PyVal EvalPy(const py::Expr& e, const PyEnv& env) {
  switch (e.kind) {
    case py::ExprKind::kConstant:
      switch (e.const_kind) {
        case py::ConstKind::kNone: { PyVal v; v.kind = K::kNone; return v; }
        case py::ConstKind::kTrue: return PyVal::Bool(true);
        case py::ConstKind::kFalse: return PyVal::Bool(false);
        case py::ConstKind::kInt: {
          if (auto i = py::IntValue(e)) return PyVal::Int(*i);
          return {};
        }
        case py::ConstKind::kFloat: {
          PyVal v;
          v.kind = K::kFloat;
          v.f = std::strtod(e.value.c_str(), nullptr);
          return v;
        }
        case py::ConstKind::kStr: { PyVal v; v.kind = K::kStr; v.s = e.value; return v; }
        default: return {};
      }
    case py::ExprKind::kName: {
      auto it = env.find(e.id);
      if (it != env.end()) return it->second;
      return {};
    }
    case py::ExprKind::kAttribute: {
      if (auto dn = py::DottedName(e)) {
        auto it = env.find(*dn);
        if (it != env.end()) return it->second;
        if (dn->rfind("torch.", 0) == 0)
          if (auto c = CanonicalDtype(*dn); !c.empty()) return PyVal::Dtype(c);
      }
      if (!e.value_expr) return {};
      PyVal base = EvalPy(*e.value_expr, env);
      if (base.kind == K::kTensor) {
        if (e.id == "shape") return ShapeOf(base);
        if (e.id == "ndim") return PyVal::Int(static_cast<std::int64_t>(base.shape.size()));
        if (e.id == "dtype") return base.dtype.empty() ? PyVal{} : PyVal::Dtype(base.dtype);
        if (e.id == "is_contiguous") return {};
      }
      if (base.kind == K::kDtype && e.id == "is_floating_point")
        return PyVal::Bool(base.s == "float16" || base.s == "bfloat16" || base.s == "float32" || base.s == "float64");
      return {};
    }
    case py::ExprKind::kSubscript: {
      if (!e.value_expr || !e.slice) return {};
      return Index(EvalPy(*e.value_expr, env), EvalPy(*e.slice, env));
    }
    case py::ExprKind::kCall: {
      const py::Expr* func = e.func.get();
      if (!func) return {};
      std::vector<PyVal> args;
      for (const auto& a : e.args) {
        if (a->Is(py::ExprKind::kStarred)) return {};
        args.push_back(EvalPy(*a, env));
      }
      if (func->Is(py::ExprKind::kAttribute) && func->value_expr) {
        PyVal base = EvalPy(*func->value_expr, env);
        if (base.kind == K::kTensor) {
          const std::string& m = func->id;
          if (m == "size" || m == "shape") {
            if (args.empty()) return ShapeOf(base);
            return Index(ShapeOf(base), args[0]);
          }
          if (m == "dim" || m == "ndimension") return PyVal::Int(static_cast<std::int64_t>(base.shape.size()));
          if (m == "numel" || m == "nelement") {
            std::int64_t n = 1;
            for (auto d : base.shape)
              if (!Mul(n, d, &n)) return {};
            return PyVal::Int(n);
          }
          if (m == "is_contiguous") return PyVal::Bool(true);
          if (m == "stride") {  // probe tensors are contiguous (row-major)
            std::vector<PyVal> st(base.shape.size());
            std::int64_t acc = 1;
            for (size_t k = base.shape.size(); k-- > 0;) {
              st[k] = PyVal::Int(acc);
              if (!Mul(acc, base.shape[k], &acc)) return {};
            }
            if (args.empty()) return Seq(std::move(st));
            return Index(Seq(std::move(st)), args[0]);
          }
          return {};
        }
        return {};
      }
      std::string name = py::CallName(e);
      if (name == "len" && args.size() == 1 && args[0].kind == K::kSeq)
        return PyVal::Int(static_cast<std::int64_t>(args[0].items.size()));
      if (name == "len" && args.size() == 1 && args[0].kind == K::kTensor && !args[0].shape.empty())
        return PyVal::Int(args[0].shape[0]);
      if ((name == "min" || name == "max") && !args.empty()) {
        std::vector<PyVal> xs = args.size() == 1 && args[0].kind == K::kSeq ? args[0].items : args;
        if (xs.empty()) return {};
        PyVal best = xs[0];
        for (const auto& x : xs) {
          auto lt = CompareOne(py::Op::kLt, x, best);
          if (!lt) return {};
          if ((name == "min" && *lt) || (name == "max" && !*lt && !*Equal(x, best))) best = x;
        }
        return best;
      }
      if (name == "int" && args.size() == 1) {
        if (args[0].kind == K::kInt) return args[0];
        if (args[0].kind == K::kFloat && std::isfinite(args[0].f)) return PyVal::Int(static_cast<std::int64_t>(args[0].f));
        return {};
      }
      if ((name == "tuple" || name == "list") && args.size() == 1 && args[0].kind == K::kSeq) return args[0];
      if (name == "abs" && args.size() == 1 && args[0].kind == K::kInt) return PyVal::Int(args[0].i < 0 ? -args[0].i : args[0].i);
      return {};
    }
    case py::ExprKind::kTuple:
    case py::ExprKind::kList:
    case py::ExprKind::kSet: {
      std::vector<PyVal> items;
      for (const auto& x : e.elts) items.push_back(EvalPy(*x, env));
      return Seq(std::move(items));
    }
    case py::ExprKind::kUnaryOp: {
      if (!e.operand) return {};
      PyVal v = EvalPy(*e.operand, env);
      if (e.op == py::Op::kNot) {
        auto t = v.Truth();
        return t ? PyVal::Bool(!*t) : PyVal{};
      }
      if (e.op == py::Op::kUSub) {
        if (v.kind == K::kInt && v.i != std::numeric_limits<std::int64_t>::min()) return PyVal::Int(-v.i);
        if (v.kind == K::kFloat) { v.f = -v.f; return v; }
        return {};
      }
      if (e.op == py::Op::kUAdd) return v.kind == K::kInt || v.kind == K::kFloat ? v : PyVal{};
      return {};
    }
    case py::ExprKind::kBinOp: {
      if (!e.left || !e.right) return {};
      PyVal a = EvalPy(*e.left, env), b = EvalPy(*e.right, env);
      if (a.kind == K::kInt && b.kind == K::kInt) return IntOp(e.op, a.i, b.i);
      auto x = Num(a), y = Num(b);
      if (x && y && (a.kind == K::kFloat || b.kind == K::kFloat || e.op == py::Op::kDiv)) {
        PyVal v;
        v.kind = K::kFloat;
        switch (e.op) {
          case py::Op::kAdd: v.f = *x + *y; return v;
          case py::Op::kSub: v.f = *x - *y; return v;
          case py::Op::kMult: v.f = *x * *y; return v;
          case py::Op::kDiv: if (*y == 0) return {}; v.f = *x / *y; return v;
          default: return {};
        }
      }
      if (e.op == py::Op::kMult && ((a.kind == K::kSeq && b.kind == K::kInt) || (a.kind == K::kInt && b.kind == K::kSeq))) {
        const PyVal& seq = a.kind == K::kSeq ? a : b;
        const std::int64_t n = a.kind == K::kInt ? a.i : b.i;
        // Bounded: a literal built by repetition (`[0.5] * N`) is evaluated up to 1 << 16 items.
        if (n < 0 || static_cast<std::uint64_t>(n) * seq.items.size() > (1u << 16)) return {};
        std::vector<PyVal> items;
        for (std::int64_t k = 0; k < n; ++k) items.insert(items.end(), seq.items.begin(), seq.items.end());
        return Seq(std::move(items));
      }
      if (a.kind == K::kSeq && b.kind == K::kSeq && e.op == py::Op::kAdd) {
        std::vector<PyVal> items = a.items;
        items.insert(items.end(), b.items.begin(), b.items.end());
        return Seq(std::move(items));
      }
      return {};
    }
    case py::ExprKind::kBoolOp: {
      // Python's short-circuit: `and` returns the first falsy operand, `or` the first truthy.
      PyVal last;
      for (const auto& x : e.elts) {
        last = EvalPy(*x, env);
        auto t = last.Truth();
        if (!t) return {};
        if (e.op == py::Op::kAnd && !*t) return last;
        if (e.op == py::Op::kOr && *t) return last;
      }
      return last;
    }
    case py::ExprKind::kCompare: {
      if (!e.left) return {};
      PyVal left = EvalPy(*e.left, env);
      bool all = true;
      for (size_t i = 0; i < e.ops.size() && i < e.elts.size(); ++i) {
        PyVal right = EvalPy(*e.elts[i], env);
        auto r = CompareOne(e.ops[i], left, right);
        if (!r) return {};
        if (!*r) all = false;
        left = right;
        if (!all) break;
      }
      return PyVal::Bool(all);
    }
    case py::ExprKind::kIfExp: {
      if (!e.test || !e.body || !e.orelse) return {};
      auto t = EvalPy(*e.test, env).Truth();
      if (!t) return {};
      return EvalPy(*t ? *e.body : *e.orelse, env);
    }
    default:
      return {};
  }
}

void ExecAssign(const py::Stmt& s, PyEnv* env) {
  if (!s.Is(py::StmtKind::kAssign) && !s.Is(py::StmtKind::kAnnAssign)) return;
  if (!s.value) return;
  PyVal v = EvalPy(*s.value, *env);
  std::vector<const py::Expr*> targets;
  for (const auto& t : s.targets) targets.push_back(t.get());
  if (s.target) targets.push_back(s.target.get());
  for (const auto* t : targets) {
    if (t->Is(py::ExprKind::kName)) {
      (*env)[t->id] = v;
    } else if (t->Is(py::ExprKind::kTuple) || t->Is(py::ExprKind::kList)) {
      for (size_t i = 0; i < t->elts.size(); ++i) {
        if (!t->elts[i]->Is(py::ExprKind::kName)) continue;
        (*env)[t->elts[i]->id] = v.kind == K::kSeq && v.items.size() == t->elts.size() ? v.items[i] : PyVal{};
      }
    }
  }
}

PyEnv ModuleConstants(const py::Module& m) {
  PyEnv env;
  for (const auto& [name, value] : budget::FoldModuleConstants(m)) env[name] = PyVal::Int(value);
  return env;
}

}  // namespace opdev::selfcheck
