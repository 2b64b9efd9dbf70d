// Rerun alone, rerun with another seed, shrink (see repro.h).
#include "opdev/triage/repro.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <set>

namespace opdev::triage {
namespace {

using runtime::CaseStatus;

bool Failed(const ReproRun& r) {
  return r.status == CaseStatus::kPrecisionFail || r.status == CaseStatus::kError;
}

std::string ShapeText(const std::vector<std::int64_t>& s) { return absl::StrCat("[", absl::StrJoin(s, ","), "]"); }

// A failure that says something about the kernel: not a precision failure that the exact
// result rounded to the output dtype would also have (ReproRun::unjudgeable).
bool Judgeable(const ReproRun& r) { return r.unjudgeable.empty(); }

// The same failure: same kind (precision vs error), judgeable, and every original error code
// present.
bool SameWay(const ReproRun& original, const ReproRun& r) {
  if (!Failed(r) || r.status != original.status || !Judgeable(r)) return false;
  for (const auto& c : original.error_codes)
    if (std::find(r.error_codes.begin(), r.error_codes.end(), c) == r.error_codes.end()) return false;
  return true;
}

boost::json::object RunJson(const ReproRun& r) {
  boost::json::object o;
  o["name"] = r.request.name;
  boost::json::array s;
  for (auto d : r.request.shape) s.emplace_back(d);
  o["shape"] = std::move(s);
  o["seed"] = r.request.seed;
  o["status"] = std::string(runtime::CaseStatusName(r.status));
  if (!r.error.empty()) o["error"] = r.error;
  if (!r.unjudgeable.empty()) o["unjudgeable"] = r.unjudgeable;
  boost::json::array codes;
  for (const auto& c : r.error_codes) codes.emplace_back(c);
  o["error_codes"] = std::move(codes);
  return o;
}

}  // namespace

std::vector<std::int64_t> ShrinkCandidates(std::int64_t value, std::int64_t lo,
                                           const std::vector<std::int64_t>& granularities,
                                           size_t max_candidates) {
  std::set<std::int64_t> c = {lo, lo + 1, 2, 3, value / 2, value - 1};
  for (std::int64_t g : granularities) {
    if (g <= 0) continue;
    for (std::int64_t m = 1; m <= 4 && m * g - 1 < value; ++m) {
      c.insert(m * g - 1);
      c.insert(m * g);
      c.insert(m * g + 1);
    }
    c.insert(value - g);
    c.insert(value % g == 0 ? g : value % g);
  }
  std::vector<std::int64_t> out;
  for (std::int64_t v : c)
    if (v >= lo && v >= 1 && v < value) out.push_back(v);
  if (out.size() > max_candidates) out.resize(max_candidates);
  return out;
}

boost::json::object Repro::ToJson() const {
  boost::json::object o;
  o["case"] = case_name;
  o["shape"] = boost::json::value(ShapeText(shape));
  o["seed"] = seed;
  o["verdict"] = verdict;
  o["alone"] = alone ? boost::json::value(RunJson(*alone)) : boost::json::value(nullptr);
  o["other_seed"] = other_seed ? boost::json::value(RunJson(*other_seed)) : boost::json::value(nullptr);
  o["minimal_shape"] = ShapeText(minimal_shape);
  o["minimal"] = minimal ? boost::json::value(RunJson(*minimal)) : boost::json::value(nullptr);
  o["runs"] = runs;
  o["batches"] = batches;
  boost::json::array t;
  for (const auto& x : tried) t.emplace_back(x);
  o["tried"] = std::move(t);
  o["sentence"] = sentence;
  return o;
}

absl::StatusOr<Repro> MakeTrustworthy(const std::string& case_name,
                                      const std::vector<std::int64_t>& shape, std::uint64_t seed,
                                      const ShapeFacts& facts, const CaseRunner& run,
                                      const ReproOptions& opts) {
  Repro rp;
  rp.case_name = case_name;
  rp.shape = shape;
  rp.seed = seed;
  rp.minimal_shape = shape;
  // 1. Alone, and with another seed: one batch.
  const std::uint64_t seed2 = seed + opts.other_seed_offset;
  auto first = run({{case_name, shape, seed}, {absl::StrCat(case_name, "@seed", seed2), shape, seed2}});
  if (!first.ok()) return first.status();
  ++rp.batches;
  rp.runs += static_cast<int>(first->size());
  if (first->size() != 2) return absl::InternalError("the case runner returned a wrong number of runs");
  rp.alone = (*first)[0];
  rp.other_seed = (*first)[1];
  const ReproRun& alone = *rp.alone;
  const ReproRun& other = *rp.other_seed;
  if (!Failed(alone) && !opts.same_path) {
    rp.verdict = "not_reproduced";
    rp.sentence = absl::StrCat(case_name, " passes when rerun alone on the simulator's DESIGN-case path, "
                               "which is not how the run executed it: the failure belongs to that run's path "
                               "(test file, device or harness), not shown to be flaky");
    return rp;
  }
  if (!Failed(alone)) {
    rp.verdict = "flaky";
    rp.sentence = absl::StrCat(case_name, " failed in the full run but passes when rerun alone with the "
                               "same inputs: flaky (its result depends on what ran before or on timing)");
    return rp;
  }
  // The failure to shrink: the rerun alone when it is judgeable, else the other seed's when
  // that one is (its inputs then drive the shrink). A rerun scheme A cannot judge (the exact
  // result fails too) is no evidence either way.
  const ReproRun* base = &alone;
  std::uint64_t shrink_seed = seed;
  std::string lead;
  if (Judgeable(alone)) {
    if (Failed(other) && other.status == alone.status && !Judgeable(other)) {
      rp.verdict = "reproduced_alone";
      lead = absl::StrCat(case_name, " fails again alone; its rerun with another seed fails too but is not judgeable (",
                          other.unjudgeable, "), so the failure is not shown to be independent of the input values");
    } else if (SameWay(alone, other)) {
      rp.verdict = "reproducible";
      lead = absl::StrCat(case_name, " fails again alone and with another seed");
    } else {
      rp.verdict = "value_dependent";
      lead = absl::StrCat(case_name, " fails again alone but ", Failed(other) ? "fails another way" : "passes",
                          " with another seed (the failure depends on the input values)");
    }
  } else if (SameWay(alone, other)) {
    rp.verdict = "reproducible";
    base = &other;
    shrink_seed = other.request.seed;
    lead = absl::StrCat(case_name, " fails again alone, where scheme A cannot judge it (", alone.unjudgeable,
                        "), and judgeably with another seed (", other.request.seed, "), whose inputs drive the shrink");
  } else {
    rp.verdict = "unjudgeable";
    rp.sentence = absl::StrCat(
        case_name, " fails again alone, but scheme A cannot judge that rerun (", alone.unjudgeable, ")",
        !Failed(other)     ? "; with another seed it passes"
        : Judgeable(other) ? "; with another seed it fails another way"
                           : " nor the one with another seed",
        ": a correct kernel may fail these inputs too, so the reruns neither confirm nor refute the failure; "
        "nothing is shrunk and no repro shape is offered");
    return rp;
  }
  rp.minimal = *base;
  const ReproRun& ref = *base;

  // 2. Shrink, axis by axis, inside the supported range.
  const size_t n = shape.size();
  std::vector<std::int64_t> cur = shape;
  for (int round = 0; round < opts.max_rounds; ++round) {
    bool changed = false;
    for (size_t a = 0; a < n; ++a) {
      std::int64_t lo = 1;
      auto it = facts.ranges.find(facts.Symbol(a));
      if (it != facts.ranges.end()) lo = std::max<std::int64_t>(1, it->second.first);
      std::vector<std::int64_t> gran;
      if (a + 1 == n) gran = {facts.lanes, facts.tile_cols};
      else if (a + 2 == n) gran = {facts.tile_rows};
      auto cands = ShrinkCandidates(cur[a], lo, gran, opts.max_candidates);
      if (cands.empty()) continue;
      std::vector<ReproCase> batch;
      for (std::int64_t v : cands) {
        std::vector<std::int64_t> s = cur;
        s[a] = v;
        batch.push_back({absl::StrCat(case_name, ShapeText(s)), s, shrink_seed});
      }
      auto res = run(batch);
      if (!res.ok()) return res.status();
      ++rp.batches;
      rp.runs += static_cast<int>(res->size());
      for (size_t i = 0; i < res->size() && i < batch.size(); ++i) {
        const ReproRun& r = (*res)[i];
        rp.tried.push_back(absl::StrCat(ShapeText(batch[i].shape), " ",
                                        SameWay(ref, r)    ? "FAIL"
                                        : !Judgeable(r)    ? "FAIL(unjudgeable)"
                                        : Failed(r)        ? "FAIL(other)"
                                                           : "PASS"));
      }
      for (size_t i = 0; i < res->size() && i < batch.size(); ++i) {
        if (!SameWay(ref, (*res)[i])) continue;
        cur = batch[i].shape;
        rp.minimal = (*res)[i];
        changed = true;
        break;  // candidates are ascending: the first failing one is the smallest
      }
    }
    if (!changed) break;
  }
  rp.minimal_shape = cur;
  std::string axes;
  for (size_t a = 0; a < n; ++a)
    absl::StrAppend(&axes, a ? ", " : "", facts.Symbol(a), " = ", cur[a]);
  if (opts.max_rounds <= 0) {
    rp.sentence = absl::StrCat(
        lead, "; not shrunk (shrinking was switched off), so ", ShapeText(cur), " is the failing shape, not a minimal one");
    return rp;
  }
  rp.sentence = absl::StrCat(
      lead, "; the smallest shape that still fails the same way is ", ShapeText(cur),
      cur == shape ? " (nothing smaller fails)" : absl::StrCat(" (", axes, ")"), " after ", rp.runs, " run(s)");
  return rp;
}

}  // namespace opdev::triage
