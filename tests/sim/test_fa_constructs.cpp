// The kernel constructs of the flash-attention samples, together: pl.struct (scalar and array
// fields, assigned in a loop), pl.struct_array (elements by reference), pl.make_tuple (tiles and
// tuples of tiles by field, passed to helpers that call helpers), math.sqrt in a module constant
// and vf.full of a float constant without dtype= (an FP32 register, as the frontend infers it).
// The make_tile tiles carry their MTE2 -> V -> MTE3 syncs (Tile_vector_computation.md).
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"
#include "opdev/sim/simulator.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace opdev;
using simtest::HasAt;
using simtest::LineOf;
using simtest::Mutate;

namespace {

const char* kKernel = R"(import math
import pypto_pro.language as pl
from pypto_pro.language import Vf as vf

SCALE = 1.0 / math.sqrt(16)


@pl.vector_function
def fill(t):
    m = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    r = vf.full(-2.5)
    vf.store_align(t, r, m)


def pick(tiles):
    return tiles.b


def scale_into(tiles, n):
    pl.mul(pick(tiles), tiles.pair[0], n * SCALE)


@pl.jit()
def k(x: pl.Tensor[[8, 64], pl.DT_FP32], out: pl.Tensor[[8, 64], pl.DT_FP32], fout: pl.Tensor[[1, 64], pl.DT_FP32]):
    with pl.section_vector():
        ta = pl.make_tile(pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=2048)
        tb = pl.make_tile(pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x800, size=2048)
        tf = pl.make_tile(pl.TileType(shape=[1, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x1000, size=256)
        tiles = pl.make_tuple(a=ta, b=tb, pair=(ta, tb))
        s = pl.struct("S", n=0, arr=[0, 0, 0])
        ctx = pl.struct_array(3, "Ctx", v=0, w=1)
        for i in pl.range(0, 5):
            c = ctx[i % 3]
            c.v = c.v + i
            s.arr[i % 3] = s.arr[i % 3] + 1
        s.n = ctx[0].v * 100 + ctx[1].v * 10 + ctx[2].v + s.arr[0] + ctx[2].w
        pl.load(tiles.a, x, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        scale_into(tiles, s.n)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, tiles.b, [0, 0])
        fill(tf)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(fout, tf, [0, 0])
)";

sim::SimResult Run(const std::string& src, precision::Tensor* x_out = nullptr) {
  auto x = simtest::Random(DType::kFloat32, {8, 64}, -1, 1, 3);
  auto z = simtest::Random(DType::kFloat32, {8, 64}, 0, 0, 1);
  auto f = simtest::Random(DType::kFloat32, {1, 64}, 0, 0, 1);
  sim::SimOptions o;
  o.entry = "k";
  auto r = sim::RunKernelSource(src, "aggregates.py", {x, z, f}, o);
  REQUIRE(r.ok());
  if (x_out) *x_out = x;
  return *r;
}

const precision::Tensor* Output(const sim::SimResult& r, const std::string& name) {
  for (const auto& o : r.outputs)
    if (o.name == name) return &o.tensor;
  return nullptr;
}

}  // namespace

TEST_CASE("sim: fa constructs: struct, struct_array by reference, make_tuple through nested helpers, sqrt, vf.full") {
  precision::Tensor x;
  auto r = Run(kKernel, &x);
  INFO(r.hazards.CountsText());
  REQUIRE(r.completed);
  CHECK_FALSE(r.hazards.HasErrors());
  // ctx[0].v = 0 + 3, ctx[1].v = 1 + 4, ctx[2].v = 2, s.arr[0] = 2 (i = 0, 3), ctx[2].w = 1.
  const double n = 3 * 100 + 5 * 10 + 2 + 2 + 1;
  const precision::Tensor* out = Output(r, "out");
  REQUIRE(out != nullptr);
  for (int64_t i = 0; i < out->numel(); ++i) {
    const float want = static_cast<float>(x.GetDouble(i)) * static_cast<float>(n * 0.25);
    REQUIRE(out->GetDouble(i) == Approx(want).epsilon(1e-6));
  }
  const precision::Tensor* f = Output(r, "fout");
  REQUIRE(f != nullptr);
  for (int64_t i = 0; i < f->numel(); ++i) REQUIRE(f->GetDouble(i) == -2.5);
}

TEST_CASE("sim: fa constructs: misuse is reported at its line") {
  SECTION("a make_tuple field assigned") {
    const std::string src = Mutate(kKernel, "        pl.load(tiles.a, x, [0, 0])\n",
                                   "        tiles.a = tb\n        pl.load(tiles.a, x, [0, 0])\n");
    auto r = Run(src);
    CHECK_FALSE(r.completed);
    CHECK(HasAt(r.hazards, sim::hazard::kRuntimeError, LineOf(src, "tiles.a = tb")));
  }
  SECTION("a field the struct does not have") {
    const std::string src = Mutate(kKernel, "c.v = c.v + i", "c.u = c.v + i");
    auto r = Run(src);
    CHECK_FALSE(r.completed);
    CHECK(HasAt(r.hazards, sim::hazard::kRuntimeError, LineOf(src, "c.u = c.v + i")));
  }
  SECTION("vf.full of an integer constant without dtype=") {
    const std::string src = Mutate(kKernel, "vf.full(-2.5)", "vf.full(-2)");
    auto r = Run(src);
    CHECK_FALSE(r.completed);
    CHECK(HasAt(r.hazards, sim::hazard::kRuntimeError, LineOf(src, "vf.full(-2)")));
  }
}

// load_tile / store_tile with `order` on 3-D tensors (the TND and BSND flash-attention samples):
// the tile spans the two named axes, block indices on those axes, absolute offsets on the other
// (load_tile.md); a descending order is a transposed load; stores take ascending orders only.
TEST_CASE("load_tile and store_tile walk the two axes `order` names on a 3-D tensor") {
  const char* src = R"(import pypto_pro.language as pl


@pl.jit()
def k(x: pl.Tensor[[64, 3, 32], pl.DT_FP16], y: pl.Tensor[[32, 1, 32], pl.DT_FP16],
      yt: pl.Tensor[[32, 32], pl.DT_FP16]):
    with pl.section_vector():
        t = pl.make_tile(pl.TileType(shape=[32, 32], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec), addr=0x0, size=2048)
        tt = pl.make_tile(pl.TileType(shape=[32, 32], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec), addr=0x800, size=2048)
        pl.load_tile(t, x, [1, 2, 0], order=[0, 2])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store_tile(y, t, [0, 0, 0], order=[0, 2])
        pl.load_tile(tt, x, [1, 2, 0], order=[2, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(yt, tt, [0, 0])
)";
  auto x = simtest::Random(DType::kFloat16, {64, 3, 32}, -1, 1, 5);
  auto y = simtest::Random(DType::kFloat16, {32, 1, 32}, 0, 0, 1);
  auto yt = simtest::Random(DType::kFloat16, {32, 32}, 0, 0, 1);
  sim::SimOptions o;
  o.entry = "k";
  auto r = sim::RunKernelSource(src, "order.py", {x, y, yt}, o);
  REQUIRE(r.ok());
  CHECK(r->completed);
  CHECK_FALSE(r->hazards.HasErrors());
  const precision::Tensor* oy = Output(*r, "y");
  const precision::Tensor* oyt = Output(*r, "yt");
  REQUIRE(oy);
  REQUIRE(oyt);
  // y[i, 0, j] = x[32 + i, 2, j]; yt[i, j] = x[32 + j, 2, i] (transposed).
  for (int64_t i = 0; i < 32; ++i)
    for (int64_t j = 0; j < 32; ++j) {
      CHECK(oy->GetDouble(i * 32 + j) == x.GetDouble(((32 + i) * 3 + 2) * 32 + j));
      CHECK(oyt->GetDouble(i * 32 + j) == x.GetDouble(((32 + j) * 3 + 2) * 32 + i));
    }
  // A descending store order is refused (store.md).
  auto bad = sim::RunKernelSource(
      simtest::Mutate(src, "pl.store_tile(y, t, [0, 0, 0], order=[0, 2])", "pl.store_tile(y, t, [0, 0, 0], order=[2, 0])"),
      "order.py", {x, y, yt}, o);
  REQUIRE(bad.ok());
  CHECK(bad->hazards.HasErrors());
}
