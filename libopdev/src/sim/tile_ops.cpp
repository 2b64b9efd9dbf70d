// Element loops of the tile vector operations, with definedness tracking per element.
#include "opdev/sim/tile_ops.h"

#include "opdev/sim/hazards.h"

#include "exp_f32.h"
#include "float_choice.h"
#include "lane_convert.h"
#include "tile_view.h"
#include "vector_clones.h"

#include "absl/strings/str_format.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace opdev::sim::tileop {

namespace {

// fp32 maximum / minimum are MaxF / MinF, and addition and multiplication name their NaN
// (float_choice.h; the row loops through FirstNaNLanes), so the per-element and the row loops
// agree whatever the compiler commutes.
float AddF(float a, float b) { return FirstNaNOr(a, b, a + b); }
float MulF(float a, float b) { return FirstNaNOr(a, b, a * b); }

// ---- row loops ---------------------------------------------------------------------------
// A row of an ND tile of a float dtype (fp32, fp16, bf16) lies contiguously in memory; when
// the whole row is inside the buffer, the operations below convert it to fp32 in one pass,
// compute the row in typed loops and round it back in one pass, instead of a dtype dispatch
// and a written-flag check per element. A row whose elements are not all written (or that
// leaves the buffer, or a tile of another layout or dtype) takes the per-element path, so
// undefined-element counts, flags and results are those of the per-element loops.

constexpr int64_t kRowChunk = 512;  // elements per pass (rows longer than this go in chunks)

bool RowFloat(DType t) { return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16; }

// Byte offset of elements [c0, c0 + n) of row r when they are contiguous and inside the
// buffer, else -1.
int64_t RowBytes(const View& v, int64_t r, int64_t c0, int64_t n) {
  if (!RowFloat(v.t->type.dtype) || v.t->type.EffectiveLayout() != Layout::kND) return -1;
  const uint64_t off = v.t->addr + v.t->ElementOffset(r, c0);
  if (off + static_cast<uint64_t>(n) * v.t->elem_size() > v.buf->bytes.size()) return -1;
  return static_cast<int64_t>(off);
}

// Elements [c0, c0 + n) of row r as fp32 (exact) when the row is contiguous and every byte
// of it was written; false otherwise (nothing read).
bool LoadRow(const View& v, int64_t r, int64_t c0, int64_t n, float* x) {
  const int64_t off = RowBytes(v, r, c0, n);
  if (off < 0) return false;
  const size_t bytes = static_cast<size_t>(n) * v.t->elem_size();
  if (std::memchr(v.buf->written.data() + off, 0, bytes) != nullptr) return false;
  const uint8_t* p = v.buf->bytes.data() + off;
  alignas(64) uint16_t h[kRowChunk];
  switch (v.t->type.dtype) {
    case DType::kFloat32: std::memcpy(x, p, bytes); break;
    case DType::kFloat16: std::memcpy(h, p, bytes); F32FromHalvesN(h, x, n); break;
    default: std::memcpy(h, p, bytes); F32FromBFloat16N(h, x, n); break;
  }
  return true;
}


// Stores fp32 values into elements [c0, c0 + n) of row r (the caller checked RowBytes),
// rounding to nearest even as StoreScalar does, with their written flags and provenance.
void StoreRow(View& v, int64_t r, int64_t c0, int64_t n, const float* z, bool defined) {
  const int64_t off = RowBytes(v, r, c0, n);
  const size_t bytes = static_cast<size_t>(n) * v.t->elem_size();
  v.buf->Touch(static_cast<uint64_t>(off), static_cast<uint64_t>(off) + bytes);
  uint8_t* p = v.buf->bytes.data() + off;
  alignas(64) uint16_t h[kRowChunk];
  switch (v.t->type.dtype) {
    case DType::kFloat32: std::memcpy(p, z, bytes); break;
    case DType::kFloat16: HalvesFromF32N(z, h, n); std::memcpy(p, h, bytes); break;
    default: BFloat16FromF32N(z, h, n); std::memcpy(p, h, bytes); break;
  }
  std::memset(v.buf->written.data() + off, defined ? 1 : 0, bytes);
  if (!v.buf->origin.empty()) std::fill_n(v.buf->origin.begin() + off, bytes, WriteOrigin{v.line, -1, 0});
}

// Whether reading `in` row by row while writing `out` row by row gives what the per-element
// loop gives: the rows of the two are the same bytes (element c read before it is written)
// or do not overlap.
bool RowSafe(const View& out, int64_t r, const View& in, int64_t r_in, int64_t c0, int64_t n) {
  if (out.buf != in.buf) return true;
  const int64_t o = RowBytes(out, r, c0, n), i = RowBytes(in, r_in, c0, n);
  const int64_t ol = n * static_cast<int64_t>(out.t->elem_size()), il = n * static_cast<int64_t>(in.t->elem_size());
  if (o == i && ol == il) return true;
  return o + ol <= i || i + il <= o;
}

// Whether element (r, c) of `in`, read once for a whole row of `out`, stays unchanged while
// that row is written (its bytes are outside the row).
bool ElementOutsideRow(const View& out, int64_t r, int64_t cols, const View& in, int64_t ri, int64_t ci) {
  if (out.buf != in.buf) return true;
  const int64_t o = RowBytes(out, r, 0, cols);
  const int64_t ol = cols * static_cast<int64_t>(out.t->elem_size());
  const int64_t e = static_cast<int64_t>(in.t->addr + in.t->ElementOffset(ri, ci));
  return e + static_cast<int64_t>(in.t->elem_size()) <= o || o + ol <= e;
}

// f over n lanes of row buffers that never alias (each row pass has its own arrays): blocks of
// a constant 16 lanes, which the compiler vectorises at any optimisation level, then the tail.
// Every lane gets the same IEEE result either way (no contraction across lanes or operations).
template <typename F>
void Lanes(const float* __restrict x, const float* __restrict y, float* __restrict z, int64_t n, F f) {
  constexpr int64_t kBlock = 16;
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock)
    for (int64_t j = 0; j < kBlock; ++j) z[i + j] = f(x[i + j], y[i + j]);
  for (; i < n; ++i) z[i] = f(x[i], y[i]);
}

