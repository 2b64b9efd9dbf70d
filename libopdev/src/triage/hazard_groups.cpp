// Grouping of per-case hazards and kernel-line origins (see hazard_groups.h).
#include "opdev/triage/hazard_groups.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <map>
#include <regex>
#include <tuple>

namespace opdev::triage {
namespace {

std::string Trim(std::string s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// "(N occurrences)" folded into the evidence by the hazard sink.
int Occurrences(const std::string& evidence) {
  static const std::regex re(R"(\((\d+) occurrences\))");
  std::smatch m;
  if (std::regex_search(evidence, m, re)) return std::stoi(m[1].str());
  return 1;
}

}  // namespace

boost::json::object KernelOrigin::ToJson() const {
  boost::json::object o;
  if (kind.empty()) return o;
  o["kind"] = kind;
  if (design_line) {
    o["file"] = design_file;
    o["line"] = design_line;
    if (!section.empty()) o["section"] = section;
    o["text"] = design_text;
  }
  if (!rule.empty()) o["rule"] = rule;
  return o;
}

std::string KernelOrigin::Text() const {
  if (kind.empty()) return "";
  if (kind == "design" || kind == "design_derived")
    return absl::StrCat(design_file.empty() ? "DESIGN.md" : design_file, ":", design_line,
                        section.empty() ? "" : " " + section, kind == "design" ? " (verbatim)" : " (derived)");
  return absl::StrCat("opdev ", kind, ": ", rule, design_line ? absl::StrCat(" (from DESIGN.md:", design_line, ")") : "");
}

KernelOrigin OriginOf(int line, const codegen::SourceMap* map, const contract::DesignDoc* design) {
  KernelOrigin o;
  if (!map) return o;
  const codegen::LineOrigin* lo = map->Find(line);
  if (!lo) return o;
  o.kind = std::string(codegen::OriginKindName(lo->kind));
  o.design_line = lo->design_line;
  o.section = lo->section;
  o.rule = lo->rule;
  o.design_file = design ? design->path : map->design;
  if (design && lo->design_line > 0 && lo->design_line <= static_cast<int>(design->lines.size())) {
    o.design_text = Trim(design->lines[static_cast<size_t>(lo->design_line - 1)]);
    if (o.section.empty())
      if (const auto* s = design->SectionAt(lo->design_line)) o.section = s->number;
  }
  return o;
}

boost::json::object HazardGroup::ToJson() const {
  boost::json::object o = hazard.ToJson();
  boost::json::array cs;
  for (const auto& c : cases) cs.emplace_back(c);
  o["cases"] = std::move(cs);
  o["occurrences"] = occurrences;
  boost::json::array seen;
  if (seen_in_run) seen.emplace_back("run");
  if (seen_in_reruns) seen.emplace_back("triage_reruns");
  o["seen_in"] = std::move(seen);
  auto org = origin.ToJson();
  if (!org.empty()) o["origin"] = std::move(org);
  return o;
}

std::vector<HazardGroup> GroupHazards(const std::vector<CaseHazards>& per_case,
                                      const codegen::SourceMap* map, const contract::DesignDoc* design) {
  std::vector<HazardGroup> groups;
  std::map<std::tuple<std::string, std::string, int>, size_t> index;
  for (const auto& entry : per_case) {
    const std::string& name = entry.case_name;
    for (const auto& d : entry.hazards.items()) {
      auto key = std::make_tuple(d.code, d.file, d.line);
      auto it = index.find(key);
      if (it == index.end()) {
        HazardGroup g;
        g.hazard = d;
        g.hazard.evidence = std::regex_replace(d.evidence, std::regex(R"( ?\(\d+ occurrences\))"), "");
        g.origin = OriginOf(d.line, map, design);
        index[key] = groups.size();
        groups.push_back(std::move(g));
        it = index.find(key);
      }
      HazardGroup& g = groups[it->second];
      if (std::find(g.cases.begin(), g.cases.end(), name) == g.cases.end()) g.cases.push_back(name);
      g.occurrences += Occurrences(d.evidence);
      (entry.rerun ? g.seen_in_reruns : g.seen_in_run) = true;
      if (d.severity > g.hazard.severity) g.hazard.severity = d.severity;
    }
  }
  std::stable_sort(groups.begin(), groups.end(), [](const HazardGroup& a, const HazardGroup& b) {
    if (a.hazard.severity != b.hazard.severity) return a.hazard.severity > b.hazard.severity;
    return std::tie(a.hazard.file, a.hazard.line, a.hazard.code) < std::tie(b.hazard.file, b.hazard.line, b.hazard.code);
  });
  return groups;
}

}  // namespace opdev::triage
