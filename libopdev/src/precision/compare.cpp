// Scheme A: thresholds, the exact and floating comparison paths, the pass criteria, the
// summary text and the multi-output rules, byte-for-byte as spec/precision-compare.md states.
#include "opdev/precision/compare.h"

#include "precision/findings.h"
#include "precision/scan.h"
#include "precision/str_cat.h"

#include <cfloat>
#include <cmath>
#include <cstdio>

namespace opdev::precision {

namespace {

// "<name padded to 16>: <value padded to 10>thresh=<threshold padded to 10>check=<op>"
std::string Row(std::string_view name, const std::string& value, const std::string& thresh,
                std::string_view op, bool failed) {
  auto pad = [](std::string s, size_t w) {
    if (s.size() < w) s.append(w - s.size(), ' ');
    return s;
  };
  std::string line = "    " + pad(std::string(name), 16) + ": " + pad(value, 10) + "thresh=" +
                     pad(thresh, 10) + "check=" + std::string(op);
  if (failed) line += "  [CHECK_FAILED]";
  return line;
}

TensorComparison Rejected(std::string summary) {
  TensorComparison r;
  r.passed = false;
  r.path = ComparePath::kRejected;
  r.summary = std::move(summary);
  return r;
}

void SetGeometry(const Shape& shape, const CompareOptions& opts, ScanParams* p) {
  size_t rank = shape.size();
  p->cols = rank >= 1 ? std::max<int64_t>(1, shape[rank - 1]) : 1;
  p->rows = rank >= 2 ? std::max<int64_t>(1, shape[rank - 2]) : 1;
  if (opts.tile && opts.tile->first > 0 && opts.tile->second > 0) {
    p->tile_rows = opts.tile->first;
    p->tile_cols = opts.tile->second;
  }
}

double SafeDiv(double num, double den, double if_zero) { return den == 0 ? if_zero : num / den; }

ErrorDiagnostics BuildDiagnostics(const ScanResult& s, const ScanParams& p, const Tensor& a) {
  ErrorDiagnostics d;
  d.compared = s.compared;
  d.failed = s.compared - s.passed;
  d.special_matched = s.special_matched;
  d.nan_mismatch = s.nan_mismatch;
  d.inf_sign_mismatch = s.inf_sign_mismatch;
  double norm = std::sqrt(s.sum_aa) * std::sqrt(s.sum_gg);
  if (s.sum_aa == 0 && s.sum_gg == 0)
    d.cosine_similarity = 1.0;
  else
    d.cosine_similarity = SafeDiv(s.sum_ag, norm, 0.0);
  d.rmse = s.compared ? std::sqrt(s.sum_sq / static_cast<double>(s.compared)) : 0.0;
  d.max_rel_error = s.max_rel;
  d.rel_euclidean_distance =
      s.sum_sq == 0 ? 0.0 : SafeDiv(std::sqrt(s.sum_sq), std::sqrt(s.sum_gg), HUGE_VAL);
  double lo = 0;
  for (int b = 0; b < kHistBins; ++b) {
    double hi = b < kHistEdges ? kHistEdge[b] : HUGE_VAL;
    d.histogram.push_back(HistogramBin{lo, hi, s.hist[b]});
    lo = hi;
  }
  for (const ScanWorst& w : s.worst)
    if (w.abs_error > 0 || std::isnan(w.abs_error))
    d.worst.push_back(WorstElement{a.Unravel(w.flat), w.flat, w.actual, w.golden, w.abs_error,
                                   w.tolerance});
  if (s.first_fail >= 0) d.first_failure = a.Unravel(s.first_fail);
  AnalyzeFailures(s, p, a.shape(), &d);
  return d;
}

}  // namespace

std::string PyFormat(const char* spec, double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}

std::optional<Thresholds> ThresholdsFor(DType dtype) {
  Thresholds t;
  t.dtype = dtype;
  switch (dtype) {
    case DType::kFloat16:
      t.rtol = 0x1p-9; t.atol = 0x1p-9; t.fixed_limit = 0.1; t.ulp = 0x1p-10;
      t.finfo_max = 65504.0;
      break;
    case DType::kBFloat16:
      t.rtol = 0x1p-6; t.atol = 0x1p-6; t.fixed_limit = 1.0; t.ulp = 0x1p-7;
      t.finfo_max = 0x1.fep127;  // 3.3895313892515355e38
      break;
    case DType::kFloat32:
      t.rtol = 0x1p-10; t.atol = 0x1p-16; t.fixed_limit = 0.01; t.ulp = 0x1p-23;
      t.finfo_max = static_cast<double>(FLT_MAX);
      break;
    case DType::kFloat64:
      t.rtol = 0x1p-10; t.atol = 0x1p-16; t.fixed_limit = 0.01; t.ulp = 0x1p-52;
      t.finfo_max = DBL_MAX;
      break;
    default:
      return std::nullopt;
  }
  t.max_abs_error_limit = std::max(t.fixed_limit, 32.0 * t.ulp);
  return t;
}

std::optional<DType> ParseComparisonDType(std::string_view name) {
  if (name == "float16" || name == "half") return DType::kFloat16;
  if (name == "bfloat16") return DType::kBFloat16;
  if (name == "float32" || name == "float") return DType::kFloat32;
  if (name == "float64" || name == "double") return DType::kFloat64;
  return std::nullopt;
}

std::string TorchDTypeName(DType dtype) { return "torch." + std::string(DTypeName(dtype)); }

TensorComparison CompareTensor(const Tensor& actual, const Tensor& golden,
                               const CompareOptions& opts) {
  DType cmp = actual.dtype();
  if (opts.dtype) {
    auto parsed = ParseComparisonDType(*opts.dtype);
    if (!parsed) return Rejected(Cat("unsupported dtype: ", *opts.dtype));
    cmp = *parsed;
  }
  if (actual.shape() != golden.shape())
    return Rejected(Cat("shape mismatch: actual=", ShapeToString(actual.shape()),
                        " vs golden=", ShapeToString(golden.shape())));
  TensorComparison r;
  r.actual_dtype = actual.dtype();
  r.golden_dtype = golden.dtype();
  r.shape = actual.shape();
  const int64_t total = actual.numel();
  auto th = ThresholdsFor(cmp);
  if (!th) {
    if (actual.dtype() != golden.dtype()) {
      r.summary = Cat("dtype mismatch for exact comparison: actual=",
                      TorchDTypeName(actual.dtype()), ", golden=", TorchDTypeName(golden.dtype()));
      return r;
    }
    r.path = ComparePath::kExact;
    if (total == 0) {
      r.passed = true;
      r.summary = "empty tensor";
      return r;
    }
    int64_t diff = CountExactMismatches(actual, golden, opts.threads);
    r.has_metrics = true;
    r.matched_ratio = 1.0 - static_cast<double>(diff) / static_cast<double>(total);
    if (diff == 0) {
      r.passed = true;
      r.matched_ratio = 1.0;
      r.summary = "exact match (integer)";
    } else {
      r.summary = Cat("integer mismatch: ", diff, "/", total, " elements differ");
    }
    return r;
  }
  r.thresholds = th;
  if (!IsFloating(actual.dtype()) || !IsFloating(golden.dtype())) {
    r.summary = Cat("unsupported dtype pair for floating comparison: actual=",
                    TorchDTypeName(actual.dtype()), ", golden=", TorchDTypeName(golden.dtype()));
    return r;
  }
  r.path = ComparePath::kFloating;
  if (total == 0) {
    r.passed = true;
    r.summary = "empty tensor";
    return r;
  }
  ScanParams p;
  p.rtol = th->rtol;
  p.atol = th->atol;
  p.replace_max = th->finfo_max;
  p.diagnostics = opts.diagnostics;
  p.worst_k = opts.diagnostics ? opts.worst_k : 0;
  p.threads = opts.threads;
  SetGeometry(actual.shape(), opts, &p);
  ScanResult s = ScanFloating(actual, golden, p);
  if (opts.diagnostics) r.diagnostics = BuildDiagnostics(s, p, actual);
  if (s.nan_mismatch) {
    r.summary = Cat("NaN position mismatch: ", s.nan_mismatch, " positions differ");
    return r;
  }
  if (s.inf_sign_mismatch) {
    r.summary = Cat("Inf sign mismatch: ", s.inf_sign_mismatch, " positions");
    return r;
  }
  r.has_metrics = true;
  if (s.compared == 0) {
    r.matched_ratio = 1.0;
  } else {
    r.matched_ratio =
        static_cast<double>(s.passed + s.special_matched) / static_cast<double>(total);
    r.max_abs_error = s.max_abs;
    r.mean_abs_error = s.sum_abs / static_cast<double>(s.compared);
    r.mean_rel_error = s.rel_count ? s.sum_rel / static_cast<double>(s.rel_count) : 0.0;
  }
  bool atol_ok = r.mean_abs_error <= th->atol;
  bool rtol_ok = r.mean_rel_error <= th->rtol;
  bool ratio_ok = r.matched_ratio >= kRequiredMatchedRatio;
  bool max_ok = r.max_abs_error <= th->max_abs_error_limit;
  if (!atol_ok) r.failed_checks.push_back("atol");
  if (!rtol_ok) r.failed_checks.push_back("rtol");
  if (!ratio_ok) r.failed_checks.push_back("matched_ratio");
  if (!max_ok) r.failed_checks.push_back("max_abs_error");
  r.passed = atol_ok && rtol_ok && ratio_ok && max_ok;
  r.summary = Cat(
      "precision ", r.passed ? "PASS" : "FAIL", "\n",
      Row("atol", PyFormat("%.3e", r.mean_abs_error), PyFormat("%.3e", th->atol), "GT", !atol_ok),
      "\n",
      Row("rtol", PyFormat("%.3e", r.mean_rel_error), PyFormat("%.3e", th->rtol), "GT", !rtol_ok),
      "\n",
      Row("matched_ratio", PyFormat("%.4f", r.matched_ratio),
          PyFormat("%.4f", kRequiredMatchedRatio), "LT", !ratio_ok),
      "\n",
      Row("max_abs_error", PyFormat("%.3e", r.max_abs_error),
          PyFormat("%.3e", th->max_abs_error_limit), "GT", !max_ok),
      "\n", std::string(100, '-'));
  return r;
}

std::string TensorComparison::LegacyLine() const {
  if (path == ComparePath::kFloating && has_metrics && thresholds)
    return Cat("matched_ratio=", PyFormat("%.6f", matched_ratio), " (req>=0.99), max_abs_error=",
               PyFormat("%.6e", max_abs_error), " (limit=",
               PyFormat("%.6e", thresholds->max_abs_error_limit), ")");
  if (path == ComparePath::kExact && has_metrics) {
    if (passed)
      return Cat(summary, ": matched_ratio=", PyFormat("%.6f", matched_ratio),
                 ", max_abs_error=", PyFormat("%.6e", 0.0));
    return Cat(summary, ": matched_ratio=", PyFormat("%.6f", matched_ratio));
  }
  return summary;
}

PrecisionResult CheckPrecision(const std::vector<std::optional<Tensor>>& actual,
                               const std::vector<std::optional<Tensor>>& golden,
                               const CompareOptions& opts) {
  PrecisionResult res;
  if (actual.size() != golden.size()) {
    res.summary =
        Cat("output count mismatch: actual=", actual.size(), " vs golden=", golden.size());
    return res;
  }
  if (opts.dtype && !ParseComparisonDType(*opts.dtype)) {
    res.summary = Cat("unsupported dtype: ", *opts.dtype);
    return res;
  }
  bool all = true;
  std::vector<std::string> parts;
  int compared = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const auto& a = actual[i];
    const auto& g = golden[i];
    if (!a && !g) {
      res.outputs.emplace_back(std::nullopt);
      continue;
    }
    if (!a || !g) {
      all = false;
      std::string msg = Cat("output[", i, "]: one side is None");
      parts.push_back(msg);
      TensorComparison r = Rejected("one side is None");
      res.outputs.emplace_back(std::move(r));
      continue;
    }
    ++compared;
    TensorComparison r = CompareTensor(*a, *g, opts);
    if (!r.passed) all = false;
    std::string prefix = actual.size() == 1 ? "" : Cat("output[", i, "]: ");
    parts.push_back(prefix + r.summary);
    res.outputs.emplace_back(std::move(r));
  }
  if (compared == 0) {
    all = false;
    parts.push_back("no tensor output was compared");
  }
  res.passed = all;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) res.summary += "; ";
    res.summary += parts[i];
  }
  return res;
}

PrecisionResult CheckPrecision(const Tensor& actual, const Tensor& golden,
                               const CompareOptions& opts) {
  return CheckPrecision(std::vector<std::optional<Tensor>>{actual},
                        std::vector<std::optional<Tensor>>{golden}, opts);
}

std::string PrecisionResult::ReportLine(std::string_view label) const {
  std::string legacy;
  bool multi = outputs.size() > 1;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i]) continue;
    if (!legacy.empty()) legacy += "; ";
    if (multi) legacy += Cat("output[", i, "]: ");
    legacy += outputs[i]->LegacyLine();
  }
  if (legacy.empty()) legacy = summary;
  return Cat("[", label, "] ", passed ? "PASS" : "FAIL", " (", legacy, ")\n", summary);
}

}  // namespace opdev::precision
