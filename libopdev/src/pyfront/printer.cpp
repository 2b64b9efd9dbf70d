// Printer: turns the pyfront AST back into PEP 8-style Python source (see printer.h).
// Parentheses come from an operator-precedence table (as CPython's ast.unparse does), so a
// printed tree parses back to an equal tree.
#include "opdev/pyfront/printer.h"

#include "pyfront/literals.h"

namespace opdev::py {
namespace {

// Precedence levels, lowest first (CPython's ast._Precedence).
enum Prec : int {
  kNamedExpr = 1,
  kTuple,
  kYield,
  kTest,
  kOr,
  kAnd,
  kNot,
  kCmp,
  kBor,
  kBxor,
  kBand,
  kShift,
  kArith,
  kTerm,
  kFactor,
  kPower,
  kAwait,
  kAtom,
};

int BinPrec(Op op) {
  switch (op) {
    case Op::kBitOr: return kBor;
    case Op::kBitXor: return kBxor;
    case Op::kBitAnd: return kBand;
    case Op::kLShift:
    case Op::kRShift: return kShift;
    case Op::kAdd:
    case Op::kSub: return kArith;
    case Op::kMult:
    case Op::kMatMult:
    case Op::kDiv:
    case Op::kFloorDiv:
    case Op::kMod: return kTerm;
    case Op::kPow: return kPower;
    default: return kAtom;
  }
}

bool IsTopDef(const Stmt& s) {
  return s.kind == StmtKind::kFunctionDef || s.kind == StmtKind::kClassDef;
}
bool IsImport(const Stmt& s) {
  return s.kind == StmtKind::kImport || s.kind == StmtKind::kImportFrom;
}
bool IsDocstring(const Stmt& s) {
  return s.kind == StmtKind::kExpr && s.value && s.value->kind == ExprKind::kConstant &&
         s.value->const_kind == ConstKind::kStr;
}

// Context precedence for a position that accepts an unparenthesized tuple (a target
// list, `return a, b`): a tuple prints bare, anything else as a plain expression.
int ListCtx(const Expr& e) { return e.kind == ExprKind::kTuple ? kTuple : kTest; }
// Right-hand side of an assignment or an expression statement: also a bare yield.
int RhsCtx(const Expr& e) { return e.kind == ExprKind::kTuple ? kTuple : kYield; }

class Printer {
 public:
  explicit Printer(const PrintOptions& o) : opts_(o) {}
  std::string out;

