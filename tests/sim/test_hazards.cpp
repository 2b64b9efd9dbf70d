// Mutated kernels: each test edits one line of tests/data/sim/softmax_vf_fp32.py (a correct
// kernel) into a typical defect and checks that the simulator reports the right hazard code
// at the right line, and — where the defect corrupts data — that the output is wrong.
#include "sim_test_util.h"

#include "opdev/support/file_io.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace opdev;

namespace {

std::string Base() { return *ReadTextFile(simtest::DataPath("softmax_vf_fp32.py")); }

using simtest::LineOf;
using simtest::Mutate;
using simtest::MutateNth;

struct Run {
  sim::SimResult r;
  double err = 0;  // max abs error vs the double softmax (inf when no output / NaN)
};

Run RunSoftmax(const std::string& src, std::vector<int64_t> shape = {777, 300}) {
  auto x = simtest::Random(DType::kFloat32, shape, -4.0, 4.0, 3);
  sim::SimOptions opts;
  opts.entry = "softmax_wrapper";
  auto r = sim::RunKernelSource(src, "mutant.py", {x}, opts);
  REQUIRE(r.ok());
  Run out{*r, INFINITY};
  if (!r->outputs.empty()) out.err = simtest::MaxAbsDiff(r->outputs[0].tensor, simtest::SoftmaxRef(x));
  return out;
}

using simtest::HasAt;

}  // namespace

TEST_CASE("the unmutated kernel is clean") {
  Run run = RunSoftmax(Base());
  INFO(run.r.hazards.ToText());
  CHECK(run.r.hazards.empty());
  CHECK(run.err < 1e-6);
}

TEST_CASE("mutant: tail mask covers the whole register (padding lanes reach the sum)") {
  std::string src = MutateNth(Base(), "m = vf.update_mask(live, dtype=pl.DT_FP32)",
                              "m = vf.update_mask(LANES, dtype=pl.DT_FP32)", 1);
  Run run = RunSoftmax(src);
  INFO(run.r.hazards.ToText());
  // The reduction over padding lanes is where the undefined values start (a warning: its result
  // stays undefined); the error is where they reach GM.
  CHECK(HasAt(run.r.hazards, "SIM-UNINIT-USE", LineOf(src, "vf.reduce_sum(e, m)")));
  CHECK(HasAt(run.r.hazards, "SIM-UNINIT-READ", LineOf(src, "pl.store(y, yt, [r0, 0])")));
  CHECK(run.err > 1e-3);  // padding lanes are NaN poison: the FAIL is real
}

// The VF walks every row of the block, also the rows past a row tail, which hold bytes never
// written in this run. On the device those rows hold stale data and are discarded: pl.store
// copies only the valid window. So the run passes, with warnings at the operations that
// computed on never-written bytes, and no error.
TEST_CASE("VF rows beyond the row tail compute values that never reach GM: warnings and no error") {
  std::string src = Mutate(Base(), "row_softmax(xt, yt, live_rows, cols)", "row_softmax(xt, yt, BLOCK_ROWS, cols)");
  Run run = RunSoftmax(src, {777, 300});  // 777 rows: the last block has a row tail
  INFO(run.r.hazards.ToText());
  CHECK(run.r.hazards.ErrorCount() == 0);
  CHECK(HasAt(run.r.hazards, "SIM-UNINIT-USE", LineOf(src, "best = vf.max(best, vf.reduce_max(v, m), full)")));
  CHECK(HasAt(run.r.hazards, "SIM-UNINIT-USE",
              LineOf(src, "vf.store_align(dst + (row + k * LANES), vf.div(e, total_all, m), m)")));
  CHECK(run.err < 1e-6);
}

