// The automatic cross-core pipeline: the roles of a stage's parameters (from its body and the
// API catalog) and the events inserted around each stage call (pipeline_stage.h).
#include "pipeline_stage.h"

#include "builtins.h"

#include "opdev/api/catalog.h"

#include "absl/strings/str_format.h"

#include <set>

namespace opdev::sim {

namespace {

// The parameter a local stands for: itself, or a tile taken from it (g.next(), g.current(),
// g.previous(), g[i]) or an offset into such a tile (t + off); -1 when none.
int ParamOf(const XNode& x, const std::vector<int>& alias) {
  switch (x.kind) {
    case XK::kLocal:
      return x.slot >= 0 && static_cast<size_t>(x.slot) < alias.size() ? alias[static_cast<size_t>(x.slot)] : -1;
    case XK::kCall:
      if (x.a && x.a->kind == XK::kAttr && x.a->a &&
          (x.a->name == "next" || x.a->name == "current" || x.a->name == "previous"))
        return ParamOf(*x.a->a, alias);
      return -1;
    case XK::kSubscript:
    case XK::kBin:
      return x.a ? ParamOf(*x.a, alias) : -1;
    default:
      return -1;
  }
}

class StageAnalysis {
 public:
  StageAnalysis(const Program& prog, std::map<const FuncIR*, std::vector<StageParamUse>>& memo)
      : prog_(prog), memo_(memo) {}

  // How `f` uses each of its parameters (memoized; a recursive call reads nothing more).
  const std::vector<StageParamUse>& Uses(const FuncIR& f) {
    if (auto it = memo_.find(&f); it != memo_.end()) return it->second;
    std::vector<StageParamUse>& out = memo_[&f];
    out.assign(f.params.size(), {});
    if (!busy_.insert(&f).second) return out;
    std::vector<int> alias(f.slot_names.size(), -1);
    for (size_t i = 0; i < f.params.size() && i < alias.size(); ++i) alias[i] = static_cast<int>(i);
    std::vector<StageParamUse> uses(f.params.size());
    // Twice: a loop body may use a tile before the statement that binds it textually.
    for (int pass = 0; pass < 2; ++pass) Body(f, f.body, alias, uses);
    busy_.erase(&f);
    memo_[&f] = std::move(uses);
    return memo_[&f];
  }

 private:
  void Mark(std::vector<StageParamUse>& uses, int p, bool write) {
    if (p < 0 || static_cast<size_t>(p) >= uses.size()) return;
    (write ? uses[static_cast<size_t>(p)].write : uses[static_cast<size_t>(p)].read) = true;
  }

  void Body(const FuncIR& f, const std::vector<SNode>& body, std::vector<int>& alias,
            std::vector<StageParamUse>& uses) {
    for (const SNode& s : body) {
      for (const auto& t : s.targets) Expr(f, *t, alias, uses);
      for (const XNode* x : {s.value.get(), s.test.get(), s.iter.get(), s.target.get(), s.msg.get()})
        if (x) Expr(f, *x, alias, uses);
      if (s.kind == SK::kAssign && s.value && s.targets.size() == 1 && s.targets[0]->kind == XK::kLocal) {
        const int p = ParamOf(*s.value, alias);
        const size_t slot = static_cast<size_t>(s.targets[0]->slot);
        if (p >= 0 && slot < alias.size()) alias[slot] = p;
      }
      Body(f, s.body, alias, uses);
      Body(f, s.orelse, alias, uses);
    }
  }

  void Expr(const FuncIR& f, const XNode& x, std::vector<int>& alias, std::vector<StageParamUse>& uses) {
    if (x.kind == XK::kCall && x.a) Call(f, x, alias, uses);
    for (const XNode* c : {x.a.get(), x.b.get(), x.c.get()})
      if (c) Expr(f, *c, alias, uses);
    for (const auto& c : x.items) Expr(f, *c, alias, uses);
    for (const auto& c : x.keys) Expr(f, *c, alias, uses);
    for (const auto& [k, c] : x.kwargs) Expr(f, *c, alias, uses);
  }

  // An argument passed as the callee's parameter `param` (positional `i` or keyword `name`).
  void Call(const FuncIR& f, const XNode& call, std::vector<int>& alias, std::vector<StageParamUse>& uses) {
    const XNode& callee = *call.a;
    if (callee.kind == XK::kBuiltinRef) {
      const api::Function* fn = api::Catalog::Builtin().FindFunction(callee.name);
      if (!fn) return;  // not an operation on tiles (pl.range, min, ...)
      std::vector<const api::Param*> positional;
      for (const api::Param& p : fn->params)
        if (p.kind != api::ParamKind::kKeywordOnly) positional.push_back(&p);
      auto use = [&](const api::Param* p, const XNode& arg) {
        if (!p || p->access == "none") return;
        Mark(uses, ParamOf(arg, alias), p->access == "write");
      };
      for (size_t i = 0; i < call.items.size(); ++i)
        use(i < positional.size() ? positional[i] : nullptr, *call.items[i]);
      for (const auto& [k, arg] : call.kwargs) use(fn->FindParam(k), *arg);
      return;
    }
    if (callee.kind != XK::kGlobal) return;
    const FuncIR* g = ResolveCallee(prog_, f, callee.name);
    if (!g) return;
    const std::vector<StageParamUse> inner = Uses(*g);  // a copy: Uses may grow memo_
    auto pass = [&](size_t gi, const XNode& arg) {
      if (gi >= inner.size()) return;
      const int p = ParamOf(arg, alias);
      if (inner[gi].read) Mark(uses, p, false);
      if (inner[gi].write) Mark(uses, p, true);
    };
    for (size_t i = 0; i < call.items.size(); ++i) pass(i, *call.items[i]);
    for (const auto& [k, arg] : call.kwargs)
      for (size_t gi = 0; gi < g->params.size(); ++gi)
        if (g->params[gi].name == k) pass(gi, *arg);
  }

