// PipeState::Access through its finger (sim/pipe_sync.h): the run lookup that starts where
// the previous access of the space ended must give the conflicts a plain lookup gives. One
// state keeps its finger across a random sequence of register-sized and odd accesses (loops
// over consecutive bytes, jumps, rewinds, Forget, moves out of it); a copy taken before each
// access (a copy drops the finger) replays the same access, and both must report the same.
#include "sim/pipe_sync.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

using opdev::MemSpace;
using opdev::sim::Pipe;
using opdev::sim::PipeConflict;
using opdev::sim::PipeState;

namespace {

std::string Describe(const std::optional<PipeConflict>& c) {
  if (!c) return "none";
  return std::to_string(c->kind) + " " + std::to_string(c->begin) + "-" + std::to_string(c->end) + " line " +
         std::to_string(c->other.line) + " epoch " + std::to_string(c->other.epoch) + " pipe " +
         std::to_string(static_cast<int>(c->other.pipe));
}

}  // namespace

TEST_CASE("pipe model: the finger lookup reports what a plain lookup reports") {
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    DYNAMIC_SECTION("seed " << seed) {
      std::mt19937 rng(seed);
      PipeState fingered;
      fingered.Init(0, 2);
      const Pipe pipes[] = {Pipe::kV, Pipe::kMte2, Pipe::kMte3, Pipe::kS};
      uint64_t next = 0;  // where a loop over consecutive registers continues
      std::vector<std::unique_ptr<PipeState>> moved_out;
      int mismatches = 0, conflicts = 0;
      for (int step = 0; step < 6000; ++step) {
        const int what = static_cast<int>(rng() % 100);
        if (what < 2) {  // another core wrote some bytes
          const uint64_t b = rng() % 8192;
          fingered.Forget(MemSpace::kVec, b, b + 1 + rng() % 1024);
          continue;
        }
        if (what < 3) {  // the state moves out (a core's context handed on); the moved-from
          // state is used on (empty, as a fresh one), while the moved-to one, which now owns
          // the runs the finger pointed at, stays alive
          moved_out.push_back(std::make_unique<PipeState>(std::move(fingered)));
          continue;
        }
        uint64_t begin, end;
        if (what < 70) {  // the next register of a loop
          begin = next;
          end = begin + 256;
        } else if (what < 85) {  // a rewind or a jump to a register boundary
          begin = (rng() % 32) * 256;
          end = begin + 256;
        } else {  // an odd range (scalar, BRC, a DMA of a tile part)
          begin = rng() % 8192;
          end = begin + 1 + rng() % 2048;
        }
        next = end % 8192;
        const Pipe p = pipes[rng() % 4];
        const uint32_t epoch = fingered.Begin(p);
        if (rng() % 16 == 0) fingered.Barrier(p);
        PipeState plain(fingered);  // a copy has no finger: every lookup is a plain one
        const bool write = rng() % 2 == 0;
        const int line = 10 + static_cast<int>(rng() % 5);
        const auto a = fingered.Access(MemSpace::kVec, begin, end, p, epoch, write, line, "op");
        const auto b = plain.Access(MemSpace::kVec, begin, end, p, epoch, write, line, "op");
        mismatches += Describe(a) != Describe(b);
        conflicts += a.has_value();
      }
      CHECK(mismatches == 0);
      CHECK(conflicts > 100);  // the sequence does exercise the conflict reports
    }
  }
}
