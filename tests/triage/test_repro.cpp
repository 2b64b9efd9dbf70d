// The trustworthy-failure verdicts of MakeTrustworthy on a scripted case runner: a rerun
// alone that passes is "flaky" only when the runner runs cases the way the failed run did;
// on another path (the run executed the test file under the CPU device, the reruns use the
// DESIGN-case simulator) it is "not_reproduced" and nothing is shrunk. A failure that comes
// back alone and with another seed is "reproducible" and is shrunk to the smallest failing
// shape.
#include "opdev/triage/diagnosis.h"
#include "opdev/triage/repro.h"

#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

using namespace opdev;
using namespace opdev::triage;

namespace {

ShapeFacts Facts() {
  ShapeFacts f;
  f.symbols = {"B", "N"};
  f.tile_rows = 3;
  f.tile_cols = 8192;
  f.lanes = 128;
  f.ranges["B"] = {1, 1024};
  f.ranges["N"] = {1, 8192};
  return f;
}

// A runner whose outcome is a function of the shape; counts the runs it was asked for.
CaseRunner Scripted(bool (*fails)(const std::vector<std::int64_t>&), int* runs) {
  return [fails, runs](const std::vector<ReproCase>& batch) -> absl::StatusOr<std::vector<ReproRun>> {
    std::vector<ReproRun> out;
    for (const auto& c : batch) {
      ReproRun r;
      r.request = c;
      r.status = fails(c.shape) ? runtime::CaseStatus::kPrecisionFail : runtime::CaseStatus::kPass;
      out.push_back(r);
      ++*runs;
    }
    return out;
  };
}

bool NeverFails(const std::vector<std::int64_t>&) { return false; }
// Fails when a row has a full register and a tail register (the softmax stale-mask pattern).
bool ColumnTailFails(const std::vector<std::int64_t>& s) { return s.size() == 2 && s[1] > 128 && s[1] % 128 != 0; }

}  // namespace

TEST_CASE("a rerun that passes on the run's own path is flaky, on another path not_reproduced") {
  int runs = 0;
  ReproOptions same;
  auto f = MakeTrustworthy("test_softmax_col_tail", {3, 200}, 44, Facts(), Scripted(NeverFails, &runs), same);
  REQUIRE(f.ok());
  CHECK(f->verdict == "flaky");
  CHECK(runs == 2);  // alone and with another seed, no shrink

  runs = 0;
  ReproOptions other;
  other.same_path = false;
  auto n = MakeTrustworthy("test_softmax_col_tail", {3, 200}, 44, Facts(), Scripted(NeverFails, &runs), other);
  REQUIRE(n.ok());
  CHECK(n->verdict == "not_reproduced");
  CHECK(n->sentence.find("not shown to be flaky") != std::string::npos);
  CHECK(n->minimal_shape == std::vector<std::int64_t>{3, 200});  // nothing was shrunk
  CHECK(runs == 2);
}

TEST_CASE("a failure that comes back on another path is reproducible and is shrunk in the range") {
  int runs = 0;
  ReproOptions other;
  other.same_path = false;
  auto r = MakeTrustworthy("test_softmax_col_tail", {3, 200}, 44, Facts(), Scripted(ColumnTailFails, &runs), other);
  REQUIRE(r.ok());
  CHECK(r->verdict == "reproducible");
  CHECK(r->minimal_shape == std::vector<std::int64_t>{1, 129});
  CHECK(r->runs == runs);
}

TEST_CASE("a not_reproduced rerun offers no minimal repro in the next action or the summary") {
  int runs = 0;
  ReproOptions other;
  other.same_path = false;
  auto n = MakeTrustworthy("test_softmax_col_tail", {3, 200}, 44, Facts(), Scripted(NeverFails, &runs), other);
  REQUIRE(n.ok());
  DiagnoseInput in;
  in.facts = Facts();
  for (auto [name, shape, outcome] : {std::tuple{"test_softmax_aligned", std::vector<std::int64_t>{3, 128}, CaseOutcome::kPass},
                                      std::tuple{"test_softmax_col_tail", std::vector<std::int64_t>{3, 200}, CaseOutcome::kFail}}) {
    CaseFacts f;
    f.name = name;
    f.shape = shape;
    f.dtype = "float16";
    f.outcome = outcome;
    in.cases.push_back(f);
  }
  in.repro = *n;
  Diagnosis d = Diagnose(in);
  CHECK_FALSE(d.flaky);
  CHECK(d.next_action.find("minimal repro") == std::string::npos);
  bool rerun_line = false;
  for (const auto& l : d.SummaryLines()) {
    CHECK(l.find("minimal repro") == std::string::npos);
    rerun_line |= l == "rerun: test_softmax_col_tail not_reproduced";
  }
  CHECK(rerun_line);
}

