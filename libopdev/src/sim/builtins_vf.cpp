// `vf.*` builtins: mask creation, register load/store against UB tiles (with alignment, range
// and definedness checks; DataBlock stores and POST_UPDATE cursors), (de-)interleaving, lane
// arithmetic, bitwise and_/or_/xor/not_, exp_sub, reductions, broadcasts, compares, select and
// astype. Each checks that the mask was built for the operation's element width.
#include "builtins.h"

#include "opdev/api/catalog.h"
#include "opdev/sim/vf_ops.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace opdev::sim {

namespace {

using BArgs = std::vector<Value>;
// The positional arguments of a bound form's Args: none (its operands are read in place).
const BArgs kNoPositionals;

// The register dtypes an op's doc page supports (the API catalog's reg_dtypes): vf.exp on an
// int8 register, for example, is refused with the rule and its page. FP32 and FP16 are
// supported by every simulated op, so the hot path skips the lookup.
void CheckRegDtype(const Args& a, const XNode& call, DType dt) {
  if (dt == DType::kFloat32 || dt == DType::kFloat16) return;
  if (!call.a || call.a->kind != XK::kBuiltinRef) return;
  const api::Function* f = api::Catalog::Builtin().FindFunction(call.a->name);
  if (!f || f->SupportsRegDtype(DTypePlName(dt))) return;
  std::string doc = f->source;
  if (auto p = doc.find("docs/"); p != std::string::npos) doc = doc.substr(p);
  a.in().Fail(hazard::kTypeMismatch, a.line(),
              absl::StrFormat("%s on a %s register: the documented dtypes of %s are %s (%s)", call.a->name,
                              std::string(DTypePlName(dt)), call.a->name, absl::StrJoin(f->reg_dtypes, ", "), doc));
}

void RequireVf(const Args& a) {
  if (!a.in().in_kernel) a.Fail("vf.* operations run inside a @pl.vector_function called from a kernel");
}

void CheckMask(const Args& a, const MaskReg& m, DType op_dtype, const char* role) {
  int w = static_cast<int>(DTypeSize(op_dtype));
  if (m.width != w) {
    a.in().sink.Report(hazard::kMaskDtype, a.line(),
                       absl::StrFormat("%s: mask built for %d-byte elements used with %s %s (%d-byte "
                                       "lanes); lane i reads mask bit %d*i, so the active lanes are not "
                                       "the ones the mask was built for",
                                       a.fname(), m.width, role, std::string(DTypeName(op_dtype)), w, w),
                       std::string(DTypeName(op_dtype)));
  }
}

MergeMode ModeArg(const Args& a, const char* kw = "mode") {
  if (a.EnumName(99, kw) == "MERGING")
    a.in().Fail(hazard::kUnsupported, a.line(),
                std::string(a.fname()) + ": MergeMode.MERGING (keep the destination's old lanes) is not simulated yet");
  return MergeMode::kZeroing;
}

CastLayout LayoutNamed(std::string_view l) {
  if (l == "ONE") return CastLayout::kOne;
  if (l == "TWO") return CastLayout::kTwo;
  if (l == "THREE") return CastLayout::kThree;
  return CastLayout::kZero;
}
CastLayout LayoutArg(const Args& a) { return LayoutNamed(a.EnumName(99, "layout")); }

// The keywords dtype=, layout= and round_mode= of a bound call (vf.exp_sub, vf.astype,
// vf.update_mask), decoded once at lowering into BoundKeys slots kKeyDtype, kKeyLayout and
// kKeyRound. A value of another kind, or a round mode other than CAST_RINT (whose name a
// refusal quotes), is left to Args at the call.
enum : size_t { kKeyDtype = 0, kKeyLayout = 1, kKeyRound = 2 };
bool DecodeCastKeys(const std::vector<std::pair<std::string, Value>>& kwargs, BoundKeys* keys) {
  keys->fill(-1);
  for (const auto& [k, v] : kwargs) {
    if (v.kind == VK::kNone) continue;  // as absent, for Args too
    if (k == "dtype") {
      if (v.kind != VK::kDType) return false;
      (*keys)[kKeyDtype] = static_cast<int32_t>(v.dtype());
    } else if (k == "layout") {
      if (v.kind != VK::kEnum) return false;
      (*keys)[kKeyLayout] = static_cast<int32_t>(LayoutNamed(v.EnumMember()));
    } else if (k == "round_mode") {
      if (v.kind != VK::kEnum || v.EnumMember() != "CAST_RINT") return false;
      (*keys)[kKeyRound] = 0;
    } else {
      return false;
    }
  }
  return true;
}
// The decoded keywords of `call`, or nullptr when they are read through Args (no decoder, a
// keyword it left, or a call that is not bound).
const BoundKeys* DecodedKeys(const XNode& call) { return call.bound_keys_valid ? &call.bound_keys : nullptr; }
DType KeyDType(const BoundKeys& k, DType dflt) {
  return k[kKeyDtype] < 0 ? dflt : static_cast<DType>(k[kKeyDtype]);
}
CastLayout KeyLayout(const BoundKeys& k) {
  return k[kKeyLayout] < 0 ? CastLayout::kZero : static_cast<CastLayout>(k[kKeyLayout]);
}

// Whether bound operands are of the kinds listed, in order.
bool OperandKinds(const Value* const* ops, std::initializer_list<VK> kinds) {
  size_t i = 0;
  for (VK k : kinds)
    if (ops[i++]->kind != k) return false;
  return true;
}

// The two entries of an op on a source register and a mask (arguments "src", "preg"): ON is
// the op's body after its operands, NAME its name in messages.
using RegMaskOn = void (*)(const Args& a, const XNode& call, const VReg& x, const MaskReg& m, Value& out);
constexpr char kUnaryOp[] = "vf unary op";
constexpr char kReduceSum[] = "vf.reduce_sum";
constexpr char kReduceMax[] = "vf.reduce_max";
constexpr char kReduceMin[] = "vf.reduce_min";
constexpr char kAsType[] = "vf.astype";

template <RegMaskOn ON, const char* NAME>
Value RegMaskFn(Interp& in, const XNode& call, std::vector<Value>& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, NAME);
  RequireVf(a);
  const VReg& x = a.Reg(0, "src");
  const MaskReg& m = a.Mask(1, "preg");
  Value out;
  ON(a, call, x, m, out);
  return out;
}

template <RegMaskOn ON, const char* NAME>
bool RegMaskBound(Interp& in, const XNode& call, const Value* const* ops, Value* out) {
  if (!OperandKinds(ops, {VK::kVReg, VK::kMask})) return false;
  Args a(in, call, kNoPositionals, call.bound_kwargs, NAME);
  RequireVf(a);
  ON(a, call, ops[0]->As<VReg>(), ops[1]->As<MaskReg>(), *out);
  return true;
}

void Count(Interp& in, const VReg& r) {
  ++in.stats.vf_ops;
  in.stats.lane_ops += r.Lanes();
}

// A register operation's result: counted in the statistics, then stored into `out` (PutReg).
void PutCounted(Interp& in, const VReg& r, Value& out) {
  Count(in, r);
  PutReg(out, r);
}

// Resolves a tile operand (tile, tile + offset) plus an optional extra element offset.
struct RegAddr {
  std::shared_ptr<Tile> tile;
  int64_t elem = 0;
};

RegAddr Resolve(const Args& a, const Value& v, const Value* extra) {
  RegAddr r;
  if (v.kind == VK::kTile) r.tile = v.Ptr<Tile>();
  else if (v.kind == VK::kTileOffset) { r.tile = v.Ptr<Tile>(); r.elem = v.i; }
  else a.Fail("expected a UB tile or tile + offset, got " + KindName(v.kind));
  if (extra && extra->kind != VK::kNone) {
    if (extra->IsSeq()) {
      const auto& it = extra->Items();
      if (it.size() != 2) a.Fail("offset list must be [row, col]");
      r.elem += a.in().ToInt(it[0], a.line(), "row offset") * r.tile->type.shape[1] +
                a.in().ToInt(it[1], a.line(), "col offset");
    } else {
      r.elem += a.in().ToInt(*extra, a.line(), "offset");
    }
  }
  return r;
}

