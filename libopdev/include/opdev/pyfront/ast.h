// The Python 3.11 abstract syntax tree used by every opdev consumer of Python source
// (codegen prints it, the simulator interprets it, self-check / budget / KB-usage inspect it).
//
// Shape: plain structs, one per category (Expr, Stmt, Pattern) with a kind enum and named
// fields; only the fields listed for a kind are meaningful, the rest stay empty. Children
// are owned through std::unique_ptr (ExprPtr, StmtPtr, PatternPtr) and std::vector. The
// node kinds and field names follow CPython's `ast` module (ast.dump of a tree produced by
// pyfront is byte-identical to CPython 3.11's ast.dump, see DumpAst), with two merges:
// AsyncFunctionDef/AsyncFor/AsyncWith are FunctionDef/For/With with `is_async`, and
// TryStar is Try with `is_star`.
//
// Source spans: every node carries Span{line, col, end_line, end_col}; lines are 1-based,
// columns are 1-based byte columns (CPython col_offset + 1); end_col is one past the last
// byte (CPython end_col_offset + 1).
//
// Walking calls and decorators (example):
//
//   opdev::Diagnostics diags;
//   auto mod = opdev::py::ParseModule(src, "kernel.py", &diags);
//   for (const auto& def : opdev::py::TopLevelDefs(*mod)) {
//     // def.name == "softmax_kernel", def.decorators == {"pl.jit"}
//   }
//   opdev::py::ForEachCall(*mod, [](const opdev::py::Expr& call) {
//     std::string name = opdev::py::CallName(call);      // "pl.make_tile_group"
//     for (const auto& kw : call.keywords) { /* kw.arg == "mutex_ids", *kw.value */ }
//     int line = call.span.line;
//   });
//
// or, with full control over descent, derive from AstVisitor and call Walk(module, v).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::py {

struct Span {
  int line = 0;      // 1-based
  int col = 0;       // 1-based byte column
  int end_line = 0;  // 1-based
  int end_col = 0;   // 1-based, one past the last byte
};

struct Expr;
struct Stmt;
struct Pattern;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using PatternPtr = std::unique_ptr<Pattern>;

enum class ExprContext { kLoad, kStore, kDel };

// Operators of BinOp / AugAssign, UnaryOp, BoolOp and Compare.
enum class Op {
  // binary
  kAdd, kSub, kMult, kMatMult, kDiv, kMod, kPow, kLShift, kRShift, kBitOr, kBitXor, kBitAnd,
  kFloorDiv,
  // unary
  kInvert, kNot, kUAdd, kUSub,
  // boolean
  kAnd, kOr,
  // comparison
  kEq, kNotEq, kLt, kLtE, kGt, kGtE, kIs, kIsNot, kIn, kNotIn,
};
// Source spelling: "+", "//", "not", "is not", ... (unary minus is "-").
std::string_view OpText(Op op);
// CPython class name: "Add", "FloorDiv", "USub", "NotIn", ...
std::string_view OpName(Op op);

enum class ExprKind {
  kBoolOp, kNamedExpr, kBinOp, kUnaryOp, kLambda, kIfExp, kDict, kSet, kListComp, kSetComp,
  kDictComp, kGeneratorExp, kAwait, kYield, kYieldFrom, kCompare, kCall, kFormattedValue,
  kJoinedStr, kConstant, kAttribute, kSubscript, kStarred, kName, kList, kTuple, kSlice,
};
std::string_view ExprKindName(ExprKind k);  // "Call", "Name", ...

// Kinds of Constant.
enum class ConstKind { kNone, kTrue, kFalse, kEllipsis, kInt, kFloat, kImag, kStr, kBytes };

struct Arg {
  Span span;
  std::string arg;
  ExprPtr annotation;  // may be null
};

// Parameters of a def or lambda: def f(posonly, /, args=defaults, *vararg, kwonly, **kwarg).
struct Arguments {
  std::vector<Arg> posonlyargs;
  std::vector<Arg> args;
  std::optional<Arg> vararg;
  std::vector<Arg> kwonlyargs;
  std::vector<ExprPtr> kw_defaults;  // one per kwonlyarg; null = no default
  std::optional<Arg> kwarg;
  std::vector<ExprPtr> defaults;     // for the last len(defaults) of posonlyargs + args
};

struct Keyword {
  Span span;
  std::string arg;  // empty for **mapping
  ExprPtr value;
};

struct Comprehension {
  ExprPtr target;
  ExprPtr iter;
  std::vector<ExprPtr> ifs;
  bool is_async = false;
};

struct Expr {
  ExprKind kind = ExprKind::kName;
  Span span;
  ExprContext ctx = ExprContext::kLoad;  // Name, Attribute, Subscript, Starred, List, Tuple

  // Name.id, Attribute.attr
  std::string id;
  // BinOp/UnaryOp/BoolOp operator
  Op op = Op::kAdd;

