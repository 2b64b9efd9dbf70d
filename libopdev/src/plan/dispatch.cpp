// Strict parsing of a Stage 4 dispatch (JSON object or command-line module number).
#include "opdev/plan/dispatch.h"

#include <boost/json.hpp>

#include "opdev/support/file_io.h"

#include <charconv>

namespace opdev::plan {

boost::json::object Dispatch::ToJson() const {
  boost::json::object o;
  if (module_k) o["module_k"] = *module_k; else o["module_k"] = nullptr;
  o["finalize"] = finalize;
  o["retry_of_verifier"] = retry_of_verifier;
  if (cleanup_succeeded) o["cleanup_succeeded"] = *cleanup_succeeded;
  else o["cleanup_succeeded"] = nullptr;
  return o;
}

namespace {
std::string KindName(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64: return "integer";
    case boost::json::kind::double_: return "float";
    case boost::json::kind::string: return "string";
    case boost::json::kind::array: return "array";
    case boost::json::kind::object: return "object";
  }
  return "?";
}
}  // namespace

std::optional<Dispatch> ParseDispatchJson(const boost::json::value& v, const std::string& source,
                                          Diagnostics* diags) {
  Diagnostics local;
  Diagnostics& d = diags ? *diags : local;
  size_t errors_before = d.ErrorCount();
  if (!v.is_object()) {
    d.Error(code::kDispatchType, category::kDispatchInvalid, source, 0,
            "dispatch must be a JSON object, got " + KindName(v));
    return std::nullopt;
  }
  Dispatch out;
  auto want_bool = [&](const boost::json::value& x, const std::string& key, bool* dst) {
    if (x.is_null()) return;
    if (!x.is_bool()) {
      d.Error(code::kDispatchType, category::kDispatchInvalid, source, 0,
              "dispatch field '" + key + "' must be a JSON boolean, got " + KindName(x))
          .evidence = boost::json::serialize(x);
      return;
    }
    *dst = x.get_bool();
  };
  for (const auto& kv : v.get_object()) {
    std::string key(kv.key());
    const auto& x = kv.value();
    if (key == "module_k") {
      if (x.is_null()) continue;
      if (x.is_int64()) {
        out.module_k = x.get_int64();
      } else if (x.is_uint64()) {
        d.Error(code::kDispatchRange, category::kDispatchInvalid, source, 0,
                "dispatch module_k is out of range")
            .evidence = boost::json::serialize(x);
      } else {
        d.Error(code::kDispatchType, category::kDispatchInvalid, source, 0,
                "dispatch field 'module_k' must be a JSON integer, got " + KindName(x))
            .evidence = boost::json::serialize(x);
      }
    } else if (key == "finalize") {
      want_bool(x, key, &out.finalize);
    } else if (key == "retry_of_verifier") {
      want_bool(x, key, &out.retry_of_verifier);
    } else if (key == "cleanup_succeeded") {
      bool b = false;
      size_t before = d.ErrorCount();
      want_bool(x, key, &b);
      if (!x.is_null() && d.ErrorCount() == before) out.cleanup_succeeded = b;
    } else {
      d.Error(code::kDispatchUnknown, category::kDispatchInvalid, source, 0,
              "unknown dispatch field '" + key +
                  "' (known: module_k, finalize, retry_of_verifier, cleanup_succeeded)");
    }
  }
  if (d.ErrorCount() > errors_before) return std::nullopt;
  return out;
}

std::optional<std::int64_t> ParseModuleK(const std::string& text, Diagnostics* diags) {
  std::int64_t k = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  const char* start = (b != e && *b == '+') ? b + 1 : b;
  auto r = std::from_chars(start, e, k);
  if (text.empty() || r.ec != std::errc() || r.ptr != e) {
    if (diags) {
      diags->Error(code::kDispatchType, category::kDispatchInvalid, "", 0,
                   r.ec == std::errc::result_out_of_range
                       ? "module_k is out of range"
                       : "module_k must be an integer, got '" + text + "'")
          .evidence = text;
    }
    return std::nullopt;
  }
  return k;
}

std::optional<Dispatch> DispatchFromArgs(const DispatchArgs& a, Diagnostics* diags) {
  Diagnostics local;
  Diagnostics& d = diags ? *diags : local;
  if (a.dispatch_json) {
    if (a.module_k || a.finalize || a.retry_of_verifier || a.cleanup_succeeded) {
      d.Error(code::kDispatchConflict, category::kDispatchInvalid, "", 0,
              "give the dispatch either as JSON or as flags, not both");
      return std::nullopt;
    }
    std::string source = "<dispatch>";
    std::string text = *a.dispatch_json;
    if (!text.empty() && text[0] == '@') {
      source = text.substr(1);
      auto t = ReadTextFile(source);
      if (!t.ok()) {
        d.Error(code::kDispatchType, category::kInputError, source, 0,
                "cannot read the dispatch: " + std::string(t.status().message()));
        return std::nullopt;
      }
      text = *t;
    }
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(text, ec);
    if (ec) {
      d.Error(code::kDispatchType, category::kDispatchInvalid, source, 0,
              "dispatch is not valid JSON: " + ec.message());
      return std::nullopt;
    }
    return ParseDispatchJson(v, source, &d);
  }
  Dispatch out;
  if (a.module_k) {
    auto k = ParseModuleK(*a.module_k, &d);
    if (!k) return std::nullopt;
    out.module_k = k;
  }
  out.finalize = a.finalize;
  out.retry_of_verifier = a.retry_of_verifier;
  out.cleanup_succeeded = a.cleanup_succeeded;
  if (out.retry_of_verifier && !out.finalize) {
    d.Error(code::kDispatchConflict, category::kDispatchInvalid, "", 0,
            "--retry applies to a finalize dispatch (add --finalize)");
    return std::nullopt;
  }
  return out;
}

}  // namespace opdev::plan