// f over n lanes of a row buffer and one scalar: z[i] = f(x[i], s), in blocks as Lanes does.
template <typename F>
void ScalarLanes(const float* __restrict x, float s, float* __restrict z, int64_t n, F f) {
  constexpr int64_t kBlock = 16;
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock)
    for (int64_t j = 0; j < kBlock; ++j) z[i + j] = f(x[i + j], s);
  for (; i < n; ++i) z[i] = f(x[i], s);
}

// The fp32 binary operation of ApplyBin over n lanes.
OPDEV_VECTOR_CLONES void RowBin(Bin op, const float* x, const float* y, float* z, int64_t n) {
  switch (op) {
    case Bin::kAdd:
      Lanes(x, y, z, n, [](float a, float b) { return a + b; });
      FirstNaNLanes(x, y, z, n);
      break;
    case Bin::kSub: Lanes(x, y, z, n, [](float a, float b) { return a - b; }); break;
    case Bin::kMul:
      Lanes(x, y, z, n, [](float a, float b) { return a * b; });
      FirstNaNLanes(x, y, z, n);
      break;
    case Bin::kDiv: Lanes(x, y, z, n, [](float a, float b) { return a / b; }); break;
    case Bin::kMax: for (int64_t i = 0; i < n; ++i) z[i] = MaxF(x[i], y[i]); break;
    case Bin::kMin: for (int64_t i = 0; i < n; ++i) z[i] = MinF(x[i], y[i]); break;
  }
}

// RowBin with one operand a scalar: op(x[i], s), or op(s, x[i]) when `scalar_first`.
OPDEV_VECTOR_CLONES void RowBinScalar(Bin op, const float* x, float s, float* z, int64_t n, bool scalar_first) {
  auto run = [&](auto f) {
    if (scalar_first) ScalarLanes(x, s, z, n, [f](float a, float b) { return f(b, a); });
    else ScalarLanes(x, s, z, n, f);
  };
  switch (op) {
    case Bin::kAdd:
      run([](float a, float b) { return a + b; });
      FirstNaNLanes(x, s, z, n, scalar_first);
      break;
    case Bin::kSub: run([](float a, float b) { return a - b; }); break;
    case Bin::kMul:
      run([](float a, float b) { return a * b; });
      FirstNaNLanes(x, s, z, n, scalar_first);
      break;
    case Bin::kDiv: run([](float a, float b) { return a / b; }); break;
    case Bin::kMax:
      for (int64_t i = 0; i < n; ++i) z[i] = scalar_first ? MaxF(s, x[i]) : MaxF(x[i], s);
      break;
    case Bin::kMin:
      for (int64_t i = 0; i < n; ++i) z[i] = scalar_first ? MinF(s, x[i]) : MinF(x[i], s);
      break;
  }
}

// The fp32 unary operation of ApplyUn over n lanes.
OPDEV_VECTOR_CLONES void RowUn(Un op, const float* x, float* z, int64_t n) {
  switch (op) {
    case Un::kExp: ExpF32(x, z, n); break;
    case Un::kLog: for (int64_t i = 0; i < n; ++i) z[i] = std::log(x[i]); break;
    case Un::kSqrt: for (int64_t i = 0; i < n; ++i) z[i] = std::sqrt(x[i]); break;
    case Un::kRsqrt: for (int64_t i = 0; i < n; ++i) z[i] = 1.0f / std::sqrt(x[i]); break;
    case Un::kAbs: for (int64_t i = 0; i < n; ++i) z[i] = std::fabs(x[i]); break;
    case Un::kNeg: for (int64_t i = 0; i < n; ++i) z[i] = -x[i]; break;
    case Un::kRelu: for (int64_t i = 0; i < n; ++i) z[i] = x[i] > 0 ? x[i] : 0.0f; break;
    case Un::kRecip: for (int64_t i = 0; i < n; ++i) z[i] = 1.0f / x[i]; break;
  }
}


// Rounds through fp32 for float dtypes (the unit computes in fp32), keeps integers exact.
double Compute(DType t, double v) {
  if (t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16)
    return static_cast<double>(static_cast<float>(v));
  return v;
}

double ApplyBin(Bin op, double x, double y, DType t) {
  const bool f = IsFloating(t);
  if (f) {
    float a = static_cast<float>(x), b = static_cast<float>(y);
    switch (op) {
      case Bin::kAdd: return AddF(a, b);
      case Bin::kSub: return a - b;
      case Bin::kMul: return MulF(a, b);
      case Bin::kDiv: return a / b;
      case Bin::kMax: return MaxF(a, b);
      case Bin::kMin: return MinF(a, b);
    }
  }
  switch (op) {
    case Bin::kAdd: return x + y;
    case Bin::kSub: return x - y;
    case Bin::kMul: return x * y;
    case Bin::kDiv: return y == 0 ? 0 : std::trunc(x / y);
    case Bin::kMax: return std::max(x, y);
    case Bin::kMin: return std::min(x, y);
  }
  return 0;
}

double ApplyUn(Un op, double x) {
  float a = static_cast<float>(x);
  switch (op) {
    case Un::kExp: return std::exp(a);
    case Un::kLog: return std::log(a);
    case Un::kSqrt: return std::sqrt(a);
    case Un::kRsqrt: return 1.0f / std::sqrt(a);
    case Un::kAbs: return std::fabs(a);
    case Un::kNeg: return -a;
    case Un::kRelu: return a > 0 ? a : 0.0f;
    case Un::kRecip: return 1.0f / a;
  }
  return 0;
}