// The byte address of `ra`, checked: `len` bytes inside UB, aligned to `align` bytes (32 for
// whole-register transfers; load_align.md gives the element width for the BRC modes).
uint64_t CheckedAddress(const Args& a, const RegAddr& ra, DType dtype, const char* what, int64_t align = 32,
                        int64_t len = kVRegBytes) {
  Interp& in = a.in();
  const Tile& t = *ra.tile;
  if (t.type.space != MemSpace::kVec) a.Fail(absl::StrCat(what, " needs a Vec (UB) tile"));
  const int64_t es = static_cast<int64_t>(DTypeSize(dtype));
  const int64_t byte = static_cast<int64_t>(t.addr) + ra.elem * static_cast<int64_t>(t.elem_size());
  const SpaceBuffer& buf = in.Mem().Get(MemSpace::kVec);
  if (ra.elem < 0 || byte < 0 || static_cast<uint64_t>(byte + len) > buf.capacity) {
    in.Fail(hazard::kRegisterRange, a.line(),
            absl::StrFormat("%s at element offset %d of tile '%s' reaches bytes [0x%x, 0x%x), outside UB (%d bytes)",
                            what, ra.elem, t.name, byte, byte + len, buf.capacity));
  }
  if (byte % align != 0) {
    in.Fail(hazard::kRegisterRange, a.line(),
            absl::StrFormat("%s address 0x%x (tile '%s' + %d elements) is not %d-byte aligned", what, byte, t.name,
                            ra.elem, align));
  }
  (void)es;
  return static_cast<uint64_t>(byte);
}

Value CreateMaskFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "vf.create_mask");
  std::string pattern = a.EnumArg(0, "pattern");
  if (pattern.empty()) pattern = "ALL";
  DType d = a.DTypeArg(1, "dtype", DType::kFloat32);
  auto m = vf::CreateMask(pattern, d);
  if (!m) a.Fail("unknown mask pattern " + pattern);
  return MakeMask(*m);
}

Value UpdateMaskFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "vf.update_mask");
  return MakeMask(vf::UpdateMask(a.Int(0, "scalar"), a.DTypeArg(1, "dtype", DType::kFloat32)));
}

bool UpdateMaskBound(Interp& in, const XNode& call, const Value* const* ops, Value* out) {
  if (!OperandKinds(ops, {VK::kInt})) return false;
  Args a(in, call, kNoPositionals, call.bound_kwargs, "vf.update_mask");
  // vf::UpdateMask's mask, written into the one the assigned local holds.
  const BoundKeys* keys = DecodedKeys(call);
  const DType dt = keys ? KeyDType(*keys, DType::kFloat32) : a.DTypeArg(1, "dtype", DType::kFloat32);
  PutFirstNMask(*out, ops[0]->i, static_cast<int>(DTypeSize(dt)));
  return true;
}

// load_align into a variable declared as a mask register (load_align.md, mask_tensor mode):
// NORM reads VL/8 = 32 bytes as the 256 predicate bits, US reads 16 bytes and repeats every
// bit, DS reads 64 bytes and keeps every other bit. Predicate bit i is bit i % 8 of byte i / 8
// (the order under which the fa/ causal VF samples' uint8 0/1 mask rows, read with DS, make
// fp32 lane i follow mask byte i). The mask keeps the element width it was declared with.
Value LoadMask(const Args& a, const XNode& call, const RegAddr& ra, std::string_view dist, int width) {
  Interp& in = a.in();
  const std::string_view d = dist.empty() ? "NORM" : dist;
  if (d != "NORM" && d != "US" && d != "DS")
    in.Fail(hazard::kUnsupported, call.line,
            "vf.load_align into a mask register with dist=" + std::string(d) + " (load_align.md: NORM, US, DS)");
  const int64_t len = d == "NORM" ? 32 : d == "US" ? 16 : 64;
  const int64_t align = d == "US" ? 16 : 32;
  const uint64_t byte = CheckedAddress(a, ra, ra.tile->type.dtype, "vf.load_align (mask)", align, len);
  PipeRegisterAccess(in, *ra.tile, byte, byte + static_cast<uint64_t>(len), false, "vf.load_align");
  in.MarkUsed(*ra.tile);
  ra.tile->last_load_line = 0;
  const SpaceBuffer& buf = in.Mem().Get(MemSpace::kVec);
  if (std::memchr(buf.written.data() + byte, 0, static_cast<size_t>(len)) != nullptr)
    in.sink.Report(hazard::kUninitRead, call.line,
                   "vf.load_align loads a mask register from on-chip bytes never written in this run");
  auto src_bit = [&](int64_t i) { return (buf.bytes[byte + static_cast<uint64_t>(i / 8)] >> (i % 8)) & 1; };
  MaskReg m;
  m.width = width;
  for (int i = 0; i < kVRegBytes; ++i)
    m.bit[i] = static_cast<uint8_t>(d == "NORM" ? src_bit(i) : d == "US" ? src_bit(i / 2) : src_bit(2 * i));
  ++in.stats.vf_ops;
  return MakeMask(m);
}

// A whole-register load (dist NORM) of `d` lanes at `ra` into `out` (PutReg).
void LoadRegOn(const Args& a, const RegAddr& ra, DType d, Value& out) {
  Interp& in = a.in();
  const uint64_t byte = CheckedAddress(a, ra, d, "vf.load_align");
  PipeRegisterAccess(in, *ra.tile, byte, byte + static_cast<uint64_t>(kVRegBytes), false, "vf.load_align");
  in.MarkUsed(*ra.tile);
  ra.tile->last_load_line = 0;
  const SpaceBuffer& buf = in.Mem().Get(MemSpace::kVec);
  PutReg(out, vf::LoadBytes(buf.bytes.data() + byte, buf.written.data() + byte, d));
}

Value LoadAlignFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "vf.load_align");
  RequireVf(a);
  RegAddr ra = Resolve(a, a.Req(0, "tile"), a.Get(1, "offset"));
  if (in.assign_value == &call && in.assign_target && in.assign_target->kind == VK::kMask)
    return LoadMask(a, call, ra, a.EnumName(3, "dist"), in.assign_target->As<MaskReg>().width);
  DType d = a.DTypeArg(2, "dtype", ra.tile->type.dtype);
  const std::string_view dist = a.EnumName(3, "dist");
  if (!a.EnumName(4, "data_copy_mode").empty()) in.Fail(hazard::kUnsupported, call.line, "vf.load_align data_copy_mode is not simulated");
  if (dist.rfind("DINTLV", 0) == 0) {
    // Two registers: 512 bytes, even elements to the first, odd to the second. The suffix
    // names the element width; it must be the register dtype's.
    const int64_t es = dist == "DINTLV_B8" ? 1 : dist == "DINTLV_B16" ? 2 : dist == "DINTLV_B32" ? 4 : 0;
    if (es == 0 || es != static_cast<int64_t>(DTypeSize(d)))
      in.Fail(hazard::kUnsupported, call.line,
              absl::StrFormat("vf.load_align dist=%s into %s registers is not simulated", std::string(dist),
                              std::string(DTypeName(d))));
    const uint64_t byte = CheckedAddress(a, ra, d, "vf.load_align", 32, 2 * kVRegBytes);
    PipeRegisterAccess(in, *ra.tile, byte, byte + static_cast<uint64_t>(2 * kVRegBytes), false, "vf.load_align");
    in.MarkUsed(*ra.tile);
    ra.tile->last_load_line = 0;
    SpaceBuffer& buf = in.Mem().Get(MemSpace::kVec);
    auto [r0, r1] = vf::LoadDeInterleaved(buf.bytes.data() + byte, buf.written.data() + byte, d);
    return Value::TupleV({MakeReg(r0), MakeReg(r1)});
  }
  if (!dist.empty() && dist != "NORM" && dist.rfind("BRC", 0) != 0)
    in.Fail(hazard::kUnsupported, call.line, "vf.load_align dist=" + std::string(dist) + " is not simulated");
  if (dist.empty() || dist == "NORM") {
    Value v;
    LoadRegOn(a, ra, d, v);
    return v;
  }
  // BRC_B8/B16/B32 read one element of that width (BRC: of the register's dtype), aligned to it,
  // and broadcast it to every lane.
  const int64_t brc_bytes = dist == "BRC_B8" ? 1 : dist == "BRC_B16" ? 2 : dist == "BRC_B32" ? 4 : DTypeSize(d);
  uint64_t byte = CheckedAddress(a, ra, d, "vf.load_align", brc_bytes, brc_bytes);
  PipeRegisterAccess(in, *ra.tile, byte, byte + static_cast<uint64_t>(brc_bytes), false, "vf.load_align");
  in.MarkUsed(*ra.tile);
  ra.tile->last_load_line = 0;
  SpaceBuffer& buf = in.Mem().Get(MemSpace::kVec);
  VReg r;
  r.dtype = d;
  const int es = r.ElemBytes();
  if (es != brc_bytes)
    in.Fail(hazard::kUnsupported, call.line,
            absl::StrFormat("vf.load_align dist=%s into a %s register (a broadcast of %d-byte elements into "
                            "lanes of another width) is not simulated",
                            std::string(dist), std::string(DTypeName(d)), brc_bytes));
  bool undef = std::memchr(buf.written.data() + byte, 0, es) != nullptr;
  for (int i = 0; i < r.Lanes(); ++i) std::memcpy(r.raw.data() + i * es, buf.bytes.data() + byte, es);
  if (undef) { r.any_undef = true; r.undef.fill(1); }
  return MakeReg(r);
}

