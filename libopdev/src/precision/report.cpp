// Rendering of comparison results: JSON for tools and a text report for people.
#include "opdev/precision/compare.h"

#include "precision/str_cat.h"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <cmath>

namespace opdev::precision {

namespace {

boost::json::value Num(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

boost::json::array Ints(const std::vector<int64_t>& v) {
  boost::json::array a;
  for (int64_t x : v) a.push_back(x);
  return a;
}

std::string_view PathName(ComparePath p) {
  switch (p) {
    case ComparePath::kFloating: return "floating";
    case ComparePath::kExact: return "exact";
    case ComparePath::kRejected: return "rejected";
  }
  return "rejected";
}

std::string IndexText(const std::vector<int64_t>& idx) {
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i) s += Cat(i ? ", " : "", idx[i]);
  return s + "]";
}

std::string BinText(const HistogramBin& b) {
  if (b.lo == 0) return Cat("[0, ", PyFormat("%g", b.hi), "]");
  if (std::isinf(b.hi)) return Cat("> ", PyFormat("%g", b.lo));
  return Cat("(", PyFormat("%g", b.lo), ", ", PyFormat("%g", b.hi), "]");
}

boost::json::object DiagnosticsJson(const ErrorDiagnostics& d) {
  boost::json::object o;
  o["compared"] = d.compared;
  o["failed"] = d.failed;
  o["special_matched"] = d.special_matched;
  o["nan_mismatch"] = d.nan_mismatch;
  o["inf_sign_mismatch"] = d.inf_sign_mismatch;
  o["cosine_similarity"] = Num(d.cosine_similarity);
  o["rmse"] = Num(d.rmse);
  o["max_rel_error"] = Num(d.max_rel_error);
  o["rel_euclidean_distance"] = Num(d.rel_euclidean_distance);
  boost::json::array hist;
  for (const HistogramBin& b : d.histogram) {
    boost::json::object h;
    h["error_over_tolerance_above"] = b.lo;
    h["error_over_tolerance_upto"] = Num(b.hi);
    h["count"] = b.count;
    hist.push_back(std::move(h));
  }
  o["histogram"] = std::move(hist);
  boost::json::array worst;
  for (const WorstElement& w : d.worst) {
    boost::json::object e;
    e["index"] = Ints(w.index);
    e["flat"] = w.flat;
    e["actual"] = Num(w.actual);
    e["golden"] = Num(w.golden);
    e["abs_error"] = Num(w.abs_error);
    e["tolerance"] = Num(w.tolerance);
    worst.push_back(std::move(e));
  }
  o["worst"] = std::move(worst);
  o["first_failure"] = d.first_failure.empty() ? boost::json::value(nullptr)
                                               : boost::json::value(Ints(d.first_failure));
  o["failing_rows"] = d.failing_rows;
  o["first_failing_row"] = d.first_failing_row;
  o["last_failing_row"] = d.last_failing_row;
  o["failing_cols"] = d.failing_cols;
  o["first_failing_col"] = d.first_failing_col;
  o["last_failing_col"] = d.last_failing_col;
  if (d.tile) {
    boost::json::object t;
    t["rows"] = d.tile->first;
    t["cols"] = d.tile->second;
    t["grid_rows"] = d.tile_grid_rows;
    t["grid_cols"] = d.tile_grid_cols;
    boost::json::array tiles;
    for (const TileFailures& f : d.failing_tiles) {
      boost::json::object x;
      x["tile_row"] = f.tile_row;
      x["tile_col"] = f.tile_col;
      x["failed"] = f.failed;
      x["elements"] = f.elements;
      x["tail"] = f.tail;
      tiles.push_back(std::move(x));
    }
    t["failing_tiles"] = std::move(tiles);
    o["tiles"] = std::move(t);
  }
  o["findings"] = d.findings.ToJson();
  return o;
}

boost::json::object OutputJson(size_t index, const TensorComparison& r) {
  boost::json::object o;
  o["index"] = index;
  o["passed"] = r.passed;
  o["path"] = PathName(r.path);
  o["summary"] = r.summary;
  if (r.actual_dtype) o["actual_dtype"] = DTypeName(*r.actual_dtype);
  if (r.golden_dtype) o["golden_dtype"] = DTypeName(*r.golden_dtype);
  if (r.actual_dtype) o["shape"] = Ints(r.shape);
  if (r.thresholds) {
    boost::json::object t;
    t["dtype"] = DTypeName(r.thresholds->dtype);
    t["rtol"] = r.thresholds->rtol;
    t["atol"] = r.thresholds->atol;
    t["required_matched_ratio"] = kRequiredMatchedRatio;
    t["max_abs_error_limit"] = r.thresholds->max_abs_error_limit;
    o["thresholds"] = std::move(t);
  }
  if (r.has_metrics) {
    boost::json::object m;
    m["matched_ratio"] = Num(r.matched_ratio);
    if (r.path == ComparePath::kFloating) {
      m["max_abs_error"] = Num(r.max_abs_error);
      m["mean_abs_error"] = Num(r.mean_abs_error);
      m["mean_rel_error"] = Num(r.mean_rel_error);
    }
    o["metrics"] = std::move(m);
    boost::json::array fc;
    for (const std::string& c : r.failed_checks) fc.push_back(boost::json::value(c));
    o["failed_checks"] = std::move(fc);
  }
  if (r.diagnostics) o["diagnostics"] = DiagnosticsJson(*r.diagnostics);
  return o;
}

void RenderDiagnostics(const ErrorDiagnostics& d, std::string* out) {
  auto line = [&](std::string_view name, const std::string& value) {
    std::string n(name);
    n.resize(24, ' ');
    *out += Cat("  ", n, ": ", value, "\n");
  };
  line("compared elements", Cat(d.compared, " (+", d.special_matched, " matching NaN/Inf)"));
  line("failing elements",
       Cat(d.failed, " (", PyFormat("%.4f", d.compared ? 100.0 * static_cast<double>(d.failed) /
                                                       static_cast<double>(d.compared)
                                                 : 0.0),
           "%)"));
  if (d.nan_mismatch || d.inf_sign_mismatch)
    line("NaN/Inf mismatches", Cat(d.nan_mismatch, " NaN, ", d.inf_sign_mismatch, " Inf sign"));
  line("cosine similarity", PyFormat("%.9f", d.cosine_similarity));
  line("rmse", PyFormat("%.3e", d.rmse));
  line("max relative error", PyFormat("%.3e", d.max_rel_error));
  line("rel. euclidean distance", PyFormat("%.3e", d.rel_euclidean_distance));
  *out += "  error / tolerance histogram (tolerance = atol + rtol*|golden|):\n";
  for (const HistogramBin& b : d.histogram) {
    std::string label = BinText(b);
    label.resize(16, ' ');
    *out += Cat("    ", label, " ", b.count, b.lo >= 1.0 ? "  (fail)" : "", "\n");
  }
  if (!d.worst.empty()) {
    *out += "  worst elements:\n";
    for (const WorstElement& w : d.worst)
      *out += Cat("    ", IndexText(w.index), "  actual=", PyFormat("%.9g", w.actual),
                  "  golden=", PyFormat("%.9g", w.golden), "  |error|=",
                  PyFormat("%.3e", w.abs_error), "  tolerance=", PyFormat("%.3e", w.tolerance),
                  w.abs_error > w.tolerance ? "  FAIL" : "", "\n");
  }
  if (!d.first_failure.empty())
    line("first failing element", IndexText(d.first_failure));
  if (d.failing_rows)
    line("failing rows (axis -2)",
         Cat(d.failing_rows, " in [", d.first_failing_row, ", ", d.last_failing_row, "]"));
  if (d.failing_cols)
    line("failing cols (axis -1)",
         Cat(d.failing_cols, " in [", d.first_failing_col, ", ", d.last_failing_col, "]"));
  if (d.tile) {
    *out += Cat("  tiles ", d.tile->first, "x", d.tile->second, " (grid ", d.tile_grid_rows, "x",
                d.tile_grid_cols, "): ", d.failing_tiles.size(), " failing\n");
    size_t shown = 0;
    for (const TileFailures& t : d.failing_tiles) {
      if (++shown > 16) {
        *out += Cat("    ... ", d.failing_tiles.size() - 16, " more\n");
        break;
      }
      *out += Cat("    tile (", t.tile_row, ", ", t.tile_col, "): ", t.failed, "/", t.elements,
                  " fail", t.tail ? "  (tail tile)" : "", "\n");
    }
  }
  for (const Diagnostic& f : d.findings.items())
    *out += Cat("  finding[", f.code, "]: ", f.message, "\n");
}

}  // namespace

boost::json::object ToJson(const PrecisionResult& result) {
  boost::json::object o;
  o["passed"] = result.passed;
  o["verdict"] = result.passed ? "PASS" : "FAIL";
  o["summary"] = result.summary;
  boost::json::array outs;
  for (size_t i = 0; i < result.outputs.size(); ++i) {
    if (!result.outputs[i])
      outs.push_back(nullptr);
    else
      outs.push_back(OutputJson(i, *result.outputs[i]));
  }
  o["outputs"] = std::move(outs);
  return o;
}

std::string RenderReport(const PrecisionResult& result) {
  std::string out = result.summary;
  out += "\n";
  for (size_t i = 0; i < result.outputs.size(); ++i) {
    const auto& r = result.outputs[i];
    if (!r || !r->diagnostics) continue;
    out += Cat("output[", i, "] diagnostics (", r->passed ? "PASS" : "FAIL", ", shape ",
               ShapeToString(r->shape), ", ", DTypeName(*r->actual_dtype), " vs ",
               DTypeName(*r->golden_dtype), "):\n");
    RenderDiagnostics(*r->diagnostics, &out);
  }
  return out;
}

}  // namespace opdev::precision
