// The kernel-launch call of the CPU device (launch_step.h): request JSON to a
// sim::LaunchRequest, the launch, and the result document.
#include "opdev/steps/launch_step.h"

#include "steps/step_util.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace opdev::steps {
namespace {

using sim::HostValue;

bool ReadValue(const boost::json::value& v, const std::string& where, HostValue* out, std::string* error) {
  if (v.is_null()) { *out = HostValue{}; return true; }
  if (v.is_bool()) { *out = HostValue::Bool(v.as_bool()); return true; }
  if (v.is_int64()) { *out = HostValue::Int(v.as_int64()); return true; }
  if (v.is_uint64()) {
    if (v.as_uint64() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      *error = where + ": integer out of the 64-bit range";
      return false;
    }
    *out = HostValue::Int(static_cast<int64_t>(v.as_uint64()));
    return true;
  }
  if (v.is_double()) { *out = HostValue::Float(v.as_double()); return true; }
  if (v.is_string()) { *out = HostValue::Str(std::string(v.as_string())); return true; }
  if (v.is_array()) {
    *error = where + ": a list must be written {\"list\": [...]} or {\"tuple\": [...]}";
    return false;
  }
  const auto& o = v.as_object();
  auto items = [&](const boost::json::value& arr, HostValue::Kind kind) {
    if (!arr.is_array()) {
      *error = where + ": expected an array";
      return false;
    }
    HostValue h;
    h.kind = kind;
    size_t i = 0;
    for (const auto& x : arr.as_array()) {
      HostValue item;
      if (!ReadValue(x, where + "[" + std::to_string(i++) + "]", &item, error)) return false;
      h.items.push_back(std::move(item));
    }
    *out = std::move(h);
    return true;
  };
  if (o.size() == 1 && o.contains("tensor")) {
    const auto& t = o.at("tensor");
    if (!t.is_int64() || t.as_int64() < 0) {
      *error = where + ": \"tensor\" must be a non-negative index";
      return false;
    }
    *out = HostValue::Tensor(t.as_int64());
    return true;
  }
  if (o.size() == 1 && o.contains("tuple")) return items(o.at("tuple"), HostValue::Kind::kTuple);
  if (o.size() == 1 && o.contains("list")) return items(o.at("list"), HostValue::Kind::kList);
  if (o.size() == 1 && o.contains("const") && o.at("const").is_string()) {
    *out = HostValue::Constant(std::string(o.at("const").as_string()));
    return true;
  }
  if (o.size() == 2 && o.contains("function") && o.at("function").is_string() && o.contains("line")) {
    if (!o.at("line").is_int64()) {
      *error = where + ": \"line\" of a function must be an integer";
      return false;
    }
    *out = HostValue::Function(std::string(o.at("function").as_string()), o.at("line").as_int64());
    return true;
  }
  if (o.size() == 1 && o.contains("float") && o.at("float").is_string()) {
    std::string s(o.at("float").as_string());
    double f = s == "inf" ? HUGE_VAL : s == "-inf" ? -HUGE_VAL : s == "nan" ? std::nan("") : 0.0;
    if (s != "inf" && s != "-inf" && s != "nan") {
      *error = where + ": \"float\" must be inf, -inf or nan";
      return false;
    }
    *out = HostValue::Float(f);
    return true;
  }
  if (o.contains("object") && o.at("object").is_string()) {
    HostValue h;
    h.kind = HostValue::Kind::kObject;
    h.s = std::string(o.at("object").as_string());
    if (const auto* f = o.if_contains("fields")) {
      if (!f->is_object()) {
        *error = where + ": \"fields\" must be an object";
        return false;
      }
      for (const auto& kv : f->as_object()) {
        HostValue fv;
        if (!ReadValue(kv.value(), where + "." + std::string(kv.key()), &fv, error)) return false;
        h.fields.push_back({std::string(kv.key()), std::move(fv)});
      }
    }
    *out = std::move(h);
    return true;
  }
  *error = where + ": unknown value object (expected tensor, tuple, list, object, const, function or float)";
  return false;
}

bool ReadNamed(const boost::json::object& req, const char* key,
               std::vector<std::pair<std::string, HostValue>>* out, std::string* error) {
  const auto* v = req.if_contains(key);
  if (!v || v->is_null()) return true;
  if (!v->is_object()) {
    *error = std::string("request field '") + key + "' must be an object";
    return false;
  }
  for (const auto& kv : v->as_object()) {
    HostValue h;
    if (!ReadValue(kv.value(), std::string(key) + "." + std::string(kv.key()), &h, error)) return false;
    out->emplace_back(std::string(kv.key()), std::move(h));
  }
  return true;
}

}  // namespace