// vf.load_align(tile, offset) of a vector register with the default dtype and dist, offset an
// int; declines an address of another form, and a load into a mask register (LoadMask).
bool LoadAlignBound(Interp& in, const XNode& call, const Value* const* ops, Value* out) {
  const Value& t = *ops[0];
  if ((t.kind != VK::kTile && t.kind != VK::kTileOffset) || ops[1]->kind != VK::kInt || out->kind == VK::kMask ||
      !in.in_kernel)
    return false;
  PipeVfRegisterOpBegin(in, call);
  Args a(in, call, kNoPositionals, call.bound_kwargs, "vf.load_align");
  RegAddr ra;
  ra.tile = t.Ptr<Tile>();
  ra.elem = (t.kind == VK::kTileOffset ? t.i : 0) + ops[1]->i;
  LoadRegOn(a, ra, ra.tile->type.dtype, *out);
  return true;
}

// The destination of a POST_UPDATE store: the VF call's cursor for this destination (created
// at its first use, at the destination's address; keyed like the frontend's hoisted cursor
// variables, by the destination variable or, for an expression, by its address).
Interp::VfCursor& PostUpdateCursor(const Args& a, const XNode& call) {
  Interp& in = a.in();
  if (!in.vf_cursors) a.Fail("post_update=True runs inside a @pl.vector_function");
  RegAddr ra = Resolve(a, a.Req(0, "tile"), nullptr);
  std::string key = !call.items.empty() && call.items[0]->kind == XK::kLocal
                        ? absl::StrCat("L", call.items[0]->slot)
                        : absl::StrCat("A", ra.tile->id, ":", ra.elem);
  auto it = in.vf_cursors->find(key);
  if (it == in.vf_cursors->end())
    it = in.vf_cursors->emplace(key, Interp::VfCursor{ra.tile, ra.elem * static_cast<int64_t>(ra.tile->elem_size())})
             .first;
  return it->second;
}

// Stamps the provenance of `len` stored bytes at `byte` (lane numbers from `first_lane`).
void StampOrigin(SpaceBuffer& buf, uint64_t byte, uint64_t len, int es, int first_lane, int line, int16_t active) {
  if (buf.origin.empty()) return;
  for (uint64_t b = 0; b < len && byte + b < buf.origin.size(); ++b)
    buf.origin[byte + b] = WriteOrigin{line, static_cast<int16_t>(first_lane + static_cast<int>(b) / es), active};
}

void CheckStoreDtype(Interp& in, const XNode& call, const VReg& r, const Tile& t) {
  if (r.dtype != t.type.dtype && DTypeSize(r.dtype) != DTypeSize(t.type.dtype)) {
    in.sink.Report(hazard::kTypeMismatch, call.line,
                   absl::StrFormat("vf.store_align of a %s register into %s tile '%s'", std::string(DTypeName(r.dtype)),
                                   std::string(DTypeName(t.type.dtype)), t.name));
  }
}

// DataBlock mode (store_align.md, DATA_BLOCK_COPY): the register's 8 DataBlocks of 32 bytes go
// to `byte + j * block_stride * 32`. A block is written whole when any of its 32 mask bits is
// set and not at all (nor checked against the tile) when none is.
void StoreDataBlocks(const Args& a, const XNode& call, const VReg& r, const MaskReg& m, Tile& t, uint64_t byte,
                     int64_t block_stride) {
  Interp& in = a.in();
  constexpr int kBlock = 32;
  SpaceBuffer& buf = in.Mem().Get(MemSpace::kVec);
  if (byte % kBlock != 0)
    in.Fail(hazard::kRegisterRange, call.line,
            absl::StrFormat("vf.store_align (DATA_BLOCK_COPY) address 0x%x in tile '%s' is not 32-byte aligned", byte,
                            t.name));
  if (block_stride < 0) a.Fail(absl::StrFormat("block_stride must not be negative, got %d", block_stride));
  const int es = r.ElemBytes();
  int16_t active = 0;
  bool on[kVRegBytes / kBlock];
  for (int j = 0; j < kVRegBytes / kBlock; ++j) {
    on[j] = std::find(m.bit.begin() + j * kBlock, m.bit.begin() + (j + 1) * kBlock, 1) != m.bit.begin() + (j + 1) * kBlock;
    if (on[j]) active = static_cast<int16_t>(active + kBlock / es);
  }
  bool undef = false;
  for (int j = 0; j < kVRegBytes / kBlock; ++j) {
    if (!on[j]) continue;
    const uint64_t dst = byte + static_cast<uint64_t>(j) * static_cast<uint64_t>(block_stride) * kBlock;
    if (dst + kBlock > buf.capacity)
      in.Fail(hazard::kRegisterRange, call.line,
              absl::StrFormat("vf.store_align (DATA_BLOCK_COPY) writes DataBlock %d at byte 0x%x, outside UB (%d bytes)",
                              j, dst, buf.capacity));
    if (dst < t.addr || dst + kBlock > t.addr + t.size)
      in.sink.Report(hazard::kRegisterRange, call.line,
                     absl::StrFormat("vf.store_align (DATA_BLOCK_COPY, block_stride %d) writes DataBlock %d at byte "
                                     "0x%x, outside tile '%s' [0x%x, 0x%x)",
                                     block_stride, j, dst, t.name, t.addr, t.addr + t.size));
    PipeRegisterAccess(in, t, dst, dst + kBlock, true, "vf.store_align");
    buf.Touch(dst, dst + kBlock);
    std::memcpy(buf.bytes.data() + dst, r.raw.data() + j * kBlock, kBlock);
    for (int l = j * kBlock / es; l < (j + 1) * kBlock / es; ++l) {
      const bool u = r.LaneUndef(l);
      undef |= u;
      std::memset(buf.written.data() + dst + (l * es - j * kBlock), u ? 0 : 1, es);
    }
    StampOrigin(buf, dst, kBlock, es, j * kBlock / es, call.line, active);
  }
  if (undef)
    in.sink.Report(hazard::kUninitUse, call.line,
                   "vf.store_align stores DataBlocks holding lanes computed from on-chip bytes never written in "
                   "this run (the stored bytes stay undefined)");
}

// Where a contiguous store writes: the post-update cursor's place (`cur` set; the 4th argument
// is then the step, store_align.md), else the call's tile (+ offset).
RegAddr StoreDestination(const Args& a, const XNode& call, bool post, Interp::VfCursor*& cur) {
  RegAddr ra;
  cur = nullptr;
  if (post) {
    cur = &PostUpdateCursor(a, call);
    ra.tile = cur->tile;
    ra.elem = cur->byte / static_cast<int64_t>(cur->tile->elem_size());
  } else {
    ra = Resolve(a, a.Req(0, "tile"), a.Get(3, "offset"));
  }
  return ra;
}

// A post-update store's cursor moves by its 4th argument, a step in elements of the tile.
void AdvancePostUpdate(const Args& a, Interp::VfCursor& cur, const Tile& t) {
  const Value* st = a.Get(3, "offset");
  const int64_t stride = st && st->kind != VK::kNone ? a.in().ToInt(*st, a.line(), "post-update stride") : 0;
  cur.byte += stride * static_cast<int64_t>(t.elem_size());
}