  // ---- expressions -------------------------------------------------------------------
  void E(const Expr& e, int need) {
    switch (e.kind) {
      case ExprKind::kName:
        out += e.id;
        return;
      case ExprKind::kConstant:
        Constant(e);
        return;
      case ExprKind::kAttribute: {
        const Expr& v = *e.value_expr;
        bool int_lit = v.kind == ExprKind::kConstant && v.const_kind == ConstKind::kInt;
        if (int_lit) out += '(';
        E(v, kAtom);
        if (int_lit) out += ')';
        out += '.';
        out += e.id;
        return;
      }
      case ExprKind::kCall:
        E(*e.func, kAtom);
        out += '(';
        CallArgs(e.args, e.keywords);
        out += ')';
        return;
      case ExprKind::kSubscript:
        E(*e.value_expr, kAtom);
        out += '[';
        SliceExpr(*e.slice);
        out += ']';
        return;
      case ExprKind::kStarred:
        Paren(need > kBor, [&] {
          out += '*';
          E(*e.value_expr, kBor);
        });
        return;
      case ExprKind::kSlice:
        if (e.lower) E(*e.lower, kTest);
        out += ':';
        if (e.upper) E(*e.upper, kTest);
        if (e.step) {
          out += ':';
          E(*e.step, kTest);
        }
        return;
      case ExprKind::kBinOp: {
        int p = BinPrec(e.op);
        Paren(need > p, [&] {
          bool right_assoc = e.op == Op::kPow;
          E(*e.left, right_assoc ? p + 1 : p);
          out += ' ';
          out += OpText(e.op);
          out += ' ';
          E(*e.right, right_assoc ? kFactor : p + 1);
        });
        return;
      }
      case ExprKind::kUnaryOp: {
        int p = e.op == Op::kNot ? kNot : kFactor;
        Paren(need > p, [&] {
          out += OpText(e.op);
          if (e.op == Op::kNot) out += ' ';
          E(*e.operand, p);
        });
        return;
      }
      case ExprKind::kBoolOp: {
        int p = e.op == Op::kAnd ? kAnd : kOr;
        Paren(need > p, [&] {
          for (size_t i = 0; i < e.elts.size(); ++i) {
            if (i) {
              out += ' ';
              out += OpText(e.op);
              out += ' ';
            }
            E(*e.elts[i], p + 1);
          }
        });
        return;
      }
      case ExprKind::kCompare:
        Paren(need > kCmp, [&] {
          E(*e.left, kCmp + 1);
          for (size_t i = 0; i < e.ops.size(); ++i) {
            out += ' ';
            out += OpText(e.ops[i]);
            out += ' ';
            E(*e.elts[i], kCmp + 1);
          }
        });
        return;
      case ExprKind::kIfExp:
        Paren(need > kTest, [&] {
          E(*e.body, kTest + 1);
          out += " if ";
          E(*e.test, kTest + 1);
          out += " else ";
          E(*e.orelse, kTest);
        });
        return;
      case ExprKind::kLambda:
        Paren(need > kTest, [&] {
          out += "lambda";
          if (e.lambda_args && HasParams(*e.lambda_args)) {
            out += ' ';
            Params(*e.lambda_args);
          }
          out += ": ";
          E(*e.body, kTest);
        });
        return;
      case ExprKind::kNamedExpr:
        out += '(';
        E(*e.target, kAtom);
        out += " := ";
        E(*e.value_expr, kTest);
        out += ')';
        return;
      case ExprKind::kTuple:
        if (e.elts.empty()) {
          out += "()";
          return;
        }
        Paren(need > kTuple, [&] {
          Items(e.elts);
          if (e.elts.size() == 1) out += ',';
        });
        return;
      case ExprKind::kList:
        out += '[';
        Items(e.elts);
        out += ']';
        return;
      case ExprKind::kSet:
        if (e.elts.empty()) {
          out += "{*()}";
          return;
        }
        out += '{';
        Items(e.elts);
        out += '}';
        return;
      case ExprKind::kDict:
        out += '{';
        for (size_t i = 0; i < e.elts.size(); ++i) {
          if (i) out += ", ";
          if (i < e.keys.size() && e.keys[i]) {
            E(*e.keys[i], kTest);
            out += ": ";
            E(*e.elts[i], kTest);
          } else {
            out += "**";
            E(*e.elts[i], kBor);
          }
        }
        out += '}';
        return;
      case ExprKind::kListComp:
        out += '[';
        E(*e.elt, kTest);
        Generators(e.generators);
        out += ']';
        return;
      case ExprKind::kSetComp:
        out += '{';
        E(*e.elt, kTest);
        Generators(e.generators);
        out += '}';
        return;
      case ExprKind::kDictComp:
        out += '{';
        E(*e.key, kTest);
        out += ": ";
        E(*e.value_expr, kTest);
        Generators(e.generators);
        out += '}';
        return;
      case ExprKind::kGeneratorExp:
        out += '(';
        E(*e.elt, kTest);
        Generators(e.generators);
        out += ')';
        return;
      case ExprKind::kAwait:
        Paren(need > kAwait, [&] {
          out += "await ";
          E(*e.value_expr, kAtom);
        });
        return;
      case ExprKind::kYield:
        Paren(need > kYield, [&] {
          out += "yield";
          if (e.value_expr) {
            out += ' ';
            E(*e.value_expr, ListCtx(*e.value_expr));
          }
        });
        return;
      case ExprKind::kYieldFrom:
        Paren(need > kYield, [&] {
          out += "yield from ";
          E(*e.value_expr, kTest);
        });
        return;
      case ExprKind::kJoinedStr:
      case ExprKind::kFormattedValue:
        FString(e);
        return;
    }
  }

