// A trustworthy failure and its minimal repro (stage4.md §8 "first make the failure
// trustworthy"): the first failing case is rerun alone with its own inputs and once more with
// another seed — a failure that does not come back is `flaky`, its own verdict — and its shape
// is shrunk, one axis at a time, to the smallest that still fails the same way inside the
// DESIGN's supported range (SPEC dynamic-axis ranges). How a case is run is the caller's
// CaseRunner (the stage uses the simulator), so this logic does not depend on the backend.
#pragma once

#include "opdev/precision/tensor.h"
#include "opdev/runtime/run_output.h"
#include "opdev/sim/simulator.h"
#include "opdev/support/diagnostic.h"
#include "opdev/triage/case_attributes.h"

#include "absl/status/statusor.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace opdev::triage {

struct ReproCase {
  std::string name;                  // label: "<case>", "<case>@seed", "<case>[1,129]"
  std::vector<std::int64_t> shape;   // of the primary input
  std::uint64_t seed = 0;            // input seed
};

struct ReproRun {
  ReproCase request;
  runtime::CaseStatus status = runtime::CaseStatus::kNotRun;
  std::string summary, error;
  std::vector<std::string> error_codes;     // codes of the error hazards of this run
  Diagnostics hazards;                      // every hazard of this run
  // A precision failure that scheme A would also report for the exact result: the golden
  // rounded to the output dtype fails against the golden (e.g. float16 outputs of values
  // below float16's smallest subnormal make mean_rel_error 1 there). Such a run does not tell
  // a defect from a correct kernel; `unjudgeable` says why, "" otherwise.
  std::string unjudgeable;
  std::optional<precision::Tensor> actual, golden;
  std::vector<sim::ElementOrigin> origin;   // per element of `actual`, when recorded
};

// Runs every case of one batch (one golden process for the batch); the status is an error only
// when the batch cannot run at all.
using CaseRunner =
    std::function<absl::StatusOr<std::vector<ReproRun>>(const std::vector<ReproCase>& batch)>;

struct ReproOptions {
  std::uint64_t other_seed_offset = 1000003;  // the second seed is the case seed + this
  int max_rounds = 3;                         // shrink passes over all axes (0: no shrink)
  size_t max_candidates = 16;                 // per axis and pass
  // The runner runs cases the way the original run did. When not (e.g. the run executed the
  // test file under the CPU device and the runner uses the DESIGN-case simulator), a rerun
  // that passes is "not_reproduced", never "flaky".
  bool same_path = true;
};

struct Repro {
  std::string case_name;
  std::vector<std::int64_t> shape;
  std::uint64_t seed = 0;
  // "reproducible" (fails alone and with another seed, judgeably at least once),
  // "reproduced_alone" (fails alone; the other seed's failure is not judgeable),
  // "value_dependent" (not with the other seed), "flaky" (the rerun alone passed, same path),
  // "not_reproduced" (the rerun alone passed on another path), "unjudgeable" (the reruns fail
  // only where scheme A fails the exact result too: no evidence, nothing shrunk), "not_run"
  // (the runner could not run it). Shrinking keeps only judgeable failures of the same kind.
  std::string verdict = "not_run";
  std::optional<ReproRun> alone, other_seed;
  std::vector<std::int64_t> minimal_shape;    // == shape when nothing smaller fails
  std::optional<ReproRun> minimal;            // the run of the minimal shape
  int runs = 0, batches = 0;
  std::vector<std::string> tried;             // shapes tried while shrinking, "[1,129] FAIL"
  std::string sentence;
  // A verdict that comes with a minimal repro (reproducible, reproduced_alone, value_dependent).
  bool Reproduced() const {
    return verdict == "reproducible" || verdict == "reproduced_alone" || verdict == "value_dependent";
  }
  boost::json::object ToJson() const;
};

// `failing_signature` decides "fails the same way": a run whose status is a failure and
// whose error hazard codes include every code of the first failure (precision failures have
// none). `symbols` name the axes in sentences.
absl::StatusOr<Repro> MakeTrustworthy(const std::string& case_name,
                                      const std::vector<std::int64_t>& shape, std::uint64_t seed,
                                      const ShapeFacts& facts, const CaseRunner& run,
                                      const ReproOptions& opts = {});

// Shrink candidates for one axis below `value` (ascending, within [lo, value)): the range's
// low end, small values, and one below/at/above each multiple of the granularities.
std::vector<std::int64_t> ShrinkCandidates(std::int64_t value, std::int64_t lo,
                                           const std::vector<std::int64_t>& granularities,
                                           size_t max_candidates);

}  // namespace opdev::triage
