// The SPEC.md machine contract (the ```json machine-contract block): public inputs and
// outputs with shape symbols, dtype and value range, the supported dtypes and the
// dynamic-axis ranges. Code generation and the self-check (the supported range a wrapper
// must not narrow, the tests' value ranges) read it through this one model. Read through the
// DESIGN Markdown model (code blocks with info strings) and Boost.JSON; findings name
// SPEC.md and the block's line.
#pragma once

#include "opdev/support/diagnostic.h"
#include "opdev/support/dtype.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opdev::contract {

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
  std::vector<std::string> supported_dtypes;  // SPEC names as written ("float16", ...)
  std::vector<std::string> shape_constraints;  // free text ("N >= 1 (…)", "N % 16 == 0")
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> dynamic_axes;

  const SpecTensor* FindInput(const std::string& name) const;
};

// Loads <op_dir>/SPEC.md. Missing file, missing block, bad JSON or unusable entries are
// diagnostics (SPEC-*); nullopt when the contract cannot be used.
std::optional<SpecContract> LoadSpecContract(const std::string& op_dir, Diagnostics* diags);

}  // namespace opdev::contract
