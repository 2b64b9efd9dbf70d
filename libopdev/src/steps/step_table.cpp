// The steps registered with RunStep, in the order of a round.
#include "steps/step_table.h"

namespace opdev::steps {

StepResult RunCheckStep(const StepContext& ctx, const boost::json::object& request);
StepResult RunPlanStep(const StepContext& ctx, const boost::json::object& request);
StepResult RunGenStep(const StepContext& ctx, const boost::json::object& request);
StepResult RunLintStep(const StepContext& ctx, const boost::json::object& request);
StepResult RunBudgetStep(const StepContext& ctx, const boost::json::object& request);
StepResult RunSelfcheckStep(const StepContext& ctx, const boost::json::object& request);
StepResult RunRunStep(const StepContext& ctx, const boost::json::object& request);
StepResult RunSimStep(const StepContext& ctx, const boost::json::object& request);
StepResult RunCompareStep(const StepContext& ctx, const boost::json::object& request);
StepResult RunUsageGenerateStep(const StepContext& ctx, const boost::json::object& request);
StepResult RunUsageCheckStep(const StepContext& ctx, const boost::json::object& request);
StepResult RunStageStep(const StepContext& ctx, const boost::json::object& request);

const std::vector<StepEntry>& StepTable() {
  static const std::vector<StepEntry> table = {
      {"check", &RunCheckStep},
      {"plan", &RunPlanStep},
      {"gen", &RunGenStep},
      {"lint", &RunLintStep},
      {"budget", &RunBudgetStep},
      {"selfcheck", &RunSelfcheckStep},
      {"sim", &RunSimStep},
      {"run", &RunRunStep},
      {"compare", &RunCompareStep},
      {"usage-generate", &RunUsageGenerateStep},
      {"usage-check", &RunUsageCheckStep},
      {"stage", &RunStageStep},
  };
  return table;
}

}  // namespace opdev::steps
