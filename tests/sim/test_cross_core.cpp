// Concurrent cores and cross-core events: a kernel whose AIV 0 writes a GM workspace and sets
// an INTER_SUBBLOCK event that AIV 1 waits for before copying the workspace to the output;
// the correct kernel is clean and exact under the fixed and seeded schedules, a wrong event id
// deadlocks (reported at the waiting line, the run ends), a missing wait is a GM race found
// whichever core runs first.
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"
#include "opdev/sim/simulator.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace opdev;
using simtest::HasAt;
using simtest::LineOf;
using simtest::Mutate;

namespace {

const char* kKernel = R"(import pypto_pro.language as pl

@pl.jit()
def k(x: pl.Tensor[[16, 64], pl.DT_FP32], ws: pl.Tensor[[16, 64], pl.DT_FP32], out: pl.Tensor[[16, 64], pl.DT_FP32]):
    with pl.section_vector():
        sub = pl.get_subblock_idx()
        t = pl.make_tile(pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=2048)
        if sub == 0:
            pl.load(t, x, [0, 0])
            pl.store(ws, t, [0, 0])
            pl.load(t, x, [8, 0])
            pl.store(ws, t, [8, 0])
            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=1, sync_mode=pl.CrossCoreSyncMode.INTER_SUBBLOCK)
        else:
            pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=1, sync_mode=pl.CrossCoreSyncMode.INTER_SUBBLOCK)
            pl.load(t, ws, [0, 0])
            pl.store(out, t, [0, 0])
            pl.load(t, ws, [8, 0])
            pl.store(out, t, [8, 0])
    with pl.section_cube():
        pass
)";

sim::SimResult Run(const std::string& src, uint64_t seed, precision::Tensor* x_out = nullptr) {
  auto x = simtest::Random(DType::kFloat32, {16, 64}, -1, 1, 7);
  std::vector<float> zeros(16 * 64, 0.0f);
  auto z = precision::Tensor::FromBytes(DType::kFloat32, {16, 64}, zeros.data(), zeros.size() * 4);
  REQUIRE(z.ok());
  sim::SimOptions o;
  o.entry = "k";
  o.schedule_seed = seed;
  auto r = sim::RunKernelSource(src, "fused.py", {x, *z, *z}, o);
  REQUIRE(r.ok());
  if (x_out) *x_out = x;
  return *r;
}

}  // namespace

TEST_CASE("sim: cross-core: INTER_SUBBLOCK set/wait orders the workspace, clean and exact under every schedule") {
  for (uint64_t seed : {0ull, 1ull, 2ull, 3ull, 99ull}) {
    precision::Tensor x;
    auto r = Run(kKernel, seed, &x);
    INFO("seed " << seed << "\n" << r.hazards.CountsText());
    CHECK(r.completed);
    CHECK_FALSE(r.hazards.HasErrors());
    const precision::Tensor* out = nullptr;
    for (const auto& o : r.outputs) if (o.name == "out") out = &o.tensor;
    REQUIRE(out != nullptr);
    CHECK(std::memcmp(out->data(), x.data(), x.nbytes()) == 0);
  }
}

TEST_CASE("sim: cross-core: a wrong event id deadlocks at the waiting line and the run ends") {
  const std::string src = Mutate(kKernel, "wait_cross_core(pipe=pl.PipeType.MTE2, event_id=1",
                                 "wait_cross_core(pipe=pl.PipeType.MTE2, event_id=2");
  for (uint64_t seed : {0ull, 5ull}) {
    auto r = Run(src, seed);
    CHECK_FALSE(r.completed);
    CHECK(HasAt(r.hazards, sim::hazard::kDeadlock, LineOf(src, "wait_cross_core")));
  }
}

TEST_CASE("sim: cross-core: a missing wait is a GM race with both cores' lines, under either order") {
  const std::string src = Mutate(kKernel,
                                 "            pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=1, "
                                 "sync_mode=pl.CrossCoreSyncMode.INTER_SUBBLOCK)\n",
                                 "");
  bool read_side = false, write_side = false;
  for (uint64_t seed : {0ull, 1ull, 2ull, 3ull, 4ull, 5ull, 6ull, 7ull}) {
    auto r = Run(src, seed);
    INFO("seed " << seed);
    CHECK(r.hazards.HasErrors());
    // Reader first (AIV 1 ran first): the race is found at AIV 0's store; else at AIV 1's load.
    if (HasAt(r.hazards, sim::hazard::kGmRace, LineOf(src, "pl.load(t, ws, [0, 0])"))) read_side = true;
    if (HasAt(r.hazards, sim::hazard::kGmRace, LineOf(src, "pl.store(ws, t, [0, 0])"))) write_side = true;
    bool any = false;
    for (const auto& d : r.hazards.items()) any |= d.code == sim::hazard::kGmRace;
    CHECK(any);
  }
  CHECK(read_side);
  CHECK(write_side);
}

TEST_CASE("sim: cross-core: a second set no wait consumes is reported at the end of the launch") {
  const std::string set =
      "            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=1, sync_mode=pl.CrossCoreSyncMode.INTER_SUBBLOCK)\n";
  const std::string src = Mutate(kKernel, set, set + set);
  auto r = Run(src, 0);
  CHECK(HasAt(r.hazards, sim::hazard::kXcoreUnconsumed, LineOf(src, "set_cross_core", 1)));
  CHECK_FALSE(HasAt(r.hazards, sim::hazard::kEventReuse, LineOf(src, "set_cross_core", 1)));
}

TEST_CASE("sim: cross-core: a flag set 17 times with no consumption ordered before is an overflow") {
  const std::string set =
      "            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=1, sync_mode=pl.CrossCoreSyncMode.INTER_SUBBLOCK)\n";
  std::string many;
  for (int i = 0; i < 17; ++i) many += set;
  const std::string src = Mutate(kKernel, set, many);
  for (uint64_t seed : {0ull, 4ull}) {
    auto r = Run(src, seed);
    INFO("seed " << seed << "\n" << r.hazards.ToText());
    // 16 sets may be pending; the 17th may overflow the counter whatever the schedule.
    CHECK(HasAt(r.hazards, sim::hazard::kEventReuse, LineOf(src, "set_cross_core", 16)));
    for (int i = 0; i < 16; ++i) CHECK_FALSE(HasAt(r.hazards, sim::hazard::kEventReuse, LineOf(src, "set_cross_core", i)));
  }
}
