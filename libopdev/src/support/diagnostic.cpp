// Rendering and collection helpers for opdev::Diagnostic.
#include "opdev/support/diagnostic.h"

#include <algorithm>
#include <tuple>

namespace opdev {

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kNote: return "note";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "error";
}

std::string Diagnostic::ToText() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (line > 0) {
      out += ":" + std::to_string(line);
      if (column > 0) out += ":" + std::to_string(column);
    }
    out += ": ";
  }
  out += SeverityName(severity);
  out += "[" + code + "]: " + message;
  if (!category.empty()) out += " (" + category + ")";
  if (!section.empty()) out += "\n    section: " + section;
  if (!evidence.empty()) {
    out += "\n    evidence: ";
    for (char c : evidence) {
      out += c;
      if (c == '\n') out += "              ";
    }
  }
  return out;
}

boost::json::object Diagnostic::ToJson() const {
  boost::json::object o;
  o["code"] = code;
  o["severity"] = std::string(SeverityName(severity));
  o["category"] = category;
  o["file"] = file;
  o["line"] = line;
  o["column"] = column;
  o["section"] = section;
  o["message"] = message;
  o["evidence"] = evidence;
  return o;
}

std::optional<Diagnostic> Diagnostic::FromJson(const boost::json::value& v) {
  const auto* o = v.if_object();
  if (!o) return std::nullopt;
  Diagnostic d;
  auto str = [&](const char* k) -> std::string {
    if (auto* p = o->if_contains(k); p && p->is_string()) return std::string(p->as_string());
    return {};
  };
  auto num = [&](const char* k) -> int {
    if (auto* p = o->if_contains(k); p && p->is_int64()) return static_cast<int>(p->as_int64());
    return 0;
  };
  d.code = str("code");
  std::string sev = str("severity");
  d.severity = sev == "note" ? Severity::kNote : sev == "warning" ? Severity::kWarning : Severity::kError;
  d.category = str("category");
  d.file = str("file");
  d.line = num("line");
  d.column = num("column");
  d.section = str("section");
  d.message = str("message");
  d.evidence = str("evidence");
  if (d.code.empty()) return std::nullopt;
  return d;
}

Diagnostic& Diagnostics::Add(Diagnostic d) {
  items_.push_back(std::move(d));
  return items_.back();
}

Diagnostic& Diagnostics::Error(std::string code, std::string_view cat, std::string file, int line,
                               std::string message) {
  Diagnostic d;
  d.code = std::move(code);
  d.severity = Severity::kError;
  d.category = std::string(cat);
  d.file = std::move(file);
  d.line = line;
  d.message = std::move(message);
  return Add(std::move(d));
}

Diagnostic& Diagnostics::Warning(std::string code, std::string_view cat, std::string file,
                                 int line, std::string message) {
  Diagnostic& d = Error(std::move(code), cat, std::move(file), line, std::move(message));
  d.severity = Severity::kWarning;
  return d;
}

void Diagnostics::Append(const Diagnostics& other) {
  items_.insert(items_.end(), other.items_.begin(), other.items_.end());
}

size_t Diagnostics::ErrorCount() const {
  return std::count_if(items_.begin(), items_.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::kError; });
}

size_t Diagnostics::WarningCount() const {
  return std::count_if(items_.begin(), items_.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::kWarning; });
}

std::string Diagnostics::CountsText() const {
  return std::to_string(ErrorCount()) + " error(s), " + std::to_string(WarningCount()) +
         " warning(s)";
}

bool Diagnostics::HasCode(std::string_view code) const { return Find(code) != nullptr; }

const Diagnostic* Diagnostics::Find(std::string_view code) const {
  for (const auto& d : items_)
    if (d.code == code) return &d;
  return nullptr;
}

void Diagnostics::Sort() {
  std::stable_sort(items_.begin(), items_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.file, a.line, a.column, a.code, a.message) <
           std::tie(b.file, b.line, b.column, b.code, b.message);
  });
}

std::string Diagnostics::ToText() const {
  std::string out;
  for (const auto& d : items_) out += d.ToText() + "\n";
  return out;
}

boost::json::array Diagnostics::ToJson() const {
  boost::json::array a;
  for (const auto& d : items_) a.push_back(d.ToJson());
  return a;
}

}  // namespace opdev
