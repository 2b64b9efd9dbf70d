// Failure triage tables and the decision procedure over a launch result.
#include "opdev/runtime/triage.h"

#include "opdev/sim/hazards.h"

#include "opdev/support/diagnostic.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/strings/ascii.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <regex>
#include <set>
#include <sstream>

namespace opdev::runtime {
namespace {

const std::string kEnv(category::kEnvError);
const std::string kRuntime(category::kRuntimeFailure);
const std::string kPrecision(category::kPrecisionFailure);

constexpr const char* kEnvAction =
    "environment problem: do not change the kernel or the environment; report env_error with "
    "this evidence and rerun once the environment is fixed (the result is not measured)";

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string Clip(std::string s, size_t n = 300) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
  if (s.size() > n) s = s.substr(0, n) + "…";
  return s;
}

std::string LogName(const LaunchResult& l) {
  if (l.combined_path.empty()) return "output";
  auto p = l.combined_path.find_last_of('/');
  return p == std::string::npos ? l.combined_path : l.combined_path.substr(p + 1);
}

bool IsTail(const CaseResult& c, const TriageContext& ctx) {
  if (c.name.find("tail") != std::string::npos) return true;
  if (ctx.tile_shape.empty()) return false;
  for (const auto& s : ctx.shapes) {
    if (s.name != c.name) continue;
    size_t n = std::min(s.shape.size(), ctx.tile_shape.size());
    for (size_t i = 0; i < n; ++i) {
      std::int64_t dim = s.shape[s.shape.size() - n + i];
      std::int64_t tile = ctx.tile_shape[ctx.tile_shape.size() - n + i];
      if (tile > 0 && dim % tile != 0) return true;
    }
  }
  return false;
}

const CaseShape* ShapeOf(const std::string& name, const TriageContext& ctx) {
  for (const auto& s : ctx.shapes)
    if (s.name == name) return &s;
  return nullptr;
}

std::int64_t Numel(const CaseShape& s) {
  std::int64_t n = 1;
  for (auto d : s.shape) n *= d;
  return n;
}

const char* SignalName(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    default: return "signal";
  }
}

}  // namespace

std::string_view OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kPass: return "PASS";
    case Outcome::kFail: return "FAIL";
    case Outcome::kNotMeasured: return "NOT_MEASURED";
  }
  return "FAIL";
}

const std::vector<TextRule>& TextRules() {
  static const std::vector<TextRule> rules = {
      {"env.import",
       R"((No module named '?(torch_npu|pypto_pro|torch)\b)|(ImportError: .*\b(torch_npu|pypto_pro)\b)|(cannot import name .* from '?(torch_npu|pypto_pro)))",
       kEnv, Outcome::kNotMeasured, "a runtime package (torch_npu / pypto_pro) does not import",
       "", "", kEnvAction},
      {"env.sync",
       R"(npuSynchronizeDevice)", kEnv, Outcome::kNotMeasured,
       "device synchronisation failed (npuSynchronizeDevice): device fault, FAULT_NO_TIMEOUT",
       "", "", kEnvAction},
      {"env.copy",
       R"((aclrtMemcpy\w*|AclrtMemcpy\w*|copy_between_host_and_device|copy_d2d|copy_h2d|copy_d2h)( failed|.*error))",
       kEnv, Outcome::kNotMeasured, "a host/device copy entry point failed: device fault",
       "", "", kEnvAction},
      {"env.device",
       R"((invalid device ordinal)|(Invalid device)|(aclrtSetDevice\w* .*(fail|error))|(No NPU device)|(npu device.* not (found|available))|(torch\.npu\.is_available\(\)\s*(is\s*)?False)|(device count is 0))",
       kEnv, Outcome::kNotMeasured, "the NPU device is not visible to the process", "", "",
       kEnvAction},
      {"env.cann",
       R"((libascendcl\.so)|(ASCEND_HOME_PATH.* not set)|(bisheng: (command )?not found)|(set_env\.sh.*No such file))",
       kEnv, Outcome::kNotMeasured, "the CANN toolkit is missing or not sourced", "", "",
       kEnvAction},
      {"runtime.aicore",
       R"((\b507015\b)|(\b507035\b)|(AICORE[_ ]?[Ee]xception)|(VECTOR_CORE[_ ]?[Ee]xception)|(aicore exception))",
       kRuntime, Outcome::kFail, "AI Core / Vector Core exception (507015/507035)",
       "out-of-range DMA: a load or store past the tensor end, usually on a tail case",
       "tails",
       "check the tail path first: valid-shape reset before load, boundary index, store range; "
       "rerun the first failing tail case alone (opdev run --case NAME)"},
      {"runtime.compile",
       R"((kernel\.cpp:\d+(:\d+)?: (fatal )?error:)|(\bCompileError\b)|(compil(e|ation) (failed|error))|(bisheng.* error))",
       kRuntime, Outcome::kFail, "the kernel did not compile", "", "layout and API",
       "fix this round's file from the first compiler error (API prototype, argument order, "
       "dtype, MemorySpace); a compile error does not prove a framework gap"},
  };
  return rules;
}

