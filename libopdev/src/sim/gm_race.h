// Race detection on GM tensors shared by the cores of one launch. Every element remembers its
// last write and its last read (core, that core's epoch, line). An access races with an
// earlier access by another core when at least one of them writes and the earlier one does
// not happen before it through the cross-core events (CrossCoreSync::HappensBefore). Because
// the check uses the vector clocks rather than the order the cores happened to run in, a
// missing wait is found whichever core the schedule ran first. Only the last read of an
// element is kept: a write racing with an earlier read of a third core is found only when that
// read is the element's last one. The per-element records are kept as runs of consecutive
// elements with the same record (a transfer writes one record over its element runs), so the
// cost follows the number of transfers and rows, not the tensors' sizes. A store that leaves
// an element's bytes as they were (a second core writing the same value) records its write but
// is not a race itself: the element ends with that value in whichever order the two writes
// land; a later store of other bytes races with it as with any unordered write.
#pragma once

#include "cross_core_sync.h"

#include "opdev/sim/data_movement.h"
#include "opdev/sim/memory.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace opdev::sim {

// Element runs of one transfer: (first flat index, count), as the transfers give them.
using ElementRuns = TouchedRuns;

struct GmRace {
  bool found = false;
  int64_t element = 0;    // flat index of the first racing element
  bool other_wrote = true;  // the earlier access was a write (else a read)
  int other_core = 0;
  int other_line = 0;
};

class GmRaceTracker {
 public:
  explicit GmRaceTracker(const CrossCoreSync& sync) : sync_(sync) {}
  // Records the accesses of one transfer and returns its first race (if any).
  GmRace Read(const GmTensor& t, const ElementRuns& runs, int core, int line);
  // `changed`: the elements of `runs` whose bytes the store changed (checked for races);
  // nullptr: all of them.
  // `atomic`: an atomic add (store.md AtomicAdd), which races with plain accesses of other
  // cores but not with their atomic adds (the hardware serialises those).
  GmRace Write(const GmTensor& t, const ElementRuns& runs, int core, int line,
               const ElementRuns* changed = nullptr, bool atomic = false);

  // The per-element records, kept as runs (public for their test, tests/sim/test_gm_race.cpp).
  struct Access {
    int32_t core = -1;
    uint32_t epoch = 0;
    int32_t line = 0;
    bool atomic = false;
    bool operator==(const Access&) const = default;
  };
  // Records of the elements [start, end) by start; elements in no segment were never accessed.
  // Neighbouring segments that touch never hold equal records.
  struct Segment {
    int64_t end = 0;
    Access a;
  };
  using Segments = std::map<int64_t, Segment>;
  // Sets the record of [b, e) to `a`, merging with equal neighbours.
  static void Assign(Segments& segs, int64_t b, int64_t e, const Access& a);

 private:
  struct Shadow {
    Segments write, read;
  };
  // First element of [b, e) whose record in `segs` was made by another core with no
  // happens-before edge to `core` (or -1), with that record.
  // With `atomic`, records of atomic adds are no conflict.
  int64_t FirstConflict(const Segments& segs, int64_t b, int64_t e, int core, Access* found,
                        bool atomic = false) const;
  const CrossCoreSync& sync_;
  std::map<const GmTensor*, Shadow> shadows_;
};

}  // namespace opdev::sim
