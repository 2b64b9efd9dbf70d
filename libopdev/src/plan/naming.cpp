// Stage 4 naming rules: cumulative suffixes, staged files, wrappers and goldens.
#include "opdev/plan/naming.h"

namespace opdev::plan {

std::string ModuleSuffix(std::int64_t k) {
  std::string s;
  for (std::int64_t i = 1; i <= k; ++i) s += std::to_string(i);
  return s;
}

std::string FinalFile(const std::string& op) { return "test_" + op + ".py"; }
std::string StagedFile(const std::string& op, std::int64_t k) {
  return "modules/test_" + op + "_module" + ModuleSuffix(k) + ".py";
}
std::string FinalWrapper(const std::string& op) { return op + "_wrapper"; }
std::string StagedWrapper(const std::string& op, std::int64_t k) {
  return op + "_wrapper_module" + ModuleSuffix(k);
}
std::string FinalGoldenModule(const std::string& op) { return op + "_golden_cpu"; }
std::string FinalGoldenFile(const std::string& op) { return op + "_golden_cpu.py"; }
std::string DeviceGoldenFile(const std::string& op) { return op + "_golden.py"; }
std::string StageGoldenModule(const std::string& op, std::int64_t k) {
  return op + "_golden_stage" + ModuleSuffix(k);
}
std::string StageGoldenFile(const std::string& op, std::int64_t k) {
  return "modules/" + StageGoldenModule(op, k) + ".py";
}
std::string WorkspacePath(const std::string& op, const std::string& rel) {
  return "custom/" + op + "/" + rel;
}

}  // namespace opdev::plan
