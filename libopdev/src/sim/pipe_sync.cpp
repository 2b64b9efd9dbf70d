// The pipes of one core: clocks, flags, mutexes, barriers and the byte runs (pipe_sync.h).
#include "pipe_sync.h"

#include "vector_clones.h"

#include <algorithm>

namespace opdev::sim {

namespace {
constexpr std::array<std::string_view, kNumPipes> kNames = {"MTE1", "MTE2", "MTE3", "M", "V", "S", "FIX"};
int I(Pipe p) { return static_cast<int>(p); }
bool InOrder(Pipe p) { return p == Pipe::kV || p == Pipe::kS || p == Pipe::kM; }
// Entry-wise maximum: two clocks of a launch's width (pipes x cores), never the same vector.
OPDEV_VECTOR_CLONES void JoinInto(PipeClock& to, const PipeClock& from) {
  if (to.size() < from.size()) to.resize(from.size(), 0);
  uint32_t* __restrict t = to.data();
  const uint32_t* __restrict f = from.data();
  for (size_t r = 0, n = from.size(); r < n; ++r) t[r] = std::max(t[r], f[r]);
}
bool SameRecord(const PipeAccess& a, const PipeAccess& b) {
  return a.epoch == b.epoch && (a.epoch == 0 || (a.pipe == b.pipe && a.line == b.line));
}
// Whether two runs (PipeState::Seg) hold the same records. The record the access just wrote
// (pipe p's read, or the write) is compared first: it is the one neighbours usually differ in.
template <typename Seg>
bool SameRuns(const Seg& a, const Seg& b, Pipe p, bool write) {
  if (!SameRecord(write ? a.write : a.reads[I(p)], write ? b.write : b.reads[I(p)])) return false;
  if (!SameRecord(a.write, b.write)) return false;
  for (int r = 0; r < kNumPipes; ++r)
    if (!SameRecord(a.reads[r], b.reads[r])) return false;
  return true;
}
}  // namespace

std::string_view PipeName(Pipe p) { return kNames[I(p)]; }

std::optional<Pipe> ParsePipe(std::string_view s) {
  for (int i = 0; i < kNumPipes; ++i)
    if (kNames[i] == s) return static_cast<Pipe>(i);
  return std::nullopt;
}

void PipeState::Init(int ordinal, int ncores) {
  base_ = static_cast<size_t>(ordinal) * kNumPipes;
  width_ = static_cast<size_t>(std::max(ncores, 1)) * kNumPipes;
  for (auto& c : clock_) c.assign(width_, 0);
}

uint32_t PipeState::Begin(Pipe p) {
  const uint32_t e = ++issued_[I(p)];
  if (clock_[I(p)].size() < width_) clock_[I(p)].resize(width_, 0);
  if (InOrder(p)) clock_[I(p)][Own(p)] = e - 1;
  return e;
}

PipeClock PipeState::Publish(Pipe p) const {
  PipeClock c;
  PublishInto(p, c);
  return c;
}

void PipeState::PublishInto(Pipe p, PipeClock& c) const {
  c = clock_[I(p)];
  if (c.size() < width_) c.resize(width_, 0);
  c[Own(p)] = issued_[I(p)];
}

void PipeState::Join(Pipe q, const PipeClock& c) {
  if (q == Pipe::kS) {
    for (auto& cl : clock_) JoinInto(cl, c);
  } else {
    JoinInto(clock_[I(q)], c);
  }
}

void PipeState::Barrier(Pipe x) {
  PipeClock& c = clock_[I(x)];
  if (c.size() < width_) c.resize(width_, 0);
  c[Own(x)] = std::max(c[Own(x)], issued_[I(x)]);
}

void PipeState::BarrierAll() {
  for (auto& cl : clock_) {
    if (cl.size() < width_) cl.resize(width_, 0);
    for (int r = 0; r < kNumPipes; ++r) cl[base_ + r] = std::max(cl[base_ + r], issued_[r]);
  }
}

bool PipeState::Set(Pipe p, Pipe q, int64_t event, int line, int* prev_line) {
  auto key = std::make_tuple(I(p), I(q), event);
  auto it = flags_.find(key);
  const bool fresh = it == flags_.end();
  if (!fresh && prev_line) *prev_line = it->second.line;
  Flag& f = flags_[key];
  PublishInto(p, f.clock);
  f.line = line;
  return fresh;
}

bool PipeState::Wait(Pipe p, Pipe q, int64_t event) {
  auto it = flags_.find(std::make_tuple(I(p), I(q), event));
  if (it == flags_.end()) return false;
  Join(q, it->second.clock);
  flags_.erase(it);
  return true;
}

void PipeState::Lock(Pipe q, int64_t id) {
  for (auto it = unlocks_.lower_bound({id, 0}); it != unlocks_.end() && it->first.first == id; ++it)
    if (it->first.second != I(q)) Join(q, it->second);
}

void PipeState::Unlock(Pipe p, int64_t id) { PublishInto(p, unlocks_[{id, I(p)}]); }

void PipeState::UnitFlagMatmul(uint64_t acc, bool before, bool final_step) {
  if (before) {
    if (auto it = unit_fix_.find(acc); it != unit_fix_.end()) Join(Pipe::kM, it->second);
  } else if (final_step) {
    PublishInto(Pipe::kM, unit_m_[acc]);
  }
}

void PipeState::UnitFlagStore(uint64_t acc, bool before) {
  if (before) {
    if (auto it = unit_m_.find(acc); it != unit_m_.end()) Join(Pipe::kFix, it->second);
  } else {
    PublishInto(Pipe::kFix, unit_fix_[acc]);
  }
}

void PipeState::Split(SegMap& m, uint64_t at) {
  auto it = m.upper_bound(at);
  if (it == m.begin()) return;
  const auto after = it;
  --it;
  if (it->first < at && it->second.end > at) {
    Seg tail = it->second;
    it->second.end = at;
    m.emplace_hint(after, at, std::move(tail));
  }
}

void PipeState::Forget(MemSpace space, uint64_t begin, uint64_t end) {
  SegMap& m = spaces_[static_cast<size_t>(space)];
  if (begin >= end || m.empty()) return;
  hints_[static_cast<size_t>(space)].valid = false;
  Split(m, begin);
  Split(m, end);
  m.erase(m.lower_bound(begin), m.lower_bound(end));
}

void PipeState::DropRuns() {
  for (SegMap& m : spaces_) m.clear();
  for (RunHint& h : hints_) h.valid = false;
}

std::optional<PipeConflict> PipeState::Access(MemSpace space, uint64_t begin, uint64_t end, Pipe p,
                                              uint32_t epoch, bool write, int line, const char* op) {
  if (begin >= end) return std::nullopt;
  SegMap& m = spaces_[static_cast<size_t>(space)];
  RunHint& hint = hints_[static_cast<size_t>(space)];
  // Most register accesses hit a run recorded by an earlier access of the same bytes: then
  // there is nothing to split or fill. The run is looked for at the last access's run and the
  // one after it before the map is searched.
  auto first = m.end();
  if (hint.valid) {
    if (hint.at->first == begin) {
      first = hint.at;
    } else if (auto next = std::next(hint.at); next != m.end() && next->first == begin) {
      first = next;
    }
  }
  if (first == m.end()) first = m.lower_bound(begin);
  if (first != m.end() && first->first == begin && first->second.end > end) {
    // The bytes start a longer run (a register access walking a DMA's run): its tail becomes
    // a run of its own, with the same records.
    Seg tail = first->second;
    first->second.end = end;
    m.emplace_hint(std::next(first), end, std::move(tail));
  } else if ((first == m.end() || first->first >= end) &&
             (first == m.begin() || std::prev(first)->second.end <= begin)) {
    // No recorded run meets the bytes (a first store into fresh bytes): one fresh run.
    first = m.emplace_hint(first, begin, Seg{end, {}, {}});
  } else if (first == m.end() || first->first != begin || first->second.end != end) {
    Split(m, begin);
    Split(m, end);
    // Fill the gaps of [begin, end) with fresh runs.
    uint64_t cur = begin;
    auto it = m.lower_bound(begin);
    while (cur < end) {
      if (it == m.end() || it->first > cur) {
        const uint64_t stop = it == m.end() ? end : std::min(end, it->first);
        it = m.emplace_hint(it, cur, Seg{stop, {}, {}});
      }
      cur = it->second.end;
      ++it;
    }
    first = m.lower_bound(begin);
  }
  if (clock_[I(p)].size() < width_) clock_[I(p)].resize(width_, 0);
  const PipeClock& c = clock_[I(p)];
  std::optional<PipeConflict> found;
  auto note = [&](PipeConflict::Kind k, const PipeAccess& other, uint64_t b, uint64_t e) {
    if (!found) {
      found = PipeConflict{k, other, b, e};
    } else if (found->kind == k && SameRecord(found->other, other)) {
      found->begin = std::min(found->begin, b);
      found->end = std::max(found->end, e);
    }
  };
  PipeAccess me{epoch, p, line, op};
  for (auto s = first; s != m.end() && s->first < end; ++s) {
    Seg& g = s->second;
    const PipeAccess& w = g.write;
    if (w.epoch != 0 && w.pipe != p && w.epoch > c[Own(w.pipe)])
      note(write ? PipeConflict::kWaw : PipeConflict::kRaw, w, s->first, g.end);
    if (write) {
      bool read_since = false;
      for (int r = 0; r < kNumPipes; ++r) {
        const PipeAccess& rd = g.reads[r];
        if (rd.epoch == 0 || r == I(p)) continue;
        read_since = true;
        if (rd.epoch > c[base_ + r]) note(PipeConflict::kWar, rd, s->first, g.end);
      }
      if (!read_since && p == Pipe::kMte2 && w.epoch != 0 && w.pipe == p && w.epoch != epoch && w.epoch > c[Own(p)])
        note(PipeConflict::kMte2Waw, w, s->first, g.end);
      g.write = me;
      g.reads = {};
    } else {
      g.reads[I(p)] = me;
    }
  }
  // Merge neighbours left with the same records (a write leaves [begin, end) uniform). The
  // hint moves to the run that now starts the accessed bytes (or holds their start).
  auto s = first;
  if (s != m.begin()) --s;
  while (s != m.end() && s->first < end) {
    auto n = std::next(s);
    if (n == m.end() || n->first != s->second.end) {
      s = n;
      continue;
    }
    if (SameRuns(s->second, n->second, p, write)) {
      s->second.end = n->second.end;
      if (n == first) first = s;
      m.erase(n);
    } else {
      s = n;
    }
  }
  hint.at = first;
  hint.valid = true;
  return found;
}

}  // namespace opdev::sim
