// The cross-core events of one launch (pl.system.set_cross_core / wait_cross_core) and the
// vector clocks that order the cores' work through them. An event is a flag per (receiving
// core, sending core, sync mode, event id) holding the pending sets in order; a wait consumes
// one. What a set reaches follows set_cross_core_wait_cross_core.md:
//  * INTRA_BLOCK (default): AIC -> both AIVs of its block (each AIV's wait consumes its copy);
//    AIV -> the AIC of its block, whose wait needs the set of both AIVs and consumes both;
//  * UNICAST_BLOCK: AIV -> the AIC of its block, whose wait is satisfied by either AIV's set
//    (the lower subblock's pending set is consumed first); what an AIC set reaches in this
//    mode is not documented and is reported, not guessed;
//  * INTER_SUBBLOCK: AIV -> the other AIV of its block;
//  * INTER_BLOCK: all cores of the setter's kind; the k-th wait of a core is satisfied once
//    every core of its kind has set the event k times (a barrier).
// A flag is a counter (Ascend C CrossCoreSetFlag/CrossCoreWaitFlag: a set adds 1, a wait blocks
// at 0 and subtracts 1, one flag holds at most 16 sets; the PyPTO-Pro page gives no depth). A
// set that may find kFlagDepth earlier sets still counted — those whose consumption is not
// ordered before it — can overflow the counter and is reported (SetResult::reused_line).
// Each core has a vector clock (one component per core, its own starting at 1). A set sends a
// snapshot of the setter's clock and then advances the setter's own component; a wait joins
// the snapshots it consumes. An access at epoch e of core c happens before core d's access
// when c == d or clock[d][c] >= e (gm_race.h uses this).
#pragma once

#include "core_context.h"

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace opdev::sim {

enum class CrossMode { kInterBlock = 0, kInterSubblock = 1, kIntraBlock = 2, kUnicastBlock = 3 };
std::string_view CrossModeName(CrossMode m);

using VClock = std::vector<uint32_t>;

inline constexpr size_t kFlagDepth = 16;

class CrossCoreSync {
 public:
  explicit CrossCoreSync(const std::vector<CoreContext>& cores);

  struct SetResult {
    std::string error;      // non-empty: the set is invalid here (no receiver, undefined mode)
    int reused_line = 0;    // > 0: kFlagDepth earlier sets (the first from that line) may still be counted
    std::string reused_receiver;
    size_t in_flight = 0;
  };
  // `pipes`: the setter's pipe clock (pipe_sync.h) the set publishes; a wait that consumes the
  // set joins it into the waiting pipe (Consume's `pipes`).
  SetResult Set(int core, CrossMode mode, int event, int line, const std::vector<uint32_t>& pipes = {});
  // "" when the wait is valid on this core, else why not.
  std::string CheckWait(int core, CrossMode mode, int event) const;
  bool CanWait(int core, CrossMode mode, int event) const;
  // Requires CanWait. `pipes` (when given) learns the element-wise maximum of the pipe clocks
  // of the sets consumed.
  void Consume(int core, CrossMode mode, int event, std::vector<uint32_t>* pipes = nullptr);
  // Which sets the wait needs, for deadlock reports ("a set by AIC 0").
  std::string WaitSources(int core, CrossMode mode) const;
  // Sets no wait consumed by the end of the launch, in (line, setter, receiver) order.
  struct Leftover {
    int line = 0;
    int setter = 0;
    int receiver = 0;
    CrossMode mode = CrossMode::kIntraBlock;
    int event = 0;
    size_t count = 0;  // unconsumed sets of that flag
  };
  std::vector<Leftover> Leftovers() const;

  const CoreContext& Core(int core) const { return cores_[static_cast<size_t>(core)]; }
  const VClock& Clock(int core) const { return clock_[static_cast<size_t>(core)]; }
  uint32_t Epoch(int core) const { return clock_[static_cast<size_t>(core)][static_cast<size_t>(core)]; }
  bool HappensBefore(int from_core, uint32_t from_epoch, int to_core) const {
    return from_core == to_core || clock_[static_cast<size_t>(to_core)][static_cast<size_t>(from_core)] >= from_epoch;
  }

 private:
  struct Pending {
    int line = 0;
    VClock vc;
    std::vector<uint32_t> pipes;
  };
  using Key = std::tuple<int, int, int, int>;  // receiver, sender, mode, event
  std::vector<int> Receivers(int core, CrossMode mode) const;
  std::vector<int> Senders(int core, CrossMode mode) const;  // whose sets a wait can take
  void Join(int core, const VClock& vc);

  const std::vector<CoreContext>& cores_;
  std::vector<VClock> clock_;
  std::map<Key, std::deque<Pending>> flags_;
  // Per flag: its sets that are not yet known to be consumed before every later set (line,
  // consumed, the receiver's epoch at the consumption); lines already reported.
  struct FlagSet {
    int line = 0;
    bool consumed = false;
    uint32_t consume_epoch = 0;
  };
  std::map<Key, std::deque<FlagSet>> in_flight_;
  std::set<int> reuse_lines_;
  // INTER_BLOCK: snapshots of each core's sets per event, and each core's waits per event.
  std::map<std::pair<int, int>, std::vector<VClock>> barrier_sets_;
  std::map<std::pair<int, int>, std::vector<std::vector<uint32_t>>> barrier_pipes_;
  std::map<std::pair<int, int>, size_t> barrier_waits_;
};

}  // namespace opdev::sim
