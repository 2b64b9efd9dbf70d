// Building the kernel and VF regions of a chain-only DESIGN from the pure-vec skeletons.
#include "pattern_skeleton.h"

#include "../ast_util.h"
#include "pattern_select.h"
#include "vf_chain.h"

#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

namespace opdev::codegen::vector_vf {
namespace {

constexpr const char* kS1 = "§1";

using Source = LineMappedSource;

// ---- §2 / §3 slots ----------------------------------------------------------------------

struct Slot {
  std::string tensor;       // launch argument
  std::string group;        // §2 group variable
  std::string type_var;     // TileType variable completed from §2
  std::string slot_var;     // kernel cursor variable
  std::string tile_param;   // VF parameter
  std::vector<std::string> addrs;
  std::vector<std::int64_t> mutex_ids;
  const contract::TileAttr* attr = nullptr;
  enum Kind { kRow, kParam, kOut, kAcc } kind = kRow;
};

std::set<std::string> Tokens(const std::string& name) {
  std::set<std::string> out;
  for (auto t : NameTokens(name)) {
    while (!t.empty() && std::isdigit(static_cast<unsigned char>(t.back()))) t.pop_back();
    if (!t.empty()) out.insert(t);
  }
  return out;
}

std::string NameForValue(std::int64_t v, const std::string& prefer, const GenContext& ctx) {
  std::vector<std::string> names = ctx.LiteralConstantsEqualTo(v);
  if (names.size() == 1) return names.front();
  std::vector<std::string> preferred;
  for (const auto& n : names)
    if (absl::AsciiStrToLower(n).find(prefer) != std::string::npos) preferred.push_back(n);
  if (preferred.size() == 1) return preferred.front();
  return std::to_string(v);
}

bool SizeLike(const std::string& n) {
  std::string l = absl::AsciiStrToLower(n);
  for (const char* k : {"bytes", "size", "slot", "len", "num", "rows", "cols", "lanes", "max_",
                        "tile_"})
    if (l.find(k) != std::string::npos) return true;
  return false;
}

// The §2.1 constant naming an address: same value, not a size, best token match with the
// group (and the slot index as its trailing digit). Literal hex when none names it.
std::optional<std::string> AddressExpr(std::int64_t value, const std::string& group, size_t index,
                                       int line, GenContext& ctx) {
  std::vector<std::string> cands;
  for (const auto& n : ctx.constant_names) {
    auto it = ctx.constants.find(n);
    if (it != ctx.constants.end() && it->second == value && !SizeLike(n)) cands.push_back(n);
  }
  if (cands.empty()) return absl::StrFormat("0x%05X", value);
  if (cands.size() == 1) return cands.front();
  const auto gt = Tokens(group);
  int best = -1, ties = 0;
  std::string pick;
  for (const auto& c : cands) {
    int score = 0;
    for (const auto& t : Tokens(c)) score += gt.count(t) ? 2 : 0;
    if (!c.empty() && std::isdigit(static_cast<unsigned char>(c.back())) &&
        static_cast<size_t>(c.back() - '0') == index)
      score += 1;
    if (score > best) {
      best = score;
      pick = c;
      ties = 0;
    } else if (score == best) {
      ++ties;
    }
  }
  if (ties) {
    ctx.Violation("CODEGEN-CHAIN-SLOT", line, "§3",
                  absl::StrFormat("address 0x%X of %s[%d] is named by several §2.1 constants "
                                  "(%s): which one the kernel writes is ambiguous",
                                  value, group, index, absl::StrJoin(cands, ", ")));
    return std::nullopt;
  }
  return pick;
}

std::string TypeVarOf(const std::string& group) {
  const std::string suf = "_group";
  if (group.size() > suf.size() && group.compare(group.size() - suf.size(), suf.size(), suf) == 0)
    return group.substr(0, group.size() - suf.size()) + "_tt";
  return group + "_tt";
}

// The §2 Tile 属性表 row of a launch tensor: its name's tokens in the group/variable, else for
// the only row input / the output the conventional in/out names.
const contract::TileAttr* TileFor(const std::string& tensor, Slot::Kind kind,
                                  const std::vector<contract::TileAttr>& tiles,
                                  const std::set<std::string>& taken, int line, GenContext& ctx) {
  auto group_of = [](const contract::TileAttr& t) { return t.group.empty() ? t.var : t.group; };
  std::vector<const contract::TileAttr*> hits;
  std::set<std::string> seen;
  for (const auto& t : tiles) {
    std::string g = group_of(t);
    if (taken.count(g) || seen.count(g)) continue;
    auto tk = Tokens(g);
    auto vk = Tokens(t.var);
    if (tk.count(absl::AsciiStrToLower(tensor)) || vk.count(absl::AsciiStrToLower(tensor))) {
      hits.push_back(&t);
      seen.insert(g);
    }
  }
  if (hits.empty()) {
    static const std::set<std::string> kIn = {"in", "input", "src"}, kOut = {"out", "output", "dst"};
    const auto& want = kind == Slot::kOut ? kOut : kIn;
    for (const auto& t : tiles) {
      std::string g = group_of(t);
      if (taken.count(g) || seen.count(g)) continue;
      auto tk = Tokens(g);
      bool m = false;
      for (const auto& w : want) m = m || tk.count(w);
      if (m) {
        hits.push_back(&t);
        seen.insert(g);
      }
    }
  }
  if (hits.size() == 1) return hits.front();
  if (hits.empty())
    ctx.Violation("CODEGEN-CHAIN-SLOT", line, "§2",
                  absl::StrFormat("the skeleton needs a UB tile for %s, but no §2 Tile 属性表 "
                                  "row names it (a group or variable with the token `%s`%s)",
                                  tensor, tensor,
                                  kind == Slot::kParam ? "" : ", or the in/out convention"));
  else
    ctx.Violation("CODEGEN-CHAIN-SLOT", hits[1]->line, "§2",
                  absl::StrFormat("several §2 Tile 属性表 rows could hold %s (%s and %s)", tensor,
                                  group_of(*hits[0]), group_of(*hits[1])));
  return nullptr;
}

std::optional<Slot> SlotFromAttr(const std::string& tensor, Slot::Kind kind,
                                 const contract::TileAttr* t, std::set<std::string>& taken,
                                 GenContext& ctx) {
  Slot s;
  s.tensor = tensor;
  s.kind = kind;
  s.attr = t;
  s.group = t->group.empty() ? t->var : t->group;
  taken.insert(s.group);
  s.type_var = TypeVarOf(s.group);
  s.slot_var = tensor + "_slot";
  s.tile_param = tensor + "_tile";
  if (t->shape.size() != 2 || !t->dtype || !t->space) {
    ctx.Violation("CODEGEN-CHAIN-SLOT", t->line, "§2",
                  absl::StrFormat("§2 Tile 属性表 row of %s needs a 2-D integer shape, a dtype "
                                  "and a memory space",
                                  s.group));
    return std::nullopt;
  }
  // Addresses from §3.
  std::vector<std::pair<std::int64_t, std::int64_t>> addrs;  // (slot index, start)
  int map_line = 0;
  static const std::regex kIdx(R"(\[(\d+)\]\s*$)");
  for (const auto& e : ctx.design->AddressMap()) {
    if (e.group != s.group || !e.start) continue;
    if (!map_line) map_line = e.line;
    std::smatch m;
    std::int64_t idx = static_cast<std::int64_t>(addrs.size());
    if (std::regex_search(e.var, m, kIdx)) idx = std::stoll(m[1]);
    const std::int64_t n = e.slots.value_or(1);
    for (std::int64_t i = 0; i < n; ++i)
      addrs.push_back({idx + i, *e.start + i * e.slot_bytes.value_or(0)});
  }
  if (addrs.empty()) {
    ctx.Violation("CODEGEN-CHAIN-SLOT", t->line, "§3",
                  absl::StrFormat("§3 片上地址映射表 has no address row for %s (needed for %s)",
                                  s.group, tensor));
    return std::nullopt;
  }
  std::sort(addrs.begin(), addrs.end());
  for (size_t i = 0; i < addrs.size(); ++i) {
    auto a = AddressExpr(addrs[i].second, s.group, i, map_line, ctx);
    if (!a) return std::nullopt;
    s.addrs.push_back(*a);
  }
  // Mutex ids from the §2 TileGroup table.
  const contract::TileGroupSlots* g = nullptr;
  auto groups = ctx.design->TileGroups();
  for (const auto& x : groups)
    if (x.name == s.group) g = &x;
  if (!g) {
    ctx.Violation("CODEGEN-CHAIN-SLOT", t->line, "§2",
                  absl::StrFormat("§2 TileGroup槽位访问表 has no row for %s (depth and mutex ids "
                                  "of %s)",
                                  s.group, tensor));
    return std::nullopt;
  }
  if (!g->mutex_ids.empty() && g->mutex_ids.size() != s.addrs.size()) {
    ctx.Violation("CODEGEN-CHAIN-UNSUPPORTED", g->line, "§2",
                  absl::StrFormat("%s gives %d mutex id(s) for %d slot(s): the skeleton writes "
                                  "one id per slot",
                                  s.group, g->mutex_ids.size(), s.addrs.size()));
    return std::nullopt;
  }
  s.mutex_ids = g->mutex_ids;
  return s;
}

std::optional<Slot> BuildSlot(const std::string& tensor, Slot::Kind kind,
                              const std::vector<contract::TileAttr>& tiles,
                              std::set<std::string>& taken, int line, GenContext& ctx) {
  const contract::TileAttr* t = TileFor(tensor, kind, tiles, taken, line, ctx);
  if (!t) return std::nullopt;
  return SlotFromAttr(tensor, kind, t, taken, ctx);
}

// ---- passes -------------------------------------------------------------------------------

struct Pass {
  std::vector<const ChainOp*> lane;  // per register, masked by the column tail
  const ChainOp* reduce = nullptr;
  std::vector<const ChainOp*> row;   // on the broadcast row value
};

bool IsNumber(const std::string& s) {
  static const std::regex kNum(R"(^-?[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?$)");
  return std::regex_match(s, kNum);
}

struct Builder {
  Builder(GenContext& c, const Chain& ch, Pattern p) : ctx(c), chain(ch), pattern(p) {}
  GenContext& ctx;
  const Chain& chain;
  Pattern pattern;
  std::vector<Slot> slots;
  const Slot* primary = nullptr;
  const Slot* out = nullptr;
  std::string dtype;        // "pl.DT_FP32"
  std::string lanes;        // LANES constant or literal
  std::string cols;         // tile column constant or literal
  std::string tile_rows;    // tile row constant or literal
  std::string axis;         // SPEC symbol of the reduction (column) axis, "" if numeric
  std::set<std::string> reserved;
  bool need_preg = false, need_len = false;
  std::string len_src = "n_cols";   // what the axis symbol broadcasts (C: the whole row)
  std::set<std::string> used_tiles;  // launch tensors whose registers a VF body loads
  std::set<int> warned;              // warning lines (C recomputes row values per VF)
  int tmp = 0;
  int struct_line = 0;

