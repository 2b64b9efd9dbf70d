// The kernel-launch call of the CPU device: a JSON request describing one
// `kernel[stream, block_dim](*args)` launch plus the tensors in the caller's memory, run by
// the simulator (opdev/sim/launch.h); the C ABI's opdev_launch and the Python device package
// (bindings/python/device) go through it.
//
// Request: {"file": "k.py", "kernel": "NAME", "block_dim"?: 1, "args"?: [V...],
//           "kwargs"?: {name: V}, "globals"?: {name: V}, "target"?: "a5"|"a3",
//           "vector_cores"?: 48, "cube_cores"?: 24, "check_api"?: true,
//           "work_budget"?: 0 (0: the default from the tensors' sizes), "schedule_seed"?: 0,
//           "pipe_sync"?: true (the intra-core pipe model; false: program order)}
// where a value V is null, a bool, an integer, a float, a string, or an object:
//   {"tensor": i}                 the i-th tensor of `tensors`
//   {"tuple": [V...]} / {"list": [V...]}
//   {"object": "TypeName", "fields": {name: V}}   a dataclass instance (attributes in order)
//   {"const": "pl.DT_FP16"}       a PyPTO-Pro constant (dtype, enum member)
//   {"float": "inf" | "-inf" | "nan"}
// Document: {"file", "kernel", "block_dim", "rejected", "completed", "clean", "cache_hit",
//            "written": [tensor indices], "hazards": [Diagnostic...], "stats": {...}}
// (docs/schemas/launch.schema.json). Status 0 ran clean (warnings allowed), 1 error findings
// (rejected at compile time, a hazard, or the run stopped), 2 unusable request.
#pragma once

#include "opdev/sim/launch.h"
#include "opdev/steps/step.h"

#include <vector>

namespace opdev::steps {

StepResult RunLaunch(const StepContext& ctx, const boost::json::object& request,
                     const std::vector<sim::ExternalTensor>& tensors);

}  // namespace opdev::steps
