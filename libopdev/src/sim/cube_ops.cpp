// Cube data paths: the MTE1 window copy, the matmul (decode -> fixed-order GEMM -> encode)
// and the GEMM kernels.
#include "opdev/sim/cube_ops.h"

#include "opdev/support/cpu_features.h"
#include "opdev/support/half.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

namespace opdev::sim::cube {

namespace {

// Decodes element bytes to float (float types) for the GEMM.
inline float DecodeF(DType t, const uint8_t* p) {
  switch (t) {
    case DType::kFloat16: { uint16_t h; std::memcpy(&h, p, 2); return HalfToFloat(h); }
    case DType::kBFloat16: { uint16_t h; std::memcpy(&h, p, 2); return BFloat16ToFloat(h); }
    case DType::kFloat32: { float f; std::memcpy(&f, p, 4); return f; }
    default: return static_cast<float>(LoadScalar(t, p));
  }
}

// Decodes n contiguous elements of dtype t into floats.
void DecodeRunF(DType t, const uint8_t* p, size_t n, float* out, size_t stride) {
  switch (t) {
    case DType::kFloat16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        out[i * stride] = HalfToFloat(h);
      }
      return;
    case DType::kBFloat16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        out[i * stride] = BFloat16ToFloat(h);
      }
      return;
    case DType::kFloat32:
      if (stride == 1) { std::memcpy(out, p, 4 * n); return; }
      for (size_t i = 0; i < n; ++i) std::memcpy(out + i * stride, p + 4 * i, 4);
      return;
    default: {
      const size_t es = DTypeSize(t);
      for (size_t i = 0; i < n; ++i) out[i * stride] = static_cast<float>(LoadScalar(t, p + es * i));
    }
  }
}

void DecodeRunI(DType t, const uint8_t* p, size_t n, int32_t* out, size_t stride) {
  const size_t es = DTypeSize(t);
  for (size_t i = 0; i < n; ++i) out[i * stride] = static_cast<int32_t>(LoadScalar(t, p + es * i));
}

// A [rows x cols] window of a tile at (r0, c0): each row's byte address, each column's offset
// within a row (offsets are separable, Tile::RowOffset) and the window's contiguous row runs as
// (first column, length), which depend on the column only.
struct WindowOffsets {
  std::vector<uint64_t> row, col;
  std::vector<std::pair<int64_t, int64_t>> runs;
};
WindowOffsets Offsets(const Tile& t, int64_t r0, int64_t c0, int64_t rows, int64_t cols) {
  WindowOffsets w;
  w.row.resize(static_cast<size_t>(std::max<int64_t>(rows, 0)));
  w.col.resize(static_cast<size_t>(std::max<int64_t>(cols, 0)));
  for (int64_t r = 0; r < rows; ++r) w.row[r] = t.addr + t.RowOffset(r0 + r);
  for (int64_t c = 0; c < cols; ++c) w.col[c] = t.ColOffset(c0 + c);
  for (int64_t c = 0; c < cols;) {
    const int64_t run = t.RowRun(c0 + c, c0 + cols);
    w.runs.emplace_back(c, run);
    c += run;
  }
  return w;
}

// Reads a tile window [rows x cols] into a row-major array (float or int32) and clears
// row_ok[r] / col_ok[c] for any element never written. Walks the layout's contiguous runs
// (along rows for ND/NZ/ZZ, along columns for DN/ZN/NN).
template <typename T>
void Gather(const SpaceBuffer& buf, const Tile& t, int64_t rows, int64_t cols, T* out,
            std::vector<uint8_t>* row_ok, std::vector<uint8_t>* col_ok) {
  const size_t es = t.elem_size();
  const DType dt = t.type.dtype;
  if (row_ok) row_ok->assign(static_cast<size_t>(rows), 1);
  if (col_ok) col_ok->assign(static_cast<size_t>(cols), 1);
  const WindowOffsets w = Offsets(t, 0, 0, rows, cols);
  const std::vector<uint64_t>&ro = w.row, &co = w.col;
  const bool by_col = t.ColumnMajorInside();
  const int64_t outer_n = by_col ? cols : rows, inner_n = by_col ? rows : cols;
  for (int64_t o = 0; o < outer_n; ++o) {
    for (int64_t i = 0; i < inner_n;) {
      // Length of the contiguous run starting at inner index i.
      int64_t run = 1;
      auto off_at = [&](int64_t ii) { return by_col ? ro[ii] + co[o] : ro[o] + co[ii]; };
      const uint64_t off0 = off_at(i);
      while (i + run < inner_n && off_at(i + run) == off0 + run * es) ++run;
      T* dst = by_col ? out + i * cols + o : out + o * cols + i;
      const size_t stride = by_col ? static_cast<size_t>(cols) : 1;
      if (off0 + run * es <= buf.bytes.size()) {
        if constexpr (std::is_same_v<T, float>) DecodeRunF(dt, buf.bytes.data() + off0, run, dst, stride);
        else DecodeRunI(dt, buf.bytes.data() + off0, run, dst, stride);
        if (std::memchr(buf.written.data() + off0, 0, run * es) != nullptr) {
          for (int64_t k = 0; k < run; ++k) {
            if (buf.written[off0 + k * es]) continue;
            const int64_t r = by_col ? i + k : o, c = by_col ? o : i + k;
            if (row_ok) (*row_ok)[r] = 0;
            if (col_ok) (*col_ok)[c] = 0;
          }
        }
      } else {
        for (int64_t k = 0; k < run; ++k) {
          dst[k * stride] = T{};
          const int64_t r = by_col ? i + k : o, c = by_col ? o : i + k;
          if (row_ok) (*row_ok)[r] = 0;
          if (col_ok) (*col_ok)[c] = 0;
        }
      }
      i += run;
    }
  }
}

