// Cross-core mutation suite: each row plants one cross-core defect (a text edit) in a copy of a
// correct fused test kernel (tests/data/sim/fused_*.py: Acc -> Vec + insert, and a GM
// workspace ring with READY/FREE events) and names the hazard code the simulator must report,
// the line it must point at and the line of the other core involved, which the finding's
// evidence must name. The unmutated kernels are clean and exact under the fixed and seeded
// schedules. Every deadlock ends the run by itself.
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"
#include "opdev/support/file_io.h"

#include <cmath>

using namespace opdev;
using simtest::LineOf;

namespace {

struct Kernel {
  const char* file;
  const char* entry;
};
const Kernel kAccVec{"fused_mm_add_mm.py", "fused_mm_add_mm_kernel"};
const Kernel kWorkspace{"fused_matmul_add_ws.py", "fused_ws_kernel"};

std::vector<precision::Tensor> Inputs(const Kernel& k) {
  if (std::string(k.file) == kAccVec.file)
    return {simtest::Random(DType::kFloat32, {64, 64}, -1, 1, 1), simtest::Random(DType::kFloat32, {64, 64}, -1, 1, 2),
            simtest::Random(DType::kFloat32, {64, 64}, -1, 1, 3), simtest::Random(DType::kFloat32, {64, 64}, -1, 1, 4),
            *precision::Tensor::Zeros(DType::kFloat32, {64, 64})};
  return {simtest::Random(DType::kFloat16, {128, 64}, -1, 1, 1), simtest::Random(DType::kFloat16, {64, 128}, -1, 1, 2),
          simtest::Random(DType::kFloat32, {128, 128}, -1, 1, 3), *precision::Tensor::Zeros(DType::kFloat32, {128, 128}),
          *precision::Tensor::Zeros(DType::kFloat32, {128, 64})};
}

// The reference of each kernel in double.
std::vector<double> Reference(const Kernel& k, const std::vector<precision::Tensor>& in) {
  auto mm = [](const precision::Tensor& a, const precision::Tensor& b, int64_t M, int64_t K, int64_t N) {
    std::vector<double> c(static_cast<size_t>(M * N), 0.0);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int64_t t = 0; t < K; ++t) s += a.GetDouble(i * K + t) * b.GetDouble(t * N + j);
        c[static_cast<size_t>(i * N + j)] = s;
      }
    return c;
  };
  if (std::string(k.file) == kAccVec.file) {
    auto ab = mm(in[0], in[1], 64, 64, 64);
    std::vector<double> h(ab.size()), out(ab.size(), 0.0);
    for (size_t i = 0; i < ab.size(); ++i) h[i] = ab[i] + in[3].GetDouble(static_cast<int64_t>(i));
    for (int64_t i = 0; i < 64; ++i)
      for (int64_t j = 0; j < 64; ++j) {
        double s = 0;
        for (int64_t t = 0; t < 64; ++t) s += h[static_cast<size_t>(i * 64 + t)] * in[2].GetDouble(t * 64 + j);
        out[static_cast<size_t>(i * 64 + j)] = s;
      }
    return out;
  }
  auto ab = mm(in[0], in[1], 128, 64, 128);
  for (size_t i = 0; i < ab.size(); ++i) ab[i] += in[2].GetDouble(static_cast<int64_t>(i));
  return ab;
}

sim::SimResult RunText(const Kernel& k, const std::string& src, uint64_t seed) {
  sim::SimOptions opts;
  opts.entry = k.entry;
  opts.block_dim = 1;
  opts.schedule_seed = seed;
  auto r = sim::RunKernelSource(src, "mutant.py", Inputs(k), opts);
  REQUIRE(r.ok());
  return *r;
}

// The finding with `code` at `line` whose evidence or message names `other_line` (0: any).
bool FlaggedAt(const Diagnostics& d, std::string_view code, int line, int other_line) {
  for (const auto& x : d.items()) {
    if (x.code != code || x.line != line) continue;
    if (other_line == 0) return true;
    const std::string want = "line " + std::to_string(other_line);
    if (x.evidence.find(want) != std::string::npos || x.message.find(want) != std::string::npos) return true;
  }
  return false;
}