  template <typename F>
  void Paren(bool on, F&& body) {
    if (on) out += '(';
    body();
    if (on) out += ')';
  }

  void Items(const std::vector<ExprPtr>& es) {
    for (size_t i = 0; i < es.size(); ++i) {
      if (i) out += ", ";
      E(*es[i], kTest);
    }
  }

  void CallArgs(const std::vector<ExprPtr>& args, const std::vector<Keyword>& kws) {
    bool first = true;
    if (args.size() == 1 && kws.empty() && args[0]->kind == ExprKind::kGeneratorExp) {
      const Expr& g = *args[0];
      E(*g.elt, kTest);
      Generators(g.generators);
      return;
    }
    // Keywords and *args may interleave in the source; CPython keeps args and keywords
    // in separate lists, so printing all positionals first yields the same tree.
    for (const auto& a : args) {
      if (!first) out += ", ";
      first = false;
      E(*a, kTest);
    }
    for (const auto& k : kws) {
      if (!first) out += ", ";
      first = false;
      if (k.arg.empty()) {
        out += "**";
        E(*k.value, kBor);
      } else {
        out += k.arg;
        out += '=';
        E(*k.value, kTest);
      }
    }
  }

  void SliceExpr(const Expr& s) {
    if (s.kind == ExprKind::kTuple && !s.elts.empty()) {
      for (size_t i = 0; i < s.elts.size(); ++i) {
        if (i) out += ", ";
        E(*s.elts[i], kTest);
      }
      if (s.elts.size() == 1) out += ',';
      return;
    }
    E(s, ListCtx(s));
  }

  void Generators(const std::vector<Comprehension>& gens) {
    for (const auto& g : gens) {
      out += g.is_async ? " async for " : " for ";
      E(*g.target, ListCtx(*g.target));
      out += " in ";
      E(*g.iter, kTest + 1);
      for (const auto& c : g.ifs) {
        out += " if ";
        E(*c, kTest + 1);
      }
    }
  }

  void Constant(const Expr& e) {
    switch (e.const_kind) {
      case ConstKind::kNone: out += "None"; return;
      case ConstKind::kTrue: out += "True"; return;
      case ConstKind::kFalse: out += "False"; return;
      case ConstKind::kEllipsis: out += "..."; return;
      case ConstKind::kInt:
        out += e.text.empty() ? e.value : e.text;
        return;
      case ConstKind::kFloat:
        out += e.text.empty() ? e.value : e.text;
        return;
      case ConstKind::kImag:
        out += e.text.empty() ? lit::ImagRepr(std::strtod(e.value.c_str(), nullptr)) : e.text;
        return;
      case ConstKind::kStr:
        if (e.u_prefix) out += 'u';
        out += lit::QuoteStr(e.value, StrQuote(e.value));
        return;
      case ConstKind::kBytes:
        out += lit::QuoteBytes(e.value, StrQuote(e.value));
        return;
    }
  }

  // Double quotes by default; single quotes when that avoids escaping. Inside an f-string
  // field the quote opposite to the f-string's own is forced.
  char StrQuote(std::string_view v) const {
    if (fstring_quote_) return fstring_quote_ == '"' ? '\'' : '"';
    bool has_double = v.find('"') != std::string_view::npos;
    bool has_single = v.find('\'') != std::string_view::npos;
    return (has_double && !has_single) ? '\'' : '"';
  }