void CheckSameDtype(std::vector<Issue>& issues, const char* op, const Tile& a, const Tile& b) {
  if (a.type.dtype != b.type.dtype)
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("%s: tile '%s' is %s but tile '%s' is %s", op, a.name,
                                      std::string(DTypeName(a.type.dtype)), b.name,
                                      std::string(DTypeName(b.type.dtype)))});
}

bool IsIntegerDtype(DType t) { return !IsFloating(t) && t != DType::kBool; }

void CheckInteger(std::vector<Issue>& issues, const char* op, const Tile& t) {
  if (!IsIntegerDtype(t.type.dtype))
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("%s: tile '%s' is %s; the operation takes 8/16/32/64-bit integer tiles",
                                      op, t.name, std::string(DTypeName(t.type.dtype)))});
}

const char* BitName(Bit op) {
  switch (op) {
    case Bit::kAnd: return "pl.and_";
    case Bit::kOr: return "bitwise or";
    case Bit::kXor: return "pl.xor";
    case Bit::kShl: return "pl.shl";
    case Bit::kShr: return "pl.shr";
  }
  return "bitwise op";
}

// One element of a bit op; *bad is set for a shift amount outside [0, bits).
int64_t ApplyBit(Bit op, int64_t x, int64_t y, DType t, bool* bad) {
  const int bits = static_cast<int>(DTypeSize(t) * 8);
  switch (op) {
    case Bit::kAnd: return x & y;
    case Bit::kOr: return x | y;
    case Bit::kXor: return x ^ y;
    case Bit::kShl:
    case Bit::kShr: {
      if (y < 0 || y >= bits) { *bad = true; return 0; }
      const uint64_t mask = bits == 64 ? ~0ULL : ((1ULL << bits) - 1);
      const uint64_t ux = static_cast<uint64_t>(x) & mask;
      if (op == Bit::kShl) return static_cast<int64_t>((ux << y) & mask);
      if (IsSigned(t)) return x >> y;  // x is sign-extended: arithmetic shift
      return static_cast<int64_t>(ux >> y);
    }
  }
  return 0;
}

std::vector<Issue> BitwiseImpl(CoreMemory& mem, Bit op, Tile& out, const Tile& a, const Tile* b, int64_t s) {
  std::vector<Issue> issues;
  const char* name = BitName(op);
  CheckInteger(issues, name, out);
  CheckSameDtype(issues, name, out, a);
  if (b) CheckSameDtype(issues, name, a, *b);
  if (!issues.empty()) return issues;
  View vo = V(mem, out), va = V(mem, a);
  View vb = b ? V(mem, *b) : va;
  int64_t undef = 0, bad = 0;
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c = 0; c < out.valid_cols; ++c) {
      bool u = false, wrong = false;
      int64_t x = va.GetInt(r, c, &u);
      int64_t y = b ? vb.GetInt(r, c, &u) : s;
      int64_t v = ApplyBit(op, x, y, out.type.dtype, &wrong);
      undef += u;
      bad += wrong;
      vo.SetInt(r, c, v, !u && !wrong);
    }
  if (bad > 0)
    issues.push_back({hazard::kRuntimeError,
                      absl::StrFormat("%s into tile '%s': %d shift amount(s) outside [0, %d) (the docs leave "
                                      "the result undefined)", name, out.name, bad,
                                      DTypeSize(out.type.dtype) * 8)});
  ReportUndef(issues, undef, name, out);
  return issues;
}

}  // namespace

std::optional<Bin> ParseBin(std::string_view n) {
  if (n == "add") return Bin::kAdd;
  if (n == "sub") return Bin::kSub;
  if (n == "mul") return Bin::kMul;
  if (n == "div") return Bin::kDiv;
  if (n == "maximum" || n == "max") return Bin::kMax;
  if (n == "minimum" || n == "min") return Bin::kMin;
  return std::nullopt;
}

std::optional<Un> ParseUn(std::string_view n) {
  if (n == "exp") return Un::kExp;
  if (n == "log" || n == "ln") return Un::kLog;
  if (n == "sqrt") return Un::kSqrt;
  if (n == "rsqrt") return Un::kRsqrt;
  if (n == "abs") return Un::kAbs;
  if (n == "neg") return Un::kNeg;
  if (n == "relu") return Un::kRelu;
  if (n == "recip" || n == "reciprocal") return Un::kRecip;
  return std::nullopt;
}

std::vector<Issue> Binary(CoreMemory& mem, Bin op, Tile& out, const Tile& a, const Tile& b) {
  std::vector<Issue> issues;
  CheckSameDtype(issues, "tile binary op", a, b);
  View vo = V(mem, out), va = V(mem, a), vb = V(mem, b);
  int64_t undef = 0;
  alignas(64) float xr[kRowChunk], yr[kRowChunk], zr[kRowChunk];
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c0 = 0; c0 < out.valid_cols; c0 += kRowChunk) {
      const int64_t n = std::min(kRowChunk, out.valid_cols - c0);
      if (RowBytes(vo, r, c0, n) >= 0 && RowSafe(vo, r, va, r, c0, n) && RowSafe(vo, r, vb, r, c0, n) &&
          LoadRow(va, r, c0, n, xr) && LoadRow(vb, r, c0, n, yr)) {
        RowBin(op, xr, yr, zr, n);
        StoreRow(vo, r, c0, n, zr, true);
        continue;
      }
      for (int64_t c = c0; c < c0 + n; ++c) {
        bool u = false;
        double x = va.Get(r, c, &u), y = vb.Get(r, c, &u);
        undef += u;
        vo.Set(r, c, ApplyBin(op, x, y, out.type.dtype), !u);
      }
    }
  ReportUndef(issues, undef, "tile binary op", out);
  return issues;
}

