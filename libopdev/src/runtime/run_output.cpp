// Text parsing of a test run's output into per-case results and tracebacks.
#include "opdev/runtime/run_output.h"

#include "opdev/sim/hazards.h"

#include "absl/strings/str_cat.h"

#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>

namespace opdev::runtime {
namespace {

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back(l);
  }
  return lines;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

bool IsRule(const std::string& l) {
  std::string t = Trim(l);
  if (!t.empty() && t.back() == ')') t.pop_back();
  return t.size() >= 20 && t.find_first_not_of('-') == std::string::npos;
}

std::optional<double> ParseDouble(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return std::nullopt;
  return v;
}

}  // namespace

std::string_view CaseStatusName(CaseStatus s) {
  switch (s) {
    case CaseStatus::kPass: return "PASS";
    case CaseStatus::kPrecisionFail: return "PRECISION_FAIL";
    case CaseStatus::kError: return "ERROR";
    case CaseStatus::kNotRun: return "NOT_RUN";
  }
  return "NOT_RUN";
}

boost::json::object PrecisionMetrics::ToJson() const {
  boost::json::object o;
  auto put = [&](const char* k, const std::optional<double>& v) {
    if (v) o[k] = *v;
  };
  put("matched_ratio", matched_ratio);
  put("max_abs_error", max_abs_error);
  put("mean_abs_error", mean_abs_error);
  put("mean_rel_error", mean_rel_error);
  if (!failed_checks.empty()) {
    boost::json::array a;
    for (const auto& c : failed_checks) a.emplace_back(c);
    o["failed_checks"] = std::move(a);
  }
  return o;
}

PrecisionMetrics ParsePrecisionSummary(const std::string& summary) {
  PrecisionMetrics m;
  // Multi-line scheme-A rows: "<name> : <value> thresh=<t> check=GT [CHECK_FAILED]".
  static const std::regex kRow(
      R"((atol|rtol|matched_ratio|max_abs_error)\s*:\s*([-+0-9.eEnaifNIF]+)\s*thresh=\S*\s*check=\w+(\s*\[CHECK_FAILED\])?)");
  // One-line form: "matched_ratio=0.999000 (req>=0.99), max_abs_error=1.2e-03 (limit=…)".
  static const std::regex kEq(R"((matched_ratio|max_abs_error|mean_abs_error|mean_rel_error)=([-+0-9.eEnaifNIF]+))");
  for (auto it = std::sregex_iterator(summary.begin(), summary.end(), kRow);
       it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    auto v = ParseDouble((*it)[2]);
    if (name == "atol") m.mean_abs_error = v;
    else if (name == "rtol") m.mean_rel_error = v;
    else if (name == "matched_ratio") m.matched_ratio = v;
    else m.max_abs_error = v;
    if ((*it)[3].matched) m.failed_checks.push_back(name);
  }
  for (auto it = std::sregex_iterator(summary.begin(), summary.end(), kEq);
       it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    auto v = ParseDouble((*it)[2]);
    if (name == "matched_ratio" && !m.matched_ratio) m.matched_ratio = v;
    if (name == "max_abs_error" && !m.max_abs_error) m.max_abs_error = v;
    if (name == "mean_abs_error" && !m.mean_abs_error) m.mean_abs_error = v;
    if (name == "mean_rel_error" && !m.mean_rel_error) m.mean_rel_error = v;
  }
  return m;
}

boost::json::object CaseResult::ToJson() const {
  boost::json::object o;
  o["name"] = name;
  if (!label.empty()) o["label"] = label;
  o["status"] = std::string(CaseStatusName(status));
  if (!metrics.empty() || !metrics.failed_checks.empty()) o["metrics"] = metrics.ToJson();
  if (!summary.empty()) o["summary"] = summary;
  if (!error.empty()) o["error"] = error;
  if (output_line > 0) o["output_line"] = output_line;
  return o;
}

