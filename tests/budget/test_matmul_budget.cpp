// The Cube matmul budget (spec §9) over hand-built slot models of the official dynamic matmul
// layout and of examples/matmul's DESIGN §3, mutated layouts that break the tiling, capacity
// and fractal rules, and the SVG memory map's Cube lanes.
#include "opdev/budget/budget_check.h"
#include "opdev/budget/budget_file.h"
#include "opdev/budget/memory_map_svg.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace opdev;
using namespace opdev::budget;

namespace {

void AddGroup(SlotModel& m, const std::string& group, MemSpace space, std::uint64_t base,
              std::vector<std::int64_t> shape, DType dt, int slots, int first_mutex) {
  std::uint64_t bytes = DTypeSize(dt);
  for (auto d : shape) bytes *= static_cast<std::uint64_t>(d);
  for (int i = 0; i < slots; ++i) {
    Slot s;
    s.group = group;
    s.index = i;
    s.name = group + "[" + std::to_string(i) + "]";
    s.space = space;
    s.address = base + static_cast<std::uint64_t>(i) * bytes;
    s.bytes = bytes;
    s.mutex_ids = {first_mutex + i};
    s.shape = shape;
    s.dtype = dt;
    s.line = 20;
    m.slots.push_back(s);
  }
}

// The official sample's tiling: TM = TN = 256, TK1 = 128, TK0 = 64; L1 4-deep, L0 2-deep.
SlotModel Official(Target t = Target::kA5) {
  SlotModel m;
  m.target = t;
  m.file = "test_matmul_perf_asw_4k_dn_move_offset_dynamic.py";
  AddGroup(m, "a_l1_wide", MemSpace::kMat, 0x00000, {256, 128}, DType::kFloat16, 4, 0);
  AddGroup(m, "b_l1_wide", MemSpace::kMat, 0x40000, {128, 256}, DType::kFloat16, 4, 4);
  AddGroup(m, "a_left_db", MemSpace::kLeft, 0, {256, 64}, DType::kFloat16, 2, 8);
  AddGroup(m, "b_right_db", MemSpace::kRight, 0, {64, 256}, DType::kFloat16, 2, 10);
  AddGroup(m, "acc", MemSpace::kAcc, 0, {256, 256}, DType::kFloat32, 1, 12);
  return m;
}

}  // namespace

TEST_CASE("matmul budget: the official tiling fills L1, L0A, L0B and L0C exactly") {
  BudgetReport r = CheckBudget(Official());
  INFO(r.diagnostics.ToText());
  CHECK(r.ok());
  REQUIRE(r.matmul);
  const MatmulTiling& t = r.matmul->tiling;
  CHECK(t.tm == 256);
  CHECK(t.tk1 == 128);
  CHECK(t.tk0 == 64);
  CHECK(t.tn == 256);
  CHECK(t.a_group == "a_l1_wide");
  CHECK(t.b_group == "b_l1_wide");
  // L1 = 4·(256·128 + 128·256)·2 = 512 KiB; L0A = 2·256·64·2 = 64 KiB; L0B the same;
  // L0C = 256·256·4 = 256 KiB: every space exactly at A5 capacity.
  CHECK(r.matmul->formula.l1 == 524288u);
  CHECK(r.matmul->formula.l0a == 65536u);
  CHECK(r.matmul->formula.l0b == 65536u);
  CHECK(r.matmul->formula.l0c == 262144u);
  REQUIRE(r.spaces.size() == 4);
  for (const auto& u : r.spaces) CHECK(u.high_water == u.capacity);
  CHECK(BudgetReportToText(r).find("L1  = 4·256·128·2 + 4·128·256·2 = 524288 B") !=
        std::string::npos);
}

TEST_CASE("matmul budget: the A3 L0C cannot hold the 256x256 FP32 accumulator") {
  BudgetReport r = CheckBudget(Official(Target::kA3));
  CHECK(r.diagnostics.HasCode("BUDGET-MATMUL-CAPACITY"));
  CHECK(r.diagnostics.HasCode("BUDGET-CAPACITY"));
}

TEST_CASE("matmul budget: contradictory Cube tiles, small Acc and deeper L1 groups") {
  SECTION("Left's K width differs from Right's") {
    SlotModel m = Official();
    for (auto& s : m.slots)
      if (s.group == "b_right_db") s.shape = {32, 256};
    BudgetReport r = CheckBudget(m);
    CHECK(r.diagnostics.HasCode("BUDGET-MATMUL-SHAPES"));
  }
  SECTION("an Acc tile below one fractal") {
    SlotModel m;
    AddGroup(m, "a", MemSpace::kMat, 0, {16, 16}, DType::kFloat16, 1, 0);
    AddGroup(m, "b", MemSpace::kMat, 0x1000, {16, 16}, DType::kFloat16, 1, 1);
    AddGroup(m, "l", MemSpace::kLeft, 0, {16, 16}, DType::kFloat16, 1, 2);
    AddGroup(m, "r", MemSpace::kRight, 0, {16, 16}, DType::kFloat16, 1, 3);
    AddGroup(m, "c", MemSpace::kAcc, 0, {16, 16}, DType::kFloat16, 1, 4);
    BudgetReport r = CheckBudget(m);
    CHECK(r.diagnostics.HasCode("BUDGET-ACC-FRACTAL"));
  }
  SECTION("A and B with different L1 depths: formula per operand, a warning") {
    SlotModel m = Official();
    m.slots.erase(std::remove_if(m.slots.begin(), m.slots.end(),
                                 [](const Slot& s) { return s.group == "b_l1_wide" && s.index >= 2; }),
                  m.slots.end());
    BudgetReport r = CheckBudget(m);
    REQUIRE(r.matmul);
    CHECK(r.diagnostics.HasCode("BUDGET-MATMUL-DEPTH"));
    CHECK(r.matmul->formula.l1 == (4u * 256 * 128 + 2u * 128 * 256) * 2);
  }
  SECTION("a Vector-only model has no matmul tiling") {
    SlotModel m;
    AddGroup(m, "in_group", MemSpace::kVec, 0, {3, 8192}, DType::kFloat16, 2, 0);
    BudgetReport r = CheckBudget(m);
    CHECK_FALSE(r.matmul);
  }
}

TEST_CASE("matmul budget: examples/matmul's DESIGN §3 and its SVG with every Cube space") {
  auto fb = BudgetPath(std::string(OPDEV_SOURCE_DIR) + "/examples/matmul", Target::kA5);
  REQUIRE(fb.ok());
  INFO(fb->inputs.ToText());
  REQUIRE(fb->design);
  CHECK(fb->design->ok());
  REQUIRE(fb->design->matmul);
  CHECK(fb->design->matmul->formula.l1 == 196608u);
  CHECK(fb->design->matmul->formula.l0c == 131072u);
  std::string svg = RenderMemoryMapSvg(fb->primary());
  for (const char* lane : {"lane-Mat", "lane-Left", "lane-Right", "lane-Acc"}) {
    INFO(lane);
    CHECK(svg.find(lane) != std::string::npos);
  }
  CHECK(svg.find("lane-Vec") == std::string::npos);
}
