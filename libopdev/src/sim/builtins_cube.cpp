// Cube builtins: pl.move (Mat -> Left/Right/Bias with 2-D offset extract / insert and the
// FP16/BF16 -> FP32 bias conversion; Acc -> Vec of the AIC into its AIVs' UB by
// acc_to_vec_mode; Vec -> Vec layout conversion; Vec -> Mat of an AIV into its AIC's L1),
// pl.insert (Vec -> Mat), pl.matmul, pl.matmul_acc,
// pl.system.set_mm_layout_transform, the Acc side of pl.store (unit-flag phases, K-blocked
// accumulation rules) and the end-of-core Cube checks. The data paths, pipes and operand
// dtypes come from the API catalog (opdev/api/catalog.h); the byte-level work is in
// cube_ops.cpp. Every hazard cites the PyPTO-Pro document it encodes (docs/simulator.md).
#include "builtins.h"

#include "opdev/api/catalog.h"
#include "opdev/sim/cube_ops.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace opdev::sim {

namespace {

using BArgs = std::vector<Value>;

const api::Catalog& Cat() { return api::Catalog::Builtin(); }

std::string SpaceOf(const Tile& t) { return std::string(MemSpaceName(t.type.space)); }

// DESIGN spelling of a dtype as the catalog's operand_dtypes use it.
std::string DesignName(DType t) {
  switch (t) {
    case DType::kFloat16: return "FP16";
    case DType::kBFloat16: return "BF16";
    case DType::kFloat32: return "FP32";
    case DType::kInt8: return "INT8";
    case DType::kHiFloat8: return "HF8";
    case DType::kInt32: return "INT32";
    default: return std::string(DTypeName(t));
  }
}

void RequireAic(const Args& a) {
  if (!a.in().in_kernel) a.Fail("only valid inside a @pl.jit kernel");
  const CoreContext& c = *a.in().core;
  if (c.kind != CoreKind::kAic)
    a.in().Fail(hazard::kCoreSpace, a.line(),
                absl::StrCat(a.fname(), " is a Cube operation but runs on ", c.Name(),
                             ": Cube code belongs inside `with pl.section_cube():`"));
}

// The member of an enum argument, checking its class ("" when absent or None).
std::string EnumOf(const Args& a, size_t i, std::string_view name, std::string_view cls) {
  const Value* v = a.Get(i, name);
  if (!v || v->kind == VK::kNone) return "";
  if (v->kind != VK::kEnum || v->s.rfind(std::string(cls) + ".", 0) != 0)
    a.in().Fail(hazard::kRuntimeError, a.line(),
                absl::StrCat(a.fname(), ": '", std::string(name), "' must be a pl.", std::string(cls),
                             " member, got ", Repr(*v)));
  return v->s.substr(cls.size() + 1);
}

// Rejects keywords the function does not have (catalog parameters) and extra positionals.
void CheckSignature(const Args& a, const Kwargs& kw, std::string_view fname) {
  const api::Function* f = Cat().FindFunction(fname);
  if (!f) return;
  if (a.npos() > f->MaxPositional())
    a.in().Fail(hazard::kRuntimeError, a.line(),
                absl::StrFormat("%s takes at most %d positional arguments but %d were given",
                                std::string(fname), f->MaxPositional(), a.npos()));
  for (const auto& [k, v] : kw) {
    const api::Param* p = f->FindParam(k);
    if (!p)
      a.in().Fail(hazard::kRuntimeError, a.line(),
                  absl::StrCat(std::string(fname), "() got an unexpected keyword argument '", k, "'"));
    if (p->kind == api::ParamKind::kPositionalOnly)
      a.in().Fail(hazard::kRuntimeError, a.line(),
                  absl::StrCat(std::string(fname), "(): '", k, "' is positional-only"));
  }
}

const api::DataPath& RequirePath(const Args& a, std::string_view op, const Tile& src, const Tile& dst) {
  const api::DataPath* p = Cat().FindDataPath(op, SpaceOf(src), SpaceOf(dst));
  if (!p) {
    std::string known;
    for (const api::DataPath* d : Cat().DataPathsOf(op)) absl::StrAppend(&known, known.empty() ? "" : ", ", d->src, "->", d->dst);
    a.in().Fail(hazard::kCubeSpace, a.line(),
                absl::StrFormat("%s from %s tile '%s' to %s tile '%s': no such data path (%s has %s)",
                                std::string(op), SpaceOf(src), src.name, SpaceOf(dst), dst.name,
                                std::string(op), known));
  }
  return *p;
}

bool Aligned(int64_t v, int64_t m) { return m <= 1 || v % m == 0; }

// The byte ranges [b, e) (from the start of its space) that the window [r0, r0+rows) x
// [c0, c0+cols) of tile t occupies, merged.
std::vector<std::pair<uint64_t, uint64_t>> WindowRanges(const Tile& t, int64_t r0, int64_t c0, int64_t rows,
                                                        int64_t cols) {
  std::vector<std::pair<uint64_t, uint64_t>> v;
  const uint64_t es = t.elem_size();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols;) {
      const int64_t run = std::max<int64_t>(1, t.RowRun(c0 + c, c0 + cols));
      const uint64_t b = t.addr + t.ElementOffset(r0 + r, c0 + c);
      v.emplace_back(b, b + static_cast<uint64_t>(run) * es);
      c += run;
    }
  std::sort(v.begin(), v.end());
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  for (const auto& x : v) {
    if (!merged.empty() && x.first <= merged.back().second) merged.back().second = std::max(merged.back().second, x.second);
    else merged.push_back(x);
  }
  return merged;
}

