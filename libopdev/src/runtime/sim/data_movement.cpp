// pl.load / pl.store between GM tensors and tiles, with range, coverage and definedness checks.
#include "opdev/sim/data_movement.h"

#include "opdev/sim/hazards.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <cstring>

namespace opdev::sim {

namespace {

struct Mapping {
  int row_axis = 0;
  int col_axis = 0;
  std::vector<int64_t> base;  // full offset vector
  bool ok = true;
  std::string error;
};

Mapping MapAxes(const GmTensor& t, const std::vector<int64_t>& offsets) {
  Mapping m;
  const int nd = static_cast<int>(t.shape.size());
  m.base.assign(nd, 0);
  if (nd == 0) {
    m.ok = false;
    m.error = "tensor has no dimensions";
    return m;
  }
  // Right-align the given offsets with the tensor axes.
  int given = static_cast<int>(offsets.size());
  if (given > nd) {
    m.ok = false;
    m.error = absl::StrFormat("%d offsets given for a %d-d tensor", given, nd);
    return m;
  }
  for (int i = 0; i < given; ++i) m.base[nd - given + i] = offsets[i];
  m.row_axis = nd >= 2 ? nd - 2 : -1;
  m.col_axis = nd - 1;
  return m;
}

std::string OffsetsText(const std::vector<int64_t>& o) { return "[" + absl::StrJoin(o, ", ") + "]"; }
std::string ShapeText(const std::vector<int64_t>& s) { return "[" + absl::StrJoin(s, ", ") + "]"; }

}  // namespace

std::vector<Issue> LoadTile(CoreMemory& mem, Tile& dst, const GmTensor& src,
                            const std::vector<int64_t>& offsets, bool transpose) {
  std::vector<Issue> issues;
  Mapping m = MapAxes(src, offsets);
  if (!m.ok) {
    issues.push_back({hazard::kRuntimeError, "pl.load: " + m.error});
    return issues;
  }
  SpaceBuffer& buf = mem.Get(dst.type.space);
  const auto strides = src.Strides();
  const size_t es = DTypeSize(src.dtype);
  const bool same_type = src.dtype == dst.type.dtype;
  int64_t oob = 0;
  int64_t first_oob_r = -1, first_oob_c = -1;
  for (int64_t r = 0; r < dst.valid_rows; ++r) {
    for (int64_t c = 0; c < dst.valid_cols; ++c) {
      int64_t gr = transpose ? c : r;
      int64_t gc = transpose ? r : c;
      std::vector<int64_t> idx = m.base;
      if (m.row_axis >= 0) idx[m.row_axis] += gr;
      else if (gr != 0) { ++oob; continue; }
      idx[m.col_axis] += gc;
      bool inside = true;
      int64_t flat = 0;
      for (size_t a = 0; a < idx.size(); ++a) {
        if (idx[a] < 0 || idx[a] >= src.shape[a]) inside = false;
        flat += idx[a] * strides[a];
      }
      if (!inside) {
        if (oob++ == 0) { first_oob_r = r; first_oob_c = c; }
        continue;
      }
      uint64_t off = dst.addr + dst.ElementOffset(r, c);
      if (off + dst.elem_size() > buf.bytes.size()) continue;
      if (same_type) std::memcpy(buf.bytes.data() + off, src.data.data() + flat * es, es);
      else StoreScalar(dst.type.dtype, buf.bytes.data() + off, src.GetAsDouble(flat));
      std::memset(buf.written.data() + off, 1, dst.elem_size());
    }
  }
  if (oob > 0) {
    issues.push_back({hazard::kGmOutOfRange,
                      absl::StrFormat("pl.load reads %d element(s) outside tensor '%s' %s: offsets %s, "
                                      "valid window [%d, %d]%s (first at tile element [%d, %d])",
                                      oob, src.name, ShapeText(src.shape), OffsetsText(m.base),
                                      dst.valid_rows, dst.valid_cols, transpose ? " transposed" : "",
                                      first_oob_r, first_oob_c)});
  }
  if (!same_type) {
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("pl.load from %s tensor '%s' into %s tile '%s' (no conversion on load)",
                                      std::string(DTypeName(src.dtype)), src.name,
                                      std::string(DTypeName(dst.type.dtype)), dst.name)});
  }
  return issues;
}

std::vector<Issue> StoreTile(GmTensor& dst, const CoreMemory& mem, const Tile& src,
                             const std::vector<int64_t>& offsets, int core_id) {
  std::vector<Issue> issues;
  Mapping m = MapAxes(dst, offsets);
  if (!m.ok) {
    issues.push_back({hazard::kRuntimeError, "pl.store: " + m.error});
    return issues;
  }
  const SpaceBuffer& buf = mem.Get(src.type.space);
  const auto strides = dst.Strides();
  const size_t es = DTypeSize(dst.dtype);
  const bool same_type = src.type.dtype == dst.dtype;
  int64_t oob = 0, undef = 0, multi = 0;
  int other_core = -1;
  for (int64_t r = 0; r < src.valid_rows; ++r) {
    for (int64_t c = 0; c < src.valid_cols; ++c) {
      std::vector<int64_t> idx = m.base;
      if (m.row_axis >= 0) idx[m.row_axis] += r;
      else if (r != 0) { ++oob; continue; }
      idx[m.col_axis] += c;
      bool inside = true;
      int64_t flat = 0;
      for (size_t a = 0; a < idx.size(); ++a) {
        if (idx[a] < 0 || idx[a] >= dst.shape[a]) inside = false;
        flat += idx[a] * strides[a];
      }
      if (!inside) { ++oob; continue; }
      uint64_t off = src.addr + src.ElementOffset(r, c);
      if (off + src.elem_size() > buf.bytes.size()) continue;
      if (std::memchr(buf.written.data() + off, 0, src.elem_size()) != nullptr) ++undef;
      if (same_type) std::memcpy(dst.data.data() + flat * es, buf.bytes.data() + off, es);
      else dst.SetFromDouble(flat, LoadScalar(src.type.dtype, buf.bytes.data() + off));
      int32_t& w = dst.writer[flat];
      if (w >= 0 && w != core_id) { ++multi; other_core = w; }
      if (w < 0) w = core_id;
    }
  }
  if (oob > 0) {
    issues.push_back({hazard::kGmOutOfRange,
                      absl::StrFormat("pl.store writes %d element(s) outside tensor '%s' %s: offsets %s, "
                                      "valid window [%d, %d]",
                                      oob, dst.name, ShapeText(dst.shape), OffsetsText(m.base),
                                      src.valid_rows, src.valid_cols)});
  }
  if (undef > 0) {
    issues.push_back({hazard::kUninitRead,
                      absl::StrFormat("pl.store copies %d element(s) of tile '%s' that were never written "
                                      "in this run to tensor '%s'",
                                      undef, src.name, dst.name)});
  }
  if (multi > 0) {
    issues.push_back({hazard::kOutputMultiWriter,
                      absl::StrFormat("core %d writes %d element(s) of tensor '%s' already written by core %d",
                                      core_id, multi, dst.name, other_core)});
  }
  if (!same_type) {
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("pl.store of %s tile '%s' into %s tensor '%s'",
                                      std::string(DTypeName(src.type.dtype)), src.name,
                                      std::string(DTypeName(dst.dtype)), dst.name)});
  }
  return issues;
}

}  // namespace opdev::sim
