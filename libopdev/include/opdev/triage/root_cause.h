// Classification by the routing table of stage4.md §5 step 7, with evidence. The defect's
// kernel lines are found first — error hazards; else the warnings inside the loop whose
// stores are wrong (localise.h); else the writing lines themselves — and then routed by
// where those lines came from (source map, hazard_groups.h):
//   * transcribed from DESIGN (verbatim or derived)   → suspected design_violation, with the
//     original error, the minimal repro and the DESIGN location;
//   * written by opdev's own skeleton or emitters     → implementation_error, an opdev defect;
//   * a hand-written or edited file (no matching map) → implementation_error at the kernel line;
//   * the environment                                 → env_error.
// Nothing is ever repaired: the verdict says what to report or fix.
#pragma once

#include "opdev/triage/hazard_groups.h"
#include "opdev/triage/localise.h"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace opdev::triage {

struct RootCause {
  std::string category;       // verifier vocabulary
  bool suspected = false;     // design_violation is always "suspected" (the verifier decides)
  // design | design_derived | skeleton | emitter | kernel (no map) | environment | unlocated
  std::string origin;
  std::string code;           // the hazard code, or "" for a precision failure without one
  std::string message;        // the hazard's message / what is wrong
  std::string kernel_file;
  std::vector<int> kernel_lines;
  std::string design_file;
  std::vector<int> design_lines;
  std::vector<std::string> design_text;   // trimmed DESIGN lines, same order
  std::string rule;           // opdev rule for skeleton/emitter origins
  std::string route;          // the routing-table row that applies
  std::string basis;          // how the lines were found: error_hazard | loop_warning | writer | warning | none
  boost::json::object ToJson() const;
  std::string Location() const;  // "test_softmax.py:148, 149 ← DESIGN.md:141, 142"
};

struct RouteInput {
  std::string kernel_file;              // as reported (path)
  bool generated = false;               // this round wrote the file
  bool has_map = false;                 // a matching source map was found
  const codegen::SourceMap* map = nullptr;
  const contract::DesignDoc* design = nullptr;
  const py::Module* kernel = nullptr;   // parsed kernel file (loop context), may be null
  std::vector<HazardGroup> hazards;
  std::optional<Localisation> localisation;
  bool environment = false;             // the run was not measured (environment)
  std::string fallback_category;        // the run triage's category when nothing is located
};

RootCause Route(const RouteInput& in);

}  // namespace opdev::triage