  // ---- f-strings ---------------------------------------------------------------------
  static void CollectStrings(const Expr& e, bool* has_single, bool* has_double) {
    struct V : AstVisitor {
      bool* s;
      bool* d;
      bool EnterExpr(const Expr& x) override {
        if (x.kind == ExprKind::kConstant &&
            (x.const_kind == ConstKind::kStr || x.const_kind == ConstKind::kBytes)) {
          *s |= x.value.find('\'') != std::string::npos;
          *d |= x.value.find('"') != std::string::npos;
        }
        return true;
      }
    } v;
    v.s = has_single;
    v.d = has_double;
    Walk(e, v);
  }

  void FString(const Expr& e) {
    // Strings inside fields must avoid the f-string's own quote (Python 3.11).
    bool s = false, d = false;
    for (const auto& part : e.elts) {
      if (part->kind == ExprKind::kFormattedValue) CollectStrings(*part->value_expr, &s, &d);
    }
    char q = fstring_quote_ ? (fstring_quote_ == '"' ? '\'' : '"') : ((s && !d) ? '\'' : '"');
    if (e.kind == ExprKind::kFormattedValue) {
      // A lone FormattedValue (only built by code generators): wrap it.
      out += 'f';
      out += q;
      char saved = fstring_quote_;
      fstring_quote_ = q;
      Field(e, q);
      fstring_quote_ = saved;
      out += q;
      return;
    }
    out += 'f';
    out += q;
    char saved = fstring_quote_;
    fstring_quote_ = q;
    FStringParts(e.elts, q);
    fstring_quote_ = saved;
    out += q;
  }

  void FStringParts(const std::vector<ExprPtr>& parts, char q) {
    for (const auto& part : parts) {
      if (part->kind == ExprKind::kFormattedValue) {
        Field(*part, q);
      } else if (part->kind == ExprKind::kConstant) {
        std::string lit = lit::QuoteStr(part->value, q);
        lit = lit.substr(1, lit.size() - 2);
        for (char c : lit) {
          if (c == '{' || c == '}') out += c;
          out += c;
        }
      }
    }
  }

  void Field(const Expr& fv, char q) {
    Printer inner(opts_);
    inner.fstring_quote_ = q;
    const Expr& v = *fv.value_expr;
    bool needs_paren = v.kind == ExprKind::kLambda || v.kind == ExprKind::kNamedExpr ||
                       v.kind == ExprKind::kYield || v.kind == ExprKind::kYieldFrom;
    inner.E(v, needs_paren ? kAtom : ListCtx(v));
    out += '{';
    if (!inner.out.empty() && inner.out[0] == '{') out += ' ';
    out += inner.out;
    if (fv.conversion > 0) {
      out += '!';
      out += static_cast<char>(fv.conversion);
    }
    if (fv.format_spec) {
      out += ':';
      FStringParts(fv.format_spec->elts, q);
    }
    out += '}';
  }

  // ---- parameters --------------------------------------------------------------------
  static bool HasParams(const Arguments& a) {
    return !a.posonlyargs.empty() || !a.args.empty() || a.vararg || !a.kwonlyargs.empty() ||
           a.kwarg;
  }

  void OneParam(const Arg& a, const Expr* def) {
    out += a.arg;
    if (a.annotation) {
      out += ": ";
      if (a.annotation->kind == ExprKind::kStarred) {
        out += '*';
        E(*a.annotation->value_expr, kBor);
      } else {
        E(*a.annotation, kTest);
      }
    }
    if (def) {
      out += a.annotation ? " = " : "=";
      E(*def, kTest);
    }
  }

  void Params(const Arguments& a) {
    bool first = true;
    auto sep = [&] {
      if (!first) out += ", ";
      first = false;
    };
    size_t npos = a.posonlyargs.size() + a.args.size();
    size_t first_default = npos - std::min(npos, a.defaults.size());
    size_t idx = 0;
    for (const auto& p : a.posonlyargs) {
      sep();
      OneParam(p, idx >= first_default ? a.defaults[idx - first_default].get() : nullptr);
      ++idx;
    }
    if (!a.posonlyargs.empty()) {
      sep();
      out += '/';
    }
    for (const auto& p : a.args) {
      sep();
      OneParam(p, idx >= first_default ? a.defaults[idx - first_default].get() : nullptr);
      ++idx;
    }
    if (a.vararg) {
      sep();
      out += '*';
      OneParam(*a.vararg, nullptr);
    } else if (!a.kwonlyargs.empty()) {
      sep();
      out += '*';
    }
    for (size_t i = 0; i < a.kwonlyargs.size(); ++i) {
      sep();
      OneParam(a.kwonlyargs[i], i < a.kw_defaults.size() ? a.kw_defaults[i].get() : nullptr);
    }
    if (a.kwarg) {
      sep();
      out += "**";
      OneParam(*a.kwarg, nullptr);
    }
  }