ParsedOutput ParseRunOutput(const std::string& text) {
  ParsedOutput out;
  out.has_matched_ratio_eq = text.find("matched_ratio=") != std::string::npos;
  out.has_max_abs_error_eq = text.find("max_abs_error=") != std::string::npos;
  const auto lines = SplitLines(text);
  static const std::regex kFrame(R"re(^\s*File "([^"]*)", line (\d+), in (\S+))re");
  static const std::regex kExc(R"(^([A-Za-z_][\w.]*)(?::\s?(.*))?$)");
  const std::string kPassMark = "] PASS (";
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    size_t pm = line.find(kPassMark);
    if (pm != std::string::npos) {
      // Walk back to the '[' that opens the label (labels may contain brackets).
      int depth = 1;
      size_t start = std::string::npos;
      for (size_t k = pm; k-- > 0;) {
        if (line[k] == ']') ++depth;
        if (line[k] == '[' && --depth == 0) { start = k; break; }
      }
      if (start != std::string::npos) {
        CaseResult r;
        r.label = line.substr(start + 1, pm - start - 1);
        r.name = r.label;
        r.status = CaseStatus::kPass;
        r.output_line = static_cast<int>(i) + 1;
        std::string rest = line.substr(pm + kPassMark.size());
        std::string trimmed = Trim(rest);
        if (!trimmed.empty() && trimmed.back() == ')' && trimmed.rfind("precision", 0) != 0) {
          trimmed.pop_back();
          r.summary = trimmed;
        } else {
          // Multi-line block: runs to the dashed rule (or at most 8 lines).
          r.summary = rest;
          for (size_t k = i + 1; k < lines.size() && k <= i + 8; ++k) {
            if (IsRule(lines[k])) { i = k; break; }
            r.summary += "\n" + lines[k];
            i = k;
          }
        }
        r.metrics = ParsePrecisionSummary(r.summary);
        out.events.push_back(std::move(r));
        ++out.pass_lines;
        continue;
      }
    }
    if (Trim(line) == "Traceback (most recent call last):") {
      Traceback tb;
      tb.first_line = static_cast<int>(i) + 1;
      size_t k = i + 1;
      for (; k < lines.size(); ++k) {
        const std::string& l = lines[k];
        if (l.empty()) continue;
        if (l[0] == ' ' || l[0] == '\t') {
          std::smatch m;
          if (std::regex_search(l, m, kFrame))
            tb.frames.push_back({m[1].str(), std::atoi(m[2].str().c_str()), m[3].str()});
          continue;
        }
        break;  // the exception line
      }
      if (k < lines.size()) {
        std::smatch m;
        if (std::regex_match(lines[k], m, kExc)) {
          tb.exception_type = m[1].str();
          tb.message = m[2].matched ? m[2].str() : "";
        } else {
          tb.message = lines[k];
        }
        // Continuation: indented lines and the dashed rule of a scheme-A block.
        size_t c = k + 1;
        for (; c < lines.size(); ++c) {
          const std::string& l = lines[c];
          if (IsRule(l)) { tb.message += "\n" + l; continue; }
          if (!l.empty() && (l[0] == ' ' || l[0] == '\t') &&
              Trim(l).rfind("File \"", 0) != 0) {
            tb.message += "\n" + l;
            continue;
          }
          break;
        }
        i = c - 1;
      } else {
        i = k;
      }
      for (auto it = tb.frames.rbegin(); it != tb.frames.rend(); ++it)
        if (it->function.rfind("test_", 0) == 0) { tb.test_function = it->function; break; }
      CaseResult r;
      r.name = tb.test_function;
      r.output_line = tb.first_line;
      r.error = tb.exception_type.empty() ? tb.message
                                          : absl::StrCat(tb.exception_type, ": ", tb.message);
      // A precision verdict raised by the test: the pipeline's `精度不达标` message, or the
      // `[label] precision FAIL: <summary>` of the _assert_precision opdev gen writes.
      size_t marker = tb.message.find("精度不达标");
      size_t marker_len = std::string("精度不达标").size();
      if (marker == std::string::npos && tb.exception_type == "AssertionError") {
        marker = tb.message.find("] precision FAIL");
        marker_len = std::string("] precision FAIL").size();
      }
      if (marker != std::string::npos) {
        r.status = CaseStatus::kPrecisionFail;
        r.summary = Trim(tb.message.substr(marker + marker_len));
        if (!r.summary.empty() && (r.summary[0] == ':')) r.summary = Trim(r.summary.substr(1));
        if (r.summary.rfind("\xEF\xBC\x9A", 0) == 0) r.summary = Trim(r.summary.substr(3));  // '：'
        r.metrics = ParsePrecisionSummary(r.summary);
      } else {
        r.status = CaseStatus::kError;
      }
      out.tracebacks.push_back(tb);
      out.events.push_back(std::move(r));
      continue;
    }
    static const std::regex kSimWarning(R"(^(.+?):(\d+): SimulatorWarning: (SIM-[A-Z0-9-]+): (.*)$)");
    std::smatch sw;
    if (line.find("SimulatorWarning: SIM-") != std::string::npos && std::regex_match(line, sw, kSimWarning) &&
        out.simulator_warnings.size() < 1000) {
      SimulatorWarningLine w;
      w.output_line = static_cast<int>(i) + 1;
      w.finding.code = sw[3].str();
      w.finding.severity = Severity::kWarning;
      const sim::HazardInfo* info = sim::FindHazard(w.finding.code);
      w.finding.category = info ? std::string(info->category) : std::string(category::kImplementationError);
      w.finding.file = sw[1].str();
      w.finding.line = std::atoi(sw[2].str().c_str());
      w.finding.message = sw[4].str();
      out.simulator_warnings.push_back(std::move(w));
    }
    if ((line.find("Warning") != std::string::npos || line.find("WARNING") != std::string::npos ||
         line.find("[W ") != std::string::npos) &&
        out.warnings.size() < 50)
      out.warnings.push_back(Trim(line));
  }
  // Each simulator warning belongs to the case printed next (its PASS line or traceback comes
  // after the launch's warnings); one entry per code and kernel line within a case.
  for (const auto& w : out.simulator_warnings) {
    if (out.events.empty()) break;
    CaseResult* owner = &out.events.back();
    for (auto& ev : out.events)
      if (ev.output_line >= w.output_line) { owner = &ev; break; }
    bool seen = false;
    for (const auto& d : owner->hazards.items())
      if (d.code == w.finding.code && d.file == w.finding.file && d.line == w.finding.line) { seen = true; break; }
    if (!seen) owner->hazards.Add(w.finding);
  }
  return out;
}

std::vector<CaseResult> AssignCases(const ParsedOutput& parsed,
                                    const std::vector<std::string>& expected_cases,
                                    const std::string& op) {
  std::vector<CaseResult> cases;
  for (const auto& name : expected_cases) {
    CaseResult r;
    r.name = name;
    cases.push_back(r);
  }
  auto keys_of = [&](const std::string& name) {
    std::vector<std::string> keys{name};
    if (name.rfind("test_", 0) == 0) keys.push_back(name.substr(5));
    std::string p = "test_" + op + "_";
    if (!op.empty() && name.rfind(p, 0) == 0) keys.push_back(name.substr(p.size()));
    return keys;
  };
  auto label_matches = [&](const std::string& label, const std::string& name) {
    for (const auto& k : keys_of(name)) {
      if (label == k) return true;
      if (label.size() > k.size() && label.compare(0, k.size(), k) == 0 &&
          (label[k.size()] == ' ' || label[k.size()] == '['))
        return true;
    }
    return false;
  };
  std::vector<CaseResult> extra;
  for (const auto& ev : parsed.events) {
    bool placed = false;
    for (auto& c : cases) {
      bool match = ev.status == CaseStatus::kPass ? label_matches(ev.label, c.name)
                                                  : (!ev.name.empty() && ev.name == c.name);
      if (match && c.status == CaseStatus::kNotRun) {
        std::string name = c.name;
        c = ev;
        c.name = name;
        placed = true;
        break;
      }
    }
    if (!placed) {
      CaseResult e = ev;
      if (e.name.empty()) e.name = e.status == CaseStatus::kPass ? e.label : "(module level)";
      extra.push_back(std::move(e));
    }
  }
  for (auto& e : extra) cases.push_back(std::move(e));
  return cases;
}

}  // namespace opdev::runtime