// The single-register distributions of a contiguous store (store_align.md table 1,
// StoreDist.md):
// * FIRST_ELEMENT: lane 0 only, whatever the mask, at an address aligned to the element width;
// * PACK: the low half of each active lane's bits (16 of 32, 8 of 16), stored contiguously;
// * PACK4: the low 8 bits of each active 32-bit lane, stored contiguously;
// the packed forms at a 32-byte aligned address (min(32, VL/2) and min(32, VL/4) bytes).
// "Contiguously" is unambiguous only when the active lanes are lanes 0..k-1 (the masks of
// update_mask and the ALL pattern): lane i's part goes to part i. The pages do not say where the
// parts of a mask with gaps go (compacted, or left at their lane's place), so such a mask is
// refused rather than guessed.
void StorePacked(const Args& a, const XNode& call, const VReg& r, const MaskReg& m, std::string_view dist, bool post) {
  Interp& in = a.in();
  const int es = r.ElemBytes();
  const bool first = dist == "FIRST_ELEMENT";
  const int part = first ? es : dist == "PACK" ? es / 2 : 1;  // bytes stored per lane
  if (!first && (dist == "PACK" ? es != 2 && es != 4 : es != 4))
    a.Fail(absl::StrFormat("dist=%s stores %s of each lane; it is defined for %s registers, not %s", std::string(dist),
                           dist == "PACK" ? "the low half" : "the low 8 bits",
                           dist == "PACK" ? "16- and 32-bit" : "32-bit", std::string(DTypeName(r.dtype))));
  int count = 1;  // lanes stored
  if (!first) {
    CheckMask(a, m, r.dtype, "a register of");
    count = 0;
    while (count < r.Lanes() && m.bit[count * es]) ++count;
    for (int i = count; i < r.Lanes(); ++i)
      if (m.bit[i * es])
        in.Fail(hazard::kUnsupported, call.line,
                absl::StrFormat("vf.store_align dist=%s under a mask whose active lanes are not lanes 0..k-1 (lane %d "
                                "is active after inactive lane %d): store_align.md does not say where the parts of "
                                "such a mask go",
                                std::string(dist), i, count));
  }
  Interp::VfCursor* cur = nullptr;
  const RegAddr ra = StoreDestination(a, call, post, cur);
  const int64_t len = static_cast<int64_t>(count) * part;
  const uint64_t byte = CheckedAddress(a, ra, r.dtype, "vf.store_align", first ? es : 32, std::max<int64_t>(len, 1));
  Tile& t = *ra.tile;
  in.MarkUsed(t);
  if (len > 0) {
    PipeRegisterAccess(in, t, byte, byte + static_cast<uint64_t>(len), true, "vf.store_align");
    if (byte + static_cast<uint64_t>(len) > t.addr + t.size)
      in.sink.Report(hazard::kRegisterRange, call.line,
                     absl::StrFormat("vf.store_align dist=%s writes bytes [0x%x, 0x%x), past the end of tile '%s' "
                                     "[0x%x, 0x%x)",
                                     std::string(dist), byte, byte + static_cast<uint64_t>(len), t.name, t.addr,
                                     t.addr + t.size));
  }
  SpaceBuffer& buf = in.Mem().Get(MemSpace::kVec);
  buf.Touch(byte, byte + static_cast<uint64_t>(len));
  bool undef = false;
  for (int i = 0; i < count; ++i) {
    const uint64_t at = byte + static_cast<uint64_t>(i) * part;
    std::memcpy(buf.bytes.data() + at, r.raw.data() + i * es, part);  // little-endian: the low bytes first
    const bool u = r.LaneUndef(i);
    undef |= u;
    std::memset(buf.written.data() + at, u ? 0 : 1, part);
  }
  StampOrigin(buf, byte, static_cast<uint64_t>(len), part, 0, call.line, static_cast<int16_t>(count));
  if (undef)
    in.sink.Report(hazard::kUninitUse, call.line,
                   "vf.store_align dist=" + std::string(dist) +
                       " stores lanes computed from on-chip bytes never written in this run (the stored bytes "
                       "stay undefined)");
  if (cur) AdvancePostUpdate(a, *cur, t);
}

// The contiguous store (dist NORM) of `r` under `m` at `ra`, after the mask check: the address
// and tile-range checks, the pipe model's V access of the active lanes' span, the bytes and
// their written flags; a post-update store (`cur` set) then advances its cursor.
void StoreContiguous(const Args& a, const XNode& call, const VReg& r, const MaskReg& m, const RegAddr& ra,
                     Interp::VfCursor* cur) {
  Interp& in = a.in();
  const uint64_t byte = CheckedAddress(a, ra, r.dtype, "vf.store_align");
  Tile& t = *ra.tile;
  in.MarkUsed(t);
  // Active lanes must stay inside the tile.
  const int es = r.ElemBytes();
  int first = -1, last = -1;
  for (int i = 0; i < r.Lanes() && first < 0; ++i)
    if (m.bit[i * es]) first = i;
  for (int i = r.Lanes() - 1; i >= first && first >= 0 && last < 0; --i)
    if (m.bit[i * es]) last = i;
  // The pipe model sees the bytes of the active lanes (the span from the first to the last).
  if (first >= 0)
    PipeRegisterAccess(in, t, byte + static_cast<uint64_t>(first) * es, byte + static_cast<uint64_t>(last + 1) * es,
                       true, "vf.store_align");
  if (last >= 0 && byte + static_cast<uint64_t>(last + 1) * es > t.addr + t.size) {
    in.sink.Report(hazard::kRegisterRange, call.line,
                   absl::StrFormat("vf.store_align writes active lane %d at byte 0x%x, past the end of tile '%s' [0x%x, 0x%x)",
                                   last, byte + static_cast<uint64_t>(last) * es, t.name, t.addr, t.addr + t.size));
  }
  CheckStoreDtype(in, call, r, t);
  SpaceBuffer& buf = in.Mem().Get(MemSpace::kVec);
  if (!buf.origin.empty()) {
    int16_t active = 0;
    for (int i = 0; i < r.Lanes(); ++i) active += m.bit[i * es] ? 1 : 0;
    for (int i = 0; i < r.Lanes(); ++i)
      if (m.bit[i * es] && byte + static_cast<uint64_t>(i + 1) * es <= buf.origin.size())
        std::fill_n(buf.origin.begin() + byte + i * es, es,
                    WriteOrigin{call.line, static_cast<int16_t>(i), active});
  }
  buf.Touch(byte, byte + static_cast<uint64_t>(r.Lanes()) * es);
  if (vf::StoreBytes(r, m, buf.bytes.data() + byte, buf.written.data() + byte)) {
    in.sink.Report(hazard::kUninitUse, call.line,
                   "vf.store_align stores active lanes computed from on-chip bytes never written in this run "
                   "(e.g. padding columns of a tile the mask does not exclude); the stored bytes stay undefined");
  }
  if (cur) AdvancePostUpdate(a, *cur, t);
}

Value StoreAlignFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "vf.store_align");
  RequireVf(a);
  const VReg& r = a.Reg(1, "src");
  const MaskReg& m = a.Mask(2, "preg");
  const std::string_view dist = a.EnumName(99, "dist");
  const bool packed = dist == "PACK" || dist == "PACK4" || dist == "FIRST_ELEMENT";
  if (!dist.empty() && dist != "NORM" && !packed)
    in.Fail(hazard::kUnsupported, call.line, "vf.store_align dist=" + std::string(dist) + " is not simulated");
  const std::string_view mode = a.EnumName(99, "data_copy_mode");
  const bool block_mode = mode == "DATA_BLOCK_COPY";
  if (!mode.empty() && mode != "NORM" && !block_mode)
    in.Fail(hazard::kUnsupported, call.line, "vf.store_align data_copy_mode=" + std::string(mode) + " is not simulated");
  if (block_mode && !dist.empty() && dist != "NORM")
    a.Fail("dist=" + std::string(dist) + " with data_copy_mode=DATA_BLOCK_COPY (store_align.md: dist applies to contiguous stores)");
  const Value* pu = a.Get(99, "post_update");
  const bool post = pu && in.Truthy(*pu);
  if (block_mode) {
    // Positional 4th/5th arguments are block_stride and repeat_stride in this mode.
    const Value* bs = a.Get(3, "block_stride");
    const Value* rs = a.Get(4, "repeat_stride");
    const int64_t block_stride = bs && bs->kind != VK::kNone ? in.ToInt(*bs, call.line, "block_stride") : 0;
    const int64_t repeat_stride = rs && rs->kind != VK::kNone ? in.ToInt(*rs, call.line, "repeat_stride") : 0;
    std::shared_ptr<Tile> tile;
    uint64_t byte = 0;
    Interp::VfCursor* cur = nullptr;
    if (post) {
      cur = &PostUpdateCursor(a, call);
      tile = cur->tile;
      byte = tile->addr + static_cast<uint64_t>(cur->byte);
    } else {
      RegAddr ra = Resolve(a, a.Req(0, "tile"), nullptr);
      tile = ra.tile;
      byte = tile->addr + static_cast<uint64_t>(ra.elem) * tile->elem_size();
    }
    if (tile->type.space != MemSpace::kVec) a.Fail("vf.store_align needs a Vec (UB) tile");
    in.MarkUsed(*tile);
    CheckStoreDtype(in, call, r, *tile);
    StoreDataBlocks(a, call, r, m, *tile, byte, block_stride);
    if (cur) cur->byte += repeat_stride * 32;
    return Value::None();
  }
  if (packed) {
    StorePacked(a, call, r, m, dist, post);
    return Value::None();
  }
  CheckMask(a, m, r.dtype, "a register of");
  Interp::VfCursor* cur = nullptr;
  const RegAddr ra = StoreDestination(a, call, post, cur);
  StoreContiguous(a, call, r, m, ra, cur);
  return Value::None();
}