boost::json::object Triage::ToJson() const {
  boost::json::object o;
  o["outcome"] = std::string(OutcomeName(outcome));
  o["failure_category"] = category.empty() ? boost::json::value(nullptr) : boost::json::value(category);
  o["rule"] = rule;
  o["summary"] = summary;
  boost::json::array ev;
  for (const auto& e : evidence) ev.emplace_back(e);
  o["evidence"] = std::move(ev);
  if (!suspicion.empty()) o["suspicion"] = suspicion;
  if (!layer.empty()) o["layer_to_review"] = layer;
  o["next_action"] = next_action;
  if (outcome == Outcome::kNotMeasured) {
    o["measured"] = false;
    o["cases"] = "not measured";
  } else {
    o["measured"] = true;
    o["cases"] = absl::StrCat(passed, "/", total);
  }
  if (precision) {
    boost::json::object p;
    p["pattern"] = precision->id;
    p["symptom"] = precision->symptom;
    p["layer"] = precision->layer;
    p["check_first"] = precision->check_first;
    auto arr = [](const std::vector<std::string>& v) {
      boost::json::array a;
      for (const auto& s : v) a.emplace_back(s);
      return a;
    };
    p["failing"] = arr(precision->failing);
    p["passing"] = arr(precision->passing);
    p["not_run"] = arr(precision->not_run);
    o["precision_pattern"] = std::move(p);
  }
  if (!notes.empty()) {
    boost::json::array a;
    for (const auto& n : notes) a.emplace_back(n);
    o["notes"] = std::move(a);
  }
  return o;
}

