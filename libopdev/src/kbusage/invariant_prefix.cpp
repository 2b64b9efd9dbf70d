// Building and parsing the KB_USAGE invariant prefix (see invariant_prefix.h).
#include "opdev/kbusage/invariant_prefix.h"

#include "opdev/kbusage/py_json.h"

#include <boost/json.hpp>

namespace opdev::kbusage {

absl::StatusOr<std::string> BuildInvariant(std::string_view selection_field,
                                           std::string_view req_id,
                                           const std::vector<std::string>& source_anchors,
                                           std::string_view binding_invariant) {
  auto rid = PyJsonString(req_id);
  if (!rid.ok()) return rid.status();
  boost::json::array anchors;
  for (const auto& a : source_anchors) anchors.push_back(boost::json::value(a));
  auto aj = PyJsonDumps(anchors);
  if (!aj.ok()) return aj.status();
  std::string out = "[";
  out += selection_field;
  out += ":";
  out += *rid;
  out += " | ";
  out += *aj;
  out += "] ";
  out += binding_invariant;
  return out;
}

namespace {

// End (one past the closing quote) of the JSON string starting at s[pos] == '"'.
size_t ScanString(std::string_view s, size_t pos) {
  for (size_t i = pos + 1; i < s.size(); ++i) {
    if (s[i] == '\\') { ++i; continue; }
    if (s[i] == '"') return i + 1;
  }
  return std::string_view::npos;
}

// End of the JSON array starting at s[pos] == '['.
size_t ScanArray(std::string_view s, size_t pos) {
  int depth = 0;
  for (size_t i = pos; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      size_t e = ScanString(s, i);
      if (e == std::string_view::npos) return e;
      i = e - 1;
    } else if (c == '[') {
      ++depth;
    } else if (c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

absl::Status Bad(const std::string& what, size_t at) {
  return absl::InvalidArgumentError("invariant prefix: " + what + " (byte " + std::to_string(at) +
                                    ")");
}

}  // namespace

absl::StatusOr<ParsedInvariant> ParseInvariant(std::string_view inv) {
  ParsedInvariant p;
  if (inv.empty() || inv[0] != '[') return Bad("must start with '['", 0);
  size_t colon = inv.find(':');
  if (colon == std::string_view::npos) return Bad("no ':' after the selection field", 1);
  p.selection_field = std::string(inv.substr(1, colon - 1));
  size_t pos = colon + 1;
  if (pos >= inv.size() || inv[pos] != '"')
    return Bad("req_id must be a JSON string right after ':'", pos);
  size_t end = ScanString(inv, pos);
  if (end == std::string_view::npos) return Bad("unterminated req_id string", pos);
  p.req_id_json = std::string(inv.substr(pos, end - pos));
  boost::system::error_code ec;
  auto rid = boost::json::parse(p.req_id_json, ec);
  if (ec || !rid.is_string()) return Bad("req_id is not a valid JSON string", pos);
  p.req_id = std::string(rid.get_string());
  pos = end;
  if (inv.substr(pos, 3) != " | ") return Bad("expected \" | \" after the req_id", pos);
  pos += 3;
  if (pos >= inv.size() || inv[pos] != '[')
    return Bad("source_anchors must be a JSON array after \" | \"", pos);
  end = ScanArray(inv, pos);
  if (end == std::string_view::npos) return Bad("unterminated source_anchors array", pos);
  p.anchors_json = std::string(inv.substr(pos, end - pos));
  auto arr = boost::json::parse(p.anchors_json, ec);
  if (ec || !arr.is_array()) return Bad("source_anchors is not a valid JSON array", pos);
  for (const auto& a : arr.get_array()) {
    if (!a.is_string()) return Bad("source_anchors must hold only strings", pos);
    p.source_anchors.emplace_back(a.get_string());
  }
  pos = end;
  if (inv.substr(pos, 2) != "] ")
    return Bad("expected \"] \" (bracket and one space) after the anchors", pos);
  p.rest = std::string(inv.substr(pos + 2));
  auto canon = BuildInvariant(p.selection_field, p.req_id, p.source_anchors, "");
  if (!canon.ok()) return canon.status();
  p.canonical_prefix = *canon;
  p.canonical = inv.substr(0, pos + 2) == p.canonical_prefix;
  return p;
}

}  // namespace opdev::kbusage
