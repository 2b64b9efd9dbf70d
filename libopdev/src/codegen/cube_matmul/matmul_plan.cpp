// Reading and cross-checking the frozen matmul parameters (see matmul_plan.h).
#include "matmul_plan.h"

#include "../ast_util.h"

#include "opdev/api/catalog.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

namespace opdev::codegen::cube_matmul {
namespace {

constexpr const char* kS1 = "§1";
constexpr const char* kParam = "CODEGEN-CUBE-PARAM";
constexpr const char* kTile = "CODEGEN-CUBE-TILE";

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  size_t b = s.find_first_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b);
}

struct Entry {
  std::string value;
  int line = 0;
};

// The `cube_matmul:` block of §1: key → (value, line). False when §1 has none.
bool ReadBlock(const contract::DesignDoc& d, std::map<std::string, Entry>* out, int* block_line) {
  for (const contract::CodeBlock* cb : d.CodeIn(1)) {
    std::vector<std::string> lines = absl::StrSplit(cb->text, '\n');
    bool in = false;
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string t = Trim(lines[i]);
      const int line = cb->line + 1 + static_cast<int>(i);
      if (!in) {
        if (t == "cube_matmul:") {
          in = true;
          *block_line = line;
        }
        continue;
      }
      if (t.empty() || t[0] == '#') continue;
      auto colon = t.find(':');
      if (colon == std::string::npos) continue;
      std::string key = Trim(t.substr(0, colon));
      std::string value = Trim(t.substr(colon + 1));
      if (auto hash = value.find(" #"); hash != std::string::npos) value = Trim(value.substr(0, hash));
      (*out)[key] = Entry{value, line};
    }
    if (in) return true;
  }
  return false;
}

std::optional<ParamRef> ReadParam(const std::map<std::string, Entry>& block, const char* key,
                                  const char* what, int block_line, GenContext& ctx) {
  auto it = block.find(key);
  if (it == block.end() || it->second.value.empty()) {
    ctx.Violation("CODEGEN-CUBE-PARAM-MISSING", block_line, kS1,
                  absl::StrFormat("the cube_matmul block does not freeze %s (%s): the matmul "
                                  "structure needs TM, TK1, TK0 and TN and never guesses one",
                                  key, what));
    return std::nullopt;
  }
  ParamRef p;
  p.line = it->second.line;
  const std::string& v = it->second.value;
  auto c = ctx.constants.find(v);
  if (c != ctx.constants.end()) {
    p.name = v;
    p.value = c->second;
  } else if (!v.empty() && std::all_of(v.begin(), v.end(), ::isdigit) && v.size() < 10) {
    p.value = std::stoll(v);
    std::vector<std::string> names = ctx.LiteralConstantsEqualTo(p.value);
    p.name = names.size() == 1 ? names.front() : v;
  } else {
    ctx.Violation(kParam, p.line, kS1,
                  absl::StrFormat("%s = `%s` is neither a §2.1 integer constant nor an integer",
                                  key, v));
    return std::nullopt;
  }
  if (p.value <= 0) {
    ctx.Violation(kParam, p.line, kS1, absl::StrFormat("%s must be positive, is %d", key, p.value));
    return std::nullopt;
  }
  return p;
}

// Tokens of a name, with the space's hardware and DSL names as hints for address constants.
std::set<std::string> TokenSet(const std::string& s) {
  std::set<std::string> out;
  for (auto& t : NameTokens(s)) out.insert(t);
  return out;
}

std::set<std::string> SpaceTokens(MemSpace s) {
  switch (s) {
    case MemSpace::kMat: return {"l1", "mat"};
    case MemSpace::kLeft: return {"l0a", "left"};
    case MemSpace::kRight: return {"l0b", "right"};
    case MemSpace::kAcc: return {"l0c", "acc"};
    default: return {"ub", "vec"};
  }
}

bool SizeLike(const std::string& n) {
  std::string l;
  for (char c : n) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* k : {"bytes", "size", "tile_", "num", "window", "kl0", "kl1", "step"})
    if (l.find(k) != std::string::npos) return true;
  return false;
}

