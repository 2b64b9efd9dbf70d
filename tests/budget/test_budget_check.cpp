// Budget checks over hand-built slot models: the softmax DESIGN §3 layout (4 x 48 KiB in UB,
// 192 KiB of 248 KiB) and mutated copies that break alignment, capacity, overlap and mutex rules.
#include "opdev/budget/budget_check.h"
#include "opdev/budget/memory_map_svg.h"

#include <catch2/catch.hpp>

using namespace opdev;
using namespace opdev::budget;

namespace {

Slot MakeSlot(std::string group, int idx, std::uint64_t addr, std::uint64_t bytes, int mutex,
              std::string expr) {
  Slot s;
  s.group = group;
  s.index = idx;
  s.name = group + "[" + std::to_string(idx) + "]";
  s.space = MemSpace::kVec;
  s.address = addr;
  s.bytes = bytes;
  s.mutex_ids = {mutex};
  s.shape = {3, 8192};
  s.dtype = DType::kFloat16;
  s.address_expr = std::move(expr);
  s.line = 10 + idx;
  return s;
}

// Softmax: SLOT_BYTES = 3*8192*2 = 49152; VA_IN0=0, VA_IN1=0xC000, VA_OUT0=0x18000, VA_OUT1=0x24000.
SlotModel Softmax() {
  SlotModel m;
  m.file = "test_softmax.py";
  m.slots = {MakeSlot("in_group", 0, 0x00000, 49152, 0, "VA_IN0"),
             MakeSlot("in_group", 1, 0x0C000, 49152, 1, "VA_IN1"),
             MakeSlot("out_group", 0, 0x18000, 49152, 2, "VA_OUT0"),
             MakeSlot("out_group", 1, 0x24000, 49152, 3, "VA_OUT1")};
  return m;
}

}  // namespace

TEST_CASE("softmax layout is clean: 192 KiB of 248 KiB UB") {
  BudgetReport r = CheckBudget(Softmax());
  CHECK(r.ok());
  CHECK(r.diagnostics.empty());
  REQUIRE(r.spaces.size() == 1);
  CHECK(r.spaces[0].space == MemSpace::kVec);
  CHECK(r.spaces[0].high_water == 196608u);  // 0x30000 = 192 KiB
  CHECK(r.spaces[0].capacity == 253952u);    // 248 KiB
  CHECK(r.spaces[0].slot_bytes == 196608u);
  CHECK(r.spaces[0].percent() == Approx(77.42).epsilon(0.001));
  CHECK(HexAddress(r.spaces[0].high_water) == "0x30000");
}

TEST_CASE("misaligned slot is reported with its address expression") {
  SlotModel m = Softmax();
  m.slots[1].address = 0x0C010;  // 49168 is not a multiple of 32
  m.slots[1].address_expr = "VA_IN1";
  BudgetReport r = CheckBudget(m);
  REQUIRE(r.diagnostics.HasCode("BUDGET-ALIGN"));
  const Diagnostic* d = r.diagnostics.Find("BUDGET-ALIGN");
  CHECK(d->line == 11);
  CHECK(d->evidence == "VA_IN1");
  // 0xC010 also overlaps in_group[0]? no: in_group[0] ends at 0xC000. It overlaps out_group[0]
  // start 0x18000? 0xC010+49152 = 0x18010 > 0x18000, so an overlap is reported as well.
  CHECK(r.diagnostics.HasCode("BUDGET-OVERLAP"));
}

TEST_CASE("capacity overflow on A5 and on A3") {
  SlotModel m = Softmax();
  m.slots.push_back(MakeSlot("tmp_group", 0, 0x30000, 65536, 4, "VA_TMP"));  // ends 0x40000
  BudgetReport r = CheckBudget(m);
  CHECK(r.diagnostics.HasCode("BUDGET-CAPACITY"));  // 262144 > 253952
  SlotModel a3 = Softmax();
  a3.target = Target::kA3;  // A3 UB = 192 KiB exactly: 0x30000 fits
  CHECK(CheckBudget(a3).ok());
  a3.slots[3].bytes += 32;
  CHECK(CheckBudget(a3).diagnostics.HasCode("BUDGET-CAPACITY"));
}

TEST_CASE("overlap, undeclared alias and declared alias") {
  SlotModel m = Softmax();
  m.slots[2].address = 0x10000;  // out_group[0] now overlaps in_group[1] [0xC000,0x18000)
  BudgetReport r = CheckBudget(m);
  REQUIRE(r.diagnostics.HasCode("BUDGET-OVERLAP"));
  CHECK(r.diagnostics.Find("BUDGET-OVERLAP")->evidence == "overlap [0x10000, 0x18000)");

  SlotModel a = Softmax();
  Slot view = MakeSlot("row_view", 0, 0x18000, 49152, 9, "VA_OUT0");  // same expression
  view.mutex_ids.clear();
  a.slots.push_back(view);
  BudgetReport ra = CheckBudget(a);
  CHECK(ra.ok());
  REQUIRE(ra.aliases.size() == 1);
  CHECK(ra.aliases[0].a == "out_group[0]");
  CHECK(ra.aliases[0].b == "row_view[0]");
  CHECK(ra.spaces[0].slot_bytes == 196608u);  // alias counted once

  a.slots.back().address_expr = "0x18000";  // same address, different expression
  CHECK(CheckBudget(a).diagnostics.HasCode("BUDGET-UNDECLARED-ALIAS"));
  a.slots.back().alias_of = "out_group[0]";
  CHECK(CheckBudget(a).ok());
}

TEST_CASE("mutex ids must be unique and within [0,31]") {
  SlotModel m = Softmax();
  m.slots[3].mutex_ids = {2};
  CHECK(CheckBudget(m).diagnostics.HasCode("BUDGET-MUTEX-DUP"));
  m.slots[3].mutex_ids = {32};
  CHECK(CheckBudget(m).diagnostics.HasCode("BUDGET-MUTEX-RANGE"));
  m.slots[3].mutex_ids = {31};
  CHECK(CheckBudget(m).ok());
}

TEST_CASE("SVG map has one lane, four labelled slots, high-water and capacity") {
  BudgetReport r = CheckBudget(Softmax());
  std::string svg = RenderMemoryMapSvg(r);
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("id=\"lane-Vec\"") != std::string::npos);
  CHECK(svg.find("id=\"lane-Mat\"") == std::string::npos);
  CHECK(svg.find(">in_group[0]<") != std::string::npos);
  CHECK(svg.find(">out_group[1]<") != std::string::npos);
  CHECK(svg.find("high-water 0x30000 (77.4%)") != std::string::npos);
  CHECK(svg.find("capacity 0x3E000 (253952 B)") != std::string::npos);
  CHECK(svg == RenderMemoryMapSvg(CheckBudget(Softmax())));  // deterministic
  // JSON carries the same numbers.
  auto j = BudgetReportToJson(r);
  CHECK(j["spaces"].as_array()[0].as_object().at("high_water").as_uint64() == 196608u);
}
