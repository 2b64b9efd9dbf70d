// Unit tests of the VF register model: masks, lane arithmetic, reductions, exp_sub/astype
// half-lane layouts, predicated stores and undefined-lane tracking, with hand-computed values.
#include "opdev/sim/vf_ops.h"
#include "opdev/support/half.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace opdev;
using namespace opdev::sim;

namespace {
VReg F32(std::initializer_list<float> head, float fill = 0.0f) {
  VReg r;
  r.dtype = DType::kFloat32;
  int i = 0;
  for (float v : head) r.Set(i++, v);
  for (; i < 64; ++i) r.Set(i, fill);
  return r;
}
VReg F16Iota(float scale = 1.0f) {
  VReg r;
  r.dtype = DType::kFloat16;
  for (int i = 0; i < 128; ++i) r.Set(i, i * scale);
  return r;
}
}  // namespace

TEST_CASE("update_mask and create_mask set the documented lanes per dtype width") {
  MaskReg m16 = vf::UpdateMask(72, DType::kFloat16);
  CHECK(m16.width == 2);
  CHECK(m16.ActiveCount(2) == 72);
  CHECK(m16.Active(71, 2));
  CHECK_FALSE(m16.Active(72, 2));
  // Read as an fp32 mask, an fp16 mask of k lanes activates ceil(k/2) fp32 lanes.
  CHECK(m16.ActiveCount(4) == 36);
  CHECK(vf::UpdateMask(1000, DType::kFloat32).ActiveCount(4) == 64);
  CHECK(vf::UpdateMask(-3, DType::kFloat32).ActiveCount(4) == 0);
  CHECK(vf::CreateMask("pl.MaskPattern.ALL", DType::kFloat16)->ActiveCount(2) == 128);
  CHECK(vf::CreateMask("VL8", DType::kFloat32)->ActiveCount(4) == 8);
  CHECK(vf::CreateMask("H", DType::kFloat32)->ActiveCount(4) == 32);
  auto m3 = vf::CreateMask("M3", DType::kFloat32);
  CHECK(m3->Active(0, 4));
  CHECK_FALSE(m3->Active(1, 4));
  CHECK(m3->Active(3, 4));
  CHECK_FALSE(vf::CreateMask("BOGUS", DType::kFloat32).has_value());
}

TEST_CASE("binary ops zero masked-off lanes, MERGING keeps the old destination") {
  VReg a = F32({1, 2, 3, 4}, 10), b = F32({10, 20, 30, 40}, 1);
  MaskReg m = vf::UpdateMask(3, DType::kFloat32);
  VReg s = vf::Binary(vf::BinOp::kAdd, a, b, m);
  CHECK(s.Get(0) == 11);
  CHECK(s.Get(2) == 33);
  CHECK(s.Get(3) == 0);
  CHECK(s.Get(63) == 0);
  VReg old = F32({}, 7);
  VReg mm = vf::Binary(vf::BinOp::kMul, a, b, m, MergeMode::kMerging, &old);
  CHECK(mm.Get(1) == 40);
  CHECK(mm.Get(3) == 7);
  VReg d = vf::Binary(vf::BinOp::kDiv, a, b, vf::UpdateMask(64, DType::kFloat32));
  CHECK(d.Get(0) == Approx(0.1f).epsilon(0));
  CHECK(vf::Binary(vf::BinOp::kMax, a, b, m).Get(0) == 10);
  CHECK(vf::Binary(vf::BinOp::kMin, a, b, m).Get(0) == 1);
  CHECK(vf::BinaryScalar(vf::BinOp::kAdd, a, 0.5, m).Get(1) == 2.5);
}

TEST_CASE("fp16 arithmetic rounds each result to nearest even") {
  VReg a, b;
  a.dtype = b.dtype = DType::kFloat16;
  for (int i = 0; i < 128; ++i) { a.Set(i, 2048); b.Set(i, 1); }
  // 2048 + 1 = 2049 is a tie between 2048 and 2050 in fp16: round to even -> 2048.
  VReg s = vf::Binary(vf::BinOp::kAdd, a, b, vf::UpdateMask(128, DType::kFloat16));
  CHECK(s.Get(0) == 2048);
  b.Set(0, 3);  // 2051 -> tie between 2050 and 2052 -> 2052 (even mantissa)
  CHECK(vf::Binary(vf::BinOp::kAdd, a, b, vf::UpdateMask(128, DType::kFloat16)).Get(0) == 2052);
}

