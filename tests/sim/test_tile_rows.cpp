// Differential tests of the tile operations' row loops: every operation on ND tiles (typed
// row passes) must give what the per-element path gives on DN tiles holding the same values
// (bit-for-bit results, written flags and the reported issues), for fp32, fp16 and bf16 data
// with NaN/Inf/subnormal patterns, rows longer than one pass, never-written elements and
// valid windows narrower than the tile; and overlapping operands must keep the per-element
// order.
#include "opdev/sim/hazards.h"
#include "opdev/sim/tile_ops.h"
#include "opdev/support/half.h"
#include "sim_test_util.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <iterator>
#include <functional>
#include <string>
#include <vector>

using namespace opdev;
using namespace opdev::sim;

namespace {

Tile Make(int64_t r, int64_t c, DType dt, uint64_t addr, Layout layout) { return simtest::MakeTile(r, c, dt, addr, layout); }

// Element bits of a deterministic pattern: ordinary values, and for `special` indices zeros,
// subnormals, Inf and NaN payloads of the dtype.
uint32_t Pattern(DType dt, uint64_t i, uint64_t seed, bool specials = true) {
  uint64_t s = (i + 1) * 6364136223846793005ULL + seed * 1442695040888963407ULL;
  s ^= s >> 29;
  const double v = -6.0 + 12.0 * static_cast<double>(s % 100000) / 100000.0;
  const int special = specials ? static_cast<int>((s >> 20) % 23) : -1;
  if (dt == DType::kFloat32) {
    if (special == 0) return 0x7FC00001u;  // NaN with payload
    if (special == 1) return 0xFF800000u;  // -Inf
    if (special == 2) return 0x00000005u;  // subnormal
    return FloatToBits(static_cast<float>(v));
  }
  if (dt == DType::kFloat16) {
    if (special == 0) return 0x7E01u;
    if (special == 1) return 0x7C00u;
    if (special == 2) return 0x0003u;
    if (special == 3) return 0x8000u;
    return FloatToHalf(static_cast<float>(v));
  }
  if (special == 0) return 0x7FC1u;
  if (special == 1) return 0xFF80u;
  return FloatToBFloat16(static_cast<float>(v));
}

struct Pair {
  Tile nd, dn;
};

// The same logical [r, c] values in an ND tile and a DN tile; elements with (r*c+col) % hole
// == hole-1 are left unwritten (hole 0: all written). Without `specials`, finite values only.
Pair Fill(CoreMemory& mem, int64_t rows, int64_t cols, DType dt, uint64_t nd_addr, uint64_t dn_addr,
          uint64_t seed, int hole, bool specials = true) {
  Pair p{Make(rows, cols, dt, nd_addr, Layout::kND), Make(rows, cols, dt, dn_addr, Layout::kDN)};
  SpaceBuffer& buf = mem.Get(MemSpace::kVec);
  const size_t es = DTypeSize(dt);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const uint64_t i = static_cast<uint64_t>(r * cols + c);
      if (hole > 0 && i % static_cast<uint64_t>(hole) == static_cast<uint64_t>(hole - 1)) continue;
      const uint32_t bits = Pattern(dt, i, seed, specials);
      for (const Tile* t : {&p.nd, &p.dn}) {
        const uint64_t off = t->addr + t->ElementOffset(r, c);
        std::memcpy(buf.bytes.data() + off, &bits, es);
        buf.MarkWritten(off, es);
      }
    }
  return p;
}

std::string Describe(const std::vector<Issue>& v) {
  std::string s;
  for (const auto& i : v) s += std::string(i.code) + ": " + i.message + "\n";
  return s;
}

// Element bits and written flags of out's valid window agree between the two tiles.
int64_t Mismatches(CoreMemory& mem, const Tile& a, const Tile& b) {
  const SpaceBuffer& buf = mem.Get(MemSpace::kVec);
  const size_t es = a.elem_size();
  int64_t bad = 0;
  for (int64_t r = 0; r < a.valid_rows; ++r)
    for (int64_t c = 0; c < a.valid_cols; ++c) {
      const uint64_t oa = a.addr + a.ElementOffset(r, c), ob = b.addr + b.ElementOffset(r, c);
      bad += std::memcmp(buf.bytes.data() + oa, buf.bytes.data() + ob, es) != 0;
      bad += std::memcmp(buf.written.data() + oa, buf.written.data() + ob, es) != 0;
    }
  return bad;
}

