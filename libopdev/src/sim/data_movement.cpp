// pl.load / pl.store between GM tensors and tiles, with range, coverage and definedness checks.
#include "opdev/sim/data_movement.h"

#include "opdev/sim/hazards.h"

#include "vector_clones.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace opdev::sim {

namespace {
// Appends the elements [flat, flat + n) to `runs`, extending the last run when they follow it
// (a Cube tile's row is several fractal runs of one contiguous GM row).
inline void AppendRun(TouchedRuns* runs, int64_t flat, int64_t n) {
  if (!runs) return;
  if (!runs->empty() && runs->back().first + runs->back().second == flat) runs->back().second += n;
  else runs->emplace_back(flat, n);
}

// Whether two elements of `es` bytes are equal (an inline load for the usual widths: a
// library memcmp per element is most of a store's compare).
inline bool SameElement(const uint8_t* a, const uint8_t* b, size_t es) {
  switch (es) {
    case 1: return *a == *b;
    case 2: { uint16_t x, y; std::memcpy(&x, a, 2); std::memcpy(&y, b, 2); return x == y; }
    case 4: { uint32_t x, y; std::memcpy(&x, a, 4); std::memcpy(&y, b, 4); return x == y; }
    case 8: { uint64_t x, y; std::memcpy(&x, a, 8); std::memcpy(&y, b, 8); return x == y; }
    default: return std::memcmp(a, b, es) == 0;
  }
}

// Calls `emit(i, n)` for each maximal run [i, i + n) of [0, n_elems) where `differs(i)`, in order.
template <typename Differs, typename Emit>
void ForRunsWhere(int64_t n_elems, Differs differs, Emit& emit) {
  for (int64_t i = 0; i < n_elems;) {
    while (i < n_elems && !differs(i)) ++i;
    int64_t j = i;
    while (j < n_elems && differs(j)) ++j;
    if (j > i) emit(i, j - i);
    i = j;
  }
}

// ForRunsWhere for elements that are words of type W, differing between `a` and `b`: blocks
// of 16 words that all agree (or all differ) are skipped in one vectorisable comparison.
template <typename W, typename Emit>
void ForDifferingWords(const uint8_t* a, const uint8_t* b, int64_t n_elems, Emit& emit) {
  constexpr int64_t kBlock = 16;
  auto word = [](const uint8_t* p, int64_t i) {
    W x;
    std::memcpy(&x, p + i * static_cast<int64_t>(sizeof(W)), sizeof(W));
    return x;
  };
  auto count_differing = [&](int64_t i) {
    int n = 0;
    for (int64_t j = 0; j < kBlock; ++j) n += word(a, i + j) != word(b, i + j);
    return n;
  };
  for (int64_t i = 0; i < n_elems;) {
    while (i + kBlock <= n_elems && count_differing(i) == 0) i += kBlock;
    while (i < n_elems && word(a, i) == word(b, i)) ++i;
    int64_t j = i;
    while (j + kBlock <= n_elems && count_differing(j) == kBlock) j += kBlock;
    while (j < n_elems && word(a, j) != word(b, j)) ++j;
    if (j > i) emit(i, j - i);
    i = j;
  }
}

// The runs of the `n_elems` elements of `es` bytes whose bytes differ between `a` and `b`; the
// usual widths compare whole words in a loop of their own.
template <typename Emit>
OPDEV_VECTOR_CLONES void ForDifferingRuns(const uint8_t* a, const uint8_t* b, int64_t n_elems, size_t es, Emit emit) {
  auto words = [&](auto word) { ForDifferingWords<decltype(word)>(a, b, n_elems, emit); };
  switch (es) {
    case 1: return words(uint8_t{});
    case 2: return words(uint16_t{});
    case 4: return words(uint32_t{});
    case 8: return words(uint64_t{});
    default: break;
  }
  const int64_t w = static_cast<int64_t>(es);
  ForRunsWhere(n_elems, [&](int64_t i) { return std::memcmp(a + i * w, b + i * w, es) != 0; }, emit);
}

// Settles the writers of a stored run at once when it is wholly fresh (every element -1: they
// become `core`'s) or already wholly `core`'s; false, with nothing changed, when some element
// has another writer or the run is mixed. The scan has no early exit and runs over blocks of
// 16, so it compiles to vector code.
OPDEV_VECTOR_CLONES bool SettleRunWriters(int32_t* writer, int64_t n, int32_t core) {
  constexpr int64_t kBlock = 16;
  int32_t all = -1, mine = 0;
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock)
    for (int64_t j = 0; j < kBlock; ++j) {
      all &= writer[i + j];
      mine |= writer[i + j] ^ core;
    }
  for (; i < n; ++i) {
    all &= writer[i];
    mine |= writer[i] ^ core;
  }
  if (mine == 0) return true;
  if (all >= 0) return false;
  std::fill_n(writer, n, core);
  return true;
}

