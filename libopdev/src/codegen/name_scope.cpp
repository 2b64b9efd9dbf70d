// Source-order name analysis of DESIGN kernel and VF bodies.
#include "name_scope.h"

#include <algorithm>
#include <map>

namespace opdev::codegen {
namespace {

class Analyzer {
 public:
  Analyzer(const std::set<std::string>& globals, const std::set<std::string>& params)
      : globals_(globals) {
    for (const auto& p : params) bound_[p] = {{}, 0};
  }

  void Body(const std::vector<py::StmtPtr>& body) {
    for (const auto& s : body)
      if (s) Stmt(*s);
  }

  NameScope Take() {
    for (const auto& [n, _] : bound_) out_.bound.insert(n);
    return std::move(out_);
  }

 private:
  struct Binding {
    std::vector<int> loops;  // loop ids enclosing the binding
    int line = 0;
  };

  void Load(const py::Expr& e) {
    const std::string& n = e.id;
    if (local_.count(n) || globals_.count(n)) return;
    auto it = bound_.find(n);
    if (it == bound_.end()) {
      if (reported_free_.insert(n).second) out_.free.push_back({n, e.span.line, e.span.col, 0});
      return;
    }
    const auto& loops = it->second.loops;
    bool inside = loops.size() <= loops_.size() &&
                  std::equal(loops.begin(), loops.end(), loops_.begin());
    if (!inside && reported_escape_.insert(n).second)
      out_.loop_escapes.push_back({n, e.span.line, e.span.col, it->second.line});
  }

  void Store(const std::string& n, int line) {
    auto it = bound_.find(n);
    if (it == bound_.end()) {
      bound_[n] = {loops_, line};
      return;
    }
    // Keep the binding visible from the widest scope it was ever made in.
    const auto& old = it->second.loops;
    bool old_covers = old.size() <= loops_.size() &&
                      std::equal(old.begin(), old.end(), loops_.begin());
    if (!old_covers) it->second = {loops_, line};
  }

  void Target(const py::Expr& t) {
    switch (t.kind) {
      case py::ExprKind::kName: Store(t.id, t.span.line); break;
      case py::ExprKind::kTuple:
      case py::ExprKind::kList:
        for (const auto& e : t.elts) Target(*e);
        break;
      case py::ExprKind::kStarred:
        if (t.value_expr) Target(*t.value_expr);
        break;
      default: Expr(t); break;  // subscript / attribute targets read their base
    }
  }

  void Expr(const py::Expr& e) {
    switch (e.kind) {
      case py::ExprKind::kName:
        if (e.ctx == py::ExprContext::kLoad) Load(e);
        return;
      case py::ExprKind::kListComp:
      case py::ExprKind::kSetComp:
      case py::ExprKind::kGeneratorExp:
      case py::ExprKind::kDictComp: {
        std::vector<std::string> added;
        for (const auto& g : e.generators) {
          if (g.iter) Expr(*g.iter);
          CollectNames(*g.target, &added);
          for (const auto& n : added) local_.insert(n);
          for (const auto& c : g.ifs) Expr(*c);
        }
        if (e.elt) Expr(*e.elt);
        if (e.key) Expr(*e.key);
        if (e.value_expr) Expr(*e.value_expr);
        for (const auto& n : added) local_.erase(n);
        return;
      }
      case py::ExprKind::kLambda: return;  // lambdas have their own scope
      default: break;
    }
    for (const py::Expr* c : {e.left.get(), e.right.get(), e.operand.get(), e.value_expr.get(),
                              e.test.get(), e.body.get(), e.orelse.get(), e.func.get(),
                              e.slice.get(), e.lower.get(), e.upper.get(), e.step.get(),
                              e.format_spec.get()})
      if (c) Expr(*c);
    if (e.kind == py::ExprKind::kNamedExpr && e.target) Target(*e.target);
    for (const auto& c : e.elts)
      if (c) Expr(*c);
    for (const auto& c : e.keys)
      if (c) Expr(*c);
    for (const auto& c : e.args)
      if (c) Expr(*c);
    for (const auto& k : e.keywords)
      if (k.value) Expr(*k.value);
  }

  static void CollectNames(const py::Expr& t, std::vector<std::string>* out) {
    if (t.Is(py::ExprKind::kName)) out->push_back(t.id);
    for (const auto& e : t.elts)
      if (e) CollectNames(*e, out);
  }

  void Stmt(const py::Stmt& s) {
    using K = py::StmtKind;
    switch (s.kind) {
      case K::kAssign:
        if (s.value) Expr(*s.value);
        for (const auto& t : s.targets) Target(*t);
        break;
      case K::kAugAssign:
        if (s.value) Expr(*s.value);
        if (s.target) {
          if (s.target->Is(py::ExprKind::kName)) Load(*s.target);
          Target(*s.target);
        }
        break;
      case K::kAnnAssign:
        if (s.value) Expr(*s.value);
        if (s.target) Target(*s.target);
        break;
      case K::kFor: {
        if (s.iter) Expr(*s.iter);
        loops_.push_back(++loop_counter_);
        if (s.target) Target(*s.target);
        Body(s.body);
        loops_.pop_back();
        Body(s.orelse);
        break;
      }
      case K::kWhile:
        if (s.test) Expr(*s.test);
        loops_.push_back(++loop_counter_);
        Body(s.body);
        loops_.pop_back();
        Body(s.orelse);
        break;
      case K::kIf:
        if (s.test) Expr(*s.test);
        Body(s.body);
        Body(s.orelse);
        break;
      case K::kWith:
        for (const auto& it : s.items) {
          if (it.context_expr) Expr(*it.context_expr);
          if (it.optional_vars) Target(*it.optional_vars);
        }
        Body(s.body);
        break;
      case K::kFunctionDef:
      case K::kClassDef:
        Store(s.name, s.span.line);
        break;
      case K::kImport:
      case K::kImportFrom:
        for (const auto& a : s.names) {
          std::string n = a.asname.empty() ? a.name.substr(0, a.name.find('.')) : a.asname;
          Store(n, s.span.line);
        }
        break;
      case K::kTry:
        Body(s.body);
        for (const auto& h : s.handlers) {
          if (h.type) Expr(*h.type);
          if (!h.name.empty()) Store(h.name, h.span.line);
          Body(h.body);
        }
        Body(s.orelse);
        Body(s.finalbody);
        break;
      default:
        for (const py::Expr* e : {s.value.get(), s.test.get(), s.msg.get(), s.exc.get(),
                                  s.cause.get(), s.subject.get()})
          if (e) Expr(*e);
        for (const auto& t : s.targets) Expr(*t);
        break;
    }
  }

  const std::set<std::string>& globals_;
  std::set<std::string> local_;
  std::map<std::string, Binding> bound_;
  std::vector<int> loops_;
  int loop_counter_ = 0;
  std::set<std::string> reported_free_, reported_escape_;
  NameScope out_;
};

}  // namespace

NameScope AnalyzeNames(const std::vector<py::StmtPtr>& body, const std::set<std::string>& globals,
                       const std::set<std::string>& params) {
  Analyzer a(globals, params);
  a.Body(body);
  return a.Take();
}

const std::set<std::string>& PythonBuiltins() {
  static const std::set<std::string> k = {
      "abs", "all", "any", "bool", "dict", "divmod", "enumerate", "float", "int", "isinstance",
      "len", "list", "max", "min", "print", "range", "reversed", "round", "set", "sorted",
      "str", "sum", "tuple", "zip", "True", "False", "None"};
  return k;
}

}  // namespace opdev::codegen
