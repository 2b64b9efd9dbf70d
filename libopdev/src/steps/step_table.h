// The table of steps known to RunStep; each <name>_step.cpp defines one entry function.
#pragma once

#include "opdev/steps/step.h"

#include <vector>

namespace opdev::steps {

using StepFn = StepResult (*)(const StepContext&, const boost::json::object&);

struct StepEntry {
  const char* name;
  StepFn run;
};

const std::vector<StepEntry>& StepTable();

}  // namespace opdev::steps
