// The fixed "scheme A" precision standard (spec/precision-compare.md): the same verdict,
// metrics and summary text as the reference check_precision(actual, golden, dtype_str), plus
// diagnostics that never change the verdict (cosine similarity, RMSE, max relative error,
// relative Euclidean distance, an error histogram, the worst elements, and failures per row,
// column and tile with findings mapped to the debugging table of stage4.md §8).
#pragma once

#include "opdev/precision/tensor.h"
#include "opdev/support/diagnostic.h"
#include "opdev/support/dtype.h"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opdev::precision {

inline constexpr double kRequiredMatchedRatio = 0.99;

// One row of the threshold table.
struct Thresholds {
  DType dtype = DType::kFloat32;
  double rtol = 0, atol = 0, fixed_limit = 0;
  double ulp = 0;                  // 1.0 -> next representable value in dtype
  double max_abs_error_limit = 0;  // max(fixed_limit, 32 * ulp)
  double finfo_max = 0;            // largest finite value (replaces a one-sided Inf)
};

// The row for float16/bfloat16/float32/float64; nullopt for integers and bool.
std::optional<Thresholds> ThresholdsFor(DType dtype);

// The dtype_str names the standard accepts: float16, bfloat16, float32, float64, half,
// float, double (exact spelling). Anything else is nullopt ("unsupported dtype: <name>").
std::optional<DType> ParseComparisonDType(std::string_view name);

// torch's spelling of a dtype in messages: "torch.float16", "torch.bool", ...
std::string TorchDTypeName(DType dtype);

struct CompareOptions {
  std::optional<std::string> dtype;  // dtype_str; nullopt = the actual tensor's dtype
  bool diagnostics = true;           // compute the extra diagnostics (a little slower)
  int worst_k = 10;                  // worst elements to keep
  std::optional<std::pair<int64_t, int64_t>> tile;  // kernel tile (rows, cols) on the last two axes
  int threads = 0;                   // 0 = all cores
};

enum class ComparePath {
  kFloating,  // mixed-tolerance path
  kExact,     // integer/bool exact path
  kRejected,  // shape/dtype mismatch, one side None, ...: failed before comparing values
};

struct HistogramBin {
  double lo = 0, hi = 0;  // error/tolerance in (lo, hi]; the first bin includes 0, hi=inf last
  int64_t count = 0;
};

struct WorstElement {
  std::vector<int64_t> index;  // multi-dimensional index
  int64_t flat = 0;
  double actual = 0, golden = 0, abs_error = 0, tolerance = 0;
};

struct TileFailures {
  int64_t tile_row = 0, tile_col = 0;  // position in the tile grid (batch axes folded)
  int64_t failed = 0, elements = 0;    // failing / total elements (over all batch slices)
  bool tail = false;                   // a partial tile at the end of axis -2 or -1
};

// Diagnostics of a floating comparison (opdev's own; not part of the verdict).
struct ErrorDiagnostics {
  int64_t compared = 0, failed = 0, special_matched = 0;
  int64_t nan_mismatch = 0, inf_sign_mismatch = 0;
  double cosine_similarity = 0, rmse = 0, max_rel_error = 0, rel_euclidean_distance = 0;
  std::vector<HistogramBin> histogram;
  std::vector<WorstElement> worst;
  std::vector<int64_t> first_failure;   // multi-index of the first failing element (C order)
  int64_t first_failing_row = -1, last_failing_row = -1;  // along axis -2
  int64_t first_failing_col = -1, last_failing_col = -1;  // along the last axis
  int64_t failing_rows = 0, failing_cols = 0;             // rows/cols with any failure
  std::optional<std::pair<int64_t, int64_t>> tile;
  int64_t tile_grid_rows = 0, tile_grid_cols = 0;
  std::vector<TileFailures> failing_tiles;  // only tiles with failures, grid order
  Diagnostics findings;                     // patterns -> stage4.md §8 rows
};

struct TensorComparison {
  bool passed = false;
  std::string summary;  // the reference summary for this pair (no "output[i]: " prefix)
  ComparePath path = ComparePath::kRejected;
  std::optional<DType> actual_dtype, golden_dtype;
  Shape shape;
  std::optional<Thresholds> thresholds;
  bool has_metrics = false;  // the four metrics below are meaningful
  double matched_ratio = 0, max_abs_error = 0, mean_abs_error = 0, mean_rel_error = 0;
  std::vector<std::string> failed_checks;  // "atol", "rtol", "matched_ratio", "max_abs_error"
  std::optional<ErrorDiagnostics> diagnostics;

  // "matched_ratio=%.6f (req>=0.99), max_abs_error=%.6e (limit=%.6e)" (older reference
  // summary line); for the exact path the summary followed by the same two fields.
  std::string LegacyLine() const;
};

struct PrecisionResult {
  bool passed = false;
  std::string summary;  // exactly the reference's summary string
  // One entry per output position; nullopt where both sides were None.
  std::vector<std::optional<TensorComparison>> outputs;

  // The line a generated test prints: "[label] PASS|FAIL (<legacy lines>)" followed by a
  // newline and `summary`. It contains both the "matched_ratio=... max_abs_error=..." form
  // and the multi-line block, so every verifier grep finds what it looks for.
  std::string ReportLine(std::string_view label) const;
};

// One tensor pair (the single-output case of CheckPrecision, without any prefix).
TensorComparison CompareTensor(const Tensor& actual, const Tensor& golden,
                               const CompareOptions& opts = {});

// check_precision(actual, golden, dtype_str): lists with None (nullopt) placeholders.
PrecisionResult CheckPrecision(const std::vector<std::optional<Tensor>>& actual,
                               const std::vector<std::optional<Tensor>>& golden,
                               const CompareOptions& opts = {});
PrecisionResult CheckPrecision(const Tensor& actual, const Tensor& golden,
                               const CompareOptions& opts = {});

// Python-compatible number formatting used in summaries ("%.3e", "%.4f", "%.6e"; inf/nan
// spelled like Python).
std::string PyFormat(const char* spec, double v);

// JSON of a result: verdict, summary, per-output metrics, thresholds and diagnostics
// (non-finite numbers become null). Deterministic key order.
boost::json::object ToJson(const PrecisionResult& result);

// Human-readable report: the summary, then per output the diagnostics and findings.
std::string RenderReport(const PrecisionResult& result);

}  // namespace opdev::precision
