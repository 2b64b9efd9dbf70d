// The simulator's hazard catalogue and the sink that records hazards as Diagnostic records.
// Every hazard has a stable code, a default severity and a failure category from the verifier
// vocabulary; the sink de-duplicates repeats of the same code at the same source line so a
// defect inside a loop is reported once (with a count), not once per iteration.
#pragma once

#include "opdev/support/diagnostic.h"

#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace opdev::sim {

// Stable hazard codes. docs/simulator.md lists each with an example.
namespace hazard {
inline constexpr std::string_view kGmOutOfRange = "SIM-GM-OOB";            // DMA outside a GM tensor
inline constexpr std::string_view kTileCapacity = "SIM-TILE-CAPACITY";     // tile beyond its memory
inline constexpr std::string_view kTileAlign = "SIM-TILE-ALIGN";           // misaligned tile address
inline constexpr std::string_view kTileShapeAlign = "SIM-TILE-SHAPE-ALIGN";  // row bytes not 32B
inline constexpr std::string_view kTileOverlap = "SIM-TILE-OVERLAP";       // partial overlap
inline constexpr std::string_view kValidShape = "SIM-VALIDSHAPE-RANGE";    // bad set_validshape
inline constexpr std::string_view kValidShapeAfterLoad = "SIM-VALIDSHAPE-AFTER-LOAD";
inline constexpr std::string_view kMaskDtype = "SIM-MASK-DTYPE";           // mask family mismatch
inline constexpr std::string_view kUninitRead = "SIM-UNINIT-READ";         // never-written bytes escape
inline constexpr std::string_view kUninitUse = "SIM-UNINIT-USE";           // ... computed on, still undefined
inline constexpr std::string_view kOutputUnwritten = "SIM-OUT-UNWRITTEN";  // output element never stored
inline constexpr std::string_view kOutputMultiWriter = "SIM-OUT-MULTI-CORE";  // two cores wrote it
inline constexpr std::string_view kOutputMultiWriterSame = "SIM-OUT-MULTI-CORE-SAME";  // ... the same bytes
inline constexpr std::string_view kVfMteOp = "SIM-VF-MTE-OP";              // load/store/fillpad in VF
inline constexpr std::string_view kVfReturnChain = "SIM-VF-RETURN-CHAIN";  // VF result into VF
inline constexpr std::string_view kVfRuntimeIf = "SIM-VF-RUNTIME-IF";      // runtime `if` in VF
inline constexpr std::string_view kVfStaleValue = "SIM-VF-STALE-VALUE";    // value from earlier loop
inline constexpr std::string_view kWrapperBoundary = "SIM-WRAPPER-BOUNDARY";  // host op not allowed
inline constexpr std::string_view kRegisterRange = "SIM-VREG-RANGE";       // register access outside tile
inline constexpr std::string_view kScalarRange = "SIM-SCALAR-RANGE";       // getval/setval outside its tile
inline constexpr std::string_view kTypeMismatch = "SIM-OP-DTYPE";          // operand dtypes disagree
inline constexpr std::string_view kUnsupported = "SIM-UNSUPPORTED";        // construct not simulated
inline constexpr std::string_view kRuntimeError = "SIM-RUNTIME";           // kernel raised / bad value
inline constexpr std::string_view kBlockDim = "SIM-BLOCK-DIM";             // launch block_dim invalid
inline constexpr std::string_view kCoreSpace = "SIM-CORE-SPACE";           // space the core lacks
// Cube path (docs/simulator.md, "Cube hazards").
inline constexpr std::string_view kCubeSpace = "SIM-CUBE-SPACE";           // operand in the wrong space
inline constexpr std::string_view kCubeLayout = "SIM-CUBE-LAYOUT";         // layout the path does not take
inline constexpr std::string_view kCubeFractal = "SIM-CUBE-FRACTAL";       // shape not whole fractals
inline constexpr std::string_view kCubeShape = "SIM-CUBE-SHAPE";           // M/K/N or bias shapes disagree
inline constexpr std::string_view kMoveRange = "SIM-MOVE-RANGE";           // move/insert window outside a tile
inline constexpr std::string_view kFixQuant = "SIM-FIX-QUANT";           // scale=/relu_pre_mode= misuse
inline constexpr std::string_view kAccUnwritten = "SIM-ACC-UNWRITTEN";     // Acc read before any matmul
inline constexpr std::string_view kPhaseUnpaired = "SIM-PHASE-UNPAIRED";   // matmul/store phase mismatch
inline constexpr std::string_view kPhaseNoFinal = "SIM-PHASE-NO-FINAL";    // accumulation never Final
inline constexpr std::string_view kPhaseHang = "SIM-PHASE-HANG";           // unit flag never released
inline constexpr std::string_view kKaccPhase = "SIM-KACC-PHASE";           // K accumulation without phase=
inline constexpr std::string_view kKaccLayout = "SIM-KACC-LAYOUT-TRANSFORM";  // ... without the switch
inline constexpr std::string_view kKaccFractal = "SIM-KACC-FRACTAL";       // ... without fractal=1024
inline constexpr std::string_view kMmLayoutUnpaired = "SIM-MM-LAYOUT-UNPAIRED";  // switch left on
inline constexpr std::string_view kPartialFix = "SIM-PARTIAL-FIX";         // partial M/N under unit flag
inline constexpr std::string_view kMutexShared = "SIM-MUTEX-SHARED";       // two live groups, one mutex id
inline constexpr std::string_view kL1BankHalf = "SIM-L1-BANK-HALF";        // ping/pong in one bank half
inline constexpr std::string_view kWorkBudget = "SIM-WORK-BUDGET";         // runaway / endless loop
inline constexpr std::string_view kLimit = "SIM-LIMIT";                    // int64, memory, call depth
// Concurrent cores (docs/simulator.md, "Concurrent cores and cross-core sync").
inline constexpr std::string_view kDeadlock = "SIM-XCORE-DEADLOCK";        // every live core waits
inline constexpr std::string_view kEventReuse = "SIM-XCORE-EVENT-REUSE";   // event set again before its wait
inline constexpr std::string_view kCrossSync = "SIM-XCORE-SYNC";           // invalid set/wait_cross_core
inline constexpr std::string_view kGmRace = "SIM-GM-RACE";                 // unordered cross-core GM accesses
inline constexpr std::string_view kXcoreRace = "SIM-XCORE-RACE";           // unordered cross-core on-chip accesses
inline constexpr std::string_view kXcoreRaceSame = "SIM-XCORE-RACE-SAME";  // ... both writes leave the same bytes
inline constexpr std::string_view kXcoreUnconsumed = "SIM-XCORE-UNCONSUMED";  // a set no wait consumed
inline constexpr std::string_view kIndexRange = "SIM-INDEX-RANGE";  // gather/scatter index outside, or a conflict
inline constexpr std::string_view kSimtRace = "SIM-SIMT-RACE";  // two SIMT threads of a launch on one element
// Pipes of one core (docs/simulator.md, "Pipes of one core").
inline constexpr std::string_view kPipeRace = "SIM-PIPE-RACE";            // two pipes, same bytes, no edge
inline constexpr std::string_view kPipeWaw = "SIM-PIPE-WAW";              // MTE2 over MTE2, no bar_mte2
inline constexpr std::string_view kPipeWaitNoSet = "SIM-PIPE-WAIT-NO-SET";  // sync_dst of an unset flag
inline constexpr std::string_view kPipeEventReuse = "SIM-PIPE-EVENT-REUSE";  // sync_src of a set flag
inline constexpr std::string_view kPipeSync = "SIM-PIPE-SYNC";            // invalid sync / mutex call
}  // namespace hazard

struct HazardInfo {
  std::string_view code;
  Severity severity;
  std::string_view category;
  std::string_view summary;
};

// The whole catalogue, in a stable order (for docs and `--json` consumers).
const std::vector<HazardInfo>& HazardCatalogue();
const HazardInfo* FindHazard(std::string_view code);

// Collects hazards. Repeats of (code, file, line) are merged: the first message is kept and
// the evidence gains "(N occurrences)".
class HazardSink {
 public:
  explicit HazardSink(std::string file = {}) : file_(std::move(file)) {}

  void Report(std::string_view code, int line, std::string message, std::string evidence = {});
  // Same, overriding the catalogue severity.
  void ReportWithSeverity(std::string_view code, Severity sev, int line, std::string message,
                          std::string evidence = {});

  const std::string& file() const { return file_; }
  void set_file(std::string f) { file_ = std::move(f); }
  bool Has(std::string_view code) const;
  size_t ErrorCount() const;
  // Sorted, counts folded into evidence.
  Diagnostics Finish() const;

 private:
  struct Entry {
    Diagnostic diag;
    int count = 0;
  };
  std::string file_;
  std::vector<Entry> entries_;
  std::map<std::tuple<std::string, int>, size_t> index_;
};

}  // namespace opdev::sim
