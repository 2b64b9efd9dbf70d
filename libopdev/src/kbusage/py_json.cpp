// Python-compatible JSON encoder (see py_json.h): mirrors CPython's json encoder and
// float.__repr__ so that opdev's KB_USAGE files are byte-identical to what the pipeline's
// Python tools and verifier produce.
#include "opdev/kbusage/py_json.h"

#include "opdev/support/file_io.h"

#include "absl/strings/str_cat.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

namespace opdev::kbusage {
namespace {

absl::Status EncodeString(std::string_view s, std::string& out) {
  if (FindInvalidUtf8(s) >= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("string is not valid UTF-8: \"", std::string(s.substr(0, 40)), "\""));
  }
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
  return absl::OkStatus();
}

absl::Status Encode(const boost::json::value& v, int indent, int level, std::string& out) {
  auto newline = [&](int lvl) {
    out.push_back('\n');
    out.append(static_cast<size_t>(indent) * static_cast<size_t>(lvl), ' ');
  };
  switch (v.kind()) {
    case boost::json::kind::null: out += "null"; return absl::OkStatus();
    case boost::json::kind::bool_: out += v.get_bool() ? "true" : "false"; return absl::OkStatus();
    case boost::json::kind::int64: out += std::to_string(v.get_int64()); return absl::OkStatus();
    case boost::json::kind::uint64: out += std::to_string(v.get_uint64()); return absl::OkStatus();
    case boost::json::kind::double_: {
      auto r = PyFloatRepr(v.get_double());
      if (!r.ok()) return r.status();
      out += *r;
      return absl::OkStatus();
    }
    case boost::json::kind::string: {
      const auto& s = v.get_string();
      return EncodeString(std::string_view(s.data(), s.size()), out);
    }
    case boost::json::kind::array: {
      const auto& a = v.get_array();
      if (a.empty()) { out += "[]"; return absl::OkStatus(); }
      out.push_back('[');
      for (size_t i = 0; i < a.size(); ++i) {
        if (i > 0) out += indent >= 0 ? "," : ", ";
        if (indent >= 0) newline(level + 1);
        if (auto st = Encode(a[i], indent, level + 1, out); !st.ok()) return st;
      }
      if (indent >= 0) newline(level);
      out.push_back(']');
      return absl::OkStatus();
    }
    case boost::json::kind::object: {
      const auto& o = v.get_object();
      if (o.empty()) { out += "{}"; return absl::OkStatus(); }
      out.push_back('{');
      bool first = true;
      for (const auto& kv : o) {
        if (!first) out += indent >= 0 ? "," : ", ";
        first = false;
        if (indent >= 0) newline(level + 1);
        if (auto st = EncodeString(std::string_view(kv.key().data(), kv.key().size()), out);
            !st.ok()) {
          return st;
        }
        out += ": ";
        if (auto st = Encode(kv.value(), indent, level + 1, out); !st.ok()) return st;
      }
      if (indent >= 0) newline(level);
      out.push_back('}');
      return absl::OkStatus();
    }
  }
  return absl::InternalError("unknown JSON kind");
}

}  // namespace

absl::StatusOr<std::string> PyFloatRepr(double d) {
  if (!std::isfinite(d)) {
    return absl::InvalidArgumentError(
        "non-finite float (inf/nan) has no JSON form; Python would print Infinity/NaN");
  }
  // Shortest round-trip digits in scientific form, e.g. "-1.2345e-07" or "5e+00".
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  bool negative = !sci.empty() && sci[0] == '-';
  if (negative) sci.erase(0, 1);
  size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  int exp10 = std::stoi(sci.substr(e + 1));
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits.push_back(c);
  }
  // Python (repr mode 'r'): decpt = exp10 + 1; scientific when decpt <= -4 or decpt > 16.
  int decpt = exp10 + 1;
  std::string out = negative ? "-" : "";
  if (decpt <= -4 || decpt > 16) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) {
      out += ".";
      out += digits.substr(1);
    }
    char ebuf[16];
    std::snprintf(ebuf, sizeof(ebuf), "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    out += ebuf;
  } else if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-decpt), '0');
    out += digits;
  } else if (static_cast<size_t>(decpt) >= digits.size()) {
    out += digits;
    out.append(static_cast<size_t>(decpt) - digits.size(), '0');
    out += ".0";
  } else {
    out += digits.substr(0, static_cast<size_t>(decpt));
    out += ".";
    out += digits.substr(static_cast<size_t>(decpt));
  }
  return out;
}

absl::StatusOr<std::string> PyJsonString(std::string_view utf8) {
  std::string out;
  if (auto st = EncodeString(utf8, out); !st.ok()) return st;
  return out;
}

absl::StatusOr<std::string> PyJsonDumps(const boost::json::value& v, int indent) {
  std::string out;
  if (auto st = Encode(v, indent, 0, out); !st.ok()) return st;
  return out;
}

}  // namespace opdev::kbusage
