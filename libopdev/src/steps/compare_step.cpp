// The "compare" step: scheme-A verdict for tensor files or in-memory tensors.
// Request: {"pairs": [["actual.npy", "golden.npy"], ...] ("none" = None placeholder),
//           "dtype"?, "actual_dtype"?, "golden_dtype"?, "shape"?: [..] or "4,128" (for .bin),
//           "tile"?: [R, C] or "R,C", "worst"?: 10, "threads"?: 0, "summary_only"?: false}
// Every option is validated here (ReadCompareRequest); the command passes them through.
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

// Reads an optional shape: "4,128" / "4x128" text (the command's spelling) or a list of
// non-negative integers. `text` receives the value as text for messages.
bool ReadDims(const boost::json::object& o, const char* key, std::optional<pr::Shape>* out,
              std::string* text, std::string* error) {
  const auto* v = o.if_contains(key);
  if (!v || v->is_null()) return true;
  if (v->is_string()) {
    *text = std::string(v->as_string());
    auto s = pr::ParseShape(*text);
    if (!s.ok()) {
      *error = std::string(s.status().message());
      return false;
    }
    *out = *s;
    return true;
  }
  const auto* a = v->if_array();
  pr::Shape dims;
  for (size_t i = 0; a && i < a->size(); ++i) {
    const auto& d = (*a)[i];
    if (!d.is_int64() || d.as_int64() < 0) {
      a = nullptr;
      break;
    }
    dims.push_back(d.as_int64());
    *text += (i ? "," : "") + std::to_string(d.as_int64());
  }
  if (!a) {
    *error = std::string("request field '") + key + "' must be a list of non-negative integers";
    return false;
  }
  *out = dims;
  return true;
}

// The comparison options of a request, validated in this one place for the command, the
// file step and the buffer entry point. The messages name the command's options.
struct CompareRequest {
  pr::CompareOptions copts;
  std::optional<DType> cmp_dtype, actual_dtype, golden_dtype;
  std::optional<pr::Shape> shape;
  bool summary_only = false;
};

std::optional<StepResult> ReadCompareRequest(const boost::json::object& request, CompareRequest* c) {
  RequestReader rr(request);
  std::string dtype = rr.String("dtype");
  std::string names[2] = {rr.String("actual_dtype"), rr.String("golden_dtype")};
  auto worst = rr.Int("worst");
  auto threads = rr.Int("threads");
  c->summary_only = rr.Bool("summary_only");
  if (!rr.Ok()) return StepResult::Error(rr.error);
  if (!dtype.empty()) {
    c->cmp_dtype = pr::ParseComparisonDType(dtype);
    if (!c->cmp_dtype) return StepResult::Error("unsupported dtype: " + dtype);
    c->copts.dtype = dtype;
  }
  const char* flags[2] = {"--actual-dtype", "--golden-dtype"};
  std::optional<DType>* outs[2] = {&c->actual_dtype, &c->golden_dtype};
  for (int i = 0; i < 2; ++i) {
    if (names[i].empty()) continue;
    *outs[i] = ParseDType(names[i]);
    if (!*outs[i]) return StepResult::Error(std::string(flags[i]) + ": unknown dtype '" + names[i] + "'");
  }
  std::string text, error;
  if (!ReadDims(request, "shape", &c->shape, &text, &error)) return StepResult::Error("--shape: " + error);
  std::optional<pr::Shape> tile;
  text.clear();
  if (!ReadDims(request, "tile", &tile, &text, &error) ||
      (tile && (tile->size() != 2 || (*tile)[0] <= 0 || (*tile)[1] <= 0)))
    return StepResult::Error("--tile: expected two positive integers R,C, got '" + text + "'");
  if (tile) c->copts.tile = std::make_pair((*tile)[0], (*tile)[1]);
  c->copts.worst_k = static_cast<int>(std::max<std::int64_t>(0, worst.value_or(10)));
  c->copts.threads = static_cast<int>(std::max<std::int64_t>(0, threads.value_or(0)));
  c->copts.diagnostics = true;
  return std::nullopt;
}

StepResult Compare(const std::vector<std::optional<pr::Tensor>>& actual,
                   const std::vector<std::optional<pr::Tensor>>& golden, const CompareRequest& c,
                   const std::vector<std::pair<std::string, std::string>>& files) {
  pr::PrecisionResult result = pr::CheckPrecision(actual, golden, c.copts);
  StepResult r;
  boost::json::object doc = pr::ToJson(result);
  if (!files.empty()) {
    boost::json::array pairs;
    for (const auto& [a, g] : files) pairs.push_back(boost::json::object{{"actual", a}, {"golden", g}});
    doc["files"] = std::move(pairs);
  }
  r.document = std::move(doc);
  r.text = c.summary_only ? result.summary + "\n" : pr::RenderReport(result);
  r.status = result.passed ? kStatusOk : kStatusFindings;
  return r;
}

}  // namespace

StepResult CompareTensors(const std::vector<std::optional<pr::Tensor>>& actual,
                          const std::vector<std::optional<pr::Tensor>>& golden,
                          const boost::json::object& options,
                          const std::vector<std::pair<std::string, std::string>>& files) {
  CompareRequest c;
  if (auto e = ReadCompareRequest(options, &c)) return *e;
  return Compare(actual, golden, c, files);
}

StepResult RunCompareStep(const StepContext&, const boost::json::object& request) {
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
  CompareRequest c;
  if (auto e = ReadCompareRequest(request, &c)) return *e;

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
      ro.dtype = side == 0 ? c.actual_dtype : c.golden_dtype;
      ro.raw2_is_bfloat16 = c.cmp_dtype == DType::kBFloat16;
      if (EndsWith(path, ".npy")) {
        ro.shape.reset();
      } else {
        ro.shape = c.shape;
        if (!ro.dtype) ro.dtype = c.cmp_dtype;
      }
      auto t = pr::ReadTensorFile(path, ro);
      if (!t.ok()) return StepResult::Error(std::string(t.status().message()));
      list.emplace_back(*std::move(t));
    }
  }
  return Compare(actual, golden, c, files);
}

}  // namespace opdev::steps
