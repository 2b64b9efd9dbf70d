// The pipes of one core (docs/simulator.md, "Pipes of one core"): each happens-before edge
// (sync_src/sync_dst, hand mutex, auto_mutex group, bar_all, the phase= unit flag, an MTE2 -> S
// flag before getval) orders a cross-pipe access in a small kernel that runs clean, and the
// same kernel with the edge removed is flagged with the code at the line; plus the flag and
// mutex misuse codes (WAIT-NO-SET stops the run by itself, EVENT-REUSE, SYNC) and the MTE2
// same-pipe rule of load.md.
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"
#include "opdev/sim/launch.h"
#include "opdev/sim/simulator.h"

#include <catch2/catch.hpp>

using namespace opdev;
namespace hazard = opdev::sim::hazard;
using simtest::HasAt;
using simtest::LineOf;
using simtest::Mutate;

namespace {

const char* kFlags = R"(import pypto_pro.language as pl


@pl.jit(auto_mutex=False)
def k(a: pl.Tensor[[16, 64], pl.DT_FP32], out: pl.Tensor[[16, 64], pl.DT_FP32]):
    tt = pl.TileType(shape=[16, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    ta = pl.make_tile(tt, addr=0x0000, size=4096)
    to = pl.make_tile(tt, addr=0x1000, size=4096)
    with pl.section_vector():
        pl.load(ta, a, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.add(to, ta, ta)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, to, [0, 0])
)";

const char* kMutex = R"(import pypto_pro.language as pl


@pl.jit(auto_mutex=False)
def k(a: pl.Tensor[[16, 64], pl.DT_FP32], out: pl.Tensor[[16, 64], pl.DT_FP32]):
    tt = pl.TileType(shape=[16, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    ta = pl.make_tile(tt, addr=0x0000, size=4096)
    to = pl.make_tile(tt, addr=0x1000, size=4096)
    with pl.section_vector():
        pl.system.mutex_lock(pipe=pl.PipeType.MTE2, mutex_id=3)
        pl.load(ta, a, [0, 0])
        pl.system.mutex_unlock(pipe=pl.PipeType.MTE2, mutex_id=3)
        pl.system.mutex_lock(pipe=pl.PipeType.V, mutex_id=3)
        pl.add(to, ta, ta)
        pl.system.mutex_unlock(pipe=pl.PipeType.V, mutex_id=3)
        pl.system.mutex_lock(pipe=pl.PipeType.MTE3, mutex_id=3)
        pl.store(out, to, [0, 0])
        pl.system.mutex_unlock(pipe=pl.PipeType.MTE3, mutex_id=3)
)";

const char* kGroups = R"(import pypto_pro.language as pl


@pl.jit(auto_mutex=True)
def k(a: pl.Tensor[[16, 64], pl.DT_FP32], out: pl.Tensor[[16, 64], pl.DT_FP32]):
    tt = pl.TileType(shape=[16, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    ga = pl.make_tile_group(type=tt, addrs=[0x0000, 0x1000], mutex_ids=[0, 1])
    go = pl.make_tile_group(type=tt, addrs=[0x2000, 0x3000], mutex_ids=[2, 3])
    with pl.section_vector():
        for i in pl.range(0, 4):
            ta = ga.next()
            to = go.next()
            pl.load(ta, a, [0, 0])
            pl.add(to, ta, ta)
            pl.store(out, to, [0, 0])
)";

const char* kBarrier = R"(import pypto_pro.language as pl


@pl.jit(auto_mutex=False)
def k(a: pl.Tensor[[16, 64], pl.DT_FP32], out: pl.Tensor[[16, 64], pl.DT_FP32]):
    tt = pl.TileType(shape=[16, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    ta = pl.make_tile(tt, addr=0x0000, size=4096)
    to = pl.make_tile(tt, addr=0x1000, size=4096)
    with pl.section_vector():
        pl.load(ta, a, [0, 0])
        pl.system.bar_all()
        pl.add(to, ta, ta)
        pl.system.bar_all()
        pl.store(out, to, [0, 0])
)";

const char* kScalar = R"(import pypto_pro.language as pl


@pl.jit(auto_mutex=False)
def k(a: pl.Tensor[[16, 64], pl.DT_FP32], out: pl.Tensor[[16, 64], pl.DT_FP32]):
    tt = pl.TileType(shape=[16, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    ta = pl.make_tile(tt, addr=0x0000, size=4096)
    with pl.section_vector():
        pl.load(ta, a, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.S, event_id=2)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.S, event_id=2)
        v = pl.getval(ta, 5)
        pl.setval(ta, 0, v)
        pl.system.sync_src(set_pipe=pl.PipeType.S, wait_pipe=pl.PipeType.MTE3, event_id=2)
        pl.system.sync_dst(set_pipe=pl.PipeType.S, wait_pipe=pl.PipeType.MTE3, event_id=2)
        pl.store(out, ta, [0, 0])
)";

// One 16 x 16 x 16 Cube step: the M -> FIX order of the Acc comes from the phase= unit flag.
const char* kCube = R"(import pypto_pro.language as pl


@pl.jit(auto_mutex=False)
def k(a: pl.Tensor[[16, 16], pl.DT_FP16], b: pl.Tensor[[16, 16], pl.DT_FP16], out: pl.Tensor[[16, 16], pl.DT_FP32]):
    am = pl.make_tile(pl.TileType(shape=[16, 16], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat), addr=0x0000, size=512)
    bm = pl.make_tile(pl.TileType(shape=[16, 16], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat), addr=0x40000, size=512)
    al = pl.make_tile(pl.TileType(shape=[16, 16], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Left), addr=0x0000, size=512)
    br = pl.make_tile(pl.TileType(shape=[16, 16], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Right), addr=0x0000, size=512)
    ac = pl.make_tile(pl.TileType(shape=[16, 16], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc), addr=0x0000, size=1024)
    with pl.section_cube():
        pl.load_tile(am, a, [0, 0])
        pl.load_tile(bm, b, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.move(al, am)
        pl.move(br, bm)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.matmul(ac, al, br, phase=pl.AccPhase.Final)
        pl.store_tile(out, ac, [0, 0], phase=pl.STPhase.Final)
)";

sim::SimResult Run(const std::string& src, bool cube = false, bool pipes = true) {
  sim::SimOptions o;
  o.entry = "k";
  o.pipe_sync = pipes;
  std::vector<precision::Tensor> in;
  if (cube) {
    in = {simtest::Random(DType::kFloat16, {16, 16}, -1, 1, 1), simtest::Random(DType::kFloat16, {16, 16}, -1, 1, 2),
          simtest::Random(DType::kFloat32, {16, 16}, 0, 0, 3)};
  } else {
    in = {simtest::Random(DType::kFloat32, {16, 64}, -1, 1, 1), simtest::Random(DType::kFloat32, {16, 64}, 0, 0, 2)};
  }
  auto r = sim::RunKernelSource(src, "pipes.py", in, o);
  REQUIRE(r.ok());
  return *r;
}

bool AnyPipeCode(const Diagnostics& d) {
  for (const auto& x : d.items())
    if (x.code.rfind("SIM-PIPE-", 0) == 0) return true;
  return false;
}

void Clean(const std::string& src, bool cube = false) {
  auto r = Run(src, cube);
  INFO(r.hazards.ToText());
  CHECK_FALSE(AnyPipeCode(r.hazards));
  CHECK_FALSE(r.hazards.HasErrors());
  CHECK(r.completed);
}

// The message of the finding `code` at `line` (empty when none).
std::string MessageAt(const sim::SimResult& r, std::string_view code, int line) {
  for (const auto& x : r.hazards.items())
    if (x.code == code && x.line == line) return x.message + " | " + x.evidence;
  return {};
}

}  // namespace

TEST_CASE("pipes: sync_src/sync_dst orders MTE2 -> V and V -> MTE3 / without them the access races") {
  Clean(kFlags);
  std::string no_in = Mutate(kFlags,
                             "        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n"
                             "        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n",
                             "        pass\n        pass\n");
  auto r = Run(no_in);
  INFO(r.hazards.ToText());
  const int add = LineOf(no_in, "pl.add(to, ta, ta)");
  REQUIRE(HasAt(r.hazards, hazard::kPipeRace, add));
  const std::string msg = MessageAt(r, hazard::kPipeRace, add);
  CHECK(msg.find("MTE2") != std::string::npos);
  CHECK(msg.find("pl.load") != std::string::npos);
  CHECK(msg.find("line " + std::to_string(LineOf(no_in, "pl.load(ta, a, [0, 0])"))) != std::string::npos);
  CHECK(msg.find("[0x0, 0x1000)") != std::string::npos);

  std::string no_out = Mutate(kFlags,
                              "        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)\n"
                              "        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)\n",
                              "        pass\n        pass\n");
  auto r2 = Run(no_out);
  INFO(r2.hazards.ToText());
  CHECK(HasAt(r2.hazards, hazard::kPipeRace, LineOf(no_out, "pl.store(out, to, [0, 0])")));
  CHECK_FALSE(HasAt(r2.hazards, hazard::kPipeRace, LineOf(no_out, "pl.add(to, ta, ta)")));
}

TEST_CASE("pipes: a flag left set when the core ends is counted in the statistics, not reported") {
  std::string left = Mutate(kFlags, "        pl.store(out, to, [0, 0])\n",
                            "        pl.store(out, to, [0, 0])\n"
                            "        pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=5)\n");
  Clean(left);
  CHECK(Run(left).stats.pipe_flags_pending == 1);
  CHECK(Run(kFlags).stats.pipe_flags_pending == 0);
}

TEST_CASE("pipes: a flag of another event id or pipe pair orders nothing / a wait without a set stops the run") {
  std::string other = Mutate(kFlags, "wait_pipe=pl.PipeType.V, event_id=0)\n        pl.system.sync_dst",
                             "wait_pipe=pl.PipeType.V, event_id=1)\n        pl.system.sync_dst");
  auto r = Run(other);
  INFO(r.hazards.ToText());
  CHECK(HasAt(r.hazards, hazard::kPipeWaitNoSet,
              LineOf(other, "pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)")));
  CHECK_FALSE(r.completed);
}

TEST_CASE("pipes: a second sync_src of a flag still set is EVENT-REUSE") {
  std::string twice = Mutate(kFlags,
                             "        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n",
                             "        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n"
                             "        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n");
  auto r = Run(twice);
  INFO(r.hazards.ToText());
  CHECK(HasAt(r.hazards, hazard::kPipeEventReuse,
              LineOf(twice, "pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)", 1)));
  // The flag left set at the end is no hazard: it is counted in the statistics.
  CHECK(r.completed);
}

TEST_CASE("pipes: invalid flag and mutex arguments are SIM-PIPE-SYNC") {
  std::string range = Mutate(kFlags, "wait_pipe=pl.PipeType.MTE3, event_id=0)\n        pl.system.sync_dst",
                             "wait_pipe=pl.PipeType.MTE3, event_id=16)\n        pl.system.sync_dst");
  auto r = Run(range);
  INFO(r.hazards.ToText());
  CHECK(HasAt(r.hazards, hazard::kPipeSync, LineOf(range, "event_id=16")));
  std::string same = Mutate(kFlags, "sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3",
                            "sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.V");
  auto r2 = Run(same);
  INFO(r2.hazards.ToText());
  bool warned = false;
  for (const auto& x : r2.hazards.items())
    warned = warned || (x.code == hazard::kPipeSync && x.severity == Severity::kWarning);
  CHECK(warned);
  std::string unpaired = Mutate(kMutex, "mutex_unlock(pipe=pl.PipeType.V, mutex_id=3)", "mutex_unlock(pipe=pl.PipeType.MTE2, mutex_id=3)");
  auto r3 = Run(unpaired);
  INFO(r3.hazards.ToText());
  CHECK(HasAt(r3.hazards, hazard::kPipeSync, LineOf(unpaired, "mutex_unlock(pipe=pl.PipeType.MTE2, mutex_id=3)", 1)));
}

TEST_CASE("pipes: a hand mutex orders the pipes through unlock -> lock of one id / another id does not") {
  Clean(kMutex);
  std::string other = Mutate(Mutate(kMutex, "mutex_lock(pipe=pl.PipeType.V, mutex_id=3)", "mutex_lock(pipe=pl.PipeType.V, mutex_id=4)"),
                             "mutex_unlock(pipe=pl.PipeType.V, mutex_id=3)", "mutex_unlock(pipe=pl.PipeType.V, mutex_id=4)");
  auto r = Run(other);
  INFO(r.hazards.ToText());
  CHECK(HasAt(r.hazards, hazard::kPipeRace, LineOf(other, "pl.add(to, ta, ta)")));
  CHECK(HasAt(r.hazards, hazard::kPipeRace, LineOf(other, "pl.store(out, to, [0, 0])")));
}

TEST_CASE("pipes: auto_mutex groups order load, add and store and the double buffer's reuse / without ids they race") {
  Clean(kGroups);
  std::string no_ids = Mutate(kGroups, "addrs=[0x0000, 0x1000], mutex_ids=[0, 1]", "addrs=[0x0000, 0x1000], depth=2");
  auto r = Run(no_ids);
  INFO(r.hazards.ToText());
  CHECK(HasAt(r.hazards, hazard::kPipeRace, LineOf(no_ids, "pl.add(to, ta, ta)")));
  // The output group keeps its ids: its store and the next add of the slot stay ordered.
  CHECK_FALSE(HasAt(r.hazards, hazard::kPipeRace, LineOf(no_ids, "pl.store(out, to, [0, 0])")));
  std::string off = Mutate(kGroups, "auto_mutex=True", "auto_mutex=False");
  auto r2 = Run(off);
  INFO(r2.hazards.ToText());
  CHECK(HasAt(r2.hazards, hazard::kPipeRace, LineOf(off, "pl.add(to, ta, ta)")));
  CHECK(HasAt(r2.hazards, hazard::kPipeRace, LineOf(off, "pl.store(out, to, [0, 0])")));
}

TEST_CASE("pipes: bar_all orders every pipe / a barrier of one pipe orders nothing across pipes") {
  Clean(kBarrier);
  std::string one = Mutate(kBarrier, "        pl.system.bar_all()\n        pl.add", "        pl.system.bar_mte2()\n        pl.add");
  auto r = Run(one);
  INFO(r.hazards.ToText());
  CHECK(HasAt(r.hazards, hazard::kPipeRace, LineOf(one, "pl.add(to, ta, ta)")));
}

TEST_CASE("pipes: two MTE2 loads into bytes nobody read need bar_mte2 (load.md)") {
  std::string twice = Mutate(kBarrier, "        pl.load(ta, a, [0, 0])\n",
                             "        pl.load(ta, a, [0, 0])\n        pl.load(ta, a, [0, 0])\n");
  auto r = Run(twice);
  INFO(r.hazards.ToText());
  CHECK(HasAt(r.hazards, hazard::kPipeWaw, LineOf(twice, "pl.load(ta, a, [0, 0])", 1)));
  std::string barred = Mutate(kBarrier, "        pl.load(ta, a, [0, 0])\n",
                              "        pl.load(ta, a, [0, 0])\n        pl.system.bar_mte2()\n        pl.load(ta, a, [0, 0])\n");
  Clean(barred);
}

TEST_CASE("pipes: accesses match by address, not by tile: an alias of the loaded bytes races too") {
  std::string alias = Mutate(kFlags, "    to = pl.make_tile(tt, addr=0x1000, size=4096)\n",
                             "    to = pl.make_tile(tt, addr=0x1000, size=4096)\n    tb = pl.make_tile(tt, addr=0x0000, size=4096)\n");
  Clean(alias);
  alias = Mutate(alias, "pl.store(out, to, [0, 0])", "pl.store(out, tb, [0, 0])");
  auto r = Run(alias);
  INFO(r.hazards.ToText());
  // tb holds the bytes MTE2 loaded: the store reads them after the V -> MTE3 flag, which carries
  // V's knowledge of the load (MTE2 -> V): clean. Without the MTE2 -> V pair it races.
  CHECK_FALSE(AnyPipeCode(r.hazards));
  std::string bare = Mutate(alias,
                            "        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n"
                            "        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n",
                            "        pass\n        pass\n");
  auto r2 = Run(bare);
  INFO(r2.hazards.ToText());
  CHECK(HasAt(r2.hazards, hazard::kPipeRace, LineOf(bare, "pl.store(out, tb, [0, 0])")));
}

TEST_CASE("pipes: getval/setval run on S / an MTE2 -> S flag orders them after the load") {
  Clean(kScalar);
  std::string bare = Mutate(kScalar,
                            "        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.S, event_id=2)\n"
                            "        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.S, event_id=2)\n",
                            "        pass\n        pass\n");
  auto r = Run(bare);
  INFO(r.hazards.ToText());
  CHECK(HasAt(r.hazards, hazard::kPipeRace, LineOf(bare, "v = pl.getval(ta, 5)")));
}

TEST_CASE("pipes: the phase= unit flag orders the FIX store after the matmul / without phase= it races") {
  Clean(kCube, true);
  std::string bare = Mutate(Mutate(kCube, ", phase=pl.AccPhase.Final)", ")"), ", phase=pl.STPhase.Final)", ")");
  auto r = Run(bare, true);
  INFO(r.hazards.ToText());
  CHECK(HasAt(r.hazards, hazard::kPipeRace, LineOf(bare, "pl.store_tile(out, ac, [0, 0])")));
  std::string no_mte1 = Mutate(kCube,
                               "        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)\n"
                               "        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)\n",
                               "        pass\n        pass\n");
  auto r2 = Run(no_mte1, true);
  INFO(r2.hazards.ToText());
  CHECK(HasAt(r2.hazards, hazard::kPipeRace, LineOf(no_mte1, "pl.matmul(ac, al, br, phase=pl.AccPhase.Final)")));
}

TEST_CASE("pipes: the model is on by default / with SimOptions::pipe_sync false the sync calls are no-ops") {
  std::string bare = Mutate(kFlags,
                            "        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n"
                            "        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n",
                            "        pass\n        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n");
  auto off = Run(bare, false, false);
  INFO(off.hazards.ToText());
  CHECK_FALSE(AnyPipeCode(off.hazards));
  CHECK(off.completed);
  auto on = Run(bare);
  INFO(on.hazards.ToText());
  CHECK(HasAt(on.hazards, hazard::kPipeWaitNoSet, LineOf(bare, "pl.system.sync_dst(set_pipe=pl.PipeType.MTE2")));
  // The defaults of SimOptions and LaunchRequest, untouched: the model is on.
  CHECK(sim::SimOptions{}.pipe_sync);
  CHECK(sim::LaunchRequest{}.pipe_sync);
  sim::SimOptions o;
  o.entry = "k";
  auto r = sim::RunKernelSource(bare, "pipes.py",
                                {simtest::Random(DType::kFloat32, {16, 64}, -1, 1, 1),
                                 simtest::Random(DType::kFloat32, {16, 64}, 0, 0, 2)},
                                o);
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  CHECK(HasAt(r->hazards, hazard::kPipeWaitNoSet, LineOf(bare, "pl.system.sync_dst(set_pipe=pl.PipeType.MTE2")));
}

TEST_CASE("pipes: a vf register access covers the bytes it moves, not its tile: a load into the other half is clean") {
  // The halves of one [8, 128] tile (bufferid/test_tile_group_subscript.py's aliased sub-views):
  // the VF works on the left half row by row while MTE2 loads the right half, with no flag
  // between them. Different bytes: no race. A VF store into the right half races with the load.
  const std::string src = R"(import pypto_pro.language as pl
from pypto_pro.language import Vf as vf


@pl.vector_function
def add_one(src):
    m = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    for row in pl.range(0, 8):
        r = vf.load_align(src, row * 128)
        vf.store_align(src + row * 128, vf.adds(r, 1.0, m), m)


@pl.jit(auto_mutex=False)
def k(a: pl.Tensor[[16, 64], pl.DT_FP32], out: pl.Tensor[[16, 64], pl.DT_FP32]):
    t = pl.make_tile(pl.TileType(shape=[8, 128], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0000, size=4096)
    with pl.section_vector():
        left = t[:, 0:64]
        right = t[:, 64:128]
        pl.load(left, a, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        add_one(left)
        pl.load(right, a, [8, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, left, [0, 0])
        pl.store(out, right, [8, 0])
)";
  auto r = Run(src);
  INFO(r.hazards.ToText());
  CHECK_FALSE(AnyPipeCode(r.hazards));
  CHECK_FALSE(r.hazards.HasErrors());
  const std::string into_right = Mutate(src, "vf.store_align(src + row * 128, ", "vf.store_align(src + (row * 128 + 64), ");
  auto m = Run(into_right);
  INFO(m.hazards.ToText());
  CHECK(HasAt(m.hazards, hazard::kPipeRace, LineOf(into_right, "pl.load(right, a, [8, 0])")));
}