TEST_CASE("reduce_sum is a pairwise tree in lane 0 (others zero), reduce_max ignores masked lanes") {
  VReg a = F32({1, 2, 3, 4, 5}, 100);
  MaskReg m = vf::UpdateMask(5, DType::kFloat32);
  VReg s = vf::Reduce(vf::ReduceOp::kSum, a, m);
  CHECK(s.Get(0) == 15);
  CHECK(s.Get(1) == 0);
  VReg mx = vf::Reduce(vf::ReduceOp::kMax, a, m);
  CHECK(mx.Get(0) == 5);
  CHECK(vf::Reduce(vf::ReduceOp::kMin, a, m).Get(0) == 1);
  // Tree order: 1e8 + 1 + (-1e8) + 1 ... pairwise (1e8+1)=1e8 in fp32, (-1e8+1)=-1e8 -> 0.
  VReg t = F32({1e8f, 1.0f, -1e8f, 1.0f}, 0);
  CHECK(vf::Reduce(vf::ReduceOp::kSum, t, vf::UpdateMask(4, DType::kFloat32)).Get(0) == 0);
  CHECK(vf::Reduce(vf::ReduceOp::kSum, a, vf::UpdateMask(0, DType::kFloat32)).Get(0) == 0);
}

TEST_CASE("full broadcasts a scalar or lane 0 to active lanes") {
  MaskReg all = vf::UpdateMask(64, DType::kFloat32);
  VReg f = vf::FullScalar(-1e30, DType::kFloat32, &all);
  CHECK(f.Get(17) == static_cast<float>(-1e30));
  VReg src = F32({42, 1, 2});
  VReg b = vf::FullLane(src, vf::UpdateMask(10, DType::kFloat32));
  CHECK(b.Get(9) == 42);
  CHECK(b.Get(10) == 0);
}

TEST_CASE("exp_sub fp16 -> fp32 takes even (ZERO) or odd (ONE) source lanes") {
  VReg x = F16Iota(0.5f);   // lane i = i/2
  VReg mx;
  mx.dtype = DType::kFloat16;
  for (int i = 0; i < 128; ++i) mx.Set(i, 1.0);
  MaskReg m = vf::UpdateMask(5, DType::kFloat16);  // source lanes 0..4 active
  VReg e0 = vf::ExpSub(x, mx, m, DType::kFloat32, CastLayout::kZero);
  VReg e1 = vf::ExpSub(x, mx, m, DType::kFloat32, CastLayout::kOne);
  CHECK(e0.dtype == DType::kFloat32);
  CHECK(e0.Get(0) == Approx(std::exp(0.0 - 1.0)));   // source lane 0
  CHECK(e0.Get(2) == Approx(std::exp(2.0 - 1.0)));   // source lane 4
  CHECK(e0.Get(3) == 0);                              // source lane 6 inactive
  CHECK(e1.Get(0) == Approx(std::exp(0.5 - 1.0)));   // source lane 1
  CHECK(e1.Get(1) == Approx(std::exp(1.5 - 1.0)));   // source lane 3
  CHECK(e1.Get(2) == 0);                              // source lane 5 inactive
}