// A Scaling tile as a per-channel scale (store.md / move.md `scale`: INT64, MemorySpace.Scaling,
// [1, N] with N % 16 == 0 and N <= 512; the frontend's _validate_fp_shape_dtype).
void CheckScalingTile(Interp& in, int line, const char* what, const Tile& t) {
  if (t.type.space != MemSpace::kScaling)
    in.Fail(hazard::kFixQuant, line,
            absl::StrFormat("%s: scale tile '%s' is in %s; a per-channel scale must be a MemorySpace.Scaling tile "
                            "(store.md, move.md)",
                            what, t.name, SpaceOf(t)));
  if (t.type.dtype == DType::kFloat32)
    in.Fail(hazard::kFixQuant, line,
            absl::StrFormat("%s: scale tile dtype FP32 is not supported: per-channel deqTensor values are INT64 "
                            "(store.md); convert an FP32 scale with torch_npu.npu_trans_quant_param first",
                            what));
  if (t.type.dtype != DType::kInt64)
    in.Fail(hazard::kFixQuant, line,
            absl::StrFormat("%s: scale tile dtype must be INT64, got %s (store.md: per-channel deqTensor values are "
                            "INT64; an FP32 scale is converted with torch_npu.npu_trans_quant_param first)",
                            what, std::string(DTypeName(t.type.dtype))));
  const auto& sh = t.type.shape;
  if (sh.size() != 2)
    in.Fail(hazard::kFixQuant, line, absl::StrFormat("%s: scale tile must be 2D [1, N]", what));
  if (sh[0] != 1 || sh[1] % 16 != 0 || sh[1] > 512)
    in.Fail(hazard::kFixQuant, line,
            absl::StrFormat("%s: scale tile '%s' is [%d, %d]; a per-channel scale must have shape [1, N] (row == 1), "
                            "N a multiple of 16 and N <= 512 (store.md; [N, 1] per-row scaling is not supported)",
                            what, t.name, sh[0], sh[1]));
}

void RejectFixOptions(Interp& in, const Args& a, const char* path) {
  for (const char* k : {"relu_pre_mode", "scale"})
    if (const Value* v = a.Get(99, k); v && v->kind != VK::kNone)
      in.Fail(hazard::kUnsupported, a.line(), absl::StrCat("pl.move ", path, " with ", k, "= is not simulated"));
}

// pl.move Acc -> Vec on the AIC (move.md, FIX pipe): the Acc's valid block goes to the UB of
// AIV 0 and/or AIV 1 of the block, at the destination tile's address, split by acc_to_vec_mode
// as move.md's tail rules give it (DualModeSplitM: AIV 0 the first ceil2(M)/2 rows, AIV 1 the
// rest; DualModeSplitN: AIV 0 the first ceil32(N)/2 columns, or all N when N <= 16).
Value MoveAccToVec(Interp& in, const Args& a, Tile& dst, Tile& src) {
  RequireAic(a);
  if (const Value* o = a.Get(2, "offset"); o && o->kind != VK::kNone)
    in.Fail(hazard::kUnsupported, a.line(), "pl.move Acc -> Vec with offset= is not simulated");
  const std::string mode = EnumOf(a, 99, "acc_to_vec_mode", "AccToVecMode");
  const FixOptions fix = ResolveFix(in, a, src, dst.type.dtype, false, mode);
  const bool quant = fix.relu || fix.has_scale;
  if (mode.empty())
    in.Fail(hazard::kUnsupported, a.line(),
            absl::StrFormat("pl.move Acc -> Vec of '%s' without acc_to_vec_mode: move.md does not say which "
                            "AIV's UB receives the data, so the simulator does not guess",
                            src.name));
  in.MarkUsed(src);
  dst.used = true;
  CubeStoreFromAcc(in, a, src, "");
  // Without a scale the fixpipe writes FP32 Acc data as FP32/FP16/BF16 and INT32 as INT32; a
  // scale (deqScalar / deqTensor) also quantises to INT8 and dequantises INT32 to FP16.
  const DType dd = dst.type.dtype;
  const bool ok_dtype =
      src.type.dtype == DType::kInt32
          ? (dd == DType::kInt32 || (fix.has_scale && (dd == DType::kInt8 || dd == DType::kFloat16)))
          : (dd == DType::kFloat32 || dd == DType::kFloat16 || dd == DType::kBFloat16 ||
             (fix.has_scale && dd == DType::kInt8));
  if (!ok_dtype)
    in.Fail(hazard::kTypeMismatch, a.line(),
            absl::StrFormat("pl.move Acc tile '%s' (%s) -> Vec tile '%s' (%s): the fixpipe writes FP32 Acc "
                            "data as FP32/FP16/BF16 and INT32 as INT32; with scale= also INT8, and INT32 as FP16",
                            src.name, std::string(DTypeName(src.type.dtype)), dst.name,
                            std::string(DTypeName(dst.type.dtype))));
  const int64_t M = src.valid_rows, N = src.valid_cols;
  struct Part {
    int sub;
    int64_t r0, c0, rows, cols;
  };
  std::vector<Part> parts;
  if (mode == "SingleModeVec0") {
    parts = {{0, 0, 0, M, N}};
  } else if (mode == "SingleModeVec1") {
    parts = {{1, 0, 0, M, N}};
  } else if (mode == "DualModeSplitM") {
    const int64_t v0 = (M + 1) / 2;  // ceil(M / 2) = aligned_M / 2
    parts = {{0, 0, 0, v0, N}, {1, v0, 0, M - v0, N}};
  } else if (mode == "DualModeSplitN") {
    const int64_t v0 = N <= 16 ? N : (N + 31) / 32 * 32 / 2;
    parts = {{0, 0, 0, M, std::min(v0, N)}, {1, 0, v0, M, N - std::min(v0, N)}};
  } else {
    a.Fail("unknown acc_to_vec_mode AccToVecMode." + mode);
  }
  for (const Part& p : parts) {
    if (p.rows <= 0 || p.cols <= 0) continue;
    if (p.rows > dst.type.shape[0] || p.cols > dst.type.shape[1])
      in.Fail(hazard::kMoveRange, a.line(),
              absl::StrFormat("pl.move Acc -> Vec (%s) gives AIV %d a [%d, %d] block of '%s' [%d, %d], larger "
                              "than the Vec tile '%s' [%d, %d]",
                              mode, p.sub, p.rows, p.cols, src.name, M, N, dst.name, dst.type.shape[0],
                              dst.type.shape[1]));
    CoreContext* aiv = BlockPeer(in, CoreKind::kAiv, p.sub);
    if (!aiv)
      in.Fail(hazard::kCoreSpace, a.line(),
              "pl.move Acc -> Vec writes the UB of the block's AIVs; this launch has no AIV (a mixed kernel has "
              "both pl.section_cube() and pl.section_vector())");
    if (quant) cube::CopyWindowFix(in.MemOf(*aiv), dst, 0, 0, in.Mem(), src, p.r0, p.c0, p.rows, p.cols, fix);
    else cube::CopyWindow(in.MemOf(*aiv), dst, 0, 0, in.Mem(), src, p.r0, p.c0, p.rows, p.cols);
    const std::string what = absl::StrFormat("pl.move Acc '%s' -> Vec '%s', %s", src.name, dst.name, mode);
    for (const auto& [b, e] : WindowRanges(dst, 0, 0, p.rows, p.cols))
      RecordRemoteWrite(in, *aiv, MemSpace::kVec, b, e, a.line(), what);
  }
  in.stats.tile_elems += M * N;
  return Value::None();
}