// A comparison over the padding lanes gives a mask the simulator cannot mark undefined: it is
// reported where it happens (a warning: here the mask is never used).
TEST_CASE("a VF comparison of never-written lanes is reported at its line") {
  std::string src = MutateNth(Base(), "            best = vf.max(best, vf.reduce_max(v, m), full)\n",
                              "            best = vf.max(best, vf.reduce_max(v, m), full)\n"
                              "            pad = vf.gt(v, v, full)\n", 0);
  Run run = RunSoftmax(src, {5, 300});  // 300 % 64 = 44: the last register has 20 padding lanes
  INFO(run.r.hazards.ToText());
  CHECK(run.r.hazards.ErrorCount() == 0);
  CHECK(HasAt(run.r.hazards, "SIM-UNINIT-USE", LineOf(src, "pad = vf.gt(v, v, full)")));
  CHECK(run.err < 1e-6);
  // Over the live lanes only, nothing is reported.
  std::string live = Mutate(src, "pad = vf.gt(v, v, full)", "pad = vf.gt(v, v, m)");
  Run clean = RunSoftmax(live, {5, 300});
  CHECK(clean.r.hazards.empty());
}

TEST_CASE("mutant: missing set_validshape before the load reads outside x") {
  std::string src = Mutate(Base(), "            pl.set_validshape(xt, [live_rows, cols])\n", "");
  Run run = RunSoftmax(src);
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-GM-OOB", LineOf(src, "pl.load(xt, x, [r0, 0])")));
}

