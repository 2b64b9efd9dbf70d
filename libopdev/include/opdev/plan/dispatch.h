// The orchestrator's dispatch for one Stage 4 round (stage4.md §3): nothing (L0),
// `module_k` (L1 staged Module k) or `finalize` (L1 finalize, optionally a verifier retry).
// Parsed strictly: wrong JSON types and malformed numbers are dispatch_invalid findings,
// never guessed.
#pragma once

#include "opdev/support/diagnostic.h"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace opdev::plan {

struct Dispatch {
  std::optional<std::int64_t> module_k;  // positive when valid; range checked by the planner
  bool finalize = false;
  // A verifier sent the finalize back: fix the existing final file, nothing else.
  bool retry_of_verifier = false;
  // Finalize only: whether the orchestrator's cleanup (gen_cleanup.py) succeeded. nullopt:
  // inferred from the presence of test_<op>.py.
  std::optional<bool> cleanup_succeeded;

  boost::json::object ToJson() const;
};

// Diagnostic codes of dispatch parsing and planning (category dispatch_invalid).
namespace code {
inline constexpr const char* kDispatchType = "DISPATCH-TYPE";            // wrong JSON type
inline constexpr const char* kDispatchUnknown = "DISPATCH-UNKNOWN-FIELD";
inline constexpr const char* kDispatchConflict = "DISPATCH-CONFLICT";    // module_k + finalize
inline constexpr const char* kDispatchNotFusion = "DISPATCH-NOT-FUSION"; // module_k/finalize on L0 op
inline constexpr const char* kDispatchNeedsModule = "DISPATCH-FUSION-NEEDS-MODULE";
inline constexpr const char* kDispatchRange = "DISPATCH-MODULE-RANGE";   // k <= 0 or k > count
inline constexpr const char* kDispatchEarlyFinalize = "DISPATCH-FINALIZE-EARLY";
inline constexpr const char* kDispatchRetryNoFinal = "DISPATCH-RETRY-NO-FINAL";
}  // namespace code

// Parses a dispatch object {"module_k": int, "finalize": bool, "retry_of_verifier": bool,
// "cleanup_succeeded": bool}; `null` counts as absent. module_k must be a JSON integer
// (not 2.0, "2" or true); the booleans must be JSON booleans. Findings go to `diags`
// (file = `source`); returns nullopt when any was an error.
std::optional<Dispatch> ParseDispatchJson(const boost::json::value& v, const std::string& source,
                                          Diagnostics* diags);

// Parses a command-line module number: decimal digits with an optional sign only
// ("2", "-1"); "2.0", "two", "" and out-of-range values are DISPATCH-TYPE errors.
std::optional<std::int64_t> ParseModuleK(const std::string& text, Diagnostics* diags);

// Command-line form of a dispatch: flags, or one JSON object (text, or "@path" to read it
// from a file). Mixing the JSON form with flags is a DISPATCH-CONFLICT error; JSON that does
// not parse is a DISPATCH-TYPE error naming the line.
struct DispatchArgs {
  std::optional<std::string> module_k;
  bool finalize = false;
  bool retry_of_verifier = false;
  std::optional<bool> cleanup_succeeded;
  std::optional<std::string> dispatch_json;
};
std::optional<Dispatch> DispatchFromArgs(const DispatchArgs& args, Diagnostics* diags);

}  // namespace opdev::plan