namespace {

enum class Out { kPass, kFail, kUnjudgeable };

// A runner whose outcome is a function of the shape and seed; an unjudgeable failure is a
// precision failure that the exact result rounded to the output dtype would also have.
CaseRunner ScriptedJudged(Out (*outcome)(const std::vector<std::int64_t>&, std::uint64_t), int* runs) {
  return [outcome, runs](const std::vector<ReproCase>& batch) -> absl::StatusOr<std::vector<ReproRun>> {
    std::vector<ReproRun> out;
    for (const auto& c : batch) {
      ReproRun r;
      r.request = c;
      const Out o = outcome(c.shape, c.seed);
      r.status = o == Out::kPass ? runtime::CaseStatus::kPass : runtime::CaseStatus::kPrecisionFail;
      if (o == Out::kUnjudgeable) r.unjudgeable = "the golden rounded to float16 fails scheme A too (mean_rel_error)";
      out.push_back(r);
      ++*runs;
    }
    return out;
  };
}

Out AlwaysUnjudgeable(const std::vector<std::int64_t>&, std::uint64_t) { return Out::kUnjudgeable; }
// The original seed's inputs cannot be judged; the other seed's can, and show a column tail.
Out OriginalSeedUnjudgeable(const std::vector<std::int64_t>& s, std::uint64_t seed) {
  if (seed == 44) return Out::kUnjudgeable;
  return ColumnTailFails(s) ? Out::kFail : Out::kPass;
}
Out OtherSeedUnjudgeable(const std::vector<std::int64_t>& s, std::uint64_t seed) {
  if (seed != 44) return Out::kUnjudgeable;
  return ColumnTailFails(s) ? Out::kFail : Out::kPass;
}
// Column tails fail; a single row cannot be judged.
Out SingleRowUnjudgeable(const std::vector<std::int64_t>& s, std::uint64_t) {
  if (s[0] == 1) return Out::kUnjudgeable;
  return ColumnTailFails(s) ? Out::kFail : Out::kPass;
}

}  // namespace

TEST_CASE("reruns that scheme A cannot judge are no evidence: unjudgeable, nothing shrunk, no repro offered") {
  int runs = 0;
  ReproOptions other;
  other.same_path = false;
  auto u = MakeTrustworthy("test_softmax_col_tail", {3, 200}, 44, Facts(), ScriptedJudged(AlwaysUnjudgeable, &runs), other);
  REQUIRE(u.ok());
  CHECK(u->verdict == "unjudgeable");
  CHECK_FALSE(u->Reproduced());
  CHECK(runs == 2);
  CHECK(u->minimal_shape == std::vector<std::int64_t>{3, 200});
  CHECK(u->sentence.find("cannot judge") != std::string::npos);
  CHECK(u->ToJson().at("alone").as_object().contains("unjudgeable"));

  DiagnoseInput in;
  in.facts = Facts();
  CaseFacts f;
  f.name = "test_softmax_col_tail";
  f.shape = {3, 200};
  f.dtype = "float16";
  f.outcome = CaseOutcome::kFail;
  in.cases.push_back(f);
  in.repro = *u;
  Diagnosis d = Diagnose(in);
  CHECK(d.next_action.find("minimal repro") == std::string::npos);
  bool rerun_line = false;
  for (const auto& l : d.SummaryLines()) {
    CHECK(l.find("minimal repro") == std::string::npos);
    rerun_line |= l == "rerun: test_softmax_col_tail unjudgeable";
  }
  CHECK(rerun_line);
}

TEST_CASE("an unjudgeable rerun alone with a judgeable failure under another seed shrinks with that seed") {
  int runs = 0;
  auto r = MakeTrustworthy("test_softmax_col_tail", {3, 200}, 44, Facts(), ScriptedJudged(OriginalSeedUnjudgeable, &runs));
  REQUIRE(r.ok());
  CHECK(r->verdict == "reproducible");
  CHECK(r->minimal_shape == std::vector<std::int64_t>{1, 129});
  REQUIRE(r->minimal);
  CHECK(r->minimal->request.seed == 44 + ReproOptions{}.other_seed_offset);
  CHECK(r->sentence.find("cannot judge") != std::string::npos);
}

TEST_CASE("a judgeable failure alone whose other-seed rerun is unjudgeable is reproduced_alone") {
  int runs = 0;
  auto r = MakeTrustworthy("test_softmax_col_tail", {3, 200}, 44, Facts(), ScriptedJudged(OtherSeedUnjudgeable, &runs));
  REQUIRE(r.ok());
  CHECK(r->verdict == "reproduced_alone");
  CHECK(r->Reproduced());
  CHECK(r->minimal_shape == std::vector<std::int64_t>{1, 129});
  CHECK(r->minimal->request.seed == 44);
}

TEST_CASE("the shrink never moves to a shape whose failure is unjudgeable") {
  int runs = 0;
  auto r = MakeTrustworthy("test_softmax_col_tail", {3, 200}, 44, Facts(), ScriptedJudged(SingleRowUnjudgeable, &runs));
  REQUIRE(r.ok());
  CHECK(r->verdict == "reproducible");
  CHECK(r->minimal_shape == std::vector<std::int64_t>{2, 129});
  bool listed = false;
  for (const auto& t : r->tried) listed |= t == "[1,200] FAIL(unjudgeable)";
  CHECK(listed);
}