std::vector<Issue> BinaryScalar(CoreMemory& mem, Bin op, Tile& out, const Tile& a, double s,
                                bool scalar_first) {
  std::vector<Issue> issues;
  View vo = V(mem, out), va = V(mem, a);
  int64_t undef = 0;
  double sv = Compute(a.type.dtype, s);
  alignas(64) float xr[kRowChunk], zr[kRowChunk];
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c0 = 0; c0 < out.valid_cols; c0 += kRowChunk) {
      const int64_t n = std::min(kRowChunk, out.valid_cols - c0);
      if (RowBytes(vo, r, c0, n) >= 0 && RowSafe(vo, r, va, r, c0, n) && LoadRow(va, r, c0, n, xr)) {
        RowBinScalar(op, xr, static_cast<float>(sv), zr, n, scalar_first);
        StoreRow(vo, r, c0, n, zr, true);
        continue;
      }
      for (int64_t c = c0; c < c0 + n; ++c) {
        bool u = false;
        double x = va.Get(r, c, &u);
        undef += u;
        vo.Set(r, c, scalar_first ? ApplyBin(op, sv, x, out.type.dtype) : ApplyBin(op, x, sv, out.type.dtype), !u);
      }
    }
  ReportUndef(issues, undef, "tile scalar op", out);
  return issues;
}

std::vector<Issue> Unary(CoreMemory& mem, Un op, Tile& out, const Tile& a) {
  std::vector<Issue> issues;
  View vo = V(mem, out), va = V(mem, a);
  int64_t undef = 0;
  alignas(64) float xr[kRowChunk], zr[kRowChunk];
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c0 = 0; c0 < out.valid_cols; c0 += kRowChunk) {
      const int64_t n = std::min(kRowChunk, out.valid_cols - c0);
      if (RowBytes(vo, r, c0, n) >= 0 && RowSafe(vo, r, va, r, c0, n) && LoadRow(va, r, c0, n, xr)) {
        RowUn(op, xr, zr, n);
        StoreRow(vo, r, c0, n, zr, true);
        continue;
      }
      for (int64_t c = c0; c < c0 + n; ++c) {
        bool u = false;
        double x = va.Get(r, c, &u);
        undef += u;
        vo.Set(r, c, ApplyUn(op, x), !u);
      }
    }
  ReportUndef(issues, undef, "tile unary op", out);
  return issues;
}

std::vector<Issue> Bitwise(CoreMemory& mem, Bit op, Tile& out, const Tile& a, const Tile& b) {
  return BitwiseImpl(mem, op, out, a, &b, 0);
}

std::vector<Issue> BitwiseScalar(CoreMemory& mem, Bit op, Tile& out, const Tile& a, int64_t s) {
  return BitwiseImpl(mem, op, out, a, nullptr, s);
}

std::vector<Issue> PartBinary(CoreMemory& mem, Bin op, Tile& out, const Tile& a, const Tile& b) {
  std::vector<Issue> issues;
  CheckSameDtype(issues, "part op", out, a);
  CheckSameDtype(issues, "part op", a, b);
  const bool a_full = a.valid_rows == out.valid_rows && a.valid_cols == out.valid_cols;
  const bool b_full = b.valid_rows == out.valid_rows && b.valid_cols == out.valid_cols;
  if (!a_full && !b_full)
    issues.push_back({hazard::kValidShape,
                      absl::StrFormat("part op into tile '%s' [%d, %d]: neither source's valid shape ([%d, %d], "
                                      "[%d, %d]) equals the destination's (partadd.md)",
                                      out.name, out.valid_rows, out.valid_cols, a.valid_rows, a.valid_cols,
                                      b.valid_rows, b.valid_cols)});
  if (!issues.empty()) return issues;
  View vo = V(mem, out), va = V(mem, a), vb = V(mem, b);
  int64_t undef = 0;
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c = 0; c < out.valid_cols; ++c) {
      const bool in_a = r < a.valid_rows && c < a.valid_cols;
      const bool in_b = r < b.valid_rows && c < b.valid_cols;
      bool u = false;
      double v = 0;
      if (in_a && in_b) v = ApplyBin(op, va.Get(r, c, &u), vb.Get(r, c, &u), out.type.dtype);
      else if (in_a) v = va.Get(r, c, &u);
      else v = vb.Get(r, c, &u);
      undef += u;
      vo.Set(r, c, v, !u);
    }
  ReportUndef(issues, undef, "part op", out);
  return issues;
}

std::vector<Issue> Axpy(CoreMemory& mem, Tile& out, const Tile& src, double alpha) {
  std::vector<Issue> issues;
  const DType o = out.type.dtype, i = src.type.dtype;
  if (!((o == i && (o == DType::kFloat16 || o == DType::kFloat32)) || (i == DType::kFloat16 && o == DType::kFloat32)))
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("pl.axpy: src '%s' is %s and out '%s' is %s; axpy.md takes FP16 or FP32 "
                                      "of one dtype, or FP16 into FP32", src.name, std::string(DTypeName(i)),
                                      out.name, std::string(DTypeName(o)))});
  if (src.valid_rows != out.valid_rows || src.valid_cols != out.valid_cols)
    issues.push_back({hazard::kValidShape,
                      absl::StrFormat("pl.axpy: src '%s' valid shape [%d, %d] differs from out '%s' [%d, %d]",
                                      src.name, src.valid_rows, src.valid_cols, out.name, out.valid_rows,
                                      out.valid_cols)});
  if (!issues.empty()) return issues;
  View vo = V(mem, out), vs = V(mem, src);
  const float a = static_cast<float>(alpha);
  int64_t undef = 0;
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c = 0; c < out.valid_cols; ++c) {
      bool u = false;
      const float x = static_cast<float>(vs.Get(r, c, &u));
      const float y = static_cast<float>(vo.Get(r, c, &u));
      undef += u;
      vo.Set(r, c, a * x + y, !u);
    }
  ReportUndef(issues, undef, "pl.axpy", out);
  return issues;
}

