// pl.gather / pl.scatter and pl.quant / pl.dequant: results element for element against the
// formulas of gather.md, scatter.md, quant.md and dequant.md (an offset on the gather indices,
// a permutation scatter, round-half-to-even ties and saturation of quant, the per-row scale
// and zero point), and the cases the docs leave undefined or forbid reported at the call's
// line: an index outside the tile, two scattered elements on one destination, a compare mode,
// index dtypes the hardware does not pair with the data. Kernels use auto_mutex tile groups,
// so they are clean with the pipe model on as well.
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"
#include "opdev/sim/simulator.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <tuple>

using namespace opdev;
using simtest::HasAt;
using simtest::LineOf;
using simtest::Mutate;

namespace {

// One vector kernel: loads tiles a, b (and c) from the first tensors, runs OP, stores `out`.
std::string Kernel(const std::string& params, const std::string& tiles, const std::string& body) {
  return "import pypto_pro.language as pl\n\n@pl.jit(auto_mutex=True)\ndef k(" + params +
         "):\n" + tiles + "    with pl.section_vector():\n" + body;
}

std::string Group(const std::string& name, const std::string& dtype, int rows, int cols, int addr, int id) {
  return "    " + name + " = pl.make_tile_group(type=pl.TileType(shape=[" + std::to_string(rows) + ", " +
         std::to_string(cols) + "], dtype=pl." + dtype + ", target_memory=pl.MemorySpace.Vec), addrs=" +
         std::to_string(addr) + ", mutex_ids=[" + std::to_string(id) + "])\n";
}

sim::SimResult Run(const std::string& src, const std::vector<precision::Tensor>& in, bool pipe_sync = false) {
  sim::SimOptions o;
  o.entry = "k";
  o.pipe_sync = pipe_sync;
  auto r = sim::RunKernelSource(src, "ops.py", in, o);
  REQUIRE(r.ok());
  return *r;
}

const precision::Tensor& Out(const sim::SimResult& r) {
  for (const auto& o : r.outputs)
    if (o.name == "out") return o.tensor;
  FAIL("no output 'out'");
  return r.outputs[0].tensor;
}

precision::Tensor T(DType t, std::vector<int64_t> shape, const std::vector<double>& v) {
  auto x = precision::Tensor::FromDoubles(t, shape, v);
  REQUIRE(x.ok());
  return *x;
}

const std::string kGather = Kernel(
    "src: pl.Tensor[[8, 16], pl.DT_FP32], idx: pl.Tensor[[8, 16], pl.DT_INT32], out: pl.Tensor[[8, 16], pl.DT_FP32]",
    Group("gs", "DT_FP32", 8, 16, 0, 0) + Group("gi", "DT_INT32", 8, 16, 0x1000, 1) +
        Group("gt", "DT_INT32", 8, 16, 0x2000, 2) + Group("go", "DT_FP32", 8, 16, 0x3000, 3),
    "        s = gs.current()\n        i = gi.current()\n        t = gt.current()\n        o = go.current()\n"
    "        pl.load(s, src, [0, 0])\n        pl.load(i, idx, [0, 0])\n"
    "        pl.gather(o, s, i, t, offset=2)\n        pl.store(out, o, [0, 0])\n");

std::vector<precision::Tensor> GatherInputs(int64_t bad_at = -1) {
  std::vector<double> src(128), idx(128);
  for (int i = 0; i < 128; ++i) {
    src[i] = 0.5 * i - 7;
    idx[i] = 125 - i;  // + offset 2: 127 - i, a reversal
  }
  if (bad_at >= 0) idx[bad_at] = 126;  // + 2 = 128: one past the source
  return {T(DType::kFloat32, {8, 16}, src), T(DType::kInt32, {8, 16}, idx), *precision::Tensor::Zeros(DType::kFloat32, {8, 16})};
}

}  // namespace

TEST_CASE("sim: pl.gather: out[i] = src_flat[idx[i] + offset]") {
  for (bool pipe_sync : {false, true}) {
    auto r = Run(kGather, GatherInputs(), pipe_sync);
    INFO(r.hazards.CountsText());
    CHECK_FALSE(r.hazards.HasErrors());
    const auto& out = Out(r);
    for (int i = 0; i < 128; ++i) CHECK(out.GetDouble(i) == 0.5 * (127 - i) - 7);
  }
}

TEST_CASE("sim: pl.gather: an index outside the source and a compare mode are reported at the call") {
  auto r = Run(kGather, GatherInputs(5));
  CHECK(HasAt(r.hazards, sim::hazard::kIndexRange, LineOf(kGather, "pl.gather(")));
  const std::string cmp = Mutate(kGather, "offset=2)", "offset=2, cmp_mode=1)");
  auto r2 = Run(cmp, GatherInputs());
  CHECK_FALSE(r2.completed);
  CHECK(HasAt(r2.hazards, sim::hazard::kUnsupported, LineOf(cmp, "pl.gather(")));
}