TEST_CASE("exp_sub fp16 -> fp32 equals exp of the widened difference on every fp16 pattern") {
  // Every fp16 pattern (zeros, subnormals, Inf, NaN payloads) as the first source, against
  // pseudo-random second sources, in both layouts, with a full and a partial mask; lane i must
  // hold the bits of std::exp(HalfToFloat(a[2i + off]) - HalfToFloat(b[2i + off])) where its
  // source lane is active, zero elsewhere.
  std::mt19937 rng(7);
  int64_t mismatches = 0, lanes = 0;
  for (uint32_t base = 0; base < 65536u; base += 128) {
    VReg a, b;
    a.dtype = b.dtype = DType::kFloat16;
    for (int i = 0; i < 128; ++i) {
      const uint16_t ha = static_cast<uint16_t>(base + static_cast<uint32_t>(i));
      // Mostly finite second sources near the first (the softmax's row maximum), some any pattern.
      const uint16_t hb = rng() % 4 == 0 ? static_cast<uint16_t>(rng()) : static_cast<uint16_t>(ha ^ (rng() & 0x03FF));
      std::memcpy(a.raw.data() + 2 * i, &ha, 2);
      std::memcpy(b.raw.data() + 2 * i, &hb, 2);
    }
    const int active = static_cast<int>(rng() % 129);
    for (const MaskReg& m : {vf::UpdateMask(128, DType::kFloat16), vf::UpdateMask(active, DType::kFloat16)})
      for (CastLayout layout : {CastLayout::kZero, CastLayout::kOne}) {
        const VReg e = vf::ExpSub(a, b, m, DType::kFloat32, layout);
        const int off = layout == CastLayout::kOne ? 1 : 0;
        for (int i = 0; i < 64; ++i) {
          const int s = 2 * i + off;
          uint16_t ha, hb;
          std::memcpy(&ha, a.raw.data() + 2 * s, 2);
          std::memcpy(&hb, b.raw.data() + 2 * s, 2);
          const float want_f = m.bit[static_cast<size_t>(2 * s)] ? std::exp(HalfToFloat(ha) - HalfToFloat(hb)) : 0.0f;
          uint32_t got, want = FloatToBits(want_f);
          std::memcpy(&got, e.raw.data() + 4 * i, 4);
          mismatches += got != want;
          ++lanes;
        }
      }
  }
  CHECK(lanes == 65536 * 2);
  CHECK(mismatches == 0);
}

TEST_CASE("astype narrows into even/odd lanes and widens from them") {
  VReg a = F32({1.0f, 2.0f, 3.0f, 65520.0f});
  MaskReg all32 = vf::UpdateMask(64, DType::kFloat32);
  VReg z = vf::AsType(a, all32, DType::kFloat16, CastLayout::kZero);
  VReg o = vf::AsType(a, all32, DType::kFloat16, CastLayout::kOne);
  CHECK(z.Get(0) == 1);
  CHECK(z.Get(1) == 0);
  CHECK(z.Get(2) == 2);
  CHECK(std::isinf(z.Get(6)));  // 65520 rounds to +inf in fp16 (RNE, above max/2-ulp)
  CHECK(o.Get(1) == 1);
  CHECK(o.Get(0) == 0);
  VReg merged = vf::Binary(vf::BinOp::kAdd, z, o, vf::UpdateMask(128, DType::kFloat16));
  CHECK(merged.Get(0) == 1);
  CHECK(merged.Get(1) == 1);
  CHECK(merged.Get(5) == 3);
  VReg w = vf::AsType(F16Iota(), vf::UpdateMask(128, DType::kFloat16), DType::kFloat32, CastLayout::kOne);
  CHECK(w.Get(0) == 1);
  CHECK(w.Get(63) == 127);
  VReg i32 = vf::AsType(F32({2.5f, 3.5f, -2.5f}), all32, DType::kInt32, CastLayout::kZero);
  CHECK(i32.Get(0) == 2);   // CAST_RINT: ties to even
  CHECK(i32.Get(1) == 4);
  CHECK(i32.Get(2) == -2);
}

TEST_CASE("compare produces a mask of the operand width, select picks by it") {
  VReg a = F32({1, 5, 3}, 0), b = F32({2, 2, 3}, 0);
  MaskReg all = vf::UpdateMask(64, DType::kFloat32);
  MaskReg lt = vf::Compare(vf::CmpOp::kLt, a, b, all);
  CHECK(lt.width == 4);
  CHECK(lt.Active(0, 4));
  CHECK_FALSE(lt.Active(1, 4));
  CHECK(vf::CompareScalar(vf::CmpOp::kGe, a, 3.0, all).ActiveCount(4) == 2);
  VReg s = vf::Select(a, b, lt);
  CHECK(s.Get(0) == 1);
  CHECK(s.Get(1) == 2);
}

