// AST support: operator and kind names, the generic walk, the helpers consumers use
// (dotted names, top-level defs, literal values), and equality.
#include "opdev/pyfront/ast.h"

#include "pyfront/literals.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace opdev::py {

std::string_view OpText(Op op) {
  switch (op) {
    case Op::kAdd: return "+";
    case Op::kSub: return "-";
    case Op::kMult: return "*";
    case Op::kMatMult: return "@";
    case Op::kDiv: return "/";
    case Op::kMod: return "%";
    case Op::kPow: return "**";
    case Op::kLShift: return "<<";
    case Op::kRShift: return ">>";
    case Op::kBitOr: return "|";
    case Op::kBitXor: return "^";
    case Op::kBitAnd: return "&";
    case Op::kFloorDiv: return "//";
    case Op::kInvert: return "~";
    case Op::kNot: return "not";
    case Op::kUAdd: return "+";
    case Op::kUSub: return "-";
    case Op::kAnd: return "and";
    case Op::kOr: return "or";
    case Op::kEq: return "==";
    case Op::kNotEq: return "!=";
    case Op::kLt: return "<";
    case Op::kLtE: return "<=";
    case Op::kGt: return ">";
    case Op::kGtE: return ">=";
    case Op::kIs: return "is";
    case Op::kIsNot: return "is not";
    case Op::kIn: return "in";
    case Op::kNotIn: return "not in";
  }
  return "?";
}

std::string_view OpName(Op op) {
  switch (op) {
    case Op::kAdd: return "Add";
    case Op::kSub: return "Sub";
    case Op::kMult: return "Mult";
    case Op::kMatMult: return "MatMult";
    case Op::kDiv: return "Div";
    case Op::kMod: return "Mod";
    case Op::kPow: return "Pow";
    case Op::kLShift: return "LShift";
    case Op::kRShift: return "RShift";
    case Op::kBitOr: return "BitOr";
    case Op::kBitXor: return "BitXor";
    case Op::kBitAnd: return "BitAnd";
    case Op::kFloorDiv: return "FloorDiv";
    case Op::kInvert: return "Invert";
    case Op::kNot: return "Not";
    case Op::kUAdd: return "UAdd";
    case Op::kUSub: return "USub";
    case Op::kAnd: return "And";
    case Op::kOr: return "Or";
    case Op::kEq: return "Eq";
    case Op::kNotEq: return "NotEq";
    case Op::kLt: return "Lt";
    case Op::kLtE: return "LtE";
    case Op::kGt: return "Gt";
    case Op::kGtE: return "GtE";
    case Op::kIs: return "Is";
    case Op::kIsNot: return "IsNot";
    case Op::kIn: return "In";
    case Op::kNotIn: return "NotIn";
  }
  return "?";
}

std::string_view ExprKindName(ExprKind k) {
  switch (k) {
    case ExprKind::kBoolOp: return "BoolOp";
    case ExprKind::kNamedExpr: return "NamedExpr";
    case ExprKind::kBinOp: return "BinOp";
    case ExprKind::kUnaryOp: return "UnaryOp";
    case ExprKind::kLambda: return "Lambda";
    case ExprKind::kIfExp: return "IfExp";
    case ExprKind::kDict: return "Dict";
    case ExprKind::kSet: return "Set";
    case ExprKind::kListComp: return "ListComp";
    case ExprKind::kSetComp: return "SetComp";
    case ExprKind::kDictComp: return "DictComp";
    case ExprKind::kGeneratorExp: return "GeneratorExp";
    case ExprKind::kAwait: return "Await";
    case ExprKind::kYield: return "Yield";
    case ExprKind::kYieldFrom: return "YieldFrom";
    case ExprKind::kCompare: return "Compare";
    case ExprKind::kCall: return "Call";
    case ExprKind::kFormattedValue: return "FormattedValue";
    case ExprKind::kJoinedStr: return "JoinedStr";
    case ExprKind::kConstant: return "Constant";
    case ExprKind::kAttribute: return "Attribute";
    case ExprKind::kSubscript: return "Subscript";
    case ExprKind::kStarred: return "Starred";
    case ExprKind::kName: return "Name";
    case ExprKind::kList: return "List";
    case ExprKind::kTuple: return "Tuple";
    case ExprKind::kSlice: return "Slice";
  }
  return "?";
}

