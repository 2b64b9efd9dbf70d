// The DESIGN.md model on the real published softmax DESIGN.md: every value the later stages
// read is asserted against the document (values and lines checked by hand).
#include <catch2/catch.hpp>

#include "opdev/contract/design_doc.h"

#include <string>

using namespace opdev;
using namespace opdev::contract;

namespace {
const std::string kFixture = std::string(OPDEV_SHARED_DIR) + "/fixtures/softmax/";

const DesignDoc& Softmax() {
  static DesignDoc doc = [] {
    Diagnostics d;
    auto v = LoadDesignDoc(kFixture + "DESIGN.md", &d);
    REQUIRE(v.ok());
    return std::move(*v);
  }();
  return doc;
}
}  // namespace

TEST_CASE("DESIGN.md: the eleven § sections with their lines") {
  const auto& d = Softmax();
  int numbered = 0;
  for (const auto& s : d.sections)
    if (s.index >= 0) ++numbered;
  CHECK(numbered == 11);
  REQUIRE(d.FindSection(0));
  CHECK(d.FindSection(0)->line == 18);
  CHECK(d.FindSection(0)->title == "§0 Module 划分（R0 输出）");
  CHECK(d.FindSection(3)->line == 231);
  CHECK(d.FindSection(8)->line == 373);
  CHECK(d.FindSection(10)->line == 441);
  CHECK(d.FindSection(10)->end_line == static_cast<int>(d.lines.size()));
  CHECK(d.FindSection(2)->end_line == 230);
  CHECK(d.HasSection10());
  // Unnumbered header sections.
  CHECK(d.sections[0].title == "算子名称");
  CHECK(d.sections[0].index == -1);
  const Subsection* w = d.FindSection(0)->FindSubsection("Wrapper 边界外操作");
  REQUIRE(w);
  CHECK(w->line == 31);
  CHECK(w->end_line == 34);
}

TEST_CASE("DESIGN.md: op_name, Wrapper boundary body, code blocks") {
  const auto& d = Softmax();
  int line = 0;
  CHECK(d.OpName(&line) == "softmax");
  CHECK(line == 3);
  auto body = d.SubsectionBody("Wrapper边界外操作");
  REQUIRE(body);
  CHECK(body->first == "空");
  CHECK(body->second == 33);
  const CodeBlock* c = d.ConstantsCode();
  REQUIRE(c);
  CHECK(c->line == 190);
  CHECK(c->info == "python");
  CHECK(c->section == "§2");
  REQUIRE(d.code_blocks.size() >= 5);
  CHECK(d.code_blocks[0].line == 54);
  CHECK(d.code_blocks[0].info.empty());
}

TEST_CASE("DESIGN.md: constants that overflow or are not integers have no value") {
  DesignDoc d = ParseDesignDoc(
      "## §2 Tile\n\n### 2.1 关键常量定义\n\n```python\nA = 4611686018427387904\nB = A * 4\n"
      "C = -A - A - A\nD = 7 // 2\nE = -7 // 2\nF = 2 ** 3\nG = 1.5\n```\n",
      "x.md");
  std::map<std::string, std::optional<std::int64_t>> v;
  for (const auto& c : d.Constants()) v[c.name] = c.value;
  CHECK(v.at("A") == 4611686018427387904LL);
  CHECK_FALSE(v.at("B"));   // overflow
  CHECK_FALSE(v.at("C"));   // overflow
  CHECK(v.at("D") == 3);
  CHECK(v.at("E") == -4);   // Python floor division
  CHECK_FALSE(v.at("F"));   // ** is not accepted
  CHECK_FALSE(v.at("G"));
}

TEST_CASE("DESIGN.md: §2.1 constants evaluate to the stated addresses") {
  auto cs = Softmax().Constants();
  std::map<std::string, std::int64_t> v;
  for (const auto& c : cs)
    if (c.value) v[c.name] = *c.value;
  CHECK(v["LANES"] == 128);
  CHECK(v["MAX_N"] == 8192);
  CHECK(v["TILE_ROWS"] == 3);
  CHECK(v["SLOT_BYTES"] == 49152);
  CHECK(v["VA_IN0"] == 0x00000);
  CHECK(v["VA_IN1"] == 0x0C000);
  CHECK(v["VA_OUT0"] == 0x18000);
  CHECK(v["VA_OUT1"] == 0x24000);
  CHECK(v.count("NEG_INF") == 0);  // -1e30 is not an integer
  bool found = false;
  for (const auto& c : cs)
    if (c.name == "VA_OUT1") { CHECK(c.line == 201); found = true; }
  CHECK(found);
}

