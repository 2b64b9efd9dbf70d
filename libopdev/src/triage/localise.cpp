// Mismatch localisation onto tiles, rows, registers, lanes and writing instructions.
#include "opdev/triage/localise.h"

#include "opdev/precision/compare.h"
#include "opdev/triage/code_context.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <boost/json/value_from.hpp>

#include <cmath>
#include <map>
#include <set>

namespace opdev::triage {
namespace {

std::vector<LaneRange> ToRanges(const std::set<int>& lanes) {
  std::vector<LaneRange> out;
  for (int l : lanes) {
    if (!out.empty() && out.back().hi + 1 == l) out.back().hi = l;
    else out.push_back({l, l});
  }
  return out;
}

boost::json::array RangesJson(const std::vector<LaneRange>& r) {
  boost::json::array a;
  for (const auto& x : r) a.push_back(boost::json::array{x.lo, x.hi});
  return a;
}

// The element rule of scheme A (precision-compare.md §"One tensor pair" 4–5).
struct ElementRule {
  std::optional<precision::Thresholds> th;
  bool Bad(double a, double g, bool* nan_mismatch) const {
    const bool na = std::isnan(a), ng = std::isnan(g);
    if (na || ng) {
      *nan_mismatch = na != ng;
      return na != ng;
    }
    *nan_mismatch = false;
    if (!th) return a != g;
    const bool ia = std::isinf(a), ig = std::isinf(g);
    if (ia && ig) return (a > 0) != (g > 0);
    if (ia) a = a > 0 ? th->finfo_max : -th->finfo_max;
    if (ig) g = g > 0 ? th->finfo_max : -th->finfo_max;
    return std::fabs(a - g) > th->atol + th->rtol * std::fabs(g);
  }
};

}  // namespace

std::string LaneRangesText(const std::vector<LaneRange>& r) {
  std::vector<std::string> parts;
  for (const auto& x : r) parts.push_back(x.lo == x.hi ? absl::StrCat(x.lo) : absl::StrCat(x.lo, "–", x.hi));
  return absl::StrJoin(parts, ", ");
}

boost::json::object Localisation::ToJson() const {
  boost::json::object o;
  o["case"] = case_name;
  o["shape"] = boost::json::value_from(shape);
  o["elements"] = elements;
  o["mismatched"] = mismatched;
  o["rows"] = rows;
  o["rows_bad"] = rows_bad;
  o["row_tiles"] = row_tiles;
  o["row_tiles_bad"] = boost::json::value_from(row_tiles_bad);
  o["registers_per_row"] = registers_per_row;
  o["registers_bad"] = boost::json::value_from(registers_bad);
  o["tail_register_bad"] = tail_register_bad;
  o["full_register_bad"] = full_register_bad;
  o["bad_lanes"] = RangesJson(bad_lanes);
  o["nan_mismatch"] = nan_mismatch;
  o["provenance"] = provenance;
  boost::json::array ws;
  for (const auto& w : writers) {
    boost::json::object x;
    x["writer_line"] = w.writer_line;
    x["store_line"] = w.store_line;
    x["active_lanes"] = w.active_lanes;
    x["full_register"] = w.full_register;
    x["registers"] = w.registers;
    x["registers_bad"] = w.registers_bad;
    x["elements"] = w.elements;
    x["mismatched"] = w.mismatched;
    x["bad_lanes"] = RangesJson(w.bad_lanes);
    x["same_lanes_everywhere"] = w.same_lanes_everywhere;
    x["where"] = w.where;
    ws.push_back(std::move(x));
  }
  o["writers"] = std::move(ws);
  o["sentence"] = sentence;
  return o;
}

Localisation Localise(const std::string& case_name, const precision::Tensor& actual,
                      const precision::Tensor& golden, const std::vector<sim::ElementOrigin>& origin,
                      const ShapeFacts& facts, const py::Module* kernel) {
  Localisation L;
  L.case_name = case_name;
  L.shape.assign(actual.shape().begin(), actual.shape().end());
  L.elements = actual.numel();
  if (actual.numel() != golden.numel() || actual.numel() == 0) {
    L.sentence = "the output and the golden differ in size: nothing to localise element by element";
    return L;
  }
  ElementRule rule{precision::ThresholdsFor(actual.dtype())};
  const std::int64_t cols = L.shape.empty() ? 1 : std::max<std::int64_t>(L.shape.back(), 1);
  L.rows = L.elements / cols;
  const std::int64_t lanes = facts.lanes > 0 ? facts.lanes : 0;
  L.registers_per_row = lanes > 0 ? (cols + lanes - 1) / lanes : 0;
  const bool has_tail_register = lanes > 0 && cols % lanes != 0;
  L.row_tiles = facts.tile_rows > 0 ? (L.rows + facts.tile_rows - 1) / facts.tile_rows : 0;
  L.provenance = origin.size() == static_cast<size_t>(L.elements);

  std::set<std::int64_t> rows_bad, tiles_bad, regs_bad;
  std::set<int> lanes_bad;
  struct G {
    WriterGroup w;
    std::set<std::int64_t> instances;                 // flat index of lane 0 of each store
    std::map<std::int64_t, std::set<int>> bad_by_instance;
    std::set<int> lanes;
  };
  std::map<std::pair<int, int>, G> groups;
  for (std::int64_t i = 0; i < L.elements; ++i) {
    bool nanm = false;
    const bool bad = rule.Bad(actual.GetDouble(i), golden.GetDouble(i), &nanm);
    const std::int64_t r = i / cols, c = i % cols;
    if (L.provenance) {
      const sim::ElementOrigin& e = origin[static_cast<size_t>(i)];
      G& g = groups[{e.writer_line, e.active_lanes}];
      g.w.writer_line = e.writer_line;
      g.w.store_line = e.store_line;
      g.w.active_lanes = e.active_lanes;
      ++g.w.elements;
      const std::int64_t inst = e.lane >= 0 ? i - e.lane : i;
      g.instances.insert(inst);
      if (bad) {
        ++g.w.mismatched;
        if (e.lane >= 0) {
          g.lanes.insert(e.lane);
          g.bad_by_instance[inst].insert(e.lane);
        } else {
          g.bad_by_instance[inst];
        }
      }
    }
    if (!bad) continue;
    ++L.mismatched;
    if (nanm) ++L.nan_mismatch;
    rows_bad.insert(r);
    if (facts.tile_rows > 0) tiles_bad.insert(r / facts.tile_rows);
    if (lanes > 0) {
      const std::int64_t reg = c / lanes;
      regs_bad.insert(reg);
      lanes_bad.insert(static_cast<int>(c % lanes));
      if (has_tail_register && reg == L.registers_per_row - 1) L.tail_register_bad = true;
      else L.full_register_bad = true;
    }
  }
  L.rows_bad = static_cast<std::int64_t>(rows_bad.size());
  L.row_tiles_bad.assign(tiles_bad.begin(), tiles_bad.end());
  L.registers_bad.assign(regs_bad.begin(), regs_bad.end());
  L.bad_lanes = ToRanges(lanes_bad);
  for (auto& [key, g] : groups) {
    g.w.registers = static_cast<std::int64_t>(g.instances.size());
    g.w.registers_bad = static_cast<std::int64_t>(g.bad_by_instance.size());
    g.w.bad_lanes = ToRanges(g.lanes);
    g.w.full_register = lanes > 0 && g.w.active_lanes == lanes;
    g.w.same_lanes_everywhere = !g.bad_by_instance.empty();
    for (const auto& [inst, ls] : g.bad_by_instance)
      if (ls != g.lanes) g.w.same_lanes_everywhere = false;
    if (kernel && g.w.writer_line > 0) g.w.where = DescribeLine(*kernel, g.w.writer_line).Describe();
    L.writers.push_back(g.w);
  }

  if (L.mismatched == 0) {
    L.sentence = absl::StrCat("no element of ", case_name, " misses the element rule (the case fails "
                              "on an aggregate metric only)");
    return L;
  }
  const std::string rows_text = L.rows_bad == L.rows ? "in every row"
                                                     : absl::StrCat("in ", L.rows_bad, " of ", L.rows, " rows");
  std::vector<std::string> parts;
  if (L.provenance) {
    for (const auto& w : L.writers) {
      if (w.mismatched == 0) continue;
      std::string which;
      if (w.active_lanes > 0) {
        const std::string kind = w.full_register ? "full register"
                                                 : absl::StrCat(w.active_lanes, "-lane register");
        const std::string many = w.registers_bad == w.registers ? absl::StrCat("every ", kind)
                                 : absl::StrCat(w.registers_bad, " of ", w.registers, " ", kind, "s");
        const bool all_lanes = w.bad_lanes.size() == 1 && w.bad_lanes[0].lo == 0 &&
                               w.bad_lanes[0].hi == w.active_lanes - 1;
        // The span of the wrong lanes; lanes inside it that happen to be within tolerance are
        // counted, not listed.
        int lo = w.bad_lanes.front().lo, hi = w.bad_lanes.back().hi, n = 0;
        for (const auto& r : w.bad_lanes) n += r.hi - r.lo + 1;
        const bool dense = n * 5 >= (hi - lo + 1) * 4;
        std::string lanes_text = dense && w.bad_lanes.size() > 1
                                     ? absl::StrCat(lo, "–", hi, " (", n, " of those ", hi - lo + 1,
                                                    " lanes out of tolerance)")
                                     : LaneRangesText(w.bad_lanes);
        if (dense && hi == w.active_lanes - 1 && lo > 0)
          lanes_text = absl::StrCat("≥ ", lo, w.bad_lanes.size() > 1 ? absl::StrCat(" (", n, " of ", hi - lo + 1, " out of tolerance)") : "");
        which = all_lanes ? absl::StrCat("all lanes of ", many)
                          : absl::StrCat("lanes ", lanes_text, " of ", many);
        absl::StrAppend(&which, " stored by line ", w.writer_line);
      } else {
        which = absl::StrCat(w.mismatched, " element(s) written by line ", w.writer_line);
      }
      if (!w.where.empty()) absl::StrAppend(&which, " (", w.where, ")");
      parts.push_back(which);
    }
    // Registers of the same store instruction that are right (e.g. the tail registers).
    std::vector<std::string> right;
    for (const auto& w : L.writers) {
      if (w.mismatched != 0 || w.active_lanes == 0) continue;
      bool same_line_bad = false;
      for (const auto& o : L.writers) same_line_bad |= o.writer_line == w.writer_line && o.mismatched > 0;
      if (same_line_bad)
        right.push_back(w.full_register ? "its full registers" : absl::StrCat("its ", w.active_lanes, "-lane registers"));
    }
    std::string s = absl::StrCat(L.mismatched, " of ", L.elements, " elements wrong ", rows_text, ": ",
                                 absl::StrJoin(parts, "; "));
    if (!right.empty()) absl::StrAppend(&s, "; ", absl::StrJoin(right, " and "), " are right");
    L.sentence = s;
  } else {
    std::string s = absl::StrCat(L.mismatched, " of ", L.elements, " elements wrong ", rows_text);
    if (lanes > 0) {
      const char* regs = L.full_register_bad && L.tail_register_bad ? "full and tail registers"
                         : L.tail_register_bad                       ? "only the tail register"
                                                                     : "only full registers";
      absl::StrAppend(&s, ", ", regs, " of each row, lanes ", LaneRangesText(L.bad_lanes));
    }
    L.sentence = s;
  }
  if (L.nan_mismatch > 0) absl::StrAppend(&L.sentence, " (", L.nan_mismatch, " NaN position mismatch(es))");
  return L;
}

}  // namespace opdev::triage
