// The automatic pipeline of @pl.jit(pipeline=PipelineConfig(...)) (pipeline_stage.h): a Cube
// stage moves a @ b from L0C into a two-slot UB group with fwd_ids/bwd_ids, a Vector stage adds
// x and stores, over five tiles (more than the depth, so slots are reused and the last releases
// are drained). With the transform the kernel is clean and exact under every schedule, also
// with the pipe model; without pipeline= the same stages race; with forward ids only, the Cube
// stage overwrites a slot the Vector stage has not read (the backward ids are what order it);
// malformed ids are refused at make_tile_group.
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


const char* kKernel = R"(import pypto_pro.language as pl

T = 5


@pl.pipeline.stage
def cube_stage(t, a, a_db, b_db, left_db, right_db, acc_db, mm_db):
    a_mat = a_db.next()
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.load(a_mat, a, [t * 64, 0])
    pl.move(left, a_mat)
    pl.move(right, b_db.current())
    pl.matmul(acc, left, right)
    dst = mm_db.next()
    pl.move(dst, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def vec_stage(t, row, x, out, mm_db, x_db, h_db):
    src = mm_db.next()
    x_ub = x_db.next()
    h_ub = h_db.next()
    pl.load(x_ub, x, [t * 64 + row, 0])
    pl.add(h_ub, src, x_ub)
    pl.store(out, h_ub, [t * 64 + row, 0])


@pl.jit(pipeline=pl.pipeline.PipelineConfig(preload=1))
def k(a: pl.Tensor[[320, 64], pl.DT_FP32], b: pl.Tensor[[64, 64], pl.DT_FP32],
      x: pl.Tensor[[320, 64], pl.DT_FP32], out: pl.Tensor[[320, 64], pl.DT_FP32]):
    mm_db = pl.make_tile_group(
        type=pl.TileType(shape=[32, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=[0x0000, 0x2000], mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
    with pl.section_cube():
        mat_t = pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ)
        a_db = pl.make_tile_group(type=mat_t, addrs=[0x0000], mutex_ids=[2])
        b_db = pl.make_tile_group(type=mat_t, addrs=[0x4000], mutex_ids=[3])
        left_db = pl.make_tile_group(type=pl.TileType(shape=[64, 64], dtype=pl.DT_FP32,
                                                      target_memory=pl.MemorySpace.Left, layout=pl.NZ),
                                     addrs=[0x0000], mutex_ids=[4])
        right_db = pl.make_tile_group(type=pl.TileType(shape=[64, 64], dtype=pl.DT_FP32,
                                                       target_memory=pl.MemorySpace.Right, layout=pl.ZN),
                                      addrs=[0x0000], mutex_ids=[5])
        acc_db = pl.make_tile_group(type=pl.TileType(shape=[64, 64], dtype=pl.DT_FP32,
                                                     target_memory=pl.MemorySpace.Acc, layout=pl.NZ, fractal=1024),
                                    addrs=[0x0000], mutex_ids=[6])
        pl.load(b_db.next(), b, [0, 0])
    with pl.section_vector():
        row = pl.get_subblock_idx() * 32
        vec_t = pl.TileType(shape=[32, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
        x_db = pl.make_tile_group(type=vec_t, addrs=[0x4000], mutex_ids=[7])
        h_db = pl.make_tile_group(type=vec_t, addrs=[0x6000], mutex_ids=[8])
    for t in pl.range(0, T):
        with pl.section_cube():
            cube_stage(t, a, a_db, b_db, left_db, right_db, acc_db, mm_db)
        with pl.section_vector():
            vec_stage(t, row, x, out, mm_db, x_db, h_db)
)";

struct Data {
  precision::Tensor a, b, x, out;
};

Data MakeData() {
  Data d{simtest::Random(DType::kFloat32, {320, 64}, -1, 1, 3), simtest::Random(DType::kFloat32, {64, 64}, -1, 1, 4),
         simtest::Random(DType::kFloat32, {320, 64}, -1, 1, 5), *precision::Tensor::Zeros(DType::kFloat32, {320, 64})};
  return d;
}

sim::SimResult Run(const std::string& src, uint64_t seed, bool pipe_sync, const Data& d) {
  sim::SimOptions o;
  o.entry = "k";
  o.schedule_seed = seed;
  o.pipe_sync = pipe_sync;
  auto r = sim::RunKernelSource(src, "pipeline.py", {d.a, d.b, d.x, d.out}, o);
  REQUIRE(r.ok());
  return *r;
}

const precision::Tensor* Out(const sim::SimResult& r) {
  for (const auto& o : r.outputs)
    if (o.name == "out") return &o.tensor;
  return nullptr;
}

bool HasCode(const sim::SimResult& r, std::string_view code) {
  for (const auto& h : r.hazards.items())
    if (h.code == code) return true;
  return false;
}

}  // namespace

TEST_CASE("sim: pipeline transform: fwd/bwd events around the stages make the kernel clean and exact") {
  const Data d = MakeData();
  for (bool pipe_sync : {false, true}) {
    for (uint64_t seed : {0ull, 1ull, 2ull, 7ull}) {
      auto r = Run(kKernel, seed, pipe_sync, d);
      INFO("seed " << seed << " pipe_sync " << pipe_sync << "\n" << r.hazards.CountsText());
      for (const auto& h : r.hazards.items()) INFO(h.code << " line " << h.line << ": " << h.message);
      CHECK(r.completed);
      CHECK_FALSE(r.hazards.HasErrors());
      CHECK_FALSE(HasCode(r, sim::hazard::kXcoreUnconsumed));
      const precision::Tensor* out = Out(r);
      REQUIRE(out != nullptr);
      // out = a @ b + x per 64-row tile; the simulator accumulates FP32 in order, so compare
      // against a float64 reference within FP32 rounding of a 64-term sum.
      double worst = 0;
      for (int64_t i = 0; i < 320; ++i)
        for (int64_t j = 0; j < 64; ++j) {
          double ref = d.x.GetDouble(i * 64 + j);
          for (int64_t q = 0; q < 64; ++q) ref += d.a.GetDouble(i * 64 + q) * d.b.GetDouble(q * 64 + j);
          worst = std::max(worst, std::fabs(out->GetDouble(i * 64 + j) - ref));
        }
      CHECK(worst < 1e-4);
    }
  }
}

TEST_CASE("sim: pipeline transform: without pipeline= the stages are plain helpers and race") {
  const std::string src = Mutate(kKernel, "@pl.jit(pipeline=pl.pipeline.PipelineConfig(preload=1))", "@pl.jit()");
  auto r = Run(src, 0, false, MakeData());
  CHECK(HasAt(r.hazards, sim::hazard::kXcoreRace, LineOf(src, "pl.add(h_ub, src, x_ub)")));
}

TEST_CASE("sim: pipeline transform: forward ids alone let the Cube stage overwrite an unread slot") {
  const std::string src = Mutate(kKernel, ", fwd_ids=[0, 1], bwd_ids=[2, 3])", ", fwd_ids=[0, 1])");
  bool race = false;
  for (uint64_t seed : {0ull, 1ull, 2ull, 3ull}) {
    auto r = Run(src, seed, false, MakeData());
    race |= HasCode(r, sim::hazard::kXcoreRace);
  }
  CHECK(race);
}

TEST_CASE("sim: pipeline transform: fwd_ids must give one event id 0..15 per slot") {
  for (const char* bad : {", fwd_ids=[0, 1, 4], bwd_ids=[2, 3])", ", fwd_ids=[0, 16], bwd_ids=[2, 3])",
                          ", fwd_ids=[], bwd_ids=[2, 3])"}) {
    const std::string src = Mutate(kKernel, ", fwd_ids=[0, 1], bwd_ids=[2, 3])", bad);
    auto r = Run(src, 0, false, MakeData());
    INFO(bad);
    CHECK_FALSE(r.completed);
    bool named = false;
    for (const auto& h : r.hazards.items())
      named |= h.line == LineOf(src, "mm_db = pl.make_tile_group(") && h.message.find("fwd_ids") != std::string::npos;
    CHECK(named);
  }
}
