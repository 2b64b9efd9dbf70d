// On-chip data crossing between the cores of a block and its race check (see cross_core_data.h).
#include "cross_core_data.h"

#include "interpreter.h"

#include "opdev/sim/hazards.h"

#include "absl/strings/str_format.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace opdev::sim {

CoreContext* BlockPeer(Interp& in, CoreKind kind, int64_t subblock) {
  if (!in.core || !in.launch_cores || in.core->launch != LaunchKind::kMixed) return nullptr;
  const int64_t base = in.core->block_idx * CoresPerBlock(LaunchKind::kMixed);
  const int64_t ordinal = kind == CoreKind::kAic ? base : base + 1 + subblock;
  if (ordinal < 0 || ordinal >= static_cast<int64_t>(in.launch_cores->size())) return nullptr;
  CoreContext& c = (*in.launch_cores)[static_cast<size_t>(ordinal)];
  return c.kind == kind ? &c : nullptr;
}

namespace {

std::string Range(MemSpace s, uint64_t b, uint64_t e) {
  return absl::StrFormat("%s [0x%x, 0x%x)", std::string(MemSpaceName(s)), b, e);
}

}  // namespace

namespace {

// The space of a core the other cores of its block write into (UB of an AIV, L1 of the AIC).
bool Receivable(const CoreContext& c, MemSpace s) {
  return c.kind == CoreKind::kAiv ? s == MemSpace::kVec : s == MemSpace::kMat;
}

}  // namespace

void RecordRemoteWrite(Interp& in, CoreContext& owner, MemSpace space, uint64_t begin, uint64_t end,
                       int line, const std::string& what) {
  if (begin >= end || !in.xsync) return;
  // The owner's pipe records of these bytes are superseded: the remote write is checked here
  // against the owner's uses, and the owner's later uses against it (not against its pipes).
  if (in.pipe_sync) owner.pipes.Forget(space, begin, end);
  const int self = in.core->ordinal;
  const CrossCoreSync& sync = *in.xsync;
  // The owner's uses of these bytes must happen before the write.
  for (auto it = owner.uses.begin(); it != owner.uses.end();) {
    const CoreContext::TileUse& u = it->second;
    if (u.space == space && u.begin < end && begin < u.end && !sync.HappensBefore(owner.ordinal, u.epoch, self)) {
      in.sink.Report(
          hazard::kXcoreRace, line,
          absl::StrFormat("%s writes %s of %s at line %d (%s) while %s's use of tile '%s' there at line %d is not "
                          "ordered before it: no set_cross_core of %s after that use reached %s through a wait "
                          "before the write, so on the device the write can overwrite data still in use",
                          in.core->Name(), Range(space, begin, end), owner.Name(), line, what, owner.Name(), u.name,
                          u.line, owner.Name(), in.core->Name()),
          absl::StrFormat("%s line %d; %s line %d", in.core->Name(), line, owner.Name(), u.line));
      it = owner.uses.erase(it);  // reported once per use
      continue;
    }
    ++it;
  }
  // Another core's earlier write of these bytes must happen before this one, unless both leave
  // the same bytes (then the contents do not depend on the order: SIM-XCORE-RACE-SAME, a warning,
  // as SIM-OUT-MULTI-CORE-SAME for GM). The write has landed: `now` holds its bytes.
  const std::vector<uint8_t>& mem = in.MemOf(owner).Get(space).bytes;
  const uint8_t* now = end <= mem.size() ? mem.data() + begin : nullptr;
  auto& regions = owner.shared;
  for (auto& r : regions) {
    if (r.space != space || r.end <= begin || end <= r.begin || r.writer == self) continue;
    if (!sync.HappensBefore(r.writer, r.writer_epoch, self)) {
      const CoreContext& other = sync.Core(r.writer);
      const uint64_t ob = std::max(begin, r.begin), oe = std::min(end, r.end);
      if (now && r.bytes.size() == r.end - r.begin &&
          std::equal(now + (ob - begin), now + (oe - begin), r.bytes.begin() + static_cast<ptrdiff_t>(ob - r.begin))) {
        in.sink.Report(
            hazard::kXcoreRaceSame, line,
            absl::StrFormat("%s writes %s of %s at line %d (%s), which %s also wrote at line %d with no "
                            "happens-before edge, with the same bytes: the contents do not depend on timing, "
                            "but the transfer is done twice",
                            in.core->Name(), Range(space, ob, oe), owner.Name(), line, what, other.Name(),
                            r.writer_line),
            absl::StrFormat("%s line %d; %s line %d", in.core->Name(), line, other.Name(), r.writer_line));
        continue;
      }
      in.sink.Report(
          hazard::kXcoreRace, line,
          absl::StrFormat("%s writes %s of %s at line %d (%s), which %s also wrote at line %d with no "
                          "happens-before edge between the two writes: the bytes %s keeps depend on timing",
                          in.core->Name(), Range(space, begin, end), owner.Name(), line, what, other.Name(),
                          r.writer_line, owner.Name()),
          absl::StrFormat("%s line %d; %s line %d", in.core->Name(), line, other.Name(), r.writer_line));
    }
  }
  // The new write replaces every record it covers; partly covered ones stay for their rest.
  regions.erase(std::remove_if(regions.begin(), regions.end(),
                               [&](const CoreContext::SharedRegion& r) {
                                 return r.space == space && begin <= r.begin && r.end <= end;
                               }),
                regions.end());
  CoreContext::SharedRegion n;
  n.space = space;
  n.begin = begin;
  n.end = end;
  n.writer = self;
  n.writer_epoch = sync.Epoch(self);
  n.writer_line = line;
  n.what = what;
  if (now) n.bytes.assign(now, now + (end - begin));
  regions.push_back(std::move(n));
}

void RecordSharedUse(Interp& in, const Tile& t, int line) {
  if (!in.xsync) return;
  CoreContext& me = *in.core;
  if (!Receivable(me, t.type.space)) return;
  const int self = me.ordinal;
  const uint64_t b = t.addr, e = t.addr + std::max<uint64_t>(t.size, 1);
  for (auto& r : me.shared) {
    if (r.space != t.type.space || r.end <= b || e <= r.begin || r.reported) continue;
    if (!in.xsync->HappensBefore(r.writer, r.writer_epoch, self)) {
      const CoreContext& w = in.xsync->Core(r.writer);
      in.sink.Report(
          hazard::kXcoreRace, line,
          absl::StrFormat("%s uses tile '%s' (%s) at line %d, which %s wrote at line %d (%s) with no "
                          "happens-before edge: no wait_cross_core of %s completed a set that %s made after "
                          "the write, so on the device the data may not have arrived",
                          me.Name(), t.name, Range(r.space, r.begin, r.end), line, w.Name(), r.writer_line, r.what,
                          me.Name(), w.Name()),
          absl::StrFormat("%s line %d; %s line %d", me.Name(), line, w.Name(), r.writer_line));
      r.reported = true;
    }
  }
  CoreContext::TileUse& u = me.uses[t.id];
  u = {t.type.space, b, e, in.xsync->Epoch(self), line, t.name};
}

}  // namespace opdev::sim