TEST_CASE("sim: pl.scatter: a permutation lands exactly / a conflict and a wrong index width are findings") {
  const std::string src = Kernel(
      "src: pl.Tensor[[8, 16], pl.DT_FP32], idx: pl.Tensor[[8, 16], pl.DT_INT32], out: pl.Tensor[[8, 16], pl.DT_FP32]",
      Group("gs", "DT_FP32", 8, 16, 0, 0) + Group("gi", "DT_INT32", 8, 16, 0x1000, 1) +
          Group("go", "DT_FP32", 8, 16, 0x3000, 3),
      "        s = gs.current()\n        i = gi.current()\n        o = go.current()\n"
      "        pl.load(s, src, [0, 0])\n        pl.load(i, idx, [0, 0])\n"
      "        pl.scatter(o, s, i)\n        pl.store(out, o, [0, 0])\n");
  std::vector<double> v(128), idx(128);
  for (int i = 0; i < 128; ++i) {
    v[i] = i * 1.25;
    idx[i] = (i * 37) % 128;  // 37 is odd: a permutation of 0..127
  }
  auto r = Run(src, {T(DType::kFloat32, {8, 16}, v), T(DType::kInt32, {8, 16}, idx),
                     *precision::Tensor::Zeros(DType::kFloat32, {8, 16})});
  INFO(r.hazards.CountsText());
  CHECK_FALSE(r.hazards.HasErrors());
  for (int i = 0; i < 128; ++i) CHECK(Out(r).GetDouble((i * 37) % 128) == i * 1.25);
  idx[3] = idx[4];  // two sources on one element; element idx[3]'s old target stays unwritten
  auto r2 = Run(src, {T(DType::kFloat32, {8, 16}, v), T(DType::kInt32, {8, 16}, idx),
                      *precision::Tensor::Zeros(DType::kFloat32, {8, 16})});
  CHECK(HasAt(r2.hazards, sim::hazard::kIndexRange, LineOf(src, "pl.scatter(")));
  // FP16 data takes 16-bit indices (scatter.md's table).
  const std::string half = Mutate(Mutate(Mutate(src, "src: pl.Tensor[[8, 16], pl.DT_FP32]", "src: pl.Tensor[[8, 16], pl.DT_FP16]"),
                                         "out: pl.Tensor[[8, 16], pl.DT_FP32]", "out: pl.Tensor[[8, 16], pl.DT_FP16]"),
                                  "gs = pl.make_tile_group(type=pl.TileType(shape=[8, 16], dtype=pl.DT_FP32",
                                  "gs = pl.make_tile_group(type=pl.TileType(shape=[8, 16], dtype=pl.DT_FP16");
  const std::string half2 = Mutate(half, "go = pl.make_tile_group(type=pl.TileType(shape=[8, 16], dtype=pl.DT_FP32",
                                   "go = pl.make_tile_group(type=pl.TileType(shape=[8, 16], dtype=pl.DT_FP16");
  auto r3 = Run(half2, {T(DType::kFloat16, {8, 16}, v), T(DType::kInt32, {8, 16}, idx),
                        *precision::Tensor::Zeros(DType::kFloat16, {8, 16})});
  CHECK(HasAt(r3.hazards, sim::hazard::kTypeMismatch, LineOf(half2, "pl.scatter(")));
}

