// `pl.*` builtins: TileType, make_tile, make_tile_group, SPMD queries, set_validshape,
// load/store (and the *_tile forms), fillpad, the tile vector operations (the fused ones as the
// instruction sequences the backend emits for them: add_relu is TADD(lhs, lhs, rhs);
// TRELU(out, lhs), so lhs holds the sum afterwards, as on the device) and the
// synchronization calls within a core (no-ops: pipes execute in program order; the cross-core
// events are in builtins_sync.cpp).
#include "builtins.h"

#include "opdev/sim/data_movement.h"
#include "opdev/sim/tile_index_ops.h"
#include "opdev/sim/tile_ops.h"
#include "opdev/sim/tile_quant.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <cstring>

namespace opdev::sim {

namespace {

using BArgs = std::vector<Value>;

void ReportIssues(Interp& in, int line, const std::vector<Issue>& issues) {
  for (const auto& i : issues) in.sink.Report(i.code, line, i.message);
}

void RequireKernel(const Args& a) {
  if (!a.in().in_kernel) a.Fail("only valid inside a @pl.jit kernel");
}

// TileType.md: the layouts each Cube memory space takes (illegal combinations raise
// ValueError when the TileType is built).
void CheckCubeLayout(Interp& in, int line, const TileType& tt) {
  const Layout l = tt.EffectiveLayout();
  bool ok = true;
  const char* allowed = "";
  switch (tt.space) {
    case MemSpace::kMat:
      allowed = "NZ or ZN (ND for INT64/UINT64)";
      ok = l == Layout::kNZ || l == Layout::kZN ||
           (l == Layout::kND && (tt.dtype == DType::kInt64 || tt.dtype == DType::kUInt64));
      break;
    case MemSpace::kLeft: allowed = "NZ (A5) or ZZ (A3)"; ok = l == Layout::kNZ || l == Layout::kZZ; break;
    case MemSpace::kRight: allowed = "ZN"; ok = l == Layout::kZN; break;
    case MemSpace::kAcc: allowed = "NZ"; ok = l == Layout::kNZ; break;
    case MemSpace::kScaling: allowed = "ND"; ok = l == Layout::kND; break;
    case MemSpace::kBias: allowed = "ND (one row)"; ok = l == Layout::kND; break;
    case MemSpace::kScaleLeft: allowed = "ZZ"; ok = l == Layout::kZZ; break;
    case MemSpace::kScaleRight: allowed = "NN"; ok = l == Layout::kNN; break;
    default: break;
  }
  if (!ok)
    in.Fail(hazard::kCubeLayout, line,
            absl::StrFormat("pl.TileType: %s tiles take layout %s, not %s (TileType.md: ValueError)",
                            std::string(MemSpaceName(tt.space)), allowed, std::string(LayoutName(l))));
  if (tt.compact == 2 && tt.space != MemSpace::kVec)
    in.Fail(hazard::kUnsupported, line,
            "compact=2 (row_plus_one) on a Cube tile is not simulated: the docs do not give its layout");
}

Value TileTypeFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.TileType");
  auto tt = std::make_shared<TileType>();
  auto shape = a.IntList(0, "shape");
  if (shape.size() != 2) a.Fail("shape must have 2 dimensions (tiles are 2-D)");
  tt->shape = {shape[0], shape[1]};
  tt->dtype = a.DTypeArg(1, "dtype", DType::kFloat32);
  if (!a.Get(1, "dtype")) a.Fail("missing argument 'dtype'");
  std::string space = a.EnumArg(2, "target_memory");
  if (!space.empty()) {
    auto s = ParseMemSpace(space);
    if (!s) a.Fail("unknown memory space " + space);
    tt->space = *s;
  }
  if (const Value* v = a.Get(3, "valid_shape"); v && v->kind != VK::kNone) {
    auto vs = a.IntList(3, "valid_shape");
    if (vs.size() != 2) a.Fail("valid_shape must have 2 entries");
    tt->valid = {vs[0], vs[1]};
  }
  std::string layout = a.EnumArg(4, "layout");
  if (!layout.empty()) {
    auto l = ParseLayout(layout);
    if (!l) a.Fail("unknown layout " + layout);
    tt->layout = *l;
  }
  if (const Value* v = a.Get(5, "fractal"); v && v->kind != VK::kNone) tt->fractal = static_cast<int>(in.ToInt(*v, call.line, "fractal"));
  std::string pad = a.EnumArg(6, "pad");
  if (!pad.empty()) {
    auto p = ParsePad(pad);
    if (!p) a.Fail("unknown pad " + pad);
    tt->pad = *p;
  }
  if (const Value* v = a.Get(7, "compact"); v && v->kind != VK::kNone) tt->compact = static_cast<int>(in.ToInt(*v, call.line, "compact"));
  if (tt->compact < 0 || tt->compact > 2) a.Fail(absl::StrFormat("compact must be None, 0, 1 or 2, got %d", tt->compact));
  CheckCubeLayout(in, call.line, *tt);
  return Value::Obj(VK::kTileType, tt);
}

std::shared_ptr<Tile> NewTile(Interp& in, const TileType& tt, uint64_t addr, uint64_t size, std::string name, int line) {
  auto t = std::make_shared<Tile>();
  t->type = tt;
  t->addr = addr;
  t->size = size;
  t->valid_rows = tt.valid[0] > 0 ? tt.valid[0] : tt.shape[0];
  t->valid_cols = tt.valid[1] > 0 ? tt.valid[1] : tt.shape[1];
  t->name = std::move(name);
  in.RegisterTile(t, line);
  return t;
}

const TileType& TileTypeArg(const Args& a, size_t i, std::string_view name) {
  const Value& v = a.Req(i, name);
  if (v.kind != VK::kTileType) a.Fail(absl::StrCat("argument '", std::string(name), "' must be a pl.TileType"));
  return v.As<TileType>();
}

Value MakeTileFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.make_tile");
  RequireKernel(a);
  const TileType& tt = TileTypeArg(a, 0, "tile_type");
  int64_t addr = a.Int(1, "addr");
  if (addr < 0) a.Fail("addr must be non-negative");
  uint64_t size = tt.Bytes();
  if (const Value* v = a.Get(2, "size"); v && v->kind != VK::kNone) size = static_cast<uint64_t>(in.ToInt(*v, call.line, "size"));
  std::string name = in.assign_name.empty() ? absl::StrCat("tile@", call.line) : std::string(in.assign_name);
  return Value::Obj(VK::kTile, NewTile(in, tt, static_cast<uint64_t>(addr), size, name, call.line));
}

