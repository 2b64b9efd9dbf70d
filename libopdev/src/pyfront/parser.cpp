// Recursive-descent parser for Python 3.11 (the grammar of CPython's python.gram, without
// its error-recovery passes): statements, expressions, patterns, f-strings. A syntax error
// unwinds the recursion with an internal SyntaxError exception that never leaves this file;
// the public entry points turn it into a Diagnostic and an InvalidArgument status.
#include "opdev/pyfront/parser.h"

#include "opdev/pyfront/tokenizer.h"
#include "opdev/support/file_io.h"
#include "pyfront/literals.h"

#include "absl/status/status.h"

#include <unordered_set>
#include <utility>

namespace opdev::py {
namespace {

struct SyntaxError {
  std::string code;
  std::string message;
  int line = 0;
  int col = 0;
};

bool IsKeyword(std::string_view s) {
  static const std::unordered_set<std::string_view> kKeywords = {
      "False", "None",   "True",    "and",      "as",       "assert", "async",
      "await", "break",  "class",   "continue", "def",      "del",    "elif",
      "else",  "except", "finally", "for",      "from",     "global", "if",
      "import", "in",    "is",      "lambda",   "nonlocal", "not",    "or",
      "pass",  "raise",  "return",  "try",      "while",    "with",   "yield"};
  return kKeywords.count(s) > 0;
}

std::string Describe(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kCall: return "function call";
    case ExprKind::kConstant:
      if (e.const_kind == ConstKind::kNone) return "None";
      if (e.const_kind == ConstKind::kTrue) return "True";
      if (e.const_kind == ConstKind::kFalse) return "False";
      if (e.const_kind == ConstKind::kEllipsis) return "ellipsis";
      return "literal";
    case ExprKind::kBinOp:
    case ExprKind::kUnaryOp: return "expression";
    case ExprKind::kBoolOp: return "expression";
    case ExprKind::kCompare: return "comparison";
    case ExprKind::kLambda: return "lambda";
    case ExprKind::kIfExp: return "conditional expression";
    case ExprKind::kNamedExpr: return "named expression";
    case ExprKind::kDict: return "dict literal";
    case ExprKind::kSet: return "set display";
    case ExprKind::kListComp: return "list comprehension";
    case ExprKind::kSetComp: return "set comprehension";
    case ExprKind::kDictComp: return "dict comprehension";
    case ExprKind::kGeneratorExp: return "generator expression";
    case ExprKind::kAwait: return "await expression";
    case ExprKind::kYield:
    case ExprKind::kYieldFrom: return "yield expression";
    case ExprKind::kJoinedStr: return "f-string expression";
    case ExprKind::kFormattedValue: return "f-string expression";
    case ExprKind::kSlice: return "slice";
    default: return std::string(ExprKindName(e.kind));
  }
}

class Parser {
 public:
  Parser(std::vector<Token> toks, const ParseOptions& opts, int depth = 0)
      : toks_(std::move(toks)), opts_(opts), depth_(depth) {}

