// The §8 row an error hazard names outright: a GM element that an AIC and an AIV access
// unordered is a producer/consumer order defect ("sync warnings, pipeline results wrong"); the
// same race between two cores of one kind is write ownership ("cores"); every cross-core event
// hazard is the sync row; output coverage stays "cores" whatever the shapes say.
#include "opdev/triage/diagnosis.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace opdev;
using namespace opdev::triage;

namespace {

Diagnosis WithErrorHazard(const std::string& code, const std::string& message) {
  DiagnoseInput in;
  in.facts.symbols = {"M", "N"};
  in.facts.tile_rows = 64;
  in.facts.tile_cols = 128;
  in.facts.lanes = 64;
  // Shapes alone separate the multi-tile cases: without the hazard the row would be large_only.
  for (auto [name, shape, outcome] :
       {std::tuple{"small", std::vector<std::int64_t>{64, 128}, CaseOutcome::kPass},
        std::tuple{"small2", std::vector<std::int64_t>{32, 128}, CaseOutcome::kPass},
        std::tuple{"big", std::vector<std::int64_t>{1024, 1024}, CaseOutcome::kFail},
        std::tuple{"big2", std::vector<std::int64_t>{2048, 1024}, CaseOutcome::kFail}}) {
    CaseFacts f;
    f.name = name;
    f.shape = shape;
    f.dtype = "float16";
    f.outcome = outcome;
    in.cases.push_back(f);
  }
  HazardGroup g;
  g.hazard.code = code;
  g.hazard.severity = Severity::kError;
  g.hazard.line = 41;
  g.hazard.file = "test_op.py";
  g.hazard.message = message;
  g.cases = {"big", "big2"};
  g.occurrences = 2;
  in.hazards.push_back(g);
  in.route.kernel_file = "test_op.py";
  return Diagnose(in);
}

}  // namespace

TEST_CASE("a GM race between an AIC and an AIV is the sync row, between two AIVs the cores row") {
  Diagnosis cross = WithErrorHazard(
      "SIM-GM-RACE",
      "AIV 1 (block 0, subblock 1) reads 'ws'[0, 3] at line 77, which AIC 0 wrote at line 41 with no "
      "happens-before edge between the two accesses");
  CHECK(cross.root.code == "SIM-GM-RACE");
  CHECK(cross.separation.symptom == Symptom::kSyncPipeline);

  Diagnosis cross2 = WithErrorHazard(
      "SIM-GM-RACE", "AIC 0 writes 'ws'[0, 3] at line 41, which AIV 0 (block 0, subblock 0) read at line 77");
  CHECK(cross2.separation.symptom == Symptom::kSyncPipeline);

  Diagnosis same = WithErrorHazard(
      "SIM-GM-RACE", "AIV 3 writes 'out'[64, 0] at line 52, which AIV 2 wrote at line 52 with no happens-before edge");
  CHECK(same.separation.symptom == Symptom::kCores);
}

TEST_CASE("cross-core event hazards are the sync row / output coverage hazards the cores row") {
  CHECK(WithErrorHazard("SIM-XCORE-DEADLOCK", "every live core waits").separation.symptom == Symptom::kSyncPipeline);
  CHECK(WithErrorHazard("SIM-XCORE-EVENT-REUSE", "event 3 set again").separation.symptom == Symptom::kSyncPipeline);
  CHECK(WithErrorHazard("SIM-XCORE-RACE", "AIV 0 reads a buffer AIC 0 writes").separation.symptom ==
        Symptom::kSyncPipeline);
  CHECK(WithErrorHazard("SIM-OUT-MULTI-CORE", "two cores write out[0]").separation.symptom == Symptom::kCores);
}
