// The "compare" step: scheme-A verdict for tensor files or in-memory tensors.
// Request: {"pairs": [["actual.npy", "golden.npy"], ...] ("none" = None placeholder),
//           "dtype"?, "actual_dtype"?, "golden_dtype"?, "shape"?: [..] (for .bin),
//           "tile"?: [R, C], "worst"?: 10, "threads"?: 0, "summary_only"?: false}
#include "opdev/steps/compare_step.h"

#include "opdev/precision/compare.h"
#include "opdev/precision/tensor_file.h"

#include <algorithm>

namespace opdev::steps {
namespace {

namespace pr = opdev::precision;

bool IsNone(const std::string& s) { return s == "none" || s == "None"; }

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Reads an optional list of positive integers; returns false with `error` set on bad input.
bool ReadDims(const boost::json::object& o, const char* key, std::optional<pr::Shape>* out,
              std::string* error) {
  const auto* v = o.if_contains(key);
  if (!v || v->is_null()) return true;
  pr::Shape dims;
  if (v->is_string()) {
    auto s = pr::ParseShape(std::string(v->as_string()));
    if (!s.ok()) {
      *error = std::string(key) + ": " + std::string(s.status().message());
      return false;
    }
    *out = *s;
    return true;
  }
  if (!v->is_array()) {
    *error = std::string("request field '") + key + "' must be a list of integers";
    return false;
  }
  for (const auto& d : v->as_array()) {
    if (!d.is_int64() || d.as_int64() < 0) {
      *error = std::string("request field '") + key + "' must be a list of non-negative integers";
      return false;
    }
    dims.push_back(d.as_int64());
  }
  *out = dims;
  return true;
}

}  // namespace

StepResult CompareTensors(const std::vector<std::optional<pr::Tensor>>& actual,
                          const std::vector<std::optional<pr::Tensor>>& golden,
                          const boost::json::object& options,
                          const std::vector<std::pair<std::string, std::string>>& files) {
  RequestReader rr(options);
  pr::CompareOptions copts;
  std::string dtype = rr.String("dtype");
  if (!dtype.empty()) {
    if (!pr::ParseComparisonDType(dtype)) return StepResult::Error("unsupported dtype: " + dtype);
    copts.dtype = dtype;
  }
  std::optional<pr::Shape> tile;
  std::string error;
  if (!ReadDims(options, "tile", &tile, &error)) return StepResult::Error(error);
  if (tile) {
    if (tile->size() != 2 || (*tile)[0] <= 0 || (*tile)[1] <= 0)
      return StepResult::Error("tile: expected two positive integers R,C");
    copts.tile = std::make_pair((*tile)[0], (*tile)[1]);
  }
  copts.worst_k = static_cast<int>(std::max<std::int64_t>(0, rr.Int("worst").value_or(10)));
  copts.threads = static_cast<int>(std::max<std::int64_t>(0, rr.Int("threads").value_or(0)));
  bool summary_only = rr.Bool("summary_only");
  if (!rr.Ok()) return StepResult::Error(rr.error);
  copts.diagnostics = true;

  pr::PrecisionResult result = pr::CheckPrecision(actual, golden, copts);
  StepResult r;
  boost::json::object doc = pr::ToJson(result);
  if (!files.empty()) {
    boost::json::array pairs;
    for (const auto& [a, g] : files) pairs.push_back(boost::json::object{{"actual", a}, {"golden", g}});
    doc["files"] = std::move(pairs);
  }
  r.document = std::move(doc);
  r.text = summary_only ? result.summary + "\n" : pr::RenderReport(result);
  r.status = result.passed ? kStatusOk : kStatusFindings;
  return r;
}

StepResult RunCompareStep(const StepContext&, const boost::json::object& request) {
  RequestReader rr(request);
  const auto* pairs_v = request.if_contains("pairs");
  if (!pairs_v || !pairs_v->is_array() || pairs_v->as_array().empty())
    return StepResult::Error("expected ACTUAL GOLDEN file pairs");
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& p : pairs_v->as_array()) {
    const auto* a = p.if_array();
    if (!a || a->size() != 2 || !(*a)[0].is_string() || !(*a)[1].is_string())
      return StepResult::Error("request field 'pairs' must be a list of [actual, golden] paths");
    files.emplace_back(std::string((*a)[0].as_string()), std::string((*a)[1].as_string()));
  }
  std::optional<DType> cmp_dtype, actual_dtype, golden_dtype;
  std::string dtype = rr.String("dtype");
  if (!dtype.empty()) {
    cmp_dtype = pr::ParseComparisonDType(dtype);
    if (!cmp_dtype) return StepResult::Error("unsupported dtype: " + dtype);
  }
  for (auto [key, out] : {std::pair{"actual_dtype", &actual_dtype}, std::pair{"golden_dtype", &golden_dtype}}) {
    std::string name = rr.String(key);
    if (name.empty()) continue;
    *out = ParseDType(name);
    if (!*out) return StepResult::Error(std::string(key) + ": unknown dtype '" + name + "'");
  }
  if (!rr.Ok()) return StepResult::Error(rr.error);
  std::optional<pr::Shape> shape;
  std::string error;
  if (!ReadDims(request, "shape", &shape, &error)) return StepResult::Error(error);

  std::vector<std::optional<pr::Tensor>> actual, golden;
  for (const auto& [a, g] : files) {
    for (int side = 0; side < 2; ++side) {
      const std::string& path = side == 0 ? a : g;
      auto& list = side == 0 ? actual : golden;
      if (IsNone(path)) {
        list.emplace_back(std::nullopt);
        continue;
      }
      pr::TensorReadOptions ro;
      ro.dtype = side == 0 ? actual_dtype : golden_dtype;
      ro.raw2_is_bfloat16 = cmp_dtype == DType::kBFloat16;
      if (EndsWith(path, ".npy")) {
        ro.shape.reset();
      } else {
        ro.shape = shape;
        if (!ro.dtype) ro.dtype = cmp_dtype;
      }
      auto t = pr::ReadTensorFile(path, ro);
      if (!t.ok()) return StepResult::Error(std::string(t.status().message()));
      list.emplace_back(*std::move(t));
    }
  }
  return CompareTensors(actual, golden, request, files);
}

}  // namespace opdev::steps
