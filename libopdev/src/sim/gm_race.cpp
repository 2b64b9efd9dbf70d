// Happens-before race detection on shared GM tensors (see gm_race.h).
#include "gm_race.h"

#include <iterator>

namespace opdev::sim {

int64_t GmRaceTracker::FirstConflict(const Segments& segs, int64_t b, int64_t e, int core, Access* found,
                                     bool atomic) const {
  auto it = segs.upper_bound(b);
  if (it != segs.begin()) --it;
  for (; it != segs.end() && it->first < e; ++it) {
    const Segment& sg = it->second;
    if (sg.end <= b) continue;
    if (atomic && sg.a.atomic) continue;
    if (sg.a.core >= 0 && !sync_.HappensBefore(sg.a.core, sg.a.epoch, core)) {
      *found = sg.a;
      return it->first > b ? it->first : b;
    }
  }
  return -1;
}

void GmRaceTracker::Assign(Segments& segs, int64_t b, int64_t e, const Access& a) {
  if (b >= e) return;
  // One search: `it` walks from the first segment starting at b or later, and every change
  // below is made at a known position.
  auto it = segs.lower_bound(b);
  // A segment that straddles b keeps its part before b (and its part after e, if any).
  if (it != segs.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end > b) {
      const Segment tail = prev->second;
      prev->second.end = b;
      if (tail.end > e) it = segs.emplace_hint(it, e, tail);
    }
  }
  // The segments starting inside [b, e) go; the last may keep its part after e.
  while (it != segs.end() && it->first < e) {
    if (it->second.end > e) {
      const Segment rest = it->second;
      it = segs.erase(it);
      it = segs.emplace_hint(it, e, rest);
      break;
    }
    it = segs.erase(it);
  }
  // Insert [b, e), merged with an equal right and left neighbour.
  int64_t end = e;
  if (it != segs.end() && it->first == e && it->second.a == a) {
    end = it->second.end;
    it = segs.erase(it);
  }
  if (it != segs.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end == b && prev->second.a == a) {
      prev->second.end = end;
      return;
    }
  }
  segs.emplace_hint(it, b, Segment{end, a});
}

GmRace GmRaceTracker::Read(const GmTensor& t, const ElementRuns& runs, int core, int line) {
  GmRace r;
  Shadow& s = shadows_[&t];
  const Access now{core, sync_.Epoch(core), line};
  for (const auto& [b, n] : runs) {
    if (!r.found) {
      Access w;
      if (int64_t i = FirstConflict(s.write, b, b + n, core, &w); i >= 0) r = {true, i, true, w.core, w.line};
    }
    Assign(s.read, b, b + n, now);
  }
  return r;
}

GmRace GmRaceTracker::Write(const GmTensor& t, const ElementRuns& runs, int core, int line,
                            const ElementRuns* changed, bool atomic) {
  GmRace r;
  Shadow& s = shadows_[&t];
  const Access now{core, sync_.Epoch(core), line, atomic};
  // Per element the last write is checked before the last read; the first element wins. The
  // checks run before the records of this store are assigned.
  for (const auto& [b, n] : changed ? *changed : runs) {
    if (r.found) break;
    Access w, rd;
    const int64_t iw = FirstConflict(s.write, b, b + n, core, &w, atomic);
    const int64_t ir = FirstConflict(s.read, b, b + n, core, &rd);
    if (iw >= 0 && (ir < 0 || iw <= ir)) r = {true, iw, true, w.core, w.line};
    else if (ir >= 0) r = {true, ir, false, rd.core, rd.line};
  }
  for (const auto& [b, n] : runs) Assign(s.write, b, b + n, now);
  return r;
}

}  // namespace opdev::sim