constexpr uint64_t kStride = 16384;  // bytes between the operand tiles

}  // namespace

TEST_CASE("tile row loops equal the per-element path (binary, scalar, unary, expands, reductions, expands of rows and columns)") {
  const int64_t rows = 3, cols = 600;  // longer than one row pass (512)
  for (DType dt : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    for (int hole : {0, 97}) {
      for (int64_t vc : {cols, int64_t{37}}) {
        DYNAMIC_SECTION(std::string(DTypeName(dt)) << " hole " << hole << " valid_cols " << vc) {
          CoreMemory mem(Target::kA5);
          Pair a = Fill(mem, rows, cols, dt, 0 * kStride, 1 * kStride, 1, hole);
          Pair b = Fill(mem, rows, cols, dt, 2 * kStride, 3 * kStride, 2, 0);
          Pair col = Fill(mem, rows, 1, dt, 4 * kStride, 4 * kStride + 4096, 3, hole ? 2 : 0);
          Pair row = Fill(mem, 1, cols, dt, 5 * kStride, 5 * kStride + 4096, 4, hole);
          col.nd.type.layout = Layout::kDN;  // a [R,1] vector is DN either way; the row loop is chosen by the other tiles
          Tile ond = Make(rows, cols, dt, 6 * kStride, Layout::kND), odn = Make(rows, cols, dt, 7 * kStride, Layout::kDN);
          ond.valid_cols = odn.valid_cols = vc;
          ond.name = odn.name = "o";
          std::vector<std::pair<std::string, std::function<std::vector<Issue>(Tile&, bool)>>> ops;
          for (tileop::Bin op : {tileop::Bin::kAdd, tileop::Bin::kSub, tileop::Bin::kMul, tileop::Bin::kDiv,
                                 tileop::Bin::kMax, tileop::Bin::kMin}) {
            const std::string n = std::to_string(static_cast<int>(op));
            ops.push_back({"binary " + n, [&, op](Tile& o, bool nd) {
                             return tileop::Binary(mem, op, o, nd ? a.nd : a.dn, nd ? b.nd : b.dn);
                           }});
            ops.push_back({"scalar " + n, [&, op](Tile& o, bool nd) {
                             return tileop::BinaryScalar(mem, op, o, nd ? a.nd : a.dn, 0.3, false);
                           }});
            ops.push_back({"scalar first " + n, [&, op](Tile& o, bool nd) {
                             return tileop::BinaryScalar(mem, op, o, nd ? a.nd : a.dn, -1.7, true);
                           }});
            ops.push_back({"expand rows " + n, [&, op](Tile& o, bool nd) {
                             return tileop::Expand(mem, op, o, nd ? a.nd : a.dn, col.nd, 0);
                           }});
            ops.push_back({"expand cols " + n, [&, op](Tile& o, bool nd) {
                             return tileop::Expand(mem, op, o, nd ? b.nd : b.dn, nd ? row.nd : row.dn, 1);
                           }});
          }
          for (tileop::Un op : {tileop::Un::kExp, tileop::Un::kLog, tileop::Un::kSqrt, tileop::Un::kRsqrt,
                                tileop::Un::kAbs, tileop::Un::kNeg, tileop::Un::kRelu, tileop::Un::kRecip}) {
            ops.push_back({"unary " + std::to_string(static_cast<int>(op)), [&, op](Tile& o, bool nd) {
                             return tileop::Unary(mem, op, o, nd ? a.nd : a.dn);
                           }});
          }
          ops.push_back({"expands", [&](Tile& o, bool) { return tileop::Expands(mem, o, 1.0 / 3.0); }});
          for (const auto& [name, op] : ops) {
            INFO(name);
            auto in = op(ond, true), idn = op(odn, false);
            CHECK(Describe(in) == Describe(idn));
            CHECK(Mismatches(mem, ond, odn) == 0);
          }
          // Row reductions into [R,1] DN tiles (the ND source takes the row loop).
          for (tileop::Red op : {tileop::Red::kSum, tileop::Red::kMax, tileop::Red::kMin}) {
            INFO("reduce " << static_cast<int>(op));
            Tile rn = Make(rows, 1, dt, 8 * kStride, Layout::kDN), rd = Make(rows, 1, dt, 8 * kStride + 4096, Layout::kDN);
            Tile an = a.nd, ad = a.dn;
            an.valid_cols = ad.valid_cols = vc;
            CHECK(Describe(tileop::Reduce(mem, op, rn, an, 0)) == Describe(tileop::Reduce(mem, op, rd, ad, 0)));
            CHECK(Mismatches(mem, rn, rd) == 0);
          }
          // Column reductions into [1, C] tiles (the ND source goes row by row).
          for (tileop::Red op : {tileop::Red::kSum, tileop::Red::kMax, tileop::Red::kMin}) {
            INFO("column reduce " << static_cast<int>(op));
            Tile cn = Make(1, cols, dt, 8 * kStride, Layout::kND), cd = Make(1, cols, dt, 8 * kStride + 4096, Layout::kND);
            Tile an = a.nd, ad = a.dn;
            an.valid_cols = ad.valid_cols = cn.valid_cols = cd.valid_cols = vc;
            CHECK(Describe(tileop::Reduce(mem, op, cn, an, 1)) == Describe(tileop::Reduce(mem, op, cd, ad, 1)));
            CHECK(Mismatches(mem, cn, cd) == 0);
          }
        }
      }
    }
  }
}