TEST_CASE("loads mark lanes from unwritten bytes undefined, stores are predicated") {
  uint8_t mem[256], written[256];
  for (int i = 0; i < 64; ++i) { float f = static_cast<float>(i); std::memcpy(mem + 4 * i, &f, 4); }
  std::memset(written, 1, 256);
  written[4 * 10 + 2] = 0;  // lane 10 partly unwritten
  VReg r = vf::LoadBytes(mem, written, DType::kFloat32);
  CHECK(r.any_undef);
  CHECK(r.LaneUndef(10));
  CHECK_FALSE(r.LaneUndef(9));
  VReg sum = vf::Reduce(vf::ReduceOp::kSum, r, vf::UpdateMask(10, DType::kFloat32));
  CHECK_FALSE(sum.any_undef);  // lane 10 masked off
  CHECK(sum.Get(0) == 45);
  CHECK(vf::Reduce(vf::ReduceOp::kSum, r, vf::UpdateMask(11, DType::kFloat32)).any_undef);
  uint8_t out[256], out_w[256];
  std::memset(out, 0xAB, 256);
  std::memset(out_w, 0, 256);
  CHECK_FALSE(vf::StoreBytes(r, vf::UpdateMask(3, DType::kFloat32), out, out_w));
  float f2;
  std::memcpy(&f2, out + 8, 4);
  CHECK(f2 == 2);
  CHECK(out[12] == 0xAB);  // lane 3 not stored
  CHECK(out_w[11] == 1);
  CHECK(out_w[12] == 0);
  CHECK(vf::StoreBytes(r, vf::UpdateMask(64, DType::kFloat32), out, out_w));  // lane 10 undefined
  CHECK(out_w[40] == 0);
}

TEST_CASE("predicated stores and the undefined-lane flags of operations equal their lane-by-lane definitions") {
  // Random registers with random never-written bytes, under random masks (any bit pattern, as
  // compares build them, and first-n masks), at every lane width.
  std::mt19937 rng(19);
  for (DType dt : {DType::kInt8, DType::kFloat16, DType::kFloat32, DType::kInt64}) {
    const int es = static_cast<int>(DTypeSize(dt)), lanes = 256 / es;
    for (int trial = 0; trial < 300; ++trial) {
      uint8_t mem_a[256], mem_b[256], wa[256], wb[256];
      const int holes = trial % 3 == 0 ? 0 : 1 + static_cast<int>(rng() % 40);
      for (int i = 0; i < 256; ++i) {
        // Bytes of small finite values, so that no lane depends on which NaN an addition keeps.
        mem_a[i] = static_cast<uint8_t>(rng() % 4);
        mem_b[i] = static_cast<uint8_t>(rng() % 4);
        wa[i] = wb[i] = 1;
      }
      for (int h = 0; h < holes; ++h) wa[rng() % 256] = 0, wb[rng() % 256] = 0;
      const VReg a = vf::LoadBytes(mem_a, wa, dt), b = vf::LoadBytes(mem_b, wb, dt);
      auto undef = [&](const uint8_t* w, int lane) {
        return std::any_of(w + lane * es, w + (lane + 1) * es, [](uint8_t x) { return x == 0; });
      };
      MaskReg m = vf::UpdateMask(static_cast<int64_t>(rng() % (lanes + 1)), dt);
      if (trial % 2 == 1)
        for (auto& bit : m.bit) bit = static_cast<uint8_t>(rng() % 2);
      bool any_active_undef = false;
      for (int i = 0; i < lanes; ++i) any_active_undef |= m.bit[i * es] != 0 && undef(wa, i);
      CAPTURE(DTypeName(dt), trial);
      // The predicated store: the active lanes' bytes and written flags, nothing else.
      uint8_t out[256], out_w[256], want[256], want_w[256];
      for (int i = 0; i < 256; ++i) out[i] = want[i] = static_cast<uint8_t>(rng()), out_w[i] = want_w[i] = rng() % 2;
      for (int i = 0; i < lanes; ++i)
        if (m.bit[i * es])
          for (int k = 0; k < es; ++k) want[i * es + k] = mem_a[i * es + k], want_w[i * es + k] = undef(wa, i) ? 0 : 1;
      CHECK(vf::StoreBytes(a, m, out, out_w) == any_active_undef);
      CHECK(std::memcmp(out, want, 256) == 0);
      CHECK(std::memcmp(out_w, want_w, 256) == 0);
      // A lane-wise operation: an active lane is undefined when a source lane is.
      const VReg sum = vf::Binary(vf::BinOp::kAdd, a, b, m);
      bool any = false;
      for (int i = 0; i < lanes; ++i) {
        const bool u = m.bit[i * es] != 0 && (undef(wa, i) || undef(wb, i));
        any |= u;
        if (sum.any_undef) CHECK(sum.LaneUndef(i) == u);
      }
      CHECK(sum.any_undef == any);
      // A reduction over an undefined active lane is undefined.
      CHECK(vf::Reduce(vf::ReduceOp::kMax, a, m).any_undef == any_active_undef);
      // exp_sub's fp16 -> fp32 half: output lane i reads source lane 2i + off.
      if (dt == DType::kFloat16) {
        for (int off : {0, 1}) {
          const VReg e = vf::ExpSub(a, b, m, DType::kFloat32, off ? CastLayout::kOne : CastLayout::kZero);
          bool any_e = false;
          for (int i = 0; i < 64; ++i) {
            const int src = 2 * i + off;
            const bool u = m.bit[src * 2] != 0 && (undef(wa, src) || undef(wb, src));
            any_e |= u;
            if (e.any_undef) CHECK(e.LaneUndef(i) == u);
          }
          CHECK(e.any_undef == any_e);
        }
      }
    }
  }
}