std::string_view StmtKindName(StmtKind k) {
  switch (k) {
    case StmtKind::kFunctionDef: return "FunctionDef";
    case StmtKind::kClassDef: return "ClassDef";
    case StmtKind::kReturn: return "Return";
    case StmtKind::kDelete: return "Delete";
    case StmtKind::kAssign: return "Assign";
    case StmtKind::kAugAssign: return "AugAssign";
    case StmtKind::kAnnAssign: return "AnnAssign";
    case StmtKind::kFor: return "For";
    case StmtKind::kWhile: return "While";
    case StmtKind::kIf: return "If";
    case StmtKind::kWith: return "With";
    case StmtKind::kMatch: return "Match";
    case StmtKind::kRaise: return "Raise";
    case StmtKind::kTry: return "Try";
    case StmtKind::kAssert: return "Assert";
    case StmtKind::kImport: return "Import";
    case StmtKind::kImportFrom: return "ImportFrom";
    case StmtKind::kGlobal: return "Global";
    case StmtKind::kNonlocal: return "Nonlocal";
    case StmtKind::kExpr: return "Expr";
    case StmtKind::kPass: return "Pass";
    case StmtKind::kBreak: return "Break";
    case StmtKind::kContinue: return "Continue";
  }
  return "?";
}

// ---- Walk ------------------------------------------------------------------------------

namespace {

void WalkOpt(const ExprPtr& e, AstVisitor& v) {
  if (e) Walk(*e, v);
}
void WalkList(const std::vector<ExprPtr>& es, AstVisitor& v) {
  for (const auto& e : es) WalkOpt(e, v);
}
void WalkBody(const std::vector<StmtPtr>& body, AstVisitor& v) {
  for (const auto& s : body) Walk(*s, v);
}
void WalkArguments(const Arguments& a, AstVisitor& v) {
  // Source order: parameters with their annotations and defaults.
  for (const auto& p : a.posonlyargs) WalkOpt(p.annotation, v);
  for (const auto& p : a.args) WalkOpt(p.annotation, v);
  WalkList(a.defaults, v);
  if (a.vararg) WalkOpt(a.vararg->annotation, v);
  for (const auto& p : a.kwonlyargs) WalkOpt(p.annotation, v);
  WalkList(a.kw_defaults, v);
  if (a.kwarg) WalkOpt(a.kwarg->annotation, v);
}
void WalkGenerators(const std::vector<Comprehension>& gens, AstVisitor& v) {
  for (const auto& g : gens) {
    WalkOpt(g.target, v);
    WalkOpt(g.iter, v);
    WalkList(g.ifs, v);
  }
}

}  // namespace

void Walk(const Module& m, AstVisitor& v) { WalkBody(m.body, v); }

void Walk(const Stmt& s, AstVisitor& v) {
  if (!v.EnterStmt(s)) return;
  WalkList(s.decorator_list, v);
  if (s.args) WalkArguments(*s.args, v);
  WalkOpt(s.returns, v);
  WalkList(s.bases, v);
  for (const auto& k : s.keywords) WalkOpt(k.value, v);
  WalkList(s.targets, v);
  if (s.kind == StmtKind::kFor) {
    WalkOpt(s.target, v);
    WalkOpt(s.iter, v);
  } else {
    WalkOpt(s.target, v);
    WalkOpt(s.annotation, v);
  }
  WalkOpt(s.subject, v);
  WalkOpt(s.test, v);
  WalkOpt(s.msg, v);
  for (const auto& it : s.items) {
    WalkOpt(it.context_expr, v);
    WalkOpt(it.optional_vars, v);
  }
  WalkOpt(s.value, v);
  WalkOpt(s.exc, v);
  WalkOpt(s.cause, v);
  WalkBody(s.body, v);
  for (const auto& c : s.cases) {
    if (c.pattern) Walk(*c.pattern, v);
    WalkOpt(c.guard, v);
    WalkBody(c.body, v);
  }
  for (const auto& h : s.handlers) {
    WalkOpt(h.type, v);
    WalkBody(h.body, v);
  }
  WalkBody(s.orelse, v);
  WalkBody(s.finalbody, v);
  v.LeaveStmt(s);
}