TEST_CASE("row sums of many rows side by side equal the per-element path, with a tail group and holes") {
  // 11 rows: one group of 8 rows summed side by side and a tail of 3; holes leave some rows
  // with unwritten elements (those rows take the per-element path inside a group).
  const int64_t rows = 11, cols = 600;
  const uint64_t stride = 65536;
  for (DType dt : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    for (int hole : {0, 97, 1400}) {
      for (int64_t vc : {cols, int64_t{37}}) {
        DYNAMIC_SECTION(std::string(DTypeName(dt)) << " hole " << hole << " valid_cols " << vc) {
          CoreMemory mem(Target::kA5);
          // Finite values: a NaN or an infinity in a row would hide the order of its sum.
          Pair a = Fill(mem, rows, cols, dt, 0, stride, 5, hole, false);
          a.nd.valid_cols = a.dn.valid_cols = vc;
          Tile rn = Make(rows, 1, dt, 2 * stride, Layout::kDN), rd = Make(rows, 1, dt, 2 * stride + 4096, Layout::kDN);
          const auto in = tileop::Reduce(mem, tileop::Red::kSum, rn, a.nd, 0);
          CHECK(Describe(in) == Describe(tileop::Reduce(mem, tileop::Red::kSum, rd, a.dn, 0)));
          CHECK(Mismatches(mem, rn, rd) == 0);
          if (vc == cols) CHECK((hole == 0) == in.empty());  // holes in the window are reported
        }
      }
    }
  }
}