struct Mapping {
  int row_axis = 0;
  int col_axis = 0;
  IndexList base;  // full offset vector
  bool ok = true;
  std::string error;
};

Mapping MapAxes(const GmTensor& t, absl::Span<const int64_t> offsets, TransferAxes axes) {
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
  if (axes.row >= 0 || axes.col >= 0) {
    if (axes.row < 0 || axes.col >= nd || axes.row >= axes.col) {
      m.ok = false;
      m.error = absl::StrFormat("order axes [%d, %d] are not two distinct axes of a %d-d tensor", axes.row,
                                axes.col, nd);
      return m;
    }
    m.row_axis = axes.row;
    m.col_axis = axes.col;
  }
  return m;
}

std::string OffsetsText(absl::Span<const int64_t> o) { return "[" + absl::StrJoin(o, ", ") + "]"; }
std::string ShapeText(const std::vector<int64_t>& s) { return "[" + absl::StrJoin(s, ", ") + "]"; }

}  // namespace

std::vector<Issue> LoadTile(CoreMemory& mem, Tile& dst, const GmTensor& src,
                            absl::Span<const int64_t> offsets, bool transpose, TouchedRuns* touched,
                            TransferAxes axes) {
  std::vector<Issue> issues;
  Mapping m = MapAxes(src, offsets, axes);
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
  // Leading axes are fixed by the offsets; rows and columns vary.
  bool lead_ok = true;
  int64_t base_flat = 0;
  for (size_t a = 0; a < m.base.size(); ++a) {
    base_flat += m.base[a] * strides[a];
    if (static_cast<int>(a) != m.row_axis && static_cast<int>(a) != m.col_axis &&
        (m.base[a] < 0 || m.base[a] >= src.shape[a]))
      lead_ok = false;
  }
  const int64_t rows_n = m.row_axis >= 0 ? src.shape[m.row_axis] : 1;
  const int64_t cols_n = src.shape[m.col_axis];
  const int64_t r0 = m.row_axis >= 0 ? m.base[m.row_axis] : 0;
  const int64_t c0 = m.base[m.col_axis];
  const int64_t rs = m.row_axis >= 0 ? strides[m.row_axis] : 0;
  const int64_t cs = strides[m.col_axis];  // 1 unless `order` picks an inner axis other than the last
  const size_t tes = dst.elem_size();
  for (int64_t r = 0; r < dst.valid_rows; ++r) {
    // Fast path: a row segment copied in runs the tile's layout keeps contiguous (the whole
    // segment for ND, 32-byte fractal rows for NZ).
    if (!transpose && same_type && lead_ok && cs == 1) {
      const int64_t gr = r0 + r;
      int64_t lo = std::max<int64_t>(0, -c0), hi = std::min<int64_t>(dst.valid_cols, cols_n - c0);
      if (gr < 0 || gr >= rows_n) { lo = 0; hi = 0; }
      if (hi < lo) hi = lo;
      const int64_t bad = dst.valid_cols - (hi - lo);
      if (bad > 0 && oob == 0) { first_oob_r = r; first_oob_c = (lo > 0 || hi == lo) ? 0 : hi; }
      oob += bad;
      for (int64_t c = lo; c < hi;) {
        const int64_t run = dst.RowRun(c, hi);
        uint64_t off = dst.addr + dst.ElementOffset(r, c);
        uint64_t len = static_cast<uint64_t>(run) * tes;
        if (off + len <= buf.bytes.size()) {
          buf.Touch(off, off + len);
          std::memcpy(buf.bytes.data() + off, src.data.data() + (base_flat + r * rs + c) * static_cast<int64_t>(es), len);
          std::memset(buf.written.data() + off, 1, len);
          if (!buf.origin.empty()) std::fill_n(buf.origin.begin() + off, len, WriteOrigin{mem.op_line, -1, 0});
          AppendRun(touched, base_flat + r * rs + c, run);
        }
        c += run;
      }
      continue;
    }
    for (int64_t c = 0; c < dst.valid_cols; ++c) {
      const int64_t gr = r0 + (transpose ? c : r);
      const int64_t gc = c0 + (transpose ? r : c);
      if (!lead_ok || gr < 0 || gr >= rows_n || gc < 0 || gc >= cols_n || (m.row_axis < 0 && gr != 0)) {
        if (oob++ == 0) { first_oob_r = r; first_oob_c = c; }
        continue;
      }
      const int64_t flat = base_flat + (gr - r0) * rs + (gc - c0) * cs;
      uint64_t off = dst.addr + dst.ElementOffset(r, c);
      if (off + tes > buf.bytes.size()) continue;
      buf.Touch(off, off + tes);
      if (same_type) std::memcpy(buf.bytes.data() + off, src.data.data() + flat * static_cast<int64_t>(es), es);
      else StoreScalar(dst.type.dtype, buf.bytes.data() + off, src.GetAsDouble(flat));
      std::memset(buf.written.data() + off, 1, tes);
      if (!buf.origin.empty()) std::fill_n(buf.origin.begin() + off, tes, WriteOrigin{mem.op_line, -1, 0});
      AppendRun(touched, flat, 1);
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
                             absl::Span<const int64_t> offsets, int core_id, const FixOptions* fix,
                             TouchedRuns* touched, TouchedRuns* changed, TransferAxes axes, bool atomic_add) {
  std::vector<Issue> issues;
  Mapping m = MapAxes(dst, offsets, axes);
  if (!m.ok) {
    issues.push_back({hazard::kRuntimeError, "pl.store: " + m.error});
    return issues;
  }
  const SpaceBuffer& buf = mem.Get(src.type.space);
  const auto strides = dst.Strides();
  const size_t es = DTypeSize(dst.dtype);
  const bool same_type = src.type.dtype == dst.dtype;
  // Elements another core already wrote: with different bytes (a race: the result depends
  // on which core writes last) or with the same bytes (redundant; order-independent).
  int64_t oob = 0, undef = 0, multi = 0, multi_same = 0;
  int other_core = -1, other_core_same = -1;
  // The first never-written element stored (tile row, column) and the line that last wrote
  // its bytes from never-written inputs (0: nothing wrote them in this run; only known when
  // provenance is recorded).
  int64_t undef_r = -1, undef_c = -1;
  int32_t undef_line = 0;
  auto note_undef = [&](int64_t r, int64_t c, uint64_t off) {
    if (undef_r >= 0) return;
    undef_r = r;
    undef_c = c;
    if (off < buf.origin.size()) undef_line = buf.origin[off].line;
  };
  bool lead_ok = true;
  int64_t base_flat = 0;
  for (size_t a = 0; a < m.base.size(); ++a) {
    base_flat += m.base[a] * strides[a];
    if (static_cast<int>(a) != m.row_axis && static_cast<int>(a) != m.col_axis &&
        (m.base[a] < 0 || m.base[a] >= dst.shape[a]))
      lead_ok = false;
  }
  const int64_t rows_n = m.row_axis >= 0 ? dst.shape[m.row_axis] : 1;
  const int64_t cols_n = dst.shape[m.col_axis];
  const int64_t r0 = m.row_axis >= 0 ? m.base[m.row_axis] : 0;
  const int64_t c0 = m.base[m.col_axis];
  const int64_t rs = m.row_axis >= 0 ? strides[m.row_axis] : 0;
  const int64_t cs = strides[m.col_axis];
  const size_t tes = src.elem_size();
  const bool transform = fix && (fix->relu || fix->has_scale || fix->PerChannel());
  int64_t undef_scale = 0;  // per-channel scale values never written, used by a stored element
  const bool origins = !buf.origin.empty();
  dst.Writers();  // the store tracks its writes from here on
  if (origins && dst.origin.size() != dst.writer.size()) {
    dst.origin.assign(dst.writer.size(), WriteOrigin{});
    dst.store_line.assign(dst.writer.size(), 0);
  }
  auto track = [&](int64_t flat, uint64_t off) {
    if (origins) {
      dst.origin[flat] = buf.origin[off];
      dst.store_line[flat] = mem.op_line;
    }
    int32_t& w = dst.writer[flat];
    if (w < 0) w = core_id;
  };
  // Counts a write over an element that core `w` wrote, with the same or with different bytes.
  auto count_foreign = [&](int32_t w, bool same) {
    if (same) {
      ++multi_same;
      other_core_same = w;
    } else {
      ++multi;
      other_core = w;
    }
  };
  // Appends element `flat` to `changed` (extending its last run) when its bytes changed.
  auto note_changed_run = [&](int64_t flat, int64_t n) {
    if (!changed->empty() && changed->back().first + changed->back().second == flat) changed->back().second += n;
    else changed->emplace_back(flat, n);
  };
  auto note_changed = [&](int64_t flat, bool differs) {
    if (differs) note_changed_run(flat, 1);
  };
  for (int64_t r = 0; r < src.valid_rows; ++r) {
    if (same_type && !transform && !atomic_add && lead_ok && cs == 1) {
      const int64_t gr = r0 + r;
      int64_t lo = std::max<int64_t>(0, -c0), hi = std::min<int64_t>(src.valid_cols, cols_n - c0);
      if (gr < 0 || gr >= rows_n) { lo = 0; hi = 0; }
      if (hi < lo) hi = lo;
      oob += src.valid_cols - (hi - lo);
      for (int64_t c = lo; c < hi;) {
        const int64_t run = src.RowRun(c, hi);
        uint64_t off = src.addr + src.ElementOffset(r, c);
        uint64_t len = static_cast<uint64_t>(run) * tes;
        if (off + len <= buf.bytes.size()) {
          const int64_t flat0 = base_flat + r * rs + c;
          const uint8_t* next = buf.bytes.data() + off;
          uint8_t* out = dst.data.data() + flat0 * static_cast<int64_t>(es);
          int32_t* writer = dst.writer.data() + flat0;
          // One pass over the run before its bytes are copied: another core's elements, the
          // elements whose bytes change, and this core as the writer of fresh elements.
          // A run wholly fresh or wholly this core's (the common case: one core stores each
          // element once) is settled by one branch-free scan; otherwise blocks of 16 that are
          // wholly fresh or wholly this core's are settled at once.
          constexpr int64_t kBlock = 16;
          const bool settled = SettleRunWriters(writer, run, core_id);
          for (int64_t b = 0; !settled && b < run; b += kBlock) {
            const int64_t e = std::min(run, b + kBlock);
            if (e - b == kBlock) {
              int32_t all = -1, mine = 0;
              for (int64_t j = 0; j < kBlock; ++j) {
                all &= writer[b + j];
                mine |= writer[b + j] ^ core_id;
              }
              if (mine == 0) continue;
              if (all < 0) {
                std::fill_n(writer + b, kBlock, core_id);
                continue;
              }
            }
            for (int64_t i = b; i < e; ++i) {
              const int32_t w = writer[i];
              if (w >= 0 && w != core_id)
                count_foreign(w, SameElement(out + i * static_cast<int64_t>(es), next + i * tes, es));
              else if (w < 0) writer[i] = core_id;
            }
          }
          if (changed && std::memcmp(out, next, len) != 0) {
            // The runs of elements whose bytes differ, each appended once (same_type: tes == es).
            ForDifferingRuns(out, next, run, es, [&](int64_t i, int64_t n) { note_changed_run(flat0 + i, n); });
          }
          if (origins) {
            for (int64_t i = 0; i < run; ++i) {
              dst.origin[flat0 + i] = buf.origin[off + i * tes];
              dst.store_line[flat0 + i] = mem.op_line;
            }
          }
          std::memcpy(out, next, len);
          if (std::memchr(buf.written.data() + off, 0, len) != nullptr) {
            for (int64_t i = 0; i < run; ++i)
              if (std::memchr(buf.written.data() + off + i * tes, 0, tes) != nullptr) {
                ++undef;
                note_undef(r, c + i, off + i * tes);
              }
          }
          AppendRun(touched, flat0, run);
        }
        c += run;
      }
      continue;
    }
    for (int64_t c = 0; c < src.valid_cols; ++c) {
      const int64_t gr = r0 + r, gc = c0 + c;
      if (!lead_ok || gr < 0 || gr >= rows_n || gc < 0 || gc >= cols_n || (m.row_axis < 0 && r != 0)) { ++oob; continue; }
      const int64_t flat = base_flat + r * rs + c * cs;
      uint64_t off = src.addr + src.ElementOffset(r, c);
      if (off + tes > buf.bytes.size()) continue;
      if (std::memchr(buf.written.data() + off, 0, tes) != nullptr) {
        ++undef;
        note_undef(r, c, off);
      }
      uint8_t* out = dst.data.data() + flat * static_cast<int64_t>(es);
      const int32_t w = dst.writer[flat];
      const bool foreign = !atomic_add && w >= 0 && w != core_id;  // atomic adds do not overwrite
      uint8_t before[16];  // an element is at most 8 bytes
      if (foreign || changed) std::memcpy(before, out, es);
      if (atomic_add) {
        const double v = fix ? FixConvert(*fix, LoadScalar(src.type.dtype, buf.bytes.data() + off), c, dst.dtype)
                             : LoadScalar(src.type.dtype, buf.bytes.data() + off);
        dst.SetFromDouble(flat, dst.GetAsDouble(flat) + v);
        if (fix && fix->PerChannel() &&
            (c >= static_cast<int64_t>(fix->channel_written.size()) || !fix->channel_written[c]))
          ++undef_scale;
      } else if (fix) {
        dst.SetFromDouble(flat, FixConvert(*fix, LoadScalar(src.type.dtype, buf.bytes.data() + off), c, dst.dtype));
        if (fix->PerChannel() && (c >= static_cast<int64_t>(fix->channel_written.size()) || !fix->channel_written[c]))
          ++undef_scale;
      }
      else if (same_type) std::memcpy(out, buf.bytes.data() + off, es);
      else dst.SetFromDouble(flat, LoadScalar(src.type.dtype, buf.bytes.data() + off));
      if (foreign) count_foreign(w, SameElement(before, out, es));  // the converted value
      if (changed) note_changed(flat, !SameElement(before, out, es));
      track(flat, off);
      AppendRun(touched, flat, 1);
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
                                      "in this run to tensor '%s' (first: tile element [%d, %d]%s)",
                                      undef, src.name, dst.name, undef_r, undef_c,
                                      buf.origin.empty() ? std::string()
                                      : undef_line > 0
                                          ? absl::StrFormat(", computed at line %d from never-written inputs",
                                                            undef_line)
                                          : std::string(", not written by any operation"))});
  }
  if (undef_scale > 0) {
    issues.push_back({hazard::kUninitRead,
                      absl::StrFormat("pl.store quantises %d element(s) of tile '%s' with per-channel scale values "
                                      "of its Scaling tile that were never written in this run",
                                      undef_scale, src.name)});
  }
  if (multi > 0) {
    issues.push_back({hazard::kOutputMultiWriter,
                      absl::StrFormat("core %d writes %d element(s) of tensor '%s' already written by core %d "
                                      "with other values (the result depends on which core writes last)",
                                      core_id, multi, dst.name, other_core)});
  }
  if (multi_same > 0) {
    issues.push_back({hazard::kOutputMultiWriterSame,
                      absl::StrFormat("core %d writes %d element(s) of tensor '%s' already written by core %d, "
                                      "with the same values (performance_optimization.md: each output region "
                                      "is written by one core)",
                                      core_id, multi_same, dst.name, other_core_same)});
  }
  if (!same_type && !fix) {
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("pl.store of %s tile '%s' into %s tensor '%s'",
                                      std::string(DTypeName(src.type.dtype)), src.name,
                                      std::string(DTypeName(dst.dtype)), dst.name)});
  }
  return issues;
}

}  // namespace opdev::sim
