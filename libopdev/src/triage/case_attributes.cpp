// Case attributes from shapes and DESIGN constants (see case_attributes.h).
#include "opdev/triage/case_attributes.h"

#include "opdev/support/dtype.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <set>

namespace opdev::triage {
namespace {

constexpr std::int64_t kVRegBytes = 256;  // VF register width on A5/A3

std::int64_t CeilDiv(std::int64_t a, std::int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }

std::string ConstantNamed(const std::vector<contract::Constant>& cs, std::int64_t v,
                          const std::string& prefer_token) {
  std::string first;
  for (const auto& c : cs) {
    if (!c.value || *c.value != v) continue;
    if (!prefer_token.empty() && c.name.find(prefer_token) != std::string::npos) return c.name;
    if (first.empty()) first = c.name;
  }
  return first;
}

}  // namespace

std::string ShapeFacts::Symbol(size_t axis) const {
  return axis < symbols.size() && !symbols[axis].empty() ? symbols[axis] : absl::StrCat("d", axis);
}

boost::json::object ShapeFacts::ToJson() const {
  boost::json::object o;
  boost::json::array s;
  for (const auto& x : symbols) s.emplace_back(x);
  o["symbols"] = std::move(s);
  auto named = [](std::int64_t v, const std::string& n) {
    boost::json::object x;
    x["value"] = v;
    x["constant"] = n;
    return x;
  };
  o["tile_rows"] = named(tile_rows, tile_rows_name);
  o["tile_cols"] = named(tile_cols, tile_cols_name);
  o["register_lanes"] = named(lanes, lanes_name);
  o["cores"] = cores;
  o["dtype"] = dtype;
  boost::json::object r;
  for (const auto& [k, v] : ranges) r[k] = boost::json::array{v.first, v.second};
  o["ranges"] = std::move(r);
  if (value_range) o["value_range"] = boost::json::array{value_range->first, value_range->second};
  return o;
}

ShapeFacts DeriveShapeFacts(const contract::DesignDoc& design,
                            const std::vector<std::string>& symbols, const std::string& dtype,
                            std::int64_t cores) {
  ShapeFacts f;
  f.symbols = symbols;
  f.dtype = dtype;
  f.cores = cores;
  const auto constants = design.Constants();
  for (const auto& t : design.Tiles()) {
    if (t.space && *t.space != MemSpace::kVec) continue;
    if (t.shape.size() < 2) continue;
    f.tile_rows = t.shape[t.shape.size() - 2];
    f.tile_cols = t.shape.back();
    break;
  }
  if (f.tile_rows > 0) f.tile_rows_name = ConstantNamed(constants, f.tile_rows, "ROW");
  if (f.tile_cols > 0) f.tile_cols_name = ConstantNamed(constants, f.tile_cols, "");
  if (auto dt = ParseDType(dtype)) {
    f.lanes = kVRegBytes / static_cast<std::int64_t>(DTypeSize(*dt));
    f.lanes_name = ConstantNamed(constants, f.lanes, "LANE");
  }
  return f;
}

boost::json::object CaseMeasure::ToJson() const {
  boost::json::object o;
  o["name"] = name;
  o["row_tiles"] = row_tiles;
  o["col_tiles"] = col_tiles;
  o["tiles"] = tiles;
  o["block_dim"] = block_dim;
  o["registers_per_row"] = registers;
  o["numel"] = numel;
  o["row_tail"] = row_tail;
  o["col_tail"] = col_tail;
  return o;
}

const char* CaseOutcomeName(CaseOutcome o) {
  switch (o) {
    case CaseOutcome::kPass: return "pass";
    case CaseOutcome::kFail: return "fail";
    case CaseOutcome::kNotMeasured: break;
  }
  return "not_measured";
}

boost::json::object AttributeTable::ToJson() const {
  boost::json::object o;
  boost::json::array ms;
  for (size_t i = 0; i < measures.size(); ++i) {
    boost::json::object m = measures[i].ToJson();
    if (i < cases.size()) {
      m["outcome"] = CaseOutcomeName(cases[i].outcome);
      m["measured_by"] = cases[i].outcome == CaseOutcome::kNotMeasured ? "" : cases[i].measured_by;
      m["rerun"] = cases[i].rerun ? boost::json::value(CaseOutcomeName(*cases[i].rerun)) : boost::json::value(nullptr);
    }
    ms.push_back(std::move(m));
  }
  o["cases"] = std::move(ms);
  boost::json::array as;
  for (const auto& a : attributes) {
    boost::json::object x;
    x["id"] = a.id;
    x["kind"] = a.kind;
    x["text"] = a.text_true;
    x["symptom"] = std::string(RowOf(a.symptom).key);
    boost::json::array yes;
    for (size_t i = 0; i < a.value.size() && i < cases.size(); ++i)
      if (a.value[i]) yes.emplace_back(cases[i].name);
    x["true_for"] = std::move(yes);
    as.push_back(std::move(x));
  }
  o["attributes"] = std::move(as);
  return o;
}

AttributeTable DeriveAttributes(const std::vector<CaseFacts>& cases, const ShapeFacts& facts) {
  AttributeTable t;
  t.cases = cases;
  const size_t n = cases.size();
  // Rows are the second-to-last axis, columns the last (leading axes fold into rows).
  auto rows_of = [](const CaseFacts& c) -> std::int64_t {
    if (c.shape.size() < 2) return 1;
    std::int64_t r = 1;
    for (size_t i = 0; i + 1 < c.shape.size(); ++i) r *= c.shape[i];
    return r;
  };
  auto cols_of = [](const CaseFacts& c) -> std::int64_t { return c.shape.empty() ? 0 : c.shape.back(); };
  const size_t last = cases.empty() || cases.front().shape.empty() ? 1 : cases.front().shape.size() - 1;
  const std::string row_sym = last >= 1 ? facts.Symbol(last - 1) : "rows";
  const std::string col_sym = facts.Symbol(last);
  for (const auto& c : cases) {
    CaseMeasure m;
    m.name = c.name;
    const std::int64_t r = rows_of(c), k = cols_of(c);
    m.numel = r * k;
    m.row_tiles = facts.tile_rows > 0 ? CeilDiv(r, facts.tile_rows) : 0;
    m.col_tiles = facts.tile_cols > 0 ? CeilDiv(k, facts.tile_cols) : 0;
    m.tiles = m.row_tiles * std::max<std::int64_t>(m.col_tiles, 1);
    m.block_dim = facts.cores > 0 && m.tiles > 0 ? std::min(facts.cores, m.tiles) : 0;
    m.registers = facts.lanes > 0 ? CeilDiv(k, facts.lanes) : 0;
    m.row_tail = facts.tile_rows > 0 ? r % facts.tile_rows : 0;
    m.col_tail = facts.lanes > 0 ? k % facts.lanes : 0;
    t.measures.push_back(m);
  }
  auto add = [&](std::string id, std::string kind, std::string yes, std::string no, Symptom s,
                 auto pred) {
    Attribute a{std::move(id), std::move(kind), std::move(yes), std::move(no), s, {}};
    for (size_t i = 0; i < n; ++i) a.value.push_back(pred(i));
    t.attributes.push_back(std::move(a));
  };
  const std::string rows_name = facts.tile_rows_name.empty() ? "" : " (" + facts.tile_rows_name + ")";
  const std::string lanes_name = facts.lanes_name.empty() ? "" : " (" + facts.lanes_name + ")";
  if (facts.tile_rows > 0)
    add("row_tail", "row_tail", absl::StrCat(row_sym, " % ", facts.tile_rows, rows_name, " ≠ 0"),
        absl::StrCat(row_sym, " % ", facts.tile_rows, " = 0"), Symptom::kTailsOnly,
        [&](size_t i) { return t.measures[i].row_tail != 0; });
  if (facts.lanes > 0)
    add("col_tail", "col_tail", absl::StrCat(col_sym, " % ", facts.lanes, lanes_name, " ≠ 0"),
        absl::StrCat(col_sym, " % ", facts.lanes, " = 0"), Symptom::kTailsOnly,
        [&](size_t i) { return t.measures[i].col_tail != 0; });
  if (facts.tile_cols > 0 && facts.tile_cols != facts.lanes)
    add("col_tile_tail", "col_tail",
        absl::StrCat(col_sym, " % ", facts.tile_cols,
                     facts.tile_cols_name.empty() ? "" : " (" + facts.tile_cols_name + ")", " ≠ 0"),
        absl::StrCat(col_sym, " % ", facts.tile_cols, " = 0"), Symptom::kTailsOnly,
        [&](size_t i) { return cols_of(cases[i]) % facts.tile_cols != 0; });
  if (facts.tile_rows > 0)
    add("multi_tile", "multi_tile", "more than one tile", "a single tile", Symptom::kLargeOnly,
        [&](size_t i) { return t.measures[i].tiles > 1; });
  if (facts.cores > 0 && facts.tile_rows > 0)
    add("multi_core", "multi_core", "block_dim > 1 (several cores)", "block_dim = 1",
        Symptom::kCores, [&](size_t i) { return t.measures[i].block_dim > 1; });
  if (facts.lanes > 0)
    add("multi_register", "registers", "more than one register per row",
        "one register per row", Symptom::kLargeOnly,
        [&](size_t i) { return t.measures[i].registers > 1; });
  // Size classes: thresholds at each distinct value above the smallest.
  auto thresholds = [&](const std::string& what, const std::string& kind, auto value) {
    std::set<std::int64_t> vals;
    for (size_t i = 0; i < n; ++i) vals.insert(value(i));
    if (vals.size() < 2) return;
    for (auto it = std::next(vals.begin()); it != vals.end(); ++it) {
      const std::int64_t v = *it;
      add(absl::StrCat(what, ">=", v), kind, absl::StrCat(what, " ≥ ", v), absl::StrCat(what, " < ", v),
          Symptom::kLargeOnly, [&, v](size_t i) { return value(i) >= v; });
    }
  };
  thresholds(row_sym, "size", [&](size_t i) { return rows_of(cases[i]); });
  thresholds(col_sym, "size", [&](size_t i) { return cols_of(cases[i]); });
  thresholds("numel", "size", [&](size_t i) { return t.measures[i].numel; });
  if (facts.lanes > 0)
    thresholds("registers per row", "registers", [&](size_t i) { return t.measures[i].registers; });
  // dtype groups (only when the cases differ).
  std::set<std::string> dtypes;
  for (const auto& c : cases) dtypes.insert(c.dtype);
  if (dtypes.size() > 1)
    for (const auto& d : dtypes)
      add("dtype=" + d, "dtype", "dtype " + d, "dtype other than " + d, Symptom::kDtypeConfig,
          [&, d](size_t i) { return cases[i].dtype == d; });
  return t;
}

}  // namespace opdev::triage
