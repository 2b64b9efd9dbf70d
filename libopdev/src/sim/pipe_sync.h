// The pipes of one core and the happens-before order between them (docs/pipe-sync.md §6,
// docs/simulator.md "Pipes of one core"). A core issues every instruction in program order,
// but its seven pipes (MTE1, MTE2, MTE3, M, V, S, FIX) run them concurrently: an operation on
// one pipe is ordered after another pipe's only through sync_src/sync_dst flags, mutex
// unlock -> lock, pipe barriers, sync_all / dump_data and the M <-> FIX unit flag of phase=.
// PipeState keeps per pipe a counter (operations issued) and a vector clock (the last operation
// of every pipe known complete before the pipe's next one), and per on-chip space the runs of
// bytes with their last write and last read per pipe; an access the clocks do not order after
// a conflicting one on another pipe is a race. V, S and M run their own operations in order;
// MTE1, MTE2, MTE3 and FIX advance their own entry only through the edges (load.md: a second
// MTE2 load over bytes nobody read needs bar_mte2).
#pragma once

#include "free_list_alloc.h"

#include "opdev/support/target.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace opdev::sim {

enum class Pipe : uint8_t { kMte1, kMte2, kMte3, kM, kV, kS, kFix };
inline constexpr int kNumPipes = 7;
std::string_view PipeName(Pipe p);                 // "MTE2", ...
std::optional<Pipe> ParsePipe(std::string_view s);  // a pl.PipeType member name (not ALL)
// A vector clock over every pipe of every core of the launch: entry core * 7 + pipe (cross-core
// events carry it from one core's pipe to another's).
using PipeClock = std::vector<uint32_t>;

// One access of a run of bytes: the operation's epoch on its pipe (0: none), line and name.
// The name is not copied: it must outlive the launch (an API catalog name or a literal).
struct PipeAccess {
  uint32_t epoch = 0;
  Pipe pipe = Pipe::kV;
  int line = 0;
  const char* op = "";  // 8 bytes, not a view's 16: a run keeps eight of these
};

// A conflict found at an access: the earlier access it is not ordered after.
struct PipeConflict {
  enum Kind { kRaw, kWar, kWaw, kMte2Waw } kind = kRaw;
  PipeAccess other;
  uint64_t begin = 0, end = 0;  // conflicting bytes (a hull of the runs)
};

class PipeState {
 public:
  // The core's index in its launch and the launch's core count (sizes the clocks).
  void Init(int ordinal, int ncores);
  // Starts an operation on `p` and returns its epoch (V, S and M: all earlier work of the
  // pipe is complete before it).
  uint32_t Begin(Pipe p);
  // C[p] with p's own entry at its last issued operation: what a set / unlock on p publishes.
  PipeClock Publish(Pipe p) const;
  // The same into `out`, whose storage is reused (an unlock or set of every operation).
  void PublishInto(Pipe p, PipeClock& out) const;
  // The clock of `q` learns `c` (for q = S, every pipe does: the scalar unit stalls and issues
  // every later instruction after it).
  void Join(Pipe q, const PipeClock& c);
  void Barrier(Pipe x);  // pipe_barrier(PIPE_X)
  void BarrierAll();     // pipe_barrier(PIPE_ALL)
  const PipeClock& Clock(Pipe p) const { return clock_[static_cast<int>(p)]; }
  // The clock entry of this core's pipe `p`.
  size_t Own(Pipe p) const { return base_ + static_cast<size_t>(p); }

  // sync_src: false when the flag was still set (the earlier set's line in *prev_line).
  bool Set(Pipe p, Pipe q, int64_t event, int line, int* prev_line);
  // sync_dst: false when the flag is not set.
  bool Wait(Pipe p, Pipe q, int64_t event);
  // Flags still set (statistics at the core's end).
  size_t PendingFlags() const { return flags_.size(); }

  // mutex_lock on q: q learns every earlier unlock of `id` on another pipe (asc_lock).
  void Lock(Pipe q, int64_t id);
  void Unlock(Pipe p, int64_t id);

  // The unit flag of phase= on the Acc block at `acc`: a Final matmul publishes M, the phase
  // store joins it into FIX; the store publishes FIX, the next phase matmul joins it into M.
  void UnitFlagMatmul(uint64_t acc, bool before, bool final_step);
  void UnitFlagStore(uint64_t acc, bool before);

  // Records an access of [begin, end) of `space` by operation `epoch` of `p` and returns the
  // first conflict with an access of another pipe it is not ordered after (MTE2 over MTE2:
  // kMte2Waw when no other pipe read the bytes in between). `op` must outlive the launch.
  std::optional<PipeConflict> Access(MemSpace space, uint64_t begin, uint64_t end, Pipe p, uint32_t epoch,
                                     bool write, int line, const char* op);

  // Drops the records of [begin, end) of `space` (another core wrote the bytes).
  void Forget(MemSpace space, uint64_t begin, uint64_t end);
  // Drops every byte run (the core has ended: nothing it issues can meet them any more), so
  // that their nodes serve the next core.
  void DropRuns();

  // Hand-written mutex pairs for the SIM-PIPE-SYNC checks: (pipe, line) of the held lock of
  // an id (nullopt when none).
  std::map<int64_t, std::pair<Pipe, int>> held;

 private:
  struct Seg {
    uint64_t end = 0;
    PipeAccess write;
    std::array<PipeAccess, kNumPipes> reads;
  };
  // Runs are split and merged by the hundred per tile (register accesses split a DMA's run,
  // the next DMA merges them again): their nodes come from a free list.
  using SegMap = std::map<uint64_t, Seg, std::less<uint64_t>, FreeListAlloc<std::pair<const uint64_t, Seg>>>;
  static void Split(SegMap& m, uint64_t at);
  // The run the last access of a space started at: a loop of register loads or stores walks a
  // tile's runs in order, so the next access usually starts at this run or the one after it
  // and needs no search of the map. A copied or moved state starts without one.
  struct RunHint {
    SegMap::iterator at;
    bool valid = false;
    RunHint() = default;
    RunHint(const RunHint&) {}
    RunHint& operator=(const RunHint&) {
      valid = false;
      return *this;
    }
  };

  size_t base_ = 0;
  size_t width_ = kNumPipes;
  std::array<uint32_t, kNumPipes> issued_{};
  std::array<PipeClock, kNumPipes> clock_{};
  struct Flag {
    PipeClock clock{};
    int line = 0;
  };
  std::map<std::tuple<int, int, int64_t>, Flag> flags_;
  std::map<std::pair<int64_t, int>, PipeClock> unlocks_;  // (id, pipe) -> last unlock's clock
  std::map<uint64_t, PipeClock> unit_m_, unit_fix_;       // by Acc address
  std::array<SegMap, 10> spaces_;                          // by MemSpace
  std::array<RunHint, 10> hints_;                          // by MemSpace
};

}  // namespace opdev::sim
