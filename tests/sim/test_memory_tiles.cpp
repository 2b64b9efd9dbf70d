// Unit tests of the memory model, tile addressing and placement checks, GM transfers and the
// tile vector operations, with hand-computed expectations.
#include "opdev/sim/data_movement.h"
#include "opdev/sim/hazards.h"
#include "opdev/sim/tile_ops.h"
#include "sim_test_util.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace opdev;
using namespace opdev::sim;

namespace {

using simtest::MakeTile;

bool HasCode(const std::vector<Issue>& v, std::string_view code) {
  for (const auto& i : v)
    if (i.code == code) return true;
  return false;
}

std::shared_ptr<GmTensor> Iota(DType dt, std::vector<int64_t> shape) {
  auto g = GmTensor::Make("x", dt, shape);
  for (int64_t i = 0; i < g->numel(); ++i) g->SetFromDouble(i, static_cast<double>(i));
  return g;
}

}  // namespace

TEST_CASE("core memory has the target's capacities and starts poisoned and unwritten") {
  CoreMemory a5(Target::kA5), a3(Target::kA3);
  CHECK(a5.Get(MemSpace::kVec).capacity == 253952);
  CHECK(a5.Get(MemSpace::kAcc).capacity == 262144);
  CHECK(a3.Get(MemSpace::kVec).capacity == 196608);
  CHECK(a5.Get(MemSpace::kLeft).alignment == 512);
  CHECK(a5.Get(MemSpace::kVec).bytes[100] == kPoisonByte);
  CHECK_FALSE(a5.Get(MemSpace::kVec).AllWritten(0, 4));
}

TEST_CASE("element offsets follow ND, DN and NZ layouts") {
  Tile nd = MakeTile(4, 16, DType::kFloat32, 0);
  CHECK(nd.ElementOffset(1, 2) == (1 * 16 + 2) * 4);
  Tile dn = MakeTile(8, 1, DType::kFloat32, 0, Layout::kDN);
  CHECK(dn.ElementOffset(5, 0) == 5 * 4);
  // NZ fp16 [32, 32]: column blocks of 16 elements (32 bytes), each 32 rows x 16.
  Tile nz = MakeTile(32, 32, DType::kFloat16, 0, Layout::kNZ, MemSpace::kMat);
  CHECK(nz.ElementOffset(0, 16) == 32 * 16 * 2);
  CHECK(nz.ElementOffset(3, 17) == (32 * 16 + 3 * 16 + 1) * 2);
}

TEST_CASE("a Vec NZ tile of 16k + 1 rows steps its column blocks by its own row count") {
  // The fa/ samples' NZ+1 P halves: Vec NZ fp16 [65, 64] (valid [64, 64]); UB has no fractal
  // grid, so column block 1 starts 65 rows (not 80) after column block 0.
  Tile nz = MakeTile(65, 64, DType::kFloat16, 0, Layout::kNZ, MemSpace::kVec);
  CHECK(nz.ElementOffset(0, 16) == 65 * 16 * 2);
  CHECK(nz.ElementOffset(64, 63) == (3 * 65 * 16 + 64 * 16 + 15) * 2);
  CHECK_FALSE(HasCode(CheckPlacement(nz, Target::kA5), hazard::kCubeFractal));
  // The same shape in L1 (Mat) is not whole fractals; its columns must be whole blocks in UB too.
  Tile mat = MakeTile(65, 64, DType::kFloat16, 0, Layout::kNZ, MemSpace::kMat);
  CHECK(HasCode(CheckPlacement(mat, Target::kA5), hazard::kCubeFractal));
  Tile cols = MakeTile(64, 24, DType::kFloat16, 0, Layout::kNZ, MemSpace::kVec);
  CHECK(HasCode(CheckPlacement(cols, Target::kA5), hazard::kCubeFractal));
  // Whole-fractal Vec NZ tiles keep the Cube addressing.
  Tile whole = MakeTile(32, 32, DType::kFloat16, 0, Layout::kNZ, MemSpace::kVec);
  CHECK(whole.ElementOffset(3, 17) == (32 * 16 + 3 * 16 + 1) * 2);
}