std::vector<Issue> Transpose(CoreMemory& mem, Tile& out, const Tile& src) {
  std::vector<Issue> issues;
  CheckSameDtype(issues, "pl.transpose", out, src);
  if (DTypeSize(src.type.dtype) == 8)
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("pl.transpose: tile '%s' is %s; transpose.md takes no 64-bit elements",
                                      src.name, std::string(DTypeName(src.type.dtype)))});
  if (out.type.space == src.type.space && out.addr < src.addr + src.size && src.addr < out.addr + out.size)
    issues.push_back({hazard::kTileOverlap,
                      absl::StrFormat("pl.transpose: out '%s' and src '%s' overlap (transpose.md: out may not "
                                      "be the source tile)", out.name, src.name)});
  if (!issues.empty()) return issues;
  View vo = V(mem, out), vs = V(mem, src);
  int64_t undef = 0;
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c = 0; c < out.valid_cols; ++c) {
      bool u = c >= src.valid_rows || r >= src.valid_cols;  // outside the source's valid window
      const bool in_shape = c < src.type.shape[0] && r < src.type.shape[1];
      double v = in_shape ? vs.Get(c, r, &u) : 0.0;
      undef += u;
      vo.Set(r, c, v, !u);
    }
  ReportUndef(issues, undef, "pl.transpose", out);
  return issues;
}

std::vector<Issue> FillIndex(CoreMemory& mem, Tile& out, int64_t start) {
  std::vector<Issue> issues;
  const DType t = out.type.dtype;
  if (t != DType::kInt32 && t != DType::kInt16 && t != DType::kUInt32 && t != DType::kUInt16)
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("pl.fill_index: tile '%s' is %s; the index fill takes INT32 (INT16, "
                                      "UINT16, UINT32)", out.name, std::string(DTypeName(t)))});
  if (!issues.empty()) return issues;
  View vo = V(mem, out);
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c = 0; c < out.valid_cols; ++c) vo.SetInt(r, c, start + c, true);
  return issues;
}

void Clobber(CoreMemory& mem, Tile& tmp) {
  View v = V(mem, tmp);
  for (int64_t r = 0; r < tmp.valid_rows; ++r)
    for (int64_t c = 0; c < tmp.valid_cols; ++c) v.Set(r, c, 0, false);
}

std::vector<Issue> Cast(CoreMemory& mem, Tile& out, const Tile& a) {
  std::vector<Issue> issues;
  View vo = V(mem, out), va = V(mem, a);
  int64_t undef = 0;
  alignas(64) float xr[kRowChunk];
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c0 = 0; c0 < out.valid_cols; c0 += kRowChunk) {
      const int64_t n = std::min(kRowChunk, out.valid_cols - c0);
      // Between the float formats a written, NaN-free run converts row-wise: LoadRow is exact,
      // and StoreRow rounds as StoreScalar does. A run that may hold a NaN goes element by
      // element: there the double round trip of Get/Set quiets a signalling NaN, which the
      // row copy would keep (MayHoldNaN's rare false alarm converts the same values alike).
      if (RowBytes(vo, r, c0, n) >= 0 && RowSafe(vo, r, va, r, c0, n) && LoadRow(va, r, c0, n, xr) &&
          !MayHoldNaN(xr, n)) {
        StoreRow(vo, r, c0, n, xr, true);
        continue;
      }
      for (int64_t c = c0; c < c0 + n; ++c) {
        bool u = false;
        double x = va.Get(r, c, &u);
        undef += u;
        vo.Set(r, c, x, !u);
      }
    }
  ReportUndef(issues, undef, "pl.cast", out);
  return issues;
}

std::vector<Issue> Expands(CoreMemory& mem, Tile& out, double s) {
  View vo = V(mem, out);
  alignas(64) float zr[kRowChunk];
  std::fill_n(zr, kRowChunk, static_cast<float>(s));
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c0 = 0; c0 < out.valid_cols; c0 += kRowChunk) {
      const int64_t n = std::min(kRowChunk, out.valid_cols - c0);
      if (RowBytes(vo, r, c0, n) >= 0) {
        StoreRow(vo, r, c0, n, zr, true);
        continue;
      }
      for (int64_t c = c0; c < c0 + n; ++c) vo.Set(r, c, s, true);
    }
  return {};
}

namespace {

// A row reduction's running value `a0` taken on over n fp32 values in column order, one fp32
// operation per element: what acc() in Reduce computes for a floating source (a double sum of
// two floats rounded to float is their float sum; a max or min of floats is one of them), as
// one float dependency chain instead of a double round trip per element.
//
// std::max(a, x) = (a < x ? x : a) skips a NaN x and keeps the earlier of equal values; equal
// floats are the same bits except +0 and -0, so the maximum (minimum) taken in any order is
// the column-order one unless it is a zero. It is taken in 16 independent lanes first (a
// vectorisable loop) and, for a zero, again in column order for the first zero's sign.
template <bool kIsMax>
float ExtremeRow(float a0, const float* x, int64_t n) {
  auto step = [](float a, float v) { return kIsMax ? (a < v ? v : a) : (v < a ? v : a); };
  constexpr int64_t kLanes = 16;
  float lane[kLanes];
  std::fill_n(lane, kLanes, a0);
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) lane[j] = step(lane[j], x[i + j]);
  float a = a0;
  for (int64_t j = 0; j < kLanes; ++j) a = step(a, lane[j]);
  for (; i < n; ++i) a = step(a, x[i]);
  if (a != 0.0f) return a;
  a = a0;
  for (i = 0; i < n; ++i) a = step(a, x[i]);
  return a;
}

