// Source-line scanner for JSON contracts and the Boost.JSON entry point with error lines.
#include "contract/json_locator.h"

#include "opdev/support/file_io.h"

#include <boost/json/error.hpp>
#include <boost/json/stream_parser.hpp>

#include <set>

namespace opdev::contract {

std::string JsonPointerToken(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

JsonLocator::JsonLocator(std::string_view text) : text_(text) {
  SkipWs();
  Value("", 0);
}

int JsonLocator::Line(const std::string& pointer) const {
  std::string p = pointer;
  while (true) {
    auto it = lines_.find(p);
    if (it != lines_.end()) return it->second;
    if (p.empty()) return 1;
    size_t slash = p.rfind('/');
    p = slash == std::string::npos ? std::string() : p.substr(0, slash);
  }
}

void JsonLocator::SkipWs() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '\n') ++line_;
    else if (c != ' ' && c != '\t' && c != '\r') break;
    ++pos_;
  }
}

std::string JsonLocator::String() {
  // At '"'. Returns the raw (still escaped) contents; unescaping is only needed for keys,
  // handled for the common escapes.
  std::string out;
  ++pos_;
  while (pos_ < text_.size()) {
    char c = text_[pos_++];
    if (c == '"') return out;
    if (c == '\n') ++line_;
    if (c == '\\' && pos_ < text_.size()) {
      char e = text_[pos_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': out += "\\u"; break;  // rare in keys; kept verbatim
        default: out += e;
      }
      continue;
    }
    out += c;
  }
  failed_ = true;
  return out;
}

void JsonLocator::Value(const std::string& ptr, int depth) {
  if (failed_ || pos_ >= text_.size() || depth > kMaxJsonDepth) { failed_ = true; return; }
  if (!lines_.count(ptr)) lines_[ptr] = line_;
  char c = text_[pos_];
  if (c == '{') {
    ++pos_;
    std::set<std::string> seen;
    SkipWs();
    if (pos_ < text_.size() && text_[pos_] == '}') { ++pos_; return; }
    while (!failed_) {
      SkipWs();
      if (pos_ >= text_.size() || text_[pos_] != '"') { failed_ = true; return; }
      int key_line = line_;
      std::string key = String();
      std::string child = ptr + "/" + JsonPointerToken(key);
      if (!seen.insert(key).second) duplicates_.push_back({child, key_line});
      else lines_[child] = key_line;
      SkipWs();
      if (pos_ >= text_.size() || text_[pos_] != ':') { failed_ = true; return; }
      ++pos_;
      SkipWs();
      Value(child, depth + 1);
      SkipWs();
      if (pos_ < text_.size() && text_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < text_.size() && text_[pos_] == '}') { ++pos_; return; }
      failed_ = true;
    }
    return;
  }
  if (c == '[') {
    ++pos_;
    SkipWs();
    if (pos_ < text_.size() && text_[pos_] == ']') { ++pos_; return; }
    for (size_t i = 0; !failed_; ++i) {
      SkipWs();
      Value(ptr + "/" + std::to_string(i), depth + 1);
      SkipWs();
      if (pos_ < text_.size() && text_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < text_.size() && text_[pos_] == ']') { ++pos_; return; }
      failed_ = true;
    }
    return;
  }
  if (c == '"') { String(); return; }
  // number / true / false / null
  while (pos_ < text_.size()) {
    char d = text_[pos_];
    if (d == ',' || d == '}' || d == ']' || d == ' ' || d == '\n' || d == '\t' || d == '\r') break;
    ++pos_;
  }
}

bool ParseJsonText(std::string_view text, boost::json::value* out, int* line,
                   std::string* message, bool* too_deep) {
  boost::json::parse_options opts;
  opts.max_depth = kMaxJsonDepth;
  boost::json::stream_parser p({}, opts);
  boost::system::error_code ec;
  size_t consumed = p.write(text.data(), text.size(), ec);
  if (!ec) p.finish(ec);
  if (ec) {
    *line = LineOfOffset(text, consumed);
    if (too_deep) *too_deep = ec == boost::json::error::too_deep;
    *message = ec == boost::json::error::too_deep
                   ? "arrays/objects nested deeper than " + std::to_string(kMaxJsonDepth) +
                         " levels (opdev's limit for contract JSON)"
                   : ec.message();
    return false;
  }
  *out = p.release();
  return true;
}

}  // namespace opdev::contract