// vf.store_align(tile, src, preg) of a vector register, no keywords: the contiguous NORM store
// without post-update. Declines any other operand kinds (the general entry reports them).
bool StoreAlignBound(Interp& in, const XNode& call, const Value* const* ops, Value* out) {
  const Value& t = *ops[0];
  if ((t.kind != VK::kTile && t.kind != VK::kTileOffset) || ops[1]->kind != VK::kVReg ||
      ops[2]->kind != VK::kMask || !in.in_kernel)
    return false;
  PipeVfRegisterOpBegin(in, call);
  Args a(in, call, kNoPositionals, call.bound_kwargs, "vf.store_align");
  const VReg& r = ops[1]->As<VReg>();
  const MaskReg& m = ops[2]->As<MaskReg>();
  CheckMask(a, m, r.dtype, "a register of");
  StoreContiguous(a, call, r, m, Resolve(a, t, nullptr), nullptr);
  *out = Value::None();
  return true;
}

// de_interleave / interleave of two registers or two masks; returns the pair (dst0, dst1).
template <bool DE>
Value ShuffleOn(const Args& a, const XNode& call, const Value& x, const Value& y) {
  Interp& in = a.in();
  if (x.kind == VK::kMask && y.kind == VK::kMask) {
    const MaskReg& m0 = x.As<MaskReg>();
    const MaskReg& m1 = y.As<MaskReg>();
    if (m0.width != m1.width)
      in.sink.Report(hazard::kMaskDtype, call.line,
                     absl::StrFormat("%s of masks built for %d- and %d-byte elements", a.fname(), m0.width, m1.width));
    auto [d0, d1] = DE ? vf::DeInterleave(m0, m1) : vf::Interleave(m0, m1);
    ++in.stats.vf_ops;
    return Value::TupleV({MakeMask(d0), MakeMask(d1)});
  }
  const VReg& r0 = x.kind == VK::kVReg ? x.As<VReg>() : a.Reg(0, "src0");
  const VReg& r1 = y.kind == VK::kVReg ? y.As<VReg>() : a.Reg(1, "src1");
  CheckRegDtype(a, call, r0.dtype);
  if (r0.dtype != r1.dtype)
    in.sink.Report(hazard::kTypeMismatch, call.line,
                   absl::StrFormat("%s sources are %s and %s", a.fname(), std::string(DTypeName(r0.dtype)),
                                   std::string(DTypeName(r1.dtype))));
  if (r0.ElemBytes() == 8)
    in.Fail(hazard::kUnsupported, call.line, std::string(a.fname()) + " of 64-bit registers is not simulated");
  auto [d0, d1] = DE ? vf::DeInterleave(r0, r1) : vf::Interleave(r0, r1);
  Count(in, r0);
  Count(in, r1);
  return Value::TupleV({MakeReg(d0), MakeReg(d1)});
}

template <bool DE>
Value ShuffleFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, DE ? "vf.de_interleave" : "vf.interleave");
  RequireVf(a);
  const Value& x = a.Req(0, "src0");
  const Value& y = a.Req(1, "src1");
  return ShuffleOn<DE>(a, call, x, y);
}

template <bool DE>
bool ShuffleBound(Interp& in, const XNode& call, const Value* const* ops, Value* out) {
  if (!OperandKinds(ops, {VK::kVReg, VK::kVReg}) && !OperandKinds(ops, {VK::kMask, VK::kMask})) return false;
  Args a(in, call, kNoPositionals, call.bound_kwargs, DE ? "vf.de_interleave" : "vf.interleave");
  RequireVf(a);
  *out = ShuffleOn<DE>(a, call, *ops[0], *ops[1]);
  return true;
}

// The entries of an op share everything after their operands: the general one (BuiltinFn)
// reads them from its arguments, the bound one (BoundFn, RegisterVfBoundBuiltins) takes the
// ones of the kinds it needs in place. Both start with RequireVf; keywords go through `a`.
template <vf::BinOp OP>
void BinaryOn(const Args& a, const XNode& call, const VReg& x, const Value& yv, const MaskReg& m, Value& out) {
  Interp& in = a.in();
  CheckMask(a, m, x.dtype, "an operation on");
  MergeMode mode = ModeArg(a);
  CheckRegDtype(a, call, x.dtype);
  if (yv.IsNumber()) {
    VReg r = vf::BinaryScalar(OP, x, in.ToDouble(yv, call.line, "scalar"), m);
    return PutCounted(in, r, out);
  }
  const VReg& y = yv.kind == VK::kVReg ? yv.As<VReg>() : a.Reg(1, "src1");
  if (y.dtype != x.dtype)
    in.sink.Report(hazard::kTypeMismatch, call.line,
                   absl::StrFormat("vf operands are %s and %s", std::string(DTypeName(x.dtype)), std::string(DTypeName(y.dtype))));
  const VReg* merge = nullptr;
  VReg r = vf::Binary(OP, x, y, m, mode, merge);
  PutCounted(in, r, out);
}

template <vf::BinOp OP>
Value VfBinary(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "vf binary op");
  RequireVf(a);
  const VReg& x = a.Reg(0, "src0");
  const Value& yv = a.Req(1, "src1");
  const MaskReg& m = a.Mask(2, "preg");
  Value out;
  BinaryOn<OP>(a, call, x, yv, m, out);
  return out;
}

template <vf::BinOp OP>
bool VfBinaryBound(Interp& in, const XNode& call, const Value* const* ops, Value* out) {
  if (!OperandKinds(ops, {VK::kVReg, VK::kVReg, VK::kMask})) return false;
  Args a(in, call, kNoPositionals, call.bound_kwargs, "vf binary op");
  RequireVf(a);
  BinaryOn<OP>(a, call, ops[0]->As<VReg>(), *ops[1], ops[2]->As<MaskReg>(), *out);
  return true;
}

template <vf::BinOp OP>
void ScalarOn(const Args& a, const XNode& call, const VReg& x, double s, const MaskReg& m, Value& out) {
  CheckMask(a, m, x.dtype, "an operation on");
  CheckRegDtype(a, call, x.dtype);
  VReg r = vf::BinaryScalar(OP, x, s, m);
  Count(a.in(), r);
  PutReg(out, r);
}

template <vf::BinOp OP>
Value VfScalar(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "vf scalar op");
  RequireVf(a);
  const VReg& x = a.Reg(0, "src");
  double s = a.Num(1, "scalar");
  const MaskReg& m = a.Mask(2, "preg");
  Value out;
  ScalarOn<OP>(a, call, x, s, m, out);
  return out;
}

// The scalar operand as Args::Num reads an int, bool or float.
template <vf::BinOp OP>
bool VfScalarBound(Interp& in, const XNode& call, const Value* const* ops, Value* out) {
  const Value& s = *ops[1];
  if (ops[0]->kind != VK::kVReg || ops[2]->kind != VK::kMask || !s.IsNumber()) return false;
  Args a(in, call, kNoPositionals, call.bound_kwargs, "vf scalar op");
  RequireVf(a);
  ScalarOn<OP>(a, call, ops[0]->As<VReg>(), s.kind == VK::kFloat ? s.f : static_cast<double>(s.i),
               ops[2]->As<MaskReg>(), *out);
  return true;
}

template <vf::UnOp OP>
void UnaryOn(const Args& a, const XNode& call, const VReg& x, const MaskReg& m, Value& out) {
  CheckMask(a, m, x.dtype, "an operation on");
  CheckRegDtype(a, call, x.dtype);
  VReg r = vf::Unary(OP, x, m, ModeArg(a));
  Count(a.in(), r);
  PutReg(out, r);
}

void ExpSubOn(const Args& a, const XNode& call, const VReg& x, const VReg& y, const MaskReg& m, Value& out) {
  Interp& in = a.in();
  CheckMask(a, m, x.dtype, "a source of");
  CheckRegDtype(a, call, x.dtype);
  CheckRegDtype(a, call, y.dtype);
  if (x.dtype != y.dtype)
    in.sink.Report(hazard::kTypeMismatch, call.line,
                   absl::StrFormat("vf.exp_sub sources are %s and %s", std::string(DTypeName(x.dtype)), std::string(DTypeName(y.dtype))));
  const BoundKeys* keys = DecodedKeys(call);
  const DType to = keys ? KeyDType(*keys, x.dtype) : a.DTypeArg(99, "dtype", x.dtype);
  VReg r = vf::ExpSub(x, y, m, to, keys ? KeyLayout(*keys) : LayoutArg(a));
  PutCounted(in, r, out);
}