Value MakeTileGroupFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.make_tile_group");
  RequireKernel(a);
  const TileType& tt = TileTypeArg(a, 99, "type");
  int64_t depth = 0;
  if (const Value* m = a.Get(99, "mutex_ids"); m && m->IsSeq() && !m->Items().empty()) {
    depth = static_cast<int64_t>(m->Items().size());
    for (const auto& id : m->Items()) {
      if (id.IsSeq()) continue;
      int64_t v = in.ToInt(id, call.line, "mutex id");
      if (v < 0 || v > 31) a.Fail(absl::StrFormat("mutex id %d outside [0, 31]", v));
    }
  }
  if (const Value* d = a.Get(99, "depth"); d && d->kind != VK::kNone) {
    int64_t dv = in.ToInt(*d, call.line, "depth");
    if (depth != 0 && dv != depth) a.Fail(absl::StrFormat("depth=%d disagrees with %d mutex_ids", dv, depth));
    depth = dv;
  }
  // A group's slots live in one on-chip space: more slots than the space holds cannot exist
  // (and would make the simulator allocate without bound).
  if (const MemSpaceInfo* sp = FindSpace(in.target, tt.space); sp && tt.Bytes() > 0 &&
      depth > static_cast<int64_t>(sp->capacity / tt.Bytes()))
    in.Fail(hazard::kTileCapacity, call.line,
            absl::StrFormat("pl.make_tile_group: depth %d slots of %d bytes exceed the %d bytes of %s",
                            depth, tt.Bytes(), sp->capacity, std::string(sp->name)));
  const Value& addrs = a.Req(99, "addrs");
  std::vector<int64_t> list;
  if (addrs.IsSeq()) {
    for (const auto& x : addrs.Items()) list.push_back(in.ToInt(x, call.line, "addrs"));
    if (depth == 0) depth = static_cast<int64_t>(list.size());
    if (static_cast<int64_t>(list.size()) != depth)
      a.Fail(absl::StrFormat("%d addresses for a group of depth %d", list.size(), depth));
  } else {
    int64_t base = in.ToInt(addrs, call.line, "addrs");
    if (depth == 0) a.Fail("depth is required when mutex_ids is empty");
    for (int64_t i = 0; i < depth; ++i) list.push_back(base + i * static_cast<int64_t>(tt.Bytes()));
  }
  if (depth <= 0) a.Fail("a tile group needs depth >= 1");
  auto g = std::make_shared<TileGroup>();
  g->type = tt;
  g->decl_line = call.line;
  g->name = in.assign_name.empty() ? absl::StrCat("group@", call.line) : std::string(in.assign_name);
  for (int64_t i = 0; i < depth; ++i)
    g->slots.push_back(NewTile(in, tt, static_cast<uint64_t>(list[i]), tt.Bytes(), absl::StrCat(g->name, "[", i, "]"), call.line));
  // Slot i holds the i-th entry: an id, or a list of ids (make_tile_group.md: every slot has
  // the same number of ids); the group keeps them flattened slot by slot.
  if (const Value* m = a.Get(99, "mutex_ids"); m && m->IsSeq()) {
    const auto& items = m->Items();
    size_t per_slot = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      std::vector<int64_t> slot_ids;
      if (!items[i].IsSeq()) {
        slot_ids.push_back(in.ToInt(items[i], call.line, "mutex id"));
      } else {
        for (const auto& x : items[i].Items()) slot_ids.push_back(in.ToInt(x, call.line, "mutex id"));
      }
      if (i > 0 && slot_ids.size() != per_slot)
        a.Fail("every tile of a group carries the same number of mutex ids (make_tile_group.md)");
      per_slot = slot_ids.size();
      g->mutex_ids.insert(g->mutex_ids.end(), slot_ids.begin(), slot_ids.end());
      if (i < g->slots.size()) g->slots[i]->mutex_ids = slot_ids;
    }
  }
  // fwd_ids / bwd_ids (make_tile_group.md): a non-empty list of event ids 0..15, one per slot.
  for (auto [key, ids] : {std::pair<const char*, std::vector<int64_t>*>{"fwd_ids", &g->fwd_ids},
                          std::pair<const char*, std::vector<int64_t>*>{"bwd_ids", &g->bwd_ids}}) {
    const Value* v = a.Get(99, key);
    if (!v || v->kind == VK::kNone) continue;
    if (!v->IsSeq() || v->Items().empty())
      a.Fail(absl::StrFormat("%s must be a non-empty list of event ids (make_tile_group.md)", key));
    for (const auto& x : v->Items()) {
      const int64_t id = in.ToInt(x, call.line, key);
      if (id < 0 || id > 15)
        a.Fail(absl::StrFormat("%s: event id %d outside 0..15 (make_tile_group.md)", key, id));
      ids->push_back(id);
    }
    if (static_cast<int64_t>(ids->size()) != depth)
      a.Fail(absl::StrFormat("%s has %d ids for a group of depth %d: one per slot (make_tile_group.md)", key,
                             ids->size(), depth));
  }
  CheckL1Group(in, *g);
  in.core->groups.push_back(g);
  return Value::Obj(VK::kGroup, g);
}

Value BlockIdx(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.get_block_idx");
  RequireKernel(a);
  return Value::Int(in.core->BlockIdx());
}
Value BlockNum(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.get_block_num");
  RequireKernel(a);
  return Value::Int(in.core->block_num);
}
Value SubblockIdx(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.get_subblock_idx");
  RequireKernel(a);
  return Value::Int(in.core->subblock_idx);
}
Value SubblockNum(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.get_subblock_num");
  RequireKernel(a);
  return Value::Int(in.core->subblock_num);
}

