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

bool TileType::IsFractal() const {
  Layout l = EffectiveLayout();
  return l == Layout::kNZ || l == Layout::kZN || l == Layout::kZZ || l == Layout::kNN;
}

namespace {
int64_t Block32(DType t) {
  int64_t b = 32 / static_cast<int64_t>(DTypeSize(t));
  return b > 0 ? b : 1;
}
int64_t RoundUp(int64_t v, int64_t m) { return m <= 1 ? v : (v + m - 1) / m * m; }
}  // namespace

int64_t TileType::FractalRows() const {
  switch (EffectiveLayout()) {
    case Layout::kNZ: case Layout::kZZ: return 16;
    case Layout::kZN: case Layout::kNN: return space == MemSpace::kAcc ? 16 : Block32(dtype);
    default: return 1;
  }
}

int64_t TileType::FractalCols() const {
  switch (EffectiveLayout()) {
    case Layout::kNZ: case Layout::kZZ: return space == MemSpace::kAcc ? 16 : Block32(dtype);
    case Layout::kZN: case Layout::kNN: return 16;
    default: return 1;
  }
}

int64_t TileType::FractalBytes() const {
  if (fractal > 0) return fractal;
  if (space == MemSpace::kAcc && (dtype == DType::kFloat32 || dtype == DType::kInt32)) return 1024;
  return FractalRows() * FractalCols() * static_cast<int64_t>(DTypeSize(dtype));
}

uint64_t Tile::FractalOffset(Layout l, int64_t r, int64_t c) const {
  const uint64_t es = elem_size();
  // A one-row NZ tile (the [1, N] bias row in Mat) is one contiguous row: the docs give no
  // fractal padding for it and the bias samples place such tiles Bytes() apart.
  if (l == Layout::kNZ && type.shape[0] == 1) return static_cast<uint64_t>(c) * es;
  // Fractal layouts: the addressed extent is the shape rounded up to whole fractals; compact=1
  // packs an L0 tile by its valid shape, never a Mat (L1) tile (pto-isa's transfers address L1
  // by the static shape; docs/simulator.md, "Layouts"). A Vec (UB) tile is addressed by its
  // shape as declared: UB has no fractal grid, so an NZ [65, 64] tile steps its 16-column
  // blocks by 65 rows (the RowPlusOne "NZ+1" tiles of CompactMode.md; see docs/simulator.md,
  // "Vec fractal tiles").
  const int64_t fr = type.FractalRows(), fc = type.FractalCols();
  const bool vec_physical = type.space == MemSpace::kVec && type.compact != 1;
  const bool packed = type.compact == 1 && type.space != MemSpace::kMat;
  const int64_t rows =
      vec_physical ? type.shape[0] : RoundUp(packed ? valid_rows : type.shape[0], fr);
  const int64_t cols =
      vec_physical ? type.shape[1] : RoundUp(packed ? valid_cols : type.shape[1], fc);
  const int64_t rb = r / fr, ri = r % fr, cb = c / fc, ci = c % fc;
  int64_t e = 0;
  switch (l) {
    case Layout::kNZ:  // fractals column-major ([C1, R1, R0, C0]), row-major inside
      e = cb * rows * fc + r * fc + ci;
      break;
    case Layout::kZN:  // fractals row-major ([R1, C1, C0, R0]), column-major inside
      e = rb * cols * fr + c * fr + ri;
      break;
    case Layout::kZZ:  // fractals row-major, row-major inside ([R1, C1, R0, C0])
      e = rb * cols * fr + cb * fr * fc + ri * fc + ci;
      break;
    case Layout::kNN:  // fractals column-major, column-major inside ([C1, R1, C0, R0])
      e = cb * rows * fc + rb * fr * fc + ci * fr + ri;
      break;
    default: break;
  }
  return static_cast<uint64_t>(e) * es;
}

bool Tile::ColumnMajorInside() const {
  const Layout l = type.EffectiveLayout();
  return l == Layout::kDN || l == Layout::kZN || l == Layout::kNN;
}

int64_t Tile::RowRun(int64_t c, int64_t limit) const {
  int64_t run = 1;
  switch (type.EffectiveLayout()) {
    case Layout::kND: run = limit - c; break;
    case Layout::kNZ: case Layout::kZZ: {
      if (type.EffectiveLayout() == Layout::kNZ && type.shape[0] == 1) {
        run = limit - c;
        break;
      }
      int64_t fc = type.FractalCols();
      run = fc - c % fc;
      break;
    }
    default: run = 1; break;
  }
  return std::max<int64_t>(1, std::min(run, limit - c));
}

