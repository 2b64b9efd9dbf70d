// Cube mutation suite: each row plants one defect (a text edit) in a copy of a correct Cube
// test kernel (tests/data/sim/matmul_*.py) and names the hazard code the simulator must
// report and the line it must point at (the line of a marker text in the mutated kernel).
// The unmutated kernels are clean. Defects that hang the device must stop the run.
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"
#include "opdev/support/file_io.h"

using namespace opdev;
using simtest::HasAt;
using simtest::LineOf;

namespace {

struct Kernel {
  const char* file;
  const char* entry;
};
const Kernel kBasic{"matmul_basic_fp16.py", "matmul_basic_wrapper"};
const Kernel kDynamic{"matmul_dynamic_fp16.py", "matmul_dynamic_wrapper"};
const Kernel kBias{"matmul_bias_bf16.py", "matmul_bias_kernel"};
const Kernel kTranspose{"matmul_transpose_fp32.py", "matmul_transpose_kernel"};

std::vector<precision::Tensor> Inputs(const Kernel& k, int64_t M, int64_t N, int64_t K) {
  std::string f = k.file;
  if (f == kBias.file)
    return {simtest::Random(DType::kBFloat16, {M, K}, -1, 1, 1), simtest::Random(DType::kBFloat16, {K, N}, -1, 1, 2),
            simtest::Random(DType::kBFloat16, {1, N}, -1, 1, 3), *precision::Tensor::Zeros(DType::kFloat32, {M, N})};
  if (f == kTranspose.file)
    return {simtest::Random(DType::kFloat32, {K, M}, -1, 1, 1), simtest::Random(DType::kFloat32, {N, K}, -1, 1, 2),
            *precision::Tensor::Zeros(DType::kFloat32, {M, N})};
  return {simtest::Random(DType::kFloat16, {M, K}, -1, 1, 1), simtest::Random(DType::kFloat16, {K, N}, -1, 1, 2)};
}

sim::SimResult RunText(const Kernel& k, const std::string& src, int64_t M, int64_t N, int64_t K,
                       int64_t block_dim) {
  sim::SimOptions opts;
  opts.entry = k.entry;
  opts.block_dim = block_dim;
  auto r = sim::RunKernelSource(src, "mutant.py", Inputs(k, M, N, K), opts);
  REQUIRE(r.ok());
  return *r;
}

struct Mutation {
  const char* name;
  Kernel kernel;
  const char* from;   // text replaced (its first occurrence)
  const char* to;
  const char* code;   // expected hazard
  const char* at;     // the expected line holds this text (in the mutated kernel)
  int64_t M, N, K, block_dim;
  bool stops;         // the run must stop (a device hang or a rejected call)
};

const Mutation kMutations[] = {
    {"store without phase after phase matmuls", kDynamic,
     "pl.store(out, acc.current(), [i, j], phase=pl.STPhase.Final)", "pl.store(out, acc.current(), [i, j])",
     "SIM-PHASE-UNPAIRED", "pl.store(out, acc.current(), [i, j])", 256, 256, 256, 0, false},
    {"phase store after plain matmuls (hang)", kBasic, "pl.store_tile(out, ac, [i, j])",
     "pl.store_tile(out, ac, [i, j], phase=pl.STPhase.Final)", "SIM-PHASE-UNPAIRED", "pl.store_tile(out, ac",
     256, 128, 128, 0, true},
    {"accumulation never reaches Final (hang)", kDynamic,
     "pl.matmul_acc(acc.current(), acc.current(), al, br, phase=pl.AccPhase.Final)",
     "pl.matmul_acc(acc.current(), acc.current(), al, br, phase=pl.AccPhase.Partial)", "SIM-PHASE-NO-FINAL",
     "pl.matmul_acc(acc.current(), acc.current(), al, br, phase=pl.AccPhase.Partial)", 256, 128, 128, 0, true},
    {"Final store replaced by Partial: next matmul waits forever", kDynamic,
     "pl.store(out, acc.current(), [i, j], phase=pl.STPhase.Final)",
     "pl.store(out, acc.current(), [i, j], phase=pl.STPhase.Partial)", "SIM-PHASE-HANG",
     "pl.matmul(acc.current(), al, br, phase=pl.AccPhase.Partial)", 256, 256, 128, 1, true},
    {"K accumulation without set_mm_layout_transform", kDynamic,
     "pl.system.set_mm_layout_transform(enabled=True)", "pass", "SIM-KACC-LAYOUT-TRANSFORM",
     "pl.matmul(acc.current(), al, br, phase=pl.AccPhase.Partial)", 256, 128, 128, 0, false},
    {"K accumulation into an Acc with fractal=512", kDynamic, "fractal=1024, valid_shape", "fractal=512, valid_shape", "SIM-KACC-FRACTAL",
     "acc = pl.make_tile_group(", 256, 128, 128, 0, false},
    {"K accumulation step without phase", kDynamic,
     "pl.matmul_acc(acc.current(), acc.current(), al, br, phase=pl.AccPhase.Partial)",
     "pl.matmul_acc(acc.current(), acc.current(), al, br)", "SIM-KACC-PHASE",
     "pl.matmul_acc(acc.current(), acc.current(), al, br)\n", 256, 128, 256, 0, false},
    {"set_mm_layout_transform never switched off", kDynamic, "pl.system.set_mm_layout_transform(enabled=False)",
     "pass", "SIM-MM-LAYOUT-UNPAIRED", "pl.system.set_mm_layout_transform(enabled=True)", 256, 128, 128, 0,
     false},
    {"partial-M matmul under the unit flag (hang)", kDynamic, "pl.set_validshape(al, [TILE_M, sub_k])",
     "pl.set_validshape(al, [valid_m, sub_k])", "SIM-PARTIAL-FIX",
     "pl.matmul(acc.current(), al, br, phase=pl.AccPhase.Partial)", 250, 128, 128, 0, true},
    {"matmul operands in the wrong spaces", kBasic, "pl.matmul(ac, al, br)", "pl.matmul(ac, br, al)",
     "SIM-CUBE-SPACE", "pl.matmul(ac, br, al)", 128, 128, 128, 0, true},
    {"GM load straight into Left", kBasic, "pl.move(al, cur_a)", "pl.load_tile(al, a, [i, 0])",
     "SIM-CUBE-SPACE", "pl.load_tile(al, a, [i, 0])", 128, 128, 128, 0, true},
    {"Left tile beyond L0A", kBasic, "addrs=0x0000, mutex_ids=[4]", "addrs=0xC000, mutex_ids=[4]",
     "SIM-TILE-CAPACITY", "a_left = pl.make_tile_group(", 128, 128, 128, 0, false},
    {"Acc tile misaligned", kBasic, "addrs=0x0000, mutex_ids=[6]", "addrs=0x0020, mutex_ids=[6]",
     "SIM-TILE-ALIGN", "acc = pl.make_tile_group(", 128, 128, 128, 0, false},
    {"L1 tiles overlapping while live", kBasic, "B_L1 = 0x10000", "B_L1 = 0x04000", "SIM-TILE-OVERLAP",
     "b_l1 = pl.make_tile_group(", 128, 128, 128, 0, false},
    {"two live groups share mutex ids (warning: legal, serialises)", kBasic, "mutex_ids=[2, 3]", "mutex_ids=[0, 1]", "SIM-MUTEX-SHARED",
     "b_l1 = pl.make_tile_group(", 128, 128, 128, 0, false},
    {"L1 ping and pong in one bank half (warning)", kBasic, "addrs=[A_L1, A_L1 + HALF]", "addrs=A_L1",
     "SIM-L1-BANK-HALF", "a_l1 = pl.make_tile_group(", 128, 128, 128, 0, false},
    {"store of an Acc no matmul wrote", kBasic, "pl.matmul(ac, al, br)", "pass", "SIM-ACC-UNWRITTEN",
     "pl.store_tile(out, ac, [i, j])", 128, 128, 128, 0, true},
    {"first K block through matmul_acc", kBias, "pl.matmul(ac, al, br, bt, phase=pl.AccPhase.Partial)",
     "pl.matmul_acc(ac, ac, al, br, phase=pl.AccPhase.Partial)", "SIM-ACC-UNWRITTEN",
     "pl.matmul_acc(ac, ac, al, br, phase=pl.AccPhase.Partial)\n                elif", 128, 128, 256, 1, true},
    {"Right tile of another dtype than its Mat source", kBasic,
     "type=pl.TileType(shape=[TILE_K, TILE_N], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Right)",
     "type=pl.TileType(shape=[TILE_K, TILE_N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right)",
     "SIM-OP-DTYPE", "pl.move(br, cur_b)", 128, 128, 128, 0, true},
    {"Left tile with a ZN layout", kBasic,
     "type=pl.TileType(shape=[TILE_M, TILE_K], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Left)",
     "type=pl.TileType(shape=[TILE_M, TILE_K], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Left, layout=pl.ZN)",
     "SIM-CUBE-LAYOUT", "layout=pl.ZN)", 128, 128, 128, 0, true},
    {"transposed operand loaded without order=[1, 0]", kTranspose,
     "pl.load(a_mat, a_t, [0, 0], order=[1, 0])", "pl.load(a_mat, a_t, [0, 0])", "SIM-CUBE-LAYOUT",
     "pl.load(a_mat, a_t, [0, 0])", 64, 64, 64, 0, true},
    {"move extract window past the wide L1 tile", kDynamic, "pl.move(al, aw, offset=[0, sub_off])",
     "pl.move(al, aw, offset=[0, sub_off + KL0])", "SIM-MOVE-RANGE", "pl.move(al, aw, offset=[0, sub_off + KL0])",
     256, 128, 128, 0, true},
    {"Acc tile shape not whole fractals", kTranspose, "shape=[TM, TN], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc",
     "shape=[TM, 40], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc", "SIM-CUBE-FRACTAL",
     "c = pl.make_tile(", 64, 40, 64, 0, false},
    {"misspelled Cube API", kBasic, "pl.matmul(ac, al, br)", "pl.matmull(ac, al, br)", "SIM-UNSUPPORTED",
     "pl.matmull(ac, al, br)", 128, 128, 128, 0, true},
    {"misspelled matmul keyword", kDynamic,
     "pl.matmul(acc.current(), al, br, phase=pl.AccPhase.Partial)", "pl.matmul(acc.current(), al, br, phas=pl.AccPhase.Partial)",
     "SIM-RUNTIME", "phas=pl.AccPhase.Partial", 256, 128, 128, 0, true},
    {"matmul with a missing operand", kBasic, "pl.matmul(ac, al, br)", "pl.matmul(ac, al)", "SIM-RUNTIME",
     "pl.matmul(ac, al)", 128, 128, 128, 0, true},
    {"K of lhs and rhs disagree", kTranspose, "pl.set_validshape(b_right, [k, n])",
     "pl.set_validshape(b_right, [k - 8, n])", "SIM-CUBE-SHAPE", "pl.matmul(c, a_left, b_right)", 64, 64, 64, 0,
     true},
};

}  // namespace