// Python's min / max: the first of the smallest (largest) values. Two ints compare exactly
// (as doubles, ints past 2^53 would tie); anything else compares as doubles.
Value ScalarMinMax(Interp& in, const XNode& call, BArgs& pos, bool is_min) {
  if (pos.size() == 1 && pos[0].IsSeq()) pos = pos[0].Items();
  if (pos.empty()) in.Fail(hazard::kRuntimeError, call.line, "min/max of nothing");
  Value best = pos[0];
  for (size_t i = 1; i < pos.size(); ++i) {
    bool better;
    if (pos[i].kind == VK::kInt && best.kind == VK::kInt) {
      better = is_min ? pos[i].i < best.i : pos[i].i > best.i;
    } else {
      double x = in.ToDouble(pos[i], call.line, "min/max argument");
      double b = in.ToDouble(best, call.line, "min/max argument");
      better = is_min ? x < b : x > b;
    }
    if (better) best = pos[i];
  }
  return best;
}
// pl.min(lhs, rhs) / pl.max(lhs, rhs) (_api.py), operands by position or keyword.
Value MinMaxFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw, bool is_min) {
  if (!kw.empty()) {
    Args a(in, call, pos, kw, is_min ? "pl.min" : "pl.max");
    BArgs both = {a.Req(0, "lhs"), a.Req(1, "rhs")};
    return ScalarMinMax(in, call, both, is_min);
  }
  return ScalarMinMax(in, call, pos, is_min);
}
Value PlMin(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) { return MinMaxFn(in, call, pos, kw, true); }
Value PlMax(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) { return MinMaxFn(in, call, pos, kw, false); }
// The bound form of pl.min / pl.max (value.h, BoundFn) for two ints, the loop-bound case
// (`pl.min(LANES, n - r * LANES)`); any other operands take the general entry.
template <bool kMin>
bool MinMaxBound(Interp&, const XNode&, const Value* const* ops, Value* out) {
  if (ops[0]->kind != VK::kInt || ops[1]->kind != VK::kInt) return false;
  const int64_t a = ops[0]->i, b = ops[1]->i;
  *out = Value::Int((kMin ? b < a : b > a) ? b : a);
  return true;
}
Value PlConst(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.const");
  return a.Req(0, "value");
}
// `if pl.constexpr(cond):` / `a if pl.constexpr(cond) else b`: a compile-time condition
// (the parser's _resolve_constexpr_condition: ConstBool/ConstInt only). Whether `cond` came from
// a compile-time expression rather than a runtime scalar of equal kind is not tracked here.
Value PlConstexpr(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.constexpr");
  const Value& v = a.Req(0, "condition");
  if (v.kind != VK::kBool && v.kind != VK::kInt)
    in.Fail(hazard::kRuntimeError, call.line,
            "pl.constexpr() can only accept compile-time constants, but got a " + KindName(v.kind));
  return Value::Bool(v.i != 0);
}
Value PlRange(Interp& in, const XNode& call, BArgs& pos, Kwargs&) {
  std::vector<int64_t> v;
  for (const auto& x : pos) v.push_back(in.ToInt(x, call.line, "range() argument"));
  int64_t lo = 0, hi = 0, st = 1;
  if (v.size() == 1) hi = v[0];
  else if (v.size() >= 2) { lo = v[0]; hi = v[1]; if (v.size() == 3) st = v[2]; }
  if (st == 0) in.Fail(hazard::kRuntimeError, call.line, "range() step must not be zero");
  // As a value (not a for-loop's iterator) the range becomes a list: count it first.
  const uint64_t span = st > 0 ? (lo < hi ? static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) : 0)
                               : (lo > hi ? static_cast<uint64_t>(lo) - static_cast<uint64_t>(hi) : 0);
  const uint64_t ustep = st > 0 ? static_cast<uint64_t>(st) : 0 - static_cast<uint64_t>(st);
  const uint64_t count = span == 0 ? 0 : (span - 1) / ustep + 1;
  in.CheckSequenceLength(count > static_cast<uint64_t>(kMaxSequenceItems) ? kMaxSequenceItems + 1 : static_cast<int64_t>(count), call.line);
  std::vector<Value> out;
  out.reserve(count);
  for (uint64_t k = 0; k < count; ++k)
    out.push_back(Value::Int(static_cast<int64_t>(static_cast<uint64_t>(lo) + k * static_cast<uint64_t>(st))));
  return Value::ListV(std::move(out));
}

Value NoOp(Interp&, const XNode&, BArgs&, Kwargs&) { return Value::None(); }

void SetValid(Interp& in, int line, Tile& t, int64_t r, int64_t c) {
  // A warning, Vec tiles only: narrowing a loaded tile is legal (the official fillpad samples
  // load a full tile and narrow it for pl.fillpad; on the Cube path it selects the window the
  // next pl.move extracts); a load the new shape should have bounded shows as SIM-GM-OOB.
  if (t.last_load_line > 0 && t.type.space == MemSpace::kVec) {
    in.sink.Report(hazard::kValidShapeAfterLoad, line,
                   absl::StrFormat("set_validshape on tile '%s' after the pl.load at line %d: that load used "
                                   "the previous valid shape [%d, %d]; if this shape was meant to bound it, "
                                   "call set_validshape before pl.load (narrowing a loaded tile for a later "
                                   "op, e.g. before pl.fillpad, is legal)",
                                   t.name, t.last_load_line, t.valid_rows, t.valid_cols));
  }
  if (r < 1 || c < 1 || r > t.type.shape[0] || c > t.type.shape[1]) {
    in.sink.Report(hazard::kValidShape, line,
                   absl::StrFormat("set_validshape(%s, [%d, %d]) outside [1, %d] x [1, %d]", t.name, r, c,
                                   t.type.shape[0], t.type.shape[1]));
    r = std::clamp<int64_t>(r, 0, t.type.shape[0]);
    c = std::clamp<int64_t>(c, 0, t.type.shape[1]);
  }
  t.valid_rows = r;
  t.valid_cols = c;
}

Value SetValidShape(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.set_validshape");
  RequireKernel(a);
  int64_t r, c;
  if (a.npos() >= 3) {  // legacy set_validshape(tile, rows, cols)
    r = a.Int(1, "rows");
    c = a.Int(2, "cols");
  } else {
    auto v = a.IntList(1, "valid_shape");
    if (v.size() != 2) a.Fail("valid shape must be [rows, cols]");
    r = v[0];
    c = v[1];
  }
  const Value& target = a.Req(0, "tile");
  if (target.kind == VK::kGroup) {
    for (auto& t : target.As<TileGroup>().slots) SetValid(in, call.line, *t, r, c);
  } else {
    SetValid(in, call.line, a.TileArg(0, "tile"), r, c);
  }
  return Value::None();
}

// A transfer's `order` (load_tile.md): the tensor axis of each tile axis, two distinct axes;
// ascending is ND, descending a transposed transfer. Absent: the last two axes, in order.
struct TransferOrder {
  bool given = false;
  bool transposed = false;
  int64_t tile_axis[2] = {-1, -1};  // tensor axis of tile rows, of tile columns
  TransferAxes axes;                 // the two axes, ascending
};

TransferOrder OrderArg(const Args& a, size_t i, int ndim) {
  TransferOrder o;
  const Value* v = a.Get(i, "order");
  if (!v || v->kind == VK::kNone) return o;
  auto l = a.IntList(i, "order");
  if (l.size() != 2 || l[0] == l[1] || l[0] < 0 || l[1] < 0 || l[0] >= ndim || l[1] >= ndim)
    a.Fail(absl::StrFormat("order must name two distinct axes of the %d-d tensor (load_tile.md), got %s", ndim,
                           Repr(*v)));
  o.given = true;
  o.transposed = l[0] > l[1];
  o.tile_axis[0] = l[0];
  o.tile_axis[1] = l[1];
  o.axes.row = static_cast<int>(std::min(l[0], l[1]));
  o.axes.col = static_cast<int>(std::max(l[0], l[1]));
  return o;
}