// A race is found at whichever of its two accesses the schedule ran second, naming the other:
// either way both cores' lines are in the finding.
bool Flagged(const Diagnostics& d, std::string_view code, int line, int other_line) {
  if (FlaggedAt(d, code, line, other_line)) return true;
  const bool race = code == sim::hazard::kGmRace || code == sim::hazard::kXcoreRace;
  return race && other_line > 0 && FlaggedAt(d, code, other_line, line);
}

struct Mutation {
  const char* name;
  Kernel kernel;
  const char* from;   // text replaced (its first occurrence)
  const char* to;
  const char* code;   // expected hazard
  const char* at;     // the expected line holds this text (in the mutated kernel)
  int at_n;           // ... its at_n-th occurrence (0-based)
  const char* other;  // the other core's line holds this text ("" when none is named)
  int other_n;
  bool stops;         // the run must stop (a device hang)
};

const Mutation kMutations[] = {
    {"AIV reads the Acc -> Vec result without waiting", kAccVec,
     "        pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=0)\n", "", "SIM-XCORE-RACE",
     "pl.add(h_ub, mm_ub, x_ub)", 0, "pl.move(mm_ub, acc1, acc_to_vec_mode", 0, false},
    {"AIC sets the event before its Acc -> Vec move", kAccVec,
     "        pl.move(mm_ub, acc1, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)\n"
     "        pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=0)\n",
     "        pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=0)\n"
     "        pl.move(mm_ub, acc1, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)\n",
     "SIM-XCORE-RACE", "pl.add(h_ub, mm_ub, x_ub)", 0, "pl.move(mm_ub, acc1, acc_to_vec_mode", 0, false},
    {"AIC reads the inserted L1 tile without waiting", kAccVec,
     "        pl.system.wait_cross_core(pipe=pl.PipeType.MTE1, event_id=1)\n", "", "SIM-XCORE-RACE",
     "pl.move(left, h_mat)", 0, "pl.insert(h_mat, h_nz, [row, 0])", 0, false},
    {"AIV waits for the wrong event (deadlock)", kAccVec, "pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=0)",
     "pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=2)", "SIM-XCORE-DEADLOCK",
     "pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=2)", 0, "pl.system.wait_cross_core(pipe=pl.PipeType.MTE1",
     0, true},
    {"AIV waits twice for one set (deadlock)", kAccVec,
     "        pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=0)\n",
     "        pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=0)\n"
     "        pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=0)\n",
     "SIM-XCORE-DEADLOCK", "pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=0)", 1,
     "pl.system.wait_cross_core(pipe=pl.PipeType.MTE1", 0, true},
    {"both AIVs insert into the same rows", kAccVec, "pl.insert(h_mat, h_nz, [row, 0])",
     "pl.insert(h_mat, h_nz, [0, 0])", "SIM-XCORE-RACE", "pl.insert(h_mat, h_nz, [0, 0])", 0,
     "pl.insert(h_mat, h_nz, [0, 0])", 0, false},
    {"AIV sets its event twice, the AIC waits once (unbalanced counts)", kAccVec,
     "        pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=1)\n",
     "        pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=1)\n"
     "        pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=1)\n",
     "SIM-XCORE-UNCONSUMED", "pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=1)", 1, "", 0, false},
    {"AIC sets one event 17 times before any wait (reuse: counter overflow)", kAccVec,
     "        pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=0)\n",
     "        for _ in pl.range(0, 17):\n"
     "            pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=0)\n",
     "SIM-XCORE-EVENT-REUSE", "pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=0)", 0,
     "pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=0)", 0, false},
    {"Acc -> Vec reads an accumulation still under the unit flag (phase)", kAccVec,
     "pl.matmul(acc1, left, right_b)", "pl.matmul(acc1, left, right_b, phase=pl.AccPhase.Final)",
     "SIM-PHASE-UNPAIRED", "pl.move(mm_ub, acc1, acc_to_vec_mode", 0, "", 0, false},
    {"insert of an ND Vec tile (no ND -> NZ move)", kAccVec, "pl.insert(h_mat, h_nz, [row, 0])",
     "pl.insert(h_mat, h_ub, [row, 0])", "SIM-CUBE-LAYOUT", "pl.insert(h_mat, h_ub, [row, 0])", 0, "", 0, true},
    {"AIC does not wait for FREE before reusing a workspace slot", kWorkspace,
     "                    pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=FREE)\n",
     "                    pass\n", "SIM-GM-RACE", "pl.store(ws, ac, [slot * TM, 0])", 0,
     "pl.load(mm, ws, [slot * TM + row, 0])", 0, false},
    {"AIV reads the workspace without waiting for READY", kWorkspace,
     "                pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=READY)\n", "", "SIM-GM-RACE",
     "pl.load(mm, ws, [slot * TM + row, 0])", 0, "pl.store(ws, ac, [slot * TM, 0])", 0, false},
    {"AIV gives FREE back before it read the slot", kWorkspace,
     "                pl.load(mm, ws, [slot * TM + row, 0])\n"
     "                pl.load(xb, x, [i + row, j])\n"
     "                if t < TILES - 2:\n"
     "                    pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=FREE)\n",
     "                if t < TILES - 2:\n"
     "                    pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=FREE)\n"
     "                pl.load(mm, ws, [slot * TM + row, 0])\n"
     "                pl.load(xb, x, [i + row, j])\n",
     "SIM-GM-RACE", "pl.store(ws, ac, [slot * TM, 0])", 0, "pl.load(mm, ws, [slot * TM + row, 0])", 0, false},
    {"more FREE sets than the AIC waits for (unbalanced counts)", kWorkspace, "if t < TILES - 2:", "if t < TILES:",
     "SIM-XCORE-UNCONSUMED", "pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=FREE)", 0, "", 0, false},
    {"fewer FREE sets than the AIC waits for (deadlock)", kWorkspace, "if t < TILES - 2:", "if t < TILES - 3:",
     "SIM-XCORE-DEADLOCK", "pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=FREE)", 0, "", 0, true},
    {"READY waited in another sync mode than it is set (deadlock)", kWorkspace,
     "pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=READY)",
     "pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=READY, sync_mode=pl.CrossCoreSyncMode.INTER_SUBBLOCK)",
     "SIM-XCORE-DEADLOCK", "sync_mode=pl.CrossCoreSyncMode.INTER_SUBBLOCK", 0, "", 0, true},
    {"cross-core event id out of range", kWorkspace, "pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=READY)",
     "pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=READY + 16)", "SIM-XCORE-SYNC",
     "event_id=READY + 16", 0, "", 0, true},
};

}  // namespace

