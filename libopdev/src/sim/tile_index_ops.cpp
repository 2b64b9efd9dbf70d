// pl.gather / pl.scatter over tiles in a core's memory (tile_index_ops.h).
#include "opdev/sim/tile_index_ops.h"

#include "opdev/sim/hazards.h"
#include "opdev/sim/tile_ops.h"

#include "tile_view.h"

#include "absl/strings/str_format.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace opdev::sim::tileop {

namespace {

bool IndexDtype(DType t) {
  return t == DType::kInt16 || t == DType::kUInt16 || t == DType::kInt32 || t == DType::kUInt32;
}

std::string Dt(const Tile& t) { return std::string(DTypeName(t.type.dtype)); }

bool Overlap(const Tile& a, const Tile& b) {
  return a.type.space == b.type.space && a.addr < b.addr + b.size && b.addr < a.addr + a.size;
}

void CheckSame(std::vector<Issue>& issues, const char* op, const Tile& out, const Tile& src) {
  if (out.type.dtype != src.type.dtype)
    issues.push_back({hazard::kTypeMismatch, absl::StrFormat("%s: out tile '%s' is %s but src tile '%s' is %s", op,
                                                             out.name, Dt(out), src.name, Dt(src))});
  if (src.type.EffectiveLayout() != Layout::kND || out.type.EffectiveLayout() != Layout::kND)
    issues.push_back({hazard::kTileShapeAlign,
                      absl::StrFormat("%s: out '%s' and src '%s' must be row-major (ND) tiles", op, out.name, src.name)});
}

// The index tile and the tile it indexes for cover the same valid window.
void SameValid(std::vector<Issue>& issues, const char* op, const Tile& a, const Tile& b) {
  if (a.valid_rows != b.valid_rows || a.valid_cols != b.valid_cols)
    issues.push_back({hazard::kTileShapeAlign,
                      absl::StrFormat("%s: tile '%s' valid shape [%d, %d] differs from tile '%s''s [%d, %d]", op,
                                      a.name, a.valid_rows, a.valid_cols, b.name, b.valid_rows, b.valid_cols)});
}

}  // namespace

std::vector<Issue> Gather(CoreMemory& mem, Tile& out, const Tile& src, const Tile& idx, Tile& tmp, int64_t offset) {
  std::vector<Issue> issues;
  CheckSame(issues, "pl.gather", out, src);
  if (!IndexDtype(idx.type.dtype) || (DTypeSize(src.type.dtype) == 8 && DTypeSize(idx.type.dtype) != 4))
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("pl.gather: index tile '%s' is %s; indices are 16- or 32-bit integers "
                                      "(32-bit for 64-bit data) (gather.md)",
                                      idx.name, Dt(idx))});
  if (tmp.type.dtype != idx.type.dtype || tmp.type.shape != idx.type.shape)
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("pl.gather: tmp tile '%s' (%s [%d, %d]) must have the index tile's dtype and "
                                      "shape (%s [%d, %d]) (gather.md)",
                                      tmp.name, Dt(tmp), tmp.type.shape[0], tmp.type.shape[1], Dt(idx),
                                      idx.type.shape[0], idx.type.shape[1])});
  for (const Tile* t : {static_cast<const Tile*>(&out), &src, &idx})
    if (Overlap(tmp, *t))
      issues.push_back({hazard::kTileOverlap,
                        absl::StrFormat("pl.gather: tmp tile '%s' overlaps '%s'; the workspace may not overlap "
                                        "out, src or idx (gather.md)",
                                        tmp.name, t->name)});
  SameValid(issues, "pl.gather", out, idx);
  if (!issues.empty()) return issues;
  View vo = V(mem, out), vs = V(mem, src), vi = V(mem, idx);
  const int64_t cols = src.type.shape[1], n = src.type.shape[0] * cols;
  int64_t undef = 0, bad = 0, first_bad = 0;
  for (int64_t r = 0; r < idx.valid_rows; ++r)
    for (int64_t c = 0; c < idx.valid_cols; ++c) {
      bool u = false;
      const int64_t k = vi.GetInt(r, c, &u) + offset;
      if (u) {
        ++undef;
        vo.SetInt(r, c, 0, false);
        continue;
      }
      if (k < 0 || k >= n) {
        if (bad++ == 0) first_bad = k;
        continue;
      }
      CopyElement(vo, r, c, vs, k / cols, k % cols);
    }
  Clobber(mem, tmp);
  if (bad > 0)
    issues.push_back({hazard::kIndexRange,
                      absl::StrFormat("pl.gather: %d index value(s) + offset %d fall outside src tile '%s' (%d "
                                      "elements), e.g. %d; gather.md leaves that undefined",
                                      bad, offset, src.name, n, first_bad)});
  ReportUndef(issues, undef, "pl.gather (index)", out);
  return issues;
}

