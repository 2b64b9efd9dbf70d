// PipeState's byte runs (pipe_sync.h) against a model that keeps one record per byte: random
// accesses of random pipes over overlapping ranges, clocks advanced by barriers and flags, and
// forgotten ranges must report exactly the conflicts (kind, earlier access, byte hull) the
// per-byte model finds.
#include "sim/pipe_sync.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace opdev;
using namespace opdev::sim;

namespace {

bool SameRecord(const PipeAccess& a, const PipeAccess& b) {
  return a.epoch == b.epoch && (a.epoch == 0 || (a.pipe == b.pipe && a.line == b.line));
}

// The access rules of pipe_sync.h, applied byte by byte with the clocks `ps` has now.
class ByteModel {
 public:
  std::optional<PipeConflict> Access(const PipeState& ps, MemSpace space, uint64_t begin, uint64_t end, Pipe p,
                                     uint32_t epoch, bool write, int line, std::string_view op) {
    std::vector<Rec>& bytes = spaces_[space];
    if (bytes.size() < end) bytes.resize(end);
    const PipeClock& c = ps.Clock(p);
    auto at = [&](Pipe q) { return ps.Own(q) < c.size() ? c[ps.Own(q)] : 0u; };
    std::optional<PipeConflict> found;
    auto note = [&](PipeConflict::Kind k, const PipeAccess& other, uint64_t b) {
      if (!found) {
        found = PipeConflict{k, other, b, b + 1};
      } else if (found->kind == k && SameRecord(found->other, other)) {
        found->begin = std::min(found->begin, b);
        found->end = std::max(found->end, b + 1);
      }
    };
    const PipeAccess me{epoch, p, line, op};
    for (uint64_t b = begin; b < end; ++b) {
      Rec& g = bytes[b];
      const PipeAccess w = g.write;
      if (w.epoch != 0 && w.pipe != p && w.epoch > at(w.pipe)) note(write ? PipeConflict::kWaw : PipeConflict::kRaw, w, b);
      if (write) {
        bool read_since = false;
        for (int r = 0; r < kNumPipes; ++r) {
          const PipeAccess& rd = g.reads[r];
          if (rd.epoch == 0 || r == static_cast<int>(p)) continue;
          read_since = true;
          if (rd.epoch > at(static_cast<Pipe>(r))) note(PipeConflict::kWar, rd, b);
        }
        if (!read_since && p == Pipe::kMte2 && w.epoch != 0 && w.pipe == p && w.epoch != epoch && w.epoch > at(p))
          note(PipeConflict::kMte2Waw, w, b);
        g.write = me;
        g.reads = {};
      } else {
        g.reads[static_cast<int>(p)] = me;
      }
    }
    return found;
  }
  void Forget(MemSpace space, uint64_t begin, uint64_t end) {
    std::vector<Rec>& bytes = spaces_[space];
    for (uint64_t b = begin; b < end && b < bytes.size(); ++b) bytes[b] = Rec{};
  }

 private:
  struct Rec {
    PipeAccess write;
    std::array<PipeAccess, kNumPipes> reads;
  };
  std::map<MemSpace, std::vector<Rec>> spaces_;
};

std::string Describe(const std::optional<PipeConflict>& c) {
  if (!c) return "none";
  return std::to_string(c->kind) + " epoch " + std::to_string(c->other.epoch) + " pipe " +
         std::string(PipeName(c->other.pipe)) + " line " + std::to_string(c->other.line) + " op " +
         std::string(c->other.op) + " [" + std::to_string(c->begin) + ", " + std::to_string(c->end) + ")";
}

}  // namespace

TEST_CASE("pipes: the byte runs report what a per-byte record reports") {
  const std::array<std::string_view, 3> ops = {"pl.load", "vf.load_align", "pl.store"};
  int conflicts = 0;
  for (uint32_t seed = 1; seed <= 24; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
    PipeState ps;
    ps.Init(seed % 2, 2);
    ByteModel model;
    // Ranges on a grid of 32 bytes mostly (register and row runs), sometimes byte-exact.
    auto bound = [&] { return pick(4) == 0 ? static_cast<uint64_t>(pick(1024)) : static_cast<uint64_t>(pick(33)) * 32; };
    for (int step = 0; step < 1500; ++step) {
      INFO("seed " << seed << " step " << step);
      const int what = pick(20);
      if (what == 0) {
        ps.Barrier(static_cast<Pipe>(pick(kNumPipes)));
      } else if (what == 1) {
        // A flag from one pipe to another: set, then waited on.
        const Pipe a = static_cast<Pipe>(pick(kNumPipes)), b = static_cast<Pipe>(pick(kNumPipes));
        int prev = 0;
        ps.Set(a, b, 0, step, &prev);
        ps.Wait(a, b, 0);
      } else if (what == 2) {
        uint64_t b = bound(), e = bound();
        if (b > e) std::swap(b, e);
        const MemSpace space = pick(2) == 0 ? MemSpace::kVec : MemSpace::kMat;
        ps.Forget(space, b, e);
        model.Forget(space, b, e);
      } else {
        uint64_t b = bound(), e = bound();
        if (b > e) std::swap(b, e);
        if (b == e) e = b + 1 + static_cast<uint64_t>(pick(64));
        const MemSpace space = pick(4) == 0 ? MemSpace::kMat : MemSpace::kVec;
        const Pipe p = static_cast<Pipe>(pick(kNumPipes));
        const bool write = pick(2) == 0;
        const int line = 1 + pick(9);
        const std::string_view op = ops[static_cast<size_t>(pick(3))];
        const uint32_t epoch = ps.Begin(p);
        const auto want = model.Access(ps, space, b, e, p, epoch, write, line, op);
        const auto got = ps.Access(space, b, e, p, epoch, write, line, op);
        REQUIRE(Describe(got) == Describe(want));
        conflicts += want ? 1 : 0;
      }
    }
  }
  // The sequences exercise the conflict paths, not only clean accesses.
  CHECK(conflicts > 1000);
}
