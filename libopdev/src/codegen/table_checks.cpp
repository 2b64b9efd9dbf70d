// Kernel slots vs DESIGN §2/§3 tables.
#include "table_checks.h"

#include "opdev/budget/design_map.h"
#include "opdev/budget/kernel_budget.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <map>

namespace opdev::codegen {

budget::SlotModel ScopedDesignSlots(const GenContext& ctx) {
  budget::SlotModel design = budget::SlotsFromDesignMap(*ctx.design, ctx.target);
  if (!ctx.slot_scope) return design;
  std::vector<budget::Slot> kept;
  for (auto& s : design.slots)
    if (ctx.slot_scope->count(s.group.empty() ? s.name : s.group)) kept.push_back(std::move(s));
  design.slots = std::move(kept);
  return design;
}

budget::BudgetReport CheckSlotsAgainstTables(const py::Module& assembled, GenContext& ctx) {
  Diagnostics unresolved;
  budget::SlotModel kernel = budget::SlotsFromKernel(assembled, ctx.file(), ctx.target, &unresolved);
  for (const Diagnostic& u : unresolved.items())
    ctx.Violation("CODEGEN-SLOT-UNRESOLVED", u.line, "§1",
                  "a tile declaration cannot be resolved from the §2.1 constants: " + u.message,
                  u.evidence);

  budget::SlotModel design = ScopedDesignSlots(ctx);
  budget::CheckOptions copts;
  copts.category = std::string(category::kDesignViolation);
  copts.section = "§3";
  budget::BudgetReport report = budget::CheckBudget(design, copts);
  ctx.diags->Append(report.diagnostics);

  // §3 arithmetic.
  for (const auto& e : ctx.design->AddressMap()) {
    if (e.start && e.slot_bytes && e.end) {
      std::int64_t want = *e.start + *e.slot_bytes * e.slots.value_or(1);
      if (want != *e.end)
        ctx.Violation("CODEGEN-MAP-END", e.line, "§3",
                      absl::StrFormat("§3 row %s ends at %s but start + bytes x slots = %s",
                                      e.var, e.end_text, budget::HexAddress(want)));
    }
    if (!e.start || !e.slot_bytes)
      ctx.Violation("CODEGEN-MAP-ROW", e.line, "§3",
                    "§3 address-map row " + e.var + " has no integer start byte or slot bytes");
  }

  std::map<std::string, const budget::Slot*> by_name;
  for (const auto& s : kernel.slots) by_name[s.name] = &s;
  std::map<std::string, bool> matched;
  for (const budget::Slot& d : design.slots) {
    auto it = by_name.find(d.name);
    if (it == by_name.end()) {
      ctx.Violation("CODEGEN-SLOT-MISMATCH", d.line, "§3",
                    absl::StrFormat("§3 slot %s at %s is not declared by the §1 kernel code",
                                    d.name, budget::HexAddress(d.address)));
      continue;
    }
    matched[d.name] = true;
    const budget::Slot& k = *it->second;
    if (k.address != d.address)
      ctx.Violation("CODEGEN-ADDRESS-MISMATCH", k.line, "§1",
                    absl::StrFormat("%s starts at %s (%s) in the §1 code but at %s in the §3 "
                                    "address map (line %d)",
                                    d.name, budget::HexAddress(k.address), k.address_expr,
                                    budget::HexAddress(d.address), d.line));
    if (k.bytes != d.bytes || k.space != d.space)
      ctx.Violation("CODEGEN-SLOT-MISMATCH", k.line, "§1",
                    absl::StrFormat("%s is %d bytes in %s in the §1 code/§2 tile table but %d "
                                    "bytes in %s in the §3 address map (line %d)",
                                    d.name, k.bytes, std::string(MemSpaceName(k.space)), d.bytes,
                                    std::string(MemSpaceName(d.space)), d.line));
    if (!d.mutex_ids.empty() && k.mutex_ids != d.mutex_ids)
      ctx.Violation("CODEGEN-MUTEX-MISMATCH", k.line, "§1",
                    absl::StrFormat("%s uses mutex ids [%s] in the §1 code but [%s] in the §2 "
                                    "TileGroup table",
                                    d.name, absl::StrJoin(k.mutex_ids, ", "),
                                    absl::StrJoin(d.mutex_ids, ", ")));
  }
  for (const auto& k : kernel.slots)
    if (!matched.count(k.name))
      ctx.Violation("CODEGEN-SLOT-MISMATCH", k.line, "§1",
                    absl::StrFormat("%s at %s is declared by the §1 code but absent from the §3 "
                                    "address map",
                                    k.name, budget::HexAddress(k.address)));

  // Depth.
  std::map<std::string, int> slots_per_group;
  std::map<std::string, int> group_line;
  for (const auto& k : kernel.slots)
    if (!k.group.empty()) {
      ++slots_per_group[k.group];
      group_line[k.group] = k.line;
    }
  for (const auto& g : ctx.design->TileGroups()) {
    auto it = slots_per_group.find(g.name);
    if (it == slots_per_group.end()) continue;
    if (g.depth && *g.depth != it->second)
      ctx.Violation("CODEGEN-DEPTH-MISMATCH", group_line[g.name], "§1",
                    absl::StrFormat("%s has %d slot(s) in the §1 code but depth %d in the §2 "
                                    "TileGroup table (line %d)",
                                    g.name, it->second, *g.depth, g.line));
  }
  return report;
}

}  // namespace opdev::codegen
