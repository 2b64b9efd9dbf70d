// vf.arange (arange.md): every lane start + i, or start - i with DECREASE_ORDER, in the
// register dtype dtype= names (required); integer lanes wrap as two's complement.
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"
#include "opdev/sim/simulator.h"

#include <catch2/catch.hpp>

using namespace opdev;
using simtest::HasAt;
using simtest::LineOf;
using simtest::Mutate;

namespace {

std::string Kernel(const std::string& dtype, int lanes, const std::string& call) {
  const std::string shape = "[1, " + std::to_string(lanes) + "]";
  return "import pypto_pro.language as pl\n\n"
         "@pl.vector_function\n"
         "def fill(t):\n"
         "    m = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl." + dtype + ")\n"
         "    r = " + call + "\n"
         "    vf.store_align(t, r, m)\n\n"
         "@pl.jit(auto_mutex=True)\n"
         "def k(out: pl.Tensor[" + shape + ", pl." + dtype + "]):\n"
         "    g = pl.make_tile_group(type=pl.TileType(shape=" + shape + ", dtype=pl." + dtype +
         ", target_memory=pl.MemorySpace.Vec), addrs=0, mutex_ids=[0])\n"
         "    with pl.section_vector():\n"
         "        t = g.current()\n"
         "        fill(t)\n"
         "        pl.store(out, t, [0, 0])\n";
}

sim::SimResult Run(const std::string& src, DType t, int lanes) {
  sim::SimOptions o;
  o.entry = "k";
  auto r = sim::RunKernelSource("from pypto_pro.language import Vf as vf\n" + src, "arange.py",
                                {*precision::Tensor::Zeros(t, {1, lanes})}, o);
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("sim: vf.arange fills start + i, or start - i, in the register dtype") {
  auto r = Run(Kernel("DT_INT32", 64, "vf.arange(5, dtype=pl.DT_INT32)"), DType::kInt32, 64);
  INFO(r.hazards.CountsText());
  CHECK_FALSE(r.hazards.HasErrors());
  for (int i = 0; i < 64; ++i) CHECK(r.outputs[0].tensor.GetDouble(i) == 5 + i);
  auto d = Run(Kernel("DT_FP16", 128, "vf.arange(100, index_order=pl.IndexOrder.DECREASE_ORDER, dtype=pl.DT_FP16)"),
               DType::kFloat16, 128);
  CHECK_FALSE(d.hazards.HasErrors());
  for (int i = 0; i < 128; ++i) CHECK(d.outputs[0].tensor.GetDouble(i) == 100 - i);
  // 256 INT8 lanes from 0: lane 200 holds 200 - 256.
  auto w = Run(Kernel("DT_INT8", 256, "vf.arange(0, dtype=pl.DT_INT8)"), DType::kInt8, 256);
  CHECK_FALSE(w.hazards.HasErrors());
  CHECK(w.outputs[0].tensor.GetDouble(127) == 127);
  CHECK(w.outputs[0].tensor.GetDouble(200) == 200 - 256);
}

TEST_CASE("sim: vf.arange without dtype= fails at its line") {
  const std::string src = Kernel("DT_INT32", 64, "vf.arange(5)");
  auto r = Run(src, DType::kInt32, 64);
  CHECK_FALSE(r.completed);
  CHECK(HasAt(r.hazards, sim::hazard::kRuntimeError, LineOf("from pypto_pro.language import Vf as vf\n" + src, "vf.arange(")));
}