PrecisionPattern ClassifyPrecision(const std::vector<CaseResult>& cases,
                                   const TriageContext& ctx) {
  PrecisionPattern p;
  std::vector<const CaseResult*> fail, pass;
  bool special = false;
  for (const auto& c : cases) {
    if (c.status == CaseStatus::kPrecisionFail) {
      fail.push_back(&c);
      p.failing.push_back(c.name);
      if (c.summary.find("NaN") != std::string::npos || c.summary.find("Inf ") != std::string::npos ||
          c.summary.find("nan") != std::string::npos || c.summary.find("inf") == 0)
        special = true;
    } else if (c.status == CaseStatus::kPass) {
      pass.push_back(&c);
      p.passing.push_back(c.name);
    } else if (c.status == CaseStatus::kNotRun) {
      p.not_run.push_back(c.name);
    }
  }
  auto set = [&](std::string id, std::string symptom, std::string layer, std::string check) {
    p.id = std::move(id);
    p.symptom = std::move(symptom);
    p.layer = std::move(layer);
    p.check_first = std::move(check);
  };
  if (special) {
    set("special_values", "NaN/Inf/±0 wrong", "numeric edges",
        "dtype, op order, transcendental ranges, special values");
    return p;
  }
  if (!fail.empty() && pass.empty() && fail.size() >= 2) {
    set("everywhere", "right shape, values wrong everywhere", "math and dims",
        "formula, cast points, I/O semantics, layout");
    return p;
  }
  if (fail.size() == 1 && pass.empty()) {
    set("single_case", "one case measured and it fails", "math and dims",
        "rerun the other cases alone (opdev run --case NAME) to see the pattern; then formula, "
        "cast points, I/O semantics, layout");
    return p;
  }
  bool all_fail_tail = !fail.empty() &&
      std::all_of(fail.begin(), fail.end(), [&](auto* c) { return IsTail(*c, ctx); });
  bool all_pass_aligned =
      std::all_of(pass.begin(), pass.end(), [&](auto* c) { return !IsTail(*c, ctx); });
  if (all_fail_tail && all_pass_aligned && !pass.empty()) {
    set("tails_only", "only tails fail", "tails",
        "valid-shape reset, boundary index, padding, store range");
    return p;
  }
  // Sizes and dtypes need the DESIGN §8 shapes.
  std::int64_t min_fail = INT64_MAX, max_pass = -1;
  std::set<std::string> fail_dt, pass_dt;
  bool shapes_known = true;
  for (auto* c : fail) {
    const CaseShape* s = ShapeOf(c->name, ctx);
    if (!s) { shapes_known = false; continue; }
    min_fail = std::min(min_fail, Numel(*s));
    if (!s->dtype.empty()) fail_dt.insert(s->dtype);
  }
  for (auto* c : pass) {
    const CaseShape* s = ShapeOf(c->name, ctx);
    if (!s) { shapes_known = false; continue; }
    max_pass = std::max(max_pass, Numel(*s));
    if (!s->dtype.empty()) pass_dt.insert(s->dtype);
  }
  if (shapes_known && !fail.empty() && !pass.empty()) {
    if (min_fail > max_pass) {
      set("large_only", "only large shapes fail", "tiles and capacity",
          "per-space capacity, tile split, cross-tile state");
      return p;
    }
    bool disjoint = !fail_dt.empty() && !pass_dt.empty() &&
        std::none_of(fail_dt.begin(), fail_dt.end(), [&](const std::string& d) { return pass_dt.count(d) > 0; });
    if (disjoint) {
      set("by_dtype", "failures grouped by dtype or config", "implementation path",
          "target version support, generated identifiers, dtype/layout contract (capability gap "
          "once proven)");
      return p;
    }
  }
  set("mixed", "no single shape pattern", "math and dims",
      "review in the layered order: math and dims → layout and API → tiles and capacity → "
      "tails → sync and ownership → core split and cross-tile state → numeric edges");
  return p;
}

HazardRoute RouteHazard(const std::string& kind) {
  struct Row { const char* key; std::string_view category; const char* layer; const char* why; };
  static const Row rows[] = {
      {"out_of_range", category::kRuntimeFailure, "tails",
       "a DMA touches memory outside the tensor (NPU: 507015/507035)"},
      {"oob", category::kRuntimeFailure, "tails", "a DMA touches memory outside the tensor"},
      {"overflow", category::kRuntimeFailure, "tiles and capacity",
       "a tile does not fit its memory space"},
      {"capacity", category::kRuntimeFailure, "tiles and capacity",
       "a tile does not fit its memory space"},
      {"overlap", category::kDesignViolation, "tiles and capacity",
       "addresses of coexisting tiles overlap"},
      {"alias", category::kDesignViolation, "tiles and capacity",
       "two live tiles share bytes"},
      {"align", category::kRuntimeFailure, "layout and API", "an address breaks alignment"},
      {"race", category::kRuntimeFailure, "sync and ownership",
       "a read and a write of the same bytes are not ordered"},
      {"sync", category::kRuntimeFailure, "sync and ownership",
       "a producer/consumer edge lacks (or duplicates) synchronisation"},
      {"mutex", category::kRuntimeFailure, "sync and ownership",
       "tile-group mutex ids collide or are unbalanced"},
      {"deadlock", category::kRuntimeFailure, "sync and ownership",
       "waits that can never be satisfied (on the NPU: a hang)"},
      {"uninit", category::kRuntimeFailure, "core split and cross-tile state",
       "a value is read before it is written"},
      {"double_write", category::kRuntimeFailure, "core split and cross-tile state",
       "two cores write the same output elements"},
      {"coverage", category::kRuntimeFailure, "core split and cross-tile state",
       "some output elements are never written"},
      {"nan", category::kPrecisionFailure, "numeric edges", "NaN/Inf appeared"},
      {"unsupported", category::kCapabilityGap, "implementation path",
       "the simulator does not model an API the kernel uses"},
  };
  std::string k = kind;
  std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const auto& r : rows)
    if (k.find(r.key) != std::string::npos)
      return {std::string(r.category), r.layer, r.why};
  return {std::string(category::kRuntimeFailure), "math and dims", "unclassified hazard"};
}

