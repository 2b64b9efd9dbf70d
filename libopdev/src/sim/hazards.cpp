// The hazard catalogue (code -> severity, category, summary) and the de-duplicating sink.
#include "opdev/sim/hazards.h"

namespace opdev::sim {

const std::vector<HazardInfo>& HazardCatalogue() {
  namespace c = opdev::category;
  static const std::vector<HazardInfo> table = {
      {hazard::kGmOutOfRange, Severity::kError, c::kRuntimeFailure,
       "pl.load/pl.store touches elements outside the GM tensor (device out-of-range DMA)"},
      {hazard::kTileCapacity, Severity::kError, c::kImplementationError,
       "tile extends past the capacity of its on-chip memory"},
      {hazard::kTileAlign, Severity::kError, c::kImplementationError,
       "tile address violates the alignment of its memory space"},
      {hazard::kTileShapeAlign, Severity::kError, c::kImplementationError,
       "tile row is not a multiple of 32 bytes (required by load/store)"},
      {hazard::kTileOverlap, Severity::kError, c::kImplementationError,
       "two live tiles partially overlap in on-chip memory"},
      {hazard::kValidShape, Severity::kError, c::kImplementationError,
       "set_validshape value is not within [1, tile shape]"},
      {hazard::kValidShapeAfterLoad, Severity::kWarning, c::kImplementationError,
       "set_validshape narrows a Vec tile after a load: if it was meant to bound that load, the load "
       "used the previous window (a load past the tensor is SIM-GM-OOB)"},
      {hazard::kMaskDtype, Severity::kWarning, c::kImplementationError,
       "mask register built for one dtype width used by an operation of another"},
      {hazard::kUninitRead, Severity::kError, c::kImplementationError,
       "bytes never written in this run (or values computed from them) reach GM, a scalar, a mask "
       "register or an index"},
      {hazard::kUninitUse, Severity::kWarning, c::kImplementationError,
       "an operation computes on bytes never written in this run; the results there stay undefined "
       "and are SIM-UNINIT-READ where they reach GM, a scalar, a mask register or an index"},
      {hazard::kOutputUnwritten, Severity::kError, c::kImplementationError,
       "output elements never written by any core"},
      {hazard::kOutputMultiWriter, Severity::kError, c::kImplementationError,
       "output elements written by more than one core with different values (a race)"},
      {hazard::kOutputMultiWriterSame, Severity::kWarning, c::kImplementationError,
       "output elements written again by another core with the same values (redundant work; "
       "each output region should have one writer)"},
      {hazard::kVfMteOp, Severity::kError, c::kImplementationError,
       "pl.load/pl.store/fillpad inside a @pl.vector_function (MTE ops belong to the kernel)"},
      {hazard::kVfReturnChain, Severity::kError, c::kImplementationError,
       "a VF function's return value is passed into another VF function (registers die on return)"},
      {hazard::kVfRuntimeIf, Severity::kWarning, c::kImplementationError,
       "`if` on a runtime value inside a VF function (hardware executes both arms predicated)"},
      {hazard::kVfStaleValue, Severity::kWarning, c::kImplementationError,
       "a loop reads a variable assigned only in an earlier, different loop of the VF body"},
      {hazard::kWrapperBoundary, Severity::kError, c::kImplementationError,
       "wrapper statement outside the wrapper boundary (not executed)"},
      {hazard::kRegisterRange, Severity::kError, c::kImplementationError,
       "vector register load/store reaches outside its tile"},
      {hazard::kScalarRange, Severity::kError, c::kImplementationError,
       "pl.getval/pl.setval or a subscript reads or writes an element outside its tile (undefined "
       "on the device, getval.md)"},
      {hazard::kTypeMismatch, Severity::kError, c::kImplementationError,
       "operand dtypes of an operation disagree"},
      {hazard::kUnsupported, Severity::kError, c::kCapabilityGap,
       "construct or operation the simulator does not execute"},
      {hazard::kRuntimeError, Severity::kError, c::kRuntimeFailure,
       "the kernel or wrapper failed while executing"},
      {hazard::kBlockDim, Severity::kError, c::kImplementationError,
       "launch block_dim is not a positive integer or exceeds the platform's cores (vector-only: "
       "vector_core_num; cube or mixed: core_num)"},
      {hazard::kCoreSpace, Severity::kError, c::kImplementationError,
       "an operation uses a tile in a memory space the executing core does not have (Cube spaces "
       "on an AIV, Vec on an AIC)"},
      {hazard::kCubeSpace, Severity::kError, c::kImplementationError,
       "a Cube operand is in a memory space its operation does not take (matmul lhs not Left, "
       "load into Left, move between spaces with no data path, ...)"},
      {hazard::kCubeLayout, Severity::kError, c::kImplementationError,
       "a Cube tile has a layout its memory space or data path does not take (TileType.md, "
       "Cube_matrix_computation.md)"},
      {hazard::kCubeFractal, Severity::kError, c::kImplementationError,
       "a Cube tile's shape is not a whole number of fractals, or an Acc tile is smaller than "
       "one fractal (1024 B for FP32/INT32)"},
      {hazard::kCubeShape, Severity::kError, c::kImplementationError,
       "matmul operand shapes disagree (K of lhs and rhs, M x N beyond the Acc tile, bias not "
       "[1, N]) or a valid extent is outside [1, 4095]"},
      {hazard::kFixQuant, Severity::kError, c::kImplementationError,
       "a fixpipe quantisation (scale= / relu_pre_mode= of pl.store, pl.store_tile or pl.move Acc -> "
       "Vec, or a Scaling tile) the frontend rejects or the fixpipe cannot produce (store.md, move.md)"},
      {hazard::kMoveRange, Severity::kError, c::kImplementationError,
       "a pl.move/pl.insert window (offset + extent) reaches outside its source or destination "
       "tile, or an offset is not on a fractal boundary"},
      {hazard::kAccUnwritten, Severity::kError, c::kImplementationError,
       "matmul_acc or a store reads an Acc tile that no matmul wrote on this core"},
      {hazard::kPhaseUnpaired, Severity::kError, c::kImplementationError,
       "a matmul used phase= but the store of its Acc did not (FIX does not wait: corrupt "
       "result), or the reverse (the store waits for a unit flag no matmul sets: hang)"},
      {hazard::kPhaseNoFinal, Severity::kError, c::kImplementationError,
       "a K accumulation never reaches AccPhase.Final before its phase store (the unit flag is "
       "never set: the store hangs)"},
      {hazard::kPhaseHang, Severity::kError, c::kImplementationError,
       "a matmul with phase= waits for a unit flag that an earlier Final left set and no Final "
       "store cleared (the M pipe hangs)"},
      {hazard::kKaccPhase, Severity::kError, c::kImplementationError,
       "K-blocked accumulation (matmul_acc) without phase= on every step (matmul_acc.md: "
       "precision errors on the device)"},
      {hazard::kKaccLayout, Severity::kError, c::kImplementationError,
       "K-blocked accumulation without pl.system.set_mm_layout_transform(enabled=True) "
       "(matmul_acc.md: precision errors on the device)"},
      {hazard::kKaccFractal, Severity::kError, c::kImplementationError,
       "K-blocked accumulation into an Acc tile whose fractal is not 1024 (matmul_acc.md)"},
      {hazard::kMmLayoutUnpaired, Severity::kWarning, c::kImplementationError,
       "set_mm_layout_transform(enabled=True) is not switched off before the core ends "
       "(set_mm_layout_transform.md: must be paired)"},
      {hazard::kPartialFix, Severity::kError, c::kImplementationError,
       "a unit-flag (phase=) matmul computes fewer rows or columns than its Acc tile: the "
       "partial fixpipe handshake hangs (rows) or corrupts the tail (columns)"},
      {hazard::kMutexShared, Severity::kWarning, c::kImplementationError,
       "two tile groups used on one core share a mutex id under auto_mutex: legal (make_tile_group.md "
       "lets ids repeat across tiles; the frontend merges the locks of one op), but every op on either "
       "group now waits for the other's, which serialises their pipes"},
      {hazard::kL1BankHalf, Severity::kWarning, c::kImplementationError,
       "consecutive slots of an L1 (Mat) tile group lie in the same bank half: the MTE2 write "
       "of one and the MTE1 read of the other conflict on the same banks"},
      {hazard::kWorkBudget, Severity::kError, c::kRuntimeFailure,
       "the run exceeded its work budget, or a loop repeated without progress (on the device: a hang)"},
      {hazard::kLimit, Severity::kError, c::kCapabilityGap,
       "a value or allocation beyond the simulator's explicit limits (integers outside int64, host "
       "memory, list length, call depth / recursion)"},
      {hazard::kDeadlock, Severity::kError, c::kRuntimeFailure,
       "every live core of a launch waits for a cross-core event no core can set any more: "
       "the device hangs (each waiting core's line and event are reported)"},
      {hazard::kEventReuse, Severity::kError, c::kImplementationError,
       "a cross-core event is set while 16 earlier sets of it may still be counted (no consumption "
       "ordered before the set): the flag's counter can overflow"},
      {hazard::kCrossSync, Severity::kError, c::kImplementationError,
       "set_cross_core/wait_cross_core with an invalid pipe, event id or sync mode for the core"},
      {hazard::kGmRace, Severity::kError, c::kImplementationError,
       "two cores access the same GM element, at least one writing, with no happens-before "
       "edge through cross-core events: the result depends on timing"},
      {hazard::kIndexRange, Severity::kError, c::kImplementationError,
       "pl.gather / pl.scatter with an index outside its tile, or two scattered elements on one destination "
       "element (gather.md, scatter.md: undefined)"},
      {hazard::kSimtRace, Severity::kError, c::kImplementationError,
       "two threads of one pl.simt.launch access the same element, at least one writing (SIMT has no "
       "barrier): the result depends on timing"},
      {hazard::kXcoreUnconsumed, Severity::kError, c::kImplementationError,
       "a cross-core set that no wait consumed before the launch ended (unbalanced producer and "
       "consumer counts): the flag stays set"},
      {hazard::kXcoreRace, Severity::kError, c::kImplementationError,
       "on-chip bytes one core of a block writes into another's memory (Acc -> Vec, Vec -> Mat) "
       "used or overwritten with no happens-before edge through cross-core events"},
      {hazard::kXcoreRaceSame, Severity::kWarning, c::kImplementationError,
       "two cores write the same bytes into a third's on-chip memory with no happens-before edge: "
       "the contents do not depend on the order, but the transfer is redundant"},
      {hazard::kPipeRace, Severity::kError, c::kImplementationError,
       "two pipes of one core access the same on-chip bytes (at least one writing) with no "
       "sync_src/sync_dst, mutex, barrier or unit-flag edge between them: the result depends on timing"},
      {hazard::kPipeWaw, Severity::kError, c::kImplementationError,
       "a second MTE2 load into bytes whose previous MTE2 load nobody read, with no bar_mte2 "
       "between them (load.md)"},
      {hazard::kPipeWaitNoSet, Severity::kError, c::kRuntimeFailure,
       "sync_dst waits for a flag no sync_src set before it: the waiting pipe hangs (the core stops)"},
      {hazard::kPipeEventReuse, Severity::kError, c::kImplementationError,
       "sync_src sets a flag that is still set (no sync_dst consumed the earlier set): the set is lost"},
      {hazard::kPipeSync, Severity::kError, c::kImplementationError,
       "invalid sync_src/sync_dst or mutex_lock/mutex_unlock: pipe, event or mutex id out of range, "
       "unpaired, nested or mismatched lock and unlock, a lock held at the core's end"},
  };
  return table;
}

const HazardInfo* FindHazard(std::string_view code) {
  for (const auto& h : HazardCatalogue())
    if (h.code == code) return &h;
  return nullptr;
}

void HazardSink::Report(std::string_view code, int line, std::string message,
                        std::string evidence) {
  const HazardInfo* info = FindHazard(code);
  ReportWithSeverity(code, info ? info->severity : Severity::kError, line, std::move(message),
                     std::move(evidence));
}

void HazardSink::ReportWithSeverity(std::string_view code, Severity sev, int line,
                                    std::string message, std::string evidence) {
  auto key = std::make_tuple(std::string(code), line);
  if (auto it = index_.find(key); it != index_.end()) {
    ++entries_[it->second].count;
    return;
  }
  const HazardInfo* info = FindHazard(code);
  Entry e;
  e.diag.code = std::string(code);
  e.diag.severity = sev;
  e.diag.category = info ? std::string(info->category) : std::string(opdev::category::kRuntimeFailure);
  e.diag.file = file_;
  e.diag.line = line;
  e.diag.message = std::move(message);
  e.diag.evidence = std::move(evidence);
  e.count = 1;
  index_[key] = entries_.size();
  entries_.push_back(std::move(e));
}

bool HazardSink::Has(std::string_view code) const {
  for (const auto& e : entries_)
    if (e.diag.code == code) return true;
  return false;
}

size_t HazardSink::ErrorCount() const {
  size_t n = 0;
  for (const auto& e : entries_)
    if (e.diag.severity == Severity::kError) ++n;
  return n;
}

Diagnostics HazardSink::Finish() const {
  Diagnostics out;
  for (const auto& e : entries_) {
    Diagnostic d = e.diag;
    if (e.count > 1) {
      if (!d.evidence.empty()) d.evidence += " ";
      d.evidence += "(" + std::to_string(e.count) + " occurrences)";
    }
    out.Add(std::move(d));
  }
  out.Sort();
  return out;
}

}  // namespace opdev::sim
