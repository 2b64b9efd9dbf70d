// On-chip data that crosses between the cores of one block: the AIC's pl.move Acc -> Vec
// (fixpipe into the UB of one or both AIVs, acc_to_vec_mode) and an AIV's pl.insert / move
// Vec -> Mat (MTE3 into the AIC's L1). The bytes land in the receiving core's memory at the
// destination tile's address, and the receiver keeps a SharedRegion per written range with the
// writer's vector-clock epoch. Every later use of a tile overlapping the range by the receiver
// must happen after the write (a wait that joined a set the writer made after it), and every
// later remote write must happen after the receiver's last use (a set of the receiver after
// the use that the writer waited for); otherwise SIM-XCORE-RACE names both cores' lines. As
// for GM (gm_race.h) the check follows the event edges, not the order the cores happened to
// run in.
#pragma once

#include "core_context.h"

#include <cstdint>
#include <string>

namespace opdev::sim {

class Interp;
struct Tile;

// The core of the executing core's block with `kind` and `subblock` (AIV 0/1; 0 for the AIC),
// or nullptr when the launch has none.
CoreContext* BlockPeer(Interp& in, CoreKind kind, int64_t subblock);

// Records that the executing core writes [begin, end) of `space` in `owner`'s memory at `line`
// (`what` names the operation for messages) and reports the races with the owner's uses.
void RecordRemoteWrite(Interp& in, CoreContext& owner, MemSpace space, uint64_t begin, uint64_t end,
                       int line, const std::string& what);

// The executing core uses tile `t` at `line`: races with remote writes into it are reported,
// and the use is recorded. Cheap when the core has no shared regions (see Interp::TouchShared).
void RecordSharedUse(Interp& in, const Tile& t, int line);

}  // namespace opdev::sim