std::shared_ptr<Tile> TileGroup::Next() {
  if (slots.empty()) return nullptr;
  cursor = (cursor + 1) % static_cast<int>(slots.size());
  return slots[cursor];
}

std::shared_ptr<Tile> TileGroup::Current() const {
  // The frontend's cursor starts at the last slot, so that the first next() selects slot 0
  // (parser/_buffer_parser.py, the group's cursor struct): before any next(), current() is
  // the last slot (slot 0 of a one-slot group) and previous() the one before it.
  if (slots.empty()) return nullptr;
  const int n = static_cast<int>(slots.size());
  return slots[cursor < 0 ? n - 1 : cursor];
}

std::shared_ptr<Tile> TileGroup::Previous() const {
  if (slots.empty()) return nullptr;
  const int n = static_cast<int>(slots.size());
  const int at = cursor < 0 ? n - 1 : cursor;
  return slots[(at + n - 1) % n];
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
  if (t.type.IsFractal() && t.type.space != MemSpace::kScaleLeft && t.type.space != MemSpace::kScaleRight) {
    const int64_t fr = t.type.FractalRows(), fc = t.type.FractalCols();
    const bool bias_row = t.type.EffectiveLayout() == Layout::kNZ && t.type.shape[0] == 1 &&
                          t.type.space == MemSpace::kMat;
    // A Vec tile's fractal layout may have any row count (the NZ+1 tiles have 16k + 1 rows: the
    // tile library behind the frontend asserts whole fractal rows for Cube buffers only); its
    // columns are whole fractals everywhere.
    const bool rows_free = t.type.space == MemSpace::kVec;
    if ((!bias_row && !rows_free && t.type.shape[0] % fr != 0) || t.type.shape[1] % fc != 0) {
      out.push_back({hazard::kCubeFractal,
                     absl::StrFormat("tile '%s' %s %s shape [%d, %d] %s is not a whole number of %dx%d "
                                     "fractals",
                                     t.name, std::string(MemSpaceName(t.type.space)),
                                     std::string(LayoutName(t.type.EffectiveLayout())), t.type.shape[0],
                                     t.type.shape[1], std::string(DTypeName(t.type.dtype)), fr, fc)});
    }
    if (t.type.space == MemSpace::kAcc && static_cast<int64_t>(t.type.Bytes()) < t.type.FractalBytes()) {
      out.push_back({hazard::kCubeFractal,
                     absl::StrFormat("Acc tile '%s' [%d, %d] %s holds %d bytes, less than one %d-byte "
                                     "fractal",
                                     t.name, t.type.shape[0], t.type.shape[1],
                                     std::string(DTypeName(t.type.dtype)), t.type.Bytes(),
                                     t.type.FractalBytes())});
    }
  } else if (t.type.space == MemSpace::kVec || t.type.space == MemSpace::kMat) {
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

bool ContainedIn(const Tile& inner, const Tile& outer) {
  return inner.type.space == outer.type.space && inner.addr >= outer.addr &&
         inner.addr + inner.size <= outer.addr + outer.size;
}

bool LockedViews(const TileGroup& a, const TileGroup& b) {
  if (a.slots.size() != b.slots.size() || a.type.space != b.type.space || a.slots.empty()) return false;
  const size_t n = a.slots.size();
  if (a.mutex_ids.size() % n != 0 || b.mutex_ids.size() % n != 0) return false;
  const size_t ka = a.mutex_ids.size() / n, kb = b.mutex_ids.size() / n;
  if (ka == 0 || kb == 0) return false;
  for (size_t i = 0; i < n; ++i) {
    const Tile& x = *a.slots[i];
    const Tile& y = *b.slots[i];
    if (!ContainedIn(x, y) && !ContainedIn(y, x)) return false;
    bool shared = false;
    for (size_t p = 0; p < ka && !shared; ++p)
      for (size_t q = 0; q < kb && !shared; ++q) shared = a.mutex_ids[i * ka + p] == b.mutex_ids[i * kb + q];
    if (!shared) return false;
  }
  return true;
}

}  // namespace opdev::sim