TEST_CASE("placement checks: alignment, capacity, 32-byte rows, partial overlap") {
  Tile ok = MakeTile(16, 512, DType::kFloat32, 0);
  CHECK(CheckPlacement(ok, Target::kA5).empty());
  Tile mis = MakeTile(16, 512, DType::kFloat32, 16);
  CHECK(HasCode(CheckPlacement(mis, Target::kA5), hazard::kTileAlign));
  Tile big = MakeTile(16, 512, DType::kFloat32, 253952 - 1024);
  CHECK(HasCode(CheckPlacement(big, Target::kA5), hazard::kTileCapacity));
  Tile row = MakeTile(2, 5, DType::kFloat32, 0);  // 20-byte rows
  CHECK(HasCode(CheckPlacement(row, Target::kA5), hazard::kTileShapeAlign));
  Tile left = MakeTile(16, 16, DType::kFloat16, 256, std::nullopt, MemSpace::kLeft);
  CHECK(HasCode(CheckPlacement(left, Target::kA5), hazard::kTileAlign));  // needs 512
  Tile a = MakeTile(16, 512, DType::kFloat32, 0), b = MakeTile(16, 512, DType::kFloat32, 16384);
  CHECK(PartiallyOverlap(a, b));
  Tile alias = MakeTile(1, 8, DType::kFloat32, 0);
  CHECK_FALSE(PartiallyOverlap(a, alias));  // same address: a second view
  Tile far = MakeTile(16, 512, DType::kFloat32, 32768);
  CHECK_FALSE(PartiallyOverlap(a, far));
}

TEST_CASE("tile groups rotate next/current/previous") {
  TileGroup g;
  for (int i = 0; i < 3; ++i) g.slots.push_back(std::make_shared<Tile>(MakeTile(1, 8, DType::kFloat32, 32 * i)));
  // The cursor starts at the last slot (the frontend's cursor struct): current() is slot 2 and
  // previous() slot 1 before the first next(), which selects slot 0.
  CHECK(g.Current()->addr == 64);
  CHECK(g.Previous()->addr == 32);
  CHECK(g.Next()->addr == 0);
  CHECK(g.Next()->addr == 32);
  CHECK(g.Previous()->addr == 0);
  CHECK(g.Next()->addr == 64);
  CHECK(g.Next()->addr == 0);  // wraps
  CHECK(g.Current()->addr == 0);
  CHECK(g.Previous()->addr == 64);
}

TEST_CASE("a one-slot group's current() and previous() are its only tile") {
  TileGroup g;
  g.slots.push_back(std::make_shared<Tile>(MakeTile(1, 8, DType::kFloat32, 96)));
  CHECK(g.Current()->addr == 96);
  CHECK(g.Previous()->addr == 96);
  CHECK(g.Next()->addr == 96);
  TileGroup empty;
  CHECK(empty.Current() == nullptr);
  CHECK(empty.Previous() == nullptr);
}

TEST_CASE("pl.load copies the valid window with tensor strides and reports out-of-range reads") {
  CoreMemory mem(Target::kA5);
  auto x = Iota(DType::kFloat32, {5, 10});
  Tile t = MakeTile(4, 16, DType::kFloat32, 0);
  t.valid_rows = 2;
  t.valid_cols = 3;
  auto issues = LoadTile(mem, t, *x, {3, 7});
  CHECK(issues.empty());
  auto& buf = mem.Get(MemSpace::kVec);
  auto at = [&](int r, int c) { return LoadScalar(DType::kFloat32, buf.bytes.data() + t.ElementOffset(r, c)); };
  CHECK(at(0, 0) == 37);
  CHECK(at(1, 2) == 49);
  CHECK(buf.AllWritten(t.ElementOffset(1, 0), 12));
  CHECK_FALSE(buf.AllWritten(t.ElementOffset(0, 3), 4));  // outside the window
  t.valid_rows = 3;  // rows 3..5: row 5 does not exist
  issues = LoadTile(mem, t, *x, {3, 7});
  REQUIRE(HasCode(issues, hazard::kGmOutOfRange));
  CHECK(issues[0].message.find("3 element(s)") != std::string::npos);
  // Transposed: tile (r, c) <- x[off0 + c, off1 + r].
  Tile tt = MakeTile(2, 8, DType::kFloat32, 1024);
  tt.valid_cols = 3;
  CHECK(LoadTile(mem, tt, *x, {1, 4}, true).empty());
  CHECK(LoadScalar(DType::kFloat32, buf.bytes.data() + 1024 + tt.ElementOffset(1, 2)) == (1 + 2) * 10 + (4 + 1));
}