// load_tile / store_tile offsets are block indices on the two axes the tile spans (each times
// the tile's extent along it) and absolute elsewhere (load_tile.md, tile_offsets). Offsets are
// right-aligned with the tensor's axes.
void TileUnitsToElements(absl::Span<int64_t> off, const Tile& t, const TransferOrder& o, int ndim) {
  if (!o.given) {
    if (off.size() >= 2) { off[off.size() - 2] *= t.type.shape[0]; off[off.size() - 1] *= t.type.shape[1]; }
    else if (off.size() == 1) off[0] *= t.type.shape[1];
    return;
  }
  const int64_t lead = ndim - static_cast<int64_t>(off.size());
  for (int k = 0; k < 2; ++k) {
    const int64_t i = o.tile_axis[k] - lead;
    if (i >= 0 && i < static_cast<int64_t>(off.size())) off[static_cast<size_t>(i)] *= t.type.shape[k];
  }
}

Value LoadImpl(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw, bool tile_units) {
  Args a(in, call, pos, kw, tile_units ? "pl.load_tile" : "pl.load");
  RequireKernel(a);
  auto t = a.TilePtr(0, "dst_tile");
  GmTensor& src = a.TensorArg(1, "src_tensor");
  auto off = a.IntList(2, "offsets");
  const int ndim = static_cast<int>(src.shape.size());
  const TransferOrder order = OrderArg(a, 99, ndim);
  if (tile_units) TileUnitsToElements(absl::MakeSpan(off), *t, order, ndim);
  if (t->type.space != MemSpace::kVec && t->type.space != MemSpace::kMat)
    in.Fail(hazard::kCubeSpace, call.line,
            absl::StrFormat("%s into %s tile '%s': loads go to Vec (UB) or Mat (L1) only (load.md); "
                            "Cube operands reach Left/Right/Bias through pl.move",
                            a.fname(), std::string(MemSpaceName(t->type.space)), t->name));
  const bool transposed = order.transposed;
  in.MarkUsed(*t);
  if (t->type.space == MemSpace::kMat) {
    // Cube_matrix_computation.md: a transposed load (order=[1, 0]) lands in a ZN Mat tile, a
    // plain one in NZ (the GM ND -> NZ fractal conversion).
    const Layout l = t->type.EffectiveLayout();
    if (transposed != (l == Layout::kZN) && l != Layout::kND)
      in.Fail(hazard::kCubeLayout, call.line,
              absl::StrFormat("%s%s into Mat tile '%s' with layout %s: a %s load needs layout=pl.%s "
                              "(Cube_matrix_computation.md, transposed loads)",
                              a.fname(), transposed ? " order=[1, 0]" : "", t->name,
                              std::string(LayoutName(l)), transposed ? "transposed" : "plain",
                              transposed ? "ZN" : "NZ"));
  }
  TouchedRuns touched;
  ReportIssues(in, call.line, LoadTile(in.Mem(), *t, src, off, transposed, in.race ? &touched : nullptr,
                                        order.axes));
  if (in.race)
    if (GmRace r = in.race->Read(src, touched, in.core->ordinal, call.line); r.found)
      in.ReportRace(r, src, false, call.line);
  in.stats.tile_elems += t->valid_rows * t->valid_cols;
  t->last_load_line = call.line;
  return Value::None();
}
Value Load(Interp& in, const XNode& c, BArgs& p, Kwargs& k) { return LoadImpl(in, c, p, k, false); }
Value LoadTileFn(Interp& in, const XNode& c, BArgs& p, Kwargs& k) { return LoadImpl(in, c, p, k, true); }

Value StoreImpl(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw, bool tile_units) {
  Args a(in, call, pos, kw, tile_units ? "pl.store_tile" : "pl.store");
  RequireKernel(a);
  GmTensor& dst = a.TensorArg(0, "dst_tensor");
  auto t = a.TilePtr(1, "src_tile");
  auto off = a.IntList(2, "offsets");
  const int ndim = static_cast<int>(dst.shape.size());
  const TransferOrder order = OrderArg(a, 99, ndim);
  if (order.transposed) a.Fail("order must be ascending (store.md: descending orders are rejected)");
  if (tile_units) TileUnitsToElements(absl::MakeSpan(off), *t, order, ndim);
  if (t->type.space != MemSpace::kVec && t->type.space != MemSpace::kAcc)
    in.Fail(hazard::kCubeSpace, call.line,
            absl::StrFormat("%s from %s tile '%s': stores read Vec (UB) or Acc (L0C) only (store.md)",
                            a.fname(), std::string(MemSpaceName(t->type.space)), t->name));
  const std::string atomic = a.EnumArg(99, "atomic");
  if (!atomic.empty() && atomic != "AtomicNone" && atomic != "AtomicAdd")
    a.Fail("'atomic' takes pl.AtomicType.AtomicNone or pl.AtomicType.AtomicAdd (store.md), got " + atomic);
  const bool atomic_add = atomic == "AtomicAdd";
  in.MarkUsed(*t);
  t->last_load_line = 0;
  FixOptions fix;
  TouchedRuns touched, changed;
  TouchedRuns* const rec = in.race ? &touched : nullptr;
  TouchedRuns* const chg = in.race ? &changed : nullptr;
  if (t->type.space == MemSpace::kAcc) {
    std::string phase;
    if (const Value* p = a.Get(99, "phase"); p && p->kind != VK::kNone) {
      if (p->kind != VK::kEnum || p->s.rfind("STPhase.", 0) != 0)
        a.Fail("'phase' must be a pl.STPhase member, got " + Repr(*p));
      phase = p->s.substr(8);
    }
    fix = ResolveFix(in, a, *t, dst.dtype, !phase.empty(), "");
    CubeStoreFromAcc(in, a, *t, phase);
    ReportIssues(in, call.line, StoreTile(dst, in.Mem(), *t, off, in.core->ordinal, &fix, rec, chg, order.axes, atomic_add));
  } else {
    for (const char* k : {"relu_pre_mode", "scale", "phase"})
      if (const Value* v = a.Get(99, k); v && v->kind != VK::kNone)
        a.Fail(absl::StrCat("'", k, "' applies to stores from Acc (FIX) only"));
    ReportIssues(in, call.line, StoreTile(dst, in.Mem(), *t, off, in.core->ordinal, nullptr, rec, chg, order.axes, atomic_add));
  }
  if (in.race)
    if (GmRace r = in.race->Write(dst, touched, in.core->ordinal, call.line, atomic_add ? nullptr : &changed,
                                  atomic_add);
        r.found)
      in.ReportRace(r, dst, true, call.line);
  in.stats.tile_elems += t->valid_rows * t->valid_cols;
  return Value::None();
}
Value Store(Interp& in, const XNode& c, BArgs& p, Kwargs& k) { return StoreImpl(in, c, p, k, false); }
Value StoreTileFn(Interp& in, const XNode& c, BArgs& p, Kwargs& k) { return StoreImpl(in, c, p, k, true); }