  std::string Tmp(const char* p) { return absl::StrCat(p, ++tmp); }

  bool IsConstant(const std::string& n) const {
    return std::find(ctx.constant_names.begin(), ctx.constant_names.end(), n) !=
           ctx.constant_names.end();
  }
  const Slot* SlotOf(const std::string& tensor) const {
    for (const auto& s : slots)
      if (s.tensor == tensor && s.kind != Slot::kOut) return &s;
    return nullptr;
  }

  // Resolves a chain operand in a lane (per register) or row section.
  std::optional<std::string> Resolve(const std::string& a, bool lane, const std::string& cur,
                                     const std::set<std::string>& lane_names,
                                     const std::set<std::string>& row_names,
                                     const std::set<std::string>& old_lane_names,
                                     std::set<std::string>* loads, const ChainOp& op) {
    if (a == "_") return cur;
    if (IsNumber(a) || (a.size() > 1 && a[0] == '-' && IsNumber(a.substr(1)))) return a;
    if (lane && lane_names.count(a)) return a;
    if (row_names.count(a)) return a;
    if (const Slot* s = SlotOf(a)) {
      if (!lane) {
        ctx.Violation("CODEGEN-CHAIN-AMBIGUOUS", op.line, kS1,
                      absl::StrFormat("`%s` in %s is a per-register value of input %s, used after "
                                      "the reduction on the row value",
                                      a, op.text, a));
        return std::nullopt;
      }
      loads->insert(s->tensor);
      return a;
    }
    if (!axis.empty() && a == axis) {
      need_len = need_preg = true;
      return std::string("n_len");
    }
    if (IsConstant(a)) return a;
    if (old_lane_names.count(a) || (!lane && lane_names.count(a))) {
      ctx.Violation("CODEGEN-CHAIN-AMBIGUOUS", op.line, kS1,
                    absl::StrFormat("`%s` in %s is a per-register value bound before a "
                                    "reduction pass ended; only reduction results (row values) "
                                    "cross passes",
                                    a, op.text));
      return std::nullopt;
    }
    ctx.Violation("CODEGEN-UNDEFINED-NAME", op.line, kS1,
                  absl::StrFormat("`%s` in %s is not a SPEC input, a name bound earlier in the "
                                  "chain, a §2.1 constant or the reduction axis %s",
                                  a, op.text, axis.empty() ? "(none)" : axis));
    return std::nullopt;
  }

