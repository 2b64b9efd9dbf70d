// DESIGN §3 address map → slot model, and the kernel-vs-map comparison.
#include "opdev/budget/design_map.h"

#include "opdev/budget/budget_check.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <map>

namespace opdev::budget {
namespace {

// "in_group[1]" -> 1; -1 when the name has no trailing index.
int TrailingIndex(const std::string& var) {
  auto open = var.rfind('[');
  if (open == std::string::npos || var.back() != ']') return -1;
  std::string digits = var.substr(open + 1, var.size() - open - 2);
  if (digits.empty() || digits.size() > 6) return -1;
  for (char c : digits)
    if (c < '0' || c > '9') return -1;
  return std::stoi(digits);
}

std::string Ids(const std::vector<int>& ids) {
  return "[" + absl::StrJoin(ids, ", ") + "]";
}

}  // namespace

SlotModel SlotsFromDesignMap(const contract::DesignDoc& design, Target target) {
  SlotModel m;
  m.target = target;
  m.file = design.path;
  std::map<std::string, contract::TileGroupSlots> groups;
  for (auto& g : design.TileGroups()) groups[g.name] = g;

  for (const contract::AddressEntry& e : design.AddressMap()) {
    if (!e.start || !e.slot_bytes) continue;
    const int index = TrailingIndex(e.var);
    const std::int64_t count = index >= 0 ? 1 : e.slots.value_or(1);
    for (std::int64_t i = 0; i < count; ++i) {
      Slot s;
      s.group = e.group;
      s.index = index >= 0 ? index : static_cast<int>(i);
      if (index >= 0)
        s.name = e.var;
      else if (count > 1 || groups.count(e.group))
        s.name = absl::StrFormat("%s[%d]", e.group, i);
      else
        s.name = e.var;
      if (index < 0 && count == 1 && !groups.count(e.group)) s.group.clear();
      s.space = e.space.value_or(MemSpace::kVec);
      s.address = static_cast<std::uint64_t>(*e.start + i * *e.slot_bytes);
      s.bytes = static_cast<std::uint64_t>(*e.slot_bytes);
      s.shape = e.shape;
      s.dtype = e.dtype;
      s.address_expr = e.start_text;
      s.line = e.line;
      auto g = groups.find(e.group);
      if (g != groups.end() && g->second.depth && *g->second.depth > 0) {
        const auto& ids = g->second.mutex_ids;
        const std::int64_t depth = *g->second.depth;
        if (!ids.empty() && static_cast<std::int64_t>(ids.size()) % depth == 0) {
          const std::int64_t per = static_cast<std::int64_t>(ids.size()) / depth;
          for (std::int64_t k = 0; k < per; ++k) {
            size_t at = static_cast<size_t>(s.index * per + k);
            if (at < ids.size()) s.mutex_ids.push_back(static_cast<int>(ids[at]));
          }
        }
      }
      m.slots.push_back(std::move(s));
    }
  }
  return m;
}

Diagnostics CompareWithDesignMap(const SlotModel& kernel, const SlotModel& design,
                                 std::string_view category) {
  Diagnostics out;
  auto add = [&](const std::string& file, int line, std::string msg, std::string evidence) {
    Diagnostic d;
    d.code = "BUDGET-MAP-MISMATCH";
    d.severity = Severity::kError;
    d.category = std::string(category);
    d.file = file;
    d.line = line;
    d.section = "§3";
    d.message = std::move(msg);
    d.evidence = std::move(evidence);
    out.Add(std::move(d));
  };
  std::map<std::string, const Slot*> by_name;
  for (const Slot& s : kernel.slots) by_name[s.name] = &s;
  std::map<std::string, bool> seen;
  for (const Slot& d : design.slots) {
    auto it = by_name.find(d.name);
    if (it == by_name.end()) {
      add(design.file, d.line,
          absl::StrFormat("DESIGN §3 slot %s has no declaration in the kernel", d.name),
          absl::StrFormat("%s at %s", d.name, HexAddress(d.address)));
      continue;
    }
    seen[d.name] = true;
    const Slot& k = *it->second;
    std::vector<std::string> diffs;
    if (k.space != d.space)
      diffs.push_back(absl::StrFormat("space %s vs %s", std::string(MemSpaceName(k.space)),
                                      std::string(MemSpaceName(d.space))));
    if (k.address != d.address)
      diffs.push_back(absl::StrFormat("start %s (%s) vs %s", HexAddress(k.address),
                                      k.address_expr, HexAddress(d.address)));
    if (k.bytes != d.bytes)
      diffs.push_back(absl::StrFormat("bytes %d vs %d", k.bytes, d.bytes));
    if (!d.mutex_ids.empty() && k.mutex_ids != d.mutex_ids)
      diffs.push_back(absl::StrFormat("mutex ids %s vs %s", Ids(k.mutex_ids), Ids(d.mutex_ids)));
    if (!diffs.empty())
      add(kernel.file, k.line,
          absl::StrFormat("slot %s differs from DESIGN §3 (line %d): %s", d.name, d.line,
                          absl::StrJoin(diffs, "; ")),
          absl::StrJoin(diffs, "; "));
  }
  for (const Slot& k : kernel.slots)
    if (!seen.count(k.name))
      add(kernel.file, k.line,
          absl::StrFormat("kernel slot %s is not in the DESIGN §3 address map", k.name),
          absl::StrFormat("%s at %s", k.name, HexAddress(k.address)));
  return out;
}

}  // namespace opdev::budget
