// Static self-check items on the kernel body: buffers and sync edges (S4-6: tile groups for
// rotation, make_tile only for scratch, no manual sync on auto_mutex tiles, no VF barrier that
// orders nothing) and the frozen
// vector_selection (S4-7: `vf` steps run as vf.* inside @pl.vector_function, never as pl.*
// tile vector math).
#include "check_context.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace opdev::selfcheck {
namespace {

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// `name = <call>(...)` assignments anywhere inside a function: name -> (callee, line).
std::multimap<std::string, std::pair<std::string, int>> CallAssignments(const py::Stmt& def) {
  std::multimap<std::string, std::pair<std::string, int>> out;
  struct V : py::AstVisitor {
    std::multimap<std::string, std::pair<std::string, int>>* out;
    bool EnterStmt(const py::Stmt& s) override {
      if (s.Is(py::StmtKind::kAssign) && s.value && s.value->Is(py::ExprKind::kCall))
        for (const auto& t : s.targets)
          if (t->Is(py::ExprKind::kName))
            out->emplace(t->id, std::make_pair(py::CallName(*s.value), s.span.line));
      return true;
    }
  } v;
  v.out = &out;
  py::Walk(def, v);
  return out;
}

// Names mentioned anywhere in an expression.
void Mentions(const py::Expr& e, std::set<std::string>* out) {
  struct V : py::AstVisitor {
    std::set<std::string>* out;
    bool EnterExpr(const py::Expr& x) override {
      if (x.Is(py::ExprKind::kName)) out->insert(x.id);
      return true;
    }
  } v;
  v.out = out;
  py::Walk(e, v);
}

const std::set<std::string>& TileMathOps() {
  static const std::set<std::string> ops = {
      "add", "sub", "mul", "div", "exp", "log", "sqrt", "rsqrt", "abs", "neg", "relu",
      "reciprocal", "adds", "subs", "muls", "divs", "maxs", "mins", "row_max", "row_sum",
      "row_min", "col_max", "col_sum", "col_min", "row_expand", "col_expand", "row_expand_sub",
      "row_expand_div", "row_expand_mul", "expand", "cast", "exp_sub", "select", "cmp",
      "compare", "reduce_max", "reduce_sum", "reduce_min", "sigmoid", "tanh", "gelu", "silu",
      "axpy", "and_", "or_", "not_", "xor", "shl", "shr", "maximum", "minimum"};
  return ops;
}

}  // namespace

ItemResult CheckBuffersAndSync(const CheckContext& c) {
  ItemResult r;
  const KernelFile& f = *c.file;
  auto jits = f.Jits();
  int groups = 0, scratch = 0;
  for (const auto* k : jits) {
    auto assigns = CallAssignments(*k->def);
    std::set<std::string> group_names, slot_names, scratch_names;
    for (const auto& [name, v] : assigns) {
      if (v.first == "pl.make_tile_group") group_names.insert(name);
      if (v.first == "pl.make_tile") scratch_names.insert(name);
    }
    for (const auto& [name, v] : assigns) {
      auto dot = v.first.rfind('.');
      if (dot == std::string::npos) continue;
      std::string obj = v.first.substr(0, dot), method = v.first.substr(dot + 1);
      if ((method == "next" || method == "current") && group_names.count(obj)) slot_names.insert(name);
    }
    groups += static_cast<int>(group_names.size());
    scratch += static_cast<int>(scratch_names.size());
    bool loads_in_loop = false;
    for (const auto* call : f.CallsIn(k->name)) {
      if (call->name == "pl.make_tile" && call->loop_depth > 0)
        AddFinding(&r.findings, f, "SC-TILE-ROTATION", cat::kPerfViolation, call->line,
                   "pl.make_tile inside a loop: rotating tiles use pl.make_tile_group + auto_mutex");
      if (call->name == "pl.load" && call->loop_depth > 0) {
        loads_in_loop = true;
        if (!call->call->args.empty() && call->call->args[0]->Is(py::ExprKind::kName) &&
            scratch_names.count(call->call->args[0]->id))
          AddFinding(&r.findings, f, "SC-TILE-ROTATION", cat::kPerfViolation, call->line,
                     absl::StrCat("`", call->call->args[0]->id, "` comes from pl.make_tile but is "
                                  "reloaded every iteration: make_tile is for one-shot scratch only, "
                                  "rotate through a tile group"));
      }
      bool sync = call->name == "pl.system.sync_src" || call->name == "pl.system.sync_dst" ||
                  call->name == "pl.sync_src" || call->name == "pl.sync_dst";
      if (sync && k->auto_mutex) {
        std::set<std::string> m;
        for (const auto& a : call->call->args) Mentions(*a, &m);
        for (const auto& kw : call->call->keywords) Mentions(*kw.value, &m);
        std::vector<std::string> hit;
        for (const auto& n : m)
          if (slot_names.count(n) || group_names.count(n)) hit.push_back(n);
        if (!hit.empty())
          AddFinding(&r.findings, f, "SC-MANUAL-SYNC", cat::kPerfViolation, call->line,
                     absl::StrCat("manual ", call->name, " on auto_mutex tile(s) ",
                                  absl::StrJoin(hit, ", "), ": auto_mutex already orders them"));
        else
          r.findings.Warning("SC-MANUAL-SYNC-REVIEW", cat::kPerfViolation, f.rel, call->line,
                             absl::StrCat(call->name, " in an auto_mutex kernel: it must match a "
                                          "proven hazard edge of DESIGN §6/§7"))
              .evidence = LineText(f, call->line);
      }
    }
    if (loads_in_loop && group_names.empty())
      AddFinding(&r.findings, f, "SC-TILE-ROTATION", cat::kPerfViolation, k->line,
                 absl::StrCat(k->name, " loads tiles in a loop but has no pl.make_tile_group"));
  }
  // VF scratch barriers: a `vf.mem_bar` orders the VF memory accesses around it, so one with
  // no vector load/store after it in its VF function — nor before it inside a loop that
  // repeats it — orders nothing: the default tail barrier the SKILL forbids.
  int barriers = 0;
  for (const auto* v : f.Vfs()) {
    struct Access {
      int order = 0;
      bool barrier = false;
      int line = 0;
      std::vector<std::pair<int, int>> loops;  // (first, last) order of each enclosing loop body
    };
    std::vector<Access> seq;
    std::vector<std::pair<int, int>> open;
    int order = 0;
    std::function<void(const std::vector<py::StmtPtr>&)> walk = [&](const std::vector<py::StmtPtr>& body) {
      for (const auto& st : body) {
        const bool loop = st->Is(py::StmtKind::kFor) || st->Is(py::StmtKind::kWhile);
        if (loop) open.push_back({order, 0});
        if (!loop) {
          py::ForEachCall(*st, [&](const py::Expr& call) {
            std::string n = py::CallName(call);
            const bool bar = n == "vf.mem_bar";
            const bool mem = n.rfind("vf.load", 0) == 0 || n.rfind("vf.store", 0) == 0;
            if (bar || mem) seq.push_back({order++, bar, call.span.line, open});
          });
        }
        walk(st->body);
        walk(st->orelse);
        if (loop) {
          const int first = open.back().first, last = order - 1;
          open.pop_back();
          for (auto& a : seq)
            for (auto& l : a.loops)
              if (l.first == first && l.second == 0) l.second = last;
        }
      }
    };
    walk(v->def->body);
    for (const auto& b : seq) {
      if (!b.barrier) continue;
      ++barriers;
      bool orders = false;
      for (const auto& a : seq) {
        if (a.barrier) continue;
        if (a.order > b.order) orders = true;
        for (const auto& [lo, hi] : b.loops)
          if (a.order >= lo && a.order <= hi) orders = true;  // the next iteration
      }
      if (!orders)
        AddFinding(&r.findings, f, "SC-SCRATCH-BARRIER-EXTRA", cat::kPerfViolation, b.line,
                   absl::StrCat("vf.mem_bar in ", v->name, " has no vector load/store after it to order "
                                "(a default tail barrier): barriers only for proven hazard edges"));
    }
  }
  r.evidence = absl::StrCat(groups, " tile group(s), ", scratch, " make_tile scratch tile(s), ", barriers,
                            " vf.mem_bar(s)");
  Conclude(&r);
  return r;
}

