// Static checks of @pl.vector_function bodies: MTE operations (load/store/fillpad) inside a VF
// function, `if` statements on runtime values (the hardware executes both arms predicated),
// and values read in a loop that were only assigned in an earlier, different loop.
#include "program.h"

#include "absl/strings/match.h"

#include <set>

namespace opdev::sim {

namespace {

bool IsMteCall(const std::string& name) {
  if (absl::StartsWith(name, "vf.")) return false;
  for (const char* op : {"load", "store", "load_tile", "store_tile", "fillpad", "fillpad_inplace",
                         "fillpad_expand", "move", "insert"}) {
    std::string suffix = std::string(".") + op;
    if (absl::EndsWith(name, suffix)) return true;
  }
  return false;
}

void CollectNames(const py::Expr& e, std::vector<const py::Expr*>& out) {
  struct V : py::AstVisitor {
    std::vector<const py::Expr*>* out;
    bool EnterExpr(const py::Expr& x) override {
      if (x.kind == py::ExprKind::kName && x.ctx == py::ExprContext::kLoad) out->push_back(&x);
      return true;
    }
  } v;
  v.out = &out;
  py::Walk(e, v);
}

void CollectStores(const py::Expr& e, std::vector<std::string>& out) {
  if (e.kind == py::ExprKind::kName) out.push_back(e.id);
  if (e.kind == py::ExprKind::kTuple || e.kind == py::ExprKind::kList)
    for (const auto& x : e.elts) CollectStores(*x, out);
}

using LoopStack = std::vector<const py::Stmt*>;

struct Site {
  std::string name;
  LoopStack loops;
  int line = 0;
};

class StaleAnalysis {
 public:
  std::vector<Site> reads, writes;

  void Body(const std::vector<py::StmtPtr>& body, LoopStack& loops) {
    for (const auto& s : body) Stmt(*s, loops);
  }

 private:
  void Read(const py::Expr* e, const LoopStack& loops) {
    if (!e) return;
    std::vector<const py::Expr*> names;
    CollectNames(*e, names);
    for (const auto* n : names) reads.push_back({n->id, loops, n->span.line});
  }
  void Write(const py::Expr* e, const LoopStack& loops, int line) {
    if (!e) return;
    std::vector<std::string> names;
    CollectStores(*e, names);
    for (const auto& n : names) writes.push_back({n, loops, line});
  }
  void Stmt(const py::Stmt& s, LoopStack& loops) {
    switch (s.kind) {
      case py::StmtKind::kAssign:
        Read(s.value.get(), loops);
        for (const auto& t : s.targets) Write(t.get(), loops, s.span.line);
        break;
      case py::StmtKind::kAugAssign:
        Read(s.value.get(), loops);
        Read(s.target.get(), loops);
        Write(s.target.get(), loops, s.span.line);
        break;
      case py::StmtKind::kAnnAssign:
        Read(s.value.get(), loops);
        Write(s.target.get(), loops, s.span.line);
        break;
      case py::StmtKind::kFor:
        Read(s.iter.get(), loops);
        loops.push_back(&s);
        Write(s.target.get(), loops, s.span.line);
        Body(s.body, loops);
        loops.pop_back();
        Body(s.orelse, loops);
        break;
      case py::StmtKind::kWhile:
        loops.push_back(&s);
        Read(s.test.get(), loops);
        Body(s.body, loops);
        loops.pop_back();
        Body(s.orelse, loops);
        break;
      case py::StmtKind::kIf:
        Read(s.test.get(), loops);
        Body(s.body, loops);
        Body(s.orelse, loops);
        break;
      case py::StmtKind::kExpr: case py::StmtKind::kReturn:
        Read(s.value.get(), loops);
        break;
      case py::StmtKind::kWith:
        Body(s.body, loops);
        break;
      default:
        break;
    }
  }
};

bool IsPrefix(const LoopStack& p, const LoopStack& s) {
  if (p.size() > s.size()) return false;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != s[i]) return false;
  return true;
}

}  // namespace

void CheckVectorFunction(const py::Stmt& def, const std::set<std::string>& module_names,
                         HazardSink& sink) {
  // 1. MTE operations inside the VF body.
  py::ForEachCall(def, [&](const py::Expr& call) {
    std::string name = py::CallName(call);
    if (IsMteCall(name))
      sink.Report(hazard::kVfMteOp, call.span.line,
                  name + "() inside @pl.vector_function '" + def.name +
                      "': MTE transfers belong to the kernel body, before/after the VF call");
  });
  // Parameters and locals are runtime values.
  std::set<std::string> params;
  for (const auto& a : def.args->args) params.insert(a.arg);
  for (const auto& a : def.args->kwonlyargs) params.insert(a.arg);
  // 2. `if` on a runtime value.
  struct IfVisitor : py::AstVisitor {
    const std::set<std::string>* module_names;
    HazardSink* sink;
    std::string fn;
    bool EnterStmt(const py::Stmt& s) override {
      if (s.kind == py::StmtKind::kIf || (s.kind == py::StmtKind::kWhile)) {
        std::vector<const py::Expr*> names;
        CollectNames(*s.test, names);
        for (const auto* n : names) {
          if (module_names->count(n->id) && n->id != "vf") continue;
          sink->Report(hazard::kVfRuntimeIf, s.span.line,
                       std::string(s.kind == py::StmtKind::kIf ? "`if`" : "`while`") +
                           " on runtime value '" + n->id + "' inside @pl.vector_function '" + fn +
                           "': the hardware executes both arms predicated; use an empty-range "
                           "loop, pl.min/max clamps or vf.select",
                       n->id);
          break;
        }
      }
      return true;
    }
  } iv;
  iv.module_names = &module_names;
  iv.sink = &sink;
  iv.fn = def.name;
  for (const auto& s : def.body) py::Walk(*s, iv);
  // 3. Stale loop values.
  StaleAnalysis sa;
  LoopStack loops;
  sa.Body(def.body, loops);
  std::set<std::pair<std::string, int>> reported;
  for (const auto& r : sa.reads) {
    if (r.loops.empty() || params.count(r.name) || module_names.count(r.name)) continue;
    bool fresh = false, any = false;
    const Site* other = nullptr;
    for (const auto& w : sa.writes) {
      if (w.name != r.name) continue;
      any = true;
      if (IsPrefix(w.loops, r.loops)) { fresh = true; break; }
      if (!other) other = &w;
    }
    if (fresh || !any || !other) continue;
    if (!reported.insert({r.name, r.line}).second) continue;
    sink.Report(hazard::kVfStaleValue, r.line,
                "'" + r.name + "' is read in this loop but only assigned inside an earlier loop (line " +
                    std::to_string(other->line) +
                    "): it holds that loop's last value here, not a per-iteration value",
                r.name);
  }
}

}  // namespace opdev::sim