StepResult RunLaunch(const StepContext& ctx, const boost::json::object& request,
                     const std::vector<sim::ExternalTensor>& tensors) {
  RequestReader rr(request);
  sim::LaunchRequest req;
  req.file = rr.String("file", true);
  req.kernel = rr.String("kernel", true);
  if (auto b = rr.Int("block_dim")) req.block_dim = *b;
  if (auto l = rr.Int("line")) req.line = static_cast<int>(*l);
  if (auto v = rr.Int("vector_cores")) req.vector_core_num = *v;
  if (auto v = rr.Int("cube_cores")) req.cube_core_num = *v;
  req.check_api = rr.Bool("check_api", true);
  if (auto w = rr.Int("work_budget")) req.work_budget = *w;
  req.pipe_sync = rr.Bool("pipe_sync", true);
  int64_t seed = 0;
  if (auto s = rr.Int("schedule_seed")) seed = *s;
  std::string error;
  auto target = TargetOf(ctx, rr, &error);
  if (!rr.Ok()) return StepResult::Error(rr.error);
  if (!target) return StepResult::Error(error);
  req.target = *target;
  if (req.block_dim <= 0)
    return StepResult::Error("block_dim must be a positive integer, got " + std::to_string(req.block_dim));
  if (req.work_budget < 0)
    return StepResult::Error("work_budget must be >= 0 (0: the default), got " + std::to_string(req.work_budget));
  if (seed < 0)
    return StepResult::Error("schedule_seed must be >= 0 (0: the fixed core order), got " + std::to_string(seed));
  req.schedule_seed = static_cast<uint64_t>(seed);
  if (req.vector_core_num <= 0 || req.cube_core_num <= 0)
    return StepResult::Error("vector_cores and cube_cores must be positive");
  if (const auto* a = request.if_contains("args"); a && !a->is_null()) {
    if (!a->is_array()) return StepResult::Error("request field 'args' must be an array");
    size_t i = 0;
    for (const auto& x : a->as_array()) {
      HostValue h;
      if (!ReadValue(x, "args[" + std::to_string(i++) + "]", &h, &error)) return StepResult::Error(error);
      req.args.push_back(std::move(h));
    }
  }
  if (!ReadNamed(request, "kwargs", &req.kwargs, &error)) return StepResult::Error(error);
  if (!ReadNamed(request, "globals", &req.globals, &error)) return StepResult::Error(error);
  if (const auto* k = request.if_contains("tiling_key"); k && !k->is_null()) {
    std::vector<std::pair<std::string, HostValue>> key;
    if (!ReadNamed(request, "tiling_key", &key, &error)) return StepResult::Error(error);
    req.tiling_key = std::move(key);
  }
  if (const auto* s = request.if_contains("tiling_key_schema"); s && !s->is_null()) {
    const char* shape = "request field 'tiling_key_schema' must be {\"class\": NAME, \"fields\": {FIELD: [int, ...]}}";
    if (!s->is_object()) return StepResult::Error(shape);
    const auto& o = s->as_object();
    const auto* cls = o.if_contains("class");
    const auto* fields = o.if_contains("fields");
    if (!cls || !cls->is_string() || !fields || !fields->is_object()) return StepResult::Error(shape);
    sim::LaunchRequest::TilingKeySchemaSpec spec;
    spec.cls = std::string(cls->as_string());
    for (const auto& kv : fields->as_object()) {
      if (!kv.value().is_array() || kv.value().as_array().empty()) return StepResult::Error(shape);
      std::vector<int64_t> values;
      for (const auto& v : kv.value().as_array()) {
        if (!v.is_int64()) return StepResult::Error(shape);
        values.push_back(v.as_int64());
      }
      spec.fields.emplace_back(std::string(kv.key()), std::move(values));
    }
    if (spec.fields.empty()) return StepResult::Error(shape);
    req.tiling_key_schema = std::move(spec);
  }
  req.tensors = tensors;

  auto r = sim::LaunchKernel(req);
  if (!r.ok()) return StepResult::Error(std::string(r.status().message()));
  StepResult out;
  boost::json::object doc;
  doc["file"] = req.file;
  doc["kernel"] = req.kernel;
  doc["block_dim"] = req.block_dim;
  doc["rejected"] = r->rejected;
  doc["completed"] = r->completed;
  const bool clean = !r->rejected && r->completed && !r->hazards.HasErrors();
  doc["clean"] = clean;
  doc["cache_hit"] = r->cache_hit;
  boost::json::array written;
  for (int64_t i : r->written) written.push_back(i);
  doc["written"] = std::move(written);
  doc["hazards"] = r->hazards.ToJson();
  boost::json::object st;
  st["launches"] = r->stats.launches;
  st["block_dim"] = r->stats.block_dim;
  st["cores_run"] = r->stats.cores_run;
  st["pipe_flags_pending"] = r->stats.pipe_flags_pending;
  st["vf_ops"] = r->stats.vf_ops;
  st["lane_ops"] = r->stats.lane_ops;
  st["tile_elems"] = r->stats.tile_elems;
  st["statements"] = r->stats.statements;
  doc["stats"] = std::move(st);
  out.document = std::move(doc);
  std::ostringstream os;
  WriteDiagnosticsText(r->hazards, os);
  out.text = os.str();
  out.status = clean ? kStatusOk : kStatusFindings;
  return out;
}

}  // namespace opdev::steps
