// Happens-before race detection on shared GM tensors (see gm_race.h).
#include "gm_race.h"

namespace opdev::sim {

GmRaceTracker::Shadow& GmRaceTracker::Of(const GmTensor& t) {
  Shadow& s = shadows_[&t];
  if (s.write.empty()) {
    s.write.resize(static_cast<size_t>(t.numel()));
    s.read.resize(static_cast<size_t>(t.numel()));
  }
  return s;
}

GmRace GmRaceTracker::Read(const GmTensor& t, const ElementRuns& runs, int core, int line) {
  GmRace r;
  Shadow& s = Of(t);
  const uint32_t epoch = sync_.Epoch(core);
  for (const auto& [b, n] : runs) {
    for (int64_t i = b; i < b + n; ++i) {
      const Access& w = s.write[static_cast<size_t>(i)];
      if (!r.found && w.core >= 0 && !sync_.HappensBefore(w.core, w.epoch, core)) {
        r = {true, i, true, w.core, w.line};
      }
      s.read[static_cast<size_t>(i)] = {core, epoch, line};
    }
  }
  return r;
}

GmRace GmRaceTracker::Write(const GmTensor& t, const ElementRuns& runs, int core, int line) {
  GmRace r;
  Shadow& s = Of(t);
  const uint32_t epoch = sync_.Epoch(core);
  for (const auto& [b, n] : runs) {
    for (int64_t i = b; i < b + n; ++i) {
      Access& w = s.write[static_cast<size_t>(i)];
      const Access& rd = s.read[static_cast<size_t>(i)];
      if (!r.found) {
        if (w.core >= 0 && !sync_.HappensBefore(w.core, w.epoch, core)) r = {true, i, true, w.core, w.line};
        else if (rd.core >= 0 && !sync_.HappensBefore(rd.core, rd.epoch, core)) r = {true, i, false, rd.core, rd.line};
      }
      w = {core, epoch, line};
    }
  }
  return r;
}

}  // namespace opdev::sim