// Row sums of up to kSumRows rows at once: acc[k] takes on rows[k][0..n) in column order,
// one fp32 addition per element, exactly as AccumulateRow's sum; the rows' chains are
// independent, so interleaving them hides the addition's latency. Unused lanes read zeros.
constexpr int64_t kSumRows = 8;
// The eight chains are named scalars, not an array: GCC kept an array in memory, one store and
// reload per addition.
void SumRows(float* acc, const float* const* rows, int64_t n) {
  static_assert(kSumRows == 8);
  float a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], a4 = acc[4], a5 = acc[5], a6 = acc[6], a7 = acc[7];
  const float *r0 = rows[0], *r1 = rows[1], *r2 = rows[2], *r3 = rows[3], *r4 = rows[4], *r5 = rows[5],
              *r6 = rows[6], *r7 = rows[7];
  for (int64_t i = 0; i < n; ++i) {
    a0 = a0 + r0[i];
    a1 = a1 + r1[i];
    a2 = a2 + r2[i];
    a3 = a3 + r3[i];
    a4 = a4 + r4[i];
    a5 = a5 + r5[i];
    a6 = a6 + r6[i];
    a7 = a7 + r7[i];
  }
  const float sums[kSumRows] = {a0, a1, a2, a3, a4, a5, a6, a7};
  // A NaN sum is taken again with SumChain's choice of NaN.
  for (int64_t k = 0; k < kSumRows; ++k) acc[k] = sums[k] == sums[k] ? sums[k] : SumChain(acc[k], rows[k], n);
}

// Whether writing any element of `out` leaves every byte of `in` unchanged.
bool Disjoint(const View& out, const View& in) {
  if (out.buf != in.buf) return true;
  const uint64_t o = out.t->addr, ol = out.t->type.Bytes(), i = in.t->addr, il = in.t->type.Bytes();
  return o + ol <= i || i + il <= o;
}

// One element of a reduction, element by element; of two NaN operands a sum keeps the first
// (FirstNaNOr), as the row passes do.
double ReduceStep(Red op, DType src, double a, double x) {
  const double v = op == Red::kSum ? FirstNaNOr(a, x, a + x) : op == Red::kMax ? std::max(a, x) : std::min(a, x);
  return Compute(src == DType::kFloat16 ? DType::kFloat32 : src, v);
}

double AccumulateRow(Red op, double a0, const float* x, int64_t n) {
  float a = static_cast<float>(a0);
  switch (op) {
    case Red::kSum: a = SumChain(a, x, n); break;
    case Red::kMax: a = ExtremeRow<true>(a, x, n); break;
    default: a = ExtremeRow<false>(a, x, n); break;
  }
  return a;
}

}  // namespace

std::vector<Issue> Reduce(CoreMemory& mem, Red op, Tile& out, const Tile& src, int dim) {
  std::vector<Issue> issues;
  View vo = V(mem, out), vs = V(mem, src);
  int64_t undef = 0;
  auto init = [&]() {
    return op == Red::kSum ? 0.0
           : op == Red::kMax ? -std::numeric_limits<double>::infinity()
                             : std::numeric_limits<double>::infinity();
  };
  auto acc = [&](double a, double x) { return ReduceStep(op, src.type.dtype, a, x); };
  if (dim == 0) {
    if (out.type.shape[1] != 1 || out.type.EffectiveLayout() != Layout::kDN)
      issues.push_back({hazard::kTileShapeAlign,
                        absl::StrFormat("row reduction output '%s' must be a [rows, 1] tile with layout=pl.DN",
                                        out.name)});
    // A floating sum whose result cannot change its source runs kSumRows rows side by side;
    // each row keeps its own column-order chain, so the results are those of one row at a time.
    const int64_t group = op == Red::kSum && Disjoint(vo, vs) ? kSumRows : 1;
    alignas(64) static const float kZeros[kRowChunk] = {};
    alignas(64) float xr[kSumRows][kRowChunk];
    for (int64_t r0 = 0; r0 < src.valid_rows; r0 += group) {
      const int64_t g = std::min(group, src.valid_rows - r0);
      double a[kSumRows];
      bool u[kSumRows] = {};
      std::fill_n(a, kSumRows, init());
      for (int64_t c0 = 0; c0 < src.valid_cols; c0 += kRowChunk) {
        const int64_t n = std::min(kRowChunk, src.valid_cols - c0);
        const float* rows[kSumRows];
        int64_t loaded = 0;
        for (int64_t k = 0; k < kSumRows; ++k) {
          rows[k] = kZeros;
          if (k < g && LoadRow(vs, r0 + k, c0, n, xr[k])) {  // a floating source: acc() rounds to fp32
            rows[k] = xr[k];
            ++loaded;
          }
        }
        if (group > 1 && loaded > 1) {
          float sums[kSumRows];
          for (int64_t k = 0; k < kSumRows; ++k) sums[k] = static_cast<float>(a[k]);
          SumRows(sums, rows, n);
          for (int64_t k = 0; k < g; ++k)
            if (rows[k] != kZeros) a[k] = sums[k];
        } else {
          for (int64_t k = 0; k < g; ++k)
            if (rows[k] != kZeros) a[k] = AccumulateRow(op, a[k], rows[k], n);
        }
        for (int64_t k = 0; k < g; ++k)
          if (rows[k] == kZeros)
            for (int64_t c = c0; c < c0 + n; ++c) a[k] = acc(a[k], vs.Get(r0 + k, c, &u[k]));
      }
      for (int64_t k = 0; k < g; ++k) {
        undef += u[k];
        vo.Set(r0 + k, 0, a[k], !u[k]);
      }
    }
  } else if (RowFloat(src.type.dtype) && src.type.EffectiveLayout() == Layout::kND && Disjoint(vo, vs)) {
    // A floating column reduction goes row by row over a pass of columns, each column's
    // chain still in row order with one fp32 operation per element (what acc() computes); a
    // row part with never-written bytes takes acc() element by element.
    alignas(64) float xr[kRowChunk], a[kRowChunk];
    bool u[kRowChunk];
    for (int64_t c0 = 0; c0 < src.valid_cols; c0 += kRowChunk) {
      const int64_t n = std::min(kRowChunk, src.valid_cols - c0);
      std::fill_n(a, n, static_cast<float>(init()));
      std::fill_n(u, n, false);
      for (int64_t r = 0; r < src.valid_rows; ++r) {
        // A row that may hold a NaN goes through acc() too: of two NaN operands the sum keeps
        // the first (FirstNaNOr), which a vectorised addition need not (a false alarm of
        // MayHoldNaN costs only time).
        if (!LoadRow(vs, r, c0, n, xr) || (op == Red::kSum && MayHoldNaN(xr, n))) {
          for (int64_t i = 0; i < n; ++i) a[i] = static_cast<float>(acc(a[i], vs.Get(r, c0 + i, &u[i])));
          continue;
        }
        switch (op) {
          case Red::kSum: for (int64_t i = 0; i < n; ++i) a[i] = a[i] + xr[i]; break;
          case Red::kMax: for (int64_t i = 0; i < n; ++i) a[i] = a[i] < xr[i] ? xr[i] : a[i]; break;
          default: for (int64_t i = 0; i < n; ++i) a[i] = xr[i] < a[i] ? xr[i] : a[i]; break;
        }
      }
      for (int64_t i = 0; i < n; ++i) {
        undef += u[i];
        vo.Set(0, c0 + i, a[i], !u[i]);
      }
    }
  } else {
    for (int64_t c = 0; c < src.valid_cols; ++c) {
      double a = init();
      bool u = false;
      for (int64_t r = 0; r < src.valid_rows; ++r) a = acc(a, vs.Get(r, c, &u));
      undef += u;
      vo.Set(0, c, a, !u);
    }
  }
  ReportUndef(issues, undef, "tile reduction", out);
  return issues;
}

