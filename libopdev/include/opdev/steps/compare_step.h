// The compare step on tensors already in memory (used by the C ABI's buffer entry point and
// by the file-based "compare" step after reading the files).
#pragma once

#include "opdev/precision/tensor.h"
#include "opdev/steps/step.h"

#include <optional>
#include <vector>

namespace opdev::steps {

// `options` may hold "dtype", "tile" ([R, C]), "worst", "threads", "summary_only".
// `files` (optional) are echoed in the document as {"actual", "golden"} pairs.
StepResult CompareTensors(const std::vector<std::optional<precision::Tensor>>& actual,
                          const std::vector<std::optional<precision::Tensor>>& golden,
                          const boost::json::object& options,
                          const std::vector<std::pair<std::string, std::string>>& files = {});

}  // namespace opdev::steps
