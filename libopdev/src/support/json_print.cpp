// Two-space-indented JSON printer over boost::json (Boost 1.81 has only compact output).
#include "opdev/support/json_print.h"

#include <boost/json/serialize.hpp>

namespace opdev {
namespace {

void Print(const boost::json::value& v, std::string& out, int indent) {
  auto pad = [&](int n) { out.append(static_cast<size_t>(n) * 2, ' '); };
  switch (v.kind()) {
    case boost::json::kind::object: {
      const auto& o = v.get_object();
      if (o.empty()) { out += "{}"; return; }
      out += "{\n";
      bool first = true;
      for (const auto& kv : o) {
        if (!first) out += ",\n";
        first = false;
        pad(indent + 1);
        out += boost::json::serialize(boost::json::value(kv.key()));
        out += ": ";
        Print(kv.value(), out, indent + 1);
      }
      out += "\n";
      pad(indent);
      out += "}";
      return;
    }
    case boost::json::kind::array: {
      const auto& a = v.get_array();
      if (a.empty()) { out += "[]"; return; }
      out += "[\n";
      for (size_t i = 0; i < a.size(); ++i) {
        if (i) out += ",\n";
        pad(indent + 1);
        Print(a[i], out, indent + 1);
      }
      out += "\n";
      pad(indent);
      out += "]";
      return;
    }
    default:
      out += boost::json::serialize(v);
  }
}

}  // namespace

std::string PrettyJson(const boost::json::value& v) {
  std::string out;
  Print(v, out, 0);
  out += "\n";
  return out;
}

}  // namespace opdev