// memcpy with the one-element sizes inline (a ZN tile's rows are runs of one element).
inline void CopySmall(uint8_t* d, const uint8_t* s, size_t n) {
  switch (n) {
    case 1: *d = *s; return;
    case 2: { uint16_t v; std::memcpy(&v, s, 2); std::memcpy(d, &v, 2); return; }
    case 4: { uint32_t v; std::memcpy(&v, s, 4); std::memcpy(d, &v, 4); return; }
    case 8: { uint64_t v; std::memcpy(&v, s, 8); std::memcpy(d, &v, 8); return; }
    default: std::memcpy(d, s, n);
  }
}

// A window whose every run is one element of T: bytes and written flags element by element,
// each inside both buffers or skipped (the general loop's rule).
template <typename T>
void CopyElements(SpaceBuffer& db, const SpaceBuffer& sb, const std::vector<uint64_t>& dro,
                  const std::vector<uint64_t>& sro, const std::vector<uint64_t>& dco,
                  const std::vector<uint64_t>& sco) {
  const uint64_t dsize = db.bytes.size(), ssize = sb.bytes.size();
  uint8_t* const dbytes = db.bytes.data();
  uint8_t* const dwritten = db.written.data();
  const uint8_t* const sbytes = sb.bytes.data();
  const uint8_t* const swritten = sb.written.data();
  for (size_t r = 0; r < dro.size(); ++r)
    for (size_t c = 0; c < dco.size(); ++c) {
      const uint64_t doff = dro[r] + dco[c], soff = sro[r] + sco[c];
      if (doff + sizeof(T) > dsize || soff + sizeof(T) > ssize) continue;
      T v, w;  // through a register, as CopySmall: source and destination may be one buffer
      std::memcpy(&v, sbytes + soff, sizeof(T));
      std::memcpy(&w, swritten + soff, sizeof(T));
      std::memcpy(dbytes + doff, &v, sizeof(T));
      std::memcpy(dwritten + doff, &w, sizeof(T));
    }
}
}  // namespace

void CopyWindow(CoreMemory& mem, Tile& dst, int64_t dr, int64_t dc, const Tile& src, int64_t sr,
                int64_t sc, int64_t rows, int64_t cols) {
  CopyWindow(mem, dst, dr, dc, mem, src, sr, sc, rows, cols);
}

