// Parser of planned_location strings (see planned_location.h).
#include "opdev/kbusage/planned_location.h"

#include <cctype>
#include <regex>

namespace opdev::kbusage {

namespace {

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

bool IdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Splits on " / " outside brackets.
std::vector<std::string> SplitItems(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    else if (depth == 0 && c == '/' && i > 0 && s[i - 1] == ' ' && i + 1 < s.size() &&
             s[i + 1] == ' ') {
      out.push_back(Trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(Trim(s.substr(start)));
  std::vector<std::string> nonempty;
  for (auto& x : out)
    if (!x.empty()) nonempty.push_back(std::move(x));
  return nonempty;
}

LocationItem MakeItem(std::string text) {
  LocationItem it;
  it.text = text;
  size_t i = 0;
  if (!text.empty() && IdentStart(text[0])) {
    while (i < text.size() && (IdentChar(text[i]) ||
                               (text[i] == '.' && i + 1 < text.size() && IdentStart(text[i + 1]))))
      ++i;
    it.head = text.substr(0, i);
  }
  if (!it.head.empty()) {
    std::string rest = Trim(std::string_view(text).substr(i));
    // Claimed: the identifier alone, or followed by whitespace and one "(note)".
    bool note = i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) &&
                rest.size() >= 2 && rest.front() == '(' && rest.back() == ')';
    it.claimed = rest.empty() || note;
  }
  return it;
}

}  // namespace

std::vector<const LocationFileRef*> PlannedLocation::For(std::string_view basename) const {
  std::vector<const LocationFileRef*> out;
  for (const auto& f : files) {
    std::string_view name = f.file;
    size_t slash = name.rfind('/');
    if (slash != std::string_view::npos) name = name.substr(slash + 1);
    if (name == basename) out.push_back(&f);
  }
  return out;
}

PlannedLocation ParsePlannedLocation(std::string_view text) {
  PlannedLocation loc;
  static const std::regex file_re(R"(([A-Za-z0-9_./-]*[A-Za-z0-9_]\.py)(?![A-Za-z0-9_]))");
  size_t start = 0;
  std::string s(text);
  while (start <= s.size()) {
    size_t semi = s.find(';', start);
    std::string clause = s.substr(start, semi == std::string::npos ? std::string::npos : semi - start);
    std::smatch m;
    std::string::const_iterator search_from = clause.cbegin();
    std::vector<std::pair<size_t, std::string>> found;
    while (std::regex_search(search_from, clause.cend(), m, file_re)) {
      size_t pos = static_cast<size_t>(m.position(1) + (search_from - clause.cbegin()));
      found.emplace_back(pos, m.str(1));
      search_from = m[0].second;
    }
    for (size_t i = 0; i < found.size(); ++i) {
      LocationFileRef ref;
      ref.file = found[i].second;
      size_t after = found[i].first + found[i].second.size();
      size_t limit = i + 1 < found.size() ? found[i + 1].first : clause.size();
      std::string tail = clause.substr(after, limit - after);
      std::string t = Trim(tail);
      if (!t.empty() && t[0] == ':') {
        std::string sym = Trim(std::string_view(t).substr(1));
        while (!sym.empty() && (sym.back() == '.' || sym.back() == ',')) sym.pop_back();
        ref.symbol_text = Trim(sym);
        for (auto& item : SplitItems(ref.symbol_text)) ref.items.push_back(MakeItem(item));
      }
      loc.files.push_back(std::move(ref));
    }
    if (semi == std::string::npos) break;
    start = semi + 1;
  }
  return loc;
}

}  // namespace opdev::kbusage
