// Parsing of what a delivered test file prints: per-case `[label] PASS (<summary>)` lines
// (both the one-line `matched_ratio=…, max_abs_error=…` summary and the multi-line scheme-A
// block), `精度不达标: …` precision failures, Python tracebacks with the test function they
// ran in, and warnings. Pure text in, structured results out; no process handling here.
#pragma once

#include "opdev/support/diagnostic.h"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace opdev::runtime {

// Metrics of one scheme-A comparison as printed in a summary.
struct PrecisionMetrics {
  std::optional<double> mean_abs_error;  // the "atol" row
  std::optional<double> mean_rel_error;  // the "rtol" row
  std::optional<double> matched_ratio;
  std::optional<double> max_abs_error;
  std::vector<std::string> failed_checks;  // rows marked [CHECK_FAILED]
  bool empty() const {
    return !mean_abs_error && !mean_rel_error && !matched_ratio && !max_abs_error;
  }
  boost::json::object ToJson() const;
};

// Parses a precision summary (one-line or multi-line form); unknown text gives empty metrics.
PrecisionMetrics ParsePrecisionSummary(const std::string& summary);

struct TracebackFrame {
  std::string file;
  int line = 0;
  std::string function;
};

struct Traceback {
  std::vector<TracebackFrame> frames;   // outermost first
  std::string exception_type;           // "AssertionError", "ModuleNotFoundError", ...
  std::string message;                  // everything after "Type: " (may span lines)
  int first_line = 0;                   // 1-based line of "Traceback (most recent call last):"
  // The innermost frame whose function is a test (def test_...), or empty.
  std::string test_function;
};

enum class CaseStatus { kPass, kPrecisionFail, kError, kNotRun };
std::string_view CaseStatusName(CaseStatus s);

struct CaseResult {
  std::string name;        // the test function (test_<op>_<case>) when known, else the label
  std::string label;       // the label printed by _assert_precision, if any
  CaseStatus status = CaseStatus::kNotRun;
  PrecisionMetrics metrics;
  std::string summary;     // the raw summary text
  std::string error;       // "Type: message" for failures
  int output_line = 0;     // 1-based line in the combined output where the evidence starts
  // Simulator hazards of this case (sim backend: the §8 runner's findings, or the
  // SimulatorWarning lines the CPU device printed while the case ran). Not part of ToJson:
  // reports list each hazard once with the cases it occurred in (triage/hazard_groups.h).
  Diagnostics hazards;
  boost::json::object ToJson() const;
};

// A finding of opdev's CPU device the test's Python printed as a warning:
// `FILE:LINE: SimulatorWarning: SIM-CODE: message` (bindings/python/opdev/device).
struct SimulatorWarningLine {
  int output_line = 0;  // 1-based line in the combined output
  Diagnostic finding;   // code, severity warning, category from the hazard catalogue, file:line
};

struct ParsedOutput {
  std::vector<CaseResult> events;       // PASS lines and failures, in output order
  std::vector<Traceback> tracebacks;
  std::vector<std::string> warnings;    // lines mentioning "Warning"/"WARNING"
  // Every SimulatorWarning line; each is also in the hazards of the event printed next after
  // it (the case whose launch raised it; after the last event: the last event).
  std::vector<SimulatorWarningLine> simulator_warnings;
  bool has_matched_ratio_eq = false;    // literal "matched_ratio=" somewhere (verifier grep)
  bool has_max_abs_error_eq = false;    // literal "max_abs_error=" somewhere
  int pass_lines = 0;
};

ParsedOutput ParseRunOutput(const std::string& text);

// Assigns the parsed events to the expected cases (the file's test functions in order).
// A PASS label matches a case when it equals the case name, the name without "test_", or
// the name without "test_<op>_", or starts with one of these followed by a space or '['.
// The failing traceback's test function is the failed case. Cases with no evidence are
// kNotRun. Events that match no expected case are appended under their label.
std::vector<CaseResult> AssignCases(const ParsedOutput& parsed,
                                    const std::vector<std::string>& expected_cases,
                                    const std::string& op);

}  // namespace opdev::runtime