Value ExpSubFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "vf.exp_sub");
  RequireVf(a);
  const VReg& x = a.Reg(0, "src0");
  const VReg& y = a.Reg(1, "src1");
  const MaskReg& m = a.Mask(2, "preg");
  Value out;
  ExpSubOn(a, call, x, y, m, out);
  return out;
}

bool ExpSubBound(Interp& in, const XNode& call, const Value* const* ops, Value* out) {
  if (!OperandKinds(ops, {VK::kVReg, VK::kVReg, VK::kMask})) return false;
  Args a(in, call, kNoPositionals, call.bound_kwargs, "vf.exp_sub");
  RequireVf(a);
  ExpSubOn(a, call, ops[0]->As<VReg>(), ops[1]->As<VReg>(), ops[2]->As<MaskReg>(), *out);
  return true;
}

template <vf::ReduceOp OP>
void ReduceOn(const Args& a, const XNode& call, const VReg& x, const MaskReg& m, Value& out) {
  Interp& in = a.in();
  CheckMask(a, m, x.dtype, "a reduction over");
  CheckRegDtype(a, call, x.dtype);
  if (const Value* d = a.Get(2, "datablock"); d && in.Truthy(*d))
    in.Fail(hazard::kUnsupported, call.line, "datablock reductions are not simulated");
  VReg r = vf::Reduce(OP, x, m);
  if (r.any_undef)
    in.sink.Report(hazard::kUninitUse, call.line,
                   std::string(a.fname()) + " combines active lanes loaded from on-chip bytes never written in "
                   "this run (the mask admits padding or stale lanes); its result is undefined");
  Count(in, x);
  PutReg(out, r);
}

// The body of vf.full after its operands: a lane of the register `src` (tensor mode) or the
// scalar `src`, broadcast under `m` (null: every lane) into `out` (PutReg).
void FullOn(const Args& a, const XNode& call, const Value& src, const MaskReg* m, Value& out) {
  Interp& in = a.in();
  MergeMode mode = ModeArg(a);
  if (src.kind == VK::kVReg) {
    if (!m) a.Fail("tensor mode (broadcast of a register lane) needs a mask");
    const VReg& r = src.As<VReg>();
    CheckMask(a, *m, r.dtype, "a broadcast of");
    CheckRegDtype(a, call, r.dtype);
    VReg lane = vf::FullLane(r, *m, a.EnumName(99, "pos") == "HIGHEST", mode, nullptr);
    PutCounted(in, lane, out);
    return;
  }
  const Value* dv = a.Get(2, "dtype");
  // full.md makes dtype= mandatory in scalar mode; the frontend's parser of `reg = vf.full(x)`
  // infers it from the source's IR type instead, and a Python float constant is
  // DataType.DEFAULT_CONST_FLOAT (FP32), so `vf.full(-1e9)` (the fa/ VF samples) is an FP32
  // register. An integer constant is DataType.INDEX there, not a register dtype: refused.
  DType d = DType::kFloat32;
  if (dv && dv->kind == VK::kDType) d = dv->dtype();
  else if (src.kind != VK::kFloat)
    a.Fail("scalar mode needs dtype= (only a float constant defaults to DT_FP32, the frontend's DEFAULT_CONST_FLOAT)");
  if (m) CheckMask(a, *m, d, "a broadcast to");
  CheckRegDtype(a, call, d);
  VReg full = vf::FullScalar(in.ToDouble(src, call.line, "scalar"), d, m, mode, nullptr);
  PutCounted(in, full, out);
}

Value FullFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "vf.full");
  RequireVf(a);
  const Value& src = a.Req(0, "src");
  const Value* pv = a.Get(1, "preg");
  Value out;
  FullOn(a, call, src, (pv && pv->kind == VK::kMask) ? &pv->As<MaskReg>() : nullptr, out);
  return out;
}

// vf.full(src, preg) with a mask register: declines another second operand.
bool FullBound(Interp& in, const XNode& call, const Value* const* ops, Value* out) {
  if (ops[1]->kind != VK::kMask || !in.in_kernel) return false;
  Args a(in, call, kNoPositionals, call.bound_kwargs, "vf.full");
  FullOn(a, call, *ops[0], &ops[1]->As<MaskReg>(), *out);
  return true;
}

// arange.md: dst[i] = start + i (INCREASE_ORDER, the default) or start - i (DECREASE_ORDER)
// over every lane; dtype= is required. Integer lanes keep the low bits of the value (two's
// complement), float lanes the value rounded to the dtype.
Value ArangeFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "vf.arange");
  RequireVf(a);
  const int64_t start = a.Int(0, "start");
  const std::string_view order = a.EnumName(1, "index_order");
  if (!order.empty() && order != "INCREASE_ORDER" && order != "DECREASE_ORDER")
    a.Fail("unknown index_order IndexOrder." + std::string(order));
  const Value* dv = a.Get(2, "dtype");
  if (!dv || dv->kind != VK::kDType) a.Fail("dtype= is required: a scalar start gives no register dtype (arange.md)");
  const DType d = dv->dtype();
  CheckRegDtype(a, call, d);
  VReg r;
  r.dtype = d;
  const int64_t step = order == "DECREASE_ORDER" ? -1 : 1;
  const int es = r.ElemBytes();
  for (int lane = 0; lane < r.Lanes(); ++lane) {
    const int64_t v = start + step * lane;
    if (IsFloating(d)) {
      r.Set(lane, static_cast<double>(v));
    } else {
      const uint64_t bits = static_cast<uint64_t>(v);
      std::memcpy(r.raw.data() + static_cast<size_t>(lane) * es, &bits, static_cast<size_t>(es));
    }
  }
  Count(in, r);
  return MakeReg(std::move(r));
}

Value SelectFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "vf.select");
  RequireVf(a);
  const VReg& x = a.Reg(0, "src0");
  const VReg& y = a.Reg(1, "src1");
  const MaskReg& m = a.Mask(2, "preg");
  CheckMask(a, m, x.dtype, "a selection of");
  CheckRegDtype(a, call, x.dtype);
  VReg r = vf::Select(x, y, m);
  Count(in, r);
  return MakeReg(std::move(r));
}

template <vf::CmpOp OP>
Value CompareFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "vf comparison");
  RequireVf(a);
  const VReg& x = a.Reg(0, "a");
  const Value& yv = a.Req(1, "b");
  const MaskReg& m = a.Mask(2, "preg");
  CheckMask(a, m, x.dtype, "a comparison of");
  CheckRegDtype(a, call, x.dtype);
  ++in.stats.vf_ops;
  in.stats.lane_ops += x.Lanes();
  const VReg* y = yv.IsNumber() ? nullptr : &a.Reg(1, "b");
  // A mask register has no undefined state: a comparison of undefined active lanes gives a
  // mask the simulator takes as defined, so it says where that happened.
  if (ActiveUndef(x, m) || (y && ActiveUndef(*y, m)))
    in.sink.Report(hazard::kUninitUse, call.line,
                   std::string(a.fname()) + " compares active lanes computed from on-chip bytes never written in "
                   "this run; the mask it gives is taken as defined (a mask register has no undefined state)");
  if (!y) return MakeMask(vf::CompareScalar(OP, x, in.ToDouble(yv, call.line, "scalar"), m));
  return MakeMask(vf::Compare(OP, x, *y, m));
}

void AsTypeOn(const Args& a, const XNode& call, const VReg& x, const MaskReg& m, Value& out) {
  Interp& in = a.in();
  // Decoded keywords, else read through Args (a decoded round mode, if given, is CAST_RINT).
  const BoundKeys* keys = DecodedKeys(call);
  const Value* dv = keys ? nullptr : a.Get(2, "dtype");
  if (keys ? (*keys)[kKeyDtype] < 0 : !dv || dv->kind != VK::kDType) a.Fail("dtype= is required");
  const DType to = keys ? KeyDType(*keys, x.dtype) : dv->dtype();
  CheckMask(a, m, x.dtype, "the source of");
  const std::string rm = keys ? std::string() : a.EnumArg(99, "round_mode");
  if (!rm.empty() && rm != "CAST_RINT" && IsFloating(x.dtype) && !IsFloating(to))
    in.Fail(hazard::kUnsupported, call.line, "vf.astype round_mode=" + rm + " to an integer type is not simulated");
  VReg r = vf::AsType(x, m, to, keys ? KeyLayout(*keys) : LayoutArg(a));
  PutCounted(in, r, out);
}

// The alignment tracker of an unaligned store chain (store_unalign.md): the bytes of the last
// partial 32-byte block a store_unalign left behind, not yet in UB.
struct UnalignReg {
  bool pending = false;
  uint64_t addr = 0;              // UB byte address of `bytes`
  std::vector<uint8_t> bytes;     // [addr, addr + size): the held tail
  std::vector<uint8_t> written;   // their definedness
};

