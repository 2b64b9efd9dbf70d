// DumpAst: renders the AST exactly as CPython 3.11's ast.dump() does (field order, omitted
// None fields, repr() of constants), so trees can be compared with CPython's own parser.
#include "opdev/pyfront/ast.h"

#include "pyfront/literals.h"

namespace opdev::py {
namespace {

class Dumper {
 public:
  explicit Dumper(const DumpOptions& o) : opts_(o) {}
  std::string out;

  // A node "Name(f1=v1, f2=v2)"; fields are appended with Field().
  struct NodeScope {
    Dumper* d;
    bool first = true;
    NodeScope(Dumper* dd, std::string_view name) : d(dd) {
      d->out += name;
      d->out += '(';
    }
    void Sep() {
      if (!first) d->out += ", ";
      first = false;
    }
    void Key(std::string_view k) {
      Sep();
      d->out += k;
      d->out += '=';
    }
    void Attrs(const Span& s) {
      // Nodes built by code (span line 0) have no position to report.
      if (!d->opts_.include_attributes || s.line == 0) return;
      Key("lineno");
      d->out += std::to_string(s.line);
      Key("col_offset");
      d->out += std::to_string(s.col - 1);
      Key("end_lineno");
      d->out += std::to_string(s.end_line);
      Key("end_col_offset");
      d->out += std::to_string(s.end_col - 1);
    }
    ~NodeScope() { d->out += ')'; }
  };

  void Ctx(NodeScope& n, ExprContext c) {
    n.Key("ctx");
    out += c == ExprContext::kLoad ? "Load()" : c == ExprContext::kStore ? "Store()" : "Del()";
  }
  void OpNode(Op op) {
    out += OpName(op);
    out += "()";
  }
  void Str(std::string_view s) { out += lit::StrRepr(s); }

  void ExprList(const std::vector<ExprPtr>& es) {
    out += '[';
    for (size_t i = 0; i < es.size(); ++i) {
      if (i) out += ", ";
      if (es[i]) {
        DumpExpr(*es[i]);
      } else {
        out += "None";
      }
    }
    out += ']';
  }
  void StmtList(const std::vector<StmtPtr>& ss) {
    out += '[';
    for (size_t i = 0; i < ss.size(); ++i) {
      if (i) out += ", ";
      DumpStmt(*ss[i]);
    }
    out += ']';
  }
  void PatternList(const std::vector<PatternPtr>& ps) {
    out += '[';
    for (size_t i = 0; i < ps.size(); ++i) {
      if (i) out += ", ";
      DumpPattern(*ps[i]);
    }
    out += ']';
  }
  void StrList(const std::vector<std::string>& ss) {
    out += '[';
    for (size_t i = 0; i < ss.size(); ++i) {
      if (i) out += ", ";
      Str(ss[i]);
    }
    out += ']';
  }
  void OptExpr(NodeScope& n, std::string_view key, const ExprPtr& e) {
    if (!e) return;
    n.Key(key);
    DumpExpr(*e);
  }
  void ReqExpr(NodeScope& n, std::string_view key, const ExprPtr& e) {
    n.Key(key);
    if (e) {
      DumpExpr(*e);
    } else {
      out += "None";
    }
  }

  void DumpArg(const Arg& a) {
    NodeScope n(this, "arg");
    n.Key("arg");
    Str(a.arg);
    OptExpr(n, "annotation", a.annotation);
    n.Attrs(a.span);
  }
  void ArgList(const std::vector<Arg>& as) {
    out += '[';
    for (size_t i = 0; i < as.size(); ++i) {
      if (i) out += ", ";
      DumpArg(as[i]);
    }
    out += ']';
  }
  void DumpArguments(const Arguments& a) {
    NodeScope n(this, "arguments");
    n.Key("posonlyargs");
    ArgList(a.posonlyargs);
    n.Key("args");
    ArgList(a.args);
    if (a.vararg) {
      n.Key("vararg");
      DumpArg(*a.vararg);
    }
    n.Key("kwonlyargs");
    ArgList(a.kwonlyargs);
    n.Key("kw_defaults");
    ExprList(a.kw_defaults);
    if (a.kwarg) {
      n.Key("kwarg");
      DumpArg(*a.kwarg);
    }
    n.Key("defaults");
    ExprList(a.defaults);
  }
  void KeywordList(const std::vector<Keyword>& ks) {
    out += '[';
    for (size_t i = 0; i < ks.size(); ++i) {
      if (i) out += ", ";
      NodeScope n(this, "keyword");
      if (!ks[i].arg.empty()) {
        n.Key("arg");
        Str(ks[i].arg);
      }
      ReqExpr(n, "value", ks[i].value);
      n.Attrs(ks[i].span);
    }
    out += ']';
  }
  void Generators(const std::vector<Comprehension>& gs) {
    out += '[';
    for (size_t i = 0; i < gs.size(); ++i) {
      if (i) out += ", ";
      NodeScope n(this, "comprehension");
      ReqExpr(n, "target", gs[i].target);
      ReqExpr(n, "iter", gs[i].iter);
      n.Key("ifs");
      ExprList(gs[i].ifs);
      n.Key("is_async");
      out += gs[i].is_async ? "1" : "0";
    }
    out += ']';
  }

