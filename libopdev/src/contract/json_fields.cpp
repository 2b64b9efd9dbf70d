// Diagnosed typed getters over a JSON object (see json_fields.h).
#include "contract/json_fields.h"

#include <algorithm>
#include <cstring>

namespace opdev::contract {

void JsonFields::Missing(const char* key) {
  if (!diags_) return;
  std::string where = ptr_.empty() ? "top level" : ptr_;
  diags_->Error(prefix_ + "-FIELD-MISSING", category_, file_, ObjectLine(),
                "required field '" + std::string(key) + "' is missing at " + where);
}

void JsonFields::WrongType(const char* key, const char* expected) {
  if (!diags_) return;
  diags_->Error(prefix_ + "-FIELD-TYPE", category_, file_, Line(key),
                "field '" + std::string(key) + "' at " + Pointer(key) + " must be " + expected);
}

std::string JsonFields::Str(const char* key, bool required) {
  const auto* v = obj_.if_contains(key);
  if (!v) { if (required) Missing(key); return {}; }
  if (!v->is_string()) { WrongType(key, "a string"); return {}; }
  return std::string(v->get_string());
}

std::optional<std::int64_t> JsonFields::Int(const char* key, bool required) {
  const auto* v = obj_.if_contains(key);
  if (!v) { if (required) Missing(key); return std::nullopt; }
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(v->get_uint64());
  WrongType(key, "an integer");
  return std::nullopt;
}

std::optional<bool> JsonFields::Bool(const char* key, bool required) {
  const auto* v = obj_.if_contains(key);
  if (!v) { if (required) Missing(key); return std::nullopt; }
  if (!v->is_bool()) { WrongType(key, "a JSON boolean"); return std::nullopt; }
  return v->get_bool();
}

std::vector<std::string> JsonFields::StrList(const char* key, bool required) {
  std::vector<std::string> out;
  const auto* v = obj_.if_contains(key);
  if (!v) { if (required) Missing(key); return out; }
  if (!v->is_array()) { WrongType(key, "an array of strings"); return out; }
  for (const auto& e : v->get_array()) {
    if (!e.is_string()) { WrongType(key, "an array of strings"); return {}; }
    out.emplace_back(e.get_string());
  }
  return out;
}

const boost::json::array* JsonFields::Array(const char* key, bool required) {
  const auto* v = obj_.if_contains(key);
  if (!v) { if (required) Missing(key); return nullptr; }
  if (!v->is_array()) { WrongType(key, "an array"); return nullptr; }
  return &v->get_array();
}

const boost::json::object* JsonFields::Object(const char* key, bool required) {
  const auto* v = obj_.if_contains(key);
  if (!v) { if (required) Missing(key); return nullptr; }
  if (!v->is_object()) { WrongType(key, "an object"); return nullptr; }
  return &v->get_object();
}

std::vector<std::string> JsonFields::Present() const {
  std::vector<std::string> out;
  for (const auto& kv : obj_) out.emplace_back(kv.key());
  return out;
}

std::map<std::string, int> JsonFields::Lines() const {
  std::map<std::string, int> out;
  for (const auto& kv : obj_) out[std::string(kv.key())] = Line(std::string(kv.key()));
  return out;
}

std::vector<UnknownField> JsonFields::Unknown(std::initializer_list<const char*> known,
                                              bool report, Severity unknown_severity) {
  std::vector<UnknownField> out;
  for (const auto& kv : obj_) {
    std::string k(kv.key());
    bool ok = std::any_of(known.begin(), known.end(),
                          [&](const char* n) { return std::strcmp(n, k.c_str()) == 0; });
    if (ok) continue;
    out.push_back({k, ptr_.empty() ? "/" : ptr_, Line(k)});
    if (report && diags_) {
      Diagnostic d;
      d.code = prefix_ + "-FIELD-UNKNOWN";
      d.severity = unknown_severity;
      d.category = category_;
      d.file = file_;
      d.line = Line(k);
      d.message = "unknown field '" + k + "' at " + (ptr_.empty() ? std::string("top level") : ptr_);
      diags_->Add(std::move(d));
    }
  }
  return out;
}

}  // namespace opdev::contract

namespace opdev::contract {

absl::StatusOr<boost::json::value> ParseJsonContract(std::string_view text, const std::string& path,
                                                     const JsonLocator& loc,
                                                     std::string_view dup_category,
                                                     const std::string& prefix,
                                                     Diagnostics* diags) {
  boost::json::value v;
  int line = 0;
  std::string msg;
  bool too_deep = false;
  if (!ParseJsonText(text, &v, &line, &msg, &too_deep)) {
    const char* what = too_deep ? "JSON over opdev's input limit: " : "malformed JSON: ";
    if (diags) diags->Error(too_deep ? code::kInputLimit : code::kJsonSyntax, category::kInputError,
                            path, line, what + msg);
    return absl::InvalidArgumentError(path + ":" + std::to_string(line) + ": " + what + msg);
  }
  for (const auto& d : loc.duplicates()) {
    if (diags) diags->Error(code::kJsonDuplicateKey, dup_category, path, d.line,
                            "duplicate JSON key " + d.pointer + " (the earlier value would be lost)");
  }
  if (!v.is_object()) {
    if (diags) diags->Error(prefix + "-FIELD-TYPE", dup_category, path, 1,
                            "top-level JSON value must be an object");
    return absl::InvalidArgumentError(path + ": top-level JSON value must be an object");
  }
  return v;
}

}  // namespace opdev::contract