// The §2.1 constant naming a group's base address (same value, best token match with the
// group and its space), the hex literal when none does; nullopt (finding) when ambiguous.
std::optional<std::string> BaseExpr(std::int64_t value, const std::string& group, MemSpace space,
                                    int line, GenContext& ctx) {
  std::vector<std::string> cands;
  for (const auto& n : ctx.constant_names) {
    auto it = ctx.constants.find(n);
    if (it != ctx.constants.end() && it->second == value && !SizeLike(n)) cands.push_back(n);
  }
  if (cands.empty()) return absl::StrFormat("0x%05X", value);
  std::set<std::string> want = TokenSet(group);
  for (const auto& t : SpaceTokens(space)) want.insert(t);
  // A constant that names another space (L1, L0A, ...) is not this group's address.
  std::set<std::string> foreign;
  for (MemSpace o : {MemSpace::kVec, MemSpace::kMat, MemSpace::kLeft, MemSpace::kRight,
                     MemSpace::kAcc})
    if (o != space)
      for (const auto& t : SpaceTokens(o)) foreign.insert(t);
  std::vector<std::string> own;
  for (const auto& c : cands) {
    bool other = false;
    for (const auto& t : TokenSet(c)) other = other || foreign.count(t) > 0;
    if (!other) own.push_back(c);
  }
  if (own.empty()) return absl::StrFormat("0x%05X", value);
  cands = own;
  if (cands.size() == 1) return cands.front();
  int best = -1, ties = 0;
  std::string pick;
  for (const auto& c : cands) {
    int score = 0;
    for (const auto& t : TokenSet(c)) score += want.count(t) ? 1 : 0;
    if (score > best) {
      best = score;
      pick = c;
      ties = 0;
    } else if (score == best) {
      ++ties;
    }
  }
  if (ties || best <= 0) {
    ctx.Violation(kTile, line, "§3",
                  absl::StrFormat("address 0x%X of %s is named by several §2.1 constants (%s): "
                                  "which one the kernel writes is ambiguous",
                                  value, group, absl::StrJoin(cands, ", ")));
    return std::nullopt;
  }
  return pick;
}

std::string ShapeText(const std::vector<std::int64_t>& s) {
  return "[" + absl::StrJoin(s, ", ") + "]";
}

const SpecTensor* Spec(const std::vector<SpecTensor>& v, const std::string& name) {
  for (const auto& t : v)
    if (t.name == name) return &t;
  return nullptr;
}

bool CompleteGroup(CubeGroup* g, GenContext& ctx) {
  const contract::TileAttr& t = *g->tile;
  g->group = t.group.empty() ? t.var : t.group;
  g->type_var = g->group + "_tt";
  // The row's variable cell is "`a_mat` (a_l1)": its leading identifier names the slot.
  std::string var;
  for (char ch : t.var) {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') var += ch;
    else if (!var.empty()) break;
  }
  g->slot_var = var.empty() || var == g->group ? g->group + "_slot" : var;
  // §3 slots of the group: contiguous from slot 0 → scalar base, else an explicit list.
  std::vector<std::pair<std::int64_t, std::int64_t>> starts;  // (index, start)
  static const std::regex kIdx(R"(\[(\d+)\]\s*$)");
  int map_line = 0;
  for (const auto& e : ctx.design->AddressMap()) {
    if (e.group != g->group || !e.start) continue;
    if (!map_line) map_line = e.line;
    std::smatch m;
    std::int64_t idx = static_cast<std::int64_t>(starts.size());
    if (std::regex_search(e.var, m, kIdx)) idx = std::stoll(m[1]);
    for (std::int64_t i = 0; i < e.slots.value_or(1); ++i)
      starts.push_back({idx + i, *e.start + i * e.slot_bytes.value_or(0)});
  }
  if (starts.empty()) {
    ctx.Violation(kTile, t.line, "§3",
                  absl::StrFormat("§3 片上地址映射表 has no address row for %s (%s)", g->group,
                                  g->role));
    return false;
  }
  std::sort(starts.begin(), starts.end());
  std::uint64_t bytes = DTypeSize(*t.dtype);
  for (auto d : t.shape) bytes *= static_cast<std::uint64_t>(d);
  bool contiguous = true;
  for (size_t i = 0; i < starts.size(); ++i)
    if (starts[i].second != starts[0].second + static_cast<std::int64_t>(i * bytes))
      contiguous = false;
  if (contiguous) {
    auto base = BaseExpr(starts[0].second, g->group, *t.space, map_line, ctx);
    if (!base) return false;
    g->addrs = *base;
  } else {
    std::vector<std::string> list;
    for (const auto& s : starts) {
      auto e = BaseExpr(s.second, g->group + std::to_string(s.first), *t.space, map_line, ctx);
      if (!e) return false;
      list.push_back(*e);
    }
    g->addrs = "[" + absl::StrJoin(list, ", ") + "]";
  }
  const contract::TileGroupSlots* slots = nullptr;
  const auto groups = ctx.design->TileGroups();
  for (const auto& x : groups)
    if (x.name == g->group) slots = &x;
  if (!slots) {
    ctx.Violation(kTile, t.line, "§2",
                  absl::StrFormat("§2 TileGroup槽位访问表 has no row for %s (%s): its depth and "
                                  "mutex ids are not frozen",
                                  g->group, g->role));
    return false;
  }
  g->depth = slots->depth.value_or(static_cast<std::int64_t>(starts.size()));
  if (g->depth != static_cast<std::int64_t>(starts.size())) {
    ctx.Violation(kTile, slots->line, "§2",
                  absl::StrFormat("%s has depth %d but §3 places %d slot(s)", g->group, g->depth,
                                  starts.size()));
    return false;
  }
  if (slots->mutex_ids.size() != starts.size()) {
    ctx.Violation(kTile, slots->line, "§2",
                  absl::StrFormat("%s gives %d mutex id(s) for %d slot(s): the matmul structure "
                                  "rotates every group under auto_mutex with one id per slot",
                                  g->group, slots->mutex_ids.size(), starts.size()));
    return false;
  }
  g->mutex_ids = slots->mutex_ids;
  return true;
}

}  // namespace