void Consume(Interp& in, Tile& t) {
  in.MarkUsed(t);
  t.last_load_line = 0;
}

Value FillPadFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.fillpad");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  std::string mode = a.EnumArg(99, "mode");
  tileop::FillPadMode m = mode == "EXPAND" ? tileop::FillPadMode::kExpand
                          : mode == "INPLACE" ? tileop::FillPadMode::kInplace
                                              : tileop::FillPadMode::kNormal;
  Consume(in, src);
  Consume(in, out);
  ReportIssues(in, call.line, tileop::FillPad(in.Mem(), out, src, m));
  return Value::None();
}
Value FillPadInplace(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.fillpad_inplace");
  RequireKernel(a);
  Tile& t = a.TileArg(0, "tile");
  Tile* src = &t;
  if (a.npos() >= 2) src = &a.TileArg(1, "src");
  Consume(in, t);
  ReportIssues(in, call.line, tileop::FillPad(in.Mem(), t, *src, tileop::FillPadMode::kInplace));
  return Value::None();
}
Value FillPadExpand(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.fillpad_expand");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  Consume(in, out);
  Consume(in, src);
  ReportIssues(in, call.line, tileop::FillPad(in.Mem(), out, src, tileop::FillPadMode::kExpand));
  return Value::None();
}

// ---- tile vector ops ----

template <tileop::Bin OP>
Value TileBinary(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl tile op");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  const Value& lhs = a.Req(1, "src0");
  const Value& rhs = a.Req(2, "src1");
  // pl.maximum/pl.minimum(out, src, tmp, dim=...) are reductions.
  if ((OP == tileop::Bin::kMax || OP == tileop::Bin::kMin) && lhs.kind == VK::kTile && rhs.kind == VK::kTile &&
      (a.Get(99, "dim") || out.type.shape != lhs.As<Tile>().type.shape)) {
    int64_t dim = 0;
    if (const Value* d = a.Get(99, "dim")) dim = in.ToInt(*d, call.line, "dim");
    Tile& src = lhs.As<Tile>();
    Consume(in, src);
    Consume(in, out);
    ReportIssues(in, call.line, tileop::Reduce(in.Mem(), OP == tileop::Bin::kMax ? tileop::Red::kMax : tileop::Red::kMin, out, src, static_cast<int>(dim)));
    return Value::None();
  }
  Consume(in, out);
  std::vector<Issue> issues;
  if (lhs.kind == VK::kTile && rhs.kind == VK::kTile) {
    Consume(in, lhs.As<Tile>());
    Consume(in, rhs.As<Tile>());
    issues = tileop::Binary(in.Mem(), OP, out, lhs.As<Tile>(), rhs.As<Tile>());
  } else if (lhs.kind == VK::kTile && rhs.IsNumber()) {
    Consume(in, lhs.As<Tile>());
    issues = tileop::BinaryScalar(in.Mem(), OP, out, lhs.As<Tile>(), in.ToDouble(rhs, call.line, "scalar"));
  } else if (rhs.kind == VK::kTile && lhs.IsNumber()) {
    Consume(in, rhs.As<Tile>());
    issues = tileop::BinaryScalar(in.Mem(), OP, out, rhs.As<Tile>(), in.ToDouble(lhs, call.line, "scalar"), true);
  } else {
    a.Fail("operands must be tiles or a tile and a scalar");
  }
  in.stats.tile_elems += out.valid_rows * out.valid_cols;
  ReportIssues(in, call.line, issues);
  return Value::None();
}

template <tileop::Bin OP>
Value TileScalarOp(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl tile scalar op");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  double s = a.Num(2, "scalar");
  Consume(in, out);
  Consume(in, src);
  ReportIssues(in, call.line, tileop::BinaryScalar(in.Mem(), OP, out, src, s));
  return Value::None();
}

template <tileop::Un OP>
Value TileUnary(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl tile unary op");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  Consume(in, out);
  Consume(in, src);
  in.stats.tile_elems += out.valid_rows * out.valid_cols;
  ReportIssues(in, call.line, tileop::Unary(in.Mem(), OP, out, src));
  return Value::None();
}

// The rounding modes simulated for a conversion (round-to-nearest-even).
void CheckCastMode(const Args& a) {
  std::string mode = a.EnumArg(99, "mode");
  if (!mode.empty() && mode != "CAST_ROUND" && mode != "CAST_RINT" && mode != "CAST_NONE")
    a.in().Fail(hazard::kUnsupported, a.line(),
                std::string(a.fname()) + " mode " + mode + " is not simulated (round-to-nearest-even only)");
}

Value CastFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.cast");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  CheckCastMode(a);
  Consume(in, out);
  Consume(in, src);
  ReportIssues(in, call.line, tileop::Cast(in.Mem(), out, src));
  return Value::None();
}

Value ExpandsFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.expands");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Consume(in, out);
  ReportIssues(in, call.line, tileop::Expands(in.Mem(), out, a.Num(1, "scalar")));
  return Value::None();
}

template <tileop::Red OP, int DIM>
Value ReduceFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl reduction");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  int64_t dim = DIM;
  if (const Value* d = a.Get(99, "dim")) dim = in.ToInt(*d, call.line, "dim");
  Consume(in, out);
  Consume(in, src);
  ReportIssues(in, call.line, tileop::Reduce(in.Mem(), OP, out, src, static_cast<int>(dim)));
  return Value::None();
}

template <bool IS_MAX>
Value ArgReduceFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, IS_MAX ? "pl.argmax" : "pl.argmin");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  int64_t dim = 0;
  if (const Value* d = a.Get(99, "dim")) dim = in.ToInt(*d, call.line, "dim");
  if (dim != 0 && dim != 1) a.Fail(absl::StrFormat("dim must be 0 or 1, got %d", dim));
  Consume(in, out);
  Consume(in, src);
  ReportIssues(in, call.line, tileop::ArgReduce(in.Mem(), IS_MAX, out, src, static_cast<int>(dim)));
  return Value::None();
}