TEST_CASE("sim: pl.quant: per-row scale, ties to even, saturation / ASYM adds the zero point into UINT8") {
  const std::string sym = Kernel(
      "src: pl.Tensor[[2, 32], pl.DT_FP32], scale: pl.Tensor[[2, 8], pl.DT_FP32], out: pl.Tensor[[2, 32], pl.DT_INT8]",
      Group("gs", "DT_FP32", 2, 32, 0, 0) + Group("gk", "DT_FP32", 2, 8, 0x1000, 1) +
          Group("go", "DT_INT8", 2, 32, 0x2000, 2),
      "        s = gs.current()\n        kk = gk.current()\n        o = go.current()\n"
      "        pl.set_validshape(kk, [2, 1])\n"
      "        pl.load(s, src, [0, 0])\n        pl.load(kk, scale, [0, 0])\n"
      "        pl.quant(o, s, kk, mode=pl.QuantMode.SYM)\n        pl.store(out, o, [0, 0])\n");
  const std::vector<double> row = {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, 300, -300, 127.5, -128.5, 3.2};
  std::vector<double> x(64, 0.0), k(16, 0.0);
  for (size_t i = 0; i < row.size(); ++i) {
    x[i] = row[i];        // row 0, scale 1
    x[32 + i] = row[i];   // row 1, scale 2
  }
  k[0] = 1.0;
  k[8] = 2.0;
  auto r = Run(sym, {T(DType::kFloat32, {2, 32}, x), T(DType::kFloat32, {2, 8}, k), *precision::Tensor::Zeros(DType::kInt8, {2, 32})});
  INFO(r.hazards.CountsText());
  CHECK_FALSE(r.hazards.HasErrors());
  const std::vector<double> want0 = {0, 2, 2, -0.0, -2, -2, 0, 127, -128, 127, -128, 3};
  const std::vector<double> want1 = {1, 3, 5, -1, -3, -5, 1, 127, -128, 127, -128, 6};
  for (size_t i = 0; i < row.size(); ++i) {
    CHECK(Out(r).GetDouble(static_cast<int64_t>(i)) == want0[i]);
    CHECK(Out(r).GetDouble(static_cast<int64_t>(32 + i)) == want1[i]);
  }
  // ASYM: UINT8, zero point 128 per row.
  std::string asym = Mutate(sym, "mode=pl.QuantMode.SYM)", "mode=pl.QuantMode.ASYM, offset=kk)");
  asym = Mutate(asym, "out: pl.Tensor[[2, 32], pl.DT_INT8]", "out: pl.Tensor[[2, 32], pl.DT_UINT8]");
  asym = Mutate(asym, "dtype=pl.DT_INT8", "dtype=pl.DT_UINT8");
  auto ra = Run(asym, {T(DType::kFloat32, {2, 32}, x), T(DType::kFloat32, {2, 8}, k), *precision::Tensor::Zeros(DType::kUInt8, {2, 32})});
  INFO(ra.hazards.CountsText());
  CHECK_FALSE(ra.hazards.HasErrors());
  // offset = the scale tile itself here: row 0 adds 1, row 1 adds 2.
  CHECK(Out(ra).GetDouble(0) == 1);      // round(0.5) + 1
  CHECK(Out(ra).GetDouble(3) == 1);      // round(-0.5) + 1 = 1
  CHECK(Out(ra).GetDouble(8) == 0);      // round(-300) + 1 saturates at 0
  CHECK(Out(ra).GetDouble(7) == 255);    // round(300) + 1 saturates at 255
  CHECK(Out(ra).GetDouble(32 + 2) == 7); // round(2.5 * 2) + 2
  // SYM into UINT8 is the wrong output type.
  const std::string wrong = Mutate(asym, "mode=pl.QuantMode.ASYM, offset=kk)", "mode=pl.QuantMode.SYM)");
  auto rw = Run(wrong, {T(DType::kFloat32, {2, 32}, x), T(DType::kFloat32, {2, 8}, k), *precision::Tensor::Zeros(DType::kUInt8, {2, 32})});
  CHECK(HasAt(rw.hazards, sim::hazard::kTypeMismatch, LineOf(wrong, "pl.quant(")));
}

TEST_CASE("sim: pl.dequant: (src - offset) * scale per row in FP32") {
  const std::string src = Kernel(
      "src: pl.Tensor[[2, 32], pl.DT_INT8], scale: pl.Tensor[[2, 8], pl.DT_FP32], zp: pl.Tensor[[2, 8], pl.DT_FP32], "
      "out: pl.Tensor[[2, 32], pl.DT_FP32]",
      Group("gs", "DT_INT8", 2, 32, 0, 0) + Group("gk", "DT_FP32", 2, 8, 0x1000, 1) +
          Group("gz", "DT_FP32", 2, 8, 0x1400, 2) + Group("go", "DT_FP32", 2, 32, 0x2000, 3),
      "        s = gs.current()\n        kk = gk.current()\n        z = gz.current()\n        o = go.current()\n"
      "        pl.set_validshape(kk, [2, 1])\n        pl.set_validshape(z, [2, 1])\n"
      "        pl.load(s, src, [0, 0])\n        pl.load(kk, scale, [0, 0])\n        pl.load(z, zp, [0, 0])\n"
      "        pl.dequant(o, s, kk, z)\n        pl.store(out, o, [0, 0])\n");
  std::vector<double> x(64), k(16, 0.0), z(16, 0.0);
  for (int i = 0; i < 64; ++i) x[i] = (i * 11) % 256 - 128;
  k[0] = 0.25;
  k[8] = 0.1;
  z[0] = 3;
  z[8] = -5;
  auto r = Run(src, {T(DType::kInt8, {2, 32}, x), T(DType::kFloat32, {2, 8}, k), T(DType::kFloat32, {2, 8}, z),
                     *precision::Tensor::Zeros(DType::kFloat32, {2, 32})});
  INFO(r.hazards.CountsText());
  CHECK_FALSE(r.hazards.HasErrors());
  for (int i = 0; i < 64; ++i) {
    const float kk = i < 32 ? 0.25f : 0.1f, zz = i < 32 ? 3.0f : -5.0f;
    CHECK(Out(r).GetDouble(i) == static_cast<double>((static_cast<float>(x[i]) - zz) * kk));
  }
}