void CopyWindow(CoreMemory& dmem, Tile& dst, int64_t dr, int64_t dc, const CoreMemory& smem, const Tile& src,
                int64_t sr, int64_t sc, int64_t rows, int64_t cols) {
  SpaceBuffer& db = dmem.Get(dst.type.space);
  const SpaceBuffer& sb = smem.Get(src.type.space);
  const size_t des = dst.elem_size(), ses = src.elem_size();
  const bool same = dst.type.dtype == src.type.dtype;
  if (rows <= 0 || cols <= 0) return;
  // Offsets and runs are computed once per window instead of per element.
  const WindowOffsets dw = Offsets(dst, dr, dc, rows, cols), sw = Offsets(src, sr, sc, rows, cols);
  const std::vector<uint64_t>&dro = dw.row, &dco = dw.col, &sro = sw.row, &sco = sw.col;
  std::vector<std::pair<int64_t, int64_t>> segs;  // (first column, run): contiguous on both sides
  for (int64_t c = 0; c < cols;) {
    const int64_t run = std::min(dst.RowRun(dc + c, dc + cols), src.RowRun(sc + c, sc + cols));
    segs.emplace_back(c, run);
    c += run;
  }
  // The pages of the window's bounding byte range are marked once (Touch may over-approximate:
  // a marked page is only reset, see SpaceBuffer::dirty_pages), not once per run.
  {
    const auto [rlo, rhi] = std::minmax_element(dro.begin(), dro.end());
    uint64_t clo = UINT64_MAX, chi = 0;
    for (const auto& [c, run] : segs) {
      clo = std::min(clo, dco[c]);
      chi = std::max<uint64_t>(chi, dco[c] + run * des);
    }
    db.Touch(std::min<uint64_t>(*rlo + clo, db.bytes.size()), std::min<uint64_t>(*rhi + chi, db.bytes.size()));
  }
  if (same && segs.size() == static_cast<size_t>(cols)) {  // runs of one element (a ZN side)
    switch (des) {
      case 2: CopyElements<uint16_t>(db, sb, dro, sro, dco, sco); return;
      case 4: CopyElements<uint32_t>(db, sb, dro, sro, dco, sco); return;
      default: break;
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (const auto& [c, run] : segs) {
      const uint64_t doff = dro[r] + dco[c];
      const uint64_t soff = sro[r] + sco[c];
      if (doff + run * des <= db.bytes.size() && soff + run * ses <= sb.bytes.size()) {
        if (same) {
          CopySmall(db.bytes.data() + doff, sb.bytes.data() + soff, run * des);
          CopySmall(db.written.data() + doff, sb.written.data() + soff, run * des);
        } else {
          for (int64_t i = 0; i < run; ++i) {
            StoreScalar(dst.type.dtype, db.bytes.data() + doff + i * des,
                        LoadScalar(src.type.dtype, sb.bytes.data() + soff + i * ses));
            std::memset(db.written.data() + doff + i * des, sb.written[soff + i * ses], des);
          }
        }
      }
    }
  }
}

void CopyWindowFix(CoreMemory& dmem, Tile& dst, int64_t dr, int64_t dc, const CoreMemory& smem, const Tile& src,
                   int64_t sr, int64_t sc, int64_t rows, int64_t cols, const FixOptions& fix) {
  SpaceBuffer& db = dmem.Get(dst.type.space);
  const SpaceBuffer& sb = smem.Get(src.type.space);
  const size_t des = dst.elem_size(), ses = src.elem_size();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const uint64_t doff = dst.addr + dst.ElementOffset(dr + r, dc + c);
      const uint64_t soff = src.addr + src.ElementOffset(sr + r, sc + c);
      if (doff + des > db.bytes.size() || soff + ses > sb.bytes.size()) continue;
      const int64_t col = sc + c;
      db.Touch(doff, doff + des);
      StoreScalar(dst.type.dtype, db.bytes.data() + doff,
                  FixConvert(fix, LoadScalar(src.type.dtype, sb.bytes.data() + soff), col, dst.type.dtype));
      uint8_t ok = std::memchr(sb.written.data() + soff, 0, ses) == nullptr;
      if (fix.PerChannel())
        ok = ok && col < static_cast<int64_t>(fix.channel_written.size()) && fix.channel_written[col];
      std::memset(db.written.data() + doff, ok, des);
    }
  }
}

