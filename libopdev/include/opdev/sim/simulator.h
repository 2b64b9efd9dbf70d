// opdev's CPU simulator of PyPTO-Pro kernels — the library entry point.
//
// Runs one entry of a kernel file (the host wrapper, or the @pl.jit kernel itself) on given
// input tensors and returns the outputs plus the hazards found, each a Diagnostic with a
// stable code (SIM-*), a failure category and the file:line that caused it.
//
//   opdev::sim::SimOptions opts;
//   opts.entry = "softmax_wrapper";           // a wrapper, or the @pl.jit kernel name
//   auto x = opdev::precision::ReadNpy("x.npy");
//   absl::StatusOr<opdev::sim::SimResult> r = opdev::sim::RunKernelFile(
//       "custom/softmax/test_softmax.py", {*x}, opts);
//   if (!r.ok()) { /* the file could not be run at all: I/O, syntax, unknown entry, bad input */ }
//   for (const auto& out : r->outputs) { /* out.name, out.tensor (precision::Tensor) */ }
//   if (r->hazards.HasErrors() || !r->completed) { /* defects with file:line */ }
//
// Entry semantics:
//  * wrapper entry: the inputs bind to the wrapper's parameters in order; the wrapper runs
//    within the wrapper boundary (statements outside it are reported as SIM-WRAPPER-BOUNDARY
//    and skipped); the outputs are the tensors it returns (a tensor or a tuple of tensors).
//  * kernel entry: the inputs bind to the kernel's tensor parameters in order (every tensor
//    parameter, outputs included, since the kernel cannot allocate); the kernel runs on
//    `block_dim` cores; the outputs are the parameters some core wrote.
// The cores of a launch (a mixed launch: 1 AIC + 2 AIV per block) run as concurrent cores, each
// with freshly poisoned on-chip memory: one at a time, switching at cross-core waits, in a
// fixed order unless `schedule_seed` permutes the interleaving. Waits block on
// set_cross_core events; deadlocks and unordered GM accesses between cores are hazards.
#pragma once

#include "opdev/precision/tensor.h"
#include "opdev/support/diagnostic.h"
#include "opdev/support/dtype.h"
#include "opdev/support/target.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::sim {

struct SimOptions {
  std::string entry;            // function to run (required)
  Target target = Target::kA5;  // memory capacities and platform info
  // Kernel entry: number of cores (default 1). Wrapper entry: 0 keeps the wrapper's launch;
  // a positive value overrides the block_dim of its launch.
  int64_t block_dim = 0;
  // What get_platform_info() reports (defaults: 48 vector cores, 24 cube cores, as the
  // framework's A5 fallback).
  int64_t vector_core_num = 48;
  int64_t cube_core_num = 24;
  // 0: the fixed schedule (the lowest-numbered core that can run goes on at each switch);
  // otherwise every set/wait is a switch point and this seeds the choice of the next core.
  uint64_t schedule_seed = 0;
  // The intra-core pipe model (docs/simulator.md, "Pipes of one core"): SIM-PIPE-* findings
  // for missing or wrong sync_src/sync_dst, mutexes and barriers. On by default: nothing
  // inserts intra-core syncs for make_tile tiles on the device (docs/pipe-sync.md §0), so a
  // kernel without them races there; false runs one core's pipes in program order.
  bool pipe_sync = true;
  // Extra scalar arguments after the tensors (ints or floats, in order).
  std::vector<double> scalar_args;
  // Kernel entry with @pl.jit(tiling_key=...): the key of the launch, field name -> value, as
  // the host's kernel[stream, block_dim, {...}] would give it (tiling_key.md).
  std::vector<std::pair<std::string, int64_t>> tiling_key;
  // Kernel entry with @pl.jit(datatype={...}): the datatype dict of the launch, parameter name
  // -> dtype, as the host's kernel[stream, block_dim, (key,) {...}] would give it.
  std::vector<std::pair<std::string, DType>> datatype;
  // Work budget in work units (one per interpreted statement and per register operation, one
  // per 64 elements a tile operation or DMA processes). 0 = the default, derived from the
  // problem size: DefaultWorkBudget(total input elements). A run that exceeds it stops with
  // SIM-WORK-BUDGET naming the running loop's line and its iteration counts.
  int64_t work_budget = 0;
  // Bytes of GM tensors the run may allocate (torch.empty / empty_like; inputs excluded).
  // 0 = kDefaultMemoryLimitBytes. Over it: SIM-LIMIT.
  int64_t memory_limit_bytes = 0;

  // Per-instruction provenance of the outputs (SimOutput::origin): which kernel line wrote
  // each output element's on-chip bytes (for a VF store: the register lane and the store's
  // active lanes) and which pl.store copied it. Off by default: it costs 8 bytes per on-chip
  // byte and a few stores per written element.
  bool record_provenance = false;
};

// Where one output element came from (record_provenance).
struct ElementOrigin {
  int32_t writer_line = 0;   // kernel line that wrote its on-chip bytes (0: unknown)
  int16_t lane = -1;         // register lane of a vf.store_align, else -1
  int16_t active_lanes = 0;  // lanes that store had active (0: not a register store)
  int32_t store_line = 0;    // the pl.store that copied it to GM (0: never stored)
  int32_t core = -1;         // the core that stored it
};

// Default work budget for inputs of `input_elements` elements in total: 20 million units plus
// 64 per input element — above what the shipped kernels need by a wide margin (docs/simulator.md,
// "Limits"), and reached by an endless loop within a few seconds.
int64_t DefaultWorkBudget(int64_t input_elements);
inline constexpr int64_t kDefaultMemoryLimitBytes = int64_t{4} << 30;  // 4 GiB

struct SimOutput {
  std::string name;          // returned variable / kernel parameter name
  precision::Tensor tensor;
  std::vector<ElementOrigin> origin;  // per element (flat, row-major); empty unless recorded
};

struct SimStats {
  int64_t vf_ops = 0;        // vector-register operations executed
  int64_t lane_ops = 0;      // lanes those operations processed
  int64_t tile_elems = 0;    // elements moved or computed by tile-level operations
  int64_t statements = 0;    // interpreted statements
  int64_t cores_run = 0;     // SPMD core executions
  int64_t pipe_flags_pending = 0;  // sync_src flags still set when their core ended (no hazard)
  int64_t launches = 0;      // kernel launches
  int64_t block_dim = 0;     // block_dim of the last launch
  int64_t work = 0;          // work units spent (see SimOptions::work_budget)
  int64_t work_budget = 0;   // the budget the run had
};

struct SimResult {
  bool completed = false;           // the entry ran to its end (false: a SIM-RUNTIME/.. stopped it)
  std::vector<SimOutput> outputs;   // see "Entry semantics"
  Diagnostics hazards;              // sorted; errors mean the kernel is defective
  SimStats stats;
  bool program_cached = false;      // the lowered program was reused (this file name and text ran before)
};

// Runs `entry` of the kernel file at `path` on `inputs`.
absl::StatusOr<SimResult> RunKernelFile(const std::string& path,
                                        const std::vector<precision::Tensor>& inputs,
                                        const SimOptions& options);
// Same for source text; `filename` is used in diagnostics. A source run again (same filename
// and text) reuses its lowered program from a process-wide cache (launch.h, ClearLaunchCache);
// the run observes exactly what a first run does.
absl::StatusOr<SimResult> RunKernelSource(std::string_view source, const std::string& filename,
                                          const std::vector<precision::Tensor>& inputs,
                                          const SimOptions& options);

// The hazard catalogue as JSON (code, severity, category, summary), for docs and tools.
std::string HazardCatalogueJson();

}  // namespace opdev::sim