Value InsertVecToMatNz(Interp& in, const Args& a, Tile& dst, Tile& src, int64_t off_r, int64_t off_c,
                       bool zn_view);

// pl.insert / pl.move Vec -> Mat on an AIV (insert.md, MTE3): the source's valid block goes into
// the AIC's L1 at the destination tile's address, at `offset` in destination coordinates.
// insert.md says the L1 tile is "usually" NZ and defines no other case. A ZN [R, C] Mat tile
// holds, byte for byte, the NZ layout of its transpose [C, R] (ZN: fractals row-major, column-
// major inside, fractal Block32 x 16; NZ of the transpose: the same offsets), so an NZ block is
// inserted into that NZ view with the offset in the view's coordinates: the reading under which
// the official DN flash-attention samples (fa/test_fa_perf_tkv_preload_dn*.py: P^T per AIV,
// [TKV, TS/2] NZ, into a [TS, TKV] ZN Mat tile at [0, TS/2 * subblock]) compute P.
Value InsertVecToMat(Interp& in, const Args& a, Tile& dst, Tile& src, int64_t off_r, int64_t off_c) {
  if (dst.type.EffectiveLayout() != Layout::kZN) return InsertVecToMatNz(in, a, dst, src, off_r, off_c, false);
  Tile view = dst;
  view.type.shape = {dst.type.shape[1], dst.type.shape[0]};
  view.type.valid = {dst.type.valid[1], dst.type.valid[0]};
  view.type.layout = Layout::kNZ;
  view.valid_rows = dst.valid_cols;
  view.valid_cols = dst.valid_rows;
  view.name = dst.name + " (ZN, as NZ of its transpose)";
  dst.used = true;
  return InsertVecToMatNz(in, a, view, src, off_r, off_c, true);
}

// The offset: into an NZ tile, the column on a 32-byte column block (the copy moves whole
// blocks) and the row anywhere (each row of a column block is its own 32-byte burst: the
// instruction places `valid rows` rows at `row` in every block it writes); into the NZ view of
// a ZN tile (`zn_view`), both on the fractal grid, the one rule the docs' samples meet.
Value InsertVecToMatNz(Interp& in, const Args& a, Tile& dst, Tile& src, int64_t off_r, int64_t off_c,
                       bool zn_view) {
  if (in.core->kind != CoreKind::kAiv)
    in.Fail(hazard::kCoreSpace, a.line(),
            absl::StrCat(a.fname(), " Vec -> Mat copies an AIV's UB into the AIC's L1 but runs on ", in.core->Name(),
                         ": it belongs inside `with pl.section_vector():`"));
  in.MarkUsed(src);
  dst.used = true;
  if (src.type.dtype != dst.type.dtype)
    in.Fail(hazard::kTypeMismatch, a.line(),
            absl::StrFormat("%s Vec tile '%s' (%s) -> Mat tile '%s' (%s): MTE3 does not convert dtypes", a.fname(),
                            src.name, std::string(DTypeName(src.type.dtype)), dst.name,
                            std::string(DTypeName(dst.type.dtype))));
  if (src.type.EffectiveLayout() != Layout::kNZ || dst.type.EffectiveLayout() != Layout::kNZ)
    in.Fail(hazard::kCubeLayout, a.line(),
            absl::StrFormat("%s Vec tile '%s' (%s) -> Mat tile '%s' (%s): the source must be NZ (insert.md: "
                            "convert the ND result with pl.move first) and the L1 tile NZ (or ZN)",
                            a.fname(), src.name, std::string(LayoutName(src.type.EffectiveLayout())), dst.name,
                            std::string(LayoutName(dst.type.EffectiveLayout()))));
  if (off_r < 0 || off_c < 0)
    in.Fail(hazard::kMoveRange, a.line(), absl::StrFormat("%s offset [%d, %d] is negative", a.fname(), off_r, off_c));
  if (zn_view && (!Aligned(off_r, dst.type.FractalRows()) || !Aligned(off_c, dst.type.FractalCols())))
    in.Fail(hazard::kMoveRange, a.line(),
            absl::StrFormat("%s offset [%d, %d] is not on a %dx%d fractal boundary of '%s'", a.fname(), off_r, off_c,
                            dst.type.FractalRows(), dst.type.FractalCols(), dst.name));
  if (!zn_view && !Aligned(off_c, dst.type.FractalCols()))
    in.Fail(hazard::kMoveRange, a.line(),
            absl::StrFormat("%s offset [%d, %d]: the column is not on a %d-column (32-byte) block of NZ tile '%s'",
                            a.fname(), off_r, off_c, dst.type.FractalCols(), dst.name));
  if (off_r + src.valid_rows > dst.type.shape[0] || off_c + src.valid_cols > dst.type.shape[1])
    in.Fail(hazard::kMoveRange, a.line(),
            absl::StrFormat("%s of [%d, %d] at [%d, %d] overruns '%s' [%d, %d] (insert.md)", a.fname(),
                            src.valid_rows, src.valid_cols, off_r, off_c, dst.name, dst.type.shape[0],
                            dst.type.shape[1]));
  CoreContext* aic = BlockPeer(in, CoreKind::kAic, 0);
  if (!aic)
    in.Fail(hazard::kCoreSpace, a.line(),
            absl::StrCat(a.fname(), " Vec -> Mat writes the L1 of the block's AIC; this launch has no AIC (a mixed "
                                    "kernel has both pl.section_cube() and pl.section_vector())"));
  cube::CopyWindow(in.MemOf(*aic), dst, off_r, off_c, in.Mem(), src, 0, 0, src.valid_rows, src.valid_cols);
  const std::string what = absl::StrFormat("%s Vec '%s' -> Mat '%s' at [%d, %d]", a.fname(), src.name, dst.name,
                                           off_r, off_c);
  for (const auto& [b, e] : WindowRanges(dst, off_r, off_c, src.valid_rows, src.valid_cols))
    RecordRemoteWrite(in, *aic, MemSpace::kMat, b, e, a.line(), what);
  in.stats.tile_elems += src.valid_rows * src.valid_cols;
  return Value::None();
}