std::vector<Issue> Scatter(CoreMemory& mem, Tile& out, const Tile& src, const Tile& idx) {
  std::vector<Issue> issues;
  CheckSame(issues, "pl.scatter", out, src);
  // scatter.md's table: 32/64-bit data take 32-bit indices, 8/16-bit data 16-bit ones.
  const size_t want = DTypeSize(src.type.dtype) >= 4 ? 4 : 2;
  if (!IndexDtype(idx.type.dtype) || DTypeSize(idx.type.dtype) != want)
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("pl.scatter: index tile '%s' is %s; %s data takes %d-bit indices (scatter.md)",
                                      idx.name, Dt(idx), Dt(src), want * 8)});
  if (src.type.shape != out.type.shape)
    issues.push_back({hazard::kTileShapeAlign,
                      absl::StrFormat("pl.scatter: src '%s' [%d, %d] must have out '%s''s shape [%d, %d]", src.name,
                                      src.type.shape[0], src.type.shape[1], out.name, out.type.shape[0],
                                      out.type.shape[1])});
  SameValid(issues, "pl.scatter", idx, src);
  if (!issues.empty()) return issues;
  View vo = V(mem, out), vs = V(mem, src), vi = V(mem, idx);
  const int64_t cols = out.type.shape[1], n = out.type.shape[0] * cols;
  std::vector<uint8_t> hit(static_cast<size_t>(n), 0);
  int64_t undef = 0, bad = 0, first_bad = 0, conflicts = 0, first_conflict = 0;
  for (int64_t r = 0; r < src.valid_rows; ++r)
    for (int64_t c = 0; c < src.valid_cols; ++c) {
      bool u = false;
      const int64_t k = vi.GetInt(r, c, &u);
      if (u) {
        ++undef;
        continue;
      }
      if (k < 0 || k >= n) {
        if (bad++ == 0) first_bad = k;
        continue;
      }
      if (hit[static_cast<size_t>(k)]++ && conflicts++ == 0) first_conflict = k;
      CopyElement(vo, k / cols, k % cols, vs, r, c);
    }
  if (bad > 0)
    issues.push_back({hazard::kIndexRange,
                      absl::StrFormat("pl.scatter: %d index value(s) fall outside out tile '%s' (%d elements), e.g. "
                                      "%d; scatter.md leaves that undefined",
                                      bad, out.name, n, first_bad)});
  if (conflicts > 0)
    issues.push_back({hazard::kIndexRange,
                      absl::StrFormat("pl.scatter: %d element(s) of out tile '%s' are written more than once (e.g. "
                                      "flat offset %d); scatter.md leaves a write conflict undefined",
                                      conflicts, out.name, first_conflict)});
  if (undef > 0)
    issues.push_back({hazard::kUninitRead,
                      absl::StrFormat("pl.scatter into tile '%s' reads %d index element(s) never written in this run",
                                      out.name, undef)});
  return issues;
}