TEST_CASE("mutant: set_validshape after the load it should bound") {
  std::string src = Mutate(Base(),
                           "            pl.set_validshape(xt, [live_rows, cols])\n            pl.load(xt, x, [r0, 0])\n",
                           "            pl.load(xt, x, [r0, 0])\n            pl.set_validshape(xt, [live_rows, cols])\n");
  Run run = RunSoftmax(src);
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-VALIDSHAPE-AFTER-LOAD", LineOf(src, "pl.set_validshape(xt")));
  CHECK(HasAt(run.r.hazards, "SIM-GM-OOB", LineOf(src, "pl.load(xt, x, [r0, 0])")));
  for (const auto& d : run.r.hazards.items())  // the warning; the error is the out-of-range load
    if (d.code == "SIM-VALIDSHAPE-AFTER-LOAD") CHECK(d.severity == Severity::kWarning);
}

TEST_CASE("mutant: the stride loop skips row blocks") {
  std::string src = Mutate(Base(), "pl.range(me, blocks, cores)", "pl.range(me, blocks, cores + 1)");
  Run run = RunSoftmax(src, {2049, 100});  // 129 blocks on 48 cores: stride 49 misses some
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-OUT-UNWRITTEN", LineOf(src, "softmax_kernel[None, cores](x, y)")));
  CHECK(run.err > 1e-3);
}

TEST_CASE("mutant: ping and pong input slots overlap") {
  std::string src = Mutate(Base(), "X_PONG = X_PING + BLOCK_BYTES", "X_PONG = X_PING + BLOCK_BYTES // 2");
  Run run = RunSoftmax(src, {2049, 100});
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-TILE-OVERLAP", LineOf(src, "xs = pl.make_tile_group")));
}

TEST_CASE("mutant: pl.fillpad inside the VF function") {
  std::string src = Mutate(Base(), "    full = vf.create_mask(", "    pl.fillpad(dst, src)\n    full = vf.create_mask(");
  Run run = RunSoftmax(src, {16, 64});
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-VF-MTE-OP", LineOf(src, "pl.fillpad(dst, src)")));
}

TEST_CASE("mutant: pl.load inside the VF function") {
  std::string src = Mutate(Base(), "    full = vf.create_mask(", "    pl.load(src, x, [0, 0])\n    full = vf.create_mask(");
  Run run = RunSoftmax(src, {16, 64});
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-VF-MTE-OP", LineOf(src, "pl.load(src, x, [0, 0])")));
}

TEST_CASE("mutant: the store offset is one row off (out-of-range store and a hole)") {
  std::string src = Mutate(Base(), "pl.store(y, yt, [r0, 0])", "pl.store(y, yt, [r0 + 1, 0])");
  Run run = RunSoftmax(src, {2049, 100});
  INFO(run.r.hazards.ToText());
  int line = LineOf(src, "pl.store(y, yt, [r0 + 1, 0])");
  CHECK(HasAt(run.r.hazards, "SIM-GM-OOB", line));
  CHECK(run.r.hazards.HasCode("SIM-OUT-UNWRITTEN"));
  CHECK(run.err > 1e-3);
}

TEST_CASE("mutant: every core processes every row block (outputs written by several cores)") {
  std::string src = Mutate(Base(), "pl.range(me, blocks, cores)", "pl.range(0, blocks, 1)");
  Run run = RunSoftmax(src, {100, 64});
  INFO(run.r.hazards.ToText());
  // Every core writes the same values: redundant, order-independent — a warning, not a race.
  CHECK(HasAt(run.r.hazards, "SIM-OUT-MULTI-CORE-SAME", LineOf(src, "pl.store(y, yt, [r0, 0])")));
  CHECK_FALSE(run.r.hazards.HasCode("SIM-OUT-MULTI-CORE"));
  CHECK_FALSE(run.r.hazards.HasCode("SIM-GM-RACE"));  // the same bytes land in either order
  CHECK_FALSE(run.r.hazards.HasErrors());
  CHECK(run.err < 1e-6);  // the values are right; the ownership is not
}

TEST_CASE("mutant: every core stores its row blocks at row 0 (cores overwrite each other's values)") {
  std::string src = Mutate(Base(), "pl.store(y, yt, [r0, 0])", "pl.store(y, yt, [0, 0])");
  Run run = RunSoftmax(src);
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-OUT-MULTI-CORE", LineOf(src, "pl.store(y, yt, [0, 0])")));
  CHECK(HasAt(run.r.hazards, "SIM-GM-RACE", LineOf(src, "pl.store(y, yt, [0, 0])")));
  CHECK(run.r.hazards.HasErrors());
  CHECK(run.err > 1e-3);
}

TEST_CASE("mutant: an fp16-width mask drives fp32 lanes") {
  std::string src = MutateNth(Base(), "m = vf.update_mask(live, dtype=pl.DT_FP32)",
                              "m = vf.update_mask(live, dtype=pl.DT_FP16)", 0);
  Run run = RunSoftmax(src);
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-MASK-DTYPE", LineOf(src, "best = vf.max(best, vf.reduce_max(v, m), full)")));
}

TEST_CASE("mutant: a VF function's register result is passed to another VF function") {
  std::string src = Mutate(Base(), "@pl.jit(auto_mutex=True)",
                           "@pl.vector_function\n"
                           "def make_mask(n: pl.DT_INT64):\n"
                           "    return vf.update_mask(n, dtype=pl.DT_FP32)\n\n\n"
                           "@pl.vector_function\n"
                           "def use_mask(dst, m):\n"
                           "    z = vf.full(0.0, m, dtype=pl.DT_FP32)\n"
                           "    vf.store_align(dst, z, m)\n\n\n"
                           "@pl.jit(auto_mutex=True)");
  src = Mutate(src, "            row_softmax(xt, yt, live_rows, cols)\n",
               "            mk = make_mask(cols)\n            use_mask(yt, mk)\n            row_softmax(xt, yt, live_rows, cols)\n");
  Run run = RunSoftmax(src, {16, 64});
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-VF-RETURN-CHAIN", LineOf(src, "use_mask(yt, mk)")));
}

TEST_CASE("mutant: an if on a runtime value inside the VF body") {
  std::string src = Mutate(Base(), "    regs = (cols + LANES - 1) // LANES\n",
                           "    regs = (cols + LANES - 1) // LANES\n    if cols > 256:\n        regs = regs + 0\n");
  Run run = RunSoftmax(src, {16, 64});
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-VF-RUNTIME-IF", LineOf(src, "if cols > 256:")));
}

TEST_CASE("mutant: the output loop reuses the mask of the previous loop (stale value)") {
  std::string src = MutateNth(Base(), "            m = vf.update_mask(live, dtype=pl.DT_FP32)\n", "", 2);
  Run run = RunSoftmax(src);
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-VF-STALE-VALUE", LineOf(src, "e = vf.exp_sub(v, best_all, m)", 1)));
  CHECK(run.err > 1e-3);  // non-tail registers are stored with the tail mask
}

TEST_CASE("mutant: tiles do not fit in UB") {
  std::string src = Mutate(Base(), "ROW_CAP = 512", "ROW_CAP = 1024");
  Run run = RunSoftmax(src, {16, 64});
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-TILE-CAPACITY", LineOf(src, "ys = pl.make_tile_group")));
}

TEST_CASE("mutant: misaligned UB address") {
  std::string src = Mutate(Base(), "X_PING = 0", "X_PING = 16");
  Run run = RunSoftmax(src, {16, 64});
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-TILE-ALIGN", LineOf(src, "xs = pl.make_tile_group")));
}

TEST_CASE("mutant: tile row of 500 fp32 is not 32-byte aligned") {
  std::string src = Mutate(Base(), "ROW_CAP = 512", "ROW_CAP = 500");
  Run run = RunSoftmax(src, {16, 64});
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-TILE-SHAPE-ALIGN", LineOf(src, "xs = pl.make_tile_group")));
}

TEST_CASE("mutant: the VF call is dropped, so unwritten UB bytes are stored") {
  std::string src = Mutate(Base(), "            row_softmax(xt, yt, live_rows, cols)\n", "");
  Run run = RunSoftmax(src, {16, 64});
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-UNINIT-READ", LineOf(src, "pl.store(y, yt, [r0, 0])")));
  CHECK(run.err > 1e-3);
}

TEST_CASE("mutant: the wrapper reshapes its input (outside the wrapper boundary)") {
  std::string src = Mutate(Base(), "    y = torch.empty_like(x)\n", "    x = x.contiguous()\n    y = torch.empty_like(x)\n");
  Run run = RunSoftmax(src, {16, 64});
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-WRAPPER-BOUNDARY", LineOf(src, "x = x.contiguous()")));
  CHECK(run.err < 1e-6);  // the skipped statement did not change the result here
}

TEST_CASE("mutant: launch with block_dim 0") {
  std::string src = Mutate(Base(), "cores = min(get_platform_info().vector_core_num, blocks)", "cores = 0");
  Run run = RunSoftmax(src, {16, 64});
  INFO(run.r.hazards.ToText());
  CHECK(HasAt(run.r.hazards, "SIM-BLOCK-DIM", LineOf(src, "softmax_kernel[None, cores](x, y)")));
  CHECK_FALSE(run.r.completed);
}

TEST_CASE("the wrapper's own argument checks run: too many columns is rejected with its line") {
  Run run = RunSoftmax(Base(), {4, 600});
  INFO(run.r.hazards.ToText());
  CHECK_FALSE(run.r.completed);
  CHECK(HasAt(run.r.hazards, "SIM-RUNTIME", LineOf(Base(), "raise ValueError(\"too many columns\")")));
}

TEST_CASE("mutant: a barrier spelling PyPTO-Pro does not define (pl.system.bar_v) fails with the catalog's fix") {
  // barrier.md and system_ops.py define bar_m/mte1/mte2/mte3/fix/all only; the frontend
  // rejects bar_v at compile time, so the simulator must not run it as a no-op.
  std::string src = Mutate(Base(), "            pl.store(y, yt, [r0, 0])\n",
                           "            pl.system.bar_v()\n            pl.store(y, yt, [r0, 0])\n");
  Run m = RunSoftmax(src, {4, 300});
  int line = LineOf(src, "pl.system.bar_v()");
  CHECK(HasAt(m.r.hazards, "SIM-UNSUPPORTED", line));
  bool names_fix = false;
  for (const auto& d : m.r.hazards.items())
    if (d.line == line && d.message.find("not defined by PyPTO-Pro") != std::string::npos &&
        d.message.find("pl.system.bar_all()") != std::string::npos)
      names_fix = true;
  CHECK(names_fix);
  // bar_all is defined and stays a barrier the run passes.
  std::string ok = Mutate(src, "pl.system.bar_v()", "pl.system.bar_all()");
  CHECK(RunSoftmax(ok, {4, 300}).r.hazards.ErrorCount() == 0);
}