TEST_CASE("sim: pl.gathermask: the pattern's columns packed / a wrong out width is a finding") {
  auto kernel = [](int out_cols, int mode) {
    return Kernel("src: pl.Tensor[[4, 64], pl.DT_FP16], out: pl.Tensor[[4, " + std::to_string(out_cols) + "], pl.DT_FP16]",
                  Group("gs", "DT_FP16", 4, 64, 0, 0) + Group("go", "DT_FP16", 4, out_cols, 0x1000, 1),
                  "        s = gs.current()\n        o = go.current()\n        pl.load(s, src, [0, 0])\n"
                  "        pl.gathermask(o, s, pattern_mode=" + std::to_string(mode) + ")\n        pl.store(out, o, [0, 0])\n");
  };
  std::vector<double> x(256);
  for (int i = 0; i < 256; ++i) x[i] = i;
  for (auto [mode, first, step] : {std::tuple{1, 0, 2}, {2, 1, 2}, {4, 1, 4}, {6, 3, 4}, {7, 0, 1}}) {
    const int cols = 64 / step;
    const std::string src = kernel(cols, mode);
    auto r = Run(src, {T(DType::kFloat16, {4, 64}, x), *precision::Tensor::Zeros(DType::kFloat16, {4, cols})}, true);
    INFO("pattern_mode " << mode << "\n" << r.hazards.CountsText());
    CHECK_FALSE(r.hazards.HasErrors());
    for (int row = 0; row < 4; ++row)
      for (int c = 0; c < cols; ++c) CHECK(Out(r).GetDouble(row * cols + c) == row * 64 + first + c * step);
  }
  const std::string wrong = kernel(32, 3);  // pattern 3 selects 16 columns
  auto r = Run(wrong, {T(DType::kFloat16, {4, 64}, x), *precision::Tensor::Zeros(DType::kFloat16, {4, 32})});
  CHECK(HasAt(r.hazards, sim::hazard::kTileShapeAlign, LineOf(wrong, "pl.gathermask(")));
}

TEST_CASE("sim: pl.gatherb: 32-byte blocks from byte offsets / an offset past the tile is SIM-INDEX-RANGE") {
  const std::string src = Kernel(
      "src: pl.Tensor[[2, 64], pl.DT_FP16], off: pl.Tensor[[2, 8], pl.DT_UINT32], out: pl.Tensor[[2, 64], pl.DT_FP16]",
      Group("gs", "DT_FP16", 2, 64, 0, 0) + Group("gf", "DT_UINT32", 2, 8, 0x1000, 1) +
          Group("go", "DT_FP16", 2, 64, 0x2000, 2),
      "        s = gs.current()\n        f = gf.current()\n        o = go.current()\n"
      "        pl.set_validshape(f, [2, 4])\n"
      "        pl.load(s, src, [0, 0])\n        pl.load(f, off, [0, 0])\n"
      "        pl.gatherb(o, s, f)\n        pl.store(out, o, [0, 0])\n");
  std::vector<double> x(128), off(16, 0.0);
  for (int i = 0; i < 128; ++i) x[i] = i;
  // Row r, block j takes source block 7 - (4 r + j) (blocks of 16 fp16 elements, 32 bytes).
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < 4; ++j) off[r * 8 + j] = 32.0 * (7 - (4 * r + j));
  auto run = [&](const std::vector<double>& o) {
    return Run(src, {T(DType::kFloat16, {2, 64}, x), T(DType::kUInt32, {2, 8}, o),
                     *precision::Tensor::Zeros(DType::kFloat16, {2, 64})}, true);
  };
  auto r = run(off);
  INFO(r.hazards.CountsText());
  CHECK_FALSE(r.hazards.HasErrors());
  for (int row = 0; row < 2; ++row)
    for (int c = 0; c < 64; ++c)
      CHECK(Out(r).GetDouble(row * 64 + c) == 16 * (7 - (4 * row + c / 16)) + c % 16);
  off[3] = 256 - 16;  // the block would end 16 bytes past the 256-byte tile
  auto r2 = run(off);
  CHECK(HasAt(r2.hazards, sim::hazard::kIndexRange, LineOf(src, "pl.gatherb(")));
}