// gather.md: pl.gather(out, src, idx, tmp, *, cmp_mode=0, offset=0); a cmp_mode other than 0
// is not described.
Value GatherFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.gather");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  Tile& idx = a.TileArg(2, "idx");
  Tile& tmp = a.TileArg(3, "tmp");
  if (const Value* m = a.Get(99, "cmp_mode"); m && in.ToInt(*m, call.line, "cmp_mode") != 0)
    in.Fail(hazard::kUnsupported, call.line,
            "pl.gather cmp_mode other than 0: gather.md names the compare mode without describing it");
  int64_t offset = 0;
  if (const Value* o = a.Get(99, "offset")) offset = in.ToInt(*o, call.line, "offset");
  for (Tile* t : {&out, &src, &idx, &tmp}) Consume(in, *t);
  ReportIssues(in, call.line, tileop::Gather(in.Mem(), out, src, idx, tmp, offset));
  return Value::None();
}

// gathermask.md: pl.gathermask(out, src, *, pattern_mode) with a compile-time 1..7.
Value GatherMaskFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.gathermask");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  const int64_t mode = a.Int(99, "pattern_mode");
  Consume(in, out);
  Consume(in, src);
  ReportIssues(in, call.line, tileop::GatherMask(in.Mem(), out, src, mode));
  return Value::None();
}

Value GatherBFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.gatherb");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  Tile& offsets = a.TileArg(2, "offsets");
  for (Tile* t : {&out, &src, &offsets}) Consume(in, *t);
  ReportIssues(in, call.line, tileop::GatherBlocks(in.Mem(), out, src, offsets));
  return Value::None();
}

Value ScatterFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.scatter");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  Tile& idx = a.TileArg(2, "idx");
  for (Tile* t : {&out, &src, &idx}) Consume(in, *t);
  ReportIssues(in, call.line, tileop::Scatter(in.Mem(), out, src, idx));
  return Value::None();
}

// quant.md: pl.quant(out, src, scale, *, mode=QuantMode.SYM, offset=None); ASYM needs offset.
Value QuantFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.quant");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  Tile& scale = a.TileArg(2, "scale");
  const std::string mode = a.EnumArg(99, "mode");
  if (!mode.empty() && mode != "SYM" && mode != "ASYM") a.Fail("unknown mode QuantMode." + mode);
  Tile* offset = nullptr;
  if (const Value* o = a.Get(99, "offset"); o && o->kind != VK::kNone && mode == "ASYM") offset = &a.TileArg(99, "offset");
  if (mode == "ASYM" && !offset) a.Fail("QuantMode.ASYM needs offset= (quant.md)");
  for (Tile* t : {&out, &src, &scale, offset})
    if (t) Consume(in, *t);
  ReportIssues(in, call.line, tileop::Quant(in.Mem(), out, src, scale, offset));
  return Value::None();
}

Value DequantFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.dequant");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  Tile& scale = a.TileArg(2, "scale");
  Tile& offset = a.TileArg(3, "offset");
  for (Tile* t : {&out, &src, &scale, &offset}) Consume(in, *t);
  ReportIssues(in, call.line, tileop::Dequant(in.Mem(), out, src, scale, offset));
  return Value::None();
}

template <tileop::Bin OP, int DIM>
Value ExpandFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl expand op");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  Tile& vec = a.TileArg(2, "scalar");
  int64_t dim = DIM;
  if (const Value* d = a.Get(99, "dim")) dim = in.ToInt(*d, call.line, "dim");
  Consume(in, out);
  Consume(in, src);
  Consume(in, vec);
  ReportIssues(in, call.line, tileop::Expand(in.Mem(), OP, out, src, vec, static_cast<int>(dim)));
  return Value::None();
}

template <tileop::Cmp OP>
Value CompareFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl comparison");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& x = a.TileArg(1, "src0");
  Consume(in, out);
  Consume(in, x);
  // _api.py: the right operand is a tile or a scalar (TCMPS).
  if (const Value& rhs = a.Req(2, "src1"); rhs.IsNumber()) {
    ReportIssues(in, call.line, tileop::CompareScalar(in.Mem(), OP, out, x, in.ToDouble(rhs, call.line, "src1")));
    return Value::None();
  }
  Tile& y = a.TileArg(2, "src1");
  Consume(in, y);
  ReportIssues(in, call.line, tileop::Compare(in.Mem(), OP, out, x, y));
  return Value::None();
}

Value SelectFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.select");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& m = a.TileArg(1, "mask");
  Tile& l = a.TileArg(2, "lhs");
  Consume(in, out);
  Consume(in, m);
  Consume(in, l);
  if (const Value& rhs = a.Req(3, "rhs"); rhs.IsNumber()) {
    ReportIssues(in, call.line, tileop::SelectScalar(in.Mem(), out, m, l, in.ToDouble(rhs, call.line, "rhs")));
    return Value::None();
  }
  Tile& r = a.TileArg(3, "rhs");
  Consume(in, r);
  ReportIssues(in, call.line, tileop::Select(in.Mem(), out, m, l, r));
  return Value::None();
}

// ---- fused and composite tile ops (backend_cce_block_out_ops.cpp's instruction sequences) ----

// add_relu / sub_relu: OP(lhs, lhs, rhs); TRELU(out, lhs).
// add_relu_cast / sub_relu_cast: OP(lhs, lhs, rhs); TRELU(lhs, lhs); TCVT(out, lhs, mode).
// mul_cast: TMUL(lhs, lhs, rhs); TCVT(out, lhs, mode).
template <tileop::Bin OP, bool RELU, bool CAST>
Value FusedBinary(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl fused tile op");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& lhs = a.TileArg(1, "lhs");
  Tile& rhs = a.TileArg(2, "rhs");
  if (CAST) {
    const DType target = a.DTypeArg(99, "target_type", out.type.dtype);
    if (!a.Get(99, "target_type")) a.Fail("missing argument 'target_type'");
    if (target != out.type.dtype)
      in.Fail(hazard::kTypeMismatch, call.line,
              absl::StrFormat("target_type %s differs from out tile '%s' (%s)", std::string(DTypePlName(target)),
                              out.name, std::string(DTypeName(out.type.dtype))));
    CheckCastMode(a);
  } else if (out.type.dtype != lhs.type.dtype) {
    in.Fail(hazard::kTypeMismatch, call.line,
            absl::StrFormat("out tile '%s' is %s but lhs '%s' is %s (the fused op does not convert)", out.name,
                            std::string(DTypeName(out.type.dtype)), lhs.name, std::string(DTypeName(lhs.type.dtype))));
  }
  Consume(in, out);
  Consume(in, lhs);
  Consume(in, rhs);
  ReportIssues(in, call.line, tileop::Binary(in.Mem(), OP, lhs, lhs, rhs));
  if (RELU && CAST) ReportIssues(in, call.line, tileop::Unary(in.Mem(), tileop::Un::kRelu, lhs, lhs));
  if (RELU && !CAST) ReportIssues(in, call.line, tileop::Unary(in.Mem(), tileop::Un::kRelu, out, lhs));
  if (CAST) ReportIssues(in, call.line, tileop::Cast(in.Mem(), out, lhs));
  in.stats.tile_elems += out.valid_rows * out.valid_cols;
  return Value::None();
}