void Walk(const Expr& e, AstVisitor& v) {
  if (!v.EnterExpr(e)) return;
  switch (e.kind) {
    case ExprKind::kDict:
      for (size_t i = 0; i < e.elts.size(); ++i) {
        if (i < e.keys.size()) WalkOpt(e.keys[i], v);
        WalkOpt(e.elts[i], v);
      }
      break;
    case ExprKind::kListComp:
    case ExprKind::kSetComp:
    case ExprKind::kGeneratorExp:
    case ExprKind::kDictComp:
      WalkOpt(e.elt, v);
      WalkOpt(e.key, v);
      WalkOpt(e.value_expr, v);
      WalkGenerators(e.generators, v);
      break;
    case ExprKind::kIfExp:
      WalkOpt(e.body, v);
      WalkOpt(e.test, v);
      WalkOpt(e.orelse, v);
      break;
    case ExprKind::kLambda:
      if (e.lambda_args) WalkArguments(*e.lambda_args, v);
      WalkOpt(e.body, v);
      break;
    case ExprKind::kCall:
      WalkOpt(e.func, v);
      WalkList(e.args, v);
      for (const auto& k : e.keywords) WalkOpt(k.value, v);
      break;
    case ExprKind::kNamedExpr:
      WalkOpt(e.target, v);
      WalkOpt(e.value_expr, v);
      break;
    default:
      WalkOpt(e.left, v);
      WalkOpt(e.operand, v);
      WalkOpt(e.value_expr, v);
      WalkOpt(e.slice, v);
      WalkOpt(e.lower, v);
      WalkOpt(e.upper, v);
      WalkOpt(e.step, v);
      WalkOpt(e.right, v);
      WalkList(e.elts, v);
      WalkOpt(e.format_spec, v);
      break;
  }
  v.LeaveExpr(e);
}

void Walk(const Pattern& p, AstVisitor& v) {
  if (!v.EnterPattern(p)) return;
  WalkOpt(p.cls, v);
  WalkOpt(p.value, v);
  for (size_t i = 0; i < p.keys.size(); ++i) WalkOpt(p.keys[i], v);
  for (const auto& c : p.patterns) Walk(*c, v);
  for (const auto& c : p.kwd_patterns) Walk(*c, v);
  if (p.pattern) Walk(*p.pattern, v);
  v.LeavePattern(p);
}

namespace {
class CallCollector : public AstVisitor {
 public:
  explicit CallCollector(const std::function<void(const Expr&)>& fn) : fn_(fn) {}
  bool EnterExpr(const Expr& e) override {
    if (e.kind == ExprKind::kCall) fn_(e);
    return true;
  }

 private:
  const std::function<void(const Expr&)>& fn_;
};
}  // namespace

void ForEachCall(const Module& m, const std::function<void(const Expr&)>& fn) {
  CallCollector c(fn);
  Walk(m, c);
}

void ForEachCall(const Stmt& s, const std::function<void(const Expr&)>& fn) {
  CallCollector c(fn);
  Walk(s, c);
}

// ---- Helpers ---------------------------------------------------------------------------

std::optional<std::string> DottedName(const Expr& e) {
  if (e.kind == ExprKind::kName) return e.id;
  if (e.kind == ExprKind::kAttribute && e.value_expr) {
    auto base = DottedName(*e.value_expr);
    if (!base) return std::nullopt;
    return *base + "." + e.id;
  }
  return std::nullopt;
}

std::string CallName(const Expr& e) {
  const Expr* f = (e.kind == ExprKind::kCall && e.func) ? e.func.get() : &e;
  return DottedName(*f).value_or("");
}

std::string DecoratorName(const Expr& decorator) { return CallName(decorator); }

