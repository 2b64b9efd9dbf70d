// Diagnostic: the one record type for every finding opdev reports about its inputs or
// outputs (contract defects, lint findings, hazards, KB usage errors, ...). Findings are
// collected as values, never thrown; they render as compiler-style text and as JSON.
#pragma once

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opdev {

enum class Severity { kNote, kWarning, kError };

std::string_view SeverityName(Severity s);

// Failure categories: the verifier's vocabulary (reference/pypto-pro-contracts.md §4.3).
namespace category {
inline constexpr std::string_view kDesignViolation = "design_violation";
inline constexpr std::string_view kKbSelectionInvalid = "kb_selection_invalid";
inline constexpr std::string_view kKbUsageInvalid = "kb_usage_invalid";
inline constexpr std::string_view kMissingFile = "missing_file";
inline constexpr std::string_view kIncompleteStructure = "incomplete_structure";
inline constexpr std::string_view kDispatchInvalid = "dispatch_invalid";
inline constexpr std::string_view kImplementationError = "implementation_error";
inline constexpr std::string_view kPrecisionFailure = "precision_failure";
inline constexpr std::string_view kRuntimeFailure = "runtime_failure";
inline constexpr std::string_view kEnvError = "env_error";
inline constexpr std::string_view kCapabilityGap = "capability_gap";
inline constexpr std::string_view kInputError = "input_error";
}  // namespace category

struct Diagnostic {
  std::string code;            // stable identifier, e.g. "DESIGN-TABLE-MISSING"
  Severity severity = Severity::kError;
  std::string category;        // one of opdev::category
  std::string file;            // path as the user gave it (may be empty)
  int line = 0;                // 1-based; 0 = whole file
  int column = 0;              // 1-based; 0 = unknown
  std::string section;         // DESIGN section such as "§3", or empty
  std::string message;
  std::string evidence;        // the offending text, a value, ...

  // "path:line:col: error[CODE]: message" plus indented section/evidence lines.
  std::string ToText() const;
  boost::json::object ToJson() const;
  static std::optional<Diagnostic> FromJson(const boost::json::value& v);
};

// An ordered collection of findings with helpers used by every checker.
class Diagnostics {
 public:
  Diagnostic& Add(Diagnostic d);
  Diagnostic& Error(std::string code, std::string_view category, std::string file, int line,
                    std::string message);
  Diagnostic& Warning(std::string code, std::string_view category, std::string file, int line,
                      std::string message);
  void Append(const Diagnostics& other);

  const std::vector<Diagnostic>& items() const { return items_; }
  std::vector<Diagnostic>& items() { return items_; }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  size_t ErrorCount() const;
  size_t WarningCount() const;
  // "N error(s), M warning(s)": the summary line every command prints after its findings.
  std::string CountsText() const;
  bool HasErrors() const { return ErrorCount() > 0; }
  bool HasCode(std::string_view code) const;
  const Diagnostic* Find(std::string_view code) const;

  // Stable order: file, line, column, code, message.
  void Sort();
  std::string ToText() const;
  boost::json::array ToJson() const;

 private:
  std::vector<Diagnostic> items_;
};

}  // namespace opdev
