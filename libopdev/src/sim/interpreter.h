// The kernel interpreter: evaluates the lowered program (program.h) — module constants,
// helper and VF functions, the @pl.jit kernel (each core of the launch in turn, each with its
// own CoreContext: kind, indices, on-chip memory, tiles, pipe state) and the host wrapper
// within the wrapper boundary. Builtins (builtins_*.cpp) reach the executing core's state
// through this class.
#pragma once

#include "core_context.h"
#include "core_scheduler.h"
#include "cross_core_data.h"
#include "cross_core_sync.h"
#include "gm_race.h"
#include "program.h"
#include "value.h"

#include "opdev/sim/hazards.h"
#include "opdev/sim/memory.h"
#include "opdev/sim/tile.h"

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace opdev::sim {

struct SimtLaunch;  // simt.h

using Kwargs = std::vector<std::pair<std::string, Value>>;

// A failure that stops the run (reported as a hazard with its line).
class SimError : public std::runtime_error {
 public:
  SimError(std::string_view code, int line, const std::string& msg)
      : std::runtime_error(msg), code(code), line(line) {}
  std::string code;
  int line;
};

struct Frame {
  std::vector<Value> slots;
  const FuncIR* fn = nullptr;
};

enum class Flow { kNormal, kBreak, kContinue, kReturn };

struct ExecStats {
  int64_t vf_ops = 0;      // register operations executed
  int64_t lane_ops = 0;    // register lanes processed by them
  int64_t tile_elems = 0;  // tile-op / DMA elements processed
  int64_t cube_macs = 0;   // matmul multiply-accumulates
  int64_t statements = 0;
  int64_t cores_run = 0;
  int64_t pipe_flags_pending = 0;  // sync_src flags still set when their core ended
};

// The run's explicit limits (docs/simulator.md, "Limits"); every one ends the run with a
// hazard naming it.
struct RunLimits {
  int64_t work_budget = 0;        // work units (statements + register ops + tile elements / 64)
  std::string budget_origin;      // how the budget was chosen, for the message
  int64_t memory_bytes = 0;       // GM tensors the wrapper allocates (inputs excluded)

  // The limits of one run: `work_budget` / `memory_limit_bytes` as the caller set them (0: the
  // defaults, DefaultWorkBudget(input_elements) and kDefaultMemoryLimitBytes). Every entry
  // point (RunKernelSource, LaunchKernel) takes its limits from here.
  static RunLimits For(int64_t work_budget, int64_t memory_limit_bytes, int64_t input_elements);
};
inline constexpr int64_t kMaxSequenceItems = int64_t{1} << 20;  // items of one list / tuple
inline constexpr int kMaxCallDepth = 64;                        // nested function calls
// Native stack the interpretation of one run may use (checked at every call): deep
// expression nesting inside deep calls ends the run with SIM-LIMIT, not a stack overflow,
// also on threads with small stacks (a Python device thread calling the C ABI).
inline constexpr uintptr_t kMaxInterpStackBytes = uintptr_t{1} << 20;

struct LaunchRecord {
  std::string kernel;
  int64_t block_dim = 0;
  int line = 0;
};

class Interp {
 public:
  Interp(Program& prog, HazardSink& sink, Target target);

  void RunModuleBody();
  Value CallValue(const Value& callee, std::vector<Value>& args, Kwargs& kw, const XNode& site);
  Value CallFunction(const FuncIR& f, std::vector<Value>& args, Kwargs& kw, int line);
  // Runs `kernel` on the cores of block_dim blocks (see PlanCore) as concurrent cores under a
  // CoreScheduler (one runs at a time, switches at sync points; schedule_seed permutes).
  // `key`: the launch's tiling-key dict (tiling_key.md), nullptr or None when it gives none.
  // `datatype`: the launch's datatype dict (@pl.jit(datatype=...)), nullptr or None when none.
  void Launch(const FuncIR& kernel, int64_t block_dim, std::vector<Value>& args, Kwargs& kw, int line,
              const Value* key = nullptr, const Value* datatype = nullptr);

  Value Eval(const XNode& n, Frame& fr);
  Flow Exec(const std::vector<SNode>& body, Frame& fr, Value* ret);

  [[noreturn]] void Fail(std::string_view code, int line, const std::string& msg) const;
  int64_t ToInt(const Value& v, int line, const char* what) const;
  double ToDouble(const Value& v, int line, const char* what) const;
  bool Truthy(const Value& v) const;

  // ---- state reachable by builtins ----
  Program& prog;
  HazardSink& sink;
  Target target;
  ExecStats stats;
  std::vector<LaunchRecord> launches;
  std::vector<std::shared_ptr<GmTensor>> tensors;  // every GM tensor seen (inputs, allocations)

  bool in_kernel = false;
  bool in_vf = false;
  bool in_wrapper = false;
  SimtLaunch* simt = nullptr;  // the running pl.simt.launch (simt.h), nullptr outside one
  // The POST_UPDATE cursors of the running @pl.vector_function call (nullptr outside one). The
  // frontend hoists one cursor per store destination to the VF function's entry, starting at
  // the destination's address, and each post-updating store advances it in place
  // (store_align.md, post_update); a plain store of the same tile keeps using its base.
  struct VfCursor {
    std::shared_ptr<Tile> tile;
    int64_t byte = 0;  // from the tile's address
  };
  std::map<std::string, VfCursor>* vf_cursors = nullptr;
  CoreContext* core = nullptr;  // the executing core (inside a launch), else nullptr
  CoreMemory& Mem() const { return *core->mem; }
  // The cores of the launch in progress (nullptr outside a kernel) and a core's memory, taken
  // from the spare buffers when the core has none yet (another core writes it before it runs).
  std::vector<CoreContext>* launch_cores = nullptr;
  CoreMemory& MemOf(CoreContext& c);
  int next_tile_id = 1;
  int current_line = 0;
  // The variable the current statement assigns (names tiles in messages): a view of the
  // target node's name, which the program owns.
  std::string_view assign_name;
  // The local the current statement assigns, before the assignment (nullptr: none). A VF load
  // into a variable declared as a mask register (vf.create_mask) loads a mask (load_align.md).
  const Value* assign_target = nullptr;
  const XNode* assign_value = nullptr;  // that statement's value expression
  PlatformInfo platform;    // what get_platform_info() returns
  int64_t block_dim_override = 0;  // > 0: replaces the block_dim of every launch
  // The kernel's tiling-key schema as the host resolved it (a launch from CPython, whose
  // @pl.jit already checked the key against it, is_valid() included); it replaces the schema
  // lowering read from the source (which cannot follow a schema passed into a kernel factory).
  std::shared_ptr<const TilingKeySchema> host_tiling_key;
  // A launch from CPython: the host already bound the kernel's datatype variables as module
  // values (the frontend checked its dict), so the launch binds none of its own.
  bool host_datatype = false;
  RunLimits limits;

  // Work done so far in budget units (see RunLimits::work_budget).
  int64_t Work() const { return stats.statements + stats.vf_ops + (stats.tile_elems >> 6); }
  // Ends the run with SIM-WORK-BUDGET at the innermost running loop (or `line`).
  [[noreturn]] void WorkBudgetExhausted(int line) const;
  // Accounts `bytes` of new GM allocation against limits.memory_bytes (SIM-LIMIT when over).
  void AllocateGm(int64_t bytes, int line);
  // SIM-LIMIT when a sequence of `n` items would exceed kMaxSequenceItems.
  void CheckSequenceLength(int64_t n, int line) const;

  bool record_provenance = false;  // stamp written bytes with their writer (SimOptions)
  uint64_t schedule_seed = 0;      // 0: fixed core order; else the interleaving's PRNG seed
  std::map<const FuncIR*, std::vector<StageParamUse>> stage_uses;  // pipeline_stage.cpp's analysis
  bool pipe_sync = false;          // the intra-core pipe model (SimOptions::pipe_sync)
  uint32_t pipe_reg_epoch = 0;     // V epoch of the vf.* register load/store running (builtins_pipe.cpp)
  // The launch in progress: its scheduler and cross-core events (nullptr outside a kernel),
  // and the GM race tracker (nullptr when the launch has one core).
  CoreScheduler* sched = nullptr;
  CrossCoreSync* xsync = nullptr;
  GmRaceTracker* race = nullptr;
  // Reports a GM race found by `race` for a transfer at `line` on the executing core.
  void ReportRace(const GmRace& r, const GmTensor& t, bool is_write, int line);

  // Registers a new tile on the executing core: placement and overlap checks.
  void RegisterTile(const std::shared_ptr<Tile>& t, int line);
  // Marks a tile as accessed by an operation; a tile in a space the executing core does not
  // have (a Cube space on an AIV, Vec on an AIC) is an error.
  void MarkUsed(Tile& t) {
    if (core && !core->Owns(t.type.space)) WrongCoreSpace(t);
    t.used = true;
    TouchShared(t);
  }
  // A use of tile `t` by the executing core of a mixed launch: checked against the bytes other
  // cores wrote into its memory and recorded for their later writes (cross_core_data.h).
  void TouchShared(const Tile& t) {
    if (core && core->launch == LaunchKind::kMixed) RecordSharedUse(*this, t, current_line);
  }
  [[noreturn]] void WrongCoreSpace(const Tile& t) const;

 private:
  Value EvalCall(const XNode& n, Frame& fr);
  Value EvalSequence(const XNode& n, Frame& fr);
  void CallBound(const XNode& n, Frame& fr, Value& out);
  struct CallScratch;
  void GeneralEntry(const XNode& n, const Value* const* ops, size_t k, CallScratch& cs, Value& out);
  void BoundOrGeneral(const XNode& n, const Value* const* ops, size_t k, Value& out);
  [[noreturn]] void UsedBeforeAssignment(const XNode& local) const;
  // The general entry of the builtin a call names, on the pipe model when it has operands there.
  Value CallBuiltin(const XNode& n, std::vector<Value>& args, Kwargs& kw);
  struct CallScope;
  // `name_text` is `name` as the Text a bound method shares (XNode::name_text).
  Value Attr(const Value& obj, const std::string& name, int line, const Text& name_text);
  Value Subscript(const Value& obj, const Value& idx, int line);
  Value BinOp(py::Op op, const Value& a, const Value& b, int line);
  bool CompareOp(py::Op op, const Value& a, const Value& b, int line);
  void Assign(const XNode& target, const Value& v, Frame& fr);
  Value CallMethod(const Value& m, std::vector<Value>& args, Kwargs& kw, int line);
  Value& Global(const XNode& n);
  void FinishCore(bool completed);  // end-of-core checks (Cube checks only when it completed)
  // Checks a launch's tiling key against the kernel's schema and binds each field's value as a
  // module-level name (their names in `bound`).
  void BindTilingKey(const FuncIR& kernel, const Value* key, int line, std::vector<std::string>& bound);
  // The datatype variables of a launch (`bound`: each name and the module value it hides).
  void BindDatatype(const FuncIR& kernel, const Value* datatype, int line,
                    std::vector<std::pair<std::string, std::optional<Value>>>& bound);

  std::vector<std::unique_ptr<CoreMemory>> spare_mem_[2];  // reused between launches, by CoreKind
  // Argument vectors of EvalCall, one per nesting depth, reused from call to call.
  struct CallScratch {
    std::vector<Value> args;
    Kwargs kw;
  };
  std::vector<std::unique_ptr<CallScratch>> call_scratch_;
  // The locals of returned calls, emptied, whose storage the next call reuses.
  std::vector<std::vector<Value>> spare_slots_;
  size_t call_depth_ = 0;
  // Loops being executed, innermost last: their line and the iterations started so far.
  struct LoopFrame {
    int line;
    int64_t iterations;
  };
  std::vector<LoopFrame> loops_;
  int fn_depth_ = 0;          // nested CallFunction frames
  uintptr_t stack_top_ = 0;   // frame address when the interpreter was created
  void CheckStack(int line) const;
  int64_t calls_ = 0;         // calls evaluated (a loop iteration with none may be a no-op)
  int64_t state_writes_ = 0;  // global and list-item assignments (state outside the locals)
  int64_t gm_allocated_ = 0;  // bytes of GM the run allocated
  // Python's int arithmetic (interpreter.cpp): IntArith for int results without a Value,
  // IntFloatOp for true division and negative powers, IntOp for either as a Value.
  bool IntArith(py::Op op, int64_t x, int64_t y, int line, int64_t* out);
  Value IntFloatOp(py::Op op, int64_t x, int64_t y, int line) const;
  Value IntOp(py::Op op, int64_t x, int64_t y, int line);
  [[noreturn]] void IntRange(int line, const char* what, int64_t x, int64_t y) const;
  bool PeekInt(const XNode& x, Frame& fr, int64_t* out);       // locals and constants inline
  bool PeekCompound(const XNode& x, Frame& fr, int64_t* out);  // module names, nested arithmetic
  // What one core's execution owns of the interpreter while another core holds the baton.
  struct ExecState {
    CoreContext* core = nullptr;
    bool in_kernel = false;
    bool in_vf = false;
    SimtLaunch* simt = nullptr;
    std::map<std::string, VfCursor>* vf_cursors = nullptr;
    int current_line = 0;
    std::string_view assign_name;
    const Value* assign_target = nullptr;
    const XNode* assign_value = nullptr;
    std::vector<std::unique_ptr<CallScratch>> call_scratch;
    size_t call_depth = 0;
    std::vector<LoopFrame> loops;
    int fn_depth = 0;
    uintptr_t stack_top = 0;
  };
  void SaveExec(ExecState& s);
  void RestoreExec(ExecState& s);
};

// Name of a value's kind for messages ("int", "Tile", ...).
std::string KindName(VK k);

}  // namespace opdev::sim
