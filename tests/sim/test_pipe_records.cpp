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
                                     uint32_t epoch, bool write, int line, const char* op) {
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
  const std::array<const char*, 3> ops = {"pl.load", "vf.load_align", "pl.store"};
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
        const char* op = ops[static_cast<size_t>(pick(3))];
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

TEST_CASE("pipes: register walks over a tile's runs report what a per-byte record reports") {
  // The access pattern of a VF loop between DMAs: consecutive register-sized accesses that walk
  // a tile's runs forward (each next to the last one's run, which PipeState finds without a
  // search), revisits of the same registers, a jump back to the tile's start, a DMA over the
  // whole tile that merges the runs again, and forgotten ranges in between.
  const std::array<const char*, 3> ops = {"pl.load", "vf.load_align", "vf.store_align"};
  int conflicts = 0, accesses = 0;
  for (uint32_t seed = 1; seed <= 16; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
    PipeState ps;
    ps.Init(0, 1);
    ByteModel model;
    constexpr uint64_t kTile = 4096;
    const uint64_t reg = pick(2) == 0 ? 256 : 96;  // registers that split runs unevenly, too
    // One access; epoch 0 starts a new operation, another epoch continues one (a DMA of several
    // row runs records them one by one under the same epoch, and each run merges into the last).
    auto access = [&](uint64_t b, uint64_t e, Pipe p, bool write, int line, uint32_t epoch = 0) {
      INFO("seed " << seed << " access [" << b << ", " << e << ") pipe " << PipeName(p) << " write " << write);
      const char* op = ops[static_cast<size_t>(line % 3)];
      if (epoch == 0) epoch = ps.Begin(p);
      const auto want = model.Access(ps, MemSpace::kVec, b, e, p, epoch, write, line, op);
      const auto got = ps.Access(MemSpace::kVec, b, e, p, epoch, write, line, op);
      REQUIRE(Describe(got) == Describe(want));
      conflicts += want ? 1 : 0;
      ++accesses;
    };
    for (int round = 0; round < 40; ++round) {
      const int what = pick(10);
      if (what == 0) {
        const uint64_t b = static_cast<uint64_t>(pick(static_cast<int>(kTile))), e = b + 1 + static_cast<uint64_t>(pick(700));
        ps.Forget(MemSpace::kVec, b, e);
        model.Forget(MemSpace::kVec, b, e);
      } else if (what == 1) {
        ps.Barrier(Pipe::kV);
      } else if (what <= 3) {
        // A DMA over the whole tile (MTE2 writes it, MTE3 reads it): one run, or row runs of one
        // operation.
        const Pipe p = what == 2 ? Pipe::kMte2 : Pipe::kMte3;
        if (pick(2) == 0) {
          access(0, kTile, p, what == 2, 100 + round);
        } else {
          const uint32_t epoch = ps.Begin(p);
          const uint64_t row = 64 * (1 + static_cast<uint64_t>(pick(16)));
          for (uint64_t b = 0; b < kTile; b += row) access(b, std::min(b + row, kTile), p, what == 2, 100 + round, epoch);
        }
      } else {
        // A register walk from a random register, one to three passes over the same span.
        const uint64_t first = static_cast<uint64_t>(pick(static_cast<int>(kTile / reg))) * reg;
        const int count = 1 + pick(12), passes = 1 + pick(3);
        const bool write = pick(3) == 0;
        for (int pass = 0; pass < passes; ++pass)
          for (int r = 0; r < count; ++r) {
            const uint64_t b = first + static_cast<uint64_t>(r) * reg;
            if (b >= kTile) break;
            access(b, std::min(b + reg, kTile), Pipe::kV, write, 10 + pass);
          }
      }
    }
  }
  CHECK(accesses > 2000);
  CHECK(conflicts > 100);
}
