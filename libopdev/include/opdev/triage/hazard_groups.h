// Hazards grouped for the report: one entry per (code, file, line) with the list of cases it
// occurred in and, when the kernel file has a matching source map, the DESIGN line the
// offending kernel line was transcribed or derived from. A hazard inside a loop is one entry,
// not one per case and iteration.
#pragma once

#include "opdev/codegen/source_map.h"
#include "opdev/contract/design_doc.h"
#include "opdev/support/diagnostic.h"

#include <boost/json/object.hpp>

#include <string>
#include <utility>
#include <vector>

namespace opdev::triage {

// Where a kernel line came from (source map), resolved against DESIGN.md.
struct KernelOrigin {
  std::string kind;          // "design", "design_derived", "skeleton", "emitter"; "" = no map
  int design_line = 0;
  std::string design_file;   // DESIGN.md path as given
  std::string section;
  std::string design_text;   // the DESIGN line, trimmed
  std::string rule;          // emitter / skeleton rule
  boost::json::object ToJson() const;  // {} when kind is empty
  std::string Text() const;  // "DESIGN.md:141 (§1, verbatim)" / "opdev emitter: wrapper" / ""
};

// Resolves `line` of the kernel file through `map` (nullptr: no map).
KernelOrigin OriginOf(int line, const codegen::SourceMap* map, const contract::DesignDoc* design);

struct HazardGroup {
  Diagnostic hazard;               // the first occurrence, evidence without case tags
  std::vector<std::string> cases;  // in run order, each once
  int occurrences = 0;             // over all cases (a loop repeats a hazard)
  KernelOrigin origin;
  // Where it was seen: in the run itself and/or in the triage's reruns of cases on the
  // DESIGN-case simulator (a test-file run under the CPU device reports no warnings).
  bool seen_in_run = false, seen_in_reruns = false;
  boost::json::object ToJson() const;
};

// The hazards of one case, from the run or from a triage rerun of that case.
struct CaseHazards {
  std::string case_name;
  Diagnostics hazards;
  bool rerun = false;
};

// Groups are sorted errors first, then by file and line. Occurrences add up over every entry.
std::vector<HazardGroup> GroupHazards(const std::vector<CaseHazards>& per_case,
                                      const codegen::SourceMap* map, const contract::DesignDoc* design);

}  // namespace opdev::triage
