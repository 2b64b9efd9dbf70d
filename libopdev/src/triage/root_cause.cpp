// Locating the defect's lines and routing them by origin (see root_cause.h).
#include "opdev/triage/root_cause.h"

#include "opdev/sim/hazards.h"
#include "opdev/triage/code_context.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <boost/json/value_from.hpp>

#include <algorithm>
#include <set>

namespace opdev::triage {
namespace {

constexpr const char* kRouteDesign =
    "DESIGN dims, API sequence, tiles, loops, sync, tails, vector_selection, Module contract → report "
    "design_violation with the original error, a minimal repro and the contract location";
constexpr const char* kRouteLocal = "transcription/parameter/local detail → fix this round's file, rerun";
constexpr const char* kRouteEnv = "import, CANN, device invisible, suspected hang → env_error (never fix the environment)";
constexpr const char* kRouteGap =
    "framework gap proven after docs, samples and all DESIGN-allowed paths → capability_gap";

std::string BaseName(const std::string& p) {
  auto s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

}  // namespace

boost::json::object RootCause::ToJson() const {
  boost::json::object o;
  o["category"] = category.empty() ? boost::json::value(nullptr) : boost::json::value(category);
  o["suspected"] = suspected;
  o["origin"] = origin;
  o["code"] = code;
  o["message"] = message;
  o["kernel_file"] = kernel_file;
  o["kernel_lines"] = boost::json::value_from(kernel_lines);
  o["design_file"] = design_file;
  o["design_lines"] = boost::json::value_from(design_lines);
  boost::json::array t;
  for (const auto& x : design_text) t.emplace_back(x);
  o["design_text"] = std::move(t);
  o["rule"] = rule;
  o["route"] = route;
  o["basis"] = basis;
  o["location"] = Location();
  return o;
}

std::string RootCause::Location() const {
  if (kernel_lines.empty()) return "";
  std::string s = absl::StrCat(BaseName(kernel_file), ":", absl::StrJoin(kernel_lines, ", "));
  if (!design_lines.empty())
    absl::StrAppend(&s, " ← ", BaseName(design_file.empty() ? "DESIGN.md" : design_file), ":",
                    absl::StrJoin(design_lines, ", "));
  return s;
}

RootCause Route(const RouteInput& in) {
  RootCause rc;
  rc.kernel_file = in.kernel_file;
  if (in.environment) {
    rc.category = std::string(category::kEnvError);
    rc.origin = "environment";
    rc.route = kRouteEnv;
    rc.basis = "none";
    return rc;
  }
  // Warnings about values (a stale or never-written value, a branch the hardware predicates)
  // explain wrong data; others (e.g. a mask width remark) only when nothing else is there.
  auto explains = [](const std::string& code) {
    return code.find("STALE") != std::string::npos || code.find("UNINIT") != std::string::npos ||
           code.find("RUNTIME-IF") != std::string::npos;
  };
  // 1. Locate.
  std::vector<const HazardGroup*> chosen;
  for (const auto& g : in.hazards)
    if (g.hazard.severity == Severity::kError) chosen.push_back(&g);
  // SIM-OUT-UNWRITTEN is reported at the launch (the kernel call in the host code: elements no
  // core wrote, found after the run), so its line names the caller, not the defect: when an
  // error hazard sits at a kernel line as well, that one locates and routes the defect.
  auto at_launch = [](const HazardGroup* g) { return g->hazard.code.find("OUT-UNWRITTEN") != std::string::npos; };
  if (std::any_of(chosen.begin(), chosen.end(), [&](const HazardGroup* g) { return !at_launch(g); }))
    chosen.erase(std::remove_if(chosen.begin(), chosen.end(), at_launch), chosen.end());
  // Never-written values are an error where they reach GM (SIM-UNINIT-READ at the store); the
  // operations that computed on them (SIM-UNINIT-USE warnings, in the order the run met them)
  // are where they came from, so those locate the defect. The error stays the code and message.
  auto is = [](const HazardGroup* g, std::string_view code) { return g->hazard.code == code; };
  if (!chosen.empty() &&
      std::all_of(chosen.begin(), chosen.end(), [&](const HazardGroup* g) { return is(g, sim::hazard::kUninitRead); })) {
    std::vector<const HazardGroup*> uses;
    for (const auto& g : in.hazards)
      if (is(&g, sim::hazard::kUninitUse)) uses.push_back(&g);
    if (!uses.empty()) {
      rc.code = chosen.front()->hazard.code;
      rc.message = absl::StrCat(chosen.front()->hazard.message, " at line ", chosen.front()->hazard.line,
                                "; the lines named are where those values were computed on (SIM-UNINIT-USE; ",
                                uses.front()->hazard.message, ")");
      chosen = uses;
    }
  }
  if (!chosen.empty()) {
    rc.basis = "error_hazard";
  } else if (in.localisation && in.localisation->mismatched > 0) {
    // Warnings inside the loop (or function) whose stores are wrong.
    std::vector<int> bad_writers;
    for (const auto& w : in.localisation->writers)
      if (w.mismatched > 0 && w.writer_line > 0) bad_writers.push_back(w.writer_line);
    for (const auto& g : in.hazards) {
      if (g.hazard.severity != Severity::kWarning || !in.kernel) continue;
      LineContext hc = DescribeLine(*in.kernel, g.hazard.line);
      for (int wl : bad_writers) {
        LineContext wc = DescribeLine(*in.kernel, wl);
        const LoopContext* hl = hc.Innermost();
        const LoopContext* wlc = wc.Innermost();
        bool same = hc.function == wc.function && !hc.function.empty() &&
                    ((hl && wlc && hl->line == wlc->line) || (!wlc && !hl));
        if (same) {
          chosen.push_back(&g);
          break;
        }
      }
    }
    // Warnings about values (a stale or never-written value, a branch the hardware predicates)
    // explain wrong data; the others in the loop (e.g. a mask width remark) are kept only
    // when nothing else is there.
    if (std::any_of(chosen.begin(), chosen.end(), [&](const HazardGroup* g) { return explains(g->hazard.code); }))
      chosen.erase(std::remove_if(chosen.begin(), chosen.end(),
                                  [&](const HazardGroup* g) { return !explains(g->hazard.code); }),
                   chosen.end());
    if (!chosen.empty()) {
      rc.basis = "loop_warning";
    } else if (!bad_writers.empty()) {
      rc.basis = "writer";
      std::sort(bad_writers.begin(), bad_writers.end());
      bad_writers.erase(std::unique(bad_writers.begin(), bad_writers.end()), bad_writers.end());
      rc.kernel_lines = bad_writers;
      rc.message = in.localisation->sentence;
    }
  }
  if (chosen.empty() && rc.kernel_lines.empty()) {
    // Any warning; the ones about values (stale, never written, predicated) first, as above.
    for (const auto& g : in.hazards)
      if (g.hazard.severity == Severity::kWarning && explains(g.hazard.code)) chosen.push_back(&g);
    if (chosen.empty())
      for (const auto& g : in.hazards)
        if (g.hazard.severity == Severity::kWarning) chosen.push_back(&g);
    rc.basis = chosen.empty() ? "none" : "warning";
  }
  std::set<std::string> hazard_categories;
  for (const HazardGroup* g : chosen) {
    if (std::find(rc.kernel_lines.begin(), rc.kernel_lines.end(), g->hazard.line) == rc.kernel_lines.end())
      rc.kernel_lines.push_back(g->hazard.line);
    if (rc.code.empty()) {
      rc.code = g->hazard.code;
      rc.message = g->hazard.message;
    }
    hazard_categories.insert(g->hazard.category);
  }
  if (rc.kernel_lines.empty()) {
    rc.category = in.fallback_category.empty() ? std::string(category::kPrecisionFailure) : in.fallback_category;
    rc.origin = "unlocated";
    rc.route = "no kernel line is implicated: review the layer of the symptom, then rerun";
    return rc;
  }
  // 2. Route by origin.
  bool all_design = in.has_map, any_opdev = false;
  for (int line : rc.kernel_lines) {
    KernelOrigin o = OriginOf(line, in.map, in.design);
    if (o.kind == "design" || o.kind == "design_derived") {
      if (o.design_line &&
          std::find(rc.design_lines.begin(), rc.design_lines.end(), o.design_line) == rc.design_lines.end()) {
        rc.design_lines.push_back(o.design_line);
        rc.design_text.push_back(o.design_text);
      }
      if (rc.design_file.empty()) rc.design_file = o.design_file;
      if (rc.origin.empty() || rc.origin == "design") rc.origin = o.kind;
    } else if (o.kind == "skeleton" || o.kind == "emitter") {
      all_design = false;
      any_opdev = true;
      rc.origin = o.kind;
      if (rc.rule.empty()) rc.rule = o.rule;
    } else {
      all_design = false;
    }
  }
  const bool unsupported = hazard_categories.count(std::string(category::kCapabilityGap)) > 0 &&
                           hazard_categories.size() == 1;
  if (unsupported) {
    rc.category = std::string(category::kCapabilityGap);
    if (rc.origin.empty()) rc.origin = "kernel";
    rc.route = kRouteGap;
    return rc;
  }
  if (any_opdev) {
    rc.category = std::string(category::kImplementationError);
    rc.route = absl::StrCat(kRouteLocal, " — here the line was written by opdev (", rc.rule,
                            "): an opdev defect to report, not a design one");
  } else if (all_design && !rc.design_lines.empty()) {
    rc.category = std::string(category::kDesignViolation);
    rc.suspected = true;
    rc.route = kRouteDesign;
  } else {
    rc.category = std::string(category::kImplementationError);
    rc.origin = "kernel";
    rc.design_lines.clear();
    rc.design_text.clear();
    rc.route = absl::StrCat(kRouteLocal, in.generated ? " (the file has no matching source map)"
                                                      : " (a hand-written or edited file: the kernel line is the location)");
  }
  return rc;
}

}  // namespace opdev::triage
