// Integer constant folding of kernel/DESIGN module constants.
#include "opdev/budget/const_eval.h"

#include <limits>

namespace opdev::budget {
namespace {

using I = std::int64_t;

std::optional<I> FloorDiv(I a, I b) {
  if (b == 0) return std::nullopt;
  if (a == std::numeric_limits<I>::min() && b == -1) return std::nullopt;
  I q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::optional<I> FloorMod(I a, I b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return 0;
  I r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

}  // namespace

std::optional<I> EvalInt(const py::Expr& e, const ConstEnv& env) {
  using py::ExprKind;
  using py::Op;
  switch (e.kind) {
    case ExprKind::kConstant:
      if (e.const_kind == py::ConstKind::kTrue) return 1;
      if (e.const_kind == py::ConstKind::kFalse) return 0;
      return py::IntValue(e);
    case ExprKind::kName: {
      auto it = env.find(e.id);
      if (it == env.end()) return std::nullopt;
      return it->second;
    }
    case ExprKind::kUnaryOp: {
      if (!e.operand) return std::nullopt;
      auto v = EvalInt(*e.operand, env);
      if (!v) return std::nullopt;
      if (e.op == Op::kUSub) {
        if (*v == std::numeric_limits<I>::min()) return std::nullopt;
        return -*v;
      }
      if (e.op == Op::kUAdd) return v;
      if (e.op == Op::kInvert) return ~*v;
      return std::nullopt;
    }
    case ExprKind::kBinOp: {
      if (!e.left || !e.right) return std::nullopt;
      auto a = EvalInt(*e.left, env);
      auto b = EvalInt(*e.right, env);
      if (!a || !b) return std::nullopt;
      I r = 0;
      switch (e.op) {
        case Op::kAdd:
          if (__builtin_add_overflow(*a, *b, &r)) return std::nullopt;
          return r;
        case Op::kSub:
          if (__builtin_sub_overflow(*a, *b, &r)) return std::nullopt;
          return r;
        case Op::kMult:
          if (__builtin_mul_overflow(*a, *b, &r)) return std::nullopt;
          return r;
        case Op::kFloorDiv: return FloorDiv(*a, *b);
        case Op::kMod: return FloorMod(*a, *b);
        case Op::kLShift:
          if (*b < 0 || *b > 62 || *a < 0 || (*a >> (62 - *b)) != 0) return std::nullopt;
          return *a << *b;
        case Op::kRShift:
          if (*b < 0) return std::nullopt;
          return *b > 63 ? (*a < 0 ? -1 : 0) : (*a >> *b);
        case Op::kBitAnd: return *a & *b;
        case Op::kBitOr: return *a | *b;
        case Op::kBitXor: return *a ^ *b;
        case Op::kPow: {
          if (*b < 0 || *b > 64) return std::nullopt;
          I acc = 1;
          for (I i = 0; i < *b; ++i)
            if (__builtin_mul_overflow(acc, *a, &acc)) return std::nullopt;
          return acc;
        }
        default: return std::nullopt;
      }
    }
    default: return std::nullopt;
  }
}

ConstEnv FoldModuleConstants(const py::Module& m) {
  ConstEnv env;
  for (const auto& [name, expr] : py::TopLevelAssignments(m)) {
    auto v = expr ? EvalInt(*expr, env) : std::nullopt;
    if (v)
      env[name] = *v;
    else
      env.erase(name);
  }
  return env;
}

}  // namespace opdev::budget
