// The Cube matmul tiling of a slot model and its spec §9 footprint (see matmul_budget.h).
#include "opdev/budget/matmul_budget.h"

#include "absl/strings/str_format.h"

#include <map>

namespace opdev::budget {
namespace {

struct GroupInfo {
  std::string name;
  const Slot* first = nullptr;
  std::int64_t slots = 0;
};

Diagnostic Finding(std::string code, Severity sev, std::string_view category,
                   std::string_view section, const std::string& file, int line,
                   std::string message) {
  Diagnostic d;
  d.code = std::move(code);
  d.severity = sev;
  d.category = std::string(category);
  d.file = file;
  d.line = line;
  d.section = std::string(section);
  d.message = std::move(message);
  return d;
}

std::uint64_t U(std::int64_t v) { return static_cast<std::uint64_t>(v); }

}  // namespace

std::optional<MatmulBudget> MatmulBudgetOf(const SlotModel& model, std::string_view category,
                                           std::string_view section) {
  std::map<MemSpace, std::vector<GroupInfo>> by_space;
  std::map<std::string, size_t> index;  // group key -> position in its space's list
  for (const Slot& s : model.slots) {
    if (s.space == MemSpace::kVec || s.space == MemSpace::kGM) continue;
    const std::string key = s.group.empty() ? s.name : s.group;
    auto& list = by_space[s.space];
    auto it = index.find(key);
    if (it == index.end()) {
      index[key] = list.size();
      list.push_back({key, &s, 1});
    } else {
      ++list[it->second].slots;
    }
  }
  auto count = [&](MemSpace sp) { return by_space.count(sp) ? by_space[sp].size() : 0; };
  if (count(MemSpace::kMat) != 2 || count(MemSpace::kLeft) != 1 ||
      count(MemSpace::kRight) != 1 || count(MemSpace::kAcc) != 1)
    return std::nullopt;
  MatmulBudget b;
  const GroupInfo& left = by_space[MemSpace::kLeft][0];
  const GroupInfo& right = by_space[MemSpace::kRight][0];
  const GroupInfo& acc = by_space[MemSpace::kAcc][0];
  auto shape_ok = [](const GroupInfo& g) { return g.first->shape.size() == 2 && g.first->dtype; };
  const int line = acc.first->line;
  const GroupInfo* all[] = {&left, &right, &acc, &by_space[MemSpace::kMat][0],
                            &by_space[MemSpace::kMat][1]};
  for (const GroupInfo* g : all)
    if (!shape_ok(*g)) return std::nullopt;
  MatmulTiling& t = b.tiling;
  t.tm = left.first->shape[0];
  t.tk0 = left.first->shape[1];
  t.tn = right.first->shape[1];
  // A has TM rows, B has TN columns; when both Mat tiles fit either role, declaration order.
  const GroupInfo& g0 = by_space[MemSpace::kMat][0];
  const GroupInfo& g1 = by_space[MemSpace::kMat][1];
  auto can_a = [&](const GroupInfo& g) { return g.first->shape[0] == t.tm; };
  auto can_b = [&](const GroupInfo& g) { return g.first->shape[1] == t.tn; };
  const GroupInfo *a = nullptr, *bb = nullptr;
  if (can_a(g0) && can_b(g1)) {
    a = &g0;
    bb = &g1;
  } else if (can_a(g1) && can_b(g0)) {
    a = &g1;
    bb = &g0;
  }
  std::string why;
  if (!a || !bb) why = "the Mat tiles are not A [TM, TK1] and B [TK1, TN]";
  else if (a->first->shape[1] != bb->first->shape[0]) why = "A's K width differs from B's";
  else if (right.first->shape[0] != t.tk0) why = "Left's K width differs from Right's";
  else if (acc.first->shape[0] != t.tm || acc.first->shape[1] != t.tn)
    why = "the Acc tile is not [TM, TN]";
  else if (a->first->shape[1] % t.tk0 != 0) why = "TK1 is not a multiple of TK0";
  else if (*left.first->dtype != *right.first->dtype || *a->first->dtype != *left.first->dtype ||
           *bb->first->dtype != *left.first->dtype)
    why = "the operand tiles do not share one dtype";
  if (!why.empty()) {
    b.diagnostics.Add(Finding(
        "BUDGET-MATMUL-SHAPES", Severity::kError, category, section, model.file, line,
        absl::StrFormat("the Cube tiles do not form a (TM, TK1, TK0, TN) matmul tiling: %s "
                        "(Left %s [%d, %d], Right %s, Acc %s)",
                        why, left.name, t.tm, t.tk0, right.name, acc.name)));
    return b;
  }
  t.tk1 = a->first->shape[1];
  t.depth_a = a->slots;
  t.depth_b = bb->slots;
  t.depth_left = left.slots;
  t.depth_right = right.slots;
  t.depth_acc = acc.slots;
  t.operand = *left.first->dtype;
  t.accumulator = *acc.first->dtype;
  t.a_group = a->name;
  t.b_group = bb->name;
  t.left_group = left.name;
  t.right_group = right.name;
  t.acc_group = acc.name;
  const std::uint64_t ob = DTypeSize(t.operand), ab = DTypeSize(t.accumulator);
  if (t.depth_a != t.depth_b)
    b.diagnostics.Add(Finding("BUDGET-MATMUL-DEPTH", Severity::kWarning, category, section,
                              model.file, a->first->line,
                              absl::StrFormat("A and B have different L1 depths (%d, %d): "
                                              "depth_l1 is evaluated per operand",
                                              t.depth_a, t.depth_b)));
  if (t.depth_left != t.depth_right)
    b.diagnostics.Add(Finding("BUDGET-MATMUL-DEPTH", Severity::kWarning, category, section,
                              model.file, left.first->line,
                              absl::StrFormat("Left and Right have different L0 depths (%d, %d): "
                                              "depth_l0 is evaluated per operand",
                                              t.depth_left, t.depth_right)));
  b.formula.l1 = (U(t.depth_a) * U(t.tm * t.tk1) + U(t.depth_b) * U(t.tk1 * t.tn)) * ob;
  b.formula.l0a = U(t.depth_left) * U(t.tm * t.tk0) * ob;
  b.formula.l0b = U(t.depth_right) * U(t.tk0 * t.tn) * ob;
  b.formula.l0c = U(t.depth_acc) * U(t.tm * t.tn) * ab;
  const std::pair<MemSpace, std::uint64_t> per[] = {{MemSpace::kMat, b.formula.l1},
                                                    {MemSpace::kLeft, b.formula.l0a},
                                                    {MemSpace::kRight, b.formula.l0b},
                                                    {MemSpace::kAcc, b.formula.l0c}};
  for (const auto& [space, bytes] : per) {
    const MemSpaceInfo* info = FindSpace(model.target, space);
    if (info && bytes > info->capacity)
      b.diagnostics.Add(Finding(
          "BUDGET-MATMUL-CAPACITY", Severity::kError, category, section, model.file, line,
          absl::StrFormat("the matmul tiling needs %d B of %s (%s) but %s has %d B: "
                          "(TM, TK1, TK0, TN) = (%d, %d, %d, %d)",
                          bytes, std::string(info->hardware), std::string(info->name),
                          std::string(TargetName(model.target)), info->capacity, t.tm, t.tk1,
                          t.tk0, t.tn)));
    std::uint64_t held = 0;
    for (const Slot& s : model.slots)
      if (s.space == space) held += s.bytes;
    if (held != bytes)
      b.diagnostics.Add(Finding(
          "BUDGET-MATMUL-FORMULA", Severity::kNote, category, section, model.file, line,
          absl::StrFormat("%s holds %d B of slots, the matmul formula accounts for %d B (other "
                          "tiles share the space)",
                          std::string(MemSpaceName(space)), held, bytes)));
  }
  if (U(t.tm * t.tn) * ab < 1024)
    b.diagnostics.Add(Finding(
        "BUDGET-ACC-FRACTAL", Severity::kError, category, section, model.file, acc.first->line,
        absl::StrFormat("the Acc tile %s [%d, %d] of %s is %d B, below one 1024-byte L0C fractal",
                        acc.name, t.tm, t.tn, std::string(DTypeName(t.accumulator)),
                        U(t.tm * t.tn) * ab)));
  return b;
}

Diagnostics CompareMatmulTilings(const MatmulBudget& k, const MatmulBudget& d,
                                 const std::string& kernel_file, std::string_view category) {
  Diagnostics out;
  const MatmulTiling &a = k.tiling, &b = d.tiling;
  auto text = [](const MatmulTiling& t) {
    return absl::StrFormat("(TM, TK1, TK0, TN) = (%d, %d, %d, %d), depths L1 %d/%d, L0 %d/%d",
                           t.tm, t.tk1, t.tk0, t.tn, t.depth_a, t.depth_b, t.depth_left,
                           t.depth_right);
  };
  if (text(a) != text(b) || a.operand != b.operand || a.accumulator != b.accumulator)
    out.Add(Finding("BUDGET-MATMUL-MISMATCH", Severity::kError, category, "§3", kernel_file, 0,
                    "the kernel's matmul tiling " + text(a) + " differs from DESIGN §3's " +
                        text(b)));
  return out;
}

boost::json::object MatmulBudgetToJson(const MatmulBudget& b) {
  const MatmulTiling& t = b.tiling;
  boost::json::object o;
  o["tm"] = t.tm;
  o["tk1"] = t.tk1;
  o["tk0"] = t.tk0;
  o["tn"] = t.tn;
  boost::json::object depth;
  depth["a"] = t.depth_a;
  depth["b"] = t.depth_b;
  depth["left"] = t.depth_left;
  depth["right"] = t.depth_right;
  depth["acc"] = t.depth_acc;
  o["depth"] = depth;
  o["operand_dtype"] = std::string(DTypeName(t.operand));
  o["accumulator_dtype"] = std::string(DTypeName(t.accumulator));
  boost::json::object f;
  f["l1"] = b.formula.l1;
  f["l0a"] = b.formula.l0a;
  f["l0b"] = b.formula.l0b;
  f["l0c"] = b.formula.l0c;
  o["formula"] = f;
  return o;
}

std::string MatmulBudgetToText(const MatmulBudget& b) {
  const MatmulTiling& t = b.tiling;
  const std::uint64_t ob = DTypeSize(t.operand), ab = DTypeSize(t.accumulator);
  return absl::StrFormat(
      "  matmul tiling (TM, TK1, TK0, TN) = (%d, %d, %d, %d), %s operands, %s accumulator\n"
      "    L1  = %d·%d·%d·%d + %d·%d·%d·%d = %d B\n"
      "    L0A = %d·%d·%d·%d = %d B\n"
      "    L0B = %d·%d·%d·%d = %d B\n"
      "    L0C = %d·%d·%d·%d = %d B\n",
      t.tm, t.tk1, t.tk0, t.tn, std::string(DTypeName(t.operand)),
      std::string(DTypeName(t.accumulator)), t.depth_a, t.tm, t.tk1, ob, t.depth_b, t.tk1, t.tn,
      ob, b.formula.l1, t.depth_left, t.tm, t.tk0, ob, b.formula.l0a, t.depth_right, t.tk0, t.tn,
      ob, b.formula.l0b, t.depth_acc, t.tm, t.tn, ab, b.formula.l0c);
}

}  // namespace opdev::budget