  void ConstantValue(const Expr& e) {
    switch (e.const_kind) {
      case ConstKind::kNone: out += "None"; break;
      case ConstKind::kTrue: out += "True"; break;
      case ConstKind::kFalse: out += "False"; break;
      case ConstKind::kEllipsis: out += "Ellipsis"; break;
      case ConstKind::kInt: out += e.value; break;
      case ConstKind::kFloat: out += lit::FloatRepr(std::strtod(e.value.c_str(), nullptr)); break;
      case ConstKind::kImag: out += lit::ImagRepr(std::strtod(e.value.c_str(), nullptr)); break;
      case ConstKind::kStr: Str(e.value); break;
      case ConstKind::kBytes: out += lit::BytesRepr(e.value); break;
    }
  }

  void DumpExpr(const Expr& e) {
    NodeScope n(this, ExprKindName(e.kind));
    switch (e.kind) {
      case ExprKind::kBoolOp:
        n.Key("op");
        OpNode(e.op);
        n.Key("values");
        ExprList(e.elts);
        break;
      case ExprKind::kNamedExpr:
        ReqExpr(n, "target", e.target);
        ReqExpr(n, "value", e.value_expr);
        break;
      case ExprKind::kBinOp:
        ReqExpr(n, "left", e.left);
        n.Key("op");
        OpNode(e.op);
        ReqExpr(n, "right", e.right);
        break;
      case ExprKind::kUnaryOp:
        n.Key("op");
        OpNode(e.op);
        ReqExpr(n, "operand", e.operand);
        break;
      case ExprKind::kLambda:
        n.Key("args");
        if (e.lambda_args) {
          DumpArguments(*e.lambda_args);
        } else {
          out += "None";
        }
        ReqExpr(n, "body", e.body);
        break;
      case ExprKind::kIfExp:
        ReqExpr(n, "test", e.test);
        ReqExpr(n, "body", e.body);
        ReqExpr(n, "orelse", e.orelse);
        break;
      case ExprKind::kDict:
        n.Key("keys");
        ExprList(e.keys);
        n.Key("values");
        ExprList(e.elts);
        break;
      case ExprKind::kSet:
        n.Key("elts");
        ExprList(e.elts);
        break;
      case ExprKind::kListComp:
      case ExprKind::kSetComp:
      case ExprKind::kGeneratorExp:
        ReqExpr(n, "elt", e.elt);
        n.Key("generators");
        Generators(e.generators);
        break;
      case ExprKind::kDictComp:
        ReqExpr(n, "key", e.key);
        ReqExpr(n, "value", e.value_expr);
        n.Key("generators");
        Generators(e.generators);
        break;
      case ExprKind::kAwait:
      case ExprKind::kYieldFrom:
        ReqExpr(n, "value", e.value_expr);
        break;
      case ExprKind::kYield:
        OptExpr(n, "value", e.value_expr);
        break;
      case ExprKind::kCompare:
        ReqExpr(n, "left", e.left);
        n.Key("ops");
        out += '[';
        for (size_t i = 0; i < e.ops.size(); ++i) {
          if (i) out += ", ";
          OpNode(e.ops[i]);
        }
        out += ']';
        n.Key("comparators");
        ExprList(e.elts);
        break;
      case ExprKind::kCall:
        ReqExpr(n, "func", e.func);
        n.Key("args");
        ExprList(e.args);
        n.Key("keywords");
        KeywordList(e.keywords);
        break;
      case ExprKind::kFormattedValue:
        ReqExpr(n, "value", e.value_expr);
        n.Key("conversion");
        out += std::to_string(e.conversion);
        OptExpr(n, "format_spec", e.format_spec);
        break;
      case ExprKind::kJoinedStr:
        n.Key("values");
        ExprList(e.elts);
        break;
      case ExprKind::kConstant:
        n.Key("value");
        ConstantValue(e);
        if (e.u_prefix) {
          n.Key("kind");
          out += "'u'";
        }
        break;
      case ExprKind::kAttribute:
        ReqExpr(n, "value", e.value_expr);
        n.Key("attr");
        Str(e.id);
        Ctx(n, e.ctx);
        break;
      case ExprKind::kSubscript:
        ReqExpr(n, "value", e.value_expr);
        ReqExpr(n, "slice", e.slice);
        Ctx(n, e.ctx);
        break;
      case ExprKind::kStarred:
        ReqExpr(n, "value", e.value_expr);
        Ctx(n, e.ctx);
        break;
      case ExprKind::kName:
        n.Key("id");
        Str(e.id);
        Ctx(n, e.ctx);
        break;
      case ExprKind::kList:
      case ExprKind::kTuple:
        n.Key("elts");
        ExprList(e.elts);
        Ctx(n, e.ctx);
        break;
      case ExprKind::kSlice:
        OptExpr(n, "lower", e.lower);
        OptExpr(n, "upper", e.upper);
        OptExpr(n, "step", e.step);
        break;
    }
    n.Attrs(e.span);
  }