TEST_CASE("cube mutations: the unmutated kernels are clean") {
  for (const Kernel& k : {kBasic, kDynamic, kBias, kTranspose}) {
    CAPTURE(k.file);
    auto src = *ReadTextFile(simtest::DataPath(k.file));
    auto r = RunText(k, src, 256, 256, 256, 0);
    if (std::string(k.file) == kTranspose.file) r = RunText(k, src, 64, 64, 64, 0);
    if (std::string(k.file) == kBasic.file) r = RunText(k, src, 256, 256, 128, 0);
    INFO(r.hazards.ToText());
    CHECK(r.completed);
    CHECK(r.hazards.empty());
  }
}

TEST_CASE("cube mutations: each planted defect is reported with its code and line") {
  REQUIRE(std::size(kMutations) >= 15);
  for (const Mutation& m : kMutations) {
    CAPTURE(m.name, m.code);
    auto base = *ReadTextFile(simtest::DataPath(m.kernel.file));
    auto pos = base.find(m.from);
    REQUIRE(pos != std::string::npos);
    std::string src = base;
    src.replace(pos, std::string(m.from).size(), m.to);
    const int line = LineOf(src, m.at);
    auto r = RunText(m.kernel, src, m.M, m.N, m.K, m.block_dim);
    INFO(r.hazards.ToText());
    CHECK(HasAt(r.hazards, m.code, line));
    if (m.stops) CHECK_FALSE(r.completed);
    // Every finding carries a line and a catalogued code.
    for (const auto& d : r.hazards.items()) {
      CHECK(d.line > 0);
      CHECK(sim::FindHazard(d.code) != nullptr);
    }
  }
}