  // ---- patterns ----------------------------------------------------------------------
  void P(const Pattern& p, bool in_or = false) {
    switch (p.kind) {
      case PatternKind::kMatchValue:
        E(*p.value, kBor);
        return;
      case PatternKind::kMatchSingleton:
        Constant(*p.value);
        return;
      case PatternKind::kMatchSequence:
        out += '[';
        for (size_t i = 0; i < p.patterns.size(); ++i) {
          if (i) out += ", ";
          P(*p.patterns[i]);
        }
        out += ']';
        return;
      case PatternKind::kMatchMapping: {
        out += '{';
        bool first = true;
        for (size_t i = 0; i < p.keys.size(); ++i) {
          if (!first) out += ", ";
          first = false;
          E(*p.keys[i], kBor);
          out += ": ";
          P(*p.patterns[i]);
        }
        if (p.rest) {
          if (!first) out += ", ";
          out += "**";
          out += *p.rest;
        }
        out += '}';
        return;
      }
      case PatternKind::kMatchClass: {
        E(*p.cls, kAtom);
        out += '(';
        bool first = true;
        for (const auto& c : p.patterns) {
          if (!first) out += ", ";
          first = false;
          P(*c);
        }
        for (size_t i = 0; i < p.kwd_attrs.size(); ++i) {
          if (!first) out += ", ";
          first = false;
          out += p.kwd_attrs[i];
          out += '=';
          P(*p.kwd_patterns[i]);
        }
        out += ')';
        return;
      }
      case PatternKind::kMatchStar:
        out += '*';
        out += p.name.value_or("_");
        return;
      case PatternKind::kMatchAs:
        if (!p.pattern) {
          out += p.name.value_or("_");
          return;
        }
        if (in_or) out += '(';
        P(*p.pattern, true);
        out += " as ";
        out += p.name.value_or("_");
        if (in_or) out += ')';
        return;
      case PatternKind::kMatchOr:
        if (in_or) out += '(';
        for (size_t i = 0; i < p.patterns.size(); ++i) {
          if (i) out += " | ";
          P(*p.patterns[i], true);
        }
        if (in_or) out += ')';
        return;
    }
  }

  // ---- statements --------------------------------------------------------------------
  void Indent(int level) { out.append(static_cast<size_t>(level * opts_.indent), ' '); }

  void BlankLines(int n) {
    // Collapse to exactly n blank lines at the current end of output.
    while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') {
      out.pop_back();
    }
    if (out.empty()) return;
    for (int i = 0; i < n; ++i) out += '\n';
  }

  void Body(const std::vector<StmtPtr>& body, int level, bool top) {
    const Stmt* prev = nullptr;
    for (const auto& s : body) {
      if (prev) {
        if (top && (IsTopDef(*s) || IsTopDef(*prev))) {
          BlankLines(2);
        } else if (!top && (IsTopDef(*s) || IsTopDef(*prev))) {
          BlankLines(1);
        } else if (IsImport(*prev) && !IsImport(*s)) {
          BlankLines(1);
        } else if (prev == body.front().get() && IsDocstring(*prev) && top) {
          BlankLines(1);
        }
      }
      S(*s, level);
      prev = s.get();
    }
  }

  void Block(const std::vector<StmtPtr>& body, int level) {
    out += ":\n";
    Body(body, level + 1, false);
  }

