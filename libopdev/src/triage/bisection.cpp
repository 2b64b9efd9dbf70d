// Smallest separating attribute set over the measured cases (see bisection.h).
#include "opdev/triage/bisection.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <algorithm>

namespace opdev::triage {
namespace {

struct Cand {
  std::vector<size_t> attrs;
  std::vector<bool> values;
};

// Rank of a literal: positive attributes before negated ones, then the narrowest (true for
// the fewest §8 cases, measured or not: it says the most about where the defect is), then the
// review order of the symptom, then the attribute table order.
std::tuple<int, long, int, size_t> Rank(const AttributeTable& t, size_t a, bool v) {
  const auto& val = t.attributes[a].value;
  const long holds = static_cast<long>(std::count(val.begin(), val.end(), v));
  return {v ? 0 : 1, holds, ReviewRank(RowOf(t.attributes[a].symptom).layer), a};
}

std::string CaseWord(size_t n) { return n == 1 ? "case" : "cases"; }

}  // namespace

boost::json::object Separation::ToJson() const {
  boost::json::object o;
  o["kind"] = kind;
  auto lits = [](const std::vector<AttributeLiteral>& v) {
    boost::json::array a;
    for (const auto& l : v) {
      boost::json::object x;
      x["attribute"] = l.id;
      x["value"] = l.value;
      x["text"] = l.text;
      a.push_back(std::move(x));
    }
    return a;
  };
  o["attributes"] = lits(literals);
  boost::json::array alt;
  for (const auto& a : alternatives) alt.push_back(lits(a));
  o["alternatives"] = std::move(alt);
  o["symptom"] = std::string(RowOf(symptom).key);
  o["sentence"] = sentence;
  auto names = [](const std::vector<std::string>& v) {
    boost::json::array a;
    for (const auto& s : v) a.emplace_back(s);
    return a;
  };
  o["failing"] = names(failing);
  o["passing"] = names(passing);
  o["not_measured"] = names(not_measured);
  return o;
}

Separation Bisect(const AttributeTable& t) {
  Separation s;
  std::vector<size_t> fail, pass;
  bool special = false;
  for (size_t i = 0; i < t.cases.size(); ++i) {
    const CaseFacts& c = t.cases[i];
    if (c.outcome == CaseOutcome::kFail) {
      fail.push_back(i);
      s.failing.push_back(c.name);
      special |= c.special_values;
    } else if (c.outcome == CaseOutcome::kPass) {
      pass.push_back(i);
      s.passing.push_back(c.name);
    } else {
      s.not_measured.push_back(c.name);
    }
  }
  if (fail.empty()) {
    s.kind = "none";
    s.sentence = "no case failed";
    return s;
  }
  const std::string nf = absl::StrCat(fail.size(), " failing ", CaseWord(fail.size()));
  if (pass.empty()) {
    if (fail.size() == 1) {
      s.kind = "single_case";
      s.symptom = special ? Symptom::kSpecialValues : Symptom::kEverywhere;
      s.sentence = absl::StrCat("only ", t.cases[fail[0]].name, " was measured and it fails",
                                s.not_measured.empty() ? "" : "; the other cases did not run");
    } else {
      s.kind = "all_fail";
      s.symptom = special ? Symptom::kSpecialValues : Symptom::kEverywhere;
      s.sentence = absl::StrCat("all ", fail.size(), " measured cases fail; no case attribute "
                                "separates them from a passing case");
    }
    return s;
  }
  // Literal (attribute a, value v) holds for every failing case?
  auto holds_all_fail = [&](size_t a, bool v) {
    return std::all_of(fail.begin(), fail.end(), [&](size_t i) { return t.attributes[a].value[i] == v; });
  };
  auto separates = [&](const Cand& c) {
    return std::none_of(pass.begin(), pass.end(), [&](size_t i) {
      for (size_t k = 0; k < c.attrs.size(); ++k)
        if (t.attributes[c.attrs[k]].value[i] != c.values[k]) return false;
      return true;
    });
  };
  std::vector<std::pair<size_t, bool>> lits;
  for (size_t a = 0; a < t.attributes.size(); ++a)
    for (bool v : {true, false})
      if (holds_all_fail(a, v)) lits.push_back({a, v});
  std::sort(lits.begin(), lits.end(), [&](const auto& x, const auto& y) {
    return Rank(t, x.first, x.second) < Rank(t, y.first, y.second);
  });
  std::vector<Cand> found;
  for (const auto& [a, v] : lits) {
    Cand c{{a}, {v}};
    if (separates(c)) found.push_back(c);
  }
  if (found.empty()) {
    for (size_t i = 0; i < lits.size(); ++i)
      for (size_t j = i + 1; j < lits.size(); ++j) {
        if (lits[i].first == lits[j].first) continue;
        Cand c{{lits[i].first, lits[j].first}, {lits[i].second, lits[j].second}};
        if (separates(c)) found.push_back(c);
      }
  }
  // Narrowest sets first: the fewest §8 cases (measured or not) having all of the set.
  auto covers = [&](const Cand& c) {
    long n = 0;
    for (size_t i = 0; i < t.cases.size(); ++i) {
      bool all = true;
      for (size_t k = 0; k < c.attrs.size() && all; ++k) all = t.attributes[c.attrs[k]].value[i] == c.values[k];
      n += all;
    }
    return n;
  };
  // At equal coverage a set of structural attributes (tails, tiles, cores) before one with a
  // size threshold (a cut between the §8 shapes, not a property of the kernel).
  auto thresholds = [&](const Cand& c) {
    long n = 0;
    for (size_t a : c.attrs) n += t.attributes[a].kind == "size";
    return n;
  };
  std::stable_sort(found.begin(), found.end(), [&](const Cand& x, const Cand& y) {
    return std::make_pair(covers(x), thresholds(x)) < std::make_pair(covers(y), thresholds(y));
  });
  auto to_lits = [&](const Cand& c) {
    std::vector<AttributeLiteral> out;
    for (size_t k = 0; k < c.attrs.size(); ++k) {
      const Attribute& a = t.attributes[c.attrs[k]];
      out.push_back({a.id, c.values[k], c.values[k] ? a.text_true : a.text_false});
    }
    return out;
  };
  if (found.empty()) {
    s.kind = "inseparable";
    s.symptom = special ? Symptom::kSpecialValues : Symptom::kEverywhere;
    s.sentence = absl::StrCat(nf, " and ", pass.size(), " passing ", CaseWord(pass.size()),
                              ": no set of one or two case attributes separates them");
    return s;
  }
  s.kind = "separated";
  s.literals = to_lits(found.front());
  for (size_t i = 1; i < found.size() && i <= 12; ++i) s.alternatives.push_back(to_lits(found[i]));
  // The symptom: a positive literal's row (first by review order); a separation only by
  // negated attributes ("the aligned cases fail") points to the top of the review order.
  const Cand& best = found.front();
  s.symptom = Symptom::kEverywhere;
  for (size_t k = 0; k < best.attrs.size(); ++k)
    if (best.values[k]) {
      s.symptom = t.attributes[best.attrs[k]].symptom;
      break;
    }
  if (special) s.symptom = Symptom::kSpecialValues;
  std::vector<std::string> texts;
  for (const auto& l : s.literals) texts.push_back(l.text);
  const std::string all = fail.size() == 1 ? "the 1 failing case has" : absl::StrCat("all ", nf, " have");
  s.sentence = absl::StrCat(all, " ", absl::StrJoin(texts, " and "), "; no passing case ",
                            texts.size() == 1 ? "does" : "has both");
  return s;
}

}  // namespace opdev::triage