TEST_CASE("pl.store copies the valid window, tracks writers, flags holes, races and unwritten bytes") {
  CoreMemory mem(Target::kA5);
  auto x = Iota(DType::kFloat16, {2, 8});
  Tile t = MakeTile(2, 16, DType::kFloat16, 0);
  t.valid_cols = 8;
  REQUIRE(LoadTile(mem, t, *x, {0, 0}).empty());
  auto y = GmTensor::Make("y", DType::kFloat16, {2, 8});
  CHECK(StoreTile(*y, mem, t, {0, 0}, 0).empty());
  CHECK(y->GetAsDouble(15) == 15);
  CHECK(y->writer[3] == 0);
  TouchedRuns touched, changed;
  auto again = StoreTile(*y, mem, t, {0, 0}, 1, nullptr, &touched, &changed);  // core 1, the same bytes: redundant
  CHECK(HasCode(again, hazard::kOutputMultiWriterSame));
  CHECK_FALSE(HasCode(again, hazard::kOutputMultiWriter));
  CHECK(touched == TouchedRuns{{0, 16}});  // two contiguous GM rows: one run
  CHECK(changed.empty());  // no byte changed: not a race whichever core lands last
  auto x2 = Iota(DType::kFloat16, {2, 8});
  x2->SetFromDouble(5, -1.0);
  Tile t2 = MakeTile(2, 16, DType::kFloat16, 8192);
  t2.valid_cols = 8;
  REQUIRE(LoadTile(mem, t2, *x2, {0, 0}).empty());
  touched.clear();
  auto race = StoreTile(*y, mem, t2, {0, 0}, 2, nullptr, &touched, &changed);  // core 2: one element differs
  CHECK(changed == TouchedRuns{{5, 1}});
  CHECK(HasCode(race, hazard::kOutputMultiWriter));
  CHECK(HasCode(race, hazard::kOutputMultiWriterSame));
  CHECK(y->GetAsDouble(5) == -1.0);
  CHECK(y->writer[5] == 0);  // the first writer stays recorded
  Tile u = MakeTile(2, 16, DType::kFloat16, 4096);
  u.valid_cols = 8;
  CHECK(HasCode(StoreTile(*y, mem, u, {0, 0}, 0), hazard::kUninitRead));
  CHECK(HasCode(StoreTile(*y, mem, t, {1, 0}, 0), hazard::kGmOutOfRange));
}

TEST_CASE("tile ops compute over the destination's valid window") {
  CoreMemory mem(Target::kA5);
  auto x = Iota(DType::kFloat32, {2, 8});
  Tile a = MakeTile(2, 8, DType::kFloat32, 0), b = MakeTile(2, 8, DType::kFloat32, 64), o = MakeTile(2, 8, DType::kFloat32, 128);
  REQUIRE(LoadTile(mem, a, *x, {0, 0}).empty());
  REQUIRE(LoadTile(mem, b, *x, {0, 0}).empty());
  auto& buf = mem.Get(MemSpace::kVec);
  auto at = [&](const Tile& t, int r, int c) { return LoadScalar(t.type.dtype, buf.bytes.data() + t.addr + t.ElementOffset(r, c)); };
  CHECK(tileop::Binary(mem, tileop::Bin::kMul, o, a, b).empty());
  CHECK(at(o, 1, 7) == 225);
  CHECK(tileop::BinaryScalar(mem, tileop::Bin::kSub, o, a, 1.0, true).empty());  // 1 - a
  CHECK(at(o, 0, 3) == -2);
  CHECK(tileop::Unary(mem, tileop::Un::kExp, o, a).empty());
  CHECK(at(o, 0, 1) == Approx(std::exp(1.0)).epsilon(1e-7));
  // Row reductions into a [2,1] DN tile; expand_sub broadcasts it back.
  Tile r = MakeTile(2, 1, DType::kFloat32, 256, Layout::kDN);
  r.size = 32;
  CHECK(tileop::Reduce(mem, tileop::Red::kSum, r, a, 0).empty());
  CHECK(at(r, 0, 0) == 28);   // 0+...+7
  CHECK(at(r, 1, 0) == 92);   // 8+...+15
  CHECK(tileop::Reduce(mem, tileop::Red::kMax, r, a, 0).empty());
  CHECK(at(r, 1, 0) == 15);
  CHECK(tileop::Expand(mem, tileop::Bin::kSub, o, a, r, 0).empty());
  CHECK(at(o, 0, 0) == -7);
  CHECK(at(o, 1, 7) == 0);
  // A one-column Vec tile declared ND is DN (the backend declares every [N, 1] tile
  // ColMajor); a row reduction into a wider tile is refused.
  Tile nd_col = MakeTile(2, 1, DType::kFloat32, 512, Layout::kND);
  CHECK(nd_col.type.EffectiveLayout() == Layout::kDN);
  CHECK(tileop::Reduce(mem, tileop::Red::kSum, nd_col, a, 0).empty());
  CHECK(at(nd_col, 1, 0) == 92);
  Tile wide = MakeTile(2, 8, DType::kFloat32, 512);
  CHECK(HasCode(tileop::Reduce(mem, tileop::Red::kSum, wide, a, 0), hazard::kTileShapeAlign));
  // Column reduction into [1, 8].
  Tile c = MakeTile(1, 8, DType::kFloat32, 1024);
  CHECK(tileop::Reduce(mem, tileop::Red::kSum, c, a, 1).empty());
  CHECK(at(c, 0, 3) == 3 + 11);
  // Narrow window: only the first 3 columns are computed.
  o.valid_cols = 3;
  CHECK(tileop::Expands(mem, o, 9.0).empty());
  CHECK(at(o, 0, 2) == 9);
  CHECK(at(o, 0, 3) != 9);
  // Computing on never-written elements is a warning, and the results stay never written (an
  // error only where they reach GM: pl.store).
  Tile fresh = MakeTile(2, 8, DType::kFloat32, 2048);
  const auto issues = tileop::Unary(mem, tileop::Un::kAbs, o, fresh);
  CHECK(HasCode(issues, hazard::kUninitUse));
  CHECK_FALSE(HasCode(issues, hazard::kUninitRead));
  CHECK(mem.Get(o.type.space).written[o.addr] == 0);
}