  void Docstring(const Expr& e, int level) {
    // Triple-quoted when the text can be written without escapes; a u"" prefix is kept.
    const std::string& v = e.value;
    if (e.u_prefix) out += 'u';
    bool plain = v.find("\"\"\"") == std::string::npos && v.find('\\') == std::string::npos &&
                 (v.empty() || v.back() != '"') && v.find('\r') == std::string::npos;
    for (unsigned char c : v) {
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) plain = false;
    }
    if (!plain || v.find('\n') == std::string::npos) {
      out += lit::QuoteStr(v, StrQuote(v));
      return;
    }
    (void)level;
    out += "\"\"\"";
    out += v;
    out += "\"\"\"";
  }

  void S(const Stmt& s, int level) {
    switch (s.kind) {
      case StmtKind::kFunctionDef:
      case StmtKind::kClassDef:
        for (const auto& d : s.decorator_list) {
          Indent(level);
          out += '@';
          E(*d, kTest);
          out += '\n';
        }
        Indent(level);
        if (s.kind == StmtKind::kFunctionDef) {
          out += s.is_async ? "async def " : "def ";
          out += s.name;
          out += '(';
          if (s.args) Params(*s.args);
          out += ')';
          if (s.returns) {
            out += " -> ";
            E(*s.returns, kTest);
          }
        } else {
          out += "class ";
          out += s.name;
          if (!s.bases.empty() || !s.keywords.empty()) {
            out += '(';
            CallArgs(s.bases, s.keywords);
            out += ')';
          }
        }
        Block(s.body, level);
        return;
      case StmtKind::kIf: {
        Indent(level);
        out += "if ";
        E(*s.test, kNamedExpr);
        Block(s.body, level);
        const Stmt* cur = &s;
        while (cur->orelse.size() == 1 && cur->orelse[0]->kind == StmtKind::kIf) {
          cur = cur->orelse[0].get();
          Indent(level);
          out += "elif ";
          E(*cur->test, kNamedExpr);
          Block(cur->body, level);
        }
        if (!cur->orelse.empty()) {
          Indent(level);
          out += "else";
          Block(cur->orelse, level);
        }
        return;
      }
      case StmtKind::kWhile:
        Indent(level);
        out += "while ";
        E(*s.test, kNamedExpr);
        Block(s.body, level);
        Else(s.orelse, level);
        return;
      case StmtKind::kFor:
        Indent(level);
        out += s.is_async ? "async for " : "for ";
        E(*s.target, ListCtx(*s.target));
        out += " in ";
        E(*s.iter, ListCtx(*s.iter));
        Block(s.body, level);
        Else(s.orelse, level);
        return;
      case StmtKind::kWith:
        Indent(level);
        out += s.is_async ? "async with " : "with ";
        for (size_t i = 0; i < s.items.size(); ++i) {
          if (i) out += ", ";
          E(*s.items[i].context_expr, kTest);
          if (s.items[i].optional_vars) {
            out += " as ";
            E(*s.items[i].optional_vars, kTest);
          }
        }
        Block(s.body, level);
        return;
      case StmtKind::kTry:
        Indent(level);
        out += "try";
        Block(s.body, level);
        for (const auto& h : s.handlers) {
          Indent(level);
          out += s.is_star ? "except*" : "except";
          if (h.type) {
            out += ' ';
            E(*h.type, kTest);
            if (!h.name.empty()) {
              out += " as ";
              out += h.name;
            }
          }
          Block(h.body, level);
        }
        Else(s.orelse, level);
        if (!s.finalbody.empty()) {
          Indent(level);
          out += "finally";
          Block(s.finalbody, level);
        }
        return;
      case StmtKind::kMatch:
        Indent(level);
        out += "match ";
        E(*s.subject, ListCtx(*s.subject));
        out += ":\n";
        for (const auto& c : s.cases) {
          Indent(level + 1);
          out += "case ";
          P(*c.pattern);
          if (c.guard) {
            out += " if ";
            E(*c.guard, kNamedExpr);
          }
          Block(c.body, level + 1);
        }
        return;
      default:
        break;
    }
    Indent(level);
    Simple(s, level);
    out += '\n';
  }