TEST_CASE("DESIGN.md: Module list and vector_selection") {
  const auto& d = Softmax();
  auto mods = d.Modules();
  REQUIRE(mods.size() == 1);
  CHECK(mods[0].name == "Module 1");
  CHECK(mods[0].index == 1);
  CHECK(mods[0].section == "section_vector");
  CHECK(mods[0].line == 43);
  auto vs = d.VectorSelections();
  REQUIRE(vs.size() == 4);
  CHECK(vs[0].step == "pass1 行 max");
  CHECK(vs[0].implementation == "vf");
  CHECK(vs[0].decision_reason == "default_vf");
  CHECK(vs[0].kb_template_evidence == "n/a");
  CHECK(vs[0].target_version == "950/A5");
  CHECK(vs[0].line == 167);
  CHECK(vs[2].step == "pass3 div+store");
  CHECK(vs[3].step == "数据搬运");
  CHECK(vs[3].implementation == "vf(VF内)+pl(kernel内)");
  CHECK(vs[3].line == 170);
}

TEST_CASE("DESIGN.md: Tile attribute and TileGroup tables") {
  const auto& d = Softmax();
  auto tiles = d.Tiles();
  REQUIRE(tiles.size() == 2);
  CHECK(tiles[0].var == "in_slot (in_group)");
  CHECK(tiles[0].group == "in_group");
  CHECK(tiles[0].shape == std::vector<std::int64_t>{3, 8192});
  CHECK(tiles[0].dtype == DType::kFloat16);
  CHECK(tiles[0].space == MemSpace::kVec);
  CHECK(tiles[0].size_bytes == 49152);
  CHECK(tiles[0].line == 211);
  CHECK(tiles[1].group == "out_group");
  auto groups = d.TileGroups();
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].name == "in_group");
  CHECK(groups[0].depth == 2);
  CHECK(groups[0].mutex_ids == std::vector<std::int64_t>{0, 1});
  CHECK(groups[1].mutex_ids == std::vector<std::int64_t>{2, 3});
  CHECK(groups[0].access == "next()");
  CHECK(groups[1].line == 221);
}

TEST_CASE("DESIGN.md: §3 address map and high-water") {
  const auto& d = Softmax();
  auto map = d.AddressMap(MemSpace::kVec);
  REQUIRE(map.size() == 4);
  const std::int64_t starts[] = {0x00000, 0x0C000, 0x18000, 0x24000};
  for (size_t i = 0; i < 4; ++i) {
    CHECK(map[i].start == starts[i]);
    CHECK(map[i].slot_bytes == 49152);
    CHECK(map[i].slots == 1);
    CHECK(map[i].end == starts[i] + 49152);
    CHECK(map[i].shape == std::vector<std::int64_t>{3, 8192});
    CHECK(map[i].dtype == DType::kFloat16);
    CHECK(map[i].lifetime == "轮转");
    CHECK(map[i].line == 239 + static_cast<int>(i));
  }
  CHECK(map[0].group == "in_group");
  CHECK(map[3].group == "out_group");
  CHECK(d.AddressMap(MemSpace::kMat).empty());
  auto hw = d.HighWaters();
  REQUIRE(hw.size() == 1);
  CHECK(hw[0].space == MemSpace::kVec);
  CHECK(hw[0].bytes == 196608);
  CHECK(hw[0].capacity == 253952);
  CHECK(hw[0].line == 247);
}

TEST_CASE("DESIGN.md: §5 core split, §6 event ids, §8 cases") {
  const auto& d = Softmax();
  CoreSplit cs = d.GetCoreSplit();
  CHECK(cs.uses_vector_core_num);
  CHECK_FALSE(cs.uses_core_num);
  CHECK(cs.launch_count == 1);
  CHECK(cs.scheme_line == 302);
  CHECK(cs.block_dim_line == 303);
  CHECK(cs.launch_line == 304);
  CHECK(d.EventIds().empty());  // §6: 不涉及 cross_core
  auto cases = d.TestCases();
  REQUIRE(cases.size() == 8);
  CHECK(cases[0].name == "test_softmax_aligned");
  CHECK(cases[0].shape == std::vector<std::int64_t>{3, 128});
  CHECK(cases[0].line == 379);
  CHECK(cases[4].name == "test_softmax_multitile");
  CHECK(cases[4].shape == std::vector<std::int64_t>{7, 200});
  CHECK(cases[7].name == "test_softmax_p0_batch32_n4096");
  CHECK(cases[7].shape == std::vector<std::int64_t>{32, 4096});
  CHECK(cases[7].line == 386);
  CHECK(cases[1].scene.rfind("单轴（行）尾块", 0) == 0);
}

TEST_CASE("literal helpers") {
  CHECK(ParseIntLiteral("`0x0C000`") == 49152);
  CHECK(ParseIntLiteral("49152") == 49152);
  CHECK_FALSE(ParseIntLiteral("48KB"));
  CHECK_FALSE(ParseIntLiteral("—"));
  CHECK(ParseShapeList("`[3, 8192]`") == std::vector<std::int64_t>{3, 8192});
  CHECK(ParseShapeList("`[B, N]`").empty());
  CHECK(AllIntegers("[[0],[1]]") == std::vector<std::int64_t>{0, 1});
  CHECK_FALSE(ParseIntLiteral("99999999999999999999"));
  CHECK_FALSE(ParseIntLiteral("0xFFFFFFFFFFFFFFFFFF"));
  CHECK(ParseShapeList("[99999999999999999999, 2]").empty());
}