  std::string OpCall(const ChainOp& op, const std::vector<std::string>& a, const char* mask) {
    return absl::StrFormat("%s(%s, %s)", op.api, absl::StrJoin(a, ", "), mask);
  }

  bool CheckBind(const ChainOp& op) {
    if (op.bind.empty()) return true;
    static const std::regex kTmp(R"(^(t|acc|part)\d+$)");
    if (reserved.count(op.bind) || SlotOf(op.bind) || IsConstant(op.bind) || op.bind == axis ||
        std::regex_match(op.bind, kTmp) || op.bind == out->tensor) {
      ctx.Violation("CODEGEN-CHAIN-NAME", op.line, kS1,
                    absl::StrFormat("`%s = ...` rebinds a name the kernel already uses (an "
                                    "input, a constant, the axis or a skeleton variable)",
                                    op.bind));
      return false;
    }
    return true;
  }

  // Emits one register loop of a pass; returns false on findings.
  bool EmitLane(Source& src, int ind, const std::vector<const ChainOp*>& ops, const ChainOp* reduce,
                const std::string& acc, const std::string& combine, bool store,
                std::set<std::string>& row_names, std::set<std::string>& old_lane_names) {
    std::set<std::string> lane_names, loads;
    std::vector<std::pair<std::string, int>> body;
    std::string cur = primary->tensor;
    loads.insert(primary->tensor);
    bool ok = true;
    for (const ChainOp* op : ops) {
      std::vector<std::string> args;
      for (const auto& a : op->args) {
        auto r = Resolve(a, true, cur, lane_names, row_names, old_lane_names, &loads, *op);
        if (!r) ok = false;
        else args.push_back(*r);
      }
      if (!ok || !CheckBind(*op)) return false;
      std::string res = op->bind.empty() ? Tmp("t") : op->bind;
      body.push_back({absl::StrCat(res, " = ", OpCall(*op, args, "mreg")), op->line});
      if (!op->bind.empty()) lane_names.insert(op->bind);
      cur = res;
    }
    if (reduce) {
      auto r = Resolve(reduce->args[0], true, cur, lane_names, row_names, old_lane_names, &loads,
                       *reduce);
      if (!r) return false;
      std::string part = Tmp("part");
      body.push_back({absl::StrFormat("%s = %s(%s, mreg)", part, reduce->api, *r), reduce->line});
      body.push_back({absl::StrFormat("%s = vf.%s(%s, %s, preg)", acc, combine, acc, part),
                      reduce->line});
    }
    src.Add(ind, "for r in pl.range(0, n_regs):", struct_line);
    src.Add(ind + 1, absl::StrFormat("off = base + r * %s", lanes), struct_line);
    src.Add(ind + 1, absl::StrFormat("valid = pl.min(%s, n_cols - r * %s)", lanes, lanes),
            struct_line);
    src.Add(ind + 1, absl::StrFormat("mreg = vf.update_mask(valid, dtype=%s)", dtype), struct_line);
    for (const auto& s : slots) {
      if (s.kind == Slot::kOut || !loads.count(s.tensor)) continue;
      src.Add(ind + 1,
              absl::StrFormat("%s = vf.load_align(%s, %s)", s.tensor, s.tile_param,
                              s.kind == Slot::kParam ? "r * " + lanes : std::string("off")),
              struct_line);
    }
    for (const auto& [text, line] : body) src.Add(ind + 1, text, line);
    if (store)
      src.Add(ind + 1, absl::StrFormat("vf.store_align(%s + off, %s, mreg)", out->tile_param, cur),
              ops.empty() ? struct_line : ops.back()->line);
    for (const auto& n : lane_names) old_lane_names.insert(n);
    for (const auto& l : loads) used_tiles.insert(l);
    return true;
  }

  static std::string Combine(const ChainOp& red) {
    return red.api == "vf.reduce_sum" ? "add" : red.api == "vf.reduce_max" ? "max" : "min";
  }

