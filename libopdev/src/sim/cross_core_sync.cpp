// Cross-core events and vector clocks of a launch (see cross_core_sync.h).
#include "cross_core_sync.h"

#include "absl/strings/str_join.h"

#include <algorithm>
#include <tuple>

namespace opdev::sim {

std::string_view CrossModeName(CrossMode m) {
  switch (m) {
    case CrossMode::kInterBlock: return "INTER_BLOCK";
    case CrossMode::kInterSubblock: return "INTER_SUBBLOCK";
    case CrossMode::kIntraBlock: return "INTRA_BLOCK";
    case CrossMode::kUnicastBlock: return "UNICAST_BLOCK";
  }
  return "INTRA_BLOCK";
}

CrossCoreSync::CrossCoreSync(const std::vector<CoreContext>& cores) : cores_(cores) {
  clock_.assign(cores.size(), VClock(cores.size(), 0));
  for (size_t i = 0; i < cores.size(); ++i) clock_[i][i] = 1;
}

namespace {
// Ordinals of the AIC and the two AIVs of block `b` in a mixed launch (PlanCore's order).
int AicOf(int64_t b) { return static_cast<int>(b * 3); }
int AivOf(int64_t b, int64_t s) { return static_cast<int>(b * 3 + 1 + s); }
}  // namespace

std::vector<int> CrossCoreSync::Receivers(int core, CrossMode mode) const {
  const CoreContext& c = cores_[static_cast<size_t>(core)];
  const bool mixed = c.launch == LaunchKind::kMixed;
  switch (mode) {
    case CrossMode::kIntraBlock:
      if (!mixed) return {};
      if (c.kind == CoreKind::kAic) return {AivOf(c.block_idx, 0), AivOf(c.block_idx, 1)};
      return {AicOf(c.block_idx)};
    case CrossMode::kUnicastBlock:
      if (!mixed || c.kind == CoreKind::kAic) return {};
      return {AicOf(c.block_idx)};
    case CrossMode::kInterSubblock:
      if (!mixed || c.kind == CoreKind::kAic) return {};
      return {AivOf(c.block_idx, 1 - c.subblock_idx)};
    case CrossMode::kInterBlock: return {};
  }
  return {};
}

std::vector<int> CrossCoreSync::Senders(int core, CrossMode mode) const {
  const CoreContext& c = cores_[static_cast<size_t>(core)];
  const bool mixed = c.launch == LaunchKind::kMixed;
  switch (mode) {
    case CrossMode::kIntraBlock:
      if (!mixed) return {};
      if (c.kind == CoreKind::kAic) return {AivOf(c.block_idx, 0), AivOf(c.block_idx, 1)};
      return {AicOf(c.block_idx)};
    case CrossMode::kUnicastBlock:
      if (!mixed || c.kind != CoreKind::kAic) return {};
      return {AivOf(c.block_idx, 0), AivOf(c.block_idx, 1)};
    case CrossMode::kInterSubblock:
      if (!mixed || c.kind == CoreKind::kAic) return {};
      return {AivOf(c.block_idx, 1 - c.subblock_idx)};
    case CrossMode::kInterBlock: {
      std::vector<int> out;
      for (size_t i = 0; i < cores_.size(); ++i)
        if (cores_[i].kind == c.kind) out.push_back(static_cast<int>(i));
      return out;
    }
  }
  return {};
}

void CrossCoreSync::Join(int core, const VClock& vc) {
  VClock& mine = clock_[static_cast<size_t>(core)];
  for (size_t i = 0; i < mine.size(); ++i) mine[i] = std::max(mine[i], vc[i]);
}

namespace {
void JoinPipes(std::vector<uint32_t>* to, const std::vector<uint32_t>& from) {
  if (!to || from.empty()) return;
  if (to->size() < from.size()) to->resize(from.size(), 0);
  for (size_t i = 0; i < from.size(); ++i) (*to)[i] = std::max((*to)[i], from[i]);
}
}  // namespace

CrossCoreSync::SetResult CrossCoreSync::Set(int core, CrossMode mode, int event, int line,
                                            const std::vector<uint32_t>& pipes) {
  SetResult r;
  const CoreContext& c = cores_[static_cast<size_t>(core)];
  VClock snap = clock_[static_cast<size_t>(core)];
  if (mode == CrossMode::kInterBlock) {
    barrier_sets_[{core, event}].push_back(std::move(snap));
    barrier_pipes_[{core, event}].push_back(pipes);
    ++clock_[static_cast<size_t>(core)][static_cast<size_t>(core)];
    return r;
  }
  std::vector<int> recv = Receivers(core, mode);
  if (recv.empty()) {
    if (c.launch != LaunchKind::kMixed)
      r.error = "this " + std::string(LaunchKindName(c.launch)) + " launch has no AIC/AIV pair; " +
                std::string(CrossModeName(mode)) + " events connect the AIC and AIVs of a mixed kernel's block";
    else if (mode == CrossMode::kUnicastBlock)
      r.error = "set_cross_core_wait_cross_core.md defines UNICAST_BLOCK as AIV0 and AIV1 triggering the AIC's wait "
                "separately; which AIV an AIC set reaches in this mode is not documented, so it is not simulated";
    else
      r.error = std::string(CrossModeName(mode)) + " synchronizes the two AIVs of a block; an AIC cannot set it";
    return r;
  }
  for (int rc : recv) {
    const Key key{rc, core, static_cast<int>(mode), event};
    auto& q = flags_[key];
    // The earlier sets of this flag that may still be counted when this one arrives: all but
    // those whose consumption happens before this set (the vector clocks decide, not the
    // schedule). Retired sets stay retired (clocks only grow).
    auto& live = in_flight_[key];
    while (!live.empty() && live.front().consumed && HappensBefore(rc, live.front().consume_epoch, core))
      live.pop_front();
    size_t count = 0;
    for (const auto& s : live)
      if (!(s.consumed && HappensBefore(rc, s.consume_epoch, core))) ++count;
    if (count >= kFlagDepth && r.reused_line == 0 && reuse_lines_.insert(line).second) {
      r.reused_line = live.front().line;
      r.reused_receiver = cores_[static_cast<size_t>(rc)].Name();
      r.in_flight = count;
    }
    live.push_back({line, false, 0});
    q.push_back({line, snap, pipes});
  }
  ++clock_[static_cast<size_t>(core)][static_cast<size_t>(core)];
  return r;
}

std::string CrossCoreSync::CheckWait(int core, CrossMode mode, int) const {
  const CoreContext& c = cores_[static_cast<size_t>(core)];
  if (mode == CrossMode::kInterBlock) return "";
  if (!Senders(core, mode).empty()) return "";
  if (c.launch != LaunchKind::kMixed)
    return "this " + std::string(LaunchKindName(c.launch)) + " launch has no AIC/AIV pair; " +
           std::string(CrossModeName(mode)) + " events connect the AIC and AIVs of a mixed kernel's block";
  if (mode == CrossMode::kUnicastBlock)
    return "UNICAST_BLOCK lets the AIC wait for either AIV (set_cross_core_wait_cross_core.md); what an AIV's wait "
           "in this mode receives is not documented, so it is not simulated";
  return std::string(CrossModeName(mode)) + " synchronizes the two AIVs of a block; an AIC cannot wait on it";
}

bool CrossCoreSync::CanWait(int core, CrossMode mode, int event) const {
  if (mode == CrossMode::kInterBlock) {
    auto w = barrier_waits_.find({core, event});
    const size_t need = (w == barrier_waits_.end() ? 0 : w->second) + 1;
    for (int s : Senders(core, mode)) {
      auto it = barrier_sets_.find({s, event});
      if (it == barrier_sets_.end() || it->second.size() < need) return false;
    }
    return true;
  }
  auto has = [&](int s) {
    auto it = flags_.find({core, s, static_cast<int>(mode), event});
    return it != flags_.end() && !it->second.empty();
  };
  std::vector<int> senders = Senders(core, mode);
  if (mode == CrossMode::kUnicastBlock) return std::any_of(senders.begin(), senders.end(), has);
  return !senders.empty() && std::all_of(senders.begin(), senders.end(), has);
}

void CrossCoreSync::Consume(int core, CrossMode mode, int event, std::vector<uint32_t>* pipes) {
  if (mode == CrossMode::kInterBlock) {
    size_t& w = barrier_waits_[{core, event}];
    for (int s : Senders(core, mode)) {
      Join(core, barrier_sets_[{s, event}][w]);
      JoinPipes(pipes, barrier_pipes_[{s, event}][w]);
    }
    ++w;
    return;
  }
  for (int s : Senders(core, mode)) {
    const Key key{core, s, static_cast<int>(mode), event};
    auto& q = flags_[key];
    if (q.empty()) continue;
    Join(core, q.front().vc);
    JoinPipes(pipes, q.front().pipes);
    q.pop_front();
    // The oldest unconsumed set of the flag is the one this wait took.
    for (auto& s : in_flight_[key])
      if (!s.consumed) {
        s.consumed = true;
        s.consume_epoch = Epoch(core);
        break;
      }
    if (mode == CrossMode::kUnicastBlock) break;
  }
}

// INTER_BLOCK barrier sets are not listed: a barrier set without its wait is not tracked by line.
std::vector<CrossCoreSync::Leftover> CrossCoreSync::Leftovers() const {
  std::vector<Leftover> out;
  for (const auto& [key, q] : flags_) {
    if (q.empty()) continue;
    const auto& [receiver, setter, mode, event] = key;
    out.push_back({q.front().line, setter, receiver, static_cast<CrossMode>(mode), event, q.size()});
  }
  std::sort(out.begin(), out.end(), [](const Leftover& a, const Leftover& b) {
    return std::tie(a.line, a.setter, a.receiver) < std::tie(b.line, b.setter, b.receiver);
  });
  return out;
}

std::string CrossCoreSync::WaitSources(int core, CrossMode mode) const {
  std::vector<std::string> names;
  for (int s : Senders(core, mode)) names.push_back(cores_[static_cast<size_t>(s)].Name());
  const char* how = mode == CrossMode::kUnicastBlock ? " or " : " and ";
  return "a set by " + absl::StrJoin(names, how);
}

}  // namespace opdev::sim
