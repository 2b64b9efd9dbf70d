// JSON source locations: Boost.JSON parses values but keeps no positions, so the contract
// loaders run this small scanner over the (already validated) text to learn the line of every
// value by its JSON Pointer ("/bindings/0/requirements/1/req_id") and to find duplicate keys,
// which Boost.JSON silently collapses.
#pragma once

#include <boost/json/value.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::contract {

// Deepest nesting of arrays/objects a contract JSON file may have (the real contracts nest at
// most 5 levels). Deeper text is refused by ParseJsonText with a message naming the limit,
// and the locator stops scanning there, so neither recursion nor memory depends on the depth.
inline constexpr int kMaxJsonDepth = 64;

struct JsonDuplicateKey {
  std::string pointer;  // pointer of the duplicated member
  int line = 0;         // line of the second occurrence
};

class JsonLocator {
 public:
  // Scans `text`; safe on any input (stops at the first syntax error).
  explicit JsonLocator(std::string_view text);

  // Line (1-based) where the value at `pointer` starts; for a member, the line of its key.
  // Falls back to the nearest located ancestor, then 1.
  int Line(const std::string& pointer) const;
  const std::vector<JsonDuplicateKey>& duplicates() const { return duplicates_; }

 private:
  void Value(const std::string& ptr, int depth);
  void SkipWs();
  std::string String();
  int line_ = 1;
  size_t pos_ = 0;
  bool failed_ = false;
  std::string_view text_;
  std::map<std::string, int> lines_;
  std::vector<JsonDuplicateKey> duplicates_;
};

// Escapes a member name for use in a JSON Pointer (RFC 6901).
std::string JsonPointerToken(std::string_view key);

// Parses JSON text with Boost.JSON. On a syntax error, or nesting deeper than kMaxJsonDepth,
// returns false and sets *line/*message (the line is computed from the parser's byte offset).
// *too_deep (when given) tells the nesting limit apart from a syntax error.
bool ParseJsonText(std::string_view text, boost::json::value* out, int* line, std::string* message,
                   bool* too_deep = nullptr);

}  // namespace opdev::contract
