// The dynamic items, taken from a run of the round's file (RunEvidence): S4-8 / MC-3 the
// file runs with exit status 0; S4-9 / MC-4 the output shows PASS — for S4-9 also no
// Traceback/Error/Exception — and contains the literal `matched_ratio=` and `max_abs_error=`
// the verifier greps for. Without a process (the simulator runs the cases in-process) the
// per-case results stand for the exit status and the PASS lines, and the grep is decided on
// what the op dir's precision_compare.py prints. No run, or an environment failure, leaves
// the items blocked: never passed on missing evidence. Also the output-coverage part of
// ⑥: a case that passes although the simulator saw output elements the kernel never wrote
// did not get its result from the kernel.
#include "check_context.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace opdev::selfcheck {
namespace {

constexpr std::string_view kPrecisionFailure = "precision_failure";
constexpr std::string_view kRuntimeFailure = "runtime_failure";
constexpr std::string_view kEnvError = "env_error";

bool Blocked(const std::optional<RunEvidence>& run, ItemResult* r) {
  if (!run) {
    r->status = ItemStatus::kBlocked;
    r->evidence = "no run of the file in this call (the verifier runs it): use `opdev stage`, or "
                  "`opdev selfcheck --backend sim|npu`";
    return true;
  }
  if (run->not_measured) {
    r->status = ItemStatus::kBlocked;
    r->category = std::string(kEnvError);
    r->evidence = absl::StrCat("not measured (未测量): ", run->not_measured_reason);
    return true;
  }
  return false;
}

int Count(const RunEvidence& run, runtime::CaseStatus s) {
  int n = 0;
  for (const auto& c : run.cases) n += c.status == s;
  return n;
}

std::string FirstLineWith(const std::string& text, std::string_view needle) {
  size_t p = text.find(needle);
  if (p == std::string::npos) return "";
  size_t b = text.rfind('\n', p);
  b = b == std::string::npos ? 0 : b + 1;
  size_t e = text.find('\n', p);
  return text.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

}  // namespace

bool ComparePrintsEq(const std::string& src) {
  return src.find("matched_ratio=") != std::string::npos && src.find("max_abs_error=") != std::string::npos;
}

ItemResult RunExitItem(const std::optional<RunEvidence>& run, const std::string& file_rel) {
  ItemResult r;
  if (Blocked(run, &r)) return r;
  const int errors = Count(*run, runtime::CaseStatus::kError);
  const int prec = Count(*run, runtime::CaseStatus::kPrecisionFail);
  if (run->exit_code) {
    r.evidence = absl::StrCat(run->command, ": exit status ", *run->exit_code);
    if (*run->exit_code != 0) {
      std::string cat = run->failure_category.empty() ? std::string(kRuntimeFailure) : run->failure_category;
      std::string tb = FirstLineWith(run->output, "Error");
      r.findings.Error("SC-RUN-EXIT", cat, file_rel, 0,
                       absl::StrCat("`", run->command, "` exited with status ", *run->exit_code,
                                    tb.empty() ? "" : absl::StrCat(": ", tb)));
    }
  } else {
    r.evidence = absl::StrCat(run->command, ": ", run->cases.size(), " case(s) in-process, ", errors,
                              " raised, ", prec, " below scheme A");
    if (run->cases.empty())
      r.findings.Error("SC-RUN-EXIT", kRuntimeFailure, file_rel, 0, "the run produced no case result");
    for (const auto& c : run->cases) {
      if (c.status == runtime::CaseStatus::kError)
        r.findings.Error("SC-RUN-EXIT", kRuntimeFailure, file_rel, 0,
                         absl::StrCat(c.name, " raised: ", c.error, " (the file would exit non-zero)"));
      else if (c.status == runtime::CaseStatus::kPrecisionFail)
        r.findings.Error("SC-RUN-EXIT", kPrecisionFailure, file_rel, 0,
                         absl::StrCat(c.name, " raised 精度不达标 (the file would exit non-zero)"));
    }
  }
  Conclude(&r);
  return r;
}

ItemResult RunPassItem(const std::optional<RunEvidence>& run, const std::string& file_rel, bool module_mode) {
  ItemResult r;
  if (Blocked(run, &r)) return r;
  std::vector<std::string> notes;
  if (!run->output.empty()) {
    runtime::ParsedOutput p = runtime::ParseRunOutput(run->output);
    notes.push_back(absl::StrCat(p.pass_lines, " PASS line(s)"));
    if (p.pass_lines == 0)
      r.findings.Error("SC-RUN-NO-PASS", kPrecisionFailure, file_rel, 0, "the output has no PASS line");
    if (!module_mode)
      for (const char* bad : {"Traceback", "Error", "Exception"})
        if (std::string l = FirstLineWith(run->output, bad); !l.empty()) {
          r.findings.Error("SC-RUN-ERROR-OUTPUT", kRuntimeFailure, file_rel, 0,
                           absl::StrCat("the output contains `", bad, "`: ", l));
          break;
        }
    if (!p.has_matched_ratio_eq || !p.has_max_abs_error_eq)
      r.findings.Error("SC-RUN-METRICS", kPrecisionFailure, file_rel, 0,
                       absl::StrCat("the output lacks the literal ", !p.has_matched_ratio_eq ? "`matched_ratio=`" : "",
                                    !p.has_matched_ratio_eq && !p.has_max_abs_error_eq ? " and " : "",
                                    !p.has_max_abs_error_eq ? "`max_abs_error=`" : "",
                                    " the verifier greps for (the shipped precision_compare.py decides the format)"));
  } else {
    notes.push_back("no process output: per-case results");
    if (!run->compare_prints_eq)
      r.findings.Warning("SC-RUN-METRICS", kPrecisionFailure, file_rel, 0,
                         "no precision_compare.py next to the file: whether the output would carry "
                         "`matched_ratio=`/`max_abs_error=` cannot be decided");
    else if (!*run->compare_prints_eq)
      r.findings.Error("SC-RUN-METRICS", kPrecisionFailure, "precision_compare.py", 0,
                       "precision_compare.py prints its metrics without `matched_ratio=`/`max_abs_error=` "
                       "(the multi-line form): the verifier's grep would fail");
  }
  const int pass = Count(*run, runtime::CaseStatus::kPass);
  notes.push_back(absl::StrCat(pass, "/", run->cases.size(), " case(s) PASS"));
  for (const auto& c : run->cases)
    if (c.status != runtime::CaseStatus::kPass)
      r.findings.Error("SC-RUN-CASE", c.status == runtime::CaseStatus::kError ? kRuntimeFailure : kPrecisionFailure,
                       file_rel, 0,
                       absl::StrCat(c.name, ": ", std::string(runtime::CaseStatusName(c.status)),
                                    c.error.empty() ? "" : absl::StrCat(" (", c.error, ")")));
  r.evidence = absl::StrJoin(notes, "; ");
  Conclude(&r);
  return r;
}

Diagnostics CoverageFindings(const RunEvidence& run, const std::string& file_rel) {
  Diagnostics d;
  bool unwritten = false;
  for (const auto& h : run.hazards.items())
    if (h.code == "SIM-OUT-UNWRITTEN") unwritten = true;
  if (unwritten && Count(run, runtime::CaseStatus::kPass) > 0)
    d.Error("SC-POST-LAUNCH", cat::kCheating, file_rel, 0,
            "the simulator saw output elements the kernel never wrote (SIM-OUT-UNWRITTEN), yet cases "
            "passed: the final result does not come from the kernel (⑥)");
  return d;
}

}  // namespace opdev::selfcheck