TEST_CASE("fp32 -> fp16 register rounding equals the exact converter on every fp16 boundary") {
  // Values around every fp16 rounding boundary (ties, overflow edge, subnormals) through astype.
  MaskReg all32 = vf::UpdateMask(64, DType::kFloat32);
  int64_t mismatches = 0;
  for (uint32_t h = 0; h < 0x7C00u; h += 7) {
    float base = HalfToFloat(static_cast<uint16_t>(h));
    float next = HalfToFloat(static_cast<uint16_t>(h + 1));
    float mid = base + (next - base) / 2;  // exact tie in fp32
    VReg r;
    r.dtype = DType::kFloat32;
    float vals[4] = {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f), -mid};
    for (int i = 0; i < 64; ++i) r.Set(i, vals[i % 4]);
    VReg o = vf::AsType(r, all32, DType::kFloat16, CastLayout::kZero);
    for (int i = 0; i < 64; ++i) {
      uint16_t got;
      std::memcpy(&got, o.raw.data() + 4 * i, 2);
      mismatches += got != FloatToHalf(vals[i % 4]);
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("fp16 -> fp32 register widening equals the exact converter on every fp16 pattern") {
  // All 65536 patterns (zeros, subnormals, normals, Inf, NaN payloads) through astype to fp32
  // in both half layouts; every lane's bits must be HalfToFloat's.
  MaskReg all16 = vf::UpdateMask(128, DType::kFloat16);
  int64_t mismatches = 0, lanes = 0;
  for (uint32_t base = 0; base < 65536u; base += 128) {
    VReg r;
    r.dtype = DType::kFloat16;
    for (int i = 0; i < 128; ++i) {
      const uint16_t h = static_cast<uint16_t>(base + static_cast<uint32_t>(i));
      std::memcpy(r.raw.data() + 2 * i, &h, 2);
    }
    for (CastLayout layout : {CastLayout::kZero, CastLayout::kOne}) {
      VReg o = vf::AsType(r, all16, DType::kFloat32, layout);
      const int off = layout == CastLayout::kOne ? 1 : 0;
      for (int i = 0; i < 64; ++i) {
        uint32_t got, want = FloatToBits(HalfToFloat(static_cast<uint16_t>(base + static_cast<uint32_t>(2 * i + off))));
        std::memcpy(&got, o.raw.data() + 4 * i, 4);
        mismatches += got != want;
        ++lanes;
      }
    }
  }
  CHECK(lanes == 65536);
  CHECK(mismatches == 0);
}

// The fp16 <-> fp32 lane conversions run a variant chosen at run time (AVX2 or the baseline
// build, lane_convert.cpp); whichever runs here must give HalfToFloat / FloatToHalf's bits for
// every fp16 pattern and for fp32 patterns across the whole range (NaN payloads included).
TEST_CASE("astype fp16<->fp32 matches the scalar converters bit for bit") {
  MaskReg all16 = vf::UpdateMask(128, DType::kFloat16);
  MaskReg all32 = vf::UpdateMask(64, DType::kFloat32);
  int64_t widen_bad = 0, narrow_bad = 0;
  for (uint32_t base = 0; base < 65536; base += 128) {
    VReg h;
    h.dtype = DType::kFloat16;
    for (int i = 0; i < 128; ++i) {
      const uint16_t bits = static_cast<uint16_t>(base + i);
      std::memcpy(h.raw.data() + 2 * i, &bits, 2);
    }
    for (CastLayout layout : {CastLayout::kZero, CastLayout::kOne}) {
      VReg w = vf::AsType(h, all16, DType::kFloat32, layout);
      for (int j = 0; j < 64; ++j) {
        uint32_t got;
        std::memcpy(&got, w.raw.data() + 4 * j, 4);
        const uint16_t src = static_cast<uint16_t>(base + 2 * j + (layout == CastLayout::kOne ? 1 : 0));
        if (got != FloatToBits(HalfToFloat(src))) ++widen_bad;
      }
    }
  }
  // fp32 patterns: a prime stride over all 2^32, and every pattern within 4 of each fp16
  // rounding boundary (the fp32 images of fp16 values and the midpoints between them).
  std::vector<uint32_t> pats;
  for (uint64_t x = 0; x < (uint64_t{1} << 32); x += 65521) pats.push_back(static_cast<uint32_t>(x));
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint32_t f = FloatToBits(HalfToFloat(static_cast<uint16_t>(h)));
    for (uint32_t d = 0; d < 4; ++d) {
      pats.push_back(f + d);
      pats.push_back(f - d);
      pats.push_back(f + 0x1000u + d);
      pats.push_back(f + 0x1000u - d);
    }
  }
  for (size_t base = 0; base < pats.size(); base += 64) {
    VReg f;
    f.dtype = DType::kFloat32;
    for (int i = 0; i < 64; ++i) {
      const uint32_t bits = pats[std::min(base + i, pats.size() - 1)];
      std::memcpy(f.raw.data() + 4 * i, &bits, 4);
    }
    VReg n = vf::AsType(f, all32, DType::kFloat16, CastLayout::kZero);
    for (int i = 0; i < 64; ++i) {
      uint16_t got;
      std::memcpy(&got, n.raw.data() + 4 * i, 2);
      float in;
      std::memcpy(&in, f.raw.data() + 4 * i, 4);
      if (got != FloatToHalf(in)) ++narrow_bad;
    }
  }
  CHECK(widen_bad == 0);
  CHECK(narrow_bad == 0);
}

// Registers mixing NaNs and infinities with ordinary values (the poison of unwritten lanes
// beside loaded data): the conversion instructions handle the ordinary lanes and the special
// ones are redone, so every lane must still be HalfToFloat / FloatToHalf's, whatever its
// neighbours are.
TEST_CASE("fp16<->fp32 conversions of registers mixing NaNs and infinities with numbers are exact") {
  MaskReg all16 = vf::UpdateMask(128, DType::kFloat16);
  MaskReg all32 = vf::UpdateMask(64, DType::kFloat32);
  std::mt19937 rng(7);
  int64_t widen_bad = 0, narrow_bad = 0, special_lanes = 0;
  for (int reg = 0; reg < 4096; ++reg) {
    VReg h;
    h.dtype = DType::kFloat16;
    const uint32_t every = 1 + reg % 16;  // one special lane in `every`, on average
    for (int i = 0; i < 128; ++i) {
      uint16_t bits = static_cast<uint16_t>(rng());
      if (rng() % every == 0) bits = static_cast<uint16_t>((bits & 0x83FFu) | 0x7C00u);
      special_lanes += (bits & 0x7C00u) == 0x7C00u;
      std::memcpy(h.raw.data() + 2 * i, &bits, 2);
    }
    for (CastLayout layout : {CastLayout::kZero, CastLayout::kOne}) {
      VReg w = vf::AsType(h, all16, DType::kFloat32, layout);
      for (int j = 0; j < 64; ++j) {
        uint32_t got;
        uint16_t src;
        std::memcpy(&got, w.raw.data() + 4 * j, 4);
        std::memcpy(&src, h.raw.data() + 2 * (2 * j + (layout == CastLayout::kOne ? 1 : 0)), 2);
        if (got != FloatToBits(HalfToFloat(src))) ++widen_bad;
      }
    }
    VReg f;
    f.dtype = DType::kFloat32;
    for (int i = 0; i < 64; ++i) {
      uint32_t bits = static_cast<uint32_t>(rng());
      if (rng() % every == 0) bits = (bits & 0x807FFFFFu) | 0x7F800000u;  // NaN, or Inf
      else if (rng() % 2) bits = FloatToBits(HalfToFloat(static_cast<uint16_t>(rng() & 0x7BFFu)));
      std::memcpy(f.raw.data() + 4 * i, &bits, 4);
    }
    VReg n = vf::AsType(f, all32, DType::kFloat16, CastLayout::kZero);
    for (int i = 0; i < 64; ++i) {
      uint16_t got;
      float in;
      std::memcpy(&got, n.raw.data() + 4 * i, 2);
      std::memcpy(&in, f.raw.data() + 4 * i, 4);
      if (got != FloatToHalf(in)) ++narrow_bad;
    }
  }
  CHECK(special_lanes > 4096 * 128 / 8);
  CHECK(widen_bad == 0);
  CHECK(narrow_bad == 0);
}

// The register operations take constant-width, branch-free passes (vf_ops.cpp); these check
// them bit for bit against the plain lane-by-lane definitions on random registers holding
// NaNs, infinities and zeros of both signs, under random masks, in fp32 and fp16.
namespace {
float Pick(std::mt19937& rng) {
  // NaNs: quiet of both signs, a quiet one with a payload, signalling ones (fp32 registers keep
  // them; fp16 registers hold the nearest fp16 NaN).
  static const uint32_t kNaNs[] = {0x7FC00000u, 0xFFC00000u, 0x7FC00123u, 0x7F800001u, 0xFF812345u};
  static const float kSpecial[] = {0.0f, -0.0f, INFINITY, -INFINITY, 1.0f, -1.0f};
  std::uniform_int_distribution<int> kind(0, 3);
  if (kind(rng) == 0) {
    const int k = std::uniform_int_distribution<int>(0, 10)(rng);
    if (k < 6) return kSpecial[k];
    float f;
    std::memcpy(&f, &kNaNs[k - 6], sizeof f);
    return f;
  }
  return std::uniform_real_distribution<float>(-4.0f, 4.0f)(rng);
}
VReg RandomReg(std::mt19937& rng, DType d, bool zeros_only) {
  VReg r;
  r.dtype = d;
  for (int i = 0; i < r.Lanes(); ++i) r.Set(i, zeros_only ? (rng() & 1 ? 0.0 : -0.0) : Pick(rng));
  return r;
}
float Quiet(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  u |= 0x00400000u;
  std::memcpy(&x, &u, sizeof u);
  return x;
}
// `z` (x op y) unless an operand is NaN: then that operand, quieted, the first one when both
// are. This is what one x86 instruction gives; the simulator spells it out because a compiler
// may commute an addition, which changes which NaN survives.
float FirstNaN(float x, float y, float z) { return x != x ? Quiet(x) : y != y ? Quiet(y) : z; }
MaskReg RandomMask(std::mt19937& rng, DType d) {
  const int lanes = d == DType::kFloat32 ? 64 : 128;
  return vf::UpdateMask(std::uniform_int_distribution<int>(0, lanes)(rng), d);
}
}  // namespace

TEST_CASE("reduce max min sum and binary max min and full equal the lane-by-lane definitions") {
  std::mt19937 rng(20261205);
  int64_t bad_extreme = 0, bad_sum = 0, bad_binary = 0, bad_full = 0, checked = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    const DType d = iter % 2 ? DType::kFloat16 : DType::kFloat32;
    const VReg a = RandomReg(rng, d, iter % 7 == 0);
    const VReg b = RandomReg(rng, d, iter % 5 == 0);
    const MaskReg m = iter % 3 == 0 ? vf::UpdateMask(d == DType::kFloat32 ? 64 : 128, d) : RandomMask(rng, d);
    const int n = a.Lanes(), es = a.ElemBytes();
    // reduce_max / reduce_min: the active non-NaN lanes in order; of equal zeros, the later.
    for (bool max : {true, false}) {
      float acc = max ? -INFINITY : INFINITY;
      for (int i = 0; i < n; ++i) {
        if (!m.bit[i * es]) continue;
        const float v = static_cast<float>(a.Get(i));
        if (v != v) continue;
        if (max ? v > acc : v < acc) acc = v;
        else if (v == acc) acc = v;
      }
      VReg want;
      want.dtype = d;
      want.Set(0, acc);
      const VReg got = vf::Reduce(max ? vf::ReduceOp::kMax : vf::ReduceOp::kMin, a, m);
      bad_extreme += std::memcmp(got.raw.data(), want.raw.data(), es) != 0;
      ++checked;
    }
    // reduce_sum: masked-off lanes as zero, then lanes 2i and 2i+1 added level by level.
    {
      std::vector<float> x(n);
      for (int i = 0; i < n; ++i) x[i] = m.bit[i * es] ? static_cast<float>(a.Get(i)) : 0.0f;
      for (int w = n / 2; w >= 1; w /= 2)
        for (int i = 0; i < w; ++i) x[i] = FirstNaN(x[2 * i], x[2 * i + 1], x[2 * i] + x[2 * i + 1]);
      VReg want;
      want.dtype = d;
      want.Set(0, x[0]);
      const VReg got = vf::Reduce(vf::ReduceOp::kSum, a, m);
      bad_sum += std::memcmp(got.raw.data(), want.raw.data(), es) != 0;
      ++checked;
    }
    // The lane-wise operations in fp32; max / min: a unless b is greater / smaller and not
    // NaN; masked-off lanes zero.
    for (vf::BinOp op : {vf::BinOp::kAdd, vf::BinOp::kSub, vf::BinOp::kMul, vf::BinOp::kDiv, vf::BinOp::kMax,
                         vf::BinOp::kMin}) {
      const VReg got = vf::Binary(op, a, b, m);
      for (int i = 0; i < n; ++i) {
        const float x = static_cast<float>(a.Get(i)), y = static_cast<float>(b.Get(i));
        float z = 0.0f;
        switch (op) {
          case vf::BinOp::kAdd: z = FirstNaN(x, y, x + y); break;
          case vf::BinOp::kSub: z = FirstNaN(x, y, x - y); break;
          case vf::BinOp::kMul: z = FirstNaN(x, y, x * y); break;
          case vf::BinOp::kDiv: z = FirstNaN(x, y, x / y); break;
          case vf::BinOp::kMax: z = x >= y || y != y ? x : y; break;
          case vf::BinOp::kMin: z = x <= y || y != y ? x : y; break;
        }
        if (!m.bit[i * es]) z = 0.0f;
        VReg want;
        want.dtype = d;
        want.Set(0, z);
        bad_binary += std::memcmp(got.raw.data() + i * es, want.raw.data(), es) != 0;
        ++checked;
      }
    }
    // full: the scalar, or a's lane 0, in active lanes; zero or (MERGING) b's lane elsewhere.
    for (MergeMode mode : {MergeMode::kZeroing, MergeMode::kMerging}) {
      const VReg fs = vf::FullScalar(a.Get(0), d, &m, mode, &b);
      const VReg fl = vf::FullLane(a, m, false, mode, &b);
      VReg scalar;  // the scalar as the register dtype stores it
      scalar.dtype = d;
      scalar.Set(0, a.Get(0));
      for (int i = 0; i < n; ++i) {
        const uint8_t* other = mode == MergeMode::kMerging ? b.raw.data() + i * es : nullptr;
        const uint8_t* want_s = m.bit[i * es] ? scalar.raw.data() : other;
        const uint8_t* want_l = m.bit[i * es] ? a.raw.data() : other;
        for (auto [got, want] : {std::pair{&fs, want_s}, std::pair{&fl, want_l}}) {
          if (want) bad_full += std::memcmp(got->raw.data() + i * es, want, es) != 0;
          else bad_full += got->Get(i) != 0.0 || std::signbit(got->Get(i));
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 1000000);
  CHECK(bad_extreme == 0);
  CHECK(bad_sum == 0);
  CHECK(bad_binary == 0);
  CHECK(bad_full == 0);
}