// pl.move Vec -> Vec on an AIV (move.md, V pipe): a copy that converts the layout (ND <-> NZ),
// of the source's valid block.
Value MoveVecToVec(Interp& in, const Args& a, Tile& dst, Tile& src) {
  RejectFixOptions(in, a, "Vec -> Vec");
  if (const Value* o = a.Get(2, "offset"); o && o->kind != VK::kNone)
    in.Fail(hazard::kUnsupported, a.line(), "pl.move Vec -> Vec with offset= is not simulated");
  in.MarkUsed(src);
  in.MarkUsed(dst);
  if (src.type.dtype != dst.type.dtype)
    in.Fail(hazard::kTypeMismatch, a.line(),
            absl::StrFormat("pl.move Vec tile '%s' (%s) -> Vec tile '%s' (%s): the copy does not convert dtypes "
                            "(pl.cast does)",
                            src.name, std::string(DTypeName(src.type.dtype)), dst.name,
                            std::string(DTypeName(dst.type.dtype))));
  if (src.valid_rows > dst.type.shape[0] || src.valid_cols > dst.type.shape[1])
    in.Fail(hazard::kMoveRange, a.line(),
            absl::StrFormat("pl.move Vec -> Vec of [%d, %d] from '%s' overruns '%s' [%d, %d]", src.valid_rows,
                            src.valid_cols, src.name, dst.name, dst.type.shape[0], dst.type.shape[1]));
  cube::CopyWindow(in.Mem(), dst, 0, 0, in.Mem(), src, 0, 0, src.valid_rows, src.valid_cols);
  in.stats.tile_elems += src.valid_rows * src.valid_cols;
  return Value::None();
}

Value MoveFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.move");
  CheckSignature(a, kw, "pl.move");
  if (!in.in_kernel) a.Fail("only valid inside a @pl.jit kernel");
  Tile& dst = a.TileArg(0, "dst_tile");
  Tile& src = a.TileArg(1, "src_tile");
  const api::DataPath& path = RequirePath(a, "pl.move", src, dst);
  if (src.type.space == MemSpace::kAcc && dst.type.space == MemSpace::kVec) return MoveAccToVec(in, a, dst, src);
  if (src.type.space == MemSpace::kVec && dst.type.space == MemSpace::kVec) return MoveVecToVec(in, a, dst, src);
  if (src.type.space == MemSpace::kVec && dst.type.space == MemSpace::kMat) {
    RejectFixOptions(in, a, "Vec -> Mat");
    int64_t r = 0, c = 0;
    if (const Value* o = a.Get(2, "offset"); o && o->kind != VK::kNone) {
      auto v = a.IntList(2, "offset");
      if (v.size() != 2) a.Fail("offset must be [offset_m, offset_k]");
      r = v[0];
      c = v[1];
    }
    return InsertVecToMat(in, a, dst, src, r, c);
  }
  const bool to_cube = src.type.space == MemSpace::kMat &&
                       (dst.type.space == MemSpace::kLeft || dst.type.space == MemSpace::kRight ||
                        dst.type.space == MemSpace::kBias || dst.type.space == MemSpace::kScaling);
  if (!to_cube)
    in.Fail(hazard::kUnsupported, call.line,
            absl::StrFormat("pl.move %s -> %s (pipe %s) is not simulated: %s", SpaceOf(src), SpaceOf(dst),
                            path.pipe,
                            dst.type.space == MemSpace::kVec
                                ? "of the paths into UB only Acc -> Vec and Vec -> Vec are modelled"
                                : "the quantisation and MX scale paths are not modelled"));
  for (const char* k : {"acc_to_vec_mode", "relu_pre_mode", "scale"})
    if (const Value* v = a.Get(99, k); v && v->kind != VK::kNone)
      a.Fail(absl::StrCat("'", k, "' applies to the Acc -> Vec fixpipe path only (move.md), not ",
                          SpaceOf(src), " -> ", SpaceOf(dst)));
  RequireAic(a);
  // Mat -> Scaling (move.md, FIX pipe): the user-prepared per-channel deqTensor of a quantising
  // store / move (store.md `scale`: INT64 [1, N], N % 16 == 0, N <= 512).
  if (dst.type.space == MemSpace::kScaling) CheckScalingTile(in, call.line, "pl.move Mat -> Scaling", dst);
  in.MarkUsed(src);
  in.MarkUsed(dst);
  // Dtypes: equal, except Mat FP16/BF16 -> Bias FP32 (matmul.md).
  if (src.type.dtype != dst.type.dtype) {
    bool bias_cvt = dst.type.space == MemSpace::kBias && dst.type.dtype == DType::kFloat32 &&
                    (src.type.dtype == DType::kFloat16 || src.type.dtype == DType::kBFloat16);
    if (!bias_cvt)
      in.Fail(hazard::kTypeMismatch, call.line,
              absl::StrFormat("pl.move %s tile '%s' (%s) -> %s tile '%s' (%s): the MTE1 path does not "
                              "convert dtypes (only Mat FP16/BF16 -> Bias FP32 does)",
                              SpaceOf(src), src.name, std::string(DTypeName(src.type.dtype)), SpaceOf(dst),
                              dst.name, std::string(DTypeName(dst.type.dtype))));
  }
  if (dst.type.space == MemSpace::kBias && dst.type.shape[0] != 1)
    in.Fail(hazard::kCubeShape, call.line,
            absl::StrFormat("Bias tile '%s' is [%d, %d]; a bias is one row [1, N] (matmul.md)", dst.name,
                            dst.type.shape[0], dst.type.shape[1]));
  // The copied window: extract (source >= destination) or insert (source a sub-block).
  int64_t off_r = 0, off_c = 0;
  bool has_offset = false;
  if (const Value* o = a.Get(2, "offset"); o && o->kind != VK::kNone) {
    auto v = a.IntList(2, "offset");
    if (v.size() != 2) a.Fail("offset must be [offset_m, offset_k]");
    off_r = v[0];
    off_c = v[1];
    has_offset = true;
    if (off_r < 0 || off_c < 0)
      in.Fail(hazard::kMoveRange, call.line, absl::StrFormat("pl.move offset [%d, %d] is negative", off_r, off_c));
  }
  const auto& ss = src.type.shape;
  const auto& ds = dst.type.shape;
  const bool src_ge = ss[0] >= ds[0] && ss[1] >= ds[1];
  const bool dst_gt = ds[0] >= ss[0] && ds[1] >= ss[1] && (ds[0] > ss[0] || ds[1] > ss[1]);
  if (!has_offset && ss != ds)
    in.Fail(hazard::kMoveRange, call.line,
            absl::StrFormat("pl.move without offset needs equal shapes: %s tile '%s' [%d, %d] -> %s tile "
                            "'%s' [%d, %d] (give offset= to extract or insert a block)",
                            SpaceOf(src), src.name, ss[0], ss[1], SpaceOf(dst), dst.name, ds[0], ds[1]));
  if (has_offset && !src_ge && dst_gt) {
    // Insert: src's valid block into dst at the offset (dst coordinates).
    if (!Aligned(off_r, dst.type.FractalRows()) || !Aligned(off_c, dst.type.FractalCols()))
      in.Fail(hazard::kMoveRange, call.line,
              absl::StrFormat("pl.move (insert) offset [%d, %d] is not on a %dx%d fractal boundary of '%s'",
                              off_r, off_c, dst.type.FractalRows(), dst.type.FractalCols(), dst.name));
    if (off_r + src.valid_rows > ds[0] || off_c + src.valid_cols > ds[1])
      in.Fail(hazard::kMoveRange, call.line,
              absl::StrFormat("pl.move (insert) of [%d, %d] at [%d, %d] overruns '%s' [%d, %d]", src.valid_rows,
                              src.valid_cols, off_r, off_c, dst.name, ds[0], ds[1]));
    cube::CopyWindow(in.Mem(), dst, off_r, off_c, src, 0, 0, src.valid_rows, src.valid_cols);
    in.stats.tile_elems += src.valid_rows * src.valid_cols;
    return Value::None();
  }
  if (!src_ge)
    in.Fail(hazard::kMoveRange, call.line,
            absl::StrFormat("pl.move offset= needs the source to cover the destination (extract) or to be "
                            "a sub-block of it (insert): '%s' [%d, %d] -> '%s' [%d, %d]",
                            src.name, ss[0], ss[1], dst.name, ds[0], ds[1]));
  if (!Aligned(off_r, src.type.FractalRows()) || !Aligned(off_c, src.type.FractalCols()))
    in.Fail(hazard::kMoveRange, call.line,
            absl::StrFormat("pl.move offset [%d, %d] is not on a %dx%d fractal boundary of '%s'", off_r, off_c,
                            src.type.FractalRows(), src.type.FractalCols(), src.name));
  // move.md: the extracted range is [offset, offset + dst.valid_shape) and must lie within the
  // source's shape.
  if (off_r >= ss[0] || off_c >= ss[1] || off_r + dst.valid_rows > ss[0] || off_c + dst.valid_cols > ss[1])
    in.Fail(hazard::kMoveRange, call.line,
            absl::StrFormat("pl.move extracts [%d, %d] at [%d, %d] from '%s' [%d, %d]: outside the source",
                            dst.valid_rows, dst.valid_cols, off_r, off_c, src.name, ss[0], ss[1]));
  cube::CopyWindow(in.Mem(), dst, 0, 0, src, off_r, off_c, dst.valid_rows, dst.valid_cols);
  in.stats.tile_elems += dst.valid_rows * dst.valid_cols;
  return Value::None();
}

