// The simulator backend of `opdev run`: runs each DESIGN §8 case of a kernel file through
// opdev's CPU simulator (opdev/sim/simulator.h) via the file's wrapper, computes the CPU
// FP32 golden with the op dir's own <op>_golden_cpu.py in Python, and compares the two with
// the scheme-A engine. Produces the same CaseResult records as the NPU launcher.
#pragma once

#include "opdev/precision/tensor.h"
#include "opdev/runtime/run_output.h"
#include "opdev/sim/simulator.h"
#include "opdev/support/diagnostic.h"
#include "opdev/support/dtype.h"

#include "absl/status/statusor.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opdev::runtime {

struct SimInput {
  std::string name;
  std::vector<std::int64_t> shape;
  DType dtype = DType::kFloat16;
  // SPEC.md's value_range of this input: values are drawn uniformly over it (integers over
  // the whole numbers inside it), as the generated tests' _make_input draws them; without
  // one, normal(0, 1).
  std::optional<std::pair<double, double>> value_range;
};

struct SimCase {
  std::string name;              // test function name (DESIGN §8)
  std::vector<SimInput> inputs;  // the wrapper's tensor arguments, in order
  std::optional<std::uint64_t> seed;  // input seed; default: SimRunOptions::seed + case index
};

// The tensors of one compared case (SimRunOptions::keep_tensors).
struct CaseTensors {
  std::string name;
  precision::Tensor actual, golden;           // the first output and its golden
  std::vector<sim::ElementOrigin> origin;     // per element of `actual` (record_provenance)
};

struct SimRunOptions {
  std::string op_dir;
  std::string file;              // kernel file, op-dir-relative
  std::string wrapper;           // entry
  std::string golden_module;     // e.g. softmax_golden_cpu (a file in the op dir)
  std::string golden_fn;
  std::vector<SimCase> cases;
  std::string python = "/usr/bin/python3";
  std::string work_dir;          // where inputs/goldens (.npy) are written
  std::uint64_t seed = 42;
  double golden_timeout_seconds = 600;
  bool keep_tensors = false;       // return each compared case's first output and golden
  bool record_provenance = false;  // simulate with per-instruction provenance (implies tensors)
  std::function<void(const std::string& line)> on_case;  // progress
};

struct SimRunResult {
  std::vector<CaseResult> cases;
  Diagnostics hazards;           // every hazard of every case (file:line, SIM-* code)
  std::vector<std::string> commands;  // the golden command
  std::string golden_error;      // the golden could not be computed (env or golden failure)
  std::vector<CaseTensors> tensors;  // keep_tensors: one per compared case, in case order
  boost::json::object ToJson() const;
};

// Errors only for an unusable call (no cases, no work dir); per-case problems are results.
absl::StatusOr<SimRunResult> RunOnSimulator(const SimRunOptions& opts);

}  // namespace opdev::runtime
