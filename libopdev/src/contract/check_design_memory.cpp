// §2/§3 memory rules: half-open address ranges, per-space alignment, no overlap between
// coexisting tiles, high-water within the target's capacity, slot bytes = shape × dtype size
// agreeing between the §2 Tile table and the §3 map, TileGroup depth vs §3 slots, mutex ids
// in [0,31] and unique, event ids in [0,16).
#include "contract/checks.h"
#include "contract/text_util.h"

#include <map>
#include <set>

namespace opdev::contract {

namespace {

std::string Hex(std::int64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%05llX", static_cast<unsigned long long>(v));
  return buf;
}

std::optional<std::int64_t> Bytes(const std::vector<std::int64_t>& shape, std::optional<DType> t) {
  if (shape.empty() || !t) return std::nullopt;
  std::int64_t n = static_cast<std::int64_t>(DTypeSize(*t));
  for (auto s : shape)
    if (__builtin_mul_overflow(n, s, &n)) return std::nullopt;
  return n;
}

std::string ShapeText(const std::vector<std::int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

bool Temporary(const AddressEntry& e) { return Contains(e.lifetime, "临时"); }

void CheckAddressMap(const DesignDoc& d, Target target, Diagnostics* diags) {
  auto map = d.AddressMap();
  std::map<MemSpace, std::vector<const AddressEntry*>> by_space;
  for (const auto& e : map) {
    std::string ev = e.var + " " + e.start_text + " + " + e.slot_bytes_text + " × " +
                     e.slots_text + " -> " + e.end_text;
    if (!e.space || !e.start || !e.slot_bytes || !e.slots || !e.end) {
      AddError(diags, "DESIGN-ADDR-UNPARSABLE", category::kDesignViolation, d.path, e.line, "§3",
               "address map row needs a memory space (Vec/Mat/Left/Right/Acc) and integer "
               "起始字节, 每槽字节数, 槽位数 and 结束字节",
               e.space_text + " | " + ev);
      continue;
    }
    std::int64_t span = 0, want_end = 0;
    bool overflow = __builtin_mul_overflow(*e.slot_bytes, *e.slots, &span) ||
                    __builtin_add_overflow(*e.start, span, &want_end);
    if (overflow || *e.start < 0 || *e.slot_bytes < 0 || *e.slots < 0) {
      AddError(diags, "DESIGN-ADDR-UNPARSABLE", category::kDesignViolation, d.path, e.line, "§3",
               "address map row has negative or out-of-range numbers", e.space_text + " | " + ev);
      continue;
    }
    if (*e.end != want_end)
      AddError(diags, "DESIGN-ADDR-RANGE", category::kDesignViolation, d.path, e.line, "§3",
               "half-open range broken: end must be start + slot bytes × slots = " + Hex(want_end),
               ev);
    const MemSpaceInfo* info = FindSpace(target, *e.space);
    if (info) {
      std::int64_t a = static_cast<std::int64_t>(info->alignment);
      if (*e.start % a != 0)
        AddError(diags, "DESIGN-ADDR-ALIGN", category::kDesignViolation, d.path, e.line, "§3",
                 "start " + Hex(*e.start) + " is not " + std::to_string(a) + "-byte aligned (" +
                     std::string(info->name) + ")",
                 ev);
      else if (*e.slots > 1 && *e.slot_bytes % a != 0)
        AddError(diags, "DESIGN-ADDR-ALIGN", category::kDesignViolation, d.path, e.line, "§3",
                 "slot size " + std::to_string(*e.slot_bytes) + " puts later slots off the " +
                     std::to_string(a) + "-byte alignment of " + std::string(info->name),
                 ev);
    }
    if (auto b = Bytes(e.shape, e.dtype); b && *b != *e.slot_bytes)
      AddError(diags, "DESIGN-SLOT-BYTES", category::kDesignViolation, d.path, e.line, "§3",
               "每槽字节数 " + std::to_string(*e.slot_bytes) + " differs from shape × dtype size = " +
                   ShapeText(e.shape) + " × " + std::to_string(DTypeSize(*e.dtype)) + " = " +
                   std::to_string(*b),
               ev);
    by_space[*e.space].push_back(&e);
  }
  // Overlaps between coexisting tiles (two 临时 scratch tiles may share space by design).
  for (auto& [space, es] : by_space) {
    for (size_t i = 0; i < es.size(); ++i)
      for (size_t j = 0; j < i; ++j) {
        const AddressEntry& a = *es[j];
        const AddressEntry& b = *es[i];
        if (Temporary(a) && Temporary(b)) continue;
        if (*a.start < *b.end && *b.start < *a.end)
          AddError(diags, "DESIGN-ADDR-OVERLAP", category::kDesignViolation, d.path, b.line, "§3",
                   b.var + " [" + Hex(*b.start) + ", " + Hex(*b.end) + ") overlaps " + a.var +
                       " [" + Hex(*a.start) + ", " + Hex(*a.end) + ") (line " +
                       std::to_string(a.line) + ") in " + std::string(MemSpaceName(space)),
                   b.var + " / " + a.var);
      }
    const AddressEntry* top = nullptr;
    for (const auto* e : es)
      if (!top || *e->end > *top->end) top = e;
    const MemSpaceInfo* info = FindSpace(target, space);
    if (top && info && static_cast<std::uint64_t>(*top->end) > info->capacity)
      AddError(diags, "DESIGN-ADDR-CAPACITY", category::kDesignViolation, d.path, top->line, "§3",
               "high-water " + std::to_string(*top->end) + " B exceeds the " +
                   std::string(info->hardware) + "(" + std::string(info->name) + ") capacity " +
                   std::to_string(info->capacity) + " B of target " +
                   std::string(TargetName(target)),
               top->var + " ends at " + top->end_text);
  }
  // Stated high-water lines agree with the map.
  for (const auto& h : d.HighWaters()) {
    if (!h.space || !h.bytes) continue;
    auto it = by_space.find(*h.space);
    std::int64_t computed = 0;
    if (it != by_space.end())
      for (const auto* e : it->second) computed = std::max(computed, *e->end);
    if (*h.bytes != computed)
      AddError(diags, "DESIGN-HIGHWATER-MISMATCH", category::kDesignViolation, d.path, h.line, "§3",
               "stated high-water " + std::to_string(*h.bytes) +
                   " B differs from the address map's maximum end " + std::to_string(computed) + " B",
               h.text);
    const MemSpaceInfo* info = FindSpace(target, *h.space);
    if (h.capacity && info && static_cast<std::uint64_t>(*h.capacity) != info->capacity)
      AddWarning(diags, "DESIGN-HIGHWATER-CAPACITY", category::kDesignViolation, d.path, h.line,
                 "§3",
                 "stated capacity " + std::to_string(*h.capacity) + " B differs from " +
                     std::string(info->hardware) + " capacity " + std::to_string(info->capacity) +
                     " B of target " + std::string(TargetName(target)),
                 h.text);
  }
}

void CheckTilesAgainstMap(const DesignDoc& d, Diagnostics* diags) {
  auto tiles = d.Tiles();
  auto map = d.AddressMap();
  for (const auto& t : tiles) {
    auto b = Bytes(t.shape, t.dtype);
    if (b && t.size_bytes && *b != *t.size_bytes)
      AddError(diags, "DESIGN-TILE-BYTES", category::kDesignViolation, d.path, t.line, "§2",
               "Tile 属性表 size " + std::to_string(*t.size_bytes) +
                   " B differs from shape × dtype size = " + std::to_string(*b) + " B",
               t.var + " " + t.shape_text + " " + t.dtype_text);
    std::int64_t size = t.size_bytes ? *t.size_bytes : b.value_or(-1);
    bool any = false;
    for (const auto& e : map) {
      if (e.group != t.group) continue;
      any = true;
      std::string why;
      if (size >= 0 && e.slot_bytes && *e.slot_bytes != size)
        why = "slot bytes " + std::to_string(*e.slot_bytes) + " vs " + std::to_string(size);
      else if (!t.shape.empty() && !e.shape.empty() && t.shape != e.shape)
        why = "shape " + ShapeText(e.shape) + " vs " + ShapeText(t.shape);
      else if (t.dtype && e.dtype && *t.dtype != *e.dtype)
        why = "dtype " + e.dtype_text + " vs " + t.dtype_text;
      else if (t.space && e.space && *t.space != *e.space)
        why = "memory space " + e.space_text + " vs " + t.space_text;
      if (!why.empty())
        AddError(diags, "DESIGN-TILE-ADDR-MISMATCH", category::kDesignViolation, d.path, e.line,
                 "§3", "§3 entry " + e.var + " disagrees with the §2 Tile 属性表 row of " + t.var +
                           " (line " + std::to_string(t.line) + "): " + why);
    }
    if (!any && !map.empty())
      AddError(diags, "DESIGN-TILE-ADDR-MISMATCH", category::kDesignViolation, d.path, t.line, "§2",
               "tile " + t.var + " has no entry in the §3 address map");
  }
  // TileGroup depth = slots listed in §3.
  for (const auto& g : d.TileGroups()) {
    if (!g.depth) continue;
    std::int64_t slots = 0;
    bool any = false;
    for (const auto& e : map)
      if (e.group == g.name && e.slots) { slots += *e.slots; any = true; }
    if (any && slots != *g.depth)
      AddError(diags, "DESIGN-GROUP-DEPTH", category::kDesignViolation, d.path, g.line, "§2",
               "TileGroup " + g.name + " has depth " + std::to_string(*g.depth) + " but §3 lists " +
                   std::to_string(slots) + " slot(s) for it");
  }
}

void CheckIds(const DesignDoc& d, Diagnostics* diags) {
  std::map<std::int64_t, std::string> owner;
  for (const auto& g : d.TileGroups()) {
    for (auto id : g.mutex_ids) {
      if (id < 0 || id > 31) {
        AddError(diags, "DESIGN-MUTEX-RANGE", category::kDesignViolation, d.path, g.line, "§2",
                 "mutex id " + std::to_string(id) + " of " + g.name + " is outside [0, 31]",
                 g.mutex_text);
        continue;
      }
      auto [it, inserted] = owner.emplace(id, g.name);
      if (!inserted)
        AddError(diags, "DESIGN-MUTEX-DUPLICATE", category::kDesignViolation, d.path, g.line, "§2",
                 "mutex id " + std::to_string(id) + " of " + g.name + " is already used by " +
                     it->second,
                 g.mutex_text);
    }
  }
  for (const auto& e : d.EventIds())
    if (e.id < 0 || e.id >= 16)
      AddError(diags, "DESIGN-EVENT-RANGE", category::kDesignViolation, d.path, e.line, "§6",
               "event_id " + std::to_string(e.id) + " is outside [0, 16)", e.text);
}

}  // namespace

void CheckDesignMemory(const OpDir& od, const CheckOptions& opts, Diagnostics* diags) {
  if (!od.design) return;
  CheckAddressMap(*od.design, opts.target, diags);
  CheckTilesAgainstMap(*od.design, diags);
  CheckIds(*od.design, diags);
}

}  // namespace opdev::contract