Value InsertFn(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.insert");
  CheckSignature(a, kw, "pl.insert");
  if (!in.in_kernel) a.Fail("only valid inside a @pl.jit kernel");
  Tile& dst = a.TileArg(0, "dst_tile");
  Tile& src = a.TileArg(1, "src_tile");
  auto off = a.IntList(2, "offset");
  RequirePath(a, "pl.insert", src, dst);
  if (off.size() != 2) a.Fail("offset must be [row, col] (insert.md)");
  if (src.type.space == MemSpace::kVec && dst.type.space == MemSpace::kMat)
    return InsertVecToMat(in, a, dst, src, off[0], off[1]);
  in.Fail(hazard::kUnsupported, call.line,
          absl::StrFormat("pl.insert %s -> %s is not simulated (insert.md documents Vec -> Mat)", SpaceOf(src),
                          SpaceOf(dst)));
}

struct MatmulCall {
  Tile* dst = nullptr;
  Tile* acc = nullptr;
  Tile* lhs = nullptr;
  Tile* rhs = nullptr;
  Tile* bias = nullptr;
  std::string phase;  // "", "Partial", "Final"
};

void CheckMatmulOperands(Interp& in, const Args& a, const MatmulCall& mc, const char* op) {
  auto space = [&](const Tile* t, MemSpace want, const char* role) {
    if (t->type.space != want)
      in.Fail(hazard::kCubeSpace, a.line(),
              absl::StrFormat("%s %s tile '%s' is in %s; it must be a %s tile (%s.md)", op, role, t->name,
                              SpaceOf(*t), std::string(MemSpaceName(want)), std::string(op).substr(3)));
  };
  space(mc.dst, MemSpace::kAcc, "dst");
  if (mc.acc) space(mc.acc, MemSpace::kAcc, "acc");
  space(mc.lhs, MemSpace::kLeft, "lhs");
  space(mc.rhs, MemSpace::kRight, "rhs");
  if (mc.bias) space(mc.bias, MemSpace::kBias, "bias");
  const DType lt = mc.lhs->type.dtype, rt = mc.rhs->type.dtype, dt = mc.dst->type.dtype;
  if (!Cat().HasOperandDtypes(op, DesignName(lt), DesignName(rt), DesignName(dt)))
    in.Fail(hazard::kTypeMismatch, a.line(),
            absl::StrFormat("%s %s x %s -> %s is not a documented combination (matmul_acc.md: FP16xFP16, "
                            "BF16xBF16, FP32xFP32, HF8xHF8 -> FP32; INT8xINT8 -> INT32)",
                            op, DesignName(lt), DesignName(rt), DesignName(dt)));
  if (mc.acc && (mc.acc->type.dtype != dt || mc.acc->type.shape != mc.dst->type.shape))
    in.Fail(hazard::kCubeShape, a.line(),
            absl::StrFormat("matmul_acc acc tile '%s' must have dst's dtype and shape", mc.acc->name));
  const int64_t M = mc.lhs->valid_rows, K = mc.lhs->valid_cols, Kr = mc.rhs->valid_rows, N = mc.rhs->valid_cols;
  if (K != Kr)
    in.Fail(hazard::kCubeShape, a.line(),
            absl::StrFormat("%s: lhs '%s' has K = %d valid columns but rhs '%s' has K = %d valid rows", op,
                            mc.lhs->name, K, mc.rhs->name, Kr));
  for (auto [v, nm] : {std::pair{M, "M"}, std::pair{K, "K"}, std::pair{N, "N"}})
    if (v < 1 || v > 4095)
      in.Fail(hazard::kCubeShape, a.line(), absl::StrFormat("%s: valid %s = %d outside [1, 4095]", op, nm, v));
  if (M > mc.dst->type.shape[0] || N > mc.dst->type.shape[1])
    in.Fail(hazard::kCubeShape, a.line(),
            absl::StrFormat("%s: M x N = %d x %d exceeds Acc tile '%s' [%d, %d]", op, M, N, mc.dst->name,
                            mc.dst->type.shape[0], mc.dst->type.shape[1]));
  if (mc.bias) {
    if (mc.bias->type.dtype != dt)
      in.Fail(hazard::kTypeMismatch, a.line(),
              absl::StrFormat("bias tile '%s' is %s but the accumulator is %s (matmul.md: equal dtypes)",
                              mc.bias->name, std::string(DTypeName(mc.bias->type.dtype)),
                              std::string(DTypeName(dt))));
    if (mc.bias->type.shape[0] != 1 || mc.bias->valid_cols < N)
      in.Fail(hazard::kCubeShape, a.line(),
              absl::StrFormat("bias tile '%s' [%d, %d] (valid %d columns) must be [1, N >= %d]", mc.bias->name,
                              mc.bias->type.shape[0], mc.bias->type.shape[1], mc.bias->valid_cols, N));
  }
}

