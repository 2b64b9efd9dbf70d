// Tile sub-views (subview.md): `sub = tile[r0:r1, c0:c1]` inside a section is a tile sharing the
// source's bytes — its address moves to element (r0, c0), its physical shape (and so the row
// stride) stays the source's, and its valid shape is the slice clamped to the source's valid
// shape. Missing bounds run to the tile's shape. Steps, negative bounds, empty slices and
// fractal layouts (whose sub-block addresses the docs do not give) are errors.
#include "builtins.h"

#include "opdev/sim/hazards.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <algorithm>

namespace opdev::sim {

namespace {

bool IsSlice(const Value& v) { return v.kind == VK::kTuple && v.s == "slice"; }

// [lo, hi) of one axis of `extent` elements.
std::pair<int64_t, int64_t> Bounds(Interp& in, const Value& s, int64_t extent, int line, const char* axis) {
  if (!IsSlice(s))
    in.Fail(hazard::kUnsupported, line,
            absl::StrCat("a tile sub-view takes a slice on both axes (subview.md: tile[r0:r1, c0:c1]); the ", axis,
                         " index is ", Repr(s)));
  const auto& p = s.Items();
  if (p[2].kind != VK::kNone && in.ToInt(p[2], line, "slice step") != 1)
    in.Fail(hazard::kUnsupported, line, "a tile sub-view with a slice step (subview.md gives half-open ranges only)");
  const int64_t lo = p[0].kind == VK::kNone ? 0 : in.ToInt(p[0], line, "slice start");
  const int64_t hi = p[1].kind == VK::kNone ? extent : in.ToInt(p[1], line, "slice stop");
  if (lo < 0 || hi > extent || lo >= hi)
    in.Fail(hazard::kScalarRange, line,
            absl::StrFormat("tile sub-view %s range [%d, %d) is empty or outside [0, %d)", axis, lo, hi, extent));
  return {lo, hi};
}

}  // namespace

bool IsTileSubview(const Value& obj, const Value& index) {
  if (obj.kind != VK::kTile || index.kind != VK::kTuple || IsSlice(index)) return false;
  for (const auto& v : index.Items())
    if (IsSlice(v)) return true;
  return false;
}

Value TileSubview(Interp& in, const Value& obj, const Value& index, int line) {
  const auto src = obj.Ptr<Tile>();
  if (index.Items().size() != 2)
    in.Fail(hazard::kRuntimeError, line,
            absl::StrFormat("a sub-view of tile '%s' takes two slices, got %d", src->name, index.Items().size()));
  const Layout l = src->type.EffectiveLayout();
  if (l != Layout::kND && l != Layout::kDN)
    in.Fail(hazard::kUnsupported, line,
            absl::StrFormat("a sub-view of %s tile '%s': subview.md gives row-stride views of ND/DN tiles only",
                            std::string(LayoutName(l)), src->name));
  auto [r0, r1] = Bounds(in, index.Items()[0], src->type.shape[0], line, "row");
  auto [c0, c1] = Bounds(in, index.Items()[1], src->type.shape[1], line, "column");
  in.MarkUsed(*src);
  src->last_load_line = 0;  // the view reads the loaded data's valid shape: a use of the load
  auto t = std::make_shared<Tile>();
  t->type = src->type;
  const uint64_t off = src->ElementOffset(r0, c0);
  t->addr = src->addr + off;
  t->size = src->size > off ? src->size - off : 0;
  t->valid_rows = std::max<int64_t>(0, std::min(r1 - r0, src->valid_rows - r0));
  t->valid_cols = std::max<int64_t>(0, std::min(c1 - c0, src->valid_cols - c0));
  t->id = in.next_tile_id++;  // its own use record; not registered: an alias, not a placement
  t->decl_line = line;
  t->name = absl::StrFormat("%s[%d:%d, %d:%d]", src->name, r0, r1, c0, c1);
  t->used = true;
  t->mutex_ids = src->mutex_ids;
  return Value::Obj(VK::kTile, t);
}

}  // namespace opdev::sim