Triage TriageLaunch(const LaunchResult& launch, const TriageContext& ctx) {
  Triage t;
  const std::string log = LogName(launch);
  t.total = static_cast<int>(launch.cases.size());
  for (const auto& c : launch.cases)
    if (c.status == CaseStatus::kPass) ++t.passed;

  // 1. Before the launch.
  if (!launch.preflight_error.empty()) {
    if (launch.preflight_kind == "missing_file") {
      t.category = std::string(category::kMissingFile);
      t.outcome = Outcome::kFail;
      t.rule = "preflight.missing_file";
      t.summary = launch.preflight_error;
      t.next_action = "generate the kernel file (opdev stage without --no-gen) or fix the path";
    } else {
      t.category = kEnv;
      t.outcome = Outcome::kNotMeasured;
      t.rule = "env." + launch.preflight_kind;
      t.summary = launch.preflight_error;
      t.next_action = absl::StrCat(kEnvAction, "; or pass --device N for a known-good chip");
    }
    t.evidence.push_back(launch.preflight_error);
    return t;
  }
  if (!launch.process) {
    t.category = kRuntime;
    t.rule = "internal.no_process";
    t.summary = "the test was not run";
    return t;
  }
  const ProcessResult& p = *launch.process;
  if (p.termination == Termination::kSpawnFailed) {
    t.category = kEnv;
    t.outcome = Outcome::kNotMeasured;
    t.rule = "env.interpreter";
    t.summary = absl::StrCat("the interpreter could not be started: ", p.spawn_error);
    t.evidence.push_back(p.spawn_error);
    t.next_action = absl::StrCat(kEnvAction, "; or choose the interpreter with --python PATH");
    return t;
  }
  const auto lines = Lines(p.combined_text);
  auto quote = [&](size_t i) { return absl::StrCat(log, ":", i + 1, ": ", Clip(lines[i])); };
  auto last_lines = [&](size_t n) {
    for (size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i)
      t.evidence.push_back(quote(i));
  };
  if (p.termination == Termination::kTimedOut || p.termination == Termination::kIdleKilled) {
    t.category = kEnv;
    t.outcome = Outcome::kNotMeasured;
    bool idle = p.termination == Termination::kIdleKilled;
    t.rule = idle ? "env.hang" : "env.timeout";
    t.summary = idle ? absl::StrFormat("suspected hang: no output for %.0f s; process group killed",
                                       p.seconds_since_last_output)
                     : absl::StrFormat("timed out after %.0f s; process group killed", p.wall_seconds);
    t.evidence.push_back(absl::StrCat(t.summary, " (", t.passed, " case(s) had printed PASS)"));
    last_lines(5);
    t.next_action =
        "suspected hang: run the environment check's 3-step assessment (device state, a known-good "
        "sample, then this file alone with --case); a kernel-side hang (phase misuse, unbalanced "
        ".next(), missing sync) is only concluded after the environment is cleared";
    return t;
  }

  // 2. Text rules over the output.
  for (const auto& rule : TextRules()) {
    std::regex re(rule.pattern);
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!std::regex_search(lines[i], re)) continue;
      t.category = rule.category;
      t.outcome = rule.outcome;
      t.rule = rule.id;
      t.summary = rule.summary;
      t.suspicion = rule.suspicion;
      t.layer = rule.layer;
      t.next_action = rule.next_action;
      t.evidence.push_back(quote(i));
      if (rule.id == "runtime.compile") t.summary = absl::StrCat(rule.summary, ": ", Clip(lines[i], 200));
      if (rule.id == "runtime.aicore") {
        std::vector<std::string> failing;
        for (const auto& c : launch.cases)
          if (c.status == CaseStatus::kError || c.status == CaseStatus::kPrecisionFail)
            failing.push_back(c.name + (IsTail(c, ctx) ? " (tail)" : ""));
        if (!failing.empty())
          t.evidence.push_back(absl::StrCat("failing case(s): ", absl::StrJoin(failing, ", ")));
      }
      return t;
    }
  }

  // 3. Precision failures.
  bool any_precision = std::any_of(launch.cases.begin(), launch.cases.end(),
                                   [](const CaseResult& c) { return c.status == CaseStatus::kPrecisionFail; });
  if (any_precision) {
    t.category = kPrecision;
    t.outcome = Outcome::kFail;
    t.rule = "precision.scheme_a";
    t.precision = ClassifyPrecision(launch.cases, ctx);
    t.layer = t.precision->layer;
    t.summary = absl::StrCat("precision below scheme A in ", t.precision->failing.size(),
                             " case(s): ", t.precision->symptom);
    // A test file stops at its first failing case: a pattern of the cases it reached is not
    // yet the §8 pattern (the stage's triage measures the others).
    const size_t measured = t.precision->failing.size() + t.precision->passing.size();
    const size_t total = std::max(launch.cases.size(), ctx.shapes.size());
    if (measured < total)
      absl::StrAppend(&t.summary, " (among the ", measured, " of ", total, " §8 case(s) the run measured)");
    for (const auto& c : launch.cases) {
      if (c.status != CaseStatus::kPrecisionFail) continue;
      std::string m;
      if (c.metrics.matched_ratio) absl::StrAppend(&m, " matched_ratio=", *c.metrics.matched_ratio);
      if (c.metrics.max_abs_error) absl::StrAppend(&m, " max_abs_error=", *c.metrics.max_abs_error);
      if (!c.metrics.failed_checks.empty())
        absl::StrAppend(&m, " failed=", absl::StrJoin(c.metrics.failed_checks, ","));
      t.evidence.push_back(absl::StrCat(log, ":", c.output_line, ": ", c.name, ":", m));
    }
    t.next_action = absl::StrCat(
        "make the failure trustworthy first (rerun the first failing case alone: opdev run --case ",
        t.precision->failing.front(), "), then review '", t.precision->layer, "': ",
        t.precision->check_first,
        t.precision->not_run.empty() ? "" : "; the cases after the failure did not run");
    return t;
  }

  // 3b. The CPU device's findings (opdev.device.errors): the exception lists
  // "file:line: error[CODE]: message" lines, from the simulator (SIM-*) or the compile-time
  // API check (API-*).
  for (const Traceback& tb : launch.parsed.tracebacks) {
    const std::string& ty = tb.exception_type;
    const bool hazard = absl::EndsWith(ty, "KernelHazardError") || absl::EndsWith(ty, "UnsupportedKernelError");
    const bool compile = absl::EndsWith(ty, "KernelCompileError");
    if (!hazard && !compile) continue;
    std::string code, where, message;
    for (absl::string_view line : absl::StrSplit(tb.message, '\n')) {
      size_t e = line.find(": error[");
      size_t close = e == absl::string_view::npos ? e : line.find("]: ", e);
      if (close == absl::string_view::npos) continue;
      where = std::string(absl::StripAsciiWhitespace(line.substr(0, e)));
      code = std::string(line.substr(e + 8, close - e - 8));
      message = std::string(line.substr(close + 3));
      break;
    }
    t.outcome = Outcome::kFail;
    if (compile) {
      t.category = std::string(category::kImplementationError);
      t.rule = "device.compile";
      t.layer = "layout and API";
      t.suspicion = "the frontend rejects this API use at compile time";
    } else {
      const sim::HazardInfo* info = sim::FindHazard(code);
      HazardRoute route = RouteHazard(code);
      t.category = info ? std::string(info->category) : route.category;
      t.rule = code == "SIM-UNSUPPORTED" ? "device.unsupported" : "device.hazard";
      t.layer = route.layer;
      t.suspicion = route.explanation;
    }
    t.summary = absl::StrCat(code.empty() ? ty : code, ": ", Clip(message.empty() ? tb.message : message, 200),
                             tb.test_function.empty() ? "" : absl::StrCat(" in ", tb.test_function));
    if (!where.empty()) t.evidence.push_back(absl::StrCat(where, ": ", code, ": ", Clip(message, 300)));
    t.evidence.push_back(quote(static_cast<size_t>(tb.first_line - 1)));
    t.next_action = code == "SIM-UNSUPPORTED"
                        ? "a construct the simulator does not run: confirm on the NPU; not a kernel defect by itself"
                        : absl::StrCat("fix ", where.empty() ? "the kernel" : where, "; review the '", t.layer,
                                       "' layer, then rerun all cases");
    return t;
  }

  // 4. Other Python exceptions.
  if (!launch.parsed.tracebacks.empty()) {
    const Traceback& tb = launch.parsed.tracebacks.front();
    t.category = kRuntime;
    t.outcome = Outcome::kFail;
    t.rule = "runtime.exception";
    std::string first_msg_line = tb.message.substr(0, tb.message.find('\n'));
    t.summary = absl::StrCat(tb.exception_type.empty() ? "exception" : tb.exception_type, ": ",
                             Clip(first_msg_line, 200),
                             tb.test_function.empty() ? " (at module level, before any case)"
                                                      : absl::StrCat(" in ", tb.test_function));
    t.evidence.push_back(quote(static_cast<size_t>(tb.first_line - 1)));
    if (!tb.frames.empty()) {
      const auto& f = tb.frames.back();
      t.evidence.push_back(absl::StrCat(f.file, ":", f.line, ": in ", f.function));
    }
    t.layer = "layout and API";
    t.next_action = "fix this round's file at the innermost frame, then rerun the case alone";
    return t;
  }

  // 5. Died without a traceback.
  if (p.termination == Termination::kSignaled) {
    t.category = kRuntime;
    t.outcome = Outcome::kFail;
    t.rule = "runtime.signal";
    t.summary = absl::StrCat("the process was killed by ", SignalName(p.signal), " (", p.signal, ")");
    last_lines(5);
    t.next_action = "rerun the last case that started alone (opdev run --case NAME) and read its log";
    return t;
  }
  if (p.exit_code != 0) {
    t.category = kRuntime;
    t.outcome = Outcome::kFail;
    t.rule = "runtime.exit";
    t.summary = absl::StrCat("exit status ", p.exit_code, " without a Python traceback");
    last_lines(5);
    t.next_action = "read the log's last lines; rerun the failing case alone";
    return t;
  }

  // 6. Exit 0: every expected case must have printed PASS.
  std::vector<std::string> missing;
  for (const auto& c : launch.cases)
    if (c.status != CaseStatus::kPass) missing.push_back(c.name);
  if (t.passed == 0) {
    t.category = kRuntime;
    t.outcome = Outcome::kFail;
    t.rule = "runtime.no_pass";
    t.summary = "exit status 0 but no case printed PASS";
    last_lines(3);
    t.next_action = "make sure __main__ calls every test and each test calls _assert_precision with a label";
    return t;
  }
  if (!missing.empty()) {
    t.category = kRuntime;
    t.outcome = Outcome::kFail;
    t.rule = "runtime.cases_missing";
    t.summary = absl::StrCat("exit status 0 but ", missing.size(), " case(s) printed no PASS: ",
                             absl::StrJoin(missing, ", "));
    t.next_action = "every DESIGN §8 case must run: call each test from __main__";
    return t;
  }
  t.outcome = Outcome::kPass;
  t.rule = "pass";
  t.summary = absl::StrCat("all ", t.total, " case(s) printed PASS");
  t.next_action = "none for the run; finish the self-check items";
  if (!launch.parsed.has_matched_ratio_eq || !launch.parsed.has_max_abs_error_eq)
    t.notes.push_back(
        "the output lacks the literal strings 'matched_ratio=' and 'max_abs_error=' that the "
        "verifier's stage4-check item 9 greps for (newer precision_compare prints 'matched_ratio   :')");
  for (const auto& w : launch.parsed.warnings)
    t.notes.push_back(absl::StrCat("warning in the output (must be explained): ", Clip(w, 200)));
  return t;
}

}  // namespace opdev::runtime