TEST_CASE("row max and min keep the sign of the first zero and skip NaNs, as the column-order scan does") {
  // Rows of 600 fp32 values (past a 16-lane block and a 512-element pass): negatives (max) or
  // positives (min) with +0 and -0 at chosen columns, NaNs and infinities; the extreme is a
  // zero, whose sign only the column order decides.
  const int64_t cols = 600;
  struct Row {
    int64_t first_zero, second_zero;
    uint32_t first_bits;  // the zero at first_zero; the other zero has the other sign
  };
  const Row rows[] = {{3, 590, 0x80000000u}, {15, 16, 0x00000000u}, {15, 16, 0x80000000u}, {597, 20, 0x80000000u},
                      {33, 594, 0x00000000u}};
  for (tileop::Red op : {tileop::Red::kMax, tileop::Red::kMin}) {
    const bool is_max = op == tileop::Red::kMax;
    CoreMemory mem(Target::kA5);
    SpaceBuffer& buf = mem.Get(MemSpace::kVec);
    const int64_t n = static_cast<int64_t>(std::size(rows));
    Tile nd = Make(n, cols, DType::kFloat32, 0, Layout::kND), dn = Make(n, cols, DType::kFloat32, kStride * 2, Layout::kDN);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        float v = static_cast<float>(1 + (c * 7 + r) % 13) * (is_max ? -1.0f : 1.0f);
        uint32_t bits = FloatToBits(v);
        if (c % 29 == 5) bits = 0x7FC00001u;                     // NaN: skipped
        if (c % 31 == 7) bits = is_max ? 0xFF800000u : 0x7F800000u;  // -Inf (max) / +Inf (min)
        if (c == rows[r].first_zero) bits = rows[r].first_bits;
        if (c == rows[r].second_zero) bits = rows[r].first_bits ^ 0x80000000u;
        for (const Tile* t : {&nd, &dn}) {
          const uint64_t off = t->addr + t->ElementOffset(r, c);
          std::memcpy(buf.bytes.data() + off, &bits, 4);
          buf.MarkWritten(off, 4);
        }
      }
    Tile rn = Make(n, 1, DType::kFloat32, 4 * kStride, Layout::kDN), rd = Make(n, 1, DType::kFloat32, 5 * kStride, Layout::kDN);
    CHECK(tileop::Reduce(mem, op, rn, nd, 0).empty());
    CHECK(tileop::Reduce(mem, op, rd, dn, 0).empty());
    CHECK(Mismatches(mem, rn, rd) == 0);
    for (int64_t r = 0; r < n; ++r) {
      INFO("row " << r << (is_max ? " max" : " min"));
      uint32_t got = 0;
      std::memcpy(&got, buf.bytes.data() + rn.addr + rn.ElementOffset(r, 0), 4);
      const bool first_wins = rows[r].first_zero < rows[r].second_zero;
      CHECK(got == (first_wins ? rows[r].first_bits : rows[r].first_bits ^ 0x80000000u));
    }
  }
}