int64_t Matmul(CoreMemory& mem, const MatmulOperands& ops) {
  const Tile& L = *ops.lhs;
  const Tile& R = *ops.rhs;
  Tile& D = *ops.dst;
  const int64_t M = L.valid_rows, K = L.valid_cols, N = R.valid_cols;
  const SpaceBuffer& lb = mem.Get(L.type.space);
  const SpaceBuffer& rb = mem.Get(R.type.space);
  SpaceBuffer& db = mem.Get(D.type.space);
  std::vector<uint8_t> row_ok, col_ok;
  const bool integer = D.type.dtype == DType::kInt32;
  const size_t des = D.elem_size();
  std::vector<uint8_t> out_ok(static_cast<size_t>(M * N), 1);
  std::vector<float> cf;
  std::vector<int32_t> ci;
  if (integer) ci.assign(static_cast<size_t>(M * N), 0); else cf.assign(static_cast<size_t>(M * N), 0.0f);
  // Initial values: the accumulator, the bias row or zero.
  if (ops.acc_in) {
    const SpaceBuffer& ab = mem.Get(ops.acc_in->type.space);
    const WindowOffsets w = Offsets(*ops.acc_in, 0, 0, M, N);
    // The accumulator's definedness is per element: gather it row by row.
    for (int64_t r = 0; r < M; ++r) {
      for (const auto& [c, run] : w.runs) {
        const uint64_t off = w.row[r] + w.col[c];
        if (off + run * des > ab.bytes.size()) {
          for (int64_t k = 0; k < run; ++k) out_ok[r * N + c + k] = 0;
        } else {
          if (!integer) DecodeRunF(ops.acc_in->type.dtype, ab.bytes.data() + off, run, cf.data() + r * N + c, 1);
          else DecodeRunI(DType::kInt32, ab.bytes.data() + off, run, ci.data() + r * N + c, 1);
          for (int64_t k = 0; k < run; ++k)
            if (!ab.written[off + k * des]) out_ok[r * N + c + k] = 0;
        }
      }
    }
  } else if (ops.bias) {
    const SpaceBuffer& bb = mem.Get(ops.bias->type.space);
    for (int64_t c = 0; c < N; ++c) {
      uint64_t off = ops.bias->addr + ops.bias->ElementOffset(0, c);
      bool ok = off + ops.bias->elem_size() <= bb.bytes.size();
      float v = ok ? DecodeF(ops.bias->type.dtype, bb.bytes.data() + off) : 0.0f;
      ok = ok && bb.written[off];
      for (int64_t r = 0; r < M; ++r) {
        if (integer) ci[r * N + c] = static_cast<int32_t>(v); else cf[r * N + c] = v;
        if (!ok) out_ok[r * N + c] = 0;
      }
    }
  }
  if (integer) {
    std::vector<int32_t> a(static_cast<size_t>(M * K)), b(static_cast<size_t>(K * N));
    Gather(lb, L, M, K, a.data(), &row_ok, nullptr);
    Gather(rb, R, K, N, b.data(), nullptr, &col_ok);
    GemmI32(a.data(), b.data(), ci.data(), M, N, K);
  } else {
    std::vector<float> a(static_cast<size_t>(M * K)), b(static_cast<size_t>(K * N));
    Gather(lb, L, M, K, a.data(), &row_ok, nullptr);
    Gather(rb, R, K, N, b.data(), nullptr, &col_ok);
    const bool exact = L.type.dtype != DType::kFloat32;
    GemmF32(a.data(), b.data(), cf.data(), M, N, K, exact);
  }
  // Encode into the Acc through its layout.
  int64_t undefined = 0;
  const WindowOffsets w = Offsets(D, 0, 0, M, N);
  for (int64_t r = 0; r < M; ++r) {
    for (const auto& [c, run] : w.runs) {
      const uint64_t off = w.row[r] + w.col[c];
      if (off + run * des <= db.bytes.size()) {
        db.Touch(off, off + run * des);
        if (integer) {
          std::memcpy(db.bytes.data() + off, ci.data() + r * N + c, run * 4);
        } else if (D.type.dtype == DType::kFloat32) {
          std::memcpy(db.bytes.data() + off, cf.data() + r * N + c, run * 4);
        } else {
          for (int64_t i = 0; i < run; ++i) StoreScalar(D.type.dtype, db.bytes.data() + off + i * des, cf[r * N + c + i]);
        }
        for (int64_t i = 0; i < run; ++i) {
          bool ok = out_ok[r * N + c + i] && row_ok[r] && col_ok[c + i];
          undefined += !ok;
          std::memset(db.written.data() + off + i * des, ok ? 1 : 0, des);
        }
      }
    }
  }
  return undefined;
}

// ---- GEMM kernels -------------------------------------------------------------------------
//
// Register-blocked over 4 rows x NR columns of C; every C element still accumulates over k
// in ascending order with one rounding per step, so blocking does not change any result.

