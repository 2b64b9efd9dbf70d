// SIMT launches (pl.simt.launch of a @pl.simt.function, simt.cpp): one run of the function per
// thread of a 1-3-D grid with its context (thread_idx, block_dim, block_idx, grid_dim,
// linear_thread_idx), SIMT helpers, max_threads, and the race of two threads on one element.
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

const char* kSimt = R"(import pypto_pro.language as pl

W = 8
H = 4


@pl.simt.function
def twice(v):
    return v * 2.0


@pl.simt.function(max_threads=W * H)
def fill(data: pl.Tile[[1, 32], pl.DT_FP32], base: pl.DT_FP32):
    t = pl.simt.thread_idx()
    d = pl.simt.block_dim()
    tid = pl.simt.linear_thread_idx()
    if tid == t.x + t.y * d.x:
        data[0, tid] = twice(data[0, tid]) + base + t.y * 100.0 + pl.simt.block_idx().x * 1000.0


@pl.jit()
def k(x: pl.Tensor[[1, 32], pl.DT_FP32], out: pl.Tensor[[1, 32], pl.DT_FP32]):
    tile = pl.make_tile(pl.TileType(shape=[1, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=128)
    with pl.section_vector():
        pl.load(tile, x, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.simt.launch(fill, threads=(W, H), args=(tile, 0.5))
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)
        pl.store(out, tile, [0, 0])
)";

struct Run {
  SimResult r;
  precision::Tensor x;
};

Run RunSimt(const std::string& src) {
  auto x = simtest::Random(DType::kFloat32, {1, 32}, -1, 1, 5);
  auto out = simtest::Random(DType::kFloat32, {1, 32}, 0, 0, 1);
  SimOptions o;
  o.entry = "k";
  auto r = RunKernelSource(src, "simt.py", {x, out}, o);
  REQUIRE(r.ok());
  return {*r, x};
}

}  // namespace

TEST_CASE("pl.simt.launch runs the SIMT function once per thread of its grid") {
  Run run = RunSimt(kSimt);
  INFO(run.r.hazards.ToText());
  REQUIRE(run.r.hazards.ErrorCount() == 0);
  REQUIRE(run.r.completed);
  REQUIRE(!run.r.outputs.empty());
  for (int64_t i = 0; i < 32; ++i) {
    const float want = static_cast<float>(run.x.GetDouble(i)) * 2.0f + 0.5f + static_cast<float>(i / 8) * 100.0f;
    REQUIRE(run.r.outputs[0].tensor.GetDouble(i) == want);
  }
}

TEST_CASE("two SIMT threads on one element race") {
  // Every thread writes element 0: a write-write race at that line.
  std::string ww = Mutate(kSimt, "data[0, tid] = twice(data[0, tid])", "data[0, 0] = twice(data[0, tid])");
  Run a = RunSimt(ww);
  INFO(a.r.hazards.ToText());
  CHECK(HasAt(a.r.hazards, hazard::kSimtRace, LineOf(ww, "data[0, 0] = twice")));
  // Thread t reads its neighbour's element, which the neighbour writes: read-after-write or
  // write-after-read, whatever the order.
  std::string rw = Mutate(kSimt, "twice(data[0, tid])", "twice(data[0, (tid + 1) % 32])");
  Run b = RunSimt(rw);
  INFO(b.r.hazards.ToText());
  CHECK(HasAt(b.r.hazards, hazard::kSimtRace, LineOf(rw, "data[0, tid] = twice")));
  // One thread per element (the original) is no race.
  CHECK(RunSimt(kSimt).r.hazards.ErrorCount() == 0);
}

TEST_CASE("pl.simt.launch refuses a grid beyond max_threads, a helper, and SIMT calls outside a launch") {
  auto refused = [](const std::string& src, const std::string& line_text) {
    Run r = RunSimt(src);
    INFO(r.r.hazards.ToText());
    CHECK_FALSE(r.r.completed);
    CHECK(HasAt(r.r.hazards, hazard::kRuntimeError, LineOf(src, line_text)));
  };
  refused(Mutate(kSimt, "threads=(W, H)", "threads=(W, H + 1)"), "pl.simt.launch(fill");
  refused(Mutate(kSimt, "threads=(W, H)", "threads=(W, H, 1, 1)"), "pl.simt.launch(fill");
  refused(Mutate(kSimt, "pl.simt.launch(fill,", "pl.simt.launch(twice,"), "pl.simt.launch(twice");
  refused(Mutate(kSimt, "pl.simt.launch(fill, threads=(W, H), args=(tile, 0.5))", "fill(tile, 0.5)"),
          "fill(tile, 0.5)");
  std::string outside = Mutate(kSimt, "        pl.load(tile, x, [0, 0])\n",
                               "        pl.load(tile, x, [0, 0])\n        n = pl.simt.linear_thread_idx()\n");
  refused(outside, "n = pl.simt.linear_thread_idx()");
  // The warp size is not documented: refused rather than guessed.
  std::string warp = Mutate(kSimt, "    tid = pl.simt.linear_thread_idx()\n",
                            "    tid = pl.simt.linear_thread_idx() + pl.simt.warp_size() * 0\n");
  Run w = RunSimt(warp);
  CHECK(HasAt(w.r.hazards, hazard::kUnsupported, LineOf(warp, "pl.simt.warp_size()")));
}