TEST_CASE("tile add and mul and sums return the first NaN operand quieted on the row and per-element paths") {
  // fp32 [9, 600]: a and b hold NaNs of different payloads and signs (signalling ones too) in
  // overlapping columns, so which operand's NaN survives is visible (float_choice.h).
  const int64_t rows = 9, cols = 600;
  const uint32_t kA[] = {0x7FC00011u, 0xFF800022u, 0x7F800033u};  // quiet, signalling (negative), signalling
  const uint32_t kB[] = {0xFFC00044u, 0x7F800055u, 0x7FC00066u};
  CoreMemory mem(Target::kA5);
  SpaceBuffer& buf = mem.Get(MemSpace::kVec);
  const uint64_t stride = 24576;  // 9 x 600 fp32 = 21,600 bytes; seven slots fit the UB
  Pair a{Make(rows, cols, DType::kFloat32, 0, Layout::kND), Make(rows, cols, DType::kFloat32, stride, Layout::kDN)};
  Pair b{Make(rows, cols, DType::kFloat32, 2 * stride, Layout::kND), Make(rows, cols, DType::kFloat32, 3 * stride, Layout::kDN)};
  auto bits_of = [&](bool is_a, int64_t r, int64_t c) -> uint32_t {
    const int64_t i = r * cols + c;
    if (is_a && i % 7 == 3) return kA[i % 3];
    if (!is_a && i % 5 == 3) return kB[i % 3];
    return FloatToBits(static_cast<float>((i * 37) % 101) / 16.0f - 3.0f);
  };
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      for (bool is_a : {true, false})
        for (const Tile* t : {is_a ? &a.nd : &b.nd, is_a ? &a.dn : &b.dn}) {
          const uint32_t bits = bits_of(is_a, r, c);
          const uint64_t off = t->addr + t->ElementOffset(r, c);
          std::memcpy(buf.bytes.data() + off, &bits, 4);
          buf.MarkWritten(off, 4);
        }
  auto at = [&](const Tile& t, int64_t r, int64_t c) {
    uint32_t u = 0;
    std::memcpy(&u, buf.bytes.data() + t.addr + t.ElementOffset(r, c), 4);
    return u;
  };
  auto is_nan = [](uint32_t u) { return (u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0; };
  for (tileop::Bin op : {tileop::Bin::kAdd, tileop::Bin::kMul}) {
    INFO("binary " << static_cast<int>(op));
    Tile ond = Make(rows, cols, DType::kFloat32, 4 * stride, Layout::kND), odn = Make(rows, cols, DType::kFloat32, 5 * stride, Layout::kDN);
    CHECK(tileop::Binary(mem, op, ond, a.nd, b.nd).empty());
    CHECK(tileop::Binary(mem, op, odn, a.dn, b.dn).empty());
    CHECK(Mismatches(mem, ond, odn) == 0);
    int64_t bad = 0, nan_pairs = 0;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        const uint32_t x = bits_of(true, r, c), y = bits_of(false, r, c);
        if (!is_nan(x) && !is_nan(y)) continue;
        nan_pairs += is_nan(x) && is_nan(y);
        bad += at(ond, r, c) != ((is_nan(x) ? x : y) | 0x00400000u);
      }
    CHECK(nan_pairs > 100);
    CHECK(bad == 0);
  }
  // Row sums: nine rows (a group of eight side by side, then one) and the per-element path;
  // each row's sum is its first NaN, quieted. Column sums likewise (first NaN down the column).
  Tile rn = Make(rows, 1, DType::kFloat32, 6 * stride, Layout::kDN), rd = Make(rows, 1, DType::kFloat32, 6 * stride + 4096, Layout::kDN);
  CHECK(tileop::Reduce(mem, tileop::Red::kSum, rn, a.nd, 0).empty());
  CHECK(tileop::Reduce(mem, tileop::Red::kSum, rd, a.dn, 0).empty());
  CHECK(Mismatches(mem, rn, rd) == 0);
  for (int64_t r = 0; r < rows; ++r) {
    uint32_t first = 0;
    for (int64_t c = 0; c < cols && first == 0; ++c)
      if (is_nan(bits_of(true, r, c))) first = bits_of(true, r, c);
    CHECK(at(rn, r, 0) == (first | 0x00400000u));
  }
  Tile cn = Make(1, cols, DType::kFloat32, 6 * stride + 8192, Layout::kND), cd = Make(1, cols, DType::kFloat32, 6 * stride + 12288, Layout::kND);
  CHECK(tileop::Reduce(mem, tileop::Red::kSum, cn, b.nd, 1).empty());
  CHECK(tileop::Reduce(mem, tileop::Red::kSum, cd, b.dn, 1).empty());
  CHECK(Mismatches(mem, cn, cd) == 0);
  int64_t col_bad = 0;
  for (int64_t c = 0; c < cols; ++c) {
    uint32_t first = 0;
    for (int64_t r = 0; r < rows && first == 0; ++r)
      if (is_nan(bits_of(false, r, c))) first = bits_of(false, r, c);
    if (first != 0) col_bad += at(cn, 0, c) != (first | 0x00400000u);
  }
  CHECK(col_bad == 0);
}

TEST_CASE("tile row loops keep the per-element order when the destination overlaps a source") {
  // out = -a with out one element past a: element c reads what element c-1 just wrote, so
  // every result is +-a[0] (the per-element order), not -a[c].
  CoreMemory mem(Target::kA5);
  Pair a = Fill(mem, 2, 64, DType::kFloat32, 0, kStride, 5, 0);
  SpaceBuffer& buf = mem.Get(MemSpace::kVec);
  Tile o = Make(2, 64, DType::kFloat32, 4, Layout::kND);  // overlaps a, shifted by one element
  o.valid_rows = 1;
  float a0;
  std::memcpy(&a0, buf.bytes.data(), 4);
  CHECK(tileop::Unary(mem, tileop::Un::kNeg, o, a.nd).empty());
  int64_t bad = 0;
  for (int64_t c = 0; c < 64; ++c) {
    float v;
    std::memcpy(&v, buf.bytes.data() + 4 + 4 * c, 4);
    bad += FloatToBits(v) != FloatToBits(c % 2 == 0 ? -a0 : a0);
  }
  CHECK(bad == 0);
  // In place (out is a): every element negated once.
  Pair b = Fill(mem, 2, 64, DType::kFloat16, 2 * kStride, 3 * kStride, 6, 0);
  CHECK(tileop::Unary(mem, tileop::Un::kNeg, b.nd, b.nd).empty());
  CHECK(tileop::Unary(mem, tileop::Un::kNeg, b.dn, b.dn).empty());
  CHECK(Mismatches(mem, b.nd, b.dn) == 0);
}