Value UnalignRegForStoreFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "vf.unalign_reg_for_store");
  RequireVf(a);
  return Value::Obj(VK::kUnalignReg, std::make_shared<UnalignReg>());
}

UnalignReg& UnalignArg(const Args& a, size_t i) {
  const Value& v = a.Req(i, "align_reg");
  if (v.kind != VK::kUnalignReg) a.Fail("align_reg must come from vf.unalign_reg_for_store(), got " + KindName(v.kind));
  return v.As<UnalignReg>();
}

// Writes the held tail into UB.
void FlushUnalign(Interp& in, UnalignReg& u, int line) {
  if (!u.pending) return;
  SpaceBuffer& buf = in.Mem().Get(MemSpace::kVec);
  buf.Touch(u.addr, u.addr + u.bytes.size());
  std::memcpy(buf.bytes.data() + u.addr, u.bytes.data(), u.bytes.size());
  std::memcpy(buf.written.data() + u.addr, u.written.data(), u.written.size());
  StampOrigin(buf, u.addr, u.bytes.size(), 1, 0, line, 0);
  u.pending = false;
}

// The destination of a store_unalign / store_unalign_post (post_update: the VF call's cursor
// for it, advanced by `stride` elements after the call).
uint64_t UnalignDest(const Args& a, const XNode& call, bool post, Interp::VfCursor** cur) {
  if (post) {
    *cur = &PostUpdateCursor(a, call);
    return (*cur)->tile->addr + static_cast<uint64_t>((*cur)->byte);
  }
  RegAddr ra = Resolve(a, a.Req(0, "tile"), nullptr);
  return ra.tile->addr + static_cast<uint64_t>(ra.elem) * ra.tile->elem_size();
}

// vf.store_unalign(tile, src, align_reg, stride, post_update) (store_unalign.md): the first
// `stride` elements of src go to the destination, which continues the chain where the tracker's
// held bytes end. The held bytes and the new ones are written up to the last 32-byte boundary
// they reach (UB takes whole DataBlocks); the bytes after it stay in the tracker until a later
// store_unalign or store_unalign_post.
Value StoreUnalignFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "vf.store_unalign");
  RequireVf(a);
  const Value& src = a.Req(1, "src");
  if (src.kind == VK::kMask) in.Fail(hazard::kUnsupported, call.line, "vf.store_unalign of a mask register is not simulated");
  const VReg& r = a.Reg(1, "src");
  UnalignReg& u = UnalignArg(a, 2);
  const Value* pu = a.Get(99, "post_update");
  const bool post = pu && in.Truthy(*pu);
  const Value* st = a.Get(3, "stride");
  if (!st || st->kind == VK::kNone)
    in.Fail(hazard::kUnsupported, call.line,
            "vf.store_unalign without stride (the 3-argument form may hang the device, store_unalign.md) is not "
            "simulated");
  const int64_t n = in.ToInt(*st, call.line, "stride");
  const int es = r.ElemBytes();
  if (n < 0 || n > r.Lanes()) a.Fail(absl::StrFormat("stride %d is outside [0, %d] elements of the register", n, r.Lanes()));
  Interp::VfCursor* cur = nullptr;
  const uint64_t dst = UnalignDest(a, call, post, &cur);
  const std::shared_ptr<Tile> tile = cur ? cur->tile : Resolve(a, a.Req(0, "tile"), nullptr).tile;
  if (tile->type.space != MemSpace::kVec) a.Fail("vf.store_unalign needs a Vec (UB) tile");
  in.MarkUsed(*tile);
  CheckStoreDtype(in, call, r, *tile);
  const uint64_t len = static_cast<uint64_t>(n) * es, end = dst + len;
  SpaceBuffer& buf = in.Mem().Get(MemSpace::kVec);
  if (end > buf.capacity) in.Fail(hazard::kRegisterRange, call.line, absl::StrFormat("vf.store_unalign reaches byte 0x%x, outside UB", end));
  if (len > 0 && (dst < tile->addr || end > tile->addr + tile->size))
    in.sink.Report(hazard::kRegisterRange, call.line,
                   absl::StrFormat("vf.store_unalign writes [0x%x, 0x%x), outside tile '%s' [0x%x, 0x%x)", dst, end,
                                   tile->name, tile->addr, tile->addr + tile->size));
  if (u.pending && u.addr + u.bytes.size() != dst)
    in.Fail(hazard::kUnsupported, call.line,
            absl::StrFormat("vf.store_unalign at 0x%x while the tracker holds bytes ending at 0x%x: a chain that "
                            "does not continue where it stopped is not simulated",
                            dst, u.addr + u.bytes.size()));
  // The run the tracker holds followed by this store's bytes: whole 32-byte blocks reached go
  // to UB now, the bytes after the last boundary stay held.
  std::vector<uint8_t> run = u.pending ? u.bytes : std::vector<uint8_t>{};
  std::vector<uint8_t> ok = u.pending ? u.written : std::vector<uint8_t>{};
  const uint64_t start = u.pending ? u.addr : dst;
  bool undef = false;
  for (uint64_t b = 0; b < len; ++b) {
    const int lane = static_cast<int>(b / es);
    run.push_back(r.raw[b]);
    ok.push_back(r.LaneUndef(lane) ? 0 : 1);
    undef |= r.LaneUndef(lane);
  }
  const uint64_t cut = std::max(start, end / 32 * 32);
  PipeRegisterAccess(in, *tile, start, cut, true, "vf.store_unalign");
  buf.Touch(start, cut);
  std::memcpy(buf.bytes.data() + start, run.data(), cut - start);
  std::memcpy(buf.written.data() + start, ok.data(), cut - start);
  StampOrigin(buf, start, cut - start, es, 0, call.line, static_cast<int16_t>(n));
  u.pending = cut < end;
  u.addr = cut;
  u.bytes.assign(run.begin() + static_cast<std::ptrdiff_t>(cut - start), run.end());
  u.written.assign(ok.begin() + static_cast<std::ptrdiff_t>(cut - start), ok.end());
  if (undef)
    in.sink.Report(hazard::kUninitUse, call.line,
                   "vf.store_unalign stores lanes computed from on-chip bytes never written in this run (the "
                   "stored bytes stay undefined)");
  if (cur) cur->byte += n * static_cast<int64_t>(tile->elem_size());
  return Value::None();
}

// vf.store_unalign_post(tile, align_reg, stride, post_update) (store_unalign_post.md): writes
// the tail the tracker holds; with post_update the destination cursor advances by `stride`.
Value StoreUnalignPostFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "vf.store_unalign_post");
  RequireVf(a);
  UnalignReg& u = UnalignArg(a, 1);
  const Value* pu = a.Get(99, "post_update");
  const bool post = pu && in.Truthy(*pu);
  const Value* st = a.Get(2, "stride");
  if (!st || st->kind == VK::kNone)
    in.Fail(hazard::kUnsupported, call.line,
            "vf.store_unalign_post without stride (the 2-argument form may hang the device, "
            "store_unalign_post.md) is not simulated");
  const int64_t n = in.ToInt(*st, call.line, "stride");
  Interp::VfCursor* cur = nullptr;
  const uint64_t dst = UnalignDest(a, call, post, &cur);
  if (u.pending && u.addr + u.bytes.size() != dst)
    in.Fail(hazard::kUnsupported, call.line,
            absl::StrFormat("vf.store_unalign_post at 0x%x while the tracker holds bytes ending at 0x%x is not "
                            "simulated",
                            dst, u.addr + u.bytes.size()));
  if (u.pending) {
    const std::shared_ptr<Tile> tile = cur ? cur->tile : Resolve(a, a.Req(0, "tile"), nullptr).tile;
    PipeRegisterAccess(in, *tile, u.addr, u.addr + u.bytes.size(), true, "vf.store_unalign_post");
  }
  FlushUnalign(in, u, call.line);
  if (cur) cur->byte += n * static_cast<int64_t>(cur->tile->elem_size());
  return Value::None();
}

