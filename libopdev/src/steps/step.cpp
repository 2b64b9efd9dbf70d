// Dispatch of named steps, the exception barrier and request-field helpers.
#include "opdev/steps/step.h"

#include "steps/step_table.h"

#include <exception>

namespace opdev::steps {

StepResult StepResult::Error(std::string message) {
  StepResult r;
  r.status = kStatusError;
  boost::json::object o;
  o["error"] = message;
  r.document = std::move(o);
  r.text_err = std::move(message) + "\n";
  r.call_failed = true;
  return r;
}

std::string StepResult::ErrorMessage() const {
  const auto* o = document.if_object();
  const auto* e = o ? o->if_contains("error") : nullptr;
  return e && e->is_string() ? std::string(e->as_string()) : std::string();
}

std::vector<std::string> StepNames() {
  std::vector<std::string> names;
  for (const auto& entry : StepTable()) names.push_back(entry.name);
  return names;
}

StepResult RunStep(std::string_view name, const StepContext& ctx,
                   const boost::json::object& request) {
  for (const auto& entry : StepTable()) {
    if (entry.name != name) continue;
    try {
      return entry.run(ctx, request);
    } catch (const std::exception& e) {
      return StepResult::Error(std::string("internal error: ") + e.what());
    } catch (...) {
      return StepResult::Error("internal error: unknown exception");
    }
  }
  return StepResult::Error("unknown step '" + std::string(name) + "'");
}

namespace {

// A JSON number as a double (integers converted); nullopt for anything else.
std::optional<double> AsNumber(const boost::json::value& v) {
  if (v.is_double()) return v.as_double();
  if (v.is_int64()) return static_cast<double>(v.as_int64());
  if (v.is_uint64()) return static_cast<double>(v.as_uint64());
  return std::nullopt;
}

}  // namespace

std::string RequestReader::String(std::string_view key, bool required) {
  const boost::json::value* v = request.if_contains(key);
  if (!v || v->is_null()) {
    if (required && error.empty()) error = "request field '" + std::string(key) + "' is required";
    return {};
  }
  if (!v->is_string()) {
    if (error.empty()) error = "request field '" + std::string(key) + "' must be a string";
    return {};
  }
  return std::string(v->as_string());
}

std::optional<std::int64_t> RequestReader::Int(std::string_view key) {
  const boost::json::value* v = request.if_contains(key);
  if (!v || v->is_null()) return std::nullopt;
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64() && v->as_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(v->as_uint64());
  if (error.empty()) error = "request field '" + std::string(key) + "' must be an integer";
  return std::nullopt;
}

std::optional<double> RequestReader::Number(std::string_view key) {
  const boost::json::value* v = request.if_contains(key);
  if (!v || v->is_null()) return std::nullopt;
  if (auto d = AsNumber(*v)) return d;
  if (error.empty()) error = "request field '" + std::string(key) + "' must be a number";
  return std::nullopt;
}

std::optional<std::string> RequestReader::IntOrString(std::string_view key) {
  const boost::json::value* v = request.if_contains(key);
  if (!v || v->is_null()) return std::nullopt;
  if (v->is_string()) return std::string(v->as_string());
  if (v->is_int64()) return std::to_string(v->as_int64());
  if (v->is_uint64()) return std::to_string(v->as_uint64());
  if (error.empty()) error = "request field '" + std::string(key) + "' must be an integer";
  return std::nullopt;
}

bool RequestReader::Bool(std::string_view key, bool fallback) {
  const boost::json::value* v = request.if_contains(key);
  if (!v || v->is_null()) return fallback;
  if (v->is_bool()) return v->as_bool();
  if (error.empty()) error = "request field '" + std::string(key) + "' must be true or false";
  return fallback;
}

std::vector<std::string> RequestReader::Strings(std::string_view key) {
  std::vector<std::string> out;
  const boost::json::value* v = request.if_contains(key);
  if (!v || v->is_null()) return out;
  if (!v->is_array()) {
    if (error.empty()) error = "request field '" + std::string(key) + "' must be a list of strings";
    return out;
  }
  for (const auto& item : v->as_array()) {
    if (!item.is_string()) {
      if (error.empty()) error = "request field '" + std::string(key) + "' must be a list of strings";
      return {};
    }
    out.emplace_back(item.as_string());
  }
  return out;
}

std::vector<double> RequestReader::Numbers(std::string_view key) {
  std::vector<double> out;
  const boost::json::value* v = request.if_contains(key);
  if (!v || v->is_null()) return out;
  const std::string message = "request field '" + std::string(key) + "' must be a list of numbers";
  if (!v->is_array()) {
    if (error.empty()) error = message;
    return out;
  }
  for (const auto& item : v->as_array()) {
    std::optional<double> d = AsNumber(item);
    if (!d) {
      if (error.empty()) error = message;
      return {};
    }
    out.push_back(*d);
  }
  return out;
}

}  // namespace opdev::steps
