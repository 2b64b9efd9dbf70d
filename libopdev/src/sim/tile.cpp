// Tile types, element addressing per layout, tile groups and placement checks.
#include "opdev/sim/tile.h"

#include "opdev/sim/hazards.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"

namespace opdev::sim {

namespace {
std::string LastComponentLower(std::string_view s) {
  if (auto pos = s.rfind('.'); pos != std::string_view::npos) s = s.substr(pos + 1);
  return absl::AsciiStrToLower(std::string(s));
}
}  // namespace

std::string_view LayoutName(Layout l) {
  switch (l) {
    case Layout::kND: return "ND";
    case Layout::kDN: return "DN";
    case Layout::kNZ: return "NZ";
    case Layout::kZN: return "ZN";
    case Layout::kZZ: return "ZZ";
    case Layout::kNN: return "NN";
  }
  return "ND";
}

std::optional<Layout> ParseLayout(std::string_view s) {
  std::string l = LastComponentLower(s);
  if (l == "nd" || l == "row_major") return Layout::kND;
  if (l == "dn" || l == "col_major") return Layout::kDN;
  if (l == "nz") return Layout::kNZ;
  if (l == "zn") return Layout::kZN;
  if (l == "zz") return Layout::kZZ;
  if (l == "nn") return Layout::kNN;
  return std::nullopt;
}

std::optional<Pad> ParsePad(std::string_view s) {
  std::string l = LastComponentLower(s);
  if (l == "null" || l == "none") return Pad::kNull;
  if (l == "zero") return Pad::kZero;
  if (l == "max") return Pad::kMax;
  if (l == "min") return Pad::kMin;
  return std::nullopt;
}

Layout TileType::EffectiveLayout() const {
  if (layout) return *layout;
  switch (space) {
    case MemSpace::kMat: case MemSpace::kLeft: case MemSpace::kAcc: return Layout::kNZ;
    case MemSpace::kRight: return Layout::kZN;
    default: return Layout::kND;
  }
}

uint64_t Tile::ElementOffset(int64_t r, int64_t c) const {
  const int64_t R = type.shape[0], C = type.shape[1];
  const uint64_t es = elem_size();
  switch (type.EffectiveLayout()) {
    case Layout::kND: return static_cast<uint64_t>(r * C + c) * es;
    case Layout::kDN: return static_cast<uint64_t>(c * R + r) * es;
    case Layout::kNZ: {
      // Column blocks of c0 = 32B/elem (16 for Acc fp32: fractal 16x16), each R x c0 row-major.
      int64_t c0 = type.space == MemSpace::kAcc ? 16 : static_cast<int64_t>(32 / es);
      if (c0 <= 0) c0 = 1;
      return static_cast<uint64_t>((c / c0) * (R * c0) + r * c0 + (c % c0)) * es;
    }
    case Layout::kZN: {
      // Row blocks of 16 rows... stored as column-major fractals: (r0 x C) blocks, inner col-major.
      int64_t r0 = static_cast<int64_t>(32 / es);
      if (r0 <= 0) r0 = 1;
      return static_cast<uint64_t>((r / r0) * (C * r0) + c * r0 + (r % r0)) * es;
    }
    case Layout::kZZ: case Layout::kNN: return static_cast<uint64_t>(r * C + c) * es;
  }
  return 0;
}

std::shared_ptr<Tile> TileGroup::Next() {
  if (slots.empty()) return nullptr;
  cursor = (cursor + 1) % static_cast<int>(slots.size());
  return slots[cursor];
}

std::shared_ptr<Tile> TileGroup::Current() const {
  if (cursor < 0) return nullptr;
  return slots[cursor];
}

std::shared_ptr<Tile> TileGroup::Previous() const {
  if (cursor < 0 || slots.empty()) return nullptr;
  int n = static_cast<int>(slots.size());
  return slots[(cursor - 1 + n) % n];
}

std::vector<PlacementIssue> CheckPlacement(const Tile& t, Target target) {
  std::vector<PlacementIssue> out;
  const MemSpaceInfo* info = FindSpace(target, t.type.space);
  if (!info) {
    out.push_back({hazard::kUnsupported,
                   absl::StrFormat("tile '%s' is in memory space %s, which has no on-chip buffer here",
                                   t.name, std::string(MemSpaceName(t.type.space)))});
    return out;
  }
  if (t.type.shape[0] <= 0 || t.type.shape[1] <= 0) {
    out.push_back({hazard::kTileCapacity,
                   absl::StrFormat("tile '%s' has a non-positive shape [%d, %d]", t.name,
                                   t.type.shape[0], t.type.shape[1])});
    return out;
  }
  if (t.addr % info->alignment != 0) {
    out.push_back({hazard::kTileAlign,
                   absl::StrFormat("tile '%s' address 0x%x is not %d-byte aligned as %s (%s) requires",
                                   t.name, t.addr, info->alignment, std::string(info->name),
                                   std::string(info->hardware))});
  }
  if (t.addr + t.size > info->capacity) {
    out.push_back({hazard::kTileCapacity,
                   absl::StrFormat("tile '%s' occupies [0x%x, 0x%x) but %s (%s) on %s holds %d bytes",
                                   t.name, t.addr, t.addr + t.size, std::string(info->name),
                                   std::string(info->hardware), std::string(TargetName(target)),
                                   info->capacity)});
  }
  if (t.size < t.type.Bytes()) {
    out.push_back({hazard::kTileCapacity,
                   absl::StrFormat("tile '%s' size= %d is smaller than its shape needs (%d bytes)",
                                   t.name, t.size, t.type.Bytes())});
  }
  if (t.type.space == MemSpace::kVec || t.type.space == MemSpace::kMat) {
    Layout l = t.type.EffectiveLayout();
    int64_t inner = (l == Layout::kDN) ? t.type.shape[0] : t.type.shape[1];
    uint64_t inner_bytes = static_cast<uint64_t>(inner) * DTypeSize(t.type.dtype);
    if (inner_bytes % 32 != 0) {
      out.push_back({hazard::kTileShapeAlign,
                     absl::StrFormat("tile '%s' %s shape [%d, %d] %s: its contiguous axis is %d bytes, "
                                     "not a multiple of 32",
                                     t.name, std::string(LayoutName(l)), t.type.shape[0],
                                     t.type.shape[1], std::string(DTypeName(t.type.dtype)),
                                     inner_bytes)});
    }
  }
  return out;
}

bool PartiallyOverlap(const Tile& a, const Tile& b) {
  if (a.type.space != b.type.space) return false;
  if (a.addr == b.addr) return false;
  return a.addr < b.addr + b.size && b.addr < a.addr + a.size;
}

}  // namespace opdev::sim