  void DumpPattern(const Pattern& p) {
    static const char* kNames[] = {"MatchValue", "MatchSingleton", "MatchSequence",
                                   "MatchMapping", "MatchClass", "MatchStar", "MatchAs",
                                   "MatchOr"};
    NodeScope n(this, kNames[static_cast<int>(p.kind)]);
    switch (p.kind) {
      case PatternKind::kMatchValue:
        ReqExpr(n, "value", p.value);
        break;
      case PatternKind::kMatchSingleton:
        n.Key("value");
        if (p.value) ConstantValue(*p.value);
        break;
      case PatternKind::kMatchSequence:
      case PatternKind::kMatchOr:
        n.Key("patterns");
        PatternList(p.patterns);
        break;
      case PatternKind::kMatchMapping:
        n.Key("keys");
        ExprList(p.keys);
        n.Key("patterns");
        PatternList(p.patterns);
        if (p.rest) {
          n.Key("rest");
          Str(*p.rest);
        }
        break;
      case PatternKind::kMatchClass:
        ReqExpr(n, "cls", p.cls);
        n.Key("patterns");
        PatternList(p.patterns);
        n.Key("kwd_attrs");
        StrList(p.kwd_attrs);
        n.Key("kwd_patterns");
        PatternList(p.kwd_patterns);
        break;
      case PatternKind::kMatchStar:
        if (p.name) {
          n.Key("name");
          Str(*p.name);
        }
        break;
      case PatternKind::kMatchAs:
        if (p.pattern) {
          n.Key("pattern");
          DumpPattern(*p.pattern);
        }
        if (p.name) {
          n.Key("name");
          Str(*p.name);
        }
        break;
    }
    n.Attrs(p.span);
  }

