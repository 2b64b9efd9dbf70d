// The steps registered with RunStep, in the order of a round.
#include "steps/step_table.h"

namespace opdev::steps {

StepResult RunCheckStep(const StepContext& ctx, const boost::json::object& request);
StepResult RunCompareStep(const StepContext& ctx, const boost::json::object& request);

const std::vector<StepEntry>& StepTable() {
  static const std::vector<StepEntry> table = {
      {"check", &RunCheckStep},
      {"compare", &RunCompareStep},
  };
  return table;
}

}  // namespace opdev::steps
