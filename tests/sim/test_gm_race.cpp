// The GM race tracker's record map (sim/gm_race.h): runs of elements with one record each,
// set by GmRaceTracker::Assign. Random assignments are checked against a record per element,
// and the map must stay canonical (touching neighbours never hold equal records).
#include "sim/gm_race.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

using opdev::sim::GmRaceTracker;

namespace {

using Access = GmRaceTracker::Access;
using Segments = GmRaceTracker::Segments;

// The map expanded to one optional record per element of [0, n).
std::vector<std::optional<Access>> Expand(const Segments& segs, int64_t n) {
  std::vector<std::optional<Access>> out(static_cast<size_t>(n));
  for (const auto& [b, s] : segs)
    for (int64_t i = b; i < s.end; ++i) out[static_cast<size_t>(i)] = s.a;
  return out;
}

void CheckCanonical(const Segments& segs) {
  const GmRaceTracker::Segment* prev = nullptr;
  int64_t prev_end = -1;
  for (const auto& [b, s] : segs) {
    REQUIRE(b < s.end);  // never empty
    if (prev) {
      REQUIRE(b >= prev_end);  // never overlapping
      if (b == prev_end) REQUIRE_FALSE(prev->a == s.a);  // merged when equal
    }
    prev = &s;
    prev_end = s.end;
  }
}

}  // namespace

TEST_CASE("GM race records: random assignments match a record per element") {
  constexpr int64_t kN = 96;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    Segments segs;
    std::vector<std::optional<Access>> ref(kN);
    for (int step = 0; step < 300; ++step) {
      const int64_t b = std::uniform_int_distribution<int64_t>(0, kN - 1)(rng);
      const int64_t len = std::uniform_int_distribution<int64_t>(0, 24)(rng);
      const int64_t e = std::min<int64_t>(kN, b + len);
      // Few distinct records, so equal neighbours (merges) are common.
      Access a;
      a.core = std::uniform_int_distribution<int>(0, 2)(rng);
      a.epoch = std::uniform_int_distribution<uint32_t>(0, 1)(rng);
      a.line = 7;
      a.atomic = std::uniform_int_distribution<int>(0, 4)(rng) == 0;
      GmRaceTracker::Assign(segs, b, e, a);
      for (int64_t i = b; i < e; ++i) ref[static_cast<size_t>(i)] = a;
      INFO("seed " << seed << " step " << step << " [" << b << ", " << e << ")");
      CheckCanonical(segs);
      const auto got = Expand(segs, kN);
      for (int64_t i = 0; i < kN; ++i) {
        INFO("element " << i);
        REQUIRE(got[static_cast<size_t>(i)].has_value() == ref[static_cast<size_t>(i)].has_value());
        if (ref[static_cast<size_t>(i)]) REQUIRE(*got[static_cast<size_t>(i)] == *ref[static_cast<size_t>(i)]);
      }
    }
  }
}

TEST_CASE("GM race records: the cases of one assignment") {
  Access a{0, 1, 10, false}, b{1, 1, 20, false};
  Segments s;
  GmRaceTracker::Assign(s, 0, 10, a);
  GmRaceTracker::Assign(s, 10, 20, a);  // touching, equal: one run
  REQUIRE(s.size() == 1);
  CHECK(s.begin()->second.end == 20);
  GmRaceTracker::Assign(s, 5, 8, b);  // inside: split in three
  REQUIRE(s.size() == 3);
  CHECK(s.at(0).end == 5);
  CHECK(s.at(5).end == 8);
  CHECK(s.at(8).end == 20);
  GmRaceTracker::Assign(s, 5, 8, a);  // the same record again: merged back into one
  REQUIRE(s.size() == 1);
  CHECK(s.at(0).end == 20);
  GmRaceTracker::Assign(s, 30, 40, b);  // a gap stays unrecorded
  REQUIRE(s.size() == 2);
  GmRaceTracker::Assign(s, 15, 35, b);  // across the gap, equal to the right run
  REQUIRE(s.size() == 2);
  CHECK(s.at(0).end == 15);
  CHECK(s.at(15).end == 40);
  GmRaceTracker::Assign(s, 3, 3, b);  // empty: nothing
  CHECK(s.size() == 2);
}
