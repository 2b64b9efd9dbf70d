// Case attributes and bisection on the published softmax §8 cases and on synthetic outcome
// patterns: the separating attribute set, its §8 symptom row and its sentence.
#include "opdev/contract/design_doc.h"
#include "opdev/triage/bisection.h"
#include "opdev/triage/case_attributes.h"
#include "opdev/triage/repro.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

using namespace opdev;
using namespace opdev::triage;

namespace {

ShapeFacts SoftmaxFacts() {
  auto d = contract::LoadDesignDoc(std::string(OPDEV_SOURCE_DIR) + "/examples/softmax/DESIGN.md", nullptr);
  REQUIRE(d.ok());
  ShapeFacts f = DeriveShapeFacts(*d, {"B", "N"}, "float16", 48);
  f.ranges["B"] = {1, 1024};
  f.ranges["N"] = {1, 8192};
  return f;
}

// The eight §8 cases of examples/softmax with outcomes from `fails` (names without test_softmax_).
std::vector<CaseFacts> Cases(const std::set<std::string>& fails) {
  const std::vector<std::pair<std::string, std::vector<std::int64_t>>> shapes = {
      {"aligned", {3, 128}},       {"row_tail", {4, 128}},          {"col_tail", {3, 200}},
      {"tail2d", {4, 200}},        {"multitile", {7, 200}},         {"p0_batch1_n128", {1, 128}},
      {"p0_batch4_n2048", {4, 2048}}, {"p0_batch32_n4096", {32, 4096}}};
  std::vector<CaseFacts> out;
  for (const auto& [n, s] : shapes) {
    CaseFacts f;
    f.name = "test_softmax_" + n;
    f.shape = s;
    f.dtype = "float16";
    f.outcome = fails.count(n) ? CaseOutcome::kFail : CaseOutcome::kPass;
    out.push_back(f);
  }
  return out;
}

}  // namespace

TEST_CASE("softmax DESIGN facts: tile rows, tile columns and register lanes come from DESIGN constants") {
  ShapeFacts f = SoftmaxFacts();
  CHECK(f.tile_rows == 3);
  CHECK(f.tile_rows_name == "TILE_ROWS");
  CHECK(f.tile_cols == 8192);
  CHECK(f.tile_cols_name == "MAX_N");
  CHECK(f.lanes == 128);
  CHECK(f.lanes_name == "LANES");
}

TEST_CASE("the column-tail cases of softmax are separated by N % 128 alone") {
  auto t = DeriveAttributes(Cases({"col_tail", "tail2d", "multitile"}), SoftmaxFacts());
  Separation s = Bisect(t);
  REQUIRE(s.kind == "separated");
  REQUIRE(s.literals.size() == 1);
  CHECK(s.literals[0].id == "col_tail");
  CHECK(s.literals[0].value);
  CHECK(s.symptom == Symptom::kTailsOnly);
  CHECK(s.sentence == "all 3 failing cases have N % 128 (LANES) ≠ 0; no passing case does");
  CHECK(s.alternatives.empty());
  CHECK(s.failing.size() == 3);
  CHECK(s.passing.size() == 5);
}

TEST_CASE("row tails, size classes, cores and two-attribute sets are found and mapped to §8 rows") {
  ShapeFacts f = SoftmaxFacts();
  SECTION("row tail") {
    Separation s = Bisect(DeriveAttributes(Cases({"row_tail", "tail2d", "multitile", "p0_batch4_n2048",
                                                  "p0_batch1_n128", "p0_batch32_n4096"}), f));
    REQUIRE(s.kind == "separated");
    CHECK(s.literals[0].id == "row_tail");
    CHECK(s.sentence == "all 6 failing cases have B % 3 (TILE_ROWS) ≠ 0; no passing case does");
    CHECK(s.symptom == Symptom::kTailsOnly);
  }
  SECTION("only the largest case") {
    Separation s = Bisect(DeriveAttributes(Cases({"p0_batch32_n4096"}), f));
    REQUIRE(s.kind == "separated");
    CHECK(s.symptom == Symptom::kLargeOnly);
    CHECK(s.sentence.find("the 1 failing case has") == 0);
  }
  SECTION("both tails at once need two attributes") {
    Separation s = Bisect(DeriveAttributes(Cases({"tail2d", "multitile"}), f));
    REQUIRE(s.kind == "separated");
    REQUIRE(s.literals.size() == 2);
    // Several pairs separate (multi-tile + column tail, row tail + column tail): all are listed.
    auto has = [&](const std::vector<AttributeLiteral>& v, const std::string& a, const std::string& b) {
      return v.size() == 2 && ((v[0].id == a && v[1].id == b) || (v[0].id == b && v[1].id == a));  // a set
    };
    bool tails = has(s.literals, "row_tail", "col_tail");
    for (const auto& alt : s.alternatives) tails |= has(alt, "row_tail", "col_tail");
    CHECK(tails);
    CHECK(s.sentence.find("no passing case has both") != std::string::npos);
  }
  SECTION("everything fails") {
    std::set<std::string> all = {"aligned", "row_tail", "col_tail", "tail2d", "multitile",
                                 "p0_batch1_n128", "p0_batch4_n2048", "p0_batch32_n4096"};
    Separation s = Bisect(DeriveAttributes(Cases(all), f));
    CHECK(s.kind == "all_fail");
    CHECK(s.symptom == Symptom::kEverywhere);
  }
  SECTION("nothing fails") {
    CHECK(Bisect(DeriveAttributes(Cases({}), f)).kind == "none");
  }
  SECTION("multi-core cases") {
    // block_dim > 1 exactly for the cases with more than one row tile.
    Separation s = Bisect(DeriveAttributes(Cases({"row_tail", "tail2d", "multitile", "p0_batch4_n2048",
                                                  "p0_batch32_n4096"}), f));
    REQUIRE(s.kind == "separated");
    bool cores_listed = s.literals[0].id == "multi_core";
    for (const auto& alt : s.alternatives) cores_listed |= alt.size() == 1 && alt[0].id == "multi_core";
    CHECK(cores_listed);
  }
}

TEST_CASE("shrink candidates stay inside the range and probe around every granularity") {
  auto c = ShrinkCandidates(200, 1, {128, 8192}, 16);
  CHECK(c.front() == 1);
  CHECK(std::find(c.begin(), c.end(), 129) != c.end());
  CHECK(std::find(c.begin(), c.end(), 127) != c.end());
  CHECK(std::is_sorted(c.begin(), c.end()));
  for (auto v : c) CHECK(v < 200);
  auto d = ShrinkCandidates(3, 2, {3}, 16);
  CHECK(d == std::vector<std::int64_t>{2});
}
