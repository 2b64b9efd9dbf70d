// The names a Stage 4 round must use (stage4.md §3): cumulative Module suffixes, staged
// kernel files, wrapper names and goldens. Pure functions; see round_plan.h for their use.
#pragma once

#include <cstdint>
#include <string>

namespace opdev::plan {

// Cumulative suffix: 1 -> "1", 2 -> "12", 3 -> "123", 5 -> "12345" (k >= 10 continues by
// appending the decimal number: 10 -> "12345678910"). k <= 0 gives "".
std::string ModuleSuffix(std::int64_t k);

// Paths are relative to the op dir.
std::string FinalFile(const std::string& op);                    // test_<op>.py
std::string StagedFile(const std::string& op, std::int64_t k);   // modules/test_<op>_module<s>.py
std::string FinalWrapper(const std::string& op);                 // <op>_wrapper
std::string StagedWrapper(const std::string& op, std::int64_t k);  // <op>_wrapper_module<s>
std::string FinalGoldenModule(const std::string& op);            // <op>_golden_cpu
std::string FinalGoldenFile(const std::string& op);              // <op>_golden_cpu.py
std::string DeviceGoldenFile(const std::string& op);             // <op>_golden.py
std::string StageGoldenModule(const std::string& op, std::int64_t k);  // <op>_golden_stage<s>
std::string StageGoldenFile(const std::string& op, std::int64_t k);    // modules/<op>_golden_stage<s>.py
// The path as the pipeline writes it from the workspace root: custom/<op>/<rel>.
std::string WorkspacePath(const std::string& op, const std::string& rel);

}  // namespace opdev::plan
