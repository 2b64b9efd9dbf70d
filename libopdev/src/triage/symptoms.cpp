// The §8 symptom table and review order (stage4.md §8), verbatim as data.
#include "opdev/triage/symptoms.h"

namespace opdev::triage {

const std::vector<SymptomRow>& SymptomTable() {
  static const std::vector<SymptomRow> rows = {
      {Symptom::kEverywhere, "everywhere", "right shape, values wrong everywhere",
       "formula, cast points, I/O semantics, layout", "math and dims"},
      {Symptom::kLargeOnly, "large_only", "only large shapes fail",
       "per-space capacity, tile split, cross-tile state", "tiles and capacity"},
      {Symptom::kTailsOnly, "tails_only", "only tails fail",
       "valid-shape reset, boundary index, padding, store range", "tails"},
      {Symptom::kSyncPipeline, "sync_pipeline", "sync warnings, pipeline results wrong",
       "data ownership, producer/consumer order, event isolation, buffer lifetime",
       "sync and ownership"},
      {Symptom::kSpecialValues, "special_values", "NaN/Inf/±0 wrong",
       "dtype, op order, transcendental ranges, special values", "numeric edges"},
      {Symptom::kCores, "cores", "cores missing, overlapping or double-accumulating",
       "work-item coverage, write ownership, overwrite vs accumulate, init",
       "core split and cross-tile state"},
      {Symptom::kDtypeConfig, "by_dtype", "failures grouped by dtype or config",
       "target version support, generated identifiers, dtype/layout contract (capability gap "
       "once proven)",
       "implementation path"},
      {Symptom::kEnvironment, "environment", "import, CANN, device invisible, hang",
       "environment flow → env_error", "environment"},
  };
  return rows;
}

const SymptomRow& RowOf(Symptom s) {
  for (const auto& r : SymptomTable())
    if (r.id == s) return r;
  return SymptomTable().front();
}

const std::vector<std::string_view>& ReviewOrder() {
  static const std::vector<std::string_view> order = {
      "math and dims", "layout and API", "tiles and capacity", "tails", "sync and ownership",
      "core split and cross-tile state", "numeric edges", "implementation path"};
  return order;
}

int ReviewRank(std::string_view layer) {
  const auto& o = ReviewOrder();
  for (size_t i = 0; i < o.size(); ++i)
    if (o[i] == layer) return static_cast<int>(i);
  return static_cast<int>(o.size());
}

}  // namespace opdev::triage
