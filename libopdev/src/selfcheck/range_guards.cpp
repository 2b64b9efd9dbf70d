// S4-5 ⑦: no `assert`/`if … raise` in the wrapper that narrows the range SPEC supports. Each
// guard is evaluated (py_eval.h) against probe tensors inside the supported range — every
// dynamic axis at its bounds and at awkward in-range values (tails, non-powers of two), one
// axis at a time from the first DESIGN §8 case, and every supported dtype; a guard that
// rejects a supported probe narrows the range (a single point, a divisibility, a smaller
// maximum, fewer dtypes). Probes that violate SPEC's own simple shape constraints
// (`N % 16 == 0`, `N >= 1`) are not used. A test that returns or skips before calling the
// wrapper (traced with its helpers by test_data.cpp) drops its §8 case and is reported too.
#include "semantic_rules.h"

#include "py_eval.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <regex>
#include <set>

namespace opdev::selfcheck {
namespace {

struct Constraint {        // "SYM % K == 0", "SYM >= K", ...
  std::string sym, op;
  std::int64_t k = 0;
};

std::vector<Constraint> SimpleConstraints(const std::vector<std::string>& texts) {
  static const std::regex kMod(R"(\b([A-Za-z_]\w*)\s*%\s*(\d+)\s*==\s*0)");
  static const std::regex kCmp(R"(\b([A-Za-z_]\w*)\s*(>=|<=|>|<)\s*(\d+))");
  std::vector<Constraint> out;
  for (const auto& t : texts) {
    for (std::sregex_iterator it(t.begin(), t.end(), kMod), end; it != end; ++it)
      out.push_back({(*it)[1], "%", std::stoll((*it)[2])});
    for (std::sregex_iterator it(t.begin(), t.end(), kCmp), end; it != end; ++it)
      out.push_back({(*it)[1], (*it)[2], std::stoll((*it)[3])});
  }
  return out;
}

bool Satisfies(const std::map<std::string, std::int64_t>& b, const std::vector<Constraint>& cs) {
  for (const auto& c : cs) {
    auto it = b.find(c.sym);
    if (it == b.end()) continue;
    const std::int64_t v = it->second;
    if (c.op == "%" && c.k > 0 && v % c.k != 0) return false;
    if (c.op == ">=" && v < c.k) return false;
    if (c.op == "<=" && v > c.k) return false;
    if (c.op == ">" && v <= c.k) return false;
    if (c.op == "<" && v >= c.k) return false;
  }
  return true;
}

struct Guard {
  const py::Stmt* stmt = nullptr;
  bool rejects_when_true = true;  // `if c: raise` (true) / `assert c` (false)
  size_t index = 0;               // position among the wrapper's top-level statements
  // A guard in a local helper the wrapper calls at `index` (`_check(x)`): the helper, the
  // call, and the guard's position among the helper's top-level statements.
  const FunctionInfo* helper = nullptr;
  const py::Expr* call = nullptr;
  size_t helper_index = 0;
};

bool RaisesOrReturns(const std::vector<py::StmtPtr>& body) {
  for (const auto& s : body)
    if (s->Is(py::StmtKind::kRaise) || s->Is(py::StmtKind::kReturn)) return true;
  return false;
}

struct Probe {
  std::map<std::string, std::int64_t> axes;  // symbol -> value
  std::map<std::string, std::string> dtypes;  // input -> dtype
  std::string changed;                        // what this probe varies, for the message
};

}  // namespace

Diagnostics CheckRangeGuards(const CheckContext& c, std::string* evidence) {
  Diagnostics d;
  const KernelFile& f = *c.file;
  const FunctionInfo* w = f.Find(c.wrapper);
  std::vector<std::string> notes;
  // Tests that drop their case: skip decorators and skip calls (early returns: test_data.cpp).
  for (const auto* t : f.Tests()) {
    for (const auto& dec : t->decorators)
      if (dec.find("skip") != std::string::npos)
        AddFinding(&d, f, "SC-RANGE-NARROWED", cat::kCheating, t->line,
                   absl::StrCat(t->name, " is skipped (@", dec, "): its DESIGN §8 case never runs"));
    bool called = false;
    std::function<void(const std::vector<py::StmtPtr>&)> walk = [&](const std::vector<py::StmtPtr>& body) {
      for (const auto& s : body) {
        if (called) return;
        bool has_call = false;
        py::ForEachCall(*s, [&](const py::Expr& call) {
          std::string n = py::CallName(call);
          if (n == c.wrapper) has_call = true;
          if (n == "pytest.skip" || n == "unittest.skip" || n == "self.skipTest")
            AddFinding(&d, f, "SC-RANGE-NARROWED", cat::kCheating, call.span.line,
                       absl::StrCat(t->name, " skips its DESIGN §8 case (", n, ")"));
        });
        if (has_call && !s->Is(py::StmtKind::kIf)) {
          called = true;
          return;
        }
        walk(s->body);
        walk(s->orelse);
      }
    };
    walk(t->def->body);
  }
  if (!w) {
    *evidence = "⑦: no wrapper";
    return d;
  }
  if (!c.spec) {
    *evidence = "⑦: SPEC.md machine contract not readable: wrapper guards not checked against the supported range";
    d.Warning("SC-RANGE-UNCHECKED", cat::kCheating, "SPEC.md", 0,
              "⑦ needs the SPEC machine contract (supported dtypes, dynamic_axes_ranges) to judge the wrapper's guards");
    return d;
  }
  const contract::SpecContract& spec = *c.spec;
  // Wrapper tensor parameters ↔ SPEC inputs (by name, else by position).
  const py::Arguments& a = *w->def->args;
  std::vector<std::string> params;
  for (const auto& p : a.posonlyargs) params.push_back(p.arg);
  for (const auto& p : a.args) params.push_back(p.arg);
  std::map<std::string, const contract::SpecTensor*> bind;
  for (size_t i = 0; i < params.size(); ++i) {
    if (const auto* t = spec.FindInput(params[i])) bind[params[i]] = t;
    else if (i < spec.inputs.size() && !spec.FindInput(params[i]) && bind.size() == i)
      bind[params[i]] = &spec.inputs[i];
  }
  // Axis ranges and the base point (the first §8 case on the first input, else in-range).
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> ranges = spec.dynamic_axes;
  std::map<std::string, std::int64_t> base;
  std::vector<std::int64_t> first_case;
  if (c.design)
    for (const auto& tc : c.design->TestCases())
      if (!tc.shape.empty()) {
        first_case = tc.shape;
        break;
      }
  if (!spec.inputs.empty() && spec.inputs[0].shape.size() == first_case.size())
    for (size_t i = 0; i < first_case.size(); ++i) base[spec.inputs[0].shape[i]] = first_case[i];
  for (const auto& [sym, r] : ranges)
    if (!base.count(sym)) base[sym] = std::clamp<std::int64_t>(128, r.first, r.second);
  std::vector<std::string> dtypes = spec.supported_dtypes;
  std::map<std::string, std::string> base_dtypes;
  for (const auto& [p, t] : bind) base_dtypes[p] = t->dtype_text;
  auto constraints = SimpleConstraints(spec.shape_constraints);

  std::vector<Probe> probes;
  probes.push_back({base, base_dtypes, "the first DESIGN §8 case"});
  for (const auto& [sym, r] : ranges) {
    std::set<std::int64_t> vals = {r.first, r.second, r.first + 1, r.second - 1, (r.first + r.second) / 2};
    for (std::int64_t v : {3, 7, 100, 127, 129, 200, 255, 1000, 1023, 4097}) vals.insert(v);
    for (std::int64_t v : vals) {
      if (v < r.first || v > r.second) continue;
      Probe p{base, base_dtypes, absl::StrCat(sym, "=", v)};
      p.axes[sym] = v;
      if (Satisfies(p.axes, constraints)) probes.push_back(p);
    }
  }
  for (const auto& [p, t] : bind)
    for (const auto& dt : dtypes) {
      if (dt == t->dtype_text) continue;
      Probe pr{base, base_dtypes, absl::StrCat(p, " dtype ", dt)};
      pr.dtypes[p] = dt;
      probes.push_back(pr);
    }

  // Guards among the wrapper's top-level statements and those of the local helpers it calls
  // as a statement (`_check(x)`, `n = _validate(x)`).
  std::vector<Guard> guards;
  auto is_guard = [](const py::Stmt& s, bool* when_true) {
    if (s.Is(py::StmtKind::kAssert)) {
      *when_true = false;
      return true;
    }
    if (s.Is(py::StmtKind::kIf) && RaisesOrReturns(s.body)) {
      *when_true = true;
      return true;
    }
    return false;
  };
  for (size_t i = 0; i < w->def->body.size(); ++i) {
    const py::Stmt& s = *w->def->body[i];
    bool when_true = true;
    if (is_guard(s, &when_true)) guards.push_back({&s, when_true, i});
    if ((s.Is(py::StmtKind::kExpr) || s.Is(py::StmtKind::kAssign)) && s.value && s.value->Is(py::ExprKind::kCall)) {
      const FunctionInfo* h = f.Find(py::CallName(*s.value));
      if (!h || h->is_jit || h->is_vf || h->name == w->name) continue;
      for (size_t j = 0; j < h->def->body.size(); ++j)
        if (is_guard(*h->def->body[j], &when_true))
          guards.push_back({h->def->body[j].get(), when_true, i, h, s.value.get(), j});
    }
  }
  PyEnv consts = ModuleConstants(f.module);
  int decided = 0, undecided = 0;
  for (const auto& g : guards) {
    bool any_known = false;
    for (const auto& pr : probes) {
      PyEnv env = consts;
      bool complete = true;
      for (const auto& [p, t] : bind) {
        std::vector<std::int64_t> shape;
        for (const auto& sym : t->shape) {
          if (auto it = pr.axes.find(sym); it != pr.axes.end()) shape.push_back(it->second);
          else if (!sym.empty() && std::all_of(sym.begin(), sym.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) shape.push_back(std::stoll(sym));
          else complete = false;
        }
        env[p] = PyVal::Tensor(shape, CanonicalDtype(pr.dtypes.at(p)));
      }
      if (!complete) continue;
      for (size_t i = 0; i < g.index; ++i) ExecAssign(*w->def->body[i], &env);
      if (g.helper) {
        // The helper's parameters bound to the call's arguments, then its own assignments.
        PyEnv henv = consts;
        const py::Arguments& ha = *g.helper->def->args;
        std::vector<std::string> hp;
        for (const auto& p : ha.posonlyargs) hp.push_back(p.arg);
        for (const auto& p : ha.args) hp.push_back(p.arg);
        for (size_t k = 0; k < g.call->args.size() && k < hp.size(); ++k) henv[hp[k]] = EvalPy(*g.call->args[k], env);
        for (const auto& kw : g.call->keywords)
          if (kw.value && !kw.arg.empty()) henv[kw.arg] = EvalPy(*kw.value, env);
        for (size_t j = 0; j < g.helper_index; ++j) ExecAssign(*g.helper->def->body[j], &henv);
        env = std::move(henv);
      }
      auto t = EvalPy(*g.stmt->test, env).Truth();
      if (!t) continue;
      any_known = true;
      const bool rejects = g.rejects_when_true ? *t : !*t;
      if (!rejects) continue;
      std::vector<std::string> axes;
      for (const auto& [sym, r] : ranges) axes.push_back(absl::StrCat(sym, " ∈ [", r.first, ", ", r.second, "]"));
      AddFinding(&d, f, "SC-RANGE-NARROWED", cat::kCheating, g.stmt->span.line,
                 absl::StrCat(g.rejects_when_true ? "this guard" : "this assert", " in ",
                              g.helper ? absl::StrCat(g.helper->name, " (called by ", c.wrapper, ")") : c.wrapper,
                              " rejects ",
                              pr.changed, ", which SPEC supports (", absl::StrJoin(axes, ", "),
                              dtypes.empty() ? "" : absl::StrCat("; dtypes ", absl::StrJoin(dtypes, ", ")),
                              "): the wrapper narrows the declared range"));
      break;
    }
    any_known ? ++decided : ++undecided;
  }
  notes.push_back(absl::StrCat("⑦: ", guards.size(), " wrapper guard(s) (", decided, " decided, ", undecided,
                               " not decidable) against ", probes.size(), " in-range probe(s)"));
  *evidence = absl::StrJoin(notes, "; ");
  return d;
}

}  // namespace opdev::selfcheck