bool TopLevelDef::HasDecorator(std::string_view dotted) const {
  for (const auto& d : decorators) {
    if (d == dotted) return true;
  }
  return false;
}

std::vector<TopLevelDef> TopLevelDefs(const Module& m) {
  std::vector<TopLevelDef> out;
  for (const auto& s : m.body) {
    if (s->kind != StmtKind::kFunctionDef && s->kind != StmtKind::kClassDef) continue;
    TopLevelDef d;
    d.stmt = s.get();
    d.name = s->name;
    d.is_class = s->kind == StmtKind::kClassDef;
    for (const auto& dec : s->decorator_list) d.decorators.push_back(DecoratorName(*dec));
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::pair<std::string, const Expr*>> TopLevelAssignments(const Module& m) {
  std::vector<std::pair<std::string, const Expr*>> out;
  for (const auto& s : m.body) {
    if (s->kind == StmtKind::kAssign && s->targets.size() == 1 &&
        s->targets[0]->kind == ExprKind::kName && s->value) {
      out.emplace_back(s->targets[0]->id, s->value.get());
    } else if (s->kind == StmtKind::kAnnAssign && s->value && s->target &&
               s->target->kind == ExprKind::kName) {
      out.emplace_back(s->target->id, s->value.get());
    }
  }
  return out;
}

namespace {
// Peels unary +/- from a number; returns the Constant and the sign.
const Expr* PeelSign(const Expr& e, int* sign) {
  const Expr* p = &e;
  *sign = 1;
  while (p->kind == ExprKind::kUnaryOp && (p->op == Op::kUSub || p->op == Op::kUAdd) &&
         p->operand) {
    if (p->op == Op::kUSub) *sign = -*sign;
    p = p->operand.get();
  }
  return p;
}
}  // namespace

std::optional<std::int64_t> IntValue(const Expr& e) {
  int sign;
  const Expr* c = PeelSign(e, &sign);
  if (c->kind != ExprKind::kConstant || c->const_kind != ConstKind::kInt) return std::nullopt;
  if (c->value.size() > 19) return std::nullopt;
  errno = 0;
  unsigned long long v = std::strtoull(c->value.c_str(), nullptr, 10);
  if (errno != 0) return std::nullopt;
  if (sign > 0) {
    if (v > static_cast<unsigned long long>(INT64_MAX)) return std::nullopt;
    return static_cast<std::int64_t>(v);
  }
  if (v > static_cast<unsigned long long>(INT64_MAX) + 1ull) return std::nullopt;
  return static_cast<std::int64_t>(0ull - v);
}

std::optional<double> NumberValue(const Expr& e) {
  int sign;
  const Expr* c = PeelSign(e, &sign);
  if (c->kind != ExprKind::kConstant) return std::nullopt;
  if (c->const_kind == ConstKind::kInt || c->const_kind == ConstKind::kFloat) {
    return sign * std::strtod(c->value.c_str(), nullptr);
  }
  return std::nullopt;
}

std::optional<std::string> StringValue(const Expr& e) {
  if (e.kind == ExprKind::kConstant && e.const_kind == ConstKind::kStr) return e.value;
  return std::nullopt;
}

bool IsIdentifier(std::string_view s) {
  auto head = [](char c) { return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  if (s.empty() || !head(s[0])) return false;
  return std::all_of(s.begin() + 1, s.end(), [&](char c) { return head(c) || (c >= '0' && c <= '9'); });
}

std::optional<bool> BoolValue(const Expr& e) {
  if (e.kind != ExprKind::kConstant) return std::nullopt;
  if (e.const_kind == ConstKind::kTrue) return true;
  if (e.const_kind == ConstKind::kFalse) return false;
  return std::nullopt;
}

const Expr* FindKeyword(const Expr& call, std::string_view name) {
  for (const auto& k : call.keywords) {
    if (k.arg == name) return k.value.get();
  }
  return nullptr;
}

bool AstEqual(const Module& a, const Module& b) { return DumpAst(a) == DumpAst(b); }
bool AstEqual(const Expr& a, const Expr& b) { return DumpAst(a) == DumpAst(b); }

}  // namespace opdev::py