std::vector<Issue> GatherMask(CoreMemory& mem, Tile& out, const Tile& src, int64_t pattern_mode) {
  std::vector<Issue> issues;
  CheckSame(issues, "pl.gathermask", out, src);
  if (pattern_mode < 1 || pattern_mode > 7) {
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("pl.gathermask: pattern_mode %d outside 1..7 (gathermask.md)", pattern_mode)});
    return issues;
  }
  // The selected columns: start and step.
  const int64_t step = pattern_mode == 7 ? 1 : pattern_mode <= 2 ? 2 : 4;
  const int64_t first = pattern_mode == 7 ? 0 : pattern_mode <= 2 ? pattern_mode - 1 : pattern_mode - 3;
  const int64_t cols = src.valid_cols > first ? (src.valid_cols - first + step - 1) / step : 0;
  if (out.valid_rows != src.valid_rows || out.valid_cols != cols)
    issues.push_back({hazard::kTileShapeAlign,
                      absl::StrFormat("pl.gathermask pattern_mode=%d: out '%s' valid shape [%d, %d], but %d rows of "
                                      "%d selected columns come from src '%s' (gathermask.md)",
                                      pattern_mode, out.name, out.valid_rows, out.valid_cols, src.valid_rows, cols,
                                      src.name)});
  if (!issues.empty()) return issues;
  View vo = V(mem, out), vs = V(mem, src);
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t c = 0; c < cols; ++c) CopyElement(vo, r, c, vs, r, first + c * step);
  return issues;
}

std::vector<Issue> GatherBlocks(CoreMemory& mem, Tile& out, const Tile& src, const Tile& offsets) {
  std::vector<Issue> issues;
  CheckSame(issues, "pl.gatherb", out, src);
  const int64_t es = static_cast<int64_t>(DTypeSize(out.type.dtype));
  if (es > 4)
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("pl.gatherb: %s data; gatherb.md takes b8, b16 and b32", Dt(out))});
  if (offsets.type.dtype != DType::kUInt32)
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("pl.gatherb: offsets tile '%s' is %s, not DT_UINT32 (gatherb.md)", offsets.name,
                                      Dt(offsets))});
  const int64_t per_block = es > 0 && es <= 4 ? 32 / es : 1;
  if (out.type.shape[1] % per_block != 0 || offsets.valid_rows < out.valid_rows ||
      offsets.valid_cols * per_block < out.valid_cols)
    issues.push_back({hazard::kTileShapeAlign,
                      absl::StrFormat("pl.gatherb: out '%s' [%d, %d] needs an offsets tile of [%d, %d] (one per "
                                      "32-byte block), '%s' has valid [%d, %d]",
                                      out.name, out.valid_rows, out.valid_cols, out.valid_rows,
                                      (out.valid_cols + per_block - 1) / per_block, offsets.name, offsets.valid_rows,
                                      offsets.valid_cols)});
  if (!issues.empty()) return issues;
  View vo = V(mem, out), vf = V(mem, offsets);
  SpaceBuffer& sb = mem.Get(src.type.space);
  const int64_t total = static_cast<int64_t>(src.type.Bytes());
  const int64_t blocks = (out.valid_cols + per_block - 1) / per_block;
  int64_t bad = 0, first_bad = 0, undef = 0;
  for (int64_t r = 0; r < out.valid_rows; ++r)
    for (int64_t j = 0; j < blocks; ++j) {
      bool u = false;
      const int64_t off = vf.GetInt(r, j, &u);
      if (u) {
        ++undef;
        continue;
      }
      if (off < 0 || off + 32 > total) {
        if (bad++ == 0) first_bad = off;
        continue;
      }
      const uint64_t from = src.addr + static_cast<uint64_t>(off);
      CopyBytes(*vo.buf, out.addr + out.ElementOffset(r, j * per_block), sb, from, 32, vo.line);
    }
  if (bad > 0)
    issues.push_back({hazard::kIndexRange,
                      absl::StrFormat("pl.gatherb: %d byte offset(s) leave src tile '%s' (%d bytes) for a 32-byte "
                                      "block, e.g. %d; gatherb.md leaves that undefined",
                                      bad, src.name, total, first_bad)});
  if (undef > 0)
    issues.push_back({hazard::kUninitRead,
                      absl::StrFormat("pl.gatherb into tile '%s' reads %d offset element(s) never written in this run",
                                      out.name, undef)});
  return issues;
}

}  // namespace opdev::sim::tileop