  // Constant
  ConstKind const_kind = ConstKind::kNone;
  // kStr: decoded text (UTF-8); kBytes: the raw bytes; kInt: decimal digits (arbitrary
  // size, no sign); kFloat/kImag: shortest round-trip decimal ("1e-30", "0.5").
  std::string value;
  // Numbers: the source spelling ("0x10000", "1_000"), kept so printing preserves it.
  std::string text;
  // kStr: true when the source used a u"" prefix (CPython's Constant.kind == 'u').
  bool u_prefix = false;

  ExprPtr left;         // BinOp.left, Compare.left
  ExprPtr right;        // BinOp.right
  ExprPtr operand;      // UnaryOp.operand
  ExprPtr value_expr;   // Attribute/Subscript/Starred/NamedExpr/Await/Yield/YieldFrom/
                        // FormattedValue .value, DictComp.value
  ExprPtr target;       // NamedExpr.target
  ExprPtr test;         // IfExp.test
  ExprPtr body;         // IfExp.body, Lambda.body
  ExprPtr orelse;       // IfExp.orelse
  ExprPtr func;         // Call.func
  ExprPtr slice;        // Subscript.slice
  ExprPtr lower, upper, step;  // Slice
  ExprPtr elt;          // ListComp/SetComp/GeneratorExp.elt
  ExprPtr key;          // DictComp.key
  ExprPtr format_spec;  // FormattedValue.format_spec (a JoinedStr) or null
  int conversion = -1;  // FormattedValue: -1, 's', 'r' or 'a'

  // BoolOp.values, Tuple/List/Set.elts, JoinedStr.values, Compare.comparators,
  // Dict.values
  std::vector<ExprPtr> elts;
  std::vector<ExprPtr> keys;   // Dict.keys (null entry = **mapping)
  std::vector<Op> ops;         // Compare.ops
  std::vector<ExprPtr> args;   // Call.args
  std::vector<Keyword> keywords;  // Call.keywords
  std::vector<Comprehension> generators;
  std::unique_ptr<Arguments> lambda_args;  // Lambda.args

  bool Is(ExprKind k) const { return kind == k; }
};

enum class PatternKind {
  kMatchValue, kMatchSingleton, kMatchSequence, kMatchMapping, kMatchClass, kMatchStar,
  kMatchAs, kMatchOr,
};

struct Pattern {
  PatternKind kind = PatternKind::kMatchAs;
  Span span;
  ExprPtr value;                       // MatchValue.value, MatchSingleton (a Constant)
  std::vector<PatternPtr> patterns;    // Sequence/Class/Or, Mapping.patterns
  std::vector<ExprPtr> keys;           // MatchMapping.keys
  std::optional<std::string> rest;     // MatchMapping.rest
  ExprPtr cls;                         // MatchClass.cls
  std::vector<std::string> kwd_attrs;  // MatchClass
  std::vector<PatternPtr> kwd_patterns;
  std::optional<std::string> name;     // MatchStar.name, MatchAs.name (nullopt = "_")
  PatternPtr pattern;                  // MatchAs.pattern
};

enum class StmtKind {
  kFunctionDef, kClassDef, kReturn, kDelete, kAssign, kAugAssign, kAnnAssign, kFor, kWhile,
  kIf, kWith, kMatch, kRaise, kTry, kAssert, kImport, kImportFrom, kGlobal, kNonlocal, kExpr,
  kPass, kBreak, kContinue,
};
std::string_view StmtKindName(StmtKind k);  // "FunctionDef", "AsyncFunctionDef", ...

struct Alias {
  Span span;
  std::string name;    // dotted ("os.path") or "*"
  std::string asname;  // empty = none
};

struct WithItem {
  ExprPtr context_expr;
  ExprPtr optional_vars;  // may be null
};

struct ExceptHandler {
  Span span;
  ExprPtr type;      // may be null (bare except)
  std::string name;  // empty = none
  std::vector<StmtPtr> body;
};

struct MatchCase {
  PatternPtr pattern;
  ExprPtr guard;  // may be null
  std::vector<StmtPtr> body;
};

struct Stmt {
  StmtKind kind = StmtKind::kPass;
  Span span;
  bool is_async = false;  // FunctionDef, For, With
  bool is_star = false;   // Try (except*)