ItemResult CheckVectorSelection(const CheckContext& c) {
  ItemResult r;
  const KernelFile& f = *c.file;
  if (!c.design) {
    r.status = ItemStatus::kBlocked;
    r.category = std::string(cat::kDesignViolation);
    r.evidence = "DESIGN.md is missing: the frozen vector_selection is unknown";
    return r;
  }
  auto rows = c.design->VectorSelections();
  if (rows.empty()) {
    r.status = ItemStatus::kSkipped;
    r.evidence = "DESIGN §1 has no vector_selection (no Vector step)";
    return r;
  }
  int vf_rows = 0, tile_rows = 0;
  for (const auto& row : rows) {
    std::string impl = row.implementation;
    if (impl.find("vf") != std::string::npos) ++vf_rows;
    else if (impl.find("tile_op") != std::string::npos) ++tile_rows;
  }
  std::set<std::string> vf_funcs;
  for (const auto* v : f.Vfs()) vf_funcs.insert(v->name);
  // vf.* belongs inside @pl.vector_function.
  for (const auto& call : f.calls)
    if (StartsWith(call.name, "vf.") && !vf_funcs.count(call.function))
      AddFinding(&r.findings, f, "SC-VF-OUTSIDE", cat::kPerfViolation, call.line,
                 absl::StrCat(call.name, " outside a @pl.vector_function (in ",
                              call.function.empty() ? "module level" : call.function, ")"));
  if (vf_rows > 0 && vf_funcs.empty())
    AddFinding(&r.findings, f, "SC-VF-SELECTION", cat::kPerfViolation, 1,
               absl::StrCat(vf_rows, " step(s) are frozen as vf but the file has no @pl.vector_function"),
               f.rel);
  if (tile_rows == 0 && vf_rows > 0) {
    // Every step is vf: no pl.* tile vector math anywhere in the kernel or its VF functions.
    std::set<std::string> scopes = vf_funcs;
    for (const auto* k : f.Jits()) scopes.insert(k->name);
    for (const auto& call : f.calls) {
      if (!scopes.count(call.function) || !StartsWith(call.name, "pl.")) continue;
      std::string op = call.name.substr(3);
      if (TileMathOps().count(op))
        AddFinding(&r.findings, f, "SC-VF-SELECTION", cat::kPerfViolation, call.line,
                   absl::StrCat(call.name, " is tile vector math, but DESIGN §1 froze every Vector "
                                "step as vf (use vf.* inside @pl.vector_function)"));
    }
  }
  if (vf_rows == 0 && tile_rows > 0 && !vf_funcs.empty())
    AddFinding(&r.findings, f, "SC-VF-SELECTION", cat::kPerfViolation, (*f.Vfs().begin())->line,
               "DESIGN §1 froze every Vector step as tile_op, but the file uses @pl.vector_function");
  r.evidence = absl::StrCat("DESIGN §1: ", vf_rows, " vf step(s), ", tile_rows,
                            " tile_op step(s) (line ", rows.front().line, ")");
  if (vf_rows > 0 && tile_rows > 0)
    r.evidence += "; mixed selection: the per-step mapping is not checked statically";
  Conclude(&r);
  return r;
}

}  // namespace opdev::selfcheck
