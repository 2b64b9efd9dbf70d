// Slot extraction from kernel source (explicit address lists, scalar base addresses,
// make_tile, unresolved declarations) and the DESIGN §3 map of the real softmax op dir.
#include "opdev/budget/budget_file.h"
#include "opdev/budget/const_eval.h"
#include "opdev/budget/design_map.h"
#include "opdev/budget/kernel_budget.h"
#include "opdev/contract/design_doc.h"
#include "opdev/pyfront/parser.h"

#include <catch2/catch.hpp>

using namespace opdev;
using namespace opdev::budget;

namespace {

py::Module Parse(const std::string& src) {
  Diagnostics d;
  auto m = py::ParseModule(src, "k.py", &d);
  REQUIRE(m.ok());
  return std::move(*m);
}

}  // namespace

TEST_CASE("constant folding follows Python integer semantics") {
  py::Module m = Parse("A = 3\nB = A * 8192 * 2\nC = 0x0C000 + B\nD = -7 // 2\nE = -7 % 2\n"
                       "F = 1 << 4\nG = 2 ** 10\nH = 1.5\nI = A + H\n");
  ConstEnv env = FoldModuleConstants(m);
  CHECK(env.at("B") == 49152);
  CHECK(env.at("C") == 49152 + 49152);
  CHECK(env.at("D") == -4);
  CHECK(env.at("E") == 1);
  CHECK(env.at("F") == 16);
  CHECK(env.at("G") == 1024);
  CHECK(env.count("H") == 0);
  CHECK(env.count("I") == 0);
}

TEST_CASE("scalar addrs: slots follow contiguously by tile bytes / make_tile takes addr/size") {
  py::Module m = Parse(
      "ROWS = 16\nCOLS = 64\nBASE = 0x1000\n"
      "@pl.jit(auto_mutex=True)\n"
      "def k(x):\n"
      "    tt = pl.TileType(shape=[ROWS, COLS], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n"
      "    g = pl.make_tile_group(type=tt, addrs=BASE, mutex_ids=[[4], [5], [6]])\n"
      "    acc = pl.make_tile(pl.TileType([ROWS, COLS], pl.DT_FP32, pl.MemorySpace.Acc), addr=0, size=8192)\n");
  Diagnostics d;
  SlotModel s = SlotsFromKernel(m, "k.py", Target::kA5, &d);
  CHECK(d.empty());
  REQUIRE(s.slots.size() == 4);
  CHECK(s.slots[0].name == "g[0]");
  CHECK(s.slots[1].address == 0x1000u + 4096u);  // 16*64*4
  CHECK(s.slots[2].address == 0x1000u + 8192u);
  CHECK(s.slots[2].mutex_ids == std::vector<int>{6});
  CHECK(s.slots[2].line == 7);
  CHECK(s.slots[3].name == "acc");
  CHECK(s.slots[3].space == MemSpace::kAcc);
  CHECK(s.slots[3].bytes == 8192u);
  BudgetReport r = CheckBudget(s);
  CHECK(r.ok());
  CHECK(r.spaces.size() == 2);  // Vec and Acc lanes
}

TEST_CASE("unresolvable declarations are reported with their line") {
  py::Module m = Parse("def k(x):\n"
                       "    tt = pl.TileType(shape=[R, 64], dtype=pl.DT_FP16)\n"
                       "    g = pl.make_tile_group(type=tt, addrs=[0, 0x800], mutex_ids=[0, 1])\n"
                       "    h = pl.make_tile_group(type=other, addrs=[0x1000], mutex_ids=[2])\n");
  Diagnostics d;
  SlotModel s = SlotsFromKernel(m, "k.py", Target::kA5, &d);
  CHECK(s.slots.empty());
  REQUIRE(d.size() >= 2);
  CHECK(d.items()[0].code == "BUDGET-UNRESOLVED");
  CHECK(d.items()[0].line == 2);
  CHECK(d.HasCode("BUDGET-UNRESOLVED"));
}

TEST_CASE("DESIGN §3 of the real softmax op dir: 4 slots, 192 KiB of 248 KiB, clean") {
  const std::string dir = std::string(OPDEV_SHARED_DIR) + "/fixtures/softmax";
  Diagnostics d;
  auto design = contract::LoadDesignDoc(dir + "/DESIGN.md", &d);
  REQUIRE(design.ok());
  SlotModel m = SlotsFromDesignMap(*design, Target::kA5);
  REQUIRE(m.slots.size() == 4);
  CHECK(m.slots[1].name == "in_group[1]");
  CHECK(m.slots[1].address == 0x0C000u);
  CHECK(m.slots[3].mutex_ids == std::vector<int>{3});
  BudgetReport r = CheckBudget(m);
  CHECK(r.ok());
  CHECK(r.spaces[0].high_water == 196608u);

  auto fb = BudgetPath(dir, Target::kA5);  // no test_softmax.py there: the map alone
  REQUIRE(fb.ok());
  CHECK(fb->kernel_path.empty());
  REQUIRE(fb->design);
  CHECK(fb->ok());
  CHECK(fb->primary().spaces[0].high_water == 196608u);
  CHECK_FALSE(BudgetPath(dir + "/missing", Target::kA5).ok());
}