  std::string name;                       // FunctionDef/ClassDef name
  std::unique_ptr<Arguments> args;        // FunctionDef
  std::vector<StmtPtr> body;
  std::vector<StmtPtr> orelse;            // For/While/If/Try
  std::vector<StmtPtr> finalbody;         // Try
  std::vector<ExceptHandler> handlers;    // Try
  std::vector<ExprPtr> decorator_list;    // FunctionDef/ClassDef
  ExprPtr returns;                        // FunctionDef return annotation
  std::vector<ExprPtr> bases;             // ClassDef
  std::vector<Keyword> keywords;          // ClassDef
  std::vector<ExprPtr> targets;           // Assign (a = b = v), Delete
  ExprPtr target;                         // AugAssign/AnnAssign/For
  ExprPtr value;                          // Return/Assign/AugAssign/AnnAssign/Expr (may be null)
  Op op = Op::kAdd;                       // AugAssign
  ExprPtr annotation;                     // AnnAssign
  bool simple = false;                    // AnnAssign: target is a plain unparenthesized Name
  ExprPtr iter;                           // For
  ExprPtr test;                           // While/If/Assert
  ExprPtr msg;                            // Assert
  std::vector<WithItem> items;            // With
  ExprPtr subject;                        // Match
  std::vector<MatchCase> cases;           // Match
  ExprPtr exc, cause;                     // Raise
  std::vector<Alias> names;               // Import/ImportFrom
  std::string module;                     // ImportFrom (empty for "from . import x")
  int level = 0;                          // ImportFrom relative level
  std::vector<std::string> identifiers;   // Global/Nonlocal

  bool Is(StmtKind k) const { return kind == k; }
};

struct Module {
  std::string filename;
  std::vector<StmtPtr> body;
};

// ---- Walking ------------------------------------------------------------------------

// Pre-order visitor. Return false from an Enter* method to skip that node's children.
class AstVisitor {
 public:
  virtual ~AstVisitor() = default;
  virtual bool EnterStmt(const Stmt&) { return true; }
  virtual void LeaveStmt(const Stmt&) {}
  virtual bool EnterExpr(const Expr&) { return true; }
  virtual void LeaveExpr(const Expr&) {}
  virtual bool EnterPattern(const Pattern&) { return true; }
  virtual void LeavePattern(const Pattern&) {}
};

// Visits children in source order (decorators before the def's arguments and body).
void Walk(const Module& m, AstVisitor& v);
void Walk(const Stmt& s, AstVisitor& v);
void Walk(const Expr& e, AstVisitor& v);
void Walk(const Pattern& p, AstVisitor& v);

// Calls fn on every Call expression (including decorator calls), in source order.
void ForEachCall(const Module& m, const std::function<void(const Expr& call)>& fn);
void ForEachCall(const Stmt& s, const std::function<void(const Expr& call)>& fn);

// ---- Helpers --------------------------------------------------------------------------

// "pl.make_tile_group" for a Name/Attribute chain; nullopt for anything else (a call
// result, a subscript, ...).
std::optional<std::string> DottedName(const Expr& e);
// Dotted name of a Call's func (or of e itself when e is not a Call); "" when not dotted.
std::string CallName(const Expr& e);
// Dotted name of a decorator: "@pl.jit(auto_mutex=True)" and "@pl.jit" both give "pl.jit".
std::string DecoratorName(const Expr& decorator);

struct TopLevelDef {
  const Stmt* stmt = nullptr;           // FunctionDef or ClassDef
  std::string name;
  bool is_class = false;
  std::vector<std::string> decorators;  // DecoratorName of each, in order
  bool HasDecorator(std::string_view dotted) const;
};
// Top-level def/class statements of the module (not nested ones), in order.
std::vector<TopLevelDef> TopLevelDefs(const Module& m);
// Module-level `NAME = <expr>` assignments with a single Name target, in order; later
// assignments to the same name appear again.
std::vector<std::pair<std::string, const Expr*>> TopLevelAssignments(const Module& m);

// Literal values. Accept a Constant and, for numbers, a unary +/- applied to one.
std::optional<std::int64_t> IntValue(const Expr& e);   // ints only; nullopt if it overflows
std::optional<double> NumberValue(const Expr& e);      // int or float
std::optional<std::string> StringValue(const Expr& e);  // str only (not bytes, not f-strings)
std::optional<bool> BoolValue(const Expr& e);          // True / False
// An ASCII Python identifier (`str.isidentifier()` over [A-Za-z0-9_]; keywords included).
bool IsIdentifier(std::string_view s);

// Keyword argument `name` of a Call, or null.
const Expr* FindKeyword(const Expr& call, std::string_view name);

// ---- Dump and equality ---------------------------------------------------------------

struct DumpOptions {
  // Append lineno/col_offset/end_lineno/end_col_offset (CPython's 0-based columns), as
  // CPython's ast.dump(include_attributes=True) does. Nodes whose span is unset (line 0,
  // e.g. built by a code generator) are dumped without them.
  bool include_attributes = false;
};
// Exactly CPython 3.11's ast.dump(tree) format (one line, annotate_fields=True).
std::string DumpAst(const Module& m, const DumpOptions& opts = {});
std::string DumpAst(const Expr& e, const DumpOptions& opts = {});
std::string DumpAst(const Stmt& s, const DumpOptions& opts = {});

// Structural equality ignoring spans and number spellings (0x10 == 16), as CPython
// compares ast.dump output.
bool AstEqual(const Module& a, const Module& b);
bool AstEqual(const Expr& a, const Expr& b);

}  // namespace opdev::py