  void Else(const std::vector<StmtPtr>& orelse, int level) {
    if (orelse.empty()) return;
    Indent(level);
    out += "else";
    Block(orelse, level);
  }

  void Simple(const Stmt& s, int level) {
    switch (s.kind) {
      case StmtKind::kExpr:
        if (IsDocstring(s)) {
          Docstring(*s.value, level);
        } else {
          E(*s.value, RhsCtx(*s.value));
        }
        return;
      case StmtKind::kAssign:
        for (const auto& t : s.targets) {
          E(*t, ListCtx(*t));
          out += " = ";
        }
        E(*s.value, RhsCtx(*s.value));
        return;
      case StmtKind::kAugAssign:
        E(*s.target, kTest);
        out += ' ';
        out += OpText(s.op);
        out += "= ";
        E(*s.value, RhsCtx(*s.value));
        return;
      case StmtKind::kAnnAssign:
        if (!s.simple && s.target->kind == ExprKind::kName) {
          out += '(';
          E(*s.target, kTest);
          out += ')';
        } else {
          E(*s.target, kTest);
        }
        out += ": ";
        E(*s.annotation, kTest);
        if (s.value) {
          out += " = ";
          E(*s.value, RhsCtx(*s.value));
        }
        return;
      case StmtKind::kReturn:
        out += "return";
        if (s.value) {
          out += ' ';
          E(*s.value, ListCtx(*s.value));
        }
        return;
      case StmtKind::kDelete:
        out += "del ";
        for (size_t i = 0; i < s.targets.size(); ++i) {
          if (i) out += ", ";
          E(*s.targets[i], kTest);
        }
        return;
      case StmtKind::kRaise:
        out += "raise";
        if (s.exc) {
          out += ' ';
          E(*s.exc, kTest);
        }
        if (s.cause) {
          out += " from ";
          E(*s.cause, kTest);
        }
        return;
      case StmtKind::kAssert:
        out += "assert ";
        E(*s.test, kTest);
        if (s.msg) {
          out += ", ";
          E(*s.msg, kTest);
        }
        return;
      case StmtKind::kImport:
        out += "import ";
        Aliases(s.names);
        return;
      case StmtKind::kImportFrom:
        out += "from ";
        out.append(static_cast<size_t>(s.level), '.');
        out += s.module;
        out += " import ";
        Aliases(s.names);
        return;
      case StmtKind::kGlobal:
      case StmtKind::kNonlocal:
        out += s.kind == StmtKind::kGlobal ? "global " : "nonlocal ";
        for (size_t i = 0; i < s.identifiers.size(); ++i) {
          if (i) out += ", ";
          out += s.identifiers[i];
        }
        return;
      case StmtKind::kPass: out += "pass"; return;
      case StmtKind::kBreak: out += "break"; return;
      case StmtKind::kContinue: out += "continue"; return;
      default: return;
    }
  }

  void Aliases(const std::vector<Alias>& names) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (i) out += ", ";
      out += names[i].name;
      if (!names[i].asname.empty()) {
        out += " as ";
        out += names[i].asname;
      }
    }
  }

 private:
  const PrintOptions& opts_;
  char fstring_quote_ = 0;
};

}  // namespace

std::string PrintModule(const Module& m, const PrintOptions& opts) {
  Printer p(opts);
  p.Body(m.body, 0, true);
  return std::move(p.out);
}

std::string PrintStmt(const Stmt& s, const PrintOptions& opts) {
  Printer p(opts);
  p.S(s, 0);
  return std::move(p.out);
}

std::string PrintExpr(const Expr& e) {
  PrintOptions opts;
  Printer p(opts);
  p.E(e, ListCtx(e));
  return std::move(p.out);
}

}  // namespace opdev::py