  // The accumulator's initial value: `init=` as frozen, 0.0 for a sum.
  std::optional<std::string> ReduceInit(const ChainOp& red) {
    std::string init = red.init;
    if (init.empty()) {
      if (red.api != "vf.reduce_sum") {
        ctx.Violation("CODEGEN-CHAIN-REDUCE-INIT", red.line, kS1,
                      absl::StrFormat("%s needs `init=` (the identity the DESIGN freezes, e.g. a "
                                      "§2.1 NEG_INF sentinel): the skeleton does not invent it",
                                      red.api),
                      red.text);
        return std::nullopt;
      }
      return std::string("0.0");
    }
    if (!IsNumber(init) && !(init[0] == '-' && IsNumber(init.substr(1))) && !IsConstant(init)) {
      ctx.Violation("CODEGEN-UNDEFINED-NAME", red.line, kS1,
                    absl::StrFormat("init `%s` of %s is neither a number nor a §2.1 constant",
                                    init, red.api),
                    red.text);
      return std::nullopt;
    }
    return init;
  }

  // The row value of a reduction pass from its lane-0 accumulator register `acc`: broadcast,
  // then the pass's row-level ops (masked by preg).
  bool EmitRowValue(Source& src, int ind, const Pass& p, const std::string& acc,
                    std::set<std::string>& row_names, std::set<std::string>& old_lane_names) {
    const ChainOp& red = *p.reduce;
    need_preg = true;
    if (!CheckBind(red)) return false;
    std::string cur = red.bind.empty() ? Tmp("t") : red.bind;
    src.Add(ind, absl::StrFormat("%s = vf.full(%s, preg)", cur, acc), red.line);
    if (!red.bind.empty()) row_names.insert(red.bind);
    for (const ChainOp* op : p.row) {
      std::vector<std::string> args;
      std::set<std::string> none;
      for (const auto& a : op->args) {
        auto r = Resolve(a, false, cur, {}, row_names, old_lane_names, &none, *op);
        if (!r) return false;
        args.push_back(*r);
      }
      if (!CheckBind(*op)) return false;
      std::string res = op->bind.empty() ? Tmp("t") : op->bind;
      src.Add(ind, absl::StrCat(res, " = ", OpCall(*op, args, "preg")), op->line);
      if (!op->bind.empty()) row_names.insert(op->bind);
      cur = res;
    }
    const ChainOp* last = p.row.empty() ? &red : p.row.back();
    if (last->bind.empty() && warned.insert(last->line).second)
      ctx.Warn("CODEGEN-CHAIN-UNUSED", last->line, kS1,
               absl::StrFormat("the result of the reduction pass ending in %s is never named, so "
                               "no later step can read it",
                               last->text));
    return true;
  }

