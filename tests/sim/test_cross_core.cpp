// Concurrent cores and cross-core events: a kernel whose AIV 0 writes a GM workspace and sets
// an INTER_SUBBLOCK event that AIV 1 waits for before copying the workspace to the output;
// the correct kernel is clean and exact under the fixed and seeded schedules, a wrong event id
// deadlocks (reported at the waiting line, the run ends), a missing wait is a GM race found
// whichever core runs first; two AIVs inserting the same bytes unordered are a warning, different
// bytes a race. The kernels' make_tile tiles carry the pipe syncs the docs require
// (Tile_vector_computation.md, "make_tile的手动同步"), as the pipe model is on.
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"
#include "opdev/sim/simulator.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
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
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.store(ws, t, [0, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=0)
            pl.load(t, x, [8, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.store(ws, t, [8, 0])
            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=1, sync_mode=pl.CrossCoreSyncMode.INTER_SUBBLOCK)
        else:
            pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=1, sync_mode=pl.CrossCoreSyncMode.INTER_SUBBLOCK)
            pl.load(t, ws, [0, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.store(out, t, [0, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=0)
            pl.load(t, ws, [8, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
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

namespace {

// Both AIVs insert rows of `a` at [0, 0] of the AIC's L1 tile `h_mat` with no edge between the
// two inserts; the AIC waits for both and multiplies h by b. Rows [0, 32) of `a` for both AIVs
// (the same bytes) or rows [sub * 32, sub * 32 + 32) (different bytes).
const char* kSameInsert = R"(import pypto_pro.language as pl

@pl.jit()
def k(a: pl.Tensor[[64, 64], pl.DT_FP32], b: pl.Tensor[[64, 64], pl.DT_FP32], out: pl.Tensor[[32, 64], pl.DT_FP32]):
    h_mat = pl.make_tile(pl.TileType(shape=[32, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat,
                                     layout=pl.NZ), addr=0x10000, size=8192)
    with pl.section_cube():
        b_mat = pl.make_tile(pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat,
                                         layout=pl.NZ), addr=0x0000, size=16384)
        left = pl.make_tile(pl.TileType(shape=[32, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left,
                                        layout=pl.NZ), addr=0x0000, size=8192)
        right = pl.make_tile(pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right,
                                         layout=pl.ZN), addr=0x0000, size=16384)
        acc = pl.make_tile(pl.TileType(shape=[32, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc,
                                       layout=pl.NZ, fractal=1024), addr=0x0000, size=8192)
        pl.load(b_mat, b, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.move(right, b_mat)
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE1, event_id=1)
        pl.move(left, h_mat)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.matmul(acc, left, right)
        pl.system.sync_src(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.store(out, acc, [0, 0])
    with pl.section_vector():
        sub = pl.get_subblock_idx()
        a_ub = pl.make_tile(pl.TileType(shape=[32, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                            addr=0x0000, size=8192)
        a_nz = pl.make_tile(pl.TileType(shape=[32, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                                        layout=pl.NZ), addr=0x2000, size=8192)
        pl.load(a_ub, a, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.move(a_nz, a_ub)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.insert(h_mat, a_nz, [0, 0])
        pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=1)
)";

// The largest |out - a[:rows] · b| over the run's output `out` ([rows, 64]; a [*, 64], b [64, 64]).
double WorstProductError(const sim::SimResult& r, const precision::Tensor& a, const precision::Tensor& b,
                         int64_t rows) {
  const precision::Tensor* out = nullptr;
  for (const auto& o : r.outputs)
    if (o.name == "out") out = &o.tensor;
  REQUIRE(out != nullptr);
  double worst = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < 64; ++j) {
      double s = 0;
      for (int64_t t = 0; t < 64; ++t) s += a.GetDouble(i * 64 + t) * b.GetDouble(t * 64 + j);
      worst = std::max(worst, std::abs(out->GetDouble(i * 64 + j) - s));
    }
  return worst;
}

sim::SimResult RunSameInsert(const std::string& src, uint64_t seed, precision::Tensor* a_out, precision::Tensor* b_out) {
  auto a = simtest::Random(DType::kFloat32, {64, 64}, -1, 1, 11);
  auto b = simtest::Random(DType::kFloat32, {64, 64}, -1, 1, 12);
  auto z = precision::Tensor::Zeros(DType::kFloat32, {32, 64});
  REQUIRE(z.ok());
  sim::SimOptions o;
  o.entry = "k";
  o.schedule_seed = seed;
  auto r = sim::RunKernelSource(src, "same_insert.py", {a, b, *z}, o);
  REQUIRE(r.ok());
  *a_out = a;
  *b_out = b;
  return *r;
}

}  // namespace

TEST_CASE("sim: cross-core: two AIVs inserting the same bytes unordered is a warning / different bytes a race") {
  const int line = LineOf(kSameInsert, "pl.insert(h_mat, a_nz, [0, 0])");
  for (uint64_t seed : {0ull, 1ull, 2ull, 3ull}) {
    INFO("seed " << seed);
    precision::Tensor a, b;
    auto r = RunSameInsert(kSameInsert, seed, &a, &b);
    INFO(r.hazards.CountsText());
    CHECK(r.completed);
    CHECK_FALSE(r.hazards.HasErrors());
    CHECK(HasAt(r.hazards, sim::hazard::kXcoreRaceSame, line));
    CHECK(WorstProductError(r, a, b, 32) < 1e-3);

    const std::string diff = Mutate(kSameInsert, "pl.load(a_ub, a, [0, 0])", "pl.load(a_ub, a, [sub * 32, 0])");
    auto d = RunSameInsert(diff, seed, &a, &b);
    CHECK(d.hazards.HasErrors());
    CHECK(HasAt(d.hazards, sim::hazard::kXcoreRace, line));
    CHECK_FALSE(HasAt(d.hazards, sim::hazard::kXcoreRaceSame, line));
  }
}

namespace {

// Each AIV inserts its 19 rows of `a` (an NZ block with valid rows 19) at row sub * 19 of the
// AIC's [48, 64] NZ Mat tile: a row offset off the 16-row fractal grid. TINSERT into NZ places
// `valid rows` rows at the row offset in every 32-byte column block it writes, so only the
// column needs a block boundary. The AIC multiplies rows 0..37 by b.
const char* kRowInsert = R"(import pypto_pro.language as pl

@pl.jit()
def k(a: pl.Tensor[[38, 64], pl.DT_FP32], b: pl.Tensor[[64, 64], pl.DT_FP32], out: pl.Tensor[[38, 64], pl.DT_FP32]):
    h_mat = pl.make_tile(pl.TileType(shape=[48, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat,
                                     layout=pl.NZ, valid_shape=[-1, -1]), addr=0x10000, size=12288)
    with pl.section_cube():
        b_mat = pl.make_tile(pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat,
                                         layout=pl.NZ), addr=0x0000, size=16384)
        left = pl.make_tile(pl.TileType(shape=[48, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left,
                                        layout=pl.NZ, valid_shape=[-1, -1]), addr=0x0000, size=12288)
        right = pl.make_tile(pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right,
                                         layout=pl.ZN), addr=0x0000, size=16384)
        acc = pl.make_tile(pl.TileType(shape=[48, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc,
                                       layout=pl.NZ, fractal=1024, valid_shape=[-1, -1]), addr=0x0000, size=12288)
        pl.load(b_mat, b, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.move(right, b_mat)
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE1, event_id=1)
        pl.set_validshape(h_mat, [38, 64])
        pl.set_validshape(left, [38, 64])
        pl.move(left, h_mat)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.set_validshape(acc, [38, 64])
        pl.matmul(acc, left, right)
        pl.system.sync_src(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.store(out, acc, [0, 0])
    with pl.section_vector():
        sub = pl.get_subblock_idx()
        a_ub = pl.make_tile(pl.TileType(shape=[32, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                                        valid_shape=[-1, -1]), addr=0x0000, size=8192)
        a_nz = pl.make_tile(pl.TileType(shape=[32, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                                        layout=pl.NZ, valid_shape=[-1, -1]), addr=0x2000, size=8192)
        pl.set_validshape(a_ub, [19, 64])
        pl.load(a_ub, a, [sub * 19, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.set_validshape(a_nz, [19, 64])
        pl.move(a_nz, a_ub)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.insert(h_mat, a_nz, [sub * 19, 0])
        pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=1)
)";

// The operands of a kRowInsert run: a [38, 64] and b [64, 64] random, out zeros.
struct RowInsertCase {
  precision::Tensor a, b, out;
  sim::SimOptions o;
};
RowInsertCase MakeRowInsertCase(unsigned seed) {
  auto z = precision::Tensor::Zeros(DType::kFloat32, {38, 64});
  REQUIRE(z.ok());
  RowInsertCase c{simtest::Random(DType::kFloat32, {38, 64}, -1, 1, seed),
                  simtest::Random(DType::kFloat32, {64, 64}, -1, 1, seed + 1), *z, {}};
  c.o.entry = "k";
  return c;
}

// Runs `src` (a kRowInsert variant): it must end clean with out = a b.
void CheckRowInsertProduct(const std::string& src, const std::string& file, const RowInsertCase& c) {
  auto r = sim::RunKernelSource(src, file, {c.a, c.b, c.out}, c.o);
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  CHECK(r->completed);
  CHECK_FALSE(r->hazards.HasErrors());
  CHECK(WorstProductError(*r, c.a, c.b, 38) < 1e-3);
}

}  // namespace

// pto-isa lays an L1 (Mat) tile out by its static shape whatever its compact mode (TLOAD's and
// TINSERT's block stride is the tile's Rows, TMOV to L0 reads the source at its static stride);
// only L0 destinations pack by their valid window. So the AIVs' inserts (the full default window)
// and the AIC's move (its window set to the 38 valid rows) address the same bytes.
TEST_CASE("sim: cross-core: a compact=1 Mat tile keeps its static layout whatever window each core sets") {
  std::string src = kRowInsert;
  for (int i = 0; i < 3; ++i) {
    src = simtest::MutateNth(src, "shape=[48, 64]", "shape=[64, 64]", 0);
    src = simtest::MutateNth(src, "size=12288", "size=16384", 0);
  }
  src = Mutate(src, "valid_shape=[-1, -1]), addr=0x10000", "valid_shape=[-1, -1], compact=1), addr=0x10000");
  CheckRowInsertProduct(src, "compact_mat_insert.py", MakeRowInsertCase(23));
}

TEST_CASE("sim: cross-core: an NZ insert takes any row offset and needs a 32-byte column block") {
  const RowInsertCase c = MakeRowInsertCase(21);
  CheckRowInsertProduct(kRowInsert, "row_insert.py", c);

  // Column 4 of an fp32 NZ tile is inside a 32-byte (8-column) block.
  const std::string off_col = Mutate(kRowInsert, "pl.insert(h_mat, a_nz, [sub * 19, 0])",
                                     "pl.insert(h_mat, a_nz, [sub * 19, 4])");
  auto bad = sim::RunKernelSource(off_col, "row_insert.py", {c.a, c.b, c.out}, c.o);
  REQUIRE(bad.ok());
  CHECK(HasAt(bad->hazards, sim::hazard::kMoveRange, LineOf(off_col, "pl.insert(h_mat, a_nz, [sub * 19, 4])")));
  CHECK(bad->hazards.ToText().find("32-byte") != std::string::npos);
}