Value MatmulImpl(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw, bool acc_form) {
  const char* op = acc_form ? "pl.matmul_acc" : "pl.matmul";
  Args a(in, call, pos, kw, op);
  CheckSignature(a, kw, op);
  if (!acc_form)
    for (const auto& [k, v] : kw)
      if (k == "bias_tile")
        a.Fail("bias_tile is passed as the 4th positional argument only (matmul.md)");
  MatmulCall mc;
  size_t i = 0;
  mc.dst = &a.TileArg(i++, "dst_tile");
  if (acc_form) mc.acc = &a.TileArg(i++, "acc_tile");
  mc.lhs = &a.TileArg(i++, "lhs_tile");
  mc.rhs = &a.TileArg(i++, "rhs_tile");
  if (!acc_form)
    if (const Value* b = a.Get(3, "bias_tile"); b && b->kind != VK::kNone) mc.bias = &a.TileArg(3, "bias_tile");
  mc.phase = EnumOf(a, 99, "phase", "AccPhase");
  RequireAic(a);
  CheckMatmulOperands(in, a, mc, op);
  CoreContext& core = *in.core;
  for (Tile* t : {mc.dst, mc.acc, mc.lhs, mc.rhs, mc.bias})
    if (t) in.MarkUsed(*t);
  AccState& st = core.cube.acc[mc.dst->addr];
  if (acc_form) {
    const AccState* src = nullptr;
    if (auto it = core.cube.acc.find(mc.acc->addr); it != core.cube.acc.end() && it->second.written) src = &it->second;
    if (!src)
      in.Fail(hazard::kAccUnwritten, call.line,
              absl::StrFormat("pl.matmul_acc accumulates onto Acc tile '%s', which no matmul wrote on %s: the "
                              "first K block must use pl.matmul (matmul_acc.md)",
                              mc.acc->name, core.Name()));
    if (src != &st) st = *src;
  }
  const bool phased = !mc.phase.empty();
  // Unit flag (phase.md): a phase matmul waits for the flag to be 0.
  if (phased && st.final_pending)
    in.Fail(hazard::kPhaseHang, call.line,
            absl::StrFormat("%s(phase=%s) on Acc tile '%s' waits for its unit flag, which the Final matmul at "
                            "line %d set and no store with phase=STPhase.Final cleared: the M pipe hangs "
                            "(phase.md, case 3)",
                            op, mc.phase, mc.dst->name, st.last_matmul_line));
  const int64_t M = mc.lhs->valid_rows, N = mc.rhs->valid_cols;
  if (phased && M < mc.dst->type.shape[0])
    in.Fail(hazard::kPartialFix, call.line,
            absl::StrFormat("%s(phase=%s) computes %d of the %d rows of Acc tile '%s': under the unit-flag "
                            "handshake a partial-M fixpipe hangs the device; compute on the full tile and "
                            "clip only the store",
                            op, mc.phase, M, mc.dst->type.shape[0], mc.dst->name));
  if (phased && N < mc.dst->type.shape[1])
    in.sink.Report(hazard::kPartialFix, call.line,
                   absl::StrFormat("%s(phase=%s) computes %d of the %d columns of Acc tile '%s': under the "
                                   "unit-flag handshake a partial-N fixpipe corrupts the tail; compute on the "
                                   "full tile and clip only the store",
                                   op, mc.phase, N, mc.dst->type.shape[1], mc.dst->name));
  // Accumulation chain bookkeeping.
  if (!acc_form) {
    st = AccState{};
    st.first_matmul_line = call.line;
  }
  st.written = true;
  ++st.matmuls_in_chain;
  st.last_matmul_line = call.line;
  if (acc_form) st.has_acc_step = true;
  if (!phased && st.first_unphased_line == 0) st.first_unphased_line = call.line;
  if (!core.cube.layout_transform && st.first_untransformed_line == 0) st.first_untransformed_line = call.line;
  st.last_phase = mc.phase;
  if (mc.phase == "Final") st.final_pending = true;
  cube::MatmulOperands ops;
  ops.dst = mc.dst;
  ops.lhs = mc.lhs;
  ops.rhs = mc.rhs;
  ops.bias = mc.bias;
  ops.acc_in = mc.acc;
  cube::Matmul(in.Mem(), ops);
  in.stats.tile_elems += M * N;
  in.stats.cube_macs += M * N * mc.lhs->valid_cols;
  return Value::None();
}
Value MatmulFn(Interp& in, const XNode& c, BArgs& p, Kwargs& k) { return MatmulImpl(in, c, p, k, false); }
Value MatmulAccFn(Interp& in, const XNode& c, BArgs& p, Kwargs& k) { return MatmulImpl(in, c, p, k, true); }

