// Finding helpers of the codegen context.
#include "gen_context.h"

namespace opdev::codegen {

std::string GenContext::DesignLine(int line) const {
  if (!design || line < 1 || static_cast<size_t>(line) > design->lines.size()) return "";
  std::string l = design->lines[line - 1];
  size_t b = l.find_first_not_of(" \t");
  size_t e = l.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : l.substr(b, e - b + 1);
}

Diagnostic& GenContext::Violation(const std::string& code, int line, const std::string& section,
                                  const std::string& message, const std::string& evidence) {
  Diagnostic& d = diags->Error(code, category::kDesignViolation, file(), line, message);
  d.section = section;
  d.evidence = evidence.empty() ? DesignLine(line) : evidence;
  return d;
}

Diagnostic& GenContext::Warn(const std::string& code, int line, const std::string& section,
                             const std::string& message, const std::string& evidence) {
  Diagnostic& d = diags->Warning(code, category::kDesignViolation, file(), line, message);
  d.section = section;
  d.evidence = evidence.empty() ? DesignLine(line) : evidence;
  return d;
}

std::vector<std::string> GenContext::LiteralConstantsEqualTo(std::int64_t v) const {
  std::vector<std::string> names;
  for (const auto& n : constant_names) {
    if (!literal_int_constants.count(n)) continue;
    auto it = constants.find(n);
    if (it != constants.end() && it->second == v) names.push_back(n);
  }
  return names;
}

const SpecTensor* GenContext::FindTensor(const std::string& name) const {
  if (spec) {
    for (const auto& t : spec->inputs)
      if (t.name == name) return &t;
    for (const auto& t : spec->outputs)
      if (t.name == name) return &t;
  }
  for (const auto& t : workspaces)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace opdev::codegen
