// The KB_USAGE invariant string (stage4.md §6):
//   "[" selection_field ":" json(req_id) " | " json(source_anchors) "] " binding_invariant
// where both JSON parts are exactly Python's json.dumps(v, ensure_ascii=False). Built for
// generation, and parsed back (with a byte-exact re-encoding check) for the verifier view.
#pragma once

#include "absl/status/statusor.h"

#include <string>
#include <string_view>
#include <vector>

namespace opdev::kbusage {

// Builds the full invariant. Error only for text that is not valid UTF-8.
absl::StatusOr<std::string> BuildInvariant(std::string_view selection_field,
                                           std::string_view req_id,
                                           const std::vector<std::string>& source_anchors,
                                           std::string_view binding_invariant);

struct ParsedInvariant {
  std::string selection_field;
  std::string req_id;
  std::vector<std::string> source_anchors;
  std::string rest;            // text after "] ", the binding invariant copy
  std::string req_id_json;     // the JSON parts exactly as written
  std::string anchors_json;
  bool canonical = false;      // both JSON parts equal json.dumps(..., ensure_ascii=False)
  std::string canonical_prefix;  // the prefix as it should have been written
};

// Parses the prefix. Errors (InvalidArgument, message saying what is wrong at which byte):
// no leading "[", no ":", a req_id that is not one JSON string, a missing " | ", anchors that
// are not a JSON array of strings, a missing "] " after the array. A prefix that parses but
// is not byte-identical to Python's encoding (e.g. "\u5f52" escapes, no space after ",")
// returns OK with canonical = false.
absl::StatusOr<ParsedInvariant> ParseInvariant(std::string_view invariant);

}  // namespace opdev::kbusage
