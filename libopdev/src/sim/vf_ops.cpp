// Register-level kernels of the `vf.*` operations. Float registers are widened to fp32 arrays,
// computed over all lanes in tight loops, masked, and narrowed back with exact RNE rounding.
#include "opdev/sim/vf_ops.h"

#include "exp_f32.h"
#include "float_choice.h"
#include "lane_convert.h"
#include "vector_clones.h"

#include "opdev/sim/memory.h"
#include "opdev/support/half.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

namespace opdev::sim {

double VReg::Get(int lane) const { return LoadScalar(dtype, raw.data() + lane * ElemBytes()); }
void VReg::Set(int lane, double v) { StoreScalar(dtype, raw.data() + lane * ElemBytes(), v); }

int MaskReg::ActiveCount(int elem_bytes) const {
  int n = 0;
  for (int i = 0; i < kVRegBytes / elem_bytes; ++i) n += Active(i, elem_bytes) ? 1 : 0;
  return n;
}

MaskReg MaskReg::FirstN(int64_t count, int width) {
  MaskReg m;
  m.SetFirstN(count, width);
  return m;
}

namespace {
// 256 set flags, then 256 clear ones: the flags of a first-`set`-bytes mask are the 256 bytes
// from offset 256 - set (one fixed-size copy instead of two memsets of variable length).
constexpr std::array<uint8_t, 2 * kVRegBytes> kFlagRamp = [] {
  std::array<uint8_t, 2 * kVRegBytes> b{};
  for (int i = 0; i < kVRegBytes; ++i) b[static_cast<size_t>(i)] = 1;
  return b;
}();
}  // namespace

void MaskReg::SetFirstN(int64_t count, int w) {
  width = w;
  const int64_t lanes = kVRegBytes / w;
  const size_t set = static_cast<size_t>(std::clamp<int64_t>(count, 0, lanes) * w);
  std::memcpy(bit.data(), kFlagRamp.data() + (kVRegBytes - set), kVRegBytes);
}

namespace vf {
namespace {

// Lanes of the narrowest (1-byte) dtype: every per-lane scratch array has this many, so a
// register of any dtype fits (ToF32 of an int8 register writes 256 lanes).
constexpr int kMaxLanes = kVRegBytes;

bool IsFloatReg(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16;
}

// No mask byte clear: every lane is active whatever the element width (the ALL masks and
// update_mask of a full count), so the per-lane flag tests can be skipped.
bool AllActive(const MaskReg& m) { return std::memchr(m.bit.data(), 0, kVRegBytes) == nullptr; }

// Lanes of a float register as fp32 (exact).
void ToF32(const VReg& r, float* out) {
  switch (r.dtype) {
    case DType::kFloat32: std::memcpy(out, r.raw.data(), kVRegBytes); return;
    case DType::kFloat16: {
      uint16_t h[128];
      std::memcpy(h, r.raw.data(), kVRegBytes);
      F32FromHalvesN(h, out, 128);
      return;
    }
    case DType::kBFloat16: {
      uint16_t h[128];
      std::memcpy(h, r.raw.data(), kVRegBytes);
      for (int i = 0; i < 128; ++i) out[i] = BitsToFloat(static_cast<uint32_t>(h[i]) << 16);
      return;
    }
    default:
      for (int i = 0; i < r.Lanes(); ++i) out[i] = static_cast<float>(r.Get(i));
  }
}

// float -> binary16, round to nearest even; branch-light integer paths for results in the
// normal and the subnormal/zero fp16 range (exactly FloatToHalf's result there), FloatToHalf
// for overflow, Inf and NaN.
inline uint16_t FastHalf(float v) {
  const uint32_t x = FloatToBits(v);
  const uint32_t a = x & 0x7FFFFFFFu;
  const uint32_t sign = (x >> 16) & 0x8000u;
  if (a >= 0x38800000u && a < 0x477FF000u) {
    uint32_t h = (a + 0x0FFFu + ((a >> 13) & 1u) - 0x38000000u) >> 13;
    return static_cast<uint16_t>(sign | h);
  }
  if (a < 0x38800000u) {
    if (a < 0x33000000u) return static_cast<uint16_t>(sign);  // below half the smallest subnormal
    // Subnormal result: the 24-bit significand shifted right by 14..24 bits, ties to even.
    const uint32_t m = (a & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - (a >> 23);
    const uint32_t h = (m + (1u << (shift - 1)) - 1u + ((m >> shift) & 1u)) >> shift;
    return static_cast<uint16_t>(sign | h);
  }
  return FloatToHalf(v);
}

// Writes fp32 lanes into r (r.dtype decides the storage), rounding to nearest even.
void FromF32(const float* in, VReg& r) {
  switch (r.dtype) {
    case DType::kFloat32: std::memcpy(r.raw.data(), in, kVRegBytes); return;
    case DType::kFloat16: {
      uint16_t h[128];
      HalvesFromF32N(in, h, 128);
      std::memcpy(r.raw.data(), h, kVRegBytes);
      return;
    }
    case DType::kBFloat16: {
      uint16_t h[128];
      for (int i = 0; i < 128; ++i) h[i] = FloatToBFloat16(in[i]);
      std::memcpy(r.raw.data(), h, kVRegBytes);
      return;
    }
    default:
      for (int i = 0; i < r.Lanes(); ++i) r.Set(i, in[i]);
  }
}

// The float -> float conversions of AsType for a destination lane type D (float, or a 16-bit
// pattern): the source lanes are converted in bulk, then placed by the case — same width, 2x
// widening or 2x narrowing with the layout's half. Lanes start zeroed in `r`. False when the
// widths are not one of those cases.
template <typename D>
bool AsTypeFloat(const float* x, DType to, const MaskReg& m, int es_from, int es_to, int n_from,
                 int off, VReg& r) {
  constexpr int kOut = kVRegBytes / static_cast<int>(sizeof(D));
  D out[kOut];
  D cv[128];
  std::memcpy(out, r.raw.data(), kVRegBytes);
  if constexpr (std::is_same_v<D, float>) {
    for (int i = 0; i < n_from; ++i) cv[i] = x[i];
  } else if (to == DType::kFloat16 && n_from == 64) {
    HalvesFromF32N(x, cv, 64);
  } else if (to == DType::kFloat16 && n_from == 128) {
    HalvesFromF32N(x, cv, 128);
  } else {
    for (int i = 0; i < n_from; ++i) cv[i] = to == DType::kFloat16 ? FastHalf(x[i]) : FloatToBFloat16(x[i]);
  }
  const bool all = AllActive(m);
  if (es_to == es_from) {
    if (all) for (int i = 0; i < n_from; ++i) out[i] = cv[i];
    else for (int i = 0; i < n_from; ++i) if (m.bit[i * es_from]) out[i] = cv[i];
  } else if (std::is_same_v<D, float> && es_to == 2 * es_from) {  // a 16-bit D is never twice a float's width
    for (int i = 0; i < kOut; ++i) {
      const int s = 2 * i + (off & 1);
      if (all || m.bit[s * es_from]) out[i] = cv[s];
    }
  } else if (es_from == 2 * es_to) {
    // Half as many source lanes as destination lanes (n_from == kOut / 2, spelled so the bound
    // is a constant the compiler sees).
    constexpr int kHalf = kOut / 2;
    if (all) for (int i = 0; i < kHalf; ++i) out[2 * i + (off & 1)] = cv[i];
    else for (int i = 0; i < kHalf; ++i) if (m.bit[i * es_from]) out[2 * i + (off & 1)] = cv[i];
  } else {
    return false;
  }
  std::memcpy(r.raw.data(), out, kVRegBytes);
  return true;
}

double ApplyBinD(BinOp op, double x, double y) {
  switch (op) {
    case BinOp::kAdd: return x + y;
    case BinOp::kSub: return x - y;
    case BinOp::kMul: return x * y;
    case BinOp::kDiv: return y == 0 ? 0 : std::trunc(x / y);
    case BinOp::kMax: return std::max(x, y);
    case BinOp::kMin: return std::min(x, y);
  }
  return 0;
}

// One lane-wise operation over n fp32 lanes. The lane counts of the 32-, 16- and 64-bit
// float registers are compile-time constants and the buffers never alias, so those loops
// vectorise; every lane gets the same IEEE result either way (no contraction). Addition and
// multiplication name their NaN explicitly (float_choice.h): the compiler may commute them.
template <int N>
void LoopBinN(BinOp op, const float* __restrict x, const float* __restrict y, float* __restrict z, int n) {
  const int count = N > 0 ? N : n;
  switch (op) {
    case BinOp::kAdd:
      for (int i = 0; i < count; ++i) z[i] = x[i] + y[i];
      FirstNaNLanes(x, y, z, count);
      break;
    case BinOp::kSub: for (int i = 0; i < count; ++i) z[i] = x[i] - y[i]; break;
    case BinOp::kMul:
      for (int i = 0; i < count; ++i) z[i] = x[i] * y[i];
      FirstNaNLanes(x, y, z, count);
      break;
    case BinOp::kDiv: for (int i = 0; i < count; ++i) z[i] = x[i] / y[i]; break;
    // max / min keep x unless y is greater / smaller and not NaN.
    case BinOp::kMax:
      for (int i = 0; i < count; ++i) z[i] = ((x[i] >= y[i]) | (y[i] != y[i])) ? x[i] : y[i];
      break;
    case BinOp::kMin:
      for (int i = 0; i < count; ++i) z[i] = ((x[i] <= y[i]) | (y[i] != y[i])) ? x[i] : y[i];
      break;
  }
}
void LoopBin(BinOp op, const float* x, const float* y, float* z, int n) {
  switch (n) {
    case 64: return LoopBinN<64>(op, x, y, z, n);
    case 128: return LoopBinN<128>(op, x, y, z, n);
    case 32: return LoopBinN<32>(op, x, y, z, n);
    default: return LoopBinN<0>(op, x, y, z, n);
  }
}

// Lanes of n fp32 values whose mask flag (byte i * es) is clear become +0. The 64- and
// 128-lane registers take a branch-free select over constant widths, which vectorises.
template <int N, int ES>
void ZeroInactiveN(float* x, const MaskReg& m) {
  for (int i = 0; i < N; ++i) x[i] = m.bit[i * ES] != 0 ? x[i] : 0.0f;
}
void ZeroInactive(float* x, int n, int es, const MaskReg& m) {
  if (n == 64 && es == 4) return ZeroInactiveN<64, 4>(x, m);
  if (n == 128 && es == 2) return ZeroInactiveN<128, 2>(x, m);
  for (int i = 0; i < n; ++i)
    if (!m.bit[i * es]) x[i] = 0.0f;
}

// Applies the predicate to computed fp32 lanes: inactive lanes become 0 or the merge source.
void MaskLanesF(float* z, int n, int es, const MaskReg& m, MergeMode mode, const VReg* merge_src) {
  if (mode == MergeMode::kMerging && merge_src && merge_src->dtype != DType::kFloat64) {
    alignas(64) float old[kMaxLanes];
    ToF32(*merge_src, old);
    for (int i = 0; i < n; ++i)
      if (!m.bit[i * es]) z[i] = old[i];
    return;
  }
  // A mask with every byte of the n lanes set (the ALL masks, full update_mask counts)
  // leaves every lane as computed.
  if (std::memchr(m.bit.data(), 0, static_cast<size_t>(n) * static_cast<size_t>(es)) == nullptr) return;
  ZeroInactive(z, n, es, m);
}

// The unsigned integer of a lane of ES bytes (1, 2, 4, 8).
template <int ES>
using LaneWord = std::conditional_t<ES == 1, uint8_t,
                                    std::conditional_t<ES == 2, uint16_t, std::conditional_t<ES == 4, uint32_t, uint64_t>>>;

// The per-lane undefined flags of a register: its own while it has such a lane, else all
// clear (a register's `undef` is valid only while any_undef), so lane loops read them without
// a test per lane.
const uint8_t* UndefFlags(const VReg* r) {
  static constexpr std::array<uint8_t, kVRegBytes> kNone{};
  return r && r->any_undef ? r->undef.data() : kNone.data();
}

// Undefined-lane propagation for lane-wise ops: an active lane is undefined when a source's
// lane is, an inactive one when the merge source's lane is (MERGING only).
void PropagateUndef(VReg& r, const VReg* a, const VReg* b, const MaskReg& m, MergeMode mode,
                    const VReg* merge_src) {
  const VReg* merge = mode == MergeMode::kMerging ? merge_src : nullptr;
  r.any_undef = false;
  if (!(a && a->any_undef) && !(b && b->any_undef) && !(merge && merge->any_undef)) return;
  const uint8_t *ua = UndefFlags(a), *ub = UndefFlags(b), *um = UndefFlags(merge);
  const int es = r.ElemBytes(), n = r.Lanes();
  uint8_t any = 0;
  for (int i = 0; i < n; ++i) {
    const uint8_t u = m.bit[i * es] != 0 ? ((ua[i] | ub[i]) != 0) : (um[i] != 0);
    r.undef[i] = u;
    any |= u;
  }
  r.any_undef = any != 0;
}

// The largest (MAX) or smallest active lane of an N-lane float register, NaN lanes skipped;
// -inf (MAX) or +inf when there is none. Lane-wise running extremes in eight columns, then
// across them: the same value the scan finds, but for the sign of a zero result.
template <int N, bool MAX>
float ExtremumN(const float* x, const MaskReg& m) {
  constexpr int kEs = kVRegBytes / N;
  constexpr float kInit = MAX ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  alignas(64) float t[N];
  if (AllActive(m)) std::memcpy(t, x, sizeof t);
  else for (int i = 0; i < N; ++i) t[i] = m.bit[i * kEs] ? x[i] : kInit;
  float col[8];
  for (int j = 0; j < 8; ++j) col[j] = kInit;
  for (int i = 0; i < N; i += 8)
    for (int j = 0; j < 8; ++j) {
      const float v = t[i + j];
      col[j] = (MAX ? v > col[j] : v < col[j]) ? v : col[j];
    }
  float best = kInit;
  for (int j = 0; j < 8; ++j) best = (MAX ? col[j] > best : col[j] < best) ? col[j] : best;
  return best;
}
// The same by a scan in lane order (MaxF / MinF, float_choice.h): a NaN lane is passed over
// and of equal values the later lane is kept, which decides the sign of a zero result.
float ScanExtremum(bool max, const float* x, const MaskReg& m, int es, int n) {
  float acc = max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  for (int i = 0; i < n; ++i) {
    if (!m.bit[i * es]) continue;
    const float v = x[i];
    if (v != v) continue;
    acc = max ? MaxF(acc, v) : MinF(acc, v);
  }
  return acc;
}

// The pairwise tree sum of n lanes (adjacent lanes first, then adjacent sums, ...), leaving
// x as it was; N > 0 fixes the lane count so the levels unroll and vectorise.
template <int N>
float PairwiseSum(const float* x, int n = N) {
  const int count = N > 0 ? N : n;
  alignas(64) float t[kMaxLanes / 2];
  for (int i = 0; i < count / 2; ++i) t[i] = x[2 * i] + x[2 * i + 1];
  for (int w = count / 4; w >= 1; w /= 2)
    for (int i = 0; i < w; ++i) t[i] = t[2 * i] + t[2 * i + 1];
  return count == 1 ? x[0] : t[0];
}

// Lane i of r (ES bytes) = `one` where the mask is set (every lane without a mask), else the
// merge source's lane i, else zero.
// Lanes are ES-byte words (the bytes as they are, so any pattern is kept): each case is one
// branch-free pass over a constant count, which vectorises.
template <int ES>
void FillLanesN(VReg& r, const uint8_t* one, const MaskReg* m, const VReg* merge) {
  using W = LaneWord<ES>;
  constexpr int kN = kVRegBytes / ES;
  W v;
  std::memcpy(&v, one, ES);
  alignas(64) W out[kN];
  if (!m) {
    for (int i = 0; i < kN; ++i) out[i] = v;
  } else if (!merge) {
    for (int i = 0; i < kN; ++i) out[i] = m->bit[i * ES] != 0 ? v : W{0};
  } else {
    alignas(64) W old[kN];
    std::memcpy(old, merge->raw.data(), kVRegBytes);
    for (int i = 0; i < kN; ++i) out[i] = m->bit[i * ES] != 0 ? v : old[i];
  }
  std::memcpy(r.raw.data(), out, kVRegBytes);
}
void FillLanes(VReg& r, int es, const uint8_t* one, const MaskReg* m, const VReg* merge) {
  WithLaneWidth(es, [&](auto w) { FillLanesN<decltype(w)::value>(r, one, m, merge); });
}

// r.undef[i] = lane i has a byte whose written flag is 0; any_undef = some lane has.
template <int ES>
void MarkUnwrittenLanes(const uint8_t* written, VReg& r) {
  uint8_t any = 0;
  for (int i = 0; i < kVRegBytes / ES; ++i) {
    uint8_t all = 1;
    for (int b = 0; b < ES; ++b) all &= written[i * ES + b] != 0 ? 1 : 0;
    r.undef[i] = all ^ 1;
    any |= all ^ 1;
  }
  r.any_undef = any != 0;
}

}  // namespace

std::optional<BinOp> ParseBinOp(std::string_view n) {
  if (n == "add") return BinOp::kAdd;
  if (n == "sub") return BinOp::kSub;
  if (n == "mul") return BinOp::kMul;
  if (n == "div") return BinOp::kDiv;
  if (n == "max") return BinOp::kMax;
  if (n == "min") return BinOp::kMin;
  return std::nullopt;
}

std::optional<UnOp> ParseUnOp(std::string_view n) {
  if (n == "exp") return UnOp::kExp;
  if (n == "ln" || n == "log") return UnOp::kLn;
  if (n == "sqrt") return UnOp::kSqrt;
  if (n == "abs") return UnOp::kAbs;
  if (n == "neg") return UnOp::kNeg;
  if (n == "relu") return UnOp::kRelu;
  if (n == "rsqrt") return UnOp::kRsqrt;
  if (n == "recip" || n == "reciprocal") return UnOp::kRecip;
  return std::nullopt;
}

std::optional<CmpOp> ParseCmpOp(std::string_view n) {
  if (n == "eq") return CmpOp::kEq;
  if (n == "ne") return CmpOp::kNe;
  if (n == "lt") return CmpOp::kLt;
  if (n == "le") return CmpOp::kLe;
  if (n == "gt") return CmpOp::kGt;
  if (n == "ge") return CmpOp::kGe;
  return std::nullopt;
}

std::optional<ReduceOp> ParseReduceOp(std::string_view n) {
  if (n == "reduce_sum") return ReduceOp::kSum;
  if (n == "reduce_max") return ReduceOp::kMax;
  if (n == "reduce_min") return ReduceOp::kMin;
  return std::nullopt;
}

std::optional<MaskReg> CreateMask(std::string_view pattern, DType dtype) {
  int w = static_cast<int>(DTypeSize(dtype));
  int lanes = kVRegBytes / w;
  std::string p(pattern);
  if (auto pos = p.rfind('.'); pos != std::string::npos) p = p.substr(pos + 1);
  if (p == "ALL") return MaskReg::FirstN(lanes, w);
  if (p == "ALLF") return MaskReg::FirstN(0, w);
  if (p == "H") return MaskReg::FirstN(lanes / 2, w);
  if (p == "Q") return MaskReg::FirstN(lanes / 4, w);
  if (p == "M3" || p == "M4") {
    int k = p == "M3" ? 3 : 4;
    MaskReg m;
    m.width = w;
    for (int i = 0; i < lanes; i += k) std::fill(m.bit.begin() + i * w, m.bit.begin() + (i + 1) * w, 1);
    return m;
  }
  if (p.size() > 2 && p.compare(0, 2, "VL") == 0) {
    int n = 0;
    for (size_t i = 2; i < p.size(); ++i) {
      if (p[i] < '0' || p[i] > '9') return std::nullopt;
      n = n * 10 + (p[i] - '0');
    }
    return MaskReg::FirstN(n, w);
  }
  return std::nullopt;
}

MaskReg UpdateMask(int64_t count, DType dtype) {
  return MaskReg::FirstN(count, static_cast<int>(DTypeSize(dtype)));
}

OPDEV_VECTOR_CLONES VReg Binary(BinOp op, const VReg& a, const VReg& b, const MaskReg& m,
                                MergeMode mode, const VReg* merge_src) {
  VReg r{VReg::Uninit{}};  // the float path writes every byte; the others start zeroed
  r.dtype = a.dtype;
  const int es = a.ElemBytes(), n = a.Lanes();
  if (IsFloatReg(a.dtype)) {
    alignas(64) float x[kMaxLanes], y[kMaxLanes], z[kMaxLanes];
    ToF32(a, x);
    ToF32(b, y);
    LoopBin(op, x, y, z, n);
    MaskLanesF(z, n, es, m, mode, merge_src);
    FromF32(z, r);
  } else {
    r.raw.fill(0);
    for (int i = 0; i < n; ++i) {
      if (m.bit[i * es]) r.Set(i, ApplyBinD(op, a.Get(i), b.Get(i)));
      else r.Set(i, mode == MergeMode::kMerging && merge_src ? merge_src->Get(i) : 0.0);
    }
  }
  PropagateUndef(r, &a, &b, m, mode, merge_src);
  return r;
}

OPDEV_VECTOR_CLONES VReg BinaryScalar(BinOp op, const VReg& a, double s, const MaskReg& m) {
  VReg r{VReg::Uninit{}};  // as in Binary
  r.dtype = a.dtype;
  const int es = a.ElemBytes(), n = a.Lanes();
  if (IsFloatReg(a.dtype)) {
    // The scalar operand is first represented in the register dtype.
    uint8_t tmp[8];
    StoreScalar(a.dtype, tmp, s);
    float sv = static_cast<float>(LoadScalar(a.dtype, tmp));
    alignas(64) float x[kMaxLanes], y[kMaxLanes], z[kMaxLanes];
    ToF32(a, x);
    for (int i = 0; i < n; ++i) y[i] = sv;
    LoopBin(op, x, y, z, n);
    MaskLanesF(z, n, es, m, MergeMode::kZeroing, nullptr);
    FromF32(z, r);
  } else {
    r.raw.fill(0);
    for (int i = 0; i < n; ++i) r.Set(i, m.bit[i * es] ? ApplyBinD(op, a.Get(i), s) : 0.0);
  }
  PropagateUndef(r, &a, nullptr, m, MergeMode::kZeroing, nullptr);
  return r;
}

OPDEV_VECTOR_CLONES VReg Unary(UnOp op, const VReg& a, const MaskReg& m, MergeMode mode, const VReg* merge_src) {
  VReg r{VReg::Uninit{}};  // as in Binary
  r.dtype = a.dtype;
  const int es = a.ElemBytes(), n = a.Lanes();
  alignas(64) float x[kMaxLanes], z[kMaxLanes];
  if (IsFloatReg(a.dtype)) ToF32(a, x);
  else for (int i = 0; i < n; ++i) x[i] = static_cast<float>(a.Get(i));
  switch (op) {
    case UnOp::kExp:
      // An inactive lane's result is replaced (zero or the merge source) below, so it enters
      // exp as 0 rather than as whatever its bytes hold (poison NaNs take exp's slow path).
      ZeroInactive(x, n, es, m);
      ExpF32(x, z, n);
      break;
    case UnOp::kLn: for (int i = 0; i < n; ++i) z[i] = std::log(x[i]); break;
    case UnOp::kSqrt: for (int i = 0; i < n; ++i) z[i] = std::sqrt(x[i]); break;
    case UnOp::kAbs: for (int i = 0; i < n; ++i) z[i] = std::fabs(x[i]); break;
    case UnOp::kNeg: for (int i = 0; i < n; ++i) z[i] = -x[i]; break;
    case UnOp::kRelu: for (int i = 0; i < n; ++i) z[i] = x[i] > 0.0f ? x[i] : 0.0f; break;
    case UnOp::kRsqrt: for (int i = 0; i < n; ++i) z[i] = 1.0f / std::sqrt(x[i]); break;
    case UnOp::kRecip: for (int i = 0; i < n; ++i) z[i] = 1.0f / x[i]; break;
  }
  if (IsFloatReg(a.dtype)) {
    MaskLanesF(z, n, es, m, mode, merge_src);
    FromF32(z, r);
  } else {
    r.raw.fill(0);
    for (int i = 0; i < n; ++i)
      r.Set(i, m.bit[i * es] ? z[i] : (mode == MergeMode::kMerging && merge_src ? merge_src->Get(i) : 0.0));
  }
  PropagateUndef(r, &a, nullptr, m, mode, merge_src);
  return r;
}

OPDEV_VECTOR_CLONES VReg ExpSub(const VReg& a, const VReg& b, const MaskReg& m, DType out_dtype, CastLayout layout) {
  VReg r{VReg::Uninit{}};  // the softmax path writes every byte; the others start zeroed
  r.dtype = out_dtype;
  if (a.dtype == DType::kFloat16 && b.dtype == DType::kFloat16 && out_dtype == DType::kFloat32) {
    // The softmax path: the 64 lanes of the chosen half are picked first, then widened, and
    // `exp` runs on them in one pass.
    // Output lane i reads source lane 2i + off: the low (ZERO) or high (ONE) half of 32-bit
    // word i of each register, and mask byte 4i + 2 off (byte order: little-endian, as
    // everywhere in the register model), so every loop below runs over whole words.
    const int off = layout == CastLayout::kOne ? 1 : 0;
    const int sh = 16 * off;
    alignas(64) uint16_t ah[64], bh[64];
    HalvesOfWords64(a.raw.data(), off, ah);
    HalvesOfWords64(b.raw.data(), off, bh);
    alignas(64) float x[64], y[64], d[64], z[64];
    F32FromHalvesN(ah, x, 64);
    F32FromHalvesN(bh, y, 64);
    for (int i = 0; i < 64; ++i) d[i] = x[i] - y[i];
    if (AllActive(m)) {
      ExpF32(d, d, 64);
      std::memcpy(r.raw.data(), d, kVRegBytes);
    } else {
      // Inactive lanes are zeroed whatever exp gives them, so they enter exp as 0: their
      // source bytes (poison, stale lanes) would send NaNs down exp's slow per-lane path.
      alignas(64) uint32_t mw[64];
      std::memcpy(mw, m.bit.data(), kVRegBytes);
      for (int i = 0; i < 64; ++i) d[i] = ((mw[i] >> sh) & 0xFFu) != 0 ? d[i] : 0.0f;
      ExpF32(d, d, 64);
      for (int i = 0; i < 64; ++i) z[i] = ((mw[i] >> sh) & 0xFFu) != 0 ? d[i] : 0.0f;
      std::memcpy(r.raw.data(), z, kVRegBytes);
    }
    r.any_undef = false;
    if (a.any_undef || b.any_undef) {
      const uint8_t *ua = UndefFlags(&a), *ub = UndefFlags(&b);
      uint8_t any = 0;
      for (int i = 0; i < 64; ++i) {
        const int s = 2 * i + off;
        const uint8_t u = FlagSet(m.bit[s * 2]) & FlagSet(ua[s] | ub[s]);
        r.undef[i] = u;
        any |= u;
      }
      r.any_undef = any != 0;
    }
    return r;
  }
  r.raw.fill(0);
  alignas(64) float x[kMaxLanes], y[kMaxLanes], z[kMaxLanes];
  ToF32(a, x);
  ToF32(b, y);
  const int es = a.ElemBytes();
  const int n_out = r.Lanes();
  if (a.dtype == DType::kFloat16 && out_dtype == DType::kFloat32) {
    const int off = layout == CastLayout::kOne ? 1 : 0;
    alignas(64) float d[kMaxLanes];
    for (int i = 0; i < n_out; ++i) d[i] = m.bit[(2 * i + off) * es] ? x[2 * i + off] - y[2 * i + off] : 0.0f;
    ExpF32(d, d, n_out);
    for (int i = 0; i < n_out; ++i) z[i] = m.bit[(2 * i + off) * es] ? d[i] : 0.0f;
    FromF32(z, r);
    r.any_undef = false;
    if (a.any_undef || b.any_undef) {
      for (int i = 0; i < n_out; ++i) {
        int s = 2 * i + off;
        bool u = m.bit[s * es] && (a.LaneUndef(s) || b.LaneUndef(s));
        r.undef[i] = u;
        r.any_undef |= u;
      }
    }
    return r;
  }
  const int n = a.Lanes();
  for (int i = 0; i < n; ++i) z[i] = x[i] - y[i];
  ZeroInactive(z, n, es, m);  // zeroed after exp either way: no inactive NaN enters it
  ExpF32(z, z, n);
  MaskLanesF(z, n, es, m, MergeMode::kZeroing, nullptr);
  r.dtype = a.dtype;
  FromF32(z, r);
  PropagateUndef(r, &a, &b, m, MergeMode::kZeroing, nullptr);
  return r;
}

OPDEV_VECTOR_CLONES VReg Reduce(ReduceOp op, const VReg& a, const MaskReg& m) {
  VReg r{VReg::Uninit{}};  // zeroed below
  r.dtype = a.dtype;
  const int es = a.ElemBytes(), n = a.Lanes();
  double result = 0;
  if (IsFloatReg(a.dtype)) {
    alignas(64) float x[kMaxLanes];
    ToF32(a, x);
    if (op == ReduceOp::kSum) {
      if (!AllActive(m)) ZeroInactive(x, n, es, m);
      float sum = n == 64 ? PairwiseSum<64>(x) : n == 128 ? PairwiseSum<128>(x) : PairwiseSum<0>(x, n);
      // A NaN sum: the tree again, each step with FirstNaNOr's NaN.
      if (sum != sum) {
        for (int w = n / 2; w >= 1; w /= 2)
          for (int i = 0; i < w; ++i) x[i] = FirstNaNOr(x[2 * i], x[2 * i + 1], x[2 * i] + x[2 * i + 1]);
        sum = x[0];
      }
      result = sum;
    } else {
      // The 64- and 128-lane registers take a branch-free pass first. It finds the extreme
      // value exactly unless that is a zero, whose sign the lane-by-lane scan decides.
      const bool max = op == ReduceOp::kMax;
      float acc = n == 64    ? (max ? ExtremumN<64, true>(x, m) : ExtremumN<64, false>(x, m))
                  : n == 128 ? (max ? ExtremumN<128, true>(x, m) : ExtremumN<128, false>(x, m))
                             : 0.0f;
      if (acc == 0.0f) acc = ScanExtremum(max, x, m, es, n);
      result = acc;
    }
  } else {
    bool first = true;
    for (int i = 0; i < n; ++i) {
      if (!m.bit[i * es]) continue;
      double v = a.Get(i);
      if (op == ReduceOp::kSum) result += v;
      else if (first) result = v;
      else result = op == ReduceOp::kMax ? std::max(result, v) : std::min(result, v);
      first = false;
    }
  }
  r.raw.fill(0);
  r.Set(0, result);
  r.any_undef = false;
  if (ActiveUndef(a, m)) {
    r.undef.fill(0);
    r.undef[0] = 1;
    r.any_undef = true;
  }
  return r;
}

VReg FullScalar(double v, DType dtype, const MaskReg* m, MergeMode mode, const VReg* merge_src) {
  VReg r{VReg::Uninit{}};  // FillLanes writes every byte
  r.dtype = dtype;
  uint8_t one[8];
  StoreScalar(dtype, one, v);
  FillLanes(r, r.ElemBytes(), one, m, mode == MergeMode::kMerging ? merge_src : nullptr);
  if (m) PropagateUndef(r, nullptr, nullptr, *m, mode, merge_src);
  return r;
}

VReg FullLane(const VReg& src, const MaskReg& m, bool highest, MergeMode mode,
              const VReg* merge_src) {
  VReg r{VReg::Uninit{}};  // FillLanes writes every byte
  r.dtype = src.dtype;
  const int es = r.ElemBytes(), n = r.Lanes();
  const int from = highest ? n - 1 : 0;
  FillLanes(r, es, src.raw.data() + from * es, &m, mode == MergeMode::kMerging ? merge_src : nullptr);
  r.any_undef = false;
  if (src.LaneUndef(from) || (mode == MergeMode::kMerging && merge_src && merge_src->any_undef)) {
    for (int i = 0; i < n; ++i) {
      bool u = m.bit[i * es] ? src.LaneUndef(from)
                             : (mode == MergeMode::kMerging && merge_src && merge_src->LaneUndef(i));
      r.undef[i] = u;
      r.any_undef |= u;
    }
  }
  return r;
}

VReg Select(const VReg& a, const VReg& b, const MaskReg& m) {
  VReg r{VReg::Uninit{}};  // every lane's bytes copied below
  r.dtype = a.dtype;
  const int es = r.ElemBytes(), n = r.Lanes();
  for (int i = 0; i < n; ++i)
    std::memcpy(r.raw.data() + i * es, (m.bit[i * es] ? a : b).raw.data() + i * es, es);
  r.any_undef = false;
  if (a.any_undef || b.any_undef) {
    for (int i = 0; i < n; ++i) {
      bool u = m.bit[i * es] ? a.LaneUndef(i) : b.LaneUndef(i);
      r.undef[i] = u;
      r.any_undef |= u;
    }
  }
  return r;
}

namespace {
bool Cmp(CmpOp op, double x, double y) {
  switch (op) {
    case CmpOp::kEq: return x == y;
    case CmpOp::kNe: return x != y;
    case CmpOp::kLt: return x < y;
    case CmpOp::kLe: return x <= y;
    case CmpOp::kGt: return x > y;
    case CmpOp::kGe: return x >= y;
  }
  return false;
}
}  // namespace

MaskReg Compare(CmpOp op, const VReg& a, const VReg& b, const MaskReg& m) {
  MaskReg out;
  const int es = a.ElemBytes(), n = a.Lanes();
  out.width = es;
  for (int i = 0; i < n; ++i) {
    bool v = m.bit[i * es] && Cmp(op, a.Get(i), b.Get(i));
    std::fill(out.bit.begin() + i * es, out.bit.begin() + (i + 1) * es, v ? 1 : 0);
  }
  return out;
}

MaskReg CompareScalar(CmpOp op, const VReg& a, double s, const MaskReg& m) {
  MaskReg out;
  const int es = a.ElemBytes(), n = a.Lanes();
  out.width = es;
  uint8_t tmp[8];
  StoreScalar(a.dtype, tmp, s);
  double sv = LoadScalar(a.dtype, tmp);
  for (int i = 0; i < n; ++i) {
    bool v = m.bit[i * es] && Cmp(op, a.Get(i), sv);
    std::fill(out.bit.begin() + i * es, out.bit.begin() + (i + 1) * es, v ? 1 : 0);
  }
  return out;
}

OPDEV_VECTOR_CLONES VReg AsType(const VReg& a, const MaskReg& m, DType to, CastLayout layout) {
  VReg r{VReg::Uninit{}};  // zeroed below
  r.dtype = to;
  r.raw.fill(0);
  r.undef.fill(0);
  r.any_undef = false;
  const int es_from = a.ElemBytes();
  const int es_to = r.ElemBytes();
  const int off = layout == CastLayout::kOne ? 1 : layout == CastLayout::kTwo ? 2 : layout == CastLayout::kThree ? 3 : 0;
  // Fast paths: fp32 <-> fp16/bf16 halves (the softmax casts), all lanes defined.
  if (!a.any_undef && IsFloatReg(a.dtype) && IsFloatReg(to)) {
    alignas(64) float x[kMaxLanes];
    ToF32(a, x);
    const bool done = to == DType::kFloat32
                          ? AsTypeFloat<float>(x, to, m, es_from, es_to, a.Lanes(), off, r)
                          : AsTypeFloat<uint16_t>(x, to, m, es_from, es_to, a.Lanes(), off, r);
    if (done) return r;
  }
  auto convert = [&](int src_lane, int dst_lane) {
    if (!m.bit[src_lane * es_from]) return;
    r.Set(dst_lane, a.Get(src_lane));
    if (a.LaneUndef(src_lane)) {
      r.undef[dst_lane] = 1;
      r.any_undef = true;
    }
  };
  if (es_to == es_from) {
    for (int i = 0; i < a.Lanes(); ++i) convert(i, i);
  } else if (es_to > es_from) {
    const int ratio = es_to / es_from;
    for (int i = 0; i < r.Lanes(); ++i) convert(ratio * i + (off % ratio), i);
  } else {
    const int ratio = es_from / es_to;
    for (int i = 0; i < a.Lanes(); ++i) convert(i, ratio * i + (off % ratio));
  }
  return r;
}

namespace {

// Element e of the 2 * n elements of the pair (a, b), each `es` bytes.
const uint8_t* PairElem(const uint8_t* a, const uint8_t* b, int n, int es, int e) {
  return e < n ? a + e * es : b + (e - n) * es;
}
uint8_t* PairElem(uint8_t* a, uint8_t* b, int n, int es, int e) {
  return e < n ? a + e * es : b + (e - n) * es;
}

// ShufflePair's bytes for elements of type T: the pair copied into one array, one pass with
// the element size known, one copy back.
template <typename T, typename From>
void ShuffleTyped(const uint8_t* a, const uint8_t* b, uint8_t* da, uint8_t* db, From from) {
  constexpr int n = kVRegBytes / static_cast<int>(sizeof(T));
  T src[2 * n], dst[2 * n];
  std::memcpy(src, a, kVRegBytes);
  std::memcpy(src + n, b, kVRegBytes);
  for (int e = 0; e < 2 * n; ++e) dst[e] = src[from(e, n)];
  std::memcpy(da, dst, kVRegBytes);
  std::memcpy(db, dst + n, kVRegBytes);
}

// Moves element `from(e)` of the source pair to element e of the destination pair for every e
// (bytes and, when `ua`/`ub` are given, one undefined flag per element).
template <typename From>
void ShufflePair(const uint8_t* a, const uint8_t* b, uint8_t* da, uint8_t* db, int es, From from,
                 const uint8_t* ua = nullptr, const uint8_t* ub = nullptr, uint8_t* dua = nullptr,
                 uint8_t* dub = nullptr) {
  if (!dua) {
    switch (es) {
      case 1: ShuffleTyped<uint8_t>(a, b, da, db, from); return;
      case 2: ShuffleTyped<uint16_t>(a, b, da, db, from); return;
      case 4: ShuffleTyped<uint32_t>(a, b, da, db, from); return;
      case 8: ShuffleTyped<uint64_t>(a, b, da, db, from); return;
      default: break;
    }
  }
  const int n = kVRegBytes / es;
  for (int e = 0; e < 2 * n; ++e) {
    const int s = from(e, n);
    std::memcpy(PairElem(da, db, n, es, e), PairElem(a, b, n, es, s), es);
    if (dua) *PairElem(dua, dub, n, 1, e) = *PairElem(ua, ub, n, 1, s);
  }
}

int DeInterleaveFrom(int e, int n) { return e < n ? 2 * e : 2 * (e - n) + 1; }
int InterleaveFrom(int e, int n) { return e % 2 == 0 ? e / 2 : n + e / 2; }

template <int (*FROM)(int, int)>
std::pair<VReg, VReg> ShuffleRegs(const VReg& a, const VReg& b) {
  std::pair<VReg, VReg> r;
  r.first.dtype = r.second.dtype = a.dtype;
  const int es = a.ElemBytes(), n = a.Lanes();
  const bool undef = a.any_undef || b.any_undef;
  std::array<uint8_t, kVRegBytes> ua{}, ub{};
  if (undef)
    for (int i = 0; i < n; ++i) ua[i] = a.LaneUndef(i), ub[i] = b.LaneUndef(i);
  ShufflePair(a.raw.data(), b.raw.data(), r.first.raw.data(), r.second.raw.data(), es, FROM,
              undef ? ua.data() : nullptr, undef ? ub.data() : nullptr, undef ? r.first.undef.data() : nullptr,
              undef ? r.second.undef.data() : nullptr);
  for (VReg* d : {&r.first, &r.second}) {
    d->any_undef = false;
    if (undef)
      for (int i = 0; i < n; ++i) d->any_undef |= d->undef[i] != 0;
  }
  return r;
}

template <int (*FROM)(int, int)>
std::pair<MaskReg, MaskReg> ShuffleMasks(const MaskReg& a, const MaskReg& b) {
  std::pair<MaskReg, MaskReg> r;
  r.first.width = r.second.width = a.width;
  ShufflePair(a.bit.data(), b.bit.data(), r.first.bit.data(), r.second.bit.data(), a.width, FROM);
  return r;
}

}  // namespace

std::pair<VReg, VReg> DeInterleave(const VReg& a, const VReg& b) { return ShuffleRegs<DeInterleaveFrom>(a, b); }

namespace {
uint8_t BitByte(BitOp op, uint8_t x, uint8_t y) {
  switch (op) {
    case BitOp::kAnd: return static_cast<uint8_t>(x & y);
    case BitOp::kOr: return static_cast<uint8_t>(x | y);
    case BitOp::kXor: return static_cast<uint8_t>(x ^ y);
    case BitOp::kNot: return static_cast<uint8_t>(~x);
  }
  return 0;
}
}  // namespace

VReg Bitwise(BitOp op, const VReg& a, const VReg* b, const MaskReg& m) {
  VReg r{VReg::Uninit{}};  // zeroed below
  r.dtype = a.dtype;
  r.raw.fill(0);
  const int es = a.ElemBytes(), n = a.Lanes();
  r.any_undef = false;
  r.undef.fill(0);
  for (int i = 0; i < n; ++i) {
    if (!m.bit[i * es]) continue;
    for (int k = 0; k < es; ++k)
      r.raw[i * es + k] = BitByte(op, a.raw[i * es + k], b ? b->raw[i * es + k] : 0);
    if (a.LaneUndef(i) || (b && b->LaneUndef(i))) {
      r.undef[i] = 1;
      r.any_undef = true;
    }
  }
  return r;
}

MaskReg Bitwise(BitOp op, const MaskReg& a, const MaskReg* b, const MaskReg& m) {
  MaskReg r;
  r.width = a.width;
  for (int i = 0; i < kVRegBytes; ++i)
    r.bit[i] = m.bit[i] ? static_cast<uint8_t>(BitByte(op, a.bit[i], b ? b->bit[i] : 0) & 1) : 0;
  return r;
}

std::pair<VReg, VReg> LoadDeInterleaved(const uint8_t* p, const uint8_t* written, DType dtype) {
  const VReg lo = LoadBytes(p, written, dtype);
  const VReg hi = LoadBytes(p + kVRegBytes, written ? written + kVRegBytes : nullptr, dtype);
  return DeInterleave(lo, hi);
}
std::pair<VReg, VReg> Interleave(const VReg& a, const VReg& b) { return ShuffleRegs<InterleaveFrom>(a, b); }
std::pair<MaskReg, MaskReg> DeInterleave(const MaskReg& a, const MaskReg& b) {
  return ShuffleMasks<DeInterleaveFrom>(a, b);
}
std::pair<MaskReg, MaskReg> Interleave(const MaskReg& a, const MaskReg& b) {
  return ShuffleMasks<InterleaveFrom>(a, b);
}

VReg LoadBytes(const uint8_t* p, const uint8_t* written, DType dtype) {
  VReg r{VReg::Uninit{}};  // every byte copied below
  r.dtype = dtype;
  std::memcpy(r.raw.data(), p, kVRegBytes);
  r.any_undef = false;
  if (written && std::memchr(written, 0, kVRegBytes) != nullptr) {
    // A lane is undefined when any of its bytes was never written (a row's tail).
    WithLaneWidth(r.ElemBytes(), [&](auto es) { MarkUnwrittenLanes<decltype(es)::value>(written, r); });
  }
  return r;
}

namespace {
// StoreBytes for lanes of ES bytes: every lane of the 256 bytes at p (and of `written`) is
// blended, the active ones taking the register's bytes (written: 1, or 0 for an undefined
// lane), the others keeping theirs; no branch per lane, so the loops vectorise.
template <int ES>
bool StoreLanesN(const VReg& r, const MaskReg& m, uint8_t* p, uint8_t* written) {
  using W = LaneWord<ES>;
  constexpr int kN = kVRegBytes / ES;
  constexpr W kOnes = static_cast<W>(static_cast<W>(~W{0}) / 0xFF);  // a 1 in every byte
  alignas(64) W src[kN], dst[kN];
  std::memcpy(src, r.raw.data(), kVRegBytes);
  std::memcpy(dst, p, kVRegBytes);
  for (int i = 0; i < kN; ++i) dst[i] = m.bit[i * ES] != 0 ? src[i] : dst[i];
  std::memcpy(p, dst, kVRegBytes);
  const uint8_t* u = UndefFlags(&r);
  uint8_t undef_stored = 0;
  for (int i = 0; i < kN; ++i) undef_stored |= FlagSet(m.bit[i * ES]) & FlagSet(u[i]);
  if (written) {
    // The written flags of an active lane's bytes: 1 when the lane is defined, 0 when not.
    alignas(64) W w[kN];
    std::memcpy(w, written, kVRegBytes);
    for (int i = 0; i < kN; ++i) w[i] = m.bit[i * ES] != 0 ? (u[i] == 0 ? kOnes : W{0}) : w[i];
    std::memcpy(written, w, kVRegBytes);
  }
  return undef_stored != 0;
}
}  // namespace

OPDEV_VECTOR_CLONES bool StoreBytes(const VReg& r, const MaskReg& m, uint8_t* p, uint8_t* written) {
  const int es = r.ElemBytes(), n = r.Lanes();
  bool all = AllActive(m);
  if (!all) {
    all = true;
    for (int i = 0; i < n && all; ++i) all = m.bit[i * es] != 0;
  }
  if (all && !r.any_undef) {
    std::memcpy(p, r.raw.data(), kVRegBytes);
    if (written) std::memset(written, 1, kVRegBytes);
    return false;
  }
  return WithLaneWidth(es, [&](auto w) { return StoreLanesN<decltype(w)::value>(r, m, p, written); });
}

}  // namespace vf
}  // namespace opdev::sim