Value MatmulMxFn(Interp& in, const XNode& call, BArgs&, Kwargs&) {
  in.Fail(hazard::kUnsupported, call.line,
          "pl.matmul_mx / matmul_mx_acc are not simulated: their FP8/FP4 mantissa and E8M0 scale dtypes "
          "have no representation in the simulator");
}

Value SetMmLayoutTransform(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.system.set_mm_layout_transform");
  if (!pos.empty()) a.Fail("'enabled' is keyword-only: set_mm_layout_transform(enabled=True)");
  CheckSignature(a, kw, "pl.system.set_mm_layout_transform");
  const Value& v = a.Req(99, "enabled");
  if (v.kind != VK::kBool) a.Fail("'enabled' must be True or False");
  RequireAic(a);
  in.core->cube.layout_transform = v.i != 0;
  if (v.i) in.core->cube.layout_transform_line = call.line;
  return Value::None();
}

}  // namespace

FixOptions ResolveFix(Interp& in, const Args& a, const Tile& acc, DType dst, bool has_phase,
                      const std::string& acc_to_vec_mode) {
  FixOptions fix;
  const int line = a.line();
  if (const Value* r = a.Get(99, "relu_pre_mode"); r && r->kind != VK::kNone) {
    if (r->kind != VK::kEnum || r->s != "ReluPreMode.NormalRelu")
      in.Fail(hazard::kFixQuant, line,
              absl::StrCat(a.fname(), ": relu_pre_mode must be pl.ReluPreMode.NormalRelu or None, got ", Repr(*r)));
    fix.relu = true;
  }
  const Value* sc = a.Get(99, "scale");
  if (!sc || sc->kind == VK::kNone) return fix;
  fix.has_scale = true;
  if (sc->kind == VK::kFloat) {
    const float f = static_cast<float>(sc->f);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    fix.scale = DeqScale(bits);
  } else if (sc->kind == VK::kInt || sc->kind == VK::kBool) {
    // store.md: a runtime INT scalar carries the float32 bit pattern (struct.pack("!f", v)).
    fix.scale = DeqScale(static_cast<uint32_t>(static_cast<uint64_t>(sc->i) & 0xFFFFFFFFu));
  } else if (sc->kind == VK::kTile) {
    const Tile& t = sc->As<Tile>();
    CheckScalingTile(in, line, a.fname(), t);
    if (fix.relu)
      in.Fail(hazard::kFixQuant, line,
              absl::StrCat(a.fname(), ": scale (per-channel) cannot be used together with relu_pre_mode (store.md)"));
    if (has_phase)
      in.Fail(hazard::kFixQuant, line,
              absl::StrCat(a.fname(), ": scale (per-channel) cannot be combined with phase (store.md)"));
    if (acc_to_vec_mode == "DualModeSplitM" || acc_to_vec_mode == "DualModeSplitN")
      in.Fail(hazard::kFixQuant, line,
              absl::StrCat(a.fname(), ": scale (per-channel) only supports single-mode acc_to_vec_mode "
                                      "(move.md: DualModeSplitM / DualModeSplitN are rejected)"));
    if (t.type.shape[1] < acc.valid_cols)
      in.Fail(hazard::kCubeShape, line,
              absl::StrFormat("%s: scale tile '%s' holds %d per-channel values but Acc tile '%s' has %d valid "
                              "columns: one value per output column",
                              a.fname(), t.name, t.type.shape[1], acc.name, acc.valid_cols));
    in.MarkUsed(const_cast<Tile&>(t));
    const SpaceBuffer& buf = in.Mem().Get(MemSpace::kScaling);
    const int64_t n = acc.valid_cols;
    fix.channel.assign(n, 0.0f);
    fix.channel_written.assign(n, 0);
    for (int64_t c = 0; c < n; ++c) {
      const uint64_t off = t.addr + t.ElementOffset(0, c);
      if (off + 8 > buf.bytes.size()) continue;
      uint64_t e;
      std::memcpy(&e, buf.bytes.data() + off, 8);
      fix.channel[c] = DeqTensorScale(e);
      fix.channel_written[c] = std::memchr(buf.written.data() + off, 0, 8) == nullptr;
    }
  } else {
    in.Fail(hazard::kFixQuant, line,
            sc->kind == VK::kTensor
                ? absl::StrCat(a.fname(), ": scale Tensor is not supported for per-channel quantization: pass a "
                                          "user-prepared Scaling Tile (store.md, move.md), got ", Repr(*sc))
                : absl::StrCat(a.fname(), ": scale must be float, int, a runtime scalar or a Scaling Tile, got ",
                               Repr(*sc), " (store.md, move.md)"));
  }
  // The frontend's _check_scale_dst_supported: no unsigned requantisation; BF16 only by a
  // scale-free truncation of FP32.
  if (dst == DType::kUInt8)
    in.Fail(hazard::kFixQuant, line,
            absl::StrCat(a.fname(), ": scale quantization to UINT8 is not supported: the fixpipe has no unsigned "
                                    "requantization path"));
  if (dst == DType::kBFloat16 && (acc.type.dtype == DType::kFloat32 || acc.type.dtype == DType::kInt32))
    in.Fail(hazard::kFixQuant, line,
            absl::StrFormat("%s: scale quantization from %s to BF16 is not supported: the fixpipe dequantizes "
                            "INT32 only to FP16 and truncates FP32 to BF16 only without a scale",
                            a.fname(), std::string(DTypeName(acc.type.dtype))));
  return fix;
}