std::vector<Issue> ArgReduce(CoreMemory& mem, bool is_max, Tile& out, const Tile& src, int dim) {
  std::vector<Issue> issues;
  const char* name = is_max ? "pl.argmax" : "pl.argmin";
  if (out.type.dtype != DType::kInt32 && out.type.dtype != DType::kUInt32)
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("%s: index tile '%s' is %s; the indices are DT_INT32 or DT_UINT32", name,
                                      out.name, std::string(DTypeName(out.type.dtype)))});
  if (dim == 0 && out.type.shape[1] != 1)
    issues.push_back({hazard::kTileShapeAlign,
                      absl::StrFormat("%s dim=0: index tile '%s' must be a [rows, 1] tile", name, out.name)});
  if (!issues.empty()) return issues;
  View vo = V(mem, out), vs = V(mem, src);
  int64_t undef = 0;
  const int64_t outer = dim == 0 ? src.valid_rows : src.valid_cols;
  const int64_t inner = dim == 0 ? src.valid_cols : src.valid_rows;
  for (int64_t i = 0; i < outer; ++i) {
    bool u = false;
    int64_t best = 0;
    double bv = 0;
    for (int64_t k = 0; k < inner; ++k) {
      const double x = dim == 0 ? vs.Get(i, k, &u) : vs.Get(k, i, &u);
      if (k == 0 || (is_max ? x > bv : x < bv)) { bv = x; best = k; }
    }
    undef += u;
    if (dim == 0) vo.SetInt(i, 0, best, !u);
    else vo.SetInt(0, i, best, !u);
  }
  ReportUndef(issues, undef, name, out);
  return issues;
}

std::vector<Issue> Expand(CoreMemory& mem, Bin op, Tile& out, const Tile& src, const Tile& vec,
                          int dim) {
  std::vector<Issue> issues;
  View vo = V(mem, out), vs = V(mem, src), vv = V(mem, vec);
  int64_t undef = 0;
  alignas(64) float xr[kRowChunk], yr[kRowChunk], zr[kRowChunk];
  for (int64_t r = 0; r < out.valid_rows; ++r) {
    // dim 0: the row's one vec element, read once when no write of the row can change it.
    bool row_u = false;
    double row_y = 0;
    const bool row_typed = RowBytes(vo, r, 0, out.valid_cols) >= 0 &&
                           (dim != 0 || ElementOutsideRow(vo, r, out.valid_cols, vv, r, 0));
    if (row_typed && dim == 0) row_y = vv.Get(r, 0, &row_u);
    for (int64_t c0 = 0; c0 < out.valid_cols; c0 += kRowChunk) {
      const int64_t n = std::min(kRowChunk, out.valid_cols - c0);
      if (row_typed && RowSafe(vo, r, vs, r, c0, n) && LoadRow(vs, r, c0, n, xr)) {
        if (dim == 0) {
          RowBinScalar(op, xr, static_cast<float>(row_y), zr, n, false);
          StoreRow(vo, r, c0, n, zr, !row_u);
          undef += row_u ? n : 0;
          continue;
        }
        if (RowSafe(vo, r, vv, 0, c0, n) && LoadRow(vv, 0, c0, n, yr)) {
          RowBin(op, xr, yr, zr, n);
          StoreRow(vo, r, c0, n, zr, true);
          continue;
        }
      }
      for (int64_t c = c0; c < c0 + n; ++c) {
        bool u = false;
        double x = vs.Get(r, c, &u);
        double y = dim == 0 ? vv.Get(r, 0, &u) : vv.Get(0, c, &u);
        undef += u;
        vo.Set(r, c, ApplyBin(op, x, y, out.type.dtype), !u);
      }
    }
  }
  ReportUndef(issues, undef, "tile expand op", out);
  return issues;
}

std::vector<Issue> Compare(CoreMemory& mem, Cmp op, Tile& out, const Tile& a, const Tile& b) {
  std::vector<Issue> issues;
  View vo = V(mem, out), va = V(mem, a), vb = V(mem, b);
  int64_t undef = 0;
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c = 0; c < out.valid_cols; ++c) {
      bool u = false;
      double x = va.Get(r, c, &u), y = vb.Get(r, c, &u);
      bool v = false;
      switch (op) {
        case Cmp::kEq: v = x == y; break;
        case Cmp::kNe: v = x != y; break;
        case Cmp::kLt: v = x < y; break;
        case Cmp::kLe: v = x <= y; break;
        case Cmp::kGt: v = x > y; break;
        case Cmp::kGe: v = x >= y; break;
      }
      undef += u;
      vo.Set(r, c, v ? 1.0 : 0.0, !u);
    }
  ReportUndef(issues, undef, "tile comparison", out);
  return issues;
}

