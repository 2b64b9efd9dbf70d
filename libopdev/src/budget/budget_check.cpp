// Alignment, capacity, overlap/alias and mutex-id checks over an on-chip slot model.
#include "opdev/budget/budget_check.h"

#include "absl/strings/str_format.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace opdev::budget {
namespace {

Diagnostic Finding(const CheckOptions& o, const SlotModel& m, const Slot& s, std::string code,
                   Severity sev, std::string message, std::string evidence) {
  Diagnostic d;
  d.code = std::move(code);
  d.severity = sev;
  d.category = o.category;
  d.file = m.file;
  d.line = s.line;
  d.section = o.section;
  d.message = std::move(message);
  d.evidence = std::move(evidence);
  return d;
}

std::string Range(const Slot& s) {
  return absl::StrFormat("[%s, %s)", HexAddress(s.address), HexAddress(s.end()));
}

}  // namespace

std::string HexAddress(std::uint64_t v) { return absl::StrFormat("0x%05X", v); }

BudgetReport CheckBudget(const SlotModel& model, const CheckOptions& opts) {
  BudgetReport r;
  r.model = model;
  const auto& slots = model.slots;

  // Per-slot checks: known space, alignment, capacity.
  for (const Slot& s : slots) {
    const MemSpaceInfo* info = FindSpace(model.target, s.space);
    if (!info) {
      r.diagnostics.Add(Finding(opts, model, s, "BUDGET-SPACE", Severity::kError,
                                absl::StrFormat("slot %s is not in an on-chip memory of %s",
                                                s.name, std::string(TargetName(model.target))),
                                std::string(MemSpaceName(s.space))));
      continue;
    }
    if (s.bytes == 0) {
      r.diagnostics.Add(Finding(opts, model, s, "BUDGET-EMPTY-SLOT", Severity::kError,
                                absl::StrFormat("slot %s has zero bytes", s.name), s.name));
    }
    if (info->alignment && s.address % info->alignment != 0) {
      r.diagnostics.Add(Finding(
          opts, model, s, "BUDGET-ALIGN", Severity::kError,
          absl::StrFormat("slot %s starts at %s, not a multiple of the %s alignment of %d bytes",
                          s.name, HexAddress(s.address), std::string(info->name),
                          info->alignment),
          s.address_expr.empty() ? HexAddress(s.address) : s.address_expr));
    }
    if (s.end() > info->capacity) {
      r.diagnostics.Add(Finding(
          opts, model, s, "BUDGET-CAPACITY", Severity::kError,
          absl::StrFormat("slot %s %s ends past the %s capacity of %d bytes (%s) on %s", s.name,
                          Range(s), std::string(info->name), info->capacity,
                          HexAddress(info->capacity), std::string(TargetName(model.target))),
          absl::StrFormat("end=%d capacity=%d", s.end(), info->capacity)));
    }
  }

  // Overlap and aliasing of coexisting slots in the same space.
  for (size_t i = 0; i < slots.size(); ++i) {
    for (size_t j = i + 1; j < slots.size(); ++j) {
      const Slot& a = slots[i];
      const Slot& b = slots[j];
      if (a.space != b.space || a.bytes == 0 || b.bytes == 0) continue;
      bool intersect = a.address < b.end() && b.address < a.end();
      if (!intersect) continue;
      bool declared = a.alias_of == b.name || b.alias_of == a.name ||
                      (!a.alias_of.empty() && a.alias_of == b.alias_of);
      bool same_expr = !a.address_expr.empty() && a.address_expr == b.address_expr;
      if (a.address == b.address && (declared || same_expr)) {
        r.aliases.push_back({a.name, b.name, a.address,
                             declared ? "declared alias" : "same address expression " +
                                                               a.address_expr});
        continue;
      }
      if (a.address == b.address) {
        r.diagnostics.Add(Finding(
            opts, model, b, "BUDGET-UNDECLARED-ALIAS", Severity::kError,
            absl::StrFormat("slots %s and %s both start at %s but are not declared as aliases "
                            "(different address expressions)",
                            a.name, b.name, HexAddress(a.address)),
            absl::StrFormat("%s=%s, %s=%s", a.name, a.address_expr, b.name, b.address_expr)));
        continue;
      }
      r.diagnostics.Add(Finding(
          opts, model, b, "BUDGET-OVERLAP", Severity::kError,
          absl::StrFormat("slots %s %s and %s %s overlap in %s", a.name, Range(a), b.name,
                          Range(b), std::string(MemSpaceName(a.space))),
          absl::StrFormat("overlap [%s, %s)", HexAddress(std::max(a.address, b.address)),
                          HexAddress(std::min(a.end(), b.end())))));
    }
  }

  // Mutex ids: range [0,31], and unique across all slots of all groups.
  std::map<int, const Slot*> owner;
  for (const Slot& s : slots) {
    for (int id : s.mutex_ids) {
      if (id < 0 || id > 31) {
        r.diagnostics.Add(Finding(opts, model, s, "BUDGET-MUTEX-RANGE", Severity::kError,
                                  absl::StrFormat("slot %s uses mutex id %d outside [0, 31]",
                                                  s.name, id),
                                  std::to_string(id)));
        continue;
      }
      auto [it, inserted] = owner.emplace(id, &s);
      if (!inserted && it->second != &s) {
        bool alias = false;
        for (const auto& al : r.aliases)
          if ((al.a == it->second->name && al.b == s.name) ||
              (al.b == it->second->name && al.a == s.name))
            alias = true;
        if (!alias)
          r.diagnostics.Add(Finding(
              opts, model, s, "BUDGET-MUTEX-DUP", Severity::kError,
              absl::StrFormat("mutex id %d is used by both %s and %s", id, it->second->name,
                              s.name),
              std::to_string(id)));
      }
    }
  }

  // Per-space usage.
  for (const MemSpaceInfo& info : OnChipSpaces(model.target)) {
    SpaceUsage u;
    u.space = info.space;
    u.capacity = info.capacity;
    u.alignment = info.alignment;
    std::set<std::pair<std::uint64_t, std::uint64_t>> counted;
    for (const Slot& s : slots) {
      if (s.space != info.space) continue;
      ++u.slot_count;
      u.high_water = std::max(u.high_water, s.end());
      if (counted.insert({s.address, s.bytes}).second) u.slot_bytes += s.bytes;
    }
    if (u.slot_count > 0) r.spaces.push_back(u);
  }

  // Cube matmul tiling and its spec §9 footprint.
  r.matmul = MatmulBudgetOf(model, opts.category, opts.section);
  if (r.matmul) r.diagnostics.Append(r.matmul->diagnostics);
  return r;
}

