// Tests of the read-only guard: every kind of change to a read-only file is reported with
// the right code and category; the round's own product is never reported.
#include <catch2/catch.hpp>

#include "opdev/plan/read_only_guard.h"
#include "opdev/plan/round_plan.h"
#include "plan_test_util.h"

#include <boost/json.hpp>

using namespace opdev::plan;
using namespace plan_test;

TEST_CASE("guard reports changed contracts, goldens and history files, not the product") {
  auto ws = FreshWorkspace("guard");
  auto op = FusedOpDir(ws, 1);
  Dispatch d;
  d.module_k = 2;
  opdev::Diagnostics diags;
  auto plan = PlanRound(op.string(), d, &diags);
  REQUIRE(plan.ok());
  auto snap = TakeReadOnlySnapshot(*plan);
  REQUIRE(snap.ok());
  CHECK(snap->files.size() == plan->read_only.size());
  CHECK(CheckReadOnlySnapshot(*snap).empty());

  // The round writes its product: fine.
  Write(op / "modules/test_fused_module12.py", "# new module 2\n");
  CHECK(CheckReadOnlySnapshot(*snap).empty());

  // The snapshot survives JSON.
  auto again = ReadOnlySnapshot::FromJson(boost::json::parse(boost::json::serialize(snap->ToJson())));
  REQUIRE(again.ok());
  CHECK(again->files.size() == snap->files.size());

  Write(op / "DESIGN.md", "# fused design, silently changed\n");
  Write(op / "modules/test_fused_module1.py", "# history edited\n");
  Write(op / "modules/fused_golden_stage12.py", "# golden edited\n");
  Write(op / "modules/test_fused_module123.py", "# created early\n");
  fs::remove(op / "fused_golden.py");
  auto found = CheckReadOnlySnapshot(*again);
  INFO(found.ToText());
  auto has = [&](const char* c, const std::string& file_part, const std::string& cat) {
    for (const auto& x : found.items())
      if (x.code == c && x.file.find(file_part) != std::string::npos && x.category == cat)
        return true;
    return false;
  };
  CHECK(has(code::kRoContractChanged, "DESIGN.md", "design_violation"));
  CHECK(has(code::kRoHistoryChanged, "test_fused_module1.py", "implementation_error"));
  CHECK(has(code::kRoGoldenChanged, "fused_golden_stage12.py", "design_violation"));
  CHECK(has(code::kRoHistoryCreated, "test_fused_module123.py", "implementation_error"));
  CHECK(has(code::kRoGoldenChanged, "fused_golden.py", "design_violation"));
  CHECK(found.size() == 5);
  CHECK(found.Find(code::kRoContractChanged)->evidence.find("->") != std::string::npos);
}

TEST_CASE("snapshot JSON with wrong shapes is rejected") {
  for (const char* bad : {"[]", R"({"op_dir": 1})",
                          R"({"op_dir": "a", "op": "b", "product": "c", "files": [{"rel": "x"}]})",
                          R"({"op_dir": "a", "op": "b", "product": "c",
                              "files": [{"rel": "x", "kind": "other", "sha256": "00"}]})"}) {
    INFO(bad);
    CHECK_FALSE(ReadOnlySnapshot::FromJson(boost::json::parse(bad)).ok());
  }
}
