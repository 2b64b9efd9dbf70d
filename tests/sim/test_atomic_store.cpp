// Atomic stores (store.md, atomic=pl.AtomicType.AtomicAdd): every element is added to the one
// in GM, so several cores can accumulate into one region; the same stores without atomic= are
// a multi-core overwrite, and an atomic add still races with another core's plain access.
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"
#include "opdev/sim/simulator.h"

#include <catch2/catch.hpp>

using namespace opdev;
using namespace opdev::sim;
using simtest::HasAt;
using simtest::LineOf;
using simtest::Mutate;

namespace {

const char* kAtomic = R"(import pypto_pro.language as pl


@pl.jit()
def k(x: pl.Tensor[[8, 64], pl.DT_FP32], out: pl.Tensor[[8, 64], pl.DT_FP32]):
    t = pl.make_tile(pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=2048)
    with pl.section_vector():
        pl.load(t, x, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.muls(t, t, pl.get_block_idx() + 1.0)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)
        pl.store(out, t, [0, 0], atomic=pl.AtomicType.AtomicAdd)
)";

struct Run {
  SimResult r;
  precision::Tensor x;
};

Run RunAtomic(const std::string& src, int block_dim) {
  auto x = simtest::Random(DType::kFloat32, {8, 64}, -1, 1, 3);
  auto out = simtest::Random(DType::kFloat32, {8, 64}, 0, 0, 1);  // zeros: the accumulator
  SimOptions o;
  o.entry = "k";
  o.block_dim = block_dim;
  auto r = RunKernelSource(src, "atomic.py", {x, out}, o);
  REQUIRE(r.ok());
  return {*r, x};
}

}  // namespace

TEST_CASE("atomic adds of four cores accumulate into one region") {
  Run run = RunAtomic(kAtomic, 4);
  INFO(run.r.hazards.ToText());
  REQUIRE(run.r.hazards.ErrorCount() == 0);
  REQUIRE(!run.r.outputs.empty());
  for (int64_t i = 0; i < 8 * 64; ++i) {
    const float x = static_cast<float>(run.x.GetDouble(i));
    const double got = run.r.outputs[0].tensor.GetDouble(i);
    // x + 2x + 3x + 4x in fp32, each add rounded once (cores in launch order).
    float want = 0.0f;
    for (int c = 1; c <= 4; ++c) want = want + x * static_cast<float>(c);
    REQUIRE(got == Approx(want).epsilon(1e-6));
  }
}

TEST_CASE("without atomic= the cores overwrite each other / an atomic add races with a plain store") {
  std::string plain = Mutate(kAtomic, ", atomic=pl.AtomicType.AtomicAdd", "");
  Run a = RunAtomic(plain, 4);
  INFO(a.r.hazards.ToText());
  CHECK(HasAt(a.r.hazards, hazard::kOutputMultiWriter, LineOf(plain, "pl.store(out, t, [0, 0])")));
  // Core 0 stores plainly, the others add atomically: nothing orders the plain store.
  std::string mixed = Mutate(kAtomic, "        pl.store(out, t, [0, 0], atomic=pl.AtomicType.AtomicAdd)\n",
                             "        if pl.get_block_idx() == 0:\n"
                             "            pl.store(out, t, [0, 0])\n"
                             "        else:\n"
                             "            pl.store(out, t, [0, 0], atomic=pl.AtomicType.AtomicAdd)\n");
  Run b = RunAtomic(mixed, 4);
  INFO(b.r.hazards.ToText());
  CHECK(HasAt(b.r.hazards, hazard::kGmRace, LineOf(mixed, "pl.store(out, t, [0, 0], atomic=")));
  std::string bad = Mutate(kAtomic, "pl.AtomicType.AtomicAdd", "pl.AtomicType.AtomicMax");
  Run c = RunAtomic(bad, 1);
  CHECK_FALSE(c.r.completed);
  CHECK(HasAt(c.r.hazards, hazard::kRuntimeError, LineOf(bad, "atomic=pl.AtomicType.AtomicMax")));
}
