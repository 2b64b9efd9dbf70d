// Failure triage: turns a run (NPU launch or simulator) into the verifier's failure
// category with evidence, following the routing table of stage4.md §5 step 7 and the
// symptom table of §8. Environment failures are "not measured", never 0/N. Precision
// failures are grouped by case shape (only tails, only large shapes, by dtype, special
// values, everywhere) with the layer to review next. Every rule is a row of a table.
#pragma once

#include "opdev/runtime/launcher.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace opdev::runtime {

// What one DESIGN §8 case runs on (when known).
struct CaseShape {
  std::string name;               // test function name
  std::vector<std::int64_t> shape;
  std::string dtype;              // "float16", ...
};

struct TriageContext {
  std::vector<CaseShape> shapes;
  // Tile extent per trailing dimension (e.g. {TILE_ROWS, LANES}); a case whose dims are
  // not multiples of it is a tail case. Empty: tails are recognised by "tail" in the name.
  std::vector<std::int64_t> tile_shape;
};

enum class Outcome { kPass, kFail, kNotMeasured };
std::string_view OutcomeName(Outcome o);

struct PrecisionPattern {
  std::string id;           // everywhere | tails_only | large_only | by_dtype | special_values | mixed | single_case
  std::string symptom;      // the §8 symptom row
  std::string layer;        // the layer of the review order to look at next
  std::string check_first;  // what §8 says to check first
  std::vector<std::string> failing, passing, not_run;
};

struct Triage {
  Outcome outcome = Outcome::kFail;
  std::string category;     // verifier vocabulary; empty on PASS
  std::string rule;         // id of the table row that decided, e.g. "env.import"
  std::string summary;      // one line
  std::vector<std::string> evidence;  // quoted output lines ("run.log:12: ...")
  std::string suspicion;    // e.g. out-of-range DMA
  std::string layer;        // next layer to review (precision/runtime)
  std::string next_action;
  std::optional<PrecisionPattern> precision;
  int passed = 0, total = 0;  // meaningful unless kNotMeasured
  std::vector<std::string> notes;  // warnings and verifier-grep remarks
  boost::json::object ToJson() const;
};

// One row of the output-text table (exposed for documentation and tests).
struct TextRule {
  std::string id;
  std::string pattern;      // ECMAScript regex, searched line by line
  std::string category;
  Outcome outcome;
  std::string summary;
  std::string suspicion;
  std::string layer;
  std::string next_action;
};
const std::vector<TextRule>& TextRules();

Triage TriageLaunch(const LaunchResult& launch, const TriageContext& ctx);

// Groups precision results by case shape (exposed for the simulator path and tests).
PrecisionPattern ClassifyPrecision(const std::vector<CaseResult>& cases,
                                   const TriageContext& ctx);

// Simulator hazards → (category, layer): keyword table over the hazard kind.
struct HazardRoute {
  std::string category;
  std::string layer;
  std::string explanation;
};
HazardRoute RouteHazard(const std::string& hazard_kind);

}  // namespace opdev::runtime
