// The semantic rules of S4-5 that need more than the call graph: ⑦ the wrapper's guards
// against the range SPEC supports (range_guards.cpp) and ⑧ the tests' data against DESIGN
// §8 and SPEC, plus the test side of ⑥ (test_data.cpp). Each returns its findings
// (category cheating) and a one-line evidence string.
#pragma once

#include "check_context.h"

#include <string>

namespace opdev::selfcheck {

Diagnostics CheckRangeGuards(const CheckContext& c, std::string* evidence);
Diagnostics CheckTestData(const CheckContext& c, std::string* evidence);

}  // namespace opdev::selfcheck