void CubeStoreFromAcc(Interp& in, const Args& a, Tile& acc, const std::string& phase) {
  CoreContext& core = *in.core;
  auto it = core.cube.acc.find(acc.addr);
  if (it == core.cube.acc.end() || !it->second.written)
    in.Fail(hazard::kAccUnwritten, a.line(),
            absl::StrFormat("%s reads Acc tile '%s', which no matmul wrote on %s", a.fname(), acc.name,
                            core.Name()));
  AccState& st = it->second;
  const bool phased = !phase.empty() && phase != "Unspecified";
  const bool mm_phased = !st.last_phase.empty();
  if (mm_phased && !phased)
    in.sink.Report(hazard::kPhaseUnpaired, a.line(),
                   absl::StrFormat("%s of Acc tile '%s' has no phase= but its matmul (line %d) used "
                                   "phase=AccPhase.%s: FIX does not wait for the M pipe and reads an "
                                   "unfinished accumulation (phase.md, case 2)",
                                   a.fname(), acc.name, st.last_matmul_line, st.last_phase));
  if (phased && !mm_phased)
    in.Fail(hazard::kPhaseUnpaired, a.line(),
            absl::StrFormat("%s(phase=STPhase.%s) waits for the unit flag of Acc tile '%s', but its matmul "
                            "(line %d) ran without phase= and never sets it: FIX hangs (phase.md, rule 1)",
                            a.fname(), phase, acc.name, st.last_matmul_line));
  if (phased && !st.final_pending)
    in.Fail(hazard::kPhaseNoFinal, st.last_matmul_line,
            absl::StrFormat("the accumulation into Acc tile '%s' ends with phase=AccPhase.%s here, never "
                            "AccPhase.Final, so the unit flag stays 0 and the %s(phase=STPhase.%s) at line %d "
                            "waits forever (phase.md, case 1)",
                            acc.name, st.last_phase, a.fname(), phase, a.line()));
  if (phased && phase == "Final") st.final_pending = false;
  // K-blocked accumulation: the three requirements of matmul_acc.md.
  if (st.has_acc_step) {
    if (st.first_unphased_line)
      in.sink.Report(hazard::kKaccPhase, st.first_unphased_line,
                     absl::StrFormat("K-blocked accumulation into Acc tile '%s' (stored at line %d) runs this "
                                     "step without phase=; every matmul/matmul_acc of the chain needs "
                                     "AccPhase.Partial/Final (matmul_acc.md, requirement 1)",
                                     acc.name, a.line()));
    int lt_line = st.first_untransformed_line ? st.first_untransformed_line
                                              : (core.cube.layout_transform ? 0 : a.line());
    if (lt_line)
      in.sink.Report(hazard::kKaccLayout, lt_line,
                     absl::StrFormat("K-blocked accumulation into Acc tile '%s' runs here without "
                                     "pl.system.set_mm_layout_transform(enabled=True) (matmul_acc.md, "
                                     "requirement 3)",
                                     acc.name));
    if (acc.type.FractalBytes() != 1024)
      in.sink.Report(hazard::kKaccFractal, acc.decl_line,
                     absl::StrFormat("K-blocked accumulation (stored at line %d) into Acc tile '%s' whose "
                                     "fractal is %d, not 1024 (matmul_acc.md, requirement 2)",
                                     a.line(), acc.name, acc.type.FractalBytes()));
  }
}

void FinishCubeCore(Interp& in, CoreContext& core) {
  for (const auto& entry : core.cube.acc) {
    const AccState& st = entry.second;
    if (st.final_pending)
      in.sink.Report(hazard::kPhaseUnpaired, st.last_matmul_line,
                     absl::StrFormat("the phase=AccPhase.Final matmul here sets the unit flag of its Acc tile, "
                                     "but no store with phase=STPhase.Final reads it on %s: the result is "
                                     "never written and the next phase matmul on this L0C hangs (phase.md)",
                                     core.Name()));
  }
  if (core.cube.layout_transform)
    in.sink.Report(hazard::kMmLayoutUnpaired, core.cube.layout_transform_line,
                   "set_mm_layout_transform(enabled=True) is never switched off before the kernel ends "
                   "(set_mm_layout_transform.md: enabled=False after the store)");
  // Mutex ids shared by two groups that are both used (auto_mutex), unless one aliases the other
  // or both are views of one locked buffer (LockedViews).
  if (core.auto_mutex) {
    std::map<int64_t, const TileGroup*> owner;
    for (const auto& g : core.groups) {
      bool used = false;
      for (const auto& s : g->slots) used = used || s->used;
      if (!used) continue;
      for (int64_t id : g->mutex_ids) {
        auto [it, fresh] = owner.emplace(id, g.get());
        if (fresh) continue;
        const TileGroup* o = it->second;
        bool alias = o->slots.size() == g->slots.size() && o->type.space == g->type.space;
        for (size_t i = 0; alias && i < o->slots.size(); ++i) alias = o->slots[i]->addr == g->slots[i]->addr;
        if (alias || LockedViews(*o, *g)) continue;
        in.sink.Report(hazard::kMutexShared, g->decl_line,
                       absl::StrFormat("tile group '%s' uses mutex id %d, which tile group '%s' (line %d) also "
                                       "uses; both are live on %s, so auto_mutex serialises every op on "
                                       "either group behind the other's (legal, make_tile_group.md; a "
                                       "slower pipeline)",
                                       g->name, id, o->name, o->decl_line, core.Name()));
      }
    }
  }
}

void CheckL1Group(Interp& in, const TileGroup& g) {
  if (g.type.space != MemSpace::kMat || g.slots.size() < 2) return;
  constexpr uint64_t kHalf = 0x40000;  // L1_ADDR[18] selects the bank of a bank group
  auto half = [&](const Tile& t) -> int {
    uint64_t lo = t.addr / kHalf, hi = (t.addr + std::max<uint64_t>(t.size, 1) - 1) / kHalf;
    return lo == hi ? static_cast<int>(lo) : -1;
  };
  for (size_t i = 0; i + 1 < g.slots.size(); ++i) {
    int h0 = half(*g.slots[i]), h1 = half(*g.slots[i + 1]);
    if (h0 >= 0 && h0 == h1) {
      in.sink.Report(hazard::kL1BankHalf, g.decl_line,
                     absl::StrFormat("L1 tile group '%s': slots %d (0x%x) and %d (0x%x) are both in bank half %d "
                                     "(address bit 18); while MTE2 fills one, MTE1 reads the other from the same "
                                     "banks (Cube_matrix_computation.md, L1 banks): place them 0x40000 apart",
                                     g.name, i, g.slots[i]->addr, i + 1, g.slots[i + 1]->addr, h0));
      return;
    }
  }
}

void RegisterCubeBuiltins(BuiltinTable& t) {
  t["pl.move"] = MoveFn;
  t["pl.insert"] = InsertFn;
  t["pl.matmul"] = MatmulFn;
  t["pl.matmul_acc"] = MatmulAccFn;
  t["pl.matmul_mx"] = MatmulMxFn;
  t["pl.matmul_mx_acc"] = MatmulMxFn;
  t["pl.system.set_mm_layout_transform"] = SetMmLayoutTransform;
}

}  // namespace opdev::sim