PlanOutcome ReadMatmulPlan(GenContext& ctx, MatmulPlan* plan) {
  std::map<std::string, Entry> block;
  int line = 0;
  if (!ReadBlock(*ctx.design, &block, &line)) return PlanOutcome::kNone;
  const size_t errors_before = ctx.diags->ErrorCount();
  MatmulPlan p;
  p.line = line;

  // The API sequence: every name a PyPTO-Pro API, and the structure's calls all frozen.
  auto seq = block.find("api_sequence");
  if (seq == block.end() || seq->second.value.empty()) {
    ctx.Violation("CODEGEN-CUBE-PARAM-MISSING", line, kS1,
                  "the cube_matmul block freezes no api_sequence: the structure's calls "
                  "(pl.load, pl.move, pl.matmul, pl.matmul_acc, pl.store) must come from DESIGN");
  } else {
    p.api_sequence = seq->second.value;
    static const std::regex kApi(R"(\bpl(\.[A-Za-z_][A-Za-z0-9_]*)+)");
    const api::Catalog& cat = api::Catalog::Builtin();
    std::set<std::string> named;
    for (std::sregex_iterator it(p.api_sequence.begin(), p.api_sequence.end(), kApi), end;
         it != end; ++it) {
      std::string n = it->str();
      bool known = cat.FindFunction(n) || cat.FindEnum(n) || cat.FindConstant(n);
      if (!known) {
        auto dot = n.rfind('.');
        const api::Enum* e = dot == std::string::npos ? nullptr : cat.FindEnum(n.substr(0, dot));
        known = e && e->HasMember(n.substr(dot + 1));
      }
      if (!known)
        ctx.Violation("CODEGEN-UNKNOWN-API", seq->second.line, kS1,
                      absl::StrFormat("`%s` in the cube_matmul api_sequence is not a PyPTO-Pro "
                                      "API",
                                      n));
      named.insert(n);
    }
    std::vector<std::string> missing;
    for (const char* need : {"pl.load", "pl.move", "pl.matmul", "pl.matmul_acc", "pl.store"})
      if (!named.count(need)) missing.push_back(need);
    if (!missing.empty())
      ctx.Violation("CODEGEN-CUBE-SEQUENCE", seq->second.line, kS1,
                    absl::StrFormat("the api_sequence does not freeze %s, which the dynamic "
                                    "two-level-K matmul structure calls (GM→Mat load, Mat→L0 move "
                                    "with offset, matmul then matmul_acc over K, Acc→GM store)",
                                    absl::StrJoin(missing, ", ")));
  }

  auto tm = ReadParam(block, "TM", "M rows of a tile", line, ctx);
  auto tk1 = ReadParam(block, "TK1", "K width of a GM→L1 load", line, ctx);
  auto tk0 = ReadParam(block, "TK0", "K width of an L1→L0 move", line, ctx);
  auto tn = ReadParam(block, "TN", "N columns of a tile", line, ctx);
  auto order = block.find("order");
  std::string order_text = order == block.end() ? "" : order->second.value;
  if (order_text.empty()) {
    ctx.Violation("CODEGEN-CUBE-PARAM-MISSING", line, kS1,
                  "the cube_matmul block does not freeze the tile order (`order: raster` or "
                  "`order: asw` with `window:`)");
  } else if (order_text == "asw") {
    p.asw = true;
    if (auto w = ReadParam(block, "window", "M tiles per ASW snake column", line, ctx))
      p.window = *w;
  } else if (order_text != "raster") {
    ctx.Violation(kParam, order->second.line, kS1,
                  "order `" + order_text + "` is neither raster nor asw");
  }
  if (!tm || !tk1 || !tk0 || !tn) return PlanOutcome::kFailed;
  p.tm = *tm;
  p.tk1 = *tk1;
  p.tk0 = *tk0;
  p.tn = *tn;
  if (p.tk1.value % p.tk0.value != 0)
    ctx.Violation(kParam, p.tk0.line, kS1,
                  absl::StrFormat("TK1 = %d is not a multiple of TK0 = %d: each GM→L1 K block "
                                  "must split into whole L1→L0 sub-tiles",
                                  p.tk1.value, p.tk0.value));

  // SPEC: the launch's two inputs and one output form A[M, K] · B[K, N] → C[M, N].
  std::vector<std::string> ins, outs;
  if (ctx.launch)
    for (const auto& a : ctx.launch->args) {
      if (Spec(ctx.spec->inputs, a)) ins.push_back(a);
      else if (Spec(ctx.spec->outputs, a)) outs.push_back(a);
    }
  const int launch_line = ctx.launch ? ctx.launch->line : line;
  if (!ctx.launch) {
    ctx.Violation("CODEGEN-LAUNCH-MISSING",
                  ctx.design->FindSection(5) ? ctx.design->FindSection(5)->line : 0, "§5",
                  "§5 gives no launch contract `<kernel>[None, block_dim](args)`: the kernel "
                  "name and arguments are undetermined");
    return PlanOutcome::kFailed;
  }
  if (ins.size() != 2 || outs.size() != 1) {
    ctx.Violation("CODEGEN-CUBE-UNSUPPORTED", launch_line, "§5",
                  absl::StrFormat("the matmul structure launches exactly two SPEC inputs and one "
                                  "output (A, B, C); §5 launches %d input(s) and %d output(s) — "
                                  "a bias, scale or batched contraction needs §1 kernel code",
                                  ins.size(), outs.size()));
    return PlanOutcome::kFailed;
  }
  p.a = ins[0];
  p.b = ins[1];
  p.c = outs[0];
  const SpecTensor* A = Spec(ctx.spec->inputs, p.a);
  const SpecTensor* B = Spec(ctx.spec->inputs, p.b);
  const SpecTensor* C = Spec(ctx.spec->outputs, p.c);
  if (A->shape.size() != 2 || B->shape.size() != 2 || C->shape.size() != 2 ||
      A->shape[1] != B->shape[0] || C->shape[0] != A->shape[0] || C->shape[1] != B->shape[1]) {
    ctx.Violation("CODEGEN-CUBE-UNSUPPORTED", ctx.spec->line, "SPEC",
                  absl::StrFormat("SPEC shapes %s[%s], %s[%s] → %s[%s] are not the 2-D "
                                  "contraction A[M, K] · B[K, N] → C[M, N] the structure computes",
                                  p.a, absl::StrJoin(A->shape, ", "), p.b,
                                  absl::StrJoin(B->shape, ", "), p.c,
                                  absl::StrJoin(C->shape, ", ")));
    return PlanOutcome::kFailed;
  }
  p.m_sym = A->shape[0];
  p.k_sym = A->shape[1];
  p.n_sym = B->shape[1];
  if (!A->dtype || !B->dtype || *A->dtype != *B->dtype) {
    ctx.Violation("CODEGEN-CUBE-UNSUPPORTED", ctx.spec->line, "SPEC",
                  absl::StrFormat("operands %s (%s) and %s (%s) must share one dtype", p.a,
                                  A->dtype_text, p.b, B->dtype_text));
    return PlanOutcome::kFailed;
  }
  p.operand = *A->dtype;
  const bool int8 = p.operand == DType::kInt8;
  const DType acc_dtype = int8 ? DType::kInt32 : DType::kFloat32;

  // Fractal alignment of the tile parameters: rows/cols of 16, K of 32 B / operand size.
  const std::int64_t k_frac = 32 / static_cast<std::int64_t>(DTypeSize(p.operand));
  for (const ParamRef* r : {&p.tm, &p.tn})
    if (r->value % 16 != 0)
      ctx.Violation("CODEGEN-CUBE-FRACTAL", r->line, kS1,
                    absl::StrFormat("%s = %d is not a multiple of the 16-row fractal", r->name,
                                    r->value));
  for (const ParamRef* r : {&p.tk0, &p.tk1})
    if (r->value % k_frac != 0)
      ctx.Violation("CODEGEN-CUBE-FRACTAL", r->line, kS1,
                    absl::StrFormat("%s = %d is not a multiple of the %d-element K fractal of %s",
                                    r->name, r->value, k_frac,
                                    std::string(DTypeName(p.operand))));

  // §2 tiles by space and shape.
  const auto tiles = ctx.design->Tiles();
  std::vector<const contract::TileAttr*> mats;
  const contract::TileAttr *left = nullptr, *right = nullptr, *acc = nullptr;
  auto one = [&](const contract::TileAttr*& slot, const contract::TileAttr& t, const char* name) {
    if (slot)
      ctx.Violation(kTile, t.line, "§2",
                    absl::StrFormat("a second %s tile (%s; the first is line %d): the matmul "
                                    "structure uses exactly one",
                                    name, t.var, slot->line));
    slot = &t;
  };
  for (const auto& t : tiles) {
    if (!t.space) continue;
    switch (*t.space) {
      case MemSpace::kMat: mats.push_back(&t); break;
      case MemSpace::kLeft: one(left, t, "Left"); break;
      case MemSpace::kRight: one(right, t, "Right"); break;
      case MemSpace::kAcc: one(acc, t, "Acc"); break;
      default:
        ctx.Violation("CODEGEN-CUBE-UNSUPPORTED", t.line, "§2",
                      absl::StrFormat("tile %s is in %s: a pure-Cube matmul holds tiles only in "
                                      "Mat/Left/Right/Acc",
                                      t.var, t.space_text));
    }
  }
  const int s2 = ctx.design->FindSection(2) ? ctx.design->FindSection(2)->line : line;
  if (mats.size() != 2 || !left || !right || !acc) {
    ctx.Violation(kTile, s2, "§2",
                  absl::StrFormat("§2 Tile 属性表 must give the five matmul tiles (A and B in Mat, "
                                  "Left, Right, Acc); it gives %d Mat, %d Left, %d Right, %d Acc",
                                  mats.size(), left ? 1 : 0, right ? 1 : 0, acc ? 1 : 0));
    return PlanOutcome::kFailed;
  }
  const std::vector<std::int64_t> a_shape{p.tm.value, p.tk1.value}, b_shape{p.tk1.value, p.tn.value};
  // A: [TM, TK1], B: [TK1, TN]; when both shapes are equal the operand's name decides.
  auto names = [](const contract::TileAttr* t, const std::string& op) {
    auto toks = TokenSet(t->group.empty() ? t->var : t->group);
    return toks.count(op) > 0;
  };
  const contract::TileAttr *ta = nullptr, *tb = nullptr;
  for (const auto* t : mats) {
    const bool is_a = t->shape == a_shape, is_b = t->shape == b_shape;
    if (is_a && is_b) {
      if (names(t, p.a)) ta = t;
      else if (names(t, p.b)) tb = t;
    } else if (is_a) {
      ta = t;
    } else if (is_b) {
      tb = t;
    }
  }
  if (!ta || !tb || ta == tb) {
    ctx.Violation(kTile, mats[0]->line, "§2",
                  absl::StrFormat("the Mat tiles (%s %s, %s %s) are not A [TM, TK1] = %s and B "
                                  "[TK1, TN] = %s",
                                  mats[0]->var, ShapeText(mats[0]->shape), mats[1]->var,
                                  ShapeText(mats[1]->shape), ShapeText(a_shape),
                                  ShapeText(b_shape)));
    return PlanOutcome::kFailed;
  }
  auto expect = [&](const contract::TileAttr* t, std::vector<std::int64_t> shape, DType dt,
                    const char* role) {
    if (t->shape != shape)
      ctx.Violation(kTile, t->line, "§2",
                    absl::StrFormat("%s tile %s has shape %s; the frozen parameters give %s", role,
                                    t->var, ShapeText(t->shape), ShapeText(shape)));
    if (!t->dtype || *t->dtype != dt)
      ctx.Violation(kTile, t->line, "§2",
                    absl::StrFormat("%s tile %s has dtype %s; the structure needs %s", role,
                                    t->var, t->dtype_text, std::string(DTypeName(dt))));
  };
  expect(ta, a_shape, p.operand, "A (Mat)");
  expect(tb, b_shape, p.operand, "B (Mat)");
  expect(left, {p.tm.value, p.tk0.value}, p.operand, "Left");
  expect(right, {p.tk0.value, p.tn.value}, p.operand, "Right");
  expect(acc, {p.tm.value, p.tn.value}, acc_dtype, "Acc");
  if (acc->layout.find("fractal") == std::string::npos &&
      acc->notes.find("fractal") == std::string::npos)
    ctx.Warn("CODEGEN-CUBE-ACC-FRACTAL", acc->line, "§2",
             absl::StrFormat("the Acc row of %s does not state fractal=1024, which K-blocked "
                             "accumulation requires; the TileType is declared without it (the "
                             "docs say FP32/INT32 Acc tiles get fractal=1024 by default)",
                             acc->var));
  if (block.count("k_multiple")) {
    if (auto km = ReadParam(block, "k_multiple", "K granularity", line, ctx)) {
      p.k_multiple = *km;
      if (p.k_multiple.value % k_frac != 0)
        ctx.Violation("CODEGEN-CUBE-FRACTAL", km->line, kS1,
                      absl::StrFormat("k_multiple %s = %d is not a multiple of the %d-element K "
                                      "fractal of %s",
                                      km->name, km->value, k_frac,
                                      std::string(DTypeName(p.operand))));
    }
  } else {
    ctx.Warn("CODEGEN-CUBE-K-FRACTAL", line, kS1,
             absl::StrFormat("the cube_matmul block states no k_multiple: for K not a multiple "
                             "of the %d-element K fractal the last sub-tile's pad columns hold "
                             "stale data, whose effect on the contraction the PyPTO-Pro docs "
                             "leave undefined",
                             k_frac));
  }
  if (ctx.diags->ErrorCount() > errors_before) return PlanOutcome::kFailed;

  p.a_l1.role = "A in Mat";
  p.a_l1.tile = ta;
  p.b_l1.role = "B in Mat";
  p.b_l1.tile = tb;
  p.left.role = "Left";
  p.left.tile = left;
  p.right.role = "Right";
  p.right.tile = right;
  p.acc.role = "Acc";
  p.acc.tile = acc;
  for (CubeGroup* g : {&p.a_l1, &p.b_l1, &p.left, &p.right, &p.acc})
    if (!CompleteGroup(g, ctx)) return PlanOutcome::kFailed;
  // The structure's own names must stay free for the DESIGN's groups and slots.
  static const std::set<std::string> kLocals = {
      "num_cores", "core_id", "m", "k", "n", "m_tiles", "n_tiles", "total_tiles", "k_outer",
      "last_sub", "tile_id", "mi", "ni", "column", "ni_forward", "i", "j", "valid_m",
      "valid_n", "ko", "k_off", "valid_k1", "n_sub", "ki", "sub_off", "sub_k", "gsub"};
  std::set<std::string> taken(kLocals.begin(), kLocals.end());
  for (const auto& a : ctx.launch->args) taken.insert(a);
  for (const auto& c : ctx.constant_names) taken.insert(c);
  for (CubeGroup* g : {&p.a_l1, &p.b_l1, &p.left, &p.right, &p.acc})
    for (const std::string* n : {&g->group, &g->slot_var, &g->type_var})
      if (!taken.insert(*n).second)
        ctx.Violation(kTile, g->tile->line, "§2",
                      absl::StrFormat("the name %s of the %s tile is used twice (by another "
                                      "tile, a launch argument, a §2.1 constant or the matmul "
                                      "structure's own loop variables)",
                                      *n, g->role));
  if (p.acc.depth != 1)
    ctx.Violation(kTile, p.acc.tile->line, "§2",
                  absl::StrFormat("Acc group %s has %d slots: the structure accumulates every "
                                  "output tile in one Acc slot (depth 1)",
                                  p.acc.group, p.acc.depth));
  if (ctx.diags->ErrorCount() > errors_before) return PlanOutcome::kFailed;
  *plan = std::move(p);
  return PlanOutcome::kPlanned;
}

}  // namespace opdev::codegen::cube_matmul