TEST_CASE("pl.cast's row loop equals the per-element path between the float formats, signalling NaNs included") {
  // Every (source, destination) pair of fp32, fp16 and bf16: ND tiles take the row loop, DN
  // tiles the per-element one. The data holds the Pattern specials and, in row 1, a
  // signalling NaN of the source format (the per-element double round trip quiets it).
  const int64_t rows = 3, cols = 600;
  const DType dts[] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};
  for (DType from : dts) {
    for (DType to : dts) {
      for (int hole : {0, 97}) {
        for (int64_t vc : {cols, int64_t{37}}) {
          DYNAMIC_SECTION(DTypeName(from) << " -> " << DTypeName(to) << " hole " << hole << " valid_cols " << vc) {
            CoreMemory mem(Target::kA5);
            Pair a = Fill(mem, rows, cols, from, 0, 2 * kStride, 7, hole);
            SpaceBuffer& buf = mem.Get(MemSpace::kVec);
            const uint32_t snan = from == DType::kFloat32 ? 0x7F800001u : from == DType::kFloat16 ? 0x7C01u : 0x7F81u;
            for (const Tile* t : {&a.nd, &a.dn}) {
              const uint64_t off = t->addr + t->ElementOffset(1, 5);
              std::memcpy(buf.bytes.data() + off, &snan, DTypeSize(from));
              buf.MarkWritten(off, DTypeSize(from));
            }
            Tile ond = Make(rows, cols, to, 4 * kStride, Layout::kND), odn = Make(rows, cols, to, 6 * kStride, Layout::kDN);
            ond.valid_cols = odn.valid_cols = vc;
            ond.name = odn.name = "o";
            const auto in = tileop::Cast(mem, ond, a.nd);
            CHECK(Describe(in) == Describe(tileop::Cast(mem, odn, a.dn)));
            CHECK(Mismatches(mem, ond, odn) == 0);
            if (vc == cols) CHECK((hole == 0) == in.empty());  // never-written elements are reported
          }
        }
      }
    }
  }
  SECTION("in place and overlapping: the per-element order") {
    // In place (same bytes): every element converted once.
    CoreMemory mem(Target::kA5);
    Pair a = Fill(mem, 2, 64, DType::kFloat32, 0, kStride, 8, 0);
    CHECK(tileop::Cast(mem, a.nd, a.nd).empty());
    CHECK(tileop::Cast(mem, a.dn, a.dn).empty());
    CHECK(Mismatches(mem, a.nd, a.dn) == 0);
    // Out one element past the source: element c reads what element c-1 just wrote, so row 0
    // becomes a[0] throughout (the per-element order), not a shifted copy.
    Pair b = Fill(mem, 2, 64, DType::kFloat32, 2 * kStride, 3 * kStride, 9, 0, false);
    SpaceBuffer& buf = mem.Get(MemSpace::kVec);
    Tile o = Make(2, 64, DType::kFloat32, 2 * kStride + 4, Layout::kND);
    o.valid_rows = 1;
    uint32_t b0;
    std::memcpy(&b0, buf.bytes.data() + 2 * kStride, 4);
    CHECK(tileop::Cast(mem, o, b.nd).empty());
    int64_t bad = 0;
    for (int64_t c = 0; c < 64; ++c) {
      uint32_t v;
      std::memcpy(&v, buf.bytes.data() + 2 * kStride + 4 + 4 * c, 4);
      bad += v != b0;
    }
    CHECK(bad == 0);
  }
}