// and_ / or_ / xor of two registers or masks, not_ of one, under a predicate (ZEROING).
template <vf::BitOp OP>
Value BitwiseFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  constexpr bool kUnary = OP == vf::BitOp::kNot;
  Args a(in, call, pos, kw,
         OP == vf::BitOp::kAnd ? "vf.and_" : OP == vf::BitOp::kOr ? "vf.or_" : OP == vf::BitOp::kXor ? "vf.xor" : "vf.not_");
  RequireVf(a);
  const Value& x = a.Req(0, "src0");
  const MaskReg& m = a.Mask(kUnary ? 1 : 2, "preg");
  ModeArg(a);
  ++in.stats.vf_ops;
  if (x.kind == VK::kMask) {
    const MaskReg* y = kUnary ? nullptr : &a.Mask(1, "src1");
    return MakeMask(vf::Bitwise(OP, x.As<MaskReg>(), y, m));
  }
  const VReg& r0 = a.Reg(0, "src0");
  CheckMask(a, m, r0.dtype, "an operation on");
  CheckRegDtype(a, call, r0.dtype);
  const VReg* r1 = nullptr;
  if (!kUnary) {
    r1 = &a.Reg(1, "src1");
    if (r1->dtype != r0.dtype)
      in.sink.Report(hazard::kTypeMismatch, call.line,
                     absl::StrFormat("%s operands are %s and %s", a.fname(), std::string(DTypeName(r0.dtype)),
                                     std::string(DTypeName(r1->dtype))));
  }
  in.stats.lane_ops += r0.Lanes();
  return MakeReg(vf::Bitwise(OP, r0, r1, m));
}

Value MemBar(Interp&, const XNode&, BArgs&, Kwargs&) { return Value::None(); }

}  // namespace

void RegisterVfBuiltins(BuiltinTable& t) {
  t["vf.create_mask"] = CreateMaskFn;
  t["vf.update_mask"] = UpdateMaskFn;
  t["vf.load_align"] = LoadAlignFn;
  t["vf.store_align"] = StoreAlignFn;
  t["vf.and_"] = BitwiseFn<vf::BitOp::kAnd>;
  t["vf.or_"] = BitwiseFn<vf::BitOp::kOr>;
  t["vf.xor"] = BitwiseFn<vf::BitOp::kXor>;
  t["vf.not_"] = BitwiseFn<vf::BitOp::kNot>;
  t["vf.unalign_reg_for_store"] = UnalignRegForStoreFn;
  t["vf.store_unalign"] = StoreUnalignFn;
  t["vf.store_unalign_post"] = StoreUnalignPostFn;
  t["vf.de_interleave"] = ShuffleFn<true>;
  t["vf.interleave"] = ShuffleFn<false>;
  t["vf.add"] = VfBinary<vf::BinOp::kAdd>;
  t["vf.sub"] = VfBinary<vf::BinOp::kSub>;
  t["vf.mul"] = VfBinary<vf::BinOp::kMul>;
  t["vf.div"] = VfBinary<vf::BinOp::kDiv>;
  t["vf.max"] = VfBinary<vf::BinOp::kMax>;
  t["vf.min"] = VfBinary<vf::BinOp::kMin>;
  t["vf.adds"] = VfScalar<vf::BinOp::kAdd>;
  t["vf.muls"] = VfScalar<vf::BinOp::kMul>;
  t["vf.maxs"] = VfScalar<vf::BinOp::kMax>;
  t["vf.mins"] = VfScalar<vf::BinOp::kMin>;
  t["vf.exp"] = RegMaskFn<UnaryOn<vf::UnOp::kExp>, kUnaryOp>;
  t["vf.ln"] = RegMaskFn<UnaryOn<vf::UnOp::kLn>, kUnaryOp>;
  t["vf.log"] = RegMaskFn<UnaryOn<vf::UnOp::kLn>, kUnaryOp>;
  t["vf.sqrt"] = RegMaskFn<UnaryOn<vf::UnOp::kSqrt>, kUnaryOp>;
  t["vf.abs"] = RegMaskFn<UnaryOn<vf::UnOp::kAbs>, kUnaryOp>;
  t["vf.neg"] = RegMaskFn<UnaryOn<vf::UnOp::kNeg>, kUnaryOp>;
  t["vf.relu"] = RegMaskFn<UnaryOn<vf::UnOp::kRelu>, kUnaryOp>;
  t["vf.exp_sub"] = ExpSubFn;
  t["vf.reduce_sum"] = RegMaskFn<ReduceOn<vf::ReduceOp::kSum>, kReduceSum>;
  t["vf.reduce_max"] = RegMaskFn<ReduceOn<vf::ReduceOp::kMax>, kReduceMax>;
  t["vf.reduce_min"] = RegMaskFn<ReduceOn<vf::ReduceOp::kMin>, kReduceMin>;
  t["vf.full"] = FullFn;
  t["vf.arange"] = ArangeFn;
  t["vf.select"] = SelectFn;
  t["vf.eq"] = CompareFn<vf::CmpOp::kEq>;
  t["vf.ne"] = CompareFn<vf::CmpOp::kNe>;
  t["vf.lt"] = CompareFn<vf::CmpOp::kLt>;
  t["vf.le"] = CompareFn<vf::CmpOp::kLe>;
  t["vf.gt"] = CompareFn<vf::CmpOp::kGt>;
  t["vf.ge"] = CompareFn<vf::CmpOp::kGe>;
  t["vf.astype"] = RegMaskFn<AsTypeOn, kAsType>;
  t["vf.mem_bar"] = MemBar;
}

void RegisterVfBoundBuiltins(BoundTable& t) {
  auto binary = [&](const char* name, BoundFn fn) { t[name] = BoundBuiltin{fn, 3, {"mode"}}; };
  binary("vf.add", VfBinaryBound<vf::BinOp::kAdd>);
  binary("vf.sub", VfBinaryBound<vf::BinOp::kSub>);
  binary("vf.mul", VfBinaryBound<vf::BinOp::kMul>);
  binary("vf.div", VfBinaryBound<vf::BinOp::kDiv>);
  binary("vf.max", VfBinaryBound<vf::BinOp::kMax>);
  binary("vf.min", VfBinaryBound<vf::BinOp::kMin>);
  auto scalar = [&](const char* name, BoundFn fn) { t[name] = BoundBuiltin{fn, 3, {}}; };
  scalar("vf.adds", VfScalarBound<vf::BinOp::kAdd>);
  scalar("vf.muls", VfScalarBound<vf::BinOp::kMul>);
  scalar("vf.maxs", VfScalarBound<vf::BinOp::kMax>);
  scalar("vf.mins", VfScalarBound<vf::BinOp::kMin>);
  auto unary = [&](const char* name, BoundFn fn) { t[name] = BoundBuiltin{fn, 2, {"mode"}}; };
  unary("vf.exp", RegMaskBound<UnaryOn<vf::UnOp::kExp>, kUnaryOp>);
  unary("vf.ln", RegMaskBound<UnaryOn<vf::UnOp::kLn>, kUnaryOp>);
  unary("vf.log", RegMaskBound<UnaryOn<vf::UnOp::kLn>, kUnaryOp>);
  unary("vf.sqrt", RegMaskBound<UnaryOn<vf::UnOp::kSqrt>, kUnaryOp>);
  unary("vf.abs", RegMaskBound<UnaryOn<vf::UnOp::kAbs>, kUnaryOp>);
  unary("vf.neg", RegMaskBound<UnaryOn<vf::UnOp::kNeg>, kUnaryOp>);
  unary("vf.relu", RegMaskBound<UnaryOn<vf::UnOp::kRelu>, kUnaryOp>);
  t["vf.exp_sub"] = BoundBuiltin{ExpSubBound, 3, {"dtype", "layout"}, DecodeCastKeys};
  t["vf.de_interleave"] = BoundBuiltin{ShuffleBound<true>, 2, {}};
  t["vf.interleave"] = BoundBuiltin{ShuffleBound<false>, 2, {}};
  t["vf.reduce_sum"] = BoundBuiltin{RegMaskBound<ReduceOn<vf::ReduceOp::kSum>, kReduceSum>, 2, {"datablock"}};
  t["vf.reduce_max"] = BoundBuiltin{RegMaskBound<ReduceOn<vf::ReduceOp::kMax>, kReduceMax>, 2, {"datablock"}};
  t["vf.reduce_min"] = BoundBuiltin{RegMaskBound<ReduceOn<vf::ReduceOp::kMin>, kReduceMin>, 2, {"datablock"}};
  t["vf.astype"] = BoundBuiltin{RegMaskBound<AsTypeOn, kAsType>, 2, {"dtype", "layout", "round_mode"}, DecodeCastKeys};
  t["vf.update_mask"] = BoundBuiltin{UpdateMaskBound, 1, {"dtype"}, DecodeCastKeys};
  t["vf.load_align"] = BoundBuiltin{LoadAlignBound, 2, {}};
  t["vf.store_align"] = BoundBuiltin{StoreAlignBound, 3, {}};
  t["vf.full"] = BoundBuiltin{FullBound, 2, {"dtype", "mode", "pos"}};
}

}  // namespace opdev::sim