  void DumpStmt(const Stmt& s) {
    std::string name(StmtKindName(s.kind));
    if (s.is_async) name = "Async" + name;
    if (s.is_star) name += "Star";
    NodeScope n(this, name);
    switch (s.kind) {
      case StmtKind::kFunctionDef:
        n.Key("name");
        Str(s.name);
        n.Key("args");
        if (s.args) {
          DumpArguments(*s.args);
        } else {
          out += "None";
        }
        n.Key("body");
        StmtList(s.body);
        n.Key("decorator_list");
        ExprList(s.decorator_list);
        OptExpr(n, "returns", s.returns);
        break;
      case StmtKind::kClassDef:
        n.Key("name");
        Str(s.name);
        n.Key("bases");
        ExprList(s.bases);
        n.Key("keywords");
        KeywordList(s.keywords);
        n.Key("body");
        StmtList(s.body);
        n.Key("decorator_list");
        ExprList(s.decorator_list);
        break;
      case StmtKind::kReturn:
        OptExpr(n, "value", s.value);
        break;
      case StmtKind::kDelete:
        n.Key("targets");
        ExprList(s.targets);
        break;
      case StmtKind::kAssign:
        n.Key("targets");
        ExprList(s.targets);
        ReqExpr(n, "value", s.value);
        break;
      case StmtKind::kAugAssign:
        ReqExpr(n, "target", s.target);
        n.Key("op");
        OpNode(s.op);
        ReqExpr(n, "value", s.value);
        break;
      case StmtKind::kAnnAssign:
        ReqExpr(n, "target", s.target);
        ReqExpr(n, "annotation", s.annotation);
        OptExpr(n, "value", s.value);
        n.Key("simple");
        out += s.simple ? "1" : "0";
        break;
      case StmtKind::kFor:
        ReqExpr(n, "target", s.target);
        ReqExpr(n, "iter", s.iter);
        n.Key("body");
        StmtList(s.body);
        n.Key("orelse");
        StmtList(s.orelse);
        break;
      case StmtKind::kWhile:
      case StmtKind::kIf:
        ReqExpr(n, "test", s.test);
        n.Key("body");
        StmtList(s.body);
        n.Key("orelse");
        StmtList(s.orelse);
        break;
      case StmtKind::kWith:
        n.Key("items");
        out += '[';
        for (size_t i = 0; i < s.items.size(); ++i) {
          if (i) out += ", ";
          NodeScope w(this, "withitem");
          ReqExpr(w, "context_expr", s.items[i].context_expr);
          OptExpr(w, "optional_vars", s.items[i].optional_vars);
        }
        out += ']';
        n.Key("body");
        StmtList(s.body);
        break;
      case StmtKind::kMatch:
        ReqExpr(n, "subject", s.subject);
        n.Key("cases");
        out += '[';
        for (size_t i = 0; i < s.cases.size(); ++i) {
          if (i) out += ", ";
          NodeScope c(this, "match_case");
          c.Key("pattern");
          if (s.cases[i].pattern) DumpPattern(*s.cases[i].pattern);
          OptExpr(c, "guard", s.cases[i].guard);
          c.Key("body");
          StmtList(s.cases[i].body);
        }
        out += ']';
        break;
      case StmtKind::kRaise:
        OptExpr(n, "exc", s.exc);
        OptExpr(n, "cause", s.cause);
        break;
      case StmtKind::kTry:
        n.Key("body");
        StmtList(s.body);
        n.Key("handlers");
        out += '[';
        for (size_t i = 0; i < s.handlers.size(); ++i) {
          if (i) out += ", ";
          const auto& h = s.handlers[i];
          NodeScope hn(this, "ExceptHandler");
          OptExpr(hn, "type", h.type);
          if (!h.name.empty()) {
            hn.Key("name");
            Str(h.name);
          }
          hn.Key("body");
          StmtList(h.body);
          hn.Attrs(h.span);
        }
        out += ']';
        n.Key("orelse");
        StmtList(s.orelse);
        n.Key("finalbody");
        StmtList(s.finalbody);
        break;
      case StmtKind::kAssert:
        ReqExpr(n, "test", s.test);
        OptExpr(n, "msg", s.msg);
        break;
      case StmtKind::kImport:
      case StmtKind::kImportFrom:
        if (s.kind == StmtKind::kImportFrom && !s.module.empty()) {
          n.Key("module");
          Str(s.module);
        }
        n.Key("names");
        out += '[';
        for (size_t i = 0; i < s.names.size(); ++i) {
          if (i) out += ", ";
          NodeScope a(this, "alias");
          a.Key("name");
          Str(s.names[i].name);
          if (!s.names[i].asname.empty()) {
            a.Key("asname");
            Str(s.names[i].asname);
          }
          a.Attrs(s.names[i].span);
        }
        out += ']';
        if (s.kind == StmtKind::kImportFrom) {
          n.Key("level");
          out += std::to_string(s.level);
        }
        break;
      case StmtKind::kGlobal:
      case StmtKind::kNonlocal:
        n.Key("names");
        StrList(s.identifiers);
        break;
      case StmtKind::kExpr:
        ReqExpr(n, "value", s.value);
        break;
      case StmtKind::kPass:
      case StmtKind::kBreak:
      case StmtKind::kContinue:
        break;
    }
    n.Attrs(s.span);
  }

 private:
  const DumpOptions& opts_;
};

}  // namespace

std::string DumpAst(const Module& m, const DumpOptions& opts) {
  Dumper d(opts);
  d.out += "Module(body=";
  d.StmtList(m.body);
  d.out += ", type_ignores=[])";
  return std::move(d.out);
}

std::string DumpAst(const Expr& e, const DumpOptions& opts) {
  Dumper d(opts);
  d.DumpExpr(e);
  return std::move(d.out);
}

std::string DumpAst(const Stmt& s, const DumpOptions& opts) {
  Dumper d(opts);
  d.DumpStmt(s);
  return std::move(d.out);
}

}  // namespace opdev::py