enum class MulAdd { kDst, kInPlace, kInPlaceRelu };

// mul_add_dst: TMUL(lhs, lhs, rhs); TADD(out, lhs, out).
// fused_mul_add: TMUL(lhs, lhs, out); TADD(out, lhs, rhs).
// fused_mul_add_relu: TMUL(lhs, lhs, out); TADD(lhs, lhs, rhs); TRELU(out, lhs).
template <MulAdd K>
Value MulAddFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl multiply-add");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& lhs = a.TileArg(1, "lhs");
  Tile& rhs = a.TileArg(2, "rhs");
  Consume(in, out);
  Consume(in, lhs);
  Consume(in, rhs);
  auto& mem = in.Mem();
  if (K == MulAdd::kDst) {
    ReportIssues(in, call.line, tileop::Binary(mem, tileop::Bin::kMul, lhs, lhs, rhs));
    ReportIssues(in, call.line, tileop::Binary(mem, tileop::Bin::kAdd, out, lhs, out));
  } else {
    ReportIssues(in, call.line, tileop::Binary(mem, tileop::Bin::kMul, lhs, lhs, out));
    if (K == MulAdd::kInPlace) {
      ReportIssues(in, call.line, tileop::Binary(mem, tileop::Bin::kAdd, out, lhs, rhs));
    } else {
      ReportIssues(in, call.line, tileop::Binary(mem, tileop::Bin::kAdd, lhs, lhs, rhs));
      ReportIssues(in, call.line, tileop::Unary(mem, tileop::Un::kRelu, out, lhs));
    }
  }
  in.stats.tile_elems += out.valid_rows * out.valid_cols;
  return Value::None();
}

Value AxpyFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.axpy");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  const double alpha = a.Num(2, "alpha");
  Consume(in, out);
  Consume(in, src);
  ReportIssues(in, call.line, tileop::Axpy(in.Mem(), out, src, alpha));
  return Value::None();
}

// and_/or_ take a tile or a scalar right operand; shl/shr a tile of shift amounts.
template <tileop::Bit OP>
Value BitwiseFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl bitwise op");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& lhs = a.TileArg(1, "lhs");
  Consume(in, out);
  Consume(in, lhs);
  const Value& rhs = a.Req(2, "rhs");
  if ((OP == tileop::Bit::kAnd || OP == tileop::Bit::kOr) && rhs.kind == VK::kInt) {
    ReportIssues(in, call.line, tileop::BitwiseScalar(in.Mem(), OP, out, lhs, rhs.i));
    return Value::None();
  }
  Tile& r = a.TileArg(2, "rhs");
  Consume(in, r);
  ReportIssues(in, call.line, tileop::Bitwise(in.Mem(), OP, out, lhs, r));
  return Value::None();
}

// xor.md: out = lhs ^ rhs with a workspace tile that may not overlap the operands; its
// content afterwards is not defined.
Value XorFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.xor");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& lhs = a.TileArg(1, "lhs");
  Tile& rhs = a.TileArg(2, "rhs");
  Tile& tmp = a.TileArg(3, "tmp");
  for (const Tile* t : {&out, &lhs, &rhs})
    if (t->type.space == tmp.type.space && t->addr < tmp.addr + tmp.size && tmp.addr < t->addr + t->size)
      in.Fail(hazard::kTileOverlap, call.line,
              absl::StrFormat("pl.xor: tmp '%s' overlaps tile '%s' (xor.md: tmp may not overlap out/lhs/rhs)",
                              tmp.name, t->name));
  Consume(in, out);
  Consume(in, lhs);
  Consume(in, rhs);
  Consume(in, tmp);
  ReportIssues(in, call.line, tileop::Bitwise(in.Mem(), tileop::Bit::kXor, out, lhs, rhs));
  tileop::Clobber(in.Mem(), tmp);
  return Value::None();
}

template <tileop::Bin OP>
Value PartFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl part op");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& x = a.TileArg(1, "src0");
  Tile& y = a.TileArg(2, "src1");
  Consume(in, out);
  Consume(in, x);
  Consume(in, y);
  ReportIssues(in, call.line, tileop::PartBinary(in.Mem(), OP, out, x, y));
  return Value::None();
}

Value TransposeFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.transpose");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  Tile& src = a.TileArg(1, "src");
  if (out.type.space != MemSpace::kVec || src.type.space != MemSpace::kVec)
    a.Fail("out and src must be Vec tiles (transpose.md)");
  Consume(in, out);
  Consume(in, src);
  in.stats.tile_elems += out.valid_rows * out.valid_cols;
  ReportIssues(in, call.line, tileop::Transpose(in.Mem(), out, src));
  return Value::None();
}

Value FillIndexFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.fill_index");
  RequireKernel(a);
  Tile& out = a.TileArg(0, "out");
  const int64_t start = a.Int(1, "start");
  Consume(in, out);
  ReportIssues(in, call.line, tileop::FillIndex(in.Mem(), out, start));
  return Value::None();
}

}  // namespace