  const Program& prog_;
  std::map<const FuncIR*, std::vector<StageParamUse>>& memo_;
  std::set<const FuncIR*> busy_;
};

struct GroupUse {
  const TileGroup* group = nullptr;
  std::string name;
  bool read = false, write = false;
  int64_t use = 0;   // the stage's rotation index for this group
  int64_t slot = 0;  // use % depth
};

std::string Where(const FuncIR& f, const GroupUse& u, const char* ids) {
  return absl::StrFormat("pipeline stage '%s', %s of group '%s' slot %d", f.name, ids, u.name, u.slot);
}

}  // namespace

Value CallStage(Interp& in, const FuncIR& f, std::vector<Value>& args, Kwargs& kw, const XNode& site) {
  CoreContext& core = *in.core;
  const std::vector<StageParamUse> roles = StageAnalysis(in.prog, in.stage_uses).Uses(f);
  // The groups with event ids among the arguments, bound to the stage's parameters.
  std::vector<GroupUse> groups;
  auto consider = [&](size_t p, const Value& v) {
    if (v.kind != VK::kGroup || p >= roles.size() || (!roles[p].read && !roles[p].write)) return;
    const TileGroup& g = v.As<TileGroup>();
    if (g.fwd_ids.empty() && g.bwd_ids.empty()) return;
    GroupUse u;
    u.group = &g;
    u.name = g.name;
    u.read = roles[p].read;
    u.write = roles[p].write;
    u.use = core.stage_events.uses[{&f, &g}]++;
    u.slot = u.use % static_cast<int64_t>(g.slots.size());
    groups.push_back(std::move(u));
  };
  for (size_t i = 0; i < args.size(); ++i) consider(i, args[i]);
  for (const auto& [k, v] : kw)
    for (size_t p = 0; p < f.params.size(); ++p)
      if (f.params[p].name == k) consider(p, v);
  const std::string what = "pipeline transform of stage " + f.name;
  // At the stage's start: a producer waits until the consumer released the slot (not on the
  // slot's first use: nothing was released yet; drained at the end), a consumer until the
  // producer filled it.
  for (const GroupUse& u : groups) {
    const TileGroup& g = *u.group;
    const int64_t depth = static_cast<int64_t>(g.slots.size());
    if (u.write && !g.bwd_ids.empty()) {
      if (u.use >= depth) {
        CrossCoreWait(in, CrossMode::kIntraBlock, static_cast<int>(g.bwd_ids[static_cast<size_t>(u.slot)]),
                      std::nullopt, site.line, what, Where(f, u, "bwd_ids"));
      }
      bool known = false;
      for (auto& p : core.stage_events.producers)
        if (p.group == &g) {
          p.uses = std::max(p.uses, u.use + 1);
          p.line = site.line;
          known = true;
        }
      if (!known) core.stage_events.producers.push_back({&g, u.use + 1, site.line});
    }
    if (u.read && !g.fwd_ids.empty())
      CrossCoreWait(in, CrossMode::kIntraBlock, static_cast<int>(g.fwd_ids[static_cast<size_t>(u.slot)]),
                    std::nullopt, site.line, what, Where(f, u, "fwd_ids"));
  }
  Value r = in.CallFunction(f, args, kw, site.line);
  // At its end: a producer announces the filled slot, a consumer releases it.
  for (const GroupUse& u : groups) {
    const TileGroup& g = *u.group;
    if (u.write && !g.fwd_ids.empty())
      CrossCoreSet(in, CrossMode::kIntraBlock, static_cast<int>(g.fwd_ids[static_cast<size_t>(u.slot)]),
                   std::nullopt, site.line, what);
    if (u.read && !g.bwd_ids.empty())
      CrossCoreSet(in, CrossMode::kIntraBlock, static_cast<int>(g.bwd_ids[static_cast<size_t>(u.slot)]),
                   std::nullopt, site.line, what);
  }
  return r;
}

void DrainStages(Interp& in) {
  CoreContext& core = *in.core;
  for (const StageEvents::Producer& p : core.stage_events.producers) {
    const TileGroup& g = *p.group;
    const int64_t depth = static_cast<int64_t>(g.slots.size());
    // The releases of the last min(uses, depth) uses are still pending: the first uses did
    // not wait for any.
    for (int64_t use = std::max<int64_t>(0, p.uses - depth); use < p.uses; ++use) {
      const int64_t slot = use % depth;
      CrossCoreWait(in, CrossMode::kIntraBlock, static_cast<int>(g.bwd_ids[static_cast<size_t>(slot)]),
                    std::nullopt, p.line, "pipeline transform drain",
                    absl::StrFormat("the drain of group '%s' slot %d (bwd_ids)", g.name, slot));
    }
  }
  core.stage_events.producers.clear();
}

}  // namespace opdev::sim