  // ---- token helpers -----------------------------------------------------------------
  const Token& Cur() const { return toks_[pos_]; }
  const Token& Peek(size_t k = 1) const {
    size_t i = pos_ + k;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  bool AtOp(std::string_view s) const { return Cur().kind == TokenKind::kOp && Cur().text == s; }
  bool AtKw(std::string_view s) const {
    return Cur().kind == TokenKind::kName && Cur().text == s;
  }
  bool AtKind(TokenKind k) const { return Cur().kind == k; }
  bool AtErrorToken() const { return Cur().kind == TokenKind::kError; }
  // Consumes the current token. prev_ tracks the last token with source text, so spans
  // of compound statements end at their last statement, not at NEWLINE/DEDENT.
  const Token& Next() {
    const Token& t = toks_[pos_];
    if (t.kind != TokenKind::kNewline && t.kind != TokenKind::kIndent &&
        t.kind != TokenKind::kDedent) {
      prev_ = &t;
    }
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool AcceptOp(std::string_view s) {
    if (!AtOp(s)) return false;
    Next();
    return true;
  }
  bool AcceptKw(std::string_view s) {
    if (!AtKw(s)) return false;
    Next();
    return true;
  }

  [[noreturn]] void Fail(const std::string& msg, const Token& at,
                         std::string_view code = kSyntaxError) const {
    throw SyntaxError{std::string(code), msg, at.line, at.col};
  }
  [[noreturn]] void FailAt(const std::string& msg, int line, int col,
                           std::string_view code = kSyntaxError) const {
    throw SyntaxError{std::string(code), msg, line, col};
  }
  [[noreturn]] void Invalid() const {
    const Token& t = Cur();
    if (t.kind == TokenKind::kIndent) Fail("unexpected indent", t, kIndentError);
    if (t.kind == TokenKind::kEndMarker) Fail("unexpected EOF while parsing", t);
    if (t.kind == TokenKind::kNewline) Fail("invalid syntax", t);
    Fail("invalid syntax", t);
  }
  void ExpectOp(std::string_view s) {
    if (!AcceptOp(s)) Fail("expected '" + std::string(s) + "'", Cur());
  }
  void ExpectKw(std::string_view s) {
    if (!AcceptKw(s)) Fail("expected '" + std::string(s) + "'", Cur());
  }
  std::string ExpectName() {
    if (Cur().kind != TokenKind::kName || IsKeyword(Cur().text)) {
      Fail("expected a name", Cur());
    }
    return std::string(Next().text);
  }

  Span SpanFrom(const Token& t) const {
    return Span{t.line, t.col, prev_ ? prev_->end_line : t.end_line,
                prev_ ? prev_->end_col : t.end_col};
  }
  Span SpanFrom(const Span& s) const {
    return Span{s.line, s.col, prev_ ? prev_->end_line : s.end_line,
                prev_ ? prev_->end_col : s.end_col};
  }
  static Span Join(const Span& a, const Span& b) {
    return Span{a.line, a.col, b.end_line, b.end_col};
  }

  struct DepthGuard {
    Parser* p;
    explicit DepthGuard(Parser* pp) : p(pp) {
      if (++p->depth_ > p->opts_.max_depth) {
        p->Fail("too many nested expressions or blocks (limit " +
                    std::to_string(p->opts_.max_depth) + ")",
                p->Cur(), kTooDeep);
      }
    }
    ~DepthGuard() { --p->depth_; }
  };

  static ExprPtr NewExpr(ExprKind k, Span s) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->span = s;
    return e;
  }
  static StmtPtr NewStmt(StmtKind k, Span s) {
    auto st = std::make_unique<Stmt>();
    st->kind = k;
    st->span = s;
    return st;
  }

  // ---- module ------------------------------------------------------------------------
  std::vector<StmtPtr> ParseFileInput() {
    std::vector<StmtPtr> body;
    while (!AtKind(TokenKind::kEndMarker)) {
      if (AtKind(TokenKind::kNewline)) {
        Next();
        continue;
      }
      ParseStatement(&body);
    }
    return body;
  }

  ExprPtr ParseEvalInput() {
    while (AtKind(TokenKind::kNewline)) Next();
    ExprPtr e = ParseStarExpressions();
    while (AtKind(TokenKind::kNewline)) Next();
    if (!AtKind(TokenKind::kEndMarker)) Invalid();
    return e;
  }

  // f-string replacement field: tokens of "(" expr ")".
  ExprPtr ParseFStringField() {
    ExpectOp("(");
    ExprPtr e;
    if (AtKw("yield")) {
      e = ParseYield();
    } else {
      e = ParseStarExpressions();
    }
    ExpectOp(")");
    while (AtKind(TokenKind::kNewline)) Next();
    if (!AtKind(TokenKind::kEndMarker)) Invalid();
    return e;
  }

  // ---- statements --------------------------------------------------------------------
  void ParseStatement(std::vector<StmtPtr>* out) {
    DepthGuard g(this);
    const Token& t = Cur();
    if (t.kind == TokenKind::kIndent) Fail("unexpected indent", t, kIndentError);
    if (t.kind == TokenKind::kDedent) Fail("unexpected unindent", t, kIndentError);
    if (t.kind == TokenKind::kOp && t.text == "@") {
      out->push_back(ParseDecorated());
      return;
    }
    if (t.kind == TokenKind::kName) {
      std::string_view w = t.text;
      if (w == "def") return out->push_back(ParseFunctionDef(t, {}, false));
      if (w == "class") return out->push_back(ParseClassDef(t, {}));
      if (w == "if") return out->push_back(ParseIf());
      if (w == "while") return out->push_back(ParseWhile());
      if (w == "for") return out->push_back(ParseFor(t, false));
      if (w == "try") return out->push_back(ParseTry());
      if (w == "with") return out->push_back(ParseWith(t, false));
      if (w == "async") {
        const Token& n = Peek();
        if (n.kind == TokenKind::kName) {
          const Token& start = t;
          if (n.text == "def") {
            Next();
            return out->push_back(ParseFunctionDef(start, {}, true));
          }
          if (n.text == "for") {
            Next();
            return out->push_back(ParseFor(start, true));
          }
          if (n.text == "with") {
            Next();
            return out->push_back(ParseWith(start, true));
          }
        }
        Invalid();
      }
      if (w == "match") {
        StmtPtr m = TryParseMatch();
        if (m) return out->push_back(std::move(m));
      }
      if (w == "type" && Peek().kind == TokenKind::kName && !IsKeyword(Peek().text) &&
          Peek(2).kind == TokenKind::kOp && (Peek(2).text == "=" || Peek(2).text == "[")) {
        Fail("type alias statements (Python 3.12) are not supported", t, kUnsupportedSyntax);
      }
    }
    ParseSimpleStatements(out);
  }

  void ParseSimpleStatements(std::vector<StmtPtr>* out) {
    while (true) {
      out->push_back(ParseSimpleStatement());
      if (AcceptOp(";")) {
        if (AtKind(TokenKind::kNewline)) break;
        continue;
      }
      break;
    }
    if (!AtKind(TokenKind::kNewline)) {
      if (AtKind(TokenKind::kEndMarker)) return;
      Invalid();
    }
    Next();
  }

  std::vector<StmtPtr> ParseBlock(const Token& owner) {
    DepthGuard g(this);
    std::vector<StmtPtr> body;
    if (AtKind(TokenKind::kNewline)) {
      Next();
      if (!AtKind(TokenKind::kIndent)) {
        Fail("expected an indented block after '" + std::string(owner.text) +
                 "' statement on line " + std::to_string(owner.line),
             Cur(), kIndentError);
      }
      Next();
      while (!AtKind(TokenKind::kDedent) && !AtKind(TokenKind::kEndMarker)) {
        ParseStatement(&body);
      }
      if (AtKind(TokenKind::kDedent)) Next();
      return body;
    }
    ParseSimpleStatements(&body);
    return body;
  }

  void ExpectColon() {
    if (!AcceptOp(":")) Fail("expected ':'", Cur());
  }

  StmtPtr ParseSimpleStatement() {
    const Token& t = Cur();
    if (t.kind == TokenKind::kName) {
      std::string_view w = t.text;
      if (w == "pass") {
        Next();
        return NewStmt(StmtKind::kPass, SpanFrom(t));
      }
      if (w == "break") {
        Next();
        return NewStmt(StmtKind::kBreak, SpanFrom(t));
      }
      if (w == "continue") {
        Next();
        return NewStmt(StmtKind::kContinue, SpanFrom(t));
      }
      if (w == "return") {
        Next();
        ExprPtr v;
        if (!AtStatementEnd()) v = ParseStarExpressions();
        auto s = NewStmt(StmtKind::kReturn, SpanFrom(t));
        s->value = std::move(v);
        return s;
      }
      if (w == "raise") {
        Next();
        auto s = NewStmt(StmtKind::kRaise, {});
        if (!AtStatementEnd()) {
          s->exc = ParseExpression();
          if (AcceptKw("from")) s->cause = ParseExpression();
        }
        s->span = SpanFrom(t);
        return s;
      }
      if (w == "global" || w == "nonlocal") {
        Next();
        auto s = NewStmt(w == "global" ? StmtKind::kGlobal : StmtKind::kNonlocal, {});
        do {
          s->identifiers.push_back(ExpectName());
        } while (AcceptOp(","));
        s->span = SpanFrom(t);
        return s;
      }
      if (w == "del") {
        Next();
        auto s = NewStmt(StmtKind::kDelete, {});
        do {
          if (AtStatementEnd()) break;
          ExprPtr e = ParseBitOr();
          SetContext(e.get(), ExprContext::kDel);
          s->targets.push_back(std::move(e));
        } while (AcceptOp(","));
        if (s->targets.empty()) Invalid();
        s->span = SpanFrom(t);
        return s;
      }
      if (w == "assert") {
        Next();
        auto s = NewStmt(StmtKind::kAssert, {});
        s->test = ParseExpression();
        if (AcceptOp(",")) s->msg = ParseExpression();
        s->span = SpanFrom(t);
        return s;
      }
      if (w == "import") return ParseImport();
      if (w == "from") return ParseImportFrom();
    }
    return ParseExprOrAssignment();
  }

  bool AtStatementEnd() const {
    return AtKind(TokenKind::kNewline) || AtOp(";") || AtKind(TokenKind::kEndMarker);
  }

  StmtPtr ParseImport() {
    const Token& t = Next();
    auto s = NewStmt(StmtKind::kImport, {});
    do {
      const Token& a = Cur();
      Alias al;
      al.name = ParseDottedName();
      if (AcceptKw("as")) al.asname = ExpectName();
      al.span = SpanFrom(a);
      s->names.push_back(std::move(al));
    } while (AcceptOp(","));
    s->span = SpanFrom(t);
    return s;
  }

  std::string ParseDottedName() {
    std::string n = ExpectName();
    while (AtOp(".")) {
      Next();
      n += ".";
      n += ExpectName();
    }
    return n;
  }

  StmtPtr ParseImportFrom() {
    const Token& t = Next();
    auto s = NewStmt(StmtKind::kImportFrom, {});
    while (AtOp(".") || AtOp("...")) {
      s->level += AtOp(".") ? 1 : 3;
      Next();
    }
    if (!AtKw("import")) s->module = ParseDottedName();
    if (s->module.empty() && s->level == 0) Invalid();
    ExpectKw("import");
    if (AtOp("*")) {
      const Token& st = Next();
      Alias al;
      al.name = "*";
      al.span = SpanFrom(st);
      s->names.push_back(std::move(al));
    } else {
      bool paren = AcceptOp("(");
      do {
        if (paren && AtOp(")")) break;
        const Token& a = Cur();
        Alias al;
        al.name = ExpectName();
        if (AcceptKw("as")) al.asname = ExpectName();
        al.span = SpanFrom(a);
        s->names.push_back(std::move(al));
      } while (AcceptOp(","));
      if (paren) ExpectOp(")");
      if (s->names.empty()) Invalid();
      if (!paren && prev_->text == ",") {
        Fail("trailing comma not allowed without surrounding parentheses", *prev_);
      }
    }
    s->span = SpanFrom(t);
    return s;
  }

  std::optional<Op> AugOp() const {
    if (Cur().kind != TokenKind::kOp) return std::nullopt;
    std::string_view o = Cur().text;
    if (o.size() < 2 || o.back() != '=' || o == "==" || o == "!=" || o == "<=" ||
        o == ">=" || o == ":=") {
      return std::nullopt;
    }
    std::string_view b = o.substr(0, o.size() - 1);
    if (b == "+") return Op::kAdd;
    if (b == "-") return Op::kSub;
    if (b == "*") return Op::kMult;
    if (b == "@") return Op::kMatMult;
    if (b == "/") return Op::kDiv;
    if (b == "%") return Op::kMod;
    if (b == "**") return Op::kPow;
    if (b == "<<") return Op::kLShift;
    if (b == ">>") return Op::kRShift;
    if (b == "|") return Op::kBitOr;
    if (b == "^") return Op::kBitXor;
    if (b == "&") return Op::kBitAnd;
    if (b == "//") return Op::kFloorDiv;
    return std::nullopt;
  }

  ExprPtr ParseStarExpressionsOrYield() {
    if (AtKw("yield")) return ParseYield();
    return ParseStarExpressions();
  }

  StmtPtr ParseExprOrAssignment() {
    const Token& t = Cur();
    bool starts_paren = AtOp("(");
    ExprPtr first = ParseStarExpressionsOrYield();
    if (AtOp("=")) {
      auto s = NewStmt(StmtKind::kAssign, {});
      ExprPtr value = std::move(first);
      while (AcceptOp("=")) {
        SetContext(value.get(), ExprContext::kStore);
        s->targets.push_back(std::move(value));
        value = ParseStarExpressionsOrYield();
      }
      s->value = std::move(value);
      s->span = SpanFrom(t);
      return s;
    }
    if (AtOp(":")) {
      const Token& colon = Cur();
      if (first->kind == ExprKind::kTuple) {
        Fail("only single target (not tuple) can be annotated", t);
      }
      if (first->kind == ExprKind::kList) {
        Fail("only single target (not list) can be annotated", t);
      }
      if (first->kind != ExprKind::kName && first->kind != ExprKind::kAttribute &&
          first->kind != ExprKind::kSubscript) {
        Fail("illegal target for annotation", t);
      }
      Next();
      (void)colon;
      auto s = NewStmt(StmtKind::kAnnAssign, {});
      SetContext(first.get(), ExprContext::kStore);
      s->simple = first->kind == ExprKind::kName && !starts_paren;
      s->target = std::move(first);
      s->annotation = ParseExpression();
      if (AcceptOp("=")) s->value = ParseStarExpressionsOrYield();
      s->span = SpanFrom(t);
      return s;
    }
    if (auto op = AugOp()) {
      if (first->kind != ExprKind::kName && first->kind != ExprKind::kAttribute &&
          first->kind != ExprKind::kSubscript) {
        Fail("'" + Describe(*first) + "' is an illegal expression for augmented assignment",
             t);
      }
      Next();
      auto s = NewStmt(StmtKind::kAugAssign, {});
      SetContext(first.get(), ExprContext::kStore);
      s->target = std::move(first);
      s->op = *op;
      s->value = ParseStarExpressionsOrYield();
      s->span = SpanFrom(t);
      return s;
    }
    if (!AtStatementEnd()) Invalid();
    auto s = NewStmt(StmtKind::kExpr, SpanFrom(t));
    s->value = std::move(first);
    return s;
  }

  void SetContext(Expr* e, ExprContext ctx) {
    const char* verb = ctx == ExprContext::kDel ? "cannot delete " : "cannot assign to ";
    switch (e->kind) {
      case ExprKind::kName:
        e->ctx = ctx;
        if (ctx == ExprContext::kStore && e->id == "__debug__") {
          FailAt("cannot assign to __debug__", e->span.line, e->span.col);
        }
        return;
      case ExprKind::kAttribute:
      case ExprKind::kSubscript:
        e->ctx = ctx;
        return;
      case ExprKind::kTuple:
      case ExprKind::kList:
        e->ctx = ctx;
        for (auto& c : e->elts) SetContext(c.get(), ctx);
        return;
      case ExprKind::kStarred:
        if (ctx == ExprContext::kDel) {
          FailAt(std::string(verb) + "starred", e->span.line, e->span.col);
        }
        e->ctx = ctx;
        SetContext(e->value_expr.get(), ctx);
        return;
      default:
        FailAt(std::string(verb) + Describe(*e), e->span.line, e->span.col);
    }
  }

  std::vector<ExprPtr> ParseDecorators() {
    std::vector<ExprPtr> decs;
    while (AtOp("@")) {
      Next();
      decs.push_back(ParseNamedExpression());
      if (!AtKind(TokenKind::kNewline)) Invalid();
      Next();
    }
    return decs;
  }

  StmtPtr ParseDecorated() {
    std::vector<ExprPtr> decs = ParseDecorators();
    const Token& t = Cur();
    if (AtKw("def")) return ParseFunctionDef(t, std::move(decs), false);
    if (AtKw("class")) return ParseClassDef(t, std::move(decs));
    if (AtKw("async") && Peek().kind == TokenKind::kName && Peek().text == "def") {
      Next();
      return ParseFunctionDef(t, std::move(decs), true);
    }
    Fail("expected 'def' or 'class' after decorator", t);
  }

  StmtPtr ParseFunctionDef(const Token& start, std::vector<ExprPtr> decs, bool is_async) {
    const Token& def_tok = Next();  // 'def'
    auto s = NewStmt(StmtKind::kFunctionDef, {});
    s->is_async = is_async;
    s->name = ExpectName();
    if (AtOp("[")) {
      Fail("generic parameter lists (PEP 695, Python 3.12) are not supported", Cur(),
           kUnsupportedSyntax);
    }
    ExpectOp("(");
    s->args = ParseParameters(")", true);
    ExpectOp(")");
    if (AcceptOp("->")) s->returns = ParseExpression();
    ExpectColon();
    s->body = ParseBlock(def_tok);
    s->decorator_list = std::move(decs);
    s->span = SpanFrom(start);
    return s;
  }

  Arg ParseParam(bool annotations, bool star_annotation) {
    const Token& t = Cur();
    Arg a;
    a.arg = ExpectName();
    if (annotations && AcceptOp(":")) {
      if (star_annotation && AtOp("*")) {
        const Token& st = Next();
        auto e = NewExpr(ExprKind::kStarred, {});
        e->value_expr = ParseBitOr();
        e->span = SpanFrom(st);
        a.annotation = std::move(e);
      } else {
        a.annotation = ParseExpression();
      }
    }
    a.span = SpanFrom(t);
    return a;
  }

  std::unique_ptr<Arguments> ParseParameters(std::string_view closing, bool annotations) {
    auto a = std::make_unique<Arguments>();
    bool seen_default = false, seen_star = false, seen_slash = false, seen_kwarg = false;
    while (!AtOp(closing)) {
      if (seen_kwarg) Fail("arguments cannot follow var-keyword argument", Cur());
      if (AtOp("/")) {
        if (seen_slash) Fail("/ may appear only once", Cur());
        if (seen_star) Fail("/ must be ahead of *", Cur());
        if (a->args.empty()) Fail("at least one argument must precede /", Cur());
        Next();
        seen_slash = true;
        for (auto& p : a->args) a->posonlyargs.push_back(std::move(p));
        a->args.clear();
      } else if (AtOp("*")) {
        if (seen_star) Fail("* argument may appear only once", Cur());
        const Token& st = Next();
        seen_star = true;
        if (AtOp(",") || AtOp(closing)) {
          if (AtOp(closing) || Peek().text == closing) {
            Fail("named arguments must follow bare *", st);
          }
        } else {
          a->vararg = ParseParam(annotations, true);
        }
      } else if (AtOp("**")) {
        Next();
        a->kwarg = ParseParam(annotations, false);
        seen_kwarg = true;
      } else {
        Arg p = ParseParam(annotations, false);
        ExprPtr def;
        if (AcceptOp("=")) def = ParseExpression();
        if (seen_star) {
          a->kwonlyargs.push_back(std::move(p));
          a->kw_defaults.push_back(std::move(def));
        } else {
          if (def) {
            seen_default = true;
            a->defaults.push_back(std::move(def));
          } else if (seen_default) {
            FailAt("non-default argument follows default argument", p.span.line, p.span.col);
          }
          a->args.push_back(std::move(p));
        }
      }
      if (!AcceptOp(",")) break;
    }
    if (seen_star && !a->vararg && a->kwonlyargs.empty()) {
      Fail("named arguments must follow bare *", Cur());
    }
    return a;
  }

  StmtPtr ParseClassDef(const Token& start, std::vector<ExprPtr> decs) {
    const Token& class_tok = Next();
    auto s = NewStmt(StmtKind::kClassDef, {});
    s->name = ExpectName();
    if (AtOp("[")) {
      Fail("generic parameter lists (PEP 695, Python 3.12) are not supported", Cur(),
           kUnsupportedSyntax);
    }
    if (AtOp("(")) {
      Next();
      ParseArgList(&s->bases, &s->keywords, false, nullptr);
      ExpectOp(")");
    }
    ExpectColon();
    s->body = ParseBlock(class_tok);
    s->decorator_list = std::move(decs);
    s->span = SpanFrom(start);
    return s;
  }

  StmtPtr ParseIf() {
    const Token& t = Next();  // 'if' or 'elif'
    auto s = NewStmt(StmtKind::kIf, {});
    s->test = ParseNamedExpression();
    ExpectColon();
    s->body = ParseBlock(t);
    if (AtKw("elif")) {
      s->orelse.push_back(ParseIf());
    } else if (AtKw("else")) {
      const Token& e = Next();
      ExpectColon();
      s->orelse = ParseBlock(e);
    }
    s->span = SpanFrom(t);
    return s;
  }

  StmtPtr ParseWhile() {
    const Token& t = Next();
    auto s = NewStmt(StmtKind::kWhile, {});
    s->test = ParseNamedExpression();
    ExpectColon();
    s->body = ParseBlock(t);
    if (AtKw("else")) {
      const Token& e = Next();
      ExpectColon();
      s->orelse = ParseBlock(e);
    }
    s->span = SpanFrom(t);
    return s;
  }

  StmtPtr ParseFor(const Token& start, bool is_async) {
    const Token& t = Next();  // 'for'
    auto s = NewStmt(StmtKind::kFor, {});
    s->is_async = is_async;
    s->target = ParseTargetList();
    ExpectKw("in");
    s->iter = ParseStarExpressions();
    ExpectColon();
    s->body = ParseBlock(t);
    if (AtKw("else")) {
      const Token& e = Next();
      ExpectColon();
      s->orelse = ParseBlock(e);
    }
    s->span = SpanFrom(start);
    return s;
  }

  // star_targets: comma-separated targets (bitwise_or level, so `in` ends them).
  ExprPtr ParseTargetList() {
    const Token& t = Cur();
    std::vector<ExprPtr> elts;
    bool trailing = false;
    while (true) {
      ExprPtr e;
      if (AtOp("*")) {
        const Token& st = Next();
        e = NewExpr(ExprKind::kStarred, {});
        e->value_expr = ParseBitOr();
        e->span = SpanFrom(st);
      } else {
        e = ParseBitOr();
      }
      elts.push_back(std::move(e));
      trailing = false;
      if (!AtOp(",")) break;
      Next();
      trailing = true;
      if (AtKw("in") || AtOp("=") || AtOp(":")) break;
    }
    ExprPtr result;
    if (elts.size() == 1 && !trailing) {
      result = std::move(elts[0]);
    } else {
      result = NewExpr(ExprKind::kTuple, SpanFrom(t));
      result->elts = std::move(elts);
    }
    SetContext(result.get(), ExprContext::kStore);
    return result;
  }

  StmtPtr ParseWith(const Token& start, bool is_async) {
    const Token& t = Next();  // 'with'
    auto s = NewStmt(StmtKind::kWith, {});
    s->is_async = is_async;
    bool parsed = false;
    if (AtOp("(")) {
      // Parenthesized with-items (`with (a as b, c):`) take precedence, as in CPython.
      size_t save = pos_;
      const Token* save_prev = prev_;
      try {
        Next();
        std::vector<WithItem> items;
        while (true) {
          items.push_back(ParseWithItem());
          if (!AcceptOp(",")) break;
          if (AtOp(")")) break;
        }
        ExpectOp(")");
        if (!AtOp(":")) throw SyntaxError{};
        s->items = std::move(items);
        parsed = true;
      } catch (const SyntaxError&) {
        pos_ = save;
        prev_ = save_prev;
      }
    }
    if (!parsed) {
      do {
        s->items.push_back(ParseWithItem());
      } while (AcceptOp(","));
    }
    ExpectColon();
    s->body = ParseBlock(t);
    s->span = SpanFrom(start);
    return s;
  }

  WithItem ParseWithItem() {
    WithItem w;
    w.context_expr = ParseExpression();
    if (AcceptKw("as")) {
      const Token& tt = Cur();
      ExprPtr target;
      if (AtOp("*")) {
        Invalid();
      }
      target = ParseBitOr();
      (void)tt;
      SetContext(target.get(), ExprContext::kStore);
      if (!AtOp(",") && !AtOp(")") && !AtOp(":")) Invalid();
      w.optional_vars = std::move(target);
    }
    return w;
  }

  StmtPtr ParseTry() {
    const Token& t = Next();
    auto s = NewStmt(StmtKind::kTry, {});
    ExpectColon();
    s->body = ParseBlock(t);
    bool any_plain = false, any_star = false;
    while (AtKw("except")) {
      const Token& et = Next();
      ExceptHandler h;
      bool star = AcceptOp("*");
      (star ? any_star : any_plain) = true;
      if (any_star && any_plain) {
        Fail("cannot have both 'except' and 'except*' on the same 'try'", et);
      }
      if (!AtOp(":")) {
        h.type = ParseExpression();
        if (AtOp(",")) {
          Fail("multiple exception types must be parenthesized", Cur());
        }
        if (AcceptKw("as")) h.name = ExpectName();
      } else if (star) {
        Fail("expected one or more exception types", Cur());
      }
      ExpectColon();
      h.body = ParseBlock(et);
      h.span = SpanFrom(et);
      s->handlers.push_back(std::move(h));
    }
    s->is_star = any_star;
    if (AtKw("else")) {
      if (s->handlers.empty()) Invalid();
      const Token& e = Next();
      ExpectColon();
      s->orelse = ParseBlock(e);
    }
    if (AtKw("finally")) {
      const Token& f = Next();
      ExpectColon();
      s->finalbody = ParseBlock(f);
    }
    if (s->handlers.empty() && s->finalbody.empty()) {
      Fail("expected 'except' or 'finally' block", t);
    }
    s->span = SpanFrom(t);
    return s;
  }

  // ---- match -------------------------------------------------------------------------
  StmtPtr TryParseMatch() {
    size_t save = pos_;
    const Token* save_prev = prev_;
    const Token& t = Next();  // 'match'
    ExprPtr subject;
    try {
      if (AtKind(TokenKind::kNewline) || AtOp("=") || AtOp(".") || AtOp(",") || AtOp(")") ||
          AtOp(":") || AugOp()) {
        throw SyntaxError{};
      }
      const Token& st = Cur();
      ExprPtr first;
      if (AtOp("*")) {
        first = ParseStarExpressionItem();
      } else {
        first = ParseNamedExpression();
      }
      if (AtOp(",")) {
        auto tup = NewExpr(ExprKind::kTuple, {});
        tup->elts.push_back(std::move(first));
        while (AcceptOp(",")) {
          if (AtOp(":")) break;
          tup->elts.push_back(AtOp("*") ? ParseStarExpressionItem() : ParseNamedExpression());
        }
        tup->span = SpanFrom(st);
        first = std::move(tup);
      }
      if (!AtOp(":") || Peek().kind != TokenKind::kNewline) throw SyntaxError{};
      subject = std::move(first);
    } catch (const SyntaxError&) {
      pos_ = save;
      prev_ = save_prev;
      return nullptr;
    }
    Next();  // ':'
    Next();  // NEWLINE
    if (!AtKind(TokenKind::kIndent)) {
      Fail("expected an indented block after 'match' statement on line " +
               std::to_string(t.line),
           Cur(), kIndentError);
    }
    Next();
    auto s = NewStmt(StmtKind::kMatch, {});
    s->subject = std::move(subject);
    while (!AtKind(TokenKind::kDedent) && !AtKind(TokenKind::kEndMarker)) {
      if (!AtKw("case")) Fail("expected 'case' block", Cur());
      const Token& ct = Next();
      MatchCase c;
      c.pattern = ParsePatterns();
      if (AcceptKw("if")) c.guard = ParseNamedExpression();
      ExpectColon();
      c.body = ParseBlock(ct);
      s->cases.push_back(std::move(c));
    }
    if (AtKind(TokenKind::kDedent)) Next();
    if (s->cases.empty()) Invalid();
    s->span = SpanFrom(t);
    return s;
  }

  static PatternPtr NewPattern(PatternKind k, Span s) {
    auto p = std::make_unique<Pattern>();
    p->kind = k;
    p->span = s;
    return p;
  }

  PatternPtr ParsePatterns() {
    const Token& t = Cur();
    PatternPtr first = ParseMaybeStarPattern();
    if (!AtOp(",")) {
      if (first->kind == PatternKind::kMatchStar) {
        auto seq = NewPattern(PatternKind::kMatchSequence, SpanFrom(t));
        seq->patterns.push_back(std::move(first));
        return seq;
      }
      return first;
    }
    auto seq = NewPattern(PatternKind::kMatchSequence, {});
    seq->patterns.push_back(std::move(first));
    while (AcceptOp(",")) {
      if (AtOp(":") || AtKw("if")) break;
      seq->patterns.push_back(ParseMaybeStarPattern());
    }
    seq->span = SpanFrom(t);
    return seq;
  }

  PatternPtr ParseMaybeStarPattern() {
    if (AtOp("*")) {
      const Token& t = Next();
      std::string n = ExpectName();
      auto p = NewPattern(PatternKind::kMatchStar, SpanFrom(t));
      if (n != "_") p->name = n;
      return p;
    }
    return ParsePattern();
  }

  PatternPtr ParsePattern() {
    DepthGuard g(this);
    const Token& t = Cur();
    PatternPtr p = ParseOrPattern();
    if (AcceptKw("as")) {
      const Token& nt = Cur();
      std::string n = ExpectName();
      if (n == "_") Fail("cannot use '_' as a target", nt);
      auto as = NewPattern(PatternKind::kMatchAs, SpanFrom(t));
      as->pattern = std::move(p);
      as->name = n;
      return as;
    }
    return p;
  }

  PatternPtr ParseOrPattern() {
    const Token& t = Cur();
    PatternPtr first = ParseClosedPattern();
    if (!AtOp("|")) return first;
    auto orp = NewPattern(PatternKind::kMatchOr, {});
    orp->patterns.push_back(std::move(first));
    while (AcceptOp("|")) orp->patterns.push_back(ParseClosedPattern());
    orp->span = SpanFrom(t);
    return orp;
  }

  ExprPtr ParseSignedNumber() {
    const Token& t = Cur();
    bool neg = AcceptOp("-");
    if (!AtKind(TokenKind::kNumber)) Invalid();
    ExprPtr n = ParseAtom();
    if (neg) {
      auto u = NewExpr(ExprKind::kUnaryOp, SpanFrom(t));
      u->op = Op::kUSub;
      u->operand = std::move(n);
      n = std::move(u);
    }
    if (AtOp("+") || AtOp("-")) {
      Op op = AtOp("+") ? Op::kAdd : Op::kSub;
      Next();
      if (!AtKind(TokenKind::kNumber)) Invalid();
      ExprPtr im = ParseAtom();
      if (im->const_kind != ConstKind::kImag) {
        FailAt("imaginary number required in complex literal", im->span.line, im->span.col);
      }
      auto b = NewExpr(ExprKind::kBinOp, SpanFrom(t));
      b->left = std::move(n);
      b->op = op;
      b->right = std::move(im);
      n = std::move(b);
    }
    return n;
  }

  ExprPtr ParseDottedValue() {
    const Token& t = Cur();
    auto e = NewExpr(ExprKind::kName, {});
    e->id = ExpectName();
    e->span = SpanFrom(t);
    while (AtOp(".")) {
      Next();
      auto a = NewExpr(ExprKind::kAttribute, {});
      a->value_expr = std::move(e);
      a->id = ExpectName();
      a->span = SpanFrom(t);
      e = std::move(a);
    }
    return e;
  }

  PatternPtr ParseClosedPattern() {
    DepthGuard g(this);
    const Token& t = Cur();
    if (AtKind(TokenKind::kNumber) || AtOp("-")) {
      auto p = NewPattern(PatternKind::kMatchValue, {});
      p->value = ParseSignedNumber();
      p->span = SpanFrom(t);
      return p;
    }
    if (AtKind(TokenKind::kString)) {
      auto p = NewPattern(PatternKind::kMatchValue, {});
      p->value = ParseAtom();
      if (p->value->kind == ExprKind::kJoinedStr) {
        FailAt("patterns may only match literals and attribute lookups", t.line, t.col);
      }
      p->span = SpanFrom(t);
      return p;
    }
    if (AtKw("None") || AtKw("True") || AtKw("False")) {
      auto p = NewPattern(PatternKind::kMatchSingleton, {});
      p->value = ParseAtom();
      p->span = SpanFrom(t);
      return p;
    }
    if (AtKind(TokenKind::kName) && !IsKeyword(Cur().text)) {
      ExprPtr name = ParseDottedValue();
      if (AtOp("(")) return ParseClassPattern(t, std::move(name));
      if (name->kind == ExprKind::kAttribute) {
        auto p = NewPattern(PatternKind::kMatchValue, SpanFrom(t));
        p->value = std::move(name);
        return p;
      }
      auto p = NewPattern(PatternKind::kMatchAs, SpanFrom(t));
      if (name->id != "_") p->name = name->id;
      return p;
    }
    if (AtOp("(") || AtOp("[")) {
      bool paren = AtOp("(");
      std::string_view close = paren ? ")" : "]";
      Next();
      std::vector<PatternPtr> items;
      bool comma = false;
      while (!AtOp(close)) {
        items.push_back(ParseMaybeStarPattern());
        if (!AcceptOp(",")) break;
        comma = true;
      }
      ExpectOp(close);
      if (paren && items.size() == 1 && !comma && items[0]->kind != PatternKind::kMatchStar) {
        return std::move(items[0]);  // group pattern
      }
      auto p = NewPattern(PatternKind::kMatchSequence, SpanFrom(t));
      p->patterns = std::move(items);
      return p;
    }
    if (AtOp("{")) {
      Next();
      auto p = NewPattern(PatternKind::kMatchMapping, {});
      while (!AtOp("}")) {
        if (AtOp("**")) {
          Next();
          p->rest = ExpectName();
          AcceptOp(",");
          break;
        }
        ExprPtr key;
        if (AtKind(TokenKind::kNumber) || AtOp("-")) {
          key = ParseSignedNumber();
        } else if (AtKind(TokenKind::kString) || AtKw("None") || AtKw("True") ||
                   AtKw("False")) {
          key = ParseAtom();
        } else if (AtKind(TokenKind::kName)) {
          key = ParseDottedValue();
          if (key->kind != ExprKind::kAttribute) Invalid();
        } else {
          Invalid();
        }
        p->keys.push_back(std::move(key));
        ExpectColon();
        p->patterns.push_back(ParsePattern());
        if (!AcceptOp(",")) break;
      }
      ExpectOp("}");
      p->span = SpanFrom(t);
      return p;
    }
    Invalid();
  }

  PatternPtr ParseClassPattern(const Token& t, ExprPtr cls) {
    ExpectOp("(");
    auto p = NewPattern(PatternKind::kMatchClass, {});
    p->cls = std::move(cls);
    bool keywords = false;
    while (!AtOp(")")) {
      if (AtKind(TokenKind::kName) && Peek().kind == TokenKind::kOp && Peek().text == "=") {
        p->kwd_attrs.push_back(ExpectName());
        Next();
        p->kwd_patterns.push_back(ParsePattern());
        keywords = true;
      } else {
        if (keywords) Fail("positional patterns follow keyword patterns", Cur());
        p->patterns.push_back(ParsePattern());
      }
      if (!AcceptOp(",")) break;
    }
    ExpectOp(")");
    p->span = SpanFrom(t);
    return p;
  }

  // ---- expressions -------------------------------------------------------------------
  ExprPtr ParseYield() {
    const Token& t = Next();  // 'yield'
    if (AcceptKw("from")) {
      auto e = NewExpr(ExprKind::kYieldFrom, {});
      e->value_expr = ParseExpression();
      e->span = SpanFrom(t);
      return e;
    }
    auto e = NewExpr(ExprKind::kYield, {});
    if (!AtStatementEnd() && !AtOp(")") && !AtOp("]") && !AtOp("}") && !AtOp("=")) {
      e->value_expr = ParseStarExpressions();
    }
    e->span = SpanFrom(t);
    return e;
  }

  ExprPtr ParseStarExpressionItem() {
    if (AtOp("*")) {
      const Token& t = Next();
      auto e = NewExpr(ExprKind::kStarred, {});
      e->value_expr = ParseBitOr();
      e->span = SpanFrom(t);
      return e;
    }
    return ParseExpression();
  }

  bool AtExpressionListEnd() const {
    if (AtStatementEnd()) return true;
    if (Cur().kind != TokenKind::kOp) return AtKw("in") || AtKw("for") || AtKw("if");
    std::string_view o = Cur().text;
    return o == ")" || o == "]" || o == "}" || o == "=" || o == ":" || AugOp().has_value();
  }

  // star_expressions: a, *b, c  → Tuple when a comma is present.
  ExprPtr ParseStarExpressions() {
    const Token& t = Cur();
    ExprPtr first = ParseStarExpressionItem();
    if (!AtOp(",")) return first;
    auto tup = NewExpr(ExprKind::kTuple, {});
    tup->elts.push_back(std::move(first));
    while (AcceptOp(",")) {
      if (AtExpressionListEnd()) break;
      tup->elts.push_back(ParseStarExpressionItem());
    }
    tup->span = SpanFrom(t);
    return tup;
  }

  ExprPtr ParseNamedExpression() {
    if (Cur().kind == TokenKind::kName && Peek().kind == TokenKind::kOp &&
        Peek().text == ":=") {
      const Token& t = Cur();
      if (IsKeyword(t.text)) Fail("cannot use assignment expressions with " +
                                      std::string(t.text), t);
      auto target = NewExpr(ExprKind::kName, {});
      target->id = std::string(Next().text);
      target->span = SpanFrom(t);
      target->ctx = ExprContext::kStore;
      Next();  // ':='
      auto e = NewExpr(ExprKind::kNamedExpr, {});
      e->target = std::move(target);
      e->value_expr = ParseExpression();
      e->span = SpanFrom(t);
      return e;
    }
    ExprPtr e = ParseExpression();
    if (AtOp(":=")) {
      Fail("cannot use assignment expressions with " + Describe(*e), Cur());
    }
    return e;
  }

  ExprPtr ParseStarNamedExpression() {
    if (AtOp("*")) {
      const Token& t = Next();
      auto e = NewExpr(ExprKind::kStarred, {});
      e->value_expr = ParseBitOr();
      e->span = SpanFrom(t);
      return e;
    }
    return ParseNamedExpression();
  }

  ExprPtr ParseExpression() {
    DepthGuard g(this);
    if (AtKw("lambda")) return ParseLambda();
    const Token& t = Cur();
    ExprPtr body = ParseDisjunction();
    if (AtKw("if")) {
      Next();
      auto e = NewExpr(ExprKind::kIfExp, {});
      e->test = ParseDisjunction();
      if (!AcceptKw("else")) Fail("expected 'else' after 'if' expression", Cur());
      e->body = std::move(body);
      e->orelse = ParseExpression();
      e->span = SpanFrom(t);
      return e;
    }
    return body;
  }

  ExprPtr ParseLambda() {
    const Token& t = Next();
    auto e = NewExpr(ExprKind::kLambda, {});
    e->lambda_args = ParseParameters(":", false);
    ExpectColon();
    e->body = ParseExpression();
    e->span = SpanFrom(t);
    return e;
  }

  ExprPtr ParseBoolChain(bool is_or) {
    const Token& t = Cur();
    ExprPtr first = is_or ? ParseBoolChain(false) : ParseInversion();
    std::string_view kw = is_or ? "or" : "and";
    if (!AtKw(kw)) return first;
    auto e = NewExpr(ExprKind::kBoolOp, {});
    e->op = is_or ? Op::kOr : Op::kAnd;
    e->elts.push_back(std::move(first));
    while (AcceptKw(kw)) e->elts.push_back(is_or ? ParseBoolChain(false) : ParseInversion());
    e->span = SpanFrom(t);
    return e;
  }
  ExprPtr ParseDisjunction() { return ParseBoolChain(true); }

  ExprPtr ParseInversion() {
    if (AtKw("not")) {
      DepthGuard g(this);
      const Token& t = Next();
      auto e = NewExpr(ExprKind::kUnaryOp, {});
      e->op = Op::kNot;
      e->operand = ParseInversion();
      e->span = SpanFrom(t);
      return e;
    }
    return ParseComparison();
  }

  std::optional<Op> CompareOp() {
    const Token& c = Cur();
    if (c.kind == TokenKind::kOp) {
      std::string_view o = c.text;
      if (o == "==") return Op::kEq;
      if (o == "!=") return Op::kNotEq;
      if (o == "<") return Op::kLt;
      if (o == "<=") return Op::kLtE;
      if (o == ">") return Op::kGt;
      if (o == ">=") return Op::kGtE;
      return std::nullopt;
    }
    if (c.kind == TokenKind::kName) {
      if (c.text == "in") return Op::kIn;
      if (c.text == "is") {
        return (Peek().kind == TokenKind::kName && Peek().text == "not") ? Op::kIsNot : Op::kIs;
      }
      if (c.text == "not" && Peek().kind == TokenKind::kName && Peek().text == "in") {
        return Op::kNotIn;
      }
    }
    return std::nullopt;
  }

  ExprPtr ParseComparison() {
    const Token& t = Cur();
    ExprPtr left = ParseBitOr();
    auto op = CompareOp();
    if (!op) return left;
    auto e = NewExpr(ExprKind::kCompare, {});
    e->left = std::move(left);
    while ((op = CompareOp())) {
      Next();
      if (*op == Op::kIsNot || *op == Op::kNotIn) Next();
      e->ops.push_back(*op);
      e->elts.push_back(ParseBitOr());
    }
    e->span = SpanFrom(t);
    return e;
  }

  // Binary operator levels, lowest first: | ^ & shift arith term.
  std::optional<Op> BinOpAt(int level) const {
    if (Cur().kind != TokenKind::kOp) return std::nullopt;
    std::string_view o = Cur().text;
    switch (level) {
      case 0: if (o == "|") return Op::kBitOr; break;
      case 1: if (o == "^") return Op::kBitXor; break;
      case 2: if (o == "&") return Op::kBitAnd; break;
      case 3:
        if (o == "<<") return Op::kLShift;
        if (o == ">>") return Op::kRShift;
        break;
      case 4:
        if (o == "+") return Op::kAdd;
        if (o == "-") return Op::kSub;
        break;
      case 5:
        if (o == "*") return Op::kMult;
        if (o == "/") return Op::kDiv;
        if (o == "//") return Op::kFloorDiv;
        if (o == "%") return Op::kMod;
        if (o == "@") return Op::kMatMult;
        break;
      default: break;
    }
    return std::nullopt;
  }

  ExprPtr ParseBinLevel(int level) {
    if (level == 6) return ParseFactor();
    const Token& t = Cur();
    ExprPtr left = ParseBinLevel(level + 1);
    while (auto op = BinOpAt(level)) {
      Next();
      auto e = NewExpr(ExprKind::kBinOp, {});
      e->left = std::move(left);
      e->op = *op;
      e->right = ParseBinLevel(level + 1);
      e->span = SpanFrom(t);
      left = std::move(e);
    }
    return left;
  }
  ExprPtr ParseBitOr() { return ParseBinLevel(0); }

  ExprPtr ParseFactor() {
    if (AtOp("+") || AtOp("-") || AtOp("~")) {
      DepthGuard g(this);
      const Token& t = Next();
      auto e = NewExpr(ExprKind::kUnaryOp, {});
      e->op = t.text == "+" ? Op::kUAdd : t.text == "-" ? Op::kUSub : Op::kInvert;
      e->operand = ParseFactor();
      e->span = SpanFrom(t);
      return e;
    }
    return ParsePower();
  }

  ExprPtr ParsePower() {
    const Token& t = Cur();
    ExprPtr base;
    if (AtKw("await")) {
      Next();
      base = NewExpr(ExprKind::kAwait, {});
      base->value_expr = ParsePrimary();
      base->span = SpanFrom(t);
    } else {
      base = ParsePrimary();
    }
    if (AtOp("**")) {
      DepthGuard g(this);
      Next();
      auto e = NewExpr(ExprKind::kBinOp, {});
      e->left = std::move(base);
      e->op = Op::kPow;
      e->right = ParseFactor();
      e->span = SpanFrom(t);
      return e;
    }
    return base;
  }

  ExprPtr ParsePrimary() {
    const Token& t = Cur();
    ExprPtr e = ParseAtom();
    while (true) {
      if (AtOp(".")) {
        Next();
        auto a = NewExpr(ExprKind::kAttribute, {});
        a->value_expr = std::move(e);
        a->id = ExpectName();
        a->span = SpanFrom(t);
        e = std::move(a);
      } else if (AtOp("(")) {
        const Token& open = Next();
        auto c = NewExpr(ExprKind::kCall, {});
        c->func = std::move(e);
        ParseArgList(&c->args, &c->keywords, true, &open);
        ExpectOp(")");
        c->span = SpanFrom(t);
        e = std::move(c);
      } else if (AtOp("[")) {
        Next();
        auto s = NewExpr(ExprKind::kSubscript, {});
        s->value_expr = std::move(e);
        s->slice = ParseSlices();
        ExpectOp("]");
        s->span = SpanFrom(t);
        e = std::move(s);
      } else {
        break;
      }
    }
    return e;
  }

  // Call arguments up to (not including) ')'. `open` is the '(' token (for the span of a
  // bare generator argument).
  void ParseArgList(std::vector<ExprPtr>* args, std::vector<Keyword>* keywords,
                    bool allow_genexp, const Token* open) {
    bool seen_keyword = false, seen_kwunpack = false;
    while (!AtOp(")")) {
      const Token& t = Cur();
      if (AtOp("*")) {
        Next();
        if (seen_kwunpack) {
          Fail("iterable argument unpacking follows keyword argument unpacking", t);
        }
        auto e = NewExpr(ExprKind::kStarred, {});
        e->value_expr = ParseExpression();
        e->span = SpanFrom(t);
        args->push_back(std::move(e));
      } else if (AtOp("**")) {
        Next();
        Keyword k;
        k.value = ParseExpression();
        k.span = SpanFrom(t);
        keywords->push_back(std::move(k));
        seen_kwunpack = true;
      } else if (Cur().kind == TokenKind::kName && Peek().kind == TokenKind::kOp &&
                 Peek().text == "=") {
        Keyword k;
        if (IsKeyword(t.text)) {
          Fail("cannot assign to " + std::string(t.text), t);
        }
        for (const auto& prior : *keywords) {
          if (prior.arg == t.text) Fail("keyword argument repeated: " + prior.arg, t);
        }
        k.arg = std::string(Next().text);
        Next();  // '='
        k.value = ParseExpression();
        k.span = SpanFrom(t);
        keywords->push_back(std::move(k));
        seen_keyword = true;
      } else {
        ExprPtr e = ParseNamedExpression();
        if (AtKw("for") || (AtKw("async") && Peek().text == "for")) {
          if (!allow_genexp) Invalid();
          auto g = NewExpr(ExprKind::kGeneratorExp, {});
          g->elt = std::move(e);
          g->generators = ParseGenerators();
          if (!args->empty() || !keywords->empty() || !AtOp(")")) {
            FailAt("Generator expression must be parenthesized", t.line, t.col);
          }
          Span s = SpanFrom(t);
          if (open) {
            s.line = open->line;
            s.col = open->col;
            s.end_line = Cur().end_line;
            s.end_col = Cur().end_col;
          }
          g->span = s;
          args->push_back(std::move(g));
          break;
        }
        if (seen_kwunpack) {
          FailAt("positional argument follows keyword argument unpacking", t.line, t.col);
        }
        if (seen_keyword) {
          FailAt("positional argument follows keyword argument", t.line, t.col);
        }
        args->push_back(std::move(e));
      }
      if (!AcceptOp(",")) break;
    }
  }

  std::vector<Comprehension> ParseGenerators() {
    std::vector<Comprehension> gens;
    while (AtKw("for") || (AtKw("async") && Peek().text == "for")) {
      Comprehension c;
      if (AcceptKw("async")) c.is_async = true;
      ExpectKw("for");
      c.target = ParseTargetList();
      ExpectKw("in");
      c.iter = ParseDisjunction();
      while (AtKw("if")) {
        Next();
        c.ifs.push_back(ParseDisjunction());
      }
      gens.push_back(std::move(c));
    }
    return gens;
  }

  ExprPtr ParseSlices() {
    const Token& t = Cur();
    ExprPtr first = ParseSlice();
    if (!AtOp(",")) return first;
    auto tup = NewExpr(ExprKind::kTuple, {});
    tup->elts.push_back(std::move(first));
    while (AcceptOp(",")) {
      if (AtOp("]")) break;
      tup->elts.push_back(ParseSlice());
    }
    tup->span = SpanFrom(t);
    return tup;
  }

  ExprPtr ParseSlice() {
    const Token& t = Cur();
    if (AtOp("*")) return ParseStarNamedExpression();
    ExprPtr lower;
    if (!AtOp(":")) {
      lower = ParseNamedExpression();
      if (!AtOp(":")) return lower;
      if (lower->kind == ExprKind::kNamedExpr) Invalid();
    }
    Next();  // ':'
    auto s = NewExpr(ExprKind::kSlice, {});
    s->lower = std::move(lower);
    if (!AtOp(":") && !AtOp(",") && !AtOp("]")) s->upper = ParseExpression();
    if (AcceptOp(":")) {
      if (!AtOp(",") && !AtOp("]")) s->step = ParseExpression();
    }
    s->span = SpanFrom(t);
    return s;
  }

  ExprPtr ParseNumber(const Token& t) {
    auto e = NewExpr(ExprKind::kConstant, Span{t.line, t.col, t.end_line, t.end_col});
    std::string_view s = t.text;
    e->text = std::string(s);
    char last = s.back();
    bool prefixed = s.size() > 1 && s[0] == '0' &&
                    std::string_view("xXoObB").find(s[1]) != std::string_view::npos;
    if (last == 'j' || last == 'J') {
      e->const_kind = ConstKind::kImag;
      e->value = lit::FloatRepr(lit::ParseFloat(s));
    } else if (!prefixed && s.find_first_of(".eE") != std::string_view::npos) {
      e->const_kind = ConstKind::kFloat;
      e->value = lit::FloatRepr(lit::ParseFloat(s));
    } else {
      e->const_kind = ConstKind::kInt;
      // CPython 3.11 refuses decimal literals over sys.int_info.default_max_str_digits digits
      // (its conversion is quadratic); opdev applies the same bound, and to hex/octal/binary
      // literals the equivalent value size (so canonicalising stays linear-bounded).
      size_t digits = 0;
      for (size_t i = prefixed ? 2 : 0; i < s.size(); ++i) digits += s[i] != '_';
      const int bits = !prefixed ? 0 : (s[1] | 0x20) == 'x' ? 4 : (s[1] | 0x20) == 'o' ? 3 : 1;
      if (!prefixed && digits > lit::kMaxIntDigits)
        Fail("Exceeds the limit (" + std::to_string(lit::kMaxIntDigits) +
                 " digits) for integer string conversion: value has " + std::to_string(digits) +
                 " digits; use sys.set_int_max_str_digits() to increase the limit - Consider "
                 "hexadecimal for huge integer literals to avoid decimal conversion limits.",
             t);
      if (prefixed && digits * bits > lit::kMaxIntBits)
        Fail("integer literal of " + std::to_string(digits * bits) + " bits exceeds opdev's limit of " +
                 std::to_string(lit::kMaxIntBits) + " bits (the size of a " +
                 std::to_string(lit::kMaxIntDigits) + "-digit decimal)",
             t);
      e->value = lit::IntToDecimal(s);
    }
    return e;
  }

  ExprPtr ParseAtom() {
    DepthGuard g(this);
    const Token& t = Cur();
    switch (t.kind) {
      case TokenKind::kName: {
        std::string_view w = t.text;
        if (w == "None" || w == "True" || w == "False") {
          Next();
          auto e = NewExpr(ExprKind::kConstant, SpanFrom(t));
          e->const_kind = w == "None" ? ConstKind::kNone
                          : w == "True" ? ConstKind::kTrue
                                        : ConstKind::kFalse;
          return e;
        }
        if (IsKeyword(w)) Invalid();
        Next();
        auto e = NewExpr(ExprKind::kName, SpanFrom(t));
        e->id = std::string(w);
        return e;
      }
      case TokenKind::kNumber:
        Next();
        return ParseNumber(t);
      case TokenKind::kString:
        return ParseStrings();
      case TokenKind::kOp:
        break;
      default:
        Invalid();
    }
    std::string_view o = t.text;
    if (o == "...") {
      Next();
      auto e = NewExpr(ExprKind::kConstant, SpanFrom(t));
      e->const_kind = ConstKind::kEllipsis;
      return e;
    }
    if (o == "(") {
      Next();
      if (AcceptOp(")")) return NewExpr(ExprKind::kTuple, SpanFrom(t));
      if (AtKw("yield")) {
        ExprPtr y = ParseYield();
        ExpectOp(")");
        return y;
      }
      ExprPtr first = ParseStarNamedExpression();
      if (AtKw("for") || (AtKw("async") && Peek().text == "for")) {
        auto gexp = NewExpr(ExprKind::kGeneratorExp, {});
        gexp->elt = std::move(first);
        gexp->generators = ParseGenerators();
        ExpectOp(")");
        gexp->span = SpanFrom(t);
        return gexp;
      }
      if (AtOp(")")) {
        Next();
        if (first->kind == ExprKind::kStarred) {
          FailAt("cannot use starred expression here", first->span.line, first->span.col);
        }
        return first;  // a group: the span stays the inner expression's
      }
      auto tup = NewExpr(ExprKind::kTuple, {});
      tup->elts.push_back(std::move(first));
      while (AcceptOp(",")) {
        if (AtOp(")")) break;
        tup->elts.push_back(ParseStarNamedExpression());
      }
      ExpectOp(")");
      tup->span = SpanFrom(t);
      return tup;
    }
    if (o == "[") {
      Next();
      auto e = NewExpr(ExprKind::kList, {});
      if (!AtOp("]")) {
        ExprPtr first = ParseStarNamedExpression();
        if (AtKw("for") || (AtKw("async") && Peek().text == "for")) {
          e->kind = ExprKind::kListComp;
          e->elt = std::move(first);
          e->generators = ParseGenerators();
        } else {
          e->elts.push_back(std::move(first));
          while (AcceptOp(",")) {
            if (AtOp("]")) break;
            e->elts.push_back(ParseStarNamedExpression());
          }
        }
      }
      ExpectOp("]");
      e->span = SpanFrom(t);
      return e;
    }
    if (o == "{") {
      Next();
      auto e = NewExpr(ExprKind::kDict, {});
      if (AtOp("}")) {
        Next();
        e->span = SpanFrom(t);
        return e;
      }
      if (AtOp("**") ) {
        ParseDictItems(e.get());
      } else {
        ExprPtr first = ParseStarNamedExpression();
        if (AtOp(":") && first->kind != ExprKind::kStarred) {
          Next();
          ExprPtr value = ParseExpression();
          if (AtKw("for") || (AtKw("async") && Peek().text == "for")) {
            e->kind = ExprKind::kDictComp;
            e->key = std::move(first);
            e->value_expr = std::move(value);
            e->generators = ParseGenerators();
          } else {
            e->keys.push_back(std::move(first));
            e->elts.push_back(std::move(value));
            if (AcceptOp(",")) ParseDictItems(e.get());
          }
        } else if (AtKw("for") || (AtKw("async") && Peek().text == "for")) {
          e->kind = ExprKind::kSetComp;
          e->elt = std::move(first);
          e->generators = ParseGenerators();
        } else {
          e->kind = ExprKind::kSet;
          e->elts.push_back(std::move(first));
          while (AcceptOp(",")) {
            if (AtOp("}")) break;
            e->elts.push_back(ParseStarNamedExpression());
          }
        }
      }
      ExpectOp("}");
      e->span = SpanFrom(t);
      return e;
    }
    Invalid();
  }

  void ParseDictItems(Expr* e) {
    while (!AtOp("}")) {
      if (AcceptOp("**")) {
        e->keys.push_back(nullptr);
        e->elts.push_back(ParseBitOr());
      } else {
        e->keys.push_back(ParseExpression());
        ExpectColon();
        e->elts.push_back(ParseExpression());
      }
      if (!AcceptOp(",")) break;
    }
  }

  // ---- strings and f-strings ---------------------------------------------------------
  struct Piece {
    bool is_field = false;
    std::string text;  // literal text
    ExprPtr field;     // FormattedValue
  };

  // Line/column of byte `offset` inside token t.
  static std::pair<int, int> PosIn(const Token& t, size_t offset) {
    int line = t.line, col = t.col;
    for (size_t i = 0; i < offset && i < t.text.size(); ++i) {
      if (t.text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return {line, col};
  }

  ExprPtr ParseStrings() {
    const Token& first = Cur();
    bool any_f = false, any_bytes = false, any_str = false;
    std::vector<const Token*> toks;
    while (AtKind(TokenKind::kString)) {
      const Token& t = Next();
      std::string_view body;
      lit::StringPrefix p = lit::ParsePrefix(t.text, &body);
      (p.bytes ? any_bytes : any_str) = true;
      any_f |= p.fstring;
      toks.push_back(&t);
    }
    if (any_bytes && any_str) Fail("cannot mix bytes and nonbytes literals", first);
    Span span = SpanFrom(first);
    std::vector<Piece> pieces;
    std::string buffer;
    for (const Token* t : toks) {
      std::string_view body;
      lit::StringPrefix p = lit::ParsePrefix(t->text, &body);
      size_t body_off = p.prefix_len + p.quote_len;
      if (!p.fstring) {
        std::string err;
        size_t err_off = 0;
        auto decoded = lit::DecodeBody(body, p.raw, p.bytes, &err, &err_off);
        if (!decoded) {
          auto [l, c] = PosIn(*t, body_off + err_off);
          FailAt(err, l, c);
        }
        buffer += *decoded;
      } else {
        ParseFStringBody(*t, body, body_off, p.raw, 0, &buffer, &pieces, span);
      }
    }
    if (!any_f) {
      auto e = NewExpr(ExprKind::kConstant, span);
      e->const_kind = any_bytes ? ConstKind::kBytes : ConstKind::kStr;
      e->value = std::move(buffer);
      std::string_view body;
      e->u_prefix = lit::ParsePrefix(first.text, &body).unicode;
      return e;
    }
    FlushText(&buffer, &pieces);
    auto js = NewExpr(ExprKind::kJoinedStr, span);
    for (auto& pc : pieces) {
      if (pc.is_field) {
        js->elts.push_back(std::move(pc.field));
      } else {
        auto c = NewExpr(ExprKind::kConstant, span);
        c->const_kind = ConstKind::kStr;
        c->value = std::move(pc.text);
        js->elts.push_back(std::move(c));
      }
    }
    return js;
  }

  static void FlushText(std::string* buffer, std::vector<Piece>* pieces) {
    if (buffer->empty()) return;
    Piece p;
    p.text = std::move(*buffer);
    buffer->clear();
    pieces->push_back(std::move(p));
  }

  void DecodeLiteral(const Token& t, std::string_view text, size_t off, bool raw,
                     std::string* out) {
    std::string err;
    size_t err_off = 0;
    auto d = lit::DecodeBody(text, raw, false, &err, &err_off);
    if (!d) {
      auto [l, c] = PosIn(t, off + err_off);
      FailAt(err, l, c);
    }
    *out += *d;
  }

  // Parses an f-string body (or a format spec at nesting > 0) into pieces. `body_off` is
  // the byte offset of `body` inside token t.
  void ParseFStringBody(const Token& t, std::string_view body, size_t body_off, bool raw,
                        int nesting, std::string* buffer, std::vector<Piece>* pieces,
                        const Span& span) {
    size_t i = 0, lit_start = 0;
    auto fail = [&](const std::string& msg, size_t at) {
      auto [l, c] = PosIn(t, body_off + at);
      FailAt("f-string: " + msg, l, c);
    };
    while (i < body.size()) {
      char c = body[i];
      if (c == '\\' && !raw && i + 1 < body.size()) {
        // Keep escapes for decoding, but \N{...} must not be taken as a field.
        i += 2;
        continue;
      }
      if (c == '{' || c == '}') {
        if (i + 1 < body.size() && body[i + 1] == c) {
          DecodeLiteral(t, body.substr(lit_start, i - lit_start), body_off + lit_start, raw,
                        buffer);
          buffer->push_back(c);
          i += 2;
          lit_start = i;
          continue;
        }
        if (c == '}') fail("single '}' is not allowed", i);
        DecodeLiteral(t, body.substr(lit_start, i - lit_start), body_off + lit_start, raw,
                      buffer);
        i = ParseField(t, body, body_off, i, raw, nesting, buffer, pieces, span);
        lit_start = i;
        continue;
      }
      ++i;
    }
    DecodeLiteral(t, body.substr(lit_start), body_off + lit_start, raw, buffer);
  }

  // Parses the replacement field starting at body[open] == '{'; returns the index after
  // its closing '}'.
  size_t ParseField(const Token& t, std::string_view body, size_t body_off, size_t open,
                    bool raw, int nesting, std::string* buffer, std::vector<Piece>* pieces,
                    const Span& span) {
    auto fail = [&](const std::string& msg, size_t at) {
      auto [l, c] = PosIn(t, body_off + at);
      FailAt("f-string: " + msg, l, c);
    };
    if (nesting >= 2) fail("expressions nested too deeply", open);
    size_t i = open + 1;
    int depth = 0;
    char quote = 0;
    size_t expr_end = std::string_view::npos;
    bool self_doc = false;
    while (i < body.size()) {
      char c = body[i];
      if (quote) {
        if (c == quote) quote = 0;
        ++i;
        continue;
      }
      if (c == '\\') fail("expression part cannot include a backslash", i);
      if (c == '\'' || c == '"') {
        quote = c;
        ++i;
        continue;
      }
      if (c == '#') fail("expression part cannot include '#'", i);
      if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if (c == ')' || c == ']' || c == '}') {
        if (depth == 0) {
          if (c == '}') {
            expr_end = i;
            break;
          }
          fail(std::string("unmatched '") + c + "'", i);
        }
        --depth;
      } else if (depth == 0) {
        if (c == '!' && !(i + 1 < body.size() && body[i + 1] == '=')) {
          expr_end = i;
          break;
        }
        if (c == ':') {
          expr_end = i;
          break;
        }
        if (c == '=' && !(i + 1 < body.size() && body[i + 1] == '=')) {
          char p = i > 0 ? body[i - 1] : 0;
          if (p != '=' && p != '!' && p != '<' && p != '>' && p != ':') {
            self_doc = true;
            expr_end = i;
            break;
          }
        }
      }
      ++i;
    }
    if (quote) fail("unterminated string", open);
    if (expr_end == std::string_view::npos) fail("expecting '}'", open);
    std::string_view expr_text = body.substr(open + 1, expr_end - open - 1);
    if (expr_text.find_first_not_of(" \t\n\r\f") == std::string_view::npos) {
      fail("empty expression not allowed", open + 1);
    }
    ExprPtr value = ParseSubExpression(t, expr_text, body_off + open + 1);
    i = expr_end;
    if (self_doc) {
      ++i;  // '='
      while (i < body.size() && (body[i] == ' ' || body[i] == '\t' || body[i] == '\n')) ++i;
      // The text up to and including '=' (and the whitespace after it) is literal.
      std::string_view doc = body.substr(open + 1, i - open - 1);
      *buffer += std::string(doc);
    }
    int conversion = -1;
    if (i < body.size() && body[i] == '!') {
      ++i;
      if (i >= body.size() || (body[i] != 's' && body[i] != 'r' && body[i] != 'a')) {
        fail("invalid conversion character: expected 's', 'r', or 'a'", i);
      }
      conversion = body[i];
      ++i;
    }
    ExprPtr spec;
    if (i < body.size() && body[i] == ':') {
      ++i;
      size_t spec_start = i;
      int d = 0;
      while (i < body.size()) {
        if (body[i] == '{') {
          ++d;
        } else if (body[i] == '}') {
          if (d == 0) break;
          --d;
        }
        ++i;
      }
      std::string spec_buffer;
      std::vector<Piece> spec_pieces;
      ParseFStringBody(t, body.substr(spec_start, i - spec_start), body_off + spec_start, raw,
                       nesting + 1, &spec_buffer, &spec_pieces, span);
      FlushText(&spec_buffer, &spec_pieces);
      spec = NewExpr(ExprKind::kJoinedStr, span);
      for (auto& pc : spec_pieces) {
        if (pc.is_field) {
          spec->elts.push_back(std::move(pc.field));
        } else {
          auto c = NewExpr(ExprKind::kConstant, span);
          c->const_kind = ConstKind::kStr;
          c->value = std::move(pc.text);
          spec->elts.push_back(std::move(c));
        }
      }
    }
    if (i >= body.size() || body[i] != '}') fail("expecting '}'", i);
    ++i;
    if (self_doc && conversion == -1 && !spec) conversion = 'r';
    FlushText(buffer, pieces);
    auto fv = NewExpr(ExprKind::kFormattedValue, span);
    fv->value_expr = std::move(value);
    fv->conversion = conversion;
    fv->format_spec = std::move(spec);
    Piece p;
    p.is_field = true;
    p.field = std::move(fv);
    pieces->push_back(std::move(p));
    return i;
  }

  ExprPtr ParseSubExpression(const Token& t, std::string_view text, size_t offset) {
    std::string wrapped = "(" + std::string(text) + ")";
    TokenizeResult tr = Tokenize(wrapped);
    const std::pair<int, int> base = PosIn(t, offset);
    const int base_line = base.first, base_col = base.second;
    auto map = [&](int& line, int& col) {
      if (line == 1) {
        col = base_col + col - 2;
      }
      line = base_line + line - 1;
    };
    if (!tr.error.empty()) {
      int l = tr.error_line, c = tr.error_col;
      map(l, c);
      FailAt("f-string: " + tr.error, l, c);
    }
    for (auto& tok : tr.tokens) {
      map(tok.line, tok.col);
      map(tok.end_line, tok.end_col);
    }
    Parser sub(std::move(tr.tokens), opts_, depth_);
    try {
      return sub.ParseFStringField();
    } catch (SyntaxError& e) {
      if (e.message.rfind("f-string: ", 0) != 0) e.message = "f-string: " + e.message;
      throw;
    }
  }

 private:
  std::vector<Token> toks_;
  const ParseOptions& opts_;
  size_t pos_ = 0;
  const Token* prev_ = nullptr;
  int depth_ = 0;
};

Diagnostic MakeDiag(const SyntaxError& e, const std::string& filename) {
  Diagnostic d;
  d.code = e.code.empty() ? std::string(kSyntaxError) : e.code;
  d.severity = Severity::kError;
  d.category = std::string(category::kInputError);
  d.file = filename;
  d.line = e.line;
  d.column = e.col;
  d.message = e.message.empty() ? "invalid syntax" : e.message;
  return d;
}

absl::Status Report(const SyntaxError& e, const std::string& filename, Diagnostics* diags) {
  Diagnostic d = MakeDiag(e, filename);
  std::string msg = filename + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) +
                    ": " + d.message;
  if (diags) diags->Add(std::move(d));
  return absl::InvalidArgumentError(msg);
}

}  // namespace

absl::StatusOr<Module> ParseModule(std::string_view source, std::string filename,
                                   Diagnostics* diags, const ParseOptions& opts) {
  // Python source is UTF-8 (PEP 3120); anything else is rejected up front, as CPython does.
  if (std::int64_t bad = FindInvalidUtf8(source); bad >= 0) {
    size_t off = static_cast<size_t>(bad);
    size_t line_start = source.rfind('\n', off == 0 ? 0 : off - 1);
    line_start = (line_start == std::string_view::npos || off == 0) ? 0 : line_start + 1;
    SyntaxError e{std::string(kSyntaxError), "(unicode error) invalid UTF-8 byte in source",
                  LineOfOffset(source, off), static_cast<int>(off - line_start) + 1};
    return Report(e, filename, diags);
  }
  TokenizeResult tr = Tokenize(source);
  SyntaxError lex_error;
  if (!tr.error.empty()) {
    lex_error = SyntaxError{std::string(tr.error.find("indent") != std::string::npos ||
                                                tr.error.find("tabs") != std::string::npos
                                            ? kIndentError
                                            : kSyntaxError),
                            tr.error, tr.error_line, tr.error_col};
  }
  // The token list of a failed tokenization ends with an error token: a syntax error the
  // parser finds before reaching it is reported first (as CPython's incremental tokenizer
  // does), otherwise the lexical error is.
  Parser p(std::move(tr.tokens), opts);
  try {
    Module m;
    m.filename = filename;
    m.body = p.ParseFileInput();
    if (!lex_error.message.empty()) return Report(lex_error, filename, diags);
    return m;
  } catch (const SyntaxError& e) {
    // A generic "invalid syntax" before a lexical error (an unclosed bracket, an
    // unterminated string) is reported as that lexical error, as CPython does.
    if (!lex_error.message.empty() && (p.AtErrorToken() || e.message == "invalid syntax")) {
      return Report(lex_error, filename, diags);
    }
    return Report(e, filename, diags);
  }
}

absl::StatusOr<Module> ParseFile(const std::string& path, Diagnostics* diags,
                                 const ParseOptions& opts) {
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseModule(*text, path, diags, opts);
}

absl::StatusOr<ExprPtr> ParseExpression(std::string_view source, std::string filename,
                                        Diagnostics* diags, const ParseOptions& opts) {
  std::string wrapped = "(" + std::string(source) + "\n)";
  TokenizeResult tr = Tokenize(wrapped);
  if (!tr.error.empty()) {
    SyntaxError e{std::string(kSyntaxError), tr.error, tr.error_line,
                  tr.error_line == 1 ? tr.error_col - 1 : tr.error_col};
    return Report(e, filename, diags);
  }
  for (auto& t : tr.tokens) {
    if (t.line == 1) t.col -= 1;
    if (t.end_line == 1) t.end_col -= 1;
  }
  // Drop the wrapping parentheses: tokens[0] is '(' and the last OP before NEWLINE is ')'.
  std::vector<Token> toks;
  size_t close = 0;
  for (size_t i = tr.tokens.size(); i-- > 0;) {
    if (tr.tokens[i].kind == TokenKind::kOp && tr.tokens[i].text == ")") {
      close = i;
      break;
    }
  }
  for (size_t i = 1; i < tr.tokens.size(); ++i) {
    if (i == close) continue;
    toks.push_back(tr.tokens[i]);
  }
  Parser p(std::move(toks), opts);
  try {
    return p.ParseEvalInput();
  } catch (const SyntaxError& e) {
    return Report(e, filename, diags);
  }
}

}  // namespace opdev::py
