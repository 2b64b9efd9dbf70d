// The diagnosis of a failed run: the case-attribute separation and its §8 symptom row, the
// trustworthy-failure reruns and minimal repro, the localisation, the grouped hazards and the
// routed root cause, joined into a short "why" paragraph and the next action from the routing
// table. It is the `triage` object of the stage report (docs/report-schema.json) and feeds
// the verdict, the Markdown and the command's summary.
#pragma once

#include "opdev/triage/bisection.h"
#include "opdev/triage/case_attributes.h"
#include "opdev/triage/hazard_groups.h"
#include "opdev/triage/localise.h"
#include "opdev/triage/repro.h"
#include "opdev/triage/root_cause.h"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace opdev::triage {

struct Diagnosis {
  ShapeFacts facts;
  AttributeTable attributes;
  Separation separation;
  std::optional<Repro> repro;
  std::optional<Localisation> localisation;
  std::vector<HazardGroup> hazards;
  RootCause root;
  // How the cases were measured when the run did not measure all of them (e.g. "the test file
  // stopped at its first failing case; the triage ran the 5 others on the DESIGN-case
  // simulator"); "" when the run measured every case.
  std::string measurement;
  std::string why;           // a short paragraph
  std::string next_action;   // from the routing table and §8's after-a-fix order
  bool flaky = false;        // the first failure did not come back alone
  boost::json::object ToJson() const;
  std::string ToMarkdown() const;         // "## Triage" section body
  std::vector<std::string> SummaryLines() const;  // for the command's text output
};

struct DiagnoseInput {
  ShapeFacts facts;
  std::vector<CaseFacts> cases;
  std::vector<HazardGroup> hazards;
  std::optional<Repro> repro;
  std::optional<Localisation> localisation;
  RouteInput route;                  // hazards/localisation are copied in from above
  std::string first_failure_text;    // the original error of the first failing case
  std::string measurement;           // see Diagnosis::measurement
};

Diagnosis Diagnose(DiagnoseInput in);

}  // namespace opdev::triage