TEST_CASE("cross-core mutations: the unmutated fused kernels are clean and exact under every schedule") {
  for (const Kernel& k : {kAccVec, kWorkspace}) {
    auto src = *ReadTextFile(simtest::DataPath(k.file));
    const auto in = Inputs(k);
    const auto ref = Reference(k, in);
    for (uint64_t seed : {0ull, 1ull, 7ull, 12345ull}) {
      CAPTURE(k.file, seed);
      auto r = RunText(k, src, seed);
      INFO(r.hazards.ToText());
      CHECK(r.completed);
      CHECK(r.hazards.empty());
      const precision::Tensor* out = nullptr;
      for (const auto& o : r.outputs)
        if (o.name == "out") out = &o.tensor;
      REQUIRE(out != nullptr);
      double worst = 0;
      for (int64_t i = 0; i < out->numel(); ++i)
        worst = std::max(worst, std::fabs(out->GetDouble(i) - ref[static_cast<size_t>(i)]));
      CHECK(worst < 1e-3);
    }
  }
}

TEST_CASE("cross-core mutations: each planted defect is reported with its code and both cores' lines") {
  REQUIRE(std::size(kMutations) >= 12);
  for (const Mutation& m : kMutations) {
    auto base = *ReadTextFile(simtest::DataPath(m.kernel.file));
    auto pos = base.find(m.from);
    REQUIRE(pos != std::string::npos);
    std::string src = base;
    src.replace(pos, std::string(m.from).size(), m.to);
    const int line = LineOf(src, m.at, m.at_n);
    const int other = std::string(m.other).empty() ? 0 : LineOf(src, m.other, m.other_n);
    // The finding must not depend on the interleaving.
    for (uint64_t seed : {0ull, 3ull}) {
      CAPTURE(m.name, m.code, line, other, seed);
      auto r = RunText(m.kernel, src, seed);
      INFO(r.hazards.ToText());
      CHECK(Flagged(r.hazards, m.code, line, other));
      if (m.stops) CHECK_FALSE(r.completed);
      for (const auto& d : r.hazards.items()) {
        CHECK(d.line > 0);
        CHECK(sim::FindHazard(d.code) != nullptr);
      }
    }
  }
}