void RegisterTileBuiltins(BuiltinTable& t) {
  t["pl.TileType"] = TileTypeFn;
  t["pl.make_tile"] = MakeTileFn;
  t["pl.make_tile_group"] = MakeTileGroupFn;
  t["pl.get_block_idx"] = BlockIdx;
  t["pl.get_block_num"] = BlockNum;
  t["pl.get_subblock_idx"] = SubblockIdx;
  t["pl.get_subblock_num"] = SubblockNum;
  t["pl.min"] = PlMin;
  t["pl.max"] = PlMax;
  t["pl.const"] = PlConst;
  t["pl.constexpr"] = PlConstexpr;
  t["pl.range"] = PlRange;
  t["pl.set_validshape"] = SetValidShape;
  t["pl.load"] = Load;
  t["pl.load_tile"] = LoadTileFn;
  t["pl.store"] = Store;
  t["pl.store_tile"] = StoreTileFn;
  t["pl.fillpad"] = FillPadFn;
  t["pl.fillpad_inplace"] = FillPadInplace;
  t["pl.fillpad_expand"] = FillPadExpand;
  t["pl.add"] = TileBinary<tileop::Bin::kAdd>;
  t["pl.sub"] = TileBinary<tileop::Bin::kSub>;
  t["pl.mul"] = TileBinary<tileop::Bin::kMul>;
  t["pl.div"] = TileBinary<tileop::Bin::kDiv>;
  t["pl.maximum"] = TileBinary<tileop::Bin::kMax>;
  t["pl.minimum"] = TileBinary<tileop::Bin::kMin>;
  t["pl.adds"] = TileScalarOp<tileop::Bin::kAdd>;
  t["pl.subs"] = TileScalarOp<tileop::Bin::kSub>;
  t["pl.muls"] = TileScalarOp<tileop::Bin::kMul>;
  t["pl.divs"] = TileScalarOp<tileop::Bin::kDiv>;
  t["pl.maxs"] = TileScalarOp<tileop::Bin::kMax>;
  t["pl.mins"] = TileScalarOp<tileop::Bin::kMin>;
  t["pl.exp"] = TileUnary<tileop::Un::kExp>;
  t["pl.log"] = TileUnary<tileop::Un::kLog>;
  t["pl.sqrt"] = TileUnary<tileop::Un::kSqrt>;
  t["pl.rsqrt"] = TileUnary<tileop::Un::kRsqrt>;
  t["pl.abs"] = TileUnary<tileop::Un::kAbs>;
  t["pl.neg"] = TileUnary<tileop::Un::kNeg>;
  t["pl.relu"] = TileUnary<tileop::Un::kRelu>;
  t["pl.recip"] = TileUnary<tileop::Un::kRecip>;
  t["pl.reciprocal"] = TileUnary<tileop::Un::kRecip>;
  t["pl.cast"] = CastFn;
  t["pl.expands"] = ExpandsFn;
  t["pl.sum"] = ReduceFn<tileop::Red::kSum, 0>;
  t["pl.row_sum"] = ReduceFn<tileop::Red::kSum, 0>;
  t["pl.row_max"] = ReduceFn<tileop::Red::kMax, 0>;
  t["pl.row_min"] = ReduceFn<tileop::Red::kMin, 0>;
  t["pl.col_sum"] = ReduceFn<tileop::Red::kSum, 1>;
  t["pl.col_max"] = ReduceFn<tileop::Red::kMax, 1>;
  t["pl.col_min"] = ReduceFn<tileop::Red::kMin, 1>;
  t["pl.expand_add"] = ExpandFn<tileop::Bin::kAdd, 0>;
  t["pl.expand_sub"] = ExpandFn<tileop::Bin::kSub, 0>;
  t["pl.expand_mul"] = ExpandFn<tileop::Bin::kMul, 0>;
  t["pl.expand_div"] = ExpandFn<tileop::Bin::kDiv, 0>;
  t["pl.expand_max"] = ExpandFn<tileop::Bin::kMax, 0>;
  t["pl.expand_min"] = ExpandFn<tileop::Bin::kMin, 0>;
  t["pl.row_expand_add"] = ExpandFn<tileop::Bin::kAdd, 0>;
  t["pl.row_expand_sub"] = ExpandFn<tileop::Bin::kSub, 0>;
  t["pl.row_expand_mul"] = ExpandFn<tileop::Bin::kMul, 0>;
  t["pl.row_expand_div"] = ExpandFn<tileop::Bin::kDiv, 0>;
  t["pl.row_expand_max"] = ExpandFn<tileop::Bin::kMax, 0>;
  t["pl.row_expand_min"] = ExpandFn<tileop::Bin::kMin, 0>;
  t["pl.col_expand_add"] = ExpandFn<tileop::Bin::kAdd, 1>;
  t["pl.col_expand_sub"] = ExpandFn<tileop::Bin::kSub, 1>;
  t["pl.col_expand_mul"] = ExpandFn<tileop::Bin::kMul, 1>;
  t["pl.col_expand_div"] = ExpandFn<tileop::Bin::kDiv, 1>;
  t["pl.eq"] = CompareFn<tileop::Cmp::kEq>;
  t["pl.ne"] = CompareFn<tileop::Cmp::kNe>;
  t["pl.lt"] = CompareFn<tileop::Cmp::kLt>;
  t["pl.le"] = CompareFn<tileop::Cmp::kLe>;
  t["pl.gt"] = CompareFn<tileop::Cmp::kGt>;
  t["pl.ge"] = CompareFn<tileop::Cmp::kGe>;
  t["pl.select"] = SelectFn;
  t["pl.add_relu"] = FusedBinary<tileop::Bin::kAdd, true, false>;
  t["pl.sub_relu"] = FusedBinary<tileop::Bin::kSub, true, false>;
  t["pl.add_relu_cast"] = FusedBinary<tileop::Bin::kAdd, true, true>;
  t["pl.sub_relu_cast"] = FusedBinary<tileop::Bin::kSub, true, true>;
  t["pl.mul_cast"] = FusedBinary<tileop::Bin::kMul, false, true>;
  t["pl.mul_add_dst"] = MulAddFn<MulAdd::kDst>;
  t["pl.fused_mul_add"] = MulAddFn<MulAdd::kInPlace>;
  t["pl.fused_mul_add_relu"] = MulAddFn<MulAdd::kInPlaceRelu>;
  t["pl.axpy"] = AxpyFn;
  t["pl.and_"] = BitwiseFn<tileop::Bit::kAnd>;
  t["pl.shl"] = BitwiseFn<tileop::Bit::kShl>;
  t["pl.shr"] = BitwiseFn<tileop::Bit::kShr>;
  t["pl.xor"] = XorFn;
  t["pl.partadd"] = PartFn<tileop::Bin::kAdd>;
  t["pl.partmax"] = PartFn<tileop::Bin::kMax>;
  t["pl.partmin"] = PartFn<tileop::Bin::kMin>;
  t["pl.partmul"] = PartFn<tileop::Bin::kMul>;
  t["pl.transpose"] = TransposeFn;
  t["pl.gather"] = GatherFn;
  t["pl.scatter"] = ScatterFn;
  t["pl.gathermask"] = GatherMaskFn;
  t["pl.gatherb"] = GatherBFn;
  t["pl.quant"] = QuantFn;
  t["pl.dequant"] = DequantFn;
  t["pl.argmax"] = ArgReduceFn<true>;
  t["pl.argmin"] = ArgReduceFn<false>;
  t["pl.fill_index"] = FillIndexFn;
  for (const char* n : {"pl.printf", "pl.pto_assert", "pl.section_vector", "pl.section_cube"})
    t[n] = NoOp;
}

void RegisterScalarBoundBuiltins(BoundTable& t) {
  t["pl.min"] = BoundBuiltin{MinMaxBound<true>, 2, {}};
  t["pl.max"] = BoundBuiltin{MinMaxBound<false>, 2, {}};
}

}  // namespace opdev::sim
