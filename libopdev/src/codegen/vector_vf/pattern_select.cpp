// Selection of the pure-vec pattern skeleton for a chain-only DESIGN.
#include "pattern_select.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <cctype>

namespace opdev::codegen::vector_vf {
namespace {

constexpr const char* kS1 = "§1";

std::optional<Pattern> ParsePattern(std::string v) {
  std::string s;
  for (char c : v)
    if (c != ' ' && c != '`' && c != '*') s += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (s.rfind("PATTERN", 0) == 0) s = s.substr(7);
  if (s == "A") return Pattern::kA;
  if (s == "B") return Pattern::kB;
  if (s == "B+" || s == "BPLUS") return Pattern::kBPlus;
  if (s == "C") return Pattern::kC;
  return std::nullopt;
}

std::optional<Pattern> FromEvidence(const std::string& ev) {
  if (ev.find("vec-row-reduce-broadcast") != std::string::npos) return Pattern::kB;
  if (ev.find("online-softmax-tail") != std::string::npos) return Pattern::kC;
  return std::nullopt;
}

}  // namespace

std::string PatternName(Pattern p) {
  switch (p) {
    case Pattern::kA: return "A";
    case Pattern::kB: return "B";
    case Pattern::kBPlus: return "B+";
    case Pattern::kC: return "C";
  }
  return "?";
}

std::optional<bool> AxisMayExceedTile(const contract::DesignDoc& d, int* line) {
  const contract::Section* s0 = d.FindSection(0);
  if (!s0) return std::nullopt;
  const contract::Subsection* sub = s0->FindSubsection("归约轴容量");
  if (!sub) return std::nullopt;
  for (int l = sub->line + 1; l <= sub->end_line && l <= static_cast<int>(d.lines.size()); ++l) {
    const std::string& t = d.lines[l - 1];
    size_t k = t.find("超单 tile");
    if (k == std::string::npos) k = t.find("超单tile");
    if (k == std::string::npos) continue;
    size_t c = t.find("：", k);
    size_t skip = 3;
    if (c == std::string::npos) {
      c = t.find(':', k);
      skip = 1;
    }
    if (c == std::string::npos) continue;
    std::string v = t.substr(c + skip);
    size_t b = v.find_first_not_of(" *`");
    if (b == std::string::npos) continue;
    v = v.substr(b);
    if (line) *line = l;
    if (v.rfind("是", 0) == 0) return true;
    if (v.rfind("否", 0) == 0) return false;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<PatternChoice> SelectPattern(const Chain& chain, const std::set<std::string>& params,
                                           GenContext& ctx) {
  const ChainOp* reduce = chain.FirstReduce();
  const ChainOp* param_use = nullptr;
  for (const auto& s : chain.steps)
    for (const auto& o : s.ops)
      for (const auto& a : o.args)
        if (!param_use && params.count(a)) param_use = &o;
  int axis_line = 0;
  std::optional<bool> exceeds = AxisMayExceedTile(*ctx.design, &axis_line);

  // Explicit field(s).
  std::optional<PatternChoice> choice;
  for (const auto& s : chain.steps) {
    if (s.pattern.empty()) continue;
    auto p = ParsePattern(s.pattern);
    if (!p) {
      ctx.Violation("CODEGEN-CHAIN-PATTERN", s.pattern_line, kS1,
                    absl::StrFormat("vector_selection pattern `%s` is not one of A, B, B+, C",
                                    s.pattern));
      return std::nullopt;
    }
    if (choice && choice->pattern != *p) {
      ctx.Violation("CODEGEN-CHAIN-AMBIGUOUS", s.pattern_line, kS1,
                    absl::StrFormat("steps name different patterns (%s at line %d, %s here); "
                                    "one kernel uses one skeleton",
                                    PatternName(choice->pattern), choice->line, PatternName(*p)));
      return std::nullopt;
    }
    if (!choice) choice = PatternChoice{*p, false, s.pattern_line, "pattern field"};
  }
  if (!choice)
    for (const auto& s : chain.steps)
      if (auto p = FromEvidence(s.kb_evidence)) {
        if (*p == Pattern::kB && param_use) p = Pattern::kBPlus;
        choice = PatternChoice{*p, false, s.line, "kb_template_evidence"};
        break;
      }
  if (!choice) {
    PatternChoice c;
    c.inferred = true;
    c.source = "inferred";
    c.line = chain.line;
    std::string why;
    if (!reduce) {
      c.pattern = Pattern::kA;
      why = "the chain has no reduction";
    } else if (exceeds.value_or(false)) {
      c.pattern = Pattern::kC;
      c.line = axis_line;
      why = "the chain reduces and §0 归约轴容量结论 says the reduction axis may exceed one tile";
    } else if (param_use) {
      c.pattern = Pattern::kBPlus;
      why = "the chain reduces and reads the per-column parameter(s) " +
            absl::StrJoin(params, ", ");
    } else {
      c.pattern = Pattern::kB;
      why = "the chain reduces (" + reduce->api + ") and reads no per-column parameter";
    }
    Diagnostic d{"CODEGEN-CHAIN-PATTERN-INFERRED", Severity::kNote,
                 std::string(category::kDesignViolation), ctx.file(), c.line, 0, kS1,
                 absl::StrFormat("no vector_selection `pattern` field and no KB template "
                                 "evidence: Pattern %s inferred because %s",
                                 PatternName(c.pattern), why),
                 ctx.DesignLine(c.line)};
    ctx.diags->Add(std::move(d));
    choice = c;
  }

  // The chain must fit the chosen skeleton.
  const Pattern p = choice->pattern;
  const std::string name = "Pattern " + PatternName(p);
  auto bad = [&](int line, const std::string& msg) {
    ctx.Violation("CODEGEN-CHAIN-PATTERN", line, kS1, name + " (" + choice->source + ", line " +
                                                          std::to_string(choice->line) + "): " +
                                                          msg);
  };
  const size_t errors_before = ctx.diags->ErrorCount();
  if (p == Pattern::kA && reduce)
    bad(reduce->line, "the chain reduces (" + reduce->text +
                          "), which an elementwise skeleton cannot express");
  if (p != Pattern::kA && !reduce)
    bad(chain.line, "the chain has no reduction, so it is not a reduce skeleton");
  if (p == Pattern::kB && param_use)
    bad(param_use->line, "the chain reads a per-column parameter (" + param_use->text +
                             "), which needs Pattern B+");
  if (p == Pattern::kBPlus && !param_use)
    bad(chain.line, "the chain reads no per-column parameter (gamma/beta) of SPEC");
  if (p != Pattern::kC && exceeds.value_or(false) && reduce)
    bad(axis_line, "§0 says the reduction axis may exceed one tile, which needs Pattern C "
                   "(UB accumulators across tiles)");
  if (p == Pattern::kC && exceeds.has_value() && !*exceeds)
    bad(axis_line, "§0 says the reduction axis never exceeds one tile");
  if (ctx.diags->ErrorCount() > errors_before) return std::nullopt;
  return choice;
}

}  // namespace opdev::codegen::vector_vf
