// Case-attribute bisection: the smallest set of case attributes (case_attributes.h) that
// separates the failing §8 cases from the passing ones — every failing case has all of them,
// no passing case has all of them — mapped to the symptom row of stage4.md §8 and its check
// list, and said in one sentence ("all 3 failing cases have N % 128 ≠ 0; no passing case
// does"). Sets of one attribute are tried first, then pairs; among equally small sets the
// one whose symptom comes first in the layered review order wins, the others are listed.
#pragma once

#include "opdev/triage/case_attributes.h"
#include "opdev/triage/symptoms.h"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace opdev::triage {

struct AttributeLiteral {
  std::string id;    // attribute id
  bool value = true; // the failing cases' value
  std::string text;  // the attribute's text for that value
};

struct Separation {
  // How the cases split: "separated" (a set was found), "all_fail" (no passing case),
  // "single_case" (one measured failure, nothing passed), "none" (nothing failed),
  // "inseparable" (no set of ≤ 2 attributes separates).
  std::string kind = "none";
  std::vector<AttributeLiteral> literals;             // the chosen set
  std::vector<std::vector<AttributeLiteral>> alternatives;  // other sets of the same size
  Symptom symptom = Symptom::kEverywhere;             // §8 row
  std::string sentence;                               // one sentence
  std::vector<std::string> failing, passing, not_measured;
  boost::json::object ToJson() const;
};

Separation Bisect(const AttributeTable& table);

}  // namespace opdev::triage
