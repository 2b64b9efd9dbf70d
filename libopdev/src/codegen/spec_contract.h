// The SPEC.md machine contract (the ```json machine-contract block) as codegen needs it:
// public inputs and outputs with shape symbols, dtype and value range, and the dynamic-axis
// ranges. Read through the DESIGN Markdown model (code blocks with info strings) and
// Boost.JSON; findings name SPEC.md and the block's line.
#pragma once

#include "opdev/support/diagnostic.h"
#include "opdev/support/dtype.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opdev::codegen {

struct SpecTensor {
  std::string name;
  std::vector<std::string> shape;  // symbols or decimal integers, e.g. {"B", "N"}
  std::optional<DType> dtype;
  std::string dtype_text;
  std::optional<std::pair<double, double>> value_range;
};

struct SpecContract {
  std::string path;
  int line = 0;  // line of the machine-contract fence
  std::string op_name;
  std::vector<SpecTensor> inputs;
  std::vector<SpecTensor> outputs;
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> dynamic_axes;
};

// Loads <op_dir>/SPEC.md. Missing file, missing block, bad JSON or unusable entries are
// diagnostics (CODEGEN-SPEC-*); nullopt when the contract cannot be used.
std::optional<SpecContract> LoadSpecContract(const std::string& op_dir, Diagnostics* diags);

}  // namespace opdev::codegen
