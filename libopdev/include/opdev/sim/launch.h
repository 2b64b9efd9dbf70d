// A kernel launch from a host program: the CPU device's entry into the simulator.
//
// A Python program running on the CPU device (bindings/python/device: pypto_pro, torch_npu)
// launches `kernel[stream, block_dim](*args)`; the launch hands the kernel's file and name,
// the values CPython resolved for the module globals the kernel reads, and its arguments
// (tensors in the caller's memory, scalars, dataclass objects) to LaunchKernel, which runs
// the kernel on block_dim simulated cores and writes the results back into the caller's
// tensors.
//
//   opdev::sim::LaunchRequest req;
//   req.file = "custom/softmax/test_softmax.py";
//   req.kernel = "softmax_tile_group_kernel";
//   req.block_dim = 2;
//   req.tensors = {{"x", DType::kFloat16, {4, 128}, x_ptr}, {"y", DType::kFloat16, {4, 128}, y_ptr}};
//   req.args = {HostValue::Tensor(0), HostValue::Tensor(1)};
//   absl::StatusOr<LaunchResult> r = opdev::sim::LaunchKernel(req);
//   // !r.ok(): the launch could not be made (I/O, syntax error, unknown kernel, bad value);
//   // r->rejected: compile-time API misuse (r->hazards holds the API-* findings), nothing ran;
//   // r->hazards: SIM-* findings with file:line; r->completed: every core ran to its end.
//
// Files are parsed and lowered once per (path, text) and kept in a process-wide cache of the
// most recently used few (shared with RunKernelSource); each launch gets fresh on-chip memory
// and fresh module values.
#pragma once

#include "opdev/sim/simulator.h"
#include "opdev/support/diagnostic.h"
#include "opdev/support/dtype.h"
#include "opdev/support/target.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opdev::sim {

// A host value handed to a launch: a Python scalar, string, None, a tensor (by index into
// LaunchRequest::tensors), a tuple or list, an object with attributes (a dataclass
// instance), a named PyPTO-Pro constant ("pl.DT_FP16", "pl.MaskPattern.ALL") or a function of
// the launched file (by qualname and first line: a closure variable holding a helper).
struct HostField;

struct HostValue {
  enum class Kind { kNone, kBool, kInt, kFloat, kStr, kTensor, kTuple, kList, kObject, kConstant, kFunction };
  Kind kind = Kind::kNone;
  int64_t i = 0;       // kBool (0/1), kInt, kTensor (index), kFunction (first line)
  double f = 0;        // kFloat
  std::string s;       // kStr text, kConstant qualified name, kObject type name, kFunction qualname
  std::vector<HostValue> items;                           // kTuple, kList
  std::vector<HostField> fields;  // kObject attributes, in order

  static HostValue Int(int64_t v);
  static HostValue Float(double v);
  static HostValue Bool(bool v);
  static HostValue Str(std::string v);
  static HostValue Tensor(int64_t index);
  static HostValue Constant(std::string q);
  static HostValue Function(std::string qualname, int64_t line);
};

// One attribute of a kObject value (a struct declared ahead, not a std::pair: a pair of the
// still incomplete HostValue cannot be instantiated inside HostValue with clang + libstdc++).
struct HostField {
  std::string name;
  HostValue value;
};

// Defined once HostField is complete (a HostValue holds a vector of them).
inline HostValue HostValue::Int(int64_t v) { HostValue h; h.kind = Kind::kInt; h.i = v; return h; }
inline HostValue HostValue::Float(double v) { HostValue h; h.kind = Kind::kFloat; h.f = v; return h; }
inline HostValue HostValue::Bool(bool v) { HostValue h; h.kind = Kind::kBool; h.i = v ? 1 : 0; return h; }
inline HostValue HostValue::Str(std::string v) { HostValue h; h.kind = Kind::kStr; h.s = std::move(v); return h; }
inline HostValue HostValue::Tensor(int64_t index) { HostValue h; h.kind = Kind::kTensor; h.i = index; return h; }
inline HostValue HostValue::Constant(std::string q) { HostValue h; h.kind = Kind::kConstant; h.s = std::move(q); return h; }
inline HostValue HostValue::Function(std::string qualname, int64_t line) {
  HostValue h;
  h.kind = Kind::kFunction;
  h.s = std::move(qualname);
  h.i = line;
  return h;
}

// A tensor in the caller's memory: C-order contiguous elements of `dtype`. It is read before
// the launch and, when some core wrote it, overwritten with the kernel's result afterwards.
struct ExternalTensor {
  std::string name;  // for messages (the kernel parameter it is bound to)
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  void* data = nullptr;
};

struct LaunchRequest {
  std::string file;    // the kernel's source file
  std::string kernel;  // the @pl.jit function's __qualname__: `k`, or `make_k.<locals>.k` for a
                       // kernel defined inside a module-level function (a kernel factory)
  int line = 0;        // its first line (first decorator or def; CPython's co_firstlineno) to
                       // pick one of several defs of the same qualified name; 0: the first
  int64_t block_dim = 1;
  std::vector<HostValue> args;  // positional, in parameter order
  std::vector<std::pair<std::string, HostValue>> kwargs;
  // Module globals as the host resolved them; they replace what the simulator evaluates
  // itself (a name the host could not express is simply left out). A nested function's
  // closure variables come the same way, named `<qualname>:<variable>` (its closure cells).
  std::vector<std::pair<std::string, HostValue>> globals;
  // The tiling-key dict of a `kernel[stream, block_dim, {...}]` launch (tiling_key.md): its
  // fields are bound as names of the kernel for this launch only.
  std::optional<std::vector<std::pair<std::string, HostValue>>> tiling_key;
  // The schema of the kernel's @pl.jit(tiling_key=...) as the host resolved it: its class name
  // and each field's candidate values. The host has checked the key against it (is_valid()
  // included); the simulator binds the fields by it instead of the schema read from the source.
  struct TilingKeySchemaSpec {
    std::string cls;
    std::vector<std::pair<std::string, std::vector<int64_t>>> fields;
  };
  std::optional<TilingKeySchemaSpec> tiling_key_schema;
  std::vector<ExternalTensor> tensors;
  Target target = Target::kA5;
  int64_t vector_core_num = 48;
  int64_t cube_core_num = 24;
  bool check_api = true;  // run the API catalog checks on the kernel's functions first
  // Limits as in SimOptions (0: the defaults, the work budget derived from the tensors' sizes).
  int64_t work_budget = 0;
  int64_t memory_limit_bytes = 0;
  uint64_t schedule_seed = 0;  // as SimOptions::schedule_seed (0: the fixed core order)
  bool pipe_sync = true;       // as SimOptions::pipe_sync (on by default)
};

struct LaunchResult {
  bool rejected = false;         // compile-time API misuse: nothing ran
  bool completed = false;        // every core ran to its end
  Diagnostics hazards;           // API-* (when rejected) or SIM-* findings, sorted
  std::vector<int64_t> written;  // indices of the tensors some core wrote (copied back)
  SimStats stats;
  bool cache_hit = false;        // the file's lowered program came from the cache
};

// Runs one launch. Never throws. The tensors' memory must stay valid during the call.
absl::StatusOr<LaunchResult> LaunchKernel(const LaunchRequest& request);

// Drops every cached program, RunKernelSource's included (tests; a long-lived process that
// wants its memory back).
void ClearLaunchCache();

}  // namespace opdev::sim