namespace {

// C[i, i + 4) x [j, j + NR) += A[i, i + 4) x B[:, j, j + NR), k ascending.
template <bool kExact, int64_t NR>
__attribute__((always_inline)) inline void GemmBlock(const float* __restrict a, const float* __restrict b,
                                                     float* __restrict c, int64_t i, int64_t j, int64_t n,
                                                     int64_t k) {
  constexpr int64_t MR = 4;
  float acc[MR][NR];
  for (int64_t r = 0; r < MR; ++r)
    for (int64_t q = 0; q < NR; ++q) acc[r][q] = c[(i + r) * n + j + q];
  // Fully unrolled, so the accumulators stay in registers across the k loop.
  for (int64_t p = 0; p < k; ++p) {
    const float* bp = b + p * n + j;
#pragma GCC unroll 4
    for (int64_t r = 0; r < MR; ++r) {
      const float av = a[(i + r) * k + p];
#pragma GCC unroll 32
      for (int64_t q = 0; q < NR; ++q) {
        if constexpr (kExact) acc[r][q] = acc[r][q] + av * bp[q];
        else acc[r][q] = std::fma(av, bp[q], acc[r][q]);
      }
    }
  }
  for (int64_t r = 0; r < MR; ++r)
    for (int64_t q = 0; q < NR; ++q) c[(i + r) * n + j + q] = acc[r][q];
}

// Column blocks of kWide first (32 with AVX-512: eight 16-lane accumulators), then of 16.
template <bool kExact, int64_t kWide>
__attribute__((always_inline)) inline void GemmF32Impl(const float* __restrict a, const float* __restrict b, float* __restrict c,
                        int64_t m, int64_t n, int64_t k) {
  constexpr int64_t MR = 4;
  int64_t i = 0;
  for (; i + MR <= m; i += MR) {
    int64_t j = 0;
    if constexpr (kWide > 16)
      for (; j + kWide <= n; j += kWide) GemmBlock<kExact, kWide>(a, b, c, i, j, n, k);
    for (; j + 16 <= n; j += 16) GemmBlock<kExact, 16>(a, b, c, i, j, n, k);
    for (; j < n; ++j)
      for (int64_t r = 0; r < MR; ++r) {
        float s = c[(i + r) * n + j];
        for (int64_t p = 0; p < k; ++p) {
          if constexpr (kExact) s = s + a[(i + r) * k + p] * b[p * n + j];
          else s = std::fma(a[(i + r) * k + p], b[p * n + j], s);
        }
        c[(i + r) * n + j] = s;
      }
  }
  for (; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float s = c[i * n + j];
      for (int64_t p = 0; p < k; ++p) {
        if constexpr (kExact) s = s + a[i * k + p] * b[p * n + j];
        else s = std::fma(a[i * k + p], b[p * n + j], s);
      }
      c[i * n + j] = s;
    }
}

// The vector kernels take the fused step for every product: with an FMA unit it costs what
// the plain multiply-add costs, and for exact products the two agree.
__attribute__((target("avx2,fma"))) void GemmFmaAvx2(const float* a, const float* b, float* c,
                                                     int64_t m, int64_t n, int64_t k) {
  GemmF32Impl<false, 16>(a, b, c, m, n, k);
}
__attribute__((target("avx2,fma,avx512f,avx512vl"))) void GemmFmaAvx512(const float* a, const float* b, float* c,
                                                                       int64_t m, int64_t n, int64_t k) {
  GemmF32Impl<false, 32>(a, b, c, m, n, k);
}

bool HasAvx2Fma() {
  static const bool v = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return v;
}

}  // namespace

void GemmF32(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k,
             bool exact_products) {
  if (CpuHasAvx512()) return GemmFmaAvx512(a, b, c, m, n, k);
  if (HasAvx2Fma()) return GemmFmaAvx2(a, b, c, m, n, k);
  // Without an FMA unit std::fma is a library call; exact products take the plain form.
  if (exact_products) GemmF32Impl<true, 16>(a, b, c, m, n, k);
  else GemmF32Impl<false, 16>(a, b, c, m, n, k);
}

bool GemmF32Variant(int lanes, const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k,
                    bool exact_products) {
  switch (lanes) {
    case 1:
      if (exact_products) GemmF32Impl<true, 16>(a, b, c, m, n, k);
      else GemmF32Impl<false, 16>(a, b, c, m, n, k);
      return true;
    case 8:
      if (!HasAvx2Fma()) return false;
      GemmFmaAvx2(a, b, c, m, n, k);
      return true;
    case 16:
      if (!CpuHasAvx512()) return false;
      GemmFmaAvx512(a, b, c, m, n, k);
      return true;
    default: return false;
  }
}

void GemmI32(const int32_t* a, const int32_t* b, int32_t* c, int64_t m, int64_t n, int64_t k) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      const uint32_t av = static_cast<uint32_t>(a[i * k + p]);
      for (int64_t j = 0; j < n; ++j)
        c[i * n + j] = static_cast<int32_t>(static_cast<uint32_t>(c[i * n + j]) + av * static_cast<uint32_t>(b[p * n + j]));
    }
}

}  // namespace opdev::sim::cube