std::vector<Issue> CompareScalar(CoreMemory& mem, Cmp op, Tile& out, const Tile& a, double s) {
  std::vector<Issue> issues;
  View vo = V(mem, out), va = V(mem, a);
  const double y = Compute(a.type.dtype, s);
  int64_t undef = 0;
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c = 0; c < out.valid_cols; ++c) {
      bool u = false;
      const double x = va.Get(r, c, &u);
      bool v = false;
      switch (op) {
        case Cmp::kEq: v = x == y; break;
        case Cmp::kNe: v = x != y; break;
        case Cmp::kLt: v = x < y; break;
        case Cmp::kLe: v = x <= y; break;
        case Cmp::kGt: v = x > y; break;
        case Cmp::kGe: v = x >= y; break;
      }
      undef += u;
      vo.Set(r, c, v ? 1.0 : 0.0, !u);
    }
  ReportUndef(issues, undef, "tile comparison", out);
  return issues;
}

std::vector<Issue> SelectScalar(CoreMemory& mem, Tile& out, const Tile& mask, const Tile& lhs, double s) {
  std::vector<Issue> issues;
  View vo = V(mem, out), vm = V(mem, mask), vl = V(mem, lhs);
  int64_t undef = 0;
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c = 0; c < out.valid_cols; ++c) {
      bool u = false;
      const bool take = vm.Get(r, c, &u) != 0;
      const double v = take ? vl.Get(r, c, &u) : s;
      undef += u;
      vo.Set(r, c, v, !u);
    }
  ReportUndef(issues, undef, "pl.select", out);
  return issues;
}

std::vector<Issue> Select(CoreMemory& mem, Tile& out, const Tile& mask, const Tile& lhs,
                          const Tile& rhs) {
  std::vector<Issue> issues;
  View vo = V(mem, out), vm = V(mem, mask), vl = V(mem, lhs), vr = V(mem, rhs);
  int64_t undef = 0;
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c = 0; c < out.valid_cols; ++c) {
      bool u = false;
      bool take = vm.Get(r, c, &u) != 0;
      double v = take ? vl.Get(r, c, &u) : vr.Get(r, c, &u);
      undef += u;
      vo.Set(r, c, v, !u);
    }
  ReportUndef(issues, undef, "pl.select", out);
  return issues;
}

double PadValue(Pad p, DType t) {
  switch (p) {
    case Pad::kNull: case Pad::kZero: return 0.0;
    case Pad::kMax:
      if (IsFloating(t)) return std::numeric_limits<double>::infinity();
      return t == DType::kInt8 ? 127 : t == DType::kInt16 ? 32767 : t == DType::kUInt8 ? 255
             : t == DType::kUInt16 ? 65535 : 2147483647.0;
    case Pad::kMin:
      if (IsFloating(t)) return -std::numeric_limits<double>::infinity();
      return t == DType::kInt8 ? -128 : t == DType::kInt16 ? -32768
             : (t == DType::kUInt8 || t == DType::kUInt16 || t == DType::kUInt32) ? 0 : -2147483648.0;
  }
  return 0;
}

std::vector<Issue> FillPad(CoreMemory& mem, Tile& out, const Tile& src, FillPadMode mode) {
  std::vector<Issue> issues;
  if (out.type.pad == Pad::kNull) {
    issues.push_back({hazard::kRuntimeError,
                      absl::StrFormat("fillpad: destination tile '%s' has pad=null; declare it with "
                                      "pad=pl.TilePad.zero/max/min", out.name)});
    return issues;
  }
  if (mode == FillPadMode::kInplace && out.addr != src.addr)
    issues.push_back({hazard::kRuntimeError, "fillpad INPLACE needs the same tile address for out and src"});
  if (mode != FillPadMode::kInplace && out.addr == src.addr && out.type.space == src.type.space)
    issues.push_back({hazard::kRuntimeError, "fillpad NORMAL/EXPAND needs different addresses for out and src"});
  if (mode != FillPadMode::kExpand && out.type.shape != src.type.shape)
    issues.push_back({hazard::kRuntimeError, "fillpad NORMAL/INPLACE needs equal tile shapes"});
  View vo = V(mem, out), vs = V(mem, src);
  const double pad = PadValue(out.type.pad, out.type.dtype);
  int64_t undef = 0;
  // Copy the valid window first (via a buffer: INPLACE aliases).
  std::vector<double> vals;
  std::vector<uint8_t> defined;
  if (mode != FillPadMode::kInplace) {
    for (int64_t r = 0; r < src.valid_rows; ++r)
      for (int64_t c = 0; c < src.valid_cols; ++c) {
        bool u = false;
        vals.push_back(vs.Get(r, c, &u));
        defined.push_back(!u);
        undef += u;
      }
    size_t k = 0;
    for (int64_t r = 0; r < src.valid_rows; ++r)
      for (int64_t c = 0; c < src.valid_cols; ++c, ++k) vo.Set(r, c, vals[k], defined[k]);
  }
  for (int64_t r = 0; r < out.type.shape[0]; ++r)
    for (int64_t c = 0; c < out.type.shape[1]; ++c)
      if (r >= src.valid_rows || c >= src.valid_cols) vo.Set(r, c, pad, true);
  // The whole tile is now valid.
  out.valid_rows = out.type.shape[0];
  out.valid_cols = out.type.shape[1];
  ReportUndef(issues, undef, "fillpad", out);
  return issues;
}

}  // namespace opdev::sim::tileop