boost::json::object BudgetReportToJson(const BudgetReport& r) {
  boost::json::object o;
  o["target"] = std::string(TargetName(r.model.target));
  o["file"] = r.model.file;
  o["ok"] = r.ok();
  boost::json::array slots;
  for (const Slot& s : r.model.slots) {
    boost::json::object j;
    j["name"] = s.name;
    j["group"] = s.group;
    j["index"] = s.index;
    j["space"] = std::string(MemSpaceName(s.space));
    j["start"] = s.address;
    j["end"] = s.end();
    j["start_hex"] = HexAddress(s.address);
    j["end_hex"] = HexAddress(s.end());
    j["bytes"] = s.bytes;
    boost::json::array ids;
    for (int id : s.mutex_ids) ids.push_back(id);
    j["mutex_ids"] = ids;
    boost::json::array shape;
    for (auto d : s.shape) shape.push_back(d);
    j["shape"] = shape;
    j["dtype"] = s.dtype ? std::string(DTypeName(*s.dtype)) : std::string();
    j["address_expr"] = s.address_expr;
    j["line"] = s.line;
    slots.push_back(j);
  }
  o["slots"] = slots;
  boost::json::array spaces;
  for (const SpaceUsage& u : r.spaces) {
    boost::json::object j;
    j["space"] = std::string(MemSpaceName(u.space));
    j["capacity"] = u.capacity;
    j["alignment"] = u.alignment;
    j["high_water"] = u.high_water;
    j["high_water_hex"] = HexAddress(u.high_water);
    j["slot_bytes"] = u.slot_bytes;
    j["slots"] = u.slot_count;
    j["percent"] = std::round(u.percent() * 10.0) / 10.0;
    spaces.push_back(j);
  }
  o["spaces"] = spaces;
  boost::json::array aliases;
  for (const AliasPair& a : r.aliases) {
    boost::json::object j;
    j["a"] = a.a;
    j["b"] = a.b;
    j["address"] = a.address;
    j["reason"] = a.reason;
    aliases.push_back(j);
  }
  o["aliases"] = aliases;
  o["matmul"] = r.matmul ? boost::json::value(MatmulBudgetToJson(*r.matmul)) : nullptr;
  o["diagnostics"] = r.diagnostics.ToJson();
  return o;
}

std::string BudgetReportToText(const BudgetReport& r) {
  std::string out = absl::StrFormat("on-chip budget (%s)%s\n", std::string(TargetName(r.model.target)),
                                    r.model.file.empty() ? "" : " of " + r.model.file);
  for (const Slot& s : r.model.slots) {
    std::string ids;
    for (int id : s.mutex_ids) ids += (ids.empty() ? "" : ",") + std::to_string(id);
    out += absl::StrFormat("  %-4s %-16s [%s, %s) %8d B  mutex [%s]\n",
                           std::string(MemSpaceName(s.space)), s.name, HexAddress(s.address),
                           HexAddress(s.end()), s.bytes, ids);
  }
  for (const AliasPair& a : r.aliases)
    out += absl::StrFormat("  alias %s = %s at %s (%s)\n", a.a, a.b, HexAddress(a.address),
                           a.reason);
  for (const SpaceUsage& u : r.spaces)
    out += absl::StrFormat("  %s: high-water %s (%d B) of %d B = %.1f%%\n",
                           std::string(MemSpaceName(u.space)), HexAddress(u.high_water),
                           u.high_water, u.capacity, u.percent());
  if (r.matmul) out += MatmulBudgetToText(*r.matmul);
  return out;
}

}  // namespace opdev::budget
