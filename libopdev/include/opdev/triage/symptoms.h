// The debugging table of stage4.md §8 as data: each symptom row with what to check first and
// the layer of the layered review order it sends the reader to. Every triage conclusion
// (case-attribute separation, hazard, localisation) is mapped onto one of these rows.
#pragma once

#include <string_view>
#include <vector>

namespace opdev::triage {

enum class Symptom {
  kEverywhere,     // right shape, values wrong everywhere
  kLargeOnly,      // only large shapes fail
  kTailsOnly,      // only tails fail
  kSyncPipeline,   // sync warnings, pipeline results wrong
  kSpecialValues,  // NaN/Inf/±0 wrong
  kCores,          // cores missing, overlapping or double-accumulating
  kDtypeConfig,    // failures grouped by dtype or config
  kEnvironment,    // import, CANN, device invisible, hang
};

struct SymptomRow {
  Symptom id;
  const char* key;          // stable JSON id: "everywhere", "tails_only", ...
  const char* symptom;      // the §8 symptom text
  const char* check_first;  // the §8 "check first" text
  const char* layer;        // the review-order layer it belongs to
};

// The eight rows in the order of §8.
const std::vector<SymptomRow>& SymptomTable();
const SymptomRow& RowOf(Symptom s);

// The layered review order of §8: math and dims → layout and API → tiles and capacity →
// tails → sync and ownership → core split and cross-tile state → numeric edges →
// implementation path.
const std::vector<std::string_view>& ReviewOrder();
// Position of `layer` in the review order (the order's size when unknown).
int ReviewRank(std::string_view layer);

}  // namespace opdev::triage