  // Pattern B/B+: a whole reduction pass inside the one VF.
  bool EmitReducePass(Source& src, int ind, const Pass& p, std::set<std::string>& row_names,
                      std::set<std::string>& old_lane_names) {
    const ChainOp& red = *p.reduce;
    auto init = ReduceInit(red);
    if (!init) return false;
    need_preg = true;
    std::string acc = Tmp("acc");
    src.Add(ind, absl::StrFormat("%s = vf.full(%s, preg, dtype=%s)", acc, *init, dtype), red.line);
    if (!EmitLane(src, ind, p.lane, &red, acc, Combine(red), false, row_names, old_lane_names))
      return false;
    return EmitRowValue(src, ind, p, acc, row_names, old_lane_names);
  }
};

}  // namespace

SkeletonOutcome BuildPatternSkeleton(DesignCode& code, GenContext& ctx) {
  const size_t errors_before = ctx.diags->ErrorCount();
  auto chain = ParseChain(ctx);
  if (ctx.diags->ErrorCount() > errors_before) return SkeletonOutcome::kFailed;
  if (!chain) return SkeletonOutcome::kNoChain;
  const int line = chain->line;

  if (!ctx.launch) {
    ctx.Violation("CODEGEN-LAUNCH-MISSING",
                  ctx.design->FindSection(5) ? ctx.design->FindSection(5)->line : 0, "§5",
                  "§5 gives no launch contract `<kernel>[None, block_dim](args)`: the kernel "
                  "name and arguments are undetermined");
    return SkeletonOutcome::kFailed;
  }
  const SpecContract& spec = *ctx.spec;
  const SpecTensor& x = spec.inputs.front();
  if (x.shape.size() != 2) {
    ctx.Violation("CODEGEN-CHAIN-UNSUPPORTED", line, kS1,
                  absl::StrFormat("the pure-vec skeletons process 2-D [rows, cols] inputs; SPEC "
                                  "input %s has rank %d",
                                  x.name, x.shape.size()));
    return SkeletonOutcome::kFailed;
  }
  // Roles of the launch tensors.
  std::set<std::string> params;
  std::map<std::string, Slot::Kind> kinds;
  for (const auto& a : ctx.launch->args) {
    const SpecTensor* t = nullptr;
    bool is_out = false;
    for (const auto& i : spec.inputs)
      if (i.name == a) t = &i;
    for (const auto& o : spec.outputs)
      if (o.name == a) {
        t = &o;
        is_out = true;
      }
    if (!t) continue;  // reported by the backend (CODEGEN-LAUNCH-ARG)
    if (is_out) {
      if (t->shape != x.shape) {
        ctx.Violation("CODEGEN-CHAIN-UNSUPPORTED", ctx.launch->line, "§5",
                      absl::StrFormat("output %s [%s] is not shaped like %s [%s]: the skeletons "
                                      "write one row-shaped output",
                                      a, absl::StrJoin(t->shape, ", "), x.name,
                                      absl::StrJoin(x.shape, ", ")));
        return SkeletonOutcome::kFailed;
      }
      kinds[a] = Slot::kOut;
    } else if (t->shape == x.shape) {
      kinds[a] = Slot::kRow;
    } else if (t->shape.size() == 2 && t->shape[0] == "1" && t->shape[1] == x.shape[1]) {
      kinds[a] = Slot::kParam;
      params.insert(a);
    } else {
      ctx.Violation("CODEGEN-CHAIN-UNSUPPORTED", ctx.launch->line, "§5",
                    absl::StrFormat("input %s [%s] is neither row-shaped like %s nor a "
                                    "per-column parameter row [1, %s]",
                                    a, absl::StrJoin(t->shape, ", "), x.name, x.shape[1]));
      return SkeletonOutcome::kFailed;
    }
  }
  int outs = 0;
  for (const auto& [n, k] : kinds) outs += k == Slot::kOut;
  if (outs != 1 || !kinds.count(x.name) || kinds[x.name] != Slot::kRow) {
    ctx.Violation("CODEGEN-CHAIN-UNSUPPORTED", ctx.launch->line, "§5",
                  absl::StrFormat("the skeletons launch with the row input %s and exactly one "
                                  "output; §5 launches (%s)",
                                  x.name, absl::StrJoin(ctx.launch->args, ", ")));
    return SkeletonOutcome::kFailed;
  }

  auto choice = SelectPattern(*chain, params, ctx);
  if (!choice) return SkeletonOutcome::kFailed;
  const bool cross_tile = choice->pattern == Pattern::kC;

  Builder b(ctx, *chain, choice->pattern);
  b.struct_line = line;
  b.reserved = {"m",    "r",      "base",  "off",      "valid",  "mreg",       "preg",
                "n_regs", "n_rows", "n_cols", "n_len",  "pl",     "vf",         "rows",
                "cols", "num_cores", "core_id", "num_tiles", "tile_id", "row_off", "valid_rows",
                "n_total", "num_chunks", "c", "col_off", "valid_cols"};
  const auto tiles = ctx.design->Tiles();
  std::set<std::string> taken;
  // Order: the launch order (inputs, then the output, as §5 passes them).
  for (const auto& a : ctx.launch->args) {
    auto it = kinds.find(a);
    if (it == kinds.end()) continue;
    auto s = BuildSlot(a, it->second, tiles, taken, line, ctx);
    if (s) b.slots.push_back(std::move(*s));
  }
  if (ctx.diags->ErrorCount() > errors_before) return SkeletonOutcome::kFailed;
  for (const auto& s : b.slots) {
    if (s.tensor == x.name) b.primary = &s;
    if (s.kind == Slot::kOut) b.out = &s;
    b.reserved.insert(s.slot_var);
    b.reserved.insert(s.tile_param);
    b.reserved.insert(s.group);
  }
  const contract::TileAttr& pt = *b.primary->attr;
  for (const auto& s : b.slots) {
    if (s.attr->dtype != pt.dtype) {
      ctx.Violation("CODEGEN-CHAIN-UNSUPPORTED", s.attr->line, "§2",
                    absl::StrFormat("%s is %s but %s is %s: the skeleton runs one register "
                                    "dtype (a widening chain needs §1 code)",
                                    s.group, s.attr->dtype_text, b.primary->group,
                                    pt.dtype_text));
      return SkeletonOutcome::kFailed;
    }
    const SpecTensor* t = nullptr;
    for (const auto& i : spec.inputs)
      if (i.name == s.tensor) t = &i;
    for (const auto& o : spec.outputs)
      if (o.name == s.tensor) t = &o;
    if (t && t->dtype && *t->dtype != *s.attr->dtype) {
      ctx.Violation("CODEGEN-CHAIN-UNSUPPORTED", s.attr->line, "§2",
                    absl::StrFormat("%s is %s in UB but SPEC %s is %s: the skeleton does not "
                                    "cast on load or store",
                                    s.group, s.attr->dtype_text, s.tensor, t->dtype_text));
      return SkeletonOutcome::kFailed;
    }
    if (s.attr->shape[1] != pt.shape[1] || (s.kind != Slot::kParam && s.attr->shape[0] != pt.shape[0])) {
      ctx.Violation("CODEGEN-CHAIN-SLOT", s.attr->line, "§2",
                    absl::StrFormat("%s is %s but the row tile %s is %s: the skeleton walks "
                                    "them with one register loop",
                                    s.group, s.attr->shape_text, b.primary->group, pt.shape_text));
      return SkeletonOutcome::kFailed;
    }
  }
  const DType dt = *pt.dtype;
  if (chain->FirstReduce() && dt != DType::kFloat32) {
    ctx.Violation("CODEGEN-CHAIN-UNSUPPORTED", chain->FirstReduce()->line, kS1,
                  absl::StrFormat("a reduction on %s registers: the skeleton reduces in fp32 "
                                  "only (a widen→reduce chain needs §1 code)",
                                  pt.dtype_text));
    return SkeletonOutcome::kFailed;
  }
  // The whole row must fit the tile (Patterns A/B/B+).
  {
    auto r = spec.dynamic_axes.find(x.shape[1]);
    std::int64_t max_cols = r != spec.dynamic_axes.end() ? r->second.second : -1;
    bool numeric = !x.shape[1].empty() && std::all_of(x.shape[1].begin(), x.shape[1].end(), ::isdigit);
    if (numeric) max_cols = std::stoll(x.shape[1]);
    if (max_cols < 0) {
      ctx.Violation("CODEGEN-CHAIN-CAPACITY", pt.line, "§2",
                    absl::StrFormat("SPEC gives no range for axis %s, so whether a row fits the "
                                    "%s tile %s is unknown",
                                    x.shape[1], b.primary->group, pt.shape_text));
      return SkeletonOutcome::kFailed;
    }
    if (max_cols > pt.shape[1] && !cross_tile) {
      ctx.Violation("CODEGEN-CHAIN-CAPACITY", pt.line, "§2",
                    absl::StrFormat("SPEC axis %s reaches %d but tile %s holds %d columns: "
                                    "Pattern %s keeps a whole row in one tile",
                                    x.shape[1], max_cols, b.primary->group, pt.shape[1],
                                    PatternName(choice->pattern)));
      return SkeletonOutcome::kFailed;
    }
    if (!numeric) b.axis = x.shape[1];
    if (cross_tile) b.len_src = "n_total";
  }
  b.dtype = "pl." + std::string(DTypePlName(dt));
  const std::int64_t lanes = 256 / static_cast<std::int64_t>(DTypeSize(dt));
  b.lanes = NameForValue(lanes, "lane", ctx);
  b.cols = NameForValue(pt.shape[1], "n", ctx);
  b.tile_rows = NameForValue(pt.shape[0], "row", ctx);
  if (pt.shape[1] % lanes != 0) {
    ctx.Violation("CODEGEN-CHAIN-SLOT", pt.line, "§2",
                  absl::StrFormat("tile %s has %d columns, not a multiple of the %d-lane "
                                  "register: rows would not start register-aligned",
                                  b.primary->group, pt.shape[1], lanes));
    return SkeletonOutcome::kFailed;
  }

  // Passes.
  std::vector<Pass> passes;
  std::vector<const ChainOp*> pending;
  for (const auto& s : chain->steps) {
    size_t ri = s.ops.size();
    for (size_t i = 0; i < s.ops.size(); ++i)
      if (s.ops[i].cls == OpClass::kReduce) ri = i;
    if (ri == s.ops.size()) {
      for (const auto& o : s.ops) pending.push_back(&o);
      continue;
    }
    Pass p;
    p.lane = pending;
    for (size_t i = 0; i < ri; ++i) p.lane.push_back(&s.ops[i]);
    p.reduce = &s.ops[ri];
    for (size_t i = ri + 1; i < s.ops.size(); ++i) p.row.push_back(&s.ops[i]);
    passes.push_back(std::move(p));
    pending.clear();
  }
  if (pending.empty()) {
    ctx.Violation("CODEGEN-CHAIN-NO-OUTPUT", chain->steps.back().line, kS1,
                  "the chain ends with a reduction pass: no step computes the row-shaped output "
                  "the skeleton stores");
    return SkeletonOutcome::kFailed;
  }
  Pass final_pass;
  final_pass.lane = pending;

  // Pattern C: one accumulator tile per reduction pass, the §2 rows whose group or variable
  // carries the token `acc`, in table order; row m's lane-0 accumulator lives at m * LANES.
  std::vector<Slot> accs;
  if (cross_tile) {
    for (const auto& t : tiles) {
      if (accs.size() == passes.size()) break;
      std::string g = t.group.empty() ? t.var : t.group;
      if (taken.count(g) || (!Tokens(g).count("acc") && !Tokens(t.var).count("acc"))) continue;
      auto s = SlotFromAttr("acc" + std::to_string(accs.size() + 1), Slot::kAcc, &t, taken, ctx);
      if (!s) return SkeletonOutcome::kFailed;
      if (t.dtype != DType::kFloat32 || t.shape[1] != lanes || t.shape[0] < pt.shape[0]) {
        ctx.Violation("CODEGEN-CHAIN-SLOT", t.line, "§2",
                      absl::StrFormat("accumulator %s is %s %s; Pattern C keeps one fp32 "
                                      "register per tile row: [>= %d, %d] FP32",
                                      g, t.shape_text, t.dtype_text, pt.shape[0], lanes));
        return SkeletonOutcome::kFailed;
      }
      accs.push_back(std::move(*s));
    }
    if (accs.size() != passes.size()) {
      ctx.Violation("CODEGEN-CHAIN-SLOT", choice->line, "§2",
                    absl::StrFormat("Pattern C needs one UB accumulator tile per reduction pass "
                                    "(%d), but the §2 Tile 属性表 has %d row(s) named `acc...`",
                                    passes.size(), accs.size()));
      return SkeletonOutcome::kFailed;
    }
  }

  const std::string vf_name = ctx.op + "_vf";
  const std::string scalars =
      cross_tile ? "n_rows: pl.DT_INT64, n_cols: pl.DT_INT64, n_total: pl.DT_INT64"
                 : "n_rows: pl.DT_INT64, n_cols: pl.DT_INT64";
  Source src;
  // One VF: its body (built first, which tells which tiles and registers it needs), then the
  // def around it. Returns the tile parameters in launch order (+ accumulators).
  struct VfDef {
    std::string name;
    std::vector<std::string> tensors;  // launch tensors / acc labels passed, in order
  };
  std::vector<VfDef> vf_defs;
  auto emit_vf = [&](const std::string& name, const Source& body, const std::vector<size_t>& acc_idx,
                     bool writes_out) {
    VfDef d;
    d.name = name;
    std::vector<std::string> ps;
    for (const auto& s : b.slots)
      if (s.kind == Slot::kRow ? (s.tensor == x.name || b.used_tiles.count(s.tensor))
                               : s.kind == Slot::kParam ? b.used_tiles.count(s.tensor) > 0 : false) {
        d.tensors.push_back(s.tensor);
        ps.push_back(s.tile_param);
      }
    for (size_t i : acc_idx) {
      d.tensors.push_back(accs[i].tensor);
      ps.push_back(accs[i].tile_param);
    }
    if (writes_out) {
      d.tensors.push_back(b.out->tensor);
      ps.push_back(b.out->tile_param);
    }
    src.Add(0, "@pl.vector_function", line);
    src.Add(0, absl::StrFormat("def %s(%s, %s):", name, absl::StrJoin(ps, ", "), scalars), line);
    if (b.need_preg)
      src.Add(1, absl::StrFormat("preg = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=%s)",
                                 b.dtype),
              line);
    src.Add(1, absl::StrFormat("n_regs = (n_cols + %s - 1) // %s", b.lanes, b.lanes), line);
    if (b.need_len)
      src.Add(1, absl::StrFormat("n_len = vf.full(%s, preg, dtype=%s)", b.len_src, b.dtype), line);
    src.Add(1, "for m in pl.range(0, n_rows):", line);
    src.Add(2, absl::StrFormat("base = m * %s", b.cols), line);
    size_t start = 0;
    int gl = 1;
    const std::string& t = body.text();
    for (size_t i = 0; i <= t.size(); ++i)
      if (i == t.size() || t[i] == '\n') {
        if (i > start) src.Add(0, t.substr(start, i - start), body.DesignLine(gl));
        start = i + 1;
        ++gl;
      }
    src.Add(0, "", line);
    src.Add(0, "", line);
    vf_defs.push_back(std::move(d));
  };
  auto reset = [&] {
    b.need_preg = b.need_len = false;
    b.used_tiles.clear();
  };

  if (!cross_tile) {
    Source body;
    std::set<std::string> row_names, old_lane;
    for (const auto& p : passes)
      if (!b.EmitReducePass(body, 2, p, row_names, old_lane)) return SkeletonOutcome::kFailed;
    if (!b.EmitLane(body, 2, final_pass.lane, nullptr, "", "", true, row_names, old_lane))
      return SkeletonOutcome::kFailed;
    emit_vf(vf_name, body, {}, true);
  } else {
    // Row values of passes [0, k) from their accumulator tiles, recomputed per VF call.
    auto row_values = [&](Source& body, size_t k, std::set<std::string>& row_names,
                          std::set<std::string>& old_lane) {
      for (size_t j = 0; j < k; ++j) {
        std::string a = b.Tmp("acc");
        body.Add(2, absl::StrFormat("%s = vf.load_align(%s, m * %s)", a, accs[j].tile_param, b.lanes),
                 passes[j].reduce->line);
        if (!b.EmitRowValue(body, 2, passes[j], a, row_names, old_lane)) return false;
      }
      return true;
    };
    for (size_t k = 0; k < passes.size(); ++k) {
      for (bool init : {true, false}) {
        reset();
        Source body;
        std::set<std::string> row_names, old_lane;
        if (!row_values(body, k, row_names, old_lane)) return SkeletonOutcome::kFailed;
        const ChainOp& red = *passes[k].reduce;
        std::string acc = b.Tmp("acc");
        if (init) {
          auto iv = b.ReduceInit(red);
          if (!iv) return SkeletonOutcome::kFailed;
          body.Add(2, absl::StrFormat("%s = vf.full(%s, preg, dtype=%s)", acc, *iv, b.dtype), red.line);
        } else {
          body.Add(2, absl::StrFormat("%s = vf.load_align(%s, m * %s)", acc, accs[k].tile_param, b.lanes),
                   red.line);
        }
        b.need_preg = true;
        if (!b.EmitLane(body, 2, passes[k].lane, &red, acc, Builder::Combine(red), false, row_names,
                        old_lane))
          return SkeletonOutcome::kFailed;
        body.Add(2, absl::StrFormat("vf.store_align(%s + m * %s, %s, preg)", accs[k].tile_param,
                                    b.lanes, acc),
                 red.line);
        std::vector<size_t> idx;
        for (size_t j = 0; j <= k; ++j) idx.push_back(j);
        emit_vf(absl::StrFormat("%s_p%d_%s_vf", ctx.op, k + 1, init ? "init" : "acc"), body, idx,
                false);
      }
    }
    reset();
    Source body;
    std::set<std::string> row_names, old_lane;
    if (!row_values(body, passes.size(), row_names, old_lane)) return SkeletonOutcome::kFailed;
    if (!b.EmitLane(body, 2, final_pass.lane, nullptr, "", "", true, row_names, old_lane))
      return SkeletonOutcome::kFailed;
    std::vector<size_t> idx;
    for (size_t j = 0; j < passes.size(); ++j) idx.push_back(j);
    emit_vf(vf_name, body, idx, true);
  }

  // Kernel.
  src.Add(0, "@pl.jit(auto_mutex=True)", line);
  src.Add(0, absl::StrFormat("def %s(%s):", ctx.launch->kernel, absl::StrJoin(ctx.launch->args, ", ")),
          line);
  std::vector<const Slot*> all;
  for (const auto& s : b.slots) all.push_back(&s);
  for (const auto& s : accs) all.push_back(&s);
  for (const Slot* s : all) {
    std::string decl = absl::StrFormat("%s = pl.make_tile_group(type=%s, addrs=[%s]", s->group,
                                       s->type_var, absl::StrJoin(s->addrs, ", "));
    if (!s->mutex_ids.empty()) decl += ", mutex_ids=[" + absl::StrJoin(s->mutex_ids, ", ") + "]";
    src.Add(1, decl + ")", s->attr->line);
  }
  src.Add(1, "with pl.section_vector():", line);
  src.Add(2, absl::StrFormat("rows = %s.shape[0]", x.name), line);
  src.Add(2, absl::StrFormat("cols = %s.shape[1]", x.name), line);
  src.Add(2, "num_cores = pl.get_block_num()", line);
  src.Add(2, "core_id = pl.get_block_idx()", line);
  if (!cross_tile) {
    for (const auto& s : b.slots) {
      if (s.kind != Slot::kParam) continue;
      src.Add(2, absl::StrFormat("%s = %s.next()", s.slot_var, s.group), s.attr->line);
      src.Add(2, absl::StrFormat("pl.set_validshape(%s, [1, cols])", s.slot_var), s.attr->line);
      src.Add(2, absl::StrFormat("pl.load(%s, %s, [0, 0])", s.slot_var, s.tensor), s.attr->line);
    }
  } else {
    for (const auto& s : accs)
      src.Add(2, absl::StrFormat("%s = %s.next()", s.slot_var, s.group), s.attr->line);
    src.Add(2, absl::StrFormat("num_chunks = (cols + %s - 1) // %s", b.cols, b.cols), line);
  }
  src.Add(2, absl::StrFormat("num_tiles = (rows + %s - 1) // %s", b.tile_rows, b.tile_rows), line);
  src.Add(2, "for tile_id in pl.range(core_id, num_tiles, num_cores):", line);
  src.Add(3, absl::StrFormat("row_off = tile_id * %s", b.tile_rows), line);
  src.Add(3, absl::StrFormat("valid_rows = pl.min(%s, rows - row_off)", b.tile_rows), line);
  // Loads of the tiles one VF call reads: row tiles (and, in C, parameter chunks).
  auto loads = [&](int ind, const VfDef& d, const std::string& cols_expr,
                   const std::string& col_off) {
    for (const auto& s : b.slots) {
      if (std::find(d.tensors.begin(), d.tensors.end(), s.tensor) == d.tensors.end()) continue;
      if (s.kind == Slot::kParam && !cross_tile) continue;
      std::string rows_expr = s.kind == Slot::kParam ? "1" : "valid_rows";
      std::string off = s.kind == Slot::kParam ? "[0, " + col_off + "]" : "[row_off, " + col_off + "]";
      src.Add(ind, absl::StrFormat("%s = %s.next()", s.slot_var, s.group), s.attr->line);
      src.Add(ind, absl::StrFormat("pl.set_validshape(%s, [%s, %s])", s.slot_var, rows_expr, cols_expr),
              s.attr->line);
      if (s.kind != Slot::kOut)
        src.Add(ind, absl::StrFormat("pl.load(%s, %s, %s)", s.slot_var, s.tensor, off), s.attr->line);
    }
  };
  auto call = [&](int ind, const VfDef& d, const std::string& cols_expr) {
    std::vector<std::string> args;
    for (const auto& t : d.tensors) {
      for (const Slot* s : all)
        if (s->tensor == t) args.push_back(s->slot_var);
    }
    args.push_back("valid_rows");
    args.push_back(cols_expr);
    if (cross_tile) args.push_back("cols");
    src.Add(ind, absl::StrFormat("%s(%s)", d.name, absl::StrJoin(args, ", ")), line);
  };
  if (!cross_tile) {
    loads(3, vf_defs.back(), "cols", "0");
    call(3, vf_defs.back(), "cols");
    src.Add(3, absl::StrFormat("pl.store(%s, %s, [row_off, 0])", b.out->tensor, b.out->slot_var),
            b.out->attr->line);
  } else {
    for (size_t k = 0; k < passes.size(); ++k) {
      const VfDef& init = vf_defs[2 * k];
      const VfDef& acc = vf_defs[2 * k + 1];
      src.Add(3, absl::StrFormat("valid_cols = pl.min(%s, cols)", b.cols), passes[k].reduce->line);
      loads(3, init, "valid_cols", "0");
      call(3, init, "valid_cols");
      src.Add(3, "for c in pl.range(1, num_chunks):", passes[k].reduce->line);
      src.Add(4, absl::StrFormat("col_off = c * %s", b.cols), passes[k].reduce->line);
      src.Add(4, absl::StrFormat("valid_cols = pl.min(%s, cols - col_off)", b.cols),
              passes[k].reduce->line);
      loads(4, acc, "valid_cols", "col_off");
      call(4, acc, "valid_cols");
    }
    const VfDef& fin = vf_defs.back();
    src.Add(3, "for c in pl.range(0, num_chunks):", line);
    src.Add(4, absl::StrFormat("col_off = c * %s", b.cols), line);
    src.Add(4, absl::StrFormat("valid_cols = pl.min(%s, cols - col_off)", b.cols), line);
    loads(4, fin, "valid_cols", "col_off");
    call(4, fin, "valid_cols");
    src.Add(4, absl::StrFormat("pl.store(%s, %s, [row_off, col_off])", b.out->tensor,
                               b.out->slot_var),
            b.out->attr->line);
  }

  Diagnostics pd;
  auto mod = py::ParseModule(src.text(), ctx.file(), &pd);
  if (!mod.ok()) {
    ctx.diags
        ->Error("CODEGEN-CHAIN-INTERNAL", category::kImplementationError, ctx.file(), line,
                "the pattern skeleton produced code that does not parse: " +
                    std::string(mod.status().message()))
        .evidence = src.text();
    return SkeletonOutcome::kFailed;
  }
  RemapLines(*mod, src);
  for (auto& st : mod->body) {
    if (!st->Is(py::StmtKind::kFunctionDef)) continue;
    CodeRegion r;
    const bool jit = st->name == ctx.launch->kernel;
    r.kind = jit ? RegionKind::kKernel : RegionKind::kVectorFunction;
    r.name = st->name;
    r.decorator = jit ? "pl.jit(auto_mutex=True)" : "pl.vector_function";
    r.line = st->span.line;
    r.from_def = true;
    for (const auto& a : st->args->args) {
      r.params.push_back(a.arg);
      r.param_annotations.push_back(a.annotation ? py::PrintExpr(*a.annotation) : "");
    }
    r.ast.filename = ctx.file();
    r.ast.body = std::move(st->body);
    code.regions.push_back(std::move(r));
  }
  Diagnostic note{"CODEGEN-CHAIN-SKELETON", Severity::kNote,
                  std::string(category::kDesignViolation), ctx.file(), choice->line, 0, kS1,
                  absl::StrFormat("§1 gives an API chain without kernel code: generated from the "
                                  "Pattern %s skeleton (%s) with %d reduction pass(es) and %d "
                                  "tile group(s)",
                                  PatternName(choice->pattern), choice->source, passes.size(),
                                  b.slots.size() + accs.size()),
                  ctx.DesignLine(choice->line)};
  ctx.diags->Add(std::move(note));
  return SkeletonOutcome::kBuilt;
}

}  // namespace opdev::codegen::vector_vf