TEST_CASE("cast rounds to nearest even and fillpad fills outside the valid window") {
  CoreMemory mem(Target::kA5);
  auto x = GmTensor::Make("x", DType::kFloat32, {1, 16});
  x->SetFromDouble(0, 2049.0);   // fp16 tie -> 2048
  x->SetFromDouble(1, 2051.0);   // fp16 tie -> 2052
  for (int i = 2; i < 16; ++i) x->SetFromDouble(i, 0.5);
  Tile f = MakeTile(1, 16, DType::kFloat32, 0), h = MakeTile(1, 16, DType::kFloat16, 64);
  REQUIRE(LoadTile(mem, f, *x, {0, 0}).empty());
  CHECK(tileop::Cast(mem, h, f).empty());
  auto& buf = mem.Get(MemSpace::kVec);
  CHECK(LoadScalar(DType::kFloat16, buf.bytes.data() + 64) == 2048);
  CHECK(LoadScalar(DType::kFloat16, buf.bytes.data() + 66) == 2052);
  Tile p = MakeTile(1, 16, DType::kFloat32, 128);
  p.type.pad = Pad::kMin;
  f.valid_cols = 4;
  CHECK(tileop::FillPad(mem, p, f, tileop::FillPadMode::kNormal).empty());
  CHECK(LoadScalar(DType::kFloat32, buf.bytes.data() + 128 + 4 * 3) == 0.5);
  CHECK(std::isinf(LoadScalar(DType::kFloat32, buf.bytes.data() + 128 + 4 * 4)));
  CHECK(p.valid_cols == 16);
  Tile nopad = MakeTile(1, 16, DType::kFloat32, 256);
  CHECK(HasCode(tileop::FillPad(mem, nopad, f, tileop::FillPadMode::kNormal), hazard::kRuntimeError));
}

TEST_CASE("hazard sink merges repeats per line and keeps the catalogue's categories") {
  HazardSink sink("k.py");
  sink.Report(hazard::kGmOutOfRange, 12, "first");
  sink.Report(hazard::kGmOutOfRange, 12, "second");
  sink.Report(hazard::kMaskDtype, 3, "mask");
  Diagnostics d = sink.Finish();
  REQUIRE(d.size() == 2);
  CHECK(d.items()[0].line == 3);
  CHECK(d.items()[0].severity == Severity::kWarning);
  CHECK(d.items()[1].message == "first");
  CHECK(d.items()[1].evidence == "(2 occurrences)");
  CHECK(d.items()[1].category == "runtime_failure");
  CHECK(d.items()[1].file == "k.py");
  for (const auto& h : HazardCatalogue()) CHECK(FindHazard(h.code) == &h);
}
