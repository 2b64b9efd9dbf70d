// Element access of one tile in a core's memory for the tile operations (tile_ops.cpp,
// tile_index_ops.cpp, tile_quant.cpp): values by (row, column) through the tile's layout, with
// the written flag of every byte checked on read and set on write, and the report of
// never-written elements read.
#pragma once

#include "opdev/sim/data_movement.h"
#include "opdev/sim/hazards.h"
#include "opdev/sim/memory.h"
#include "opdev/sim/tile.h"

#include "absl/strings/str_format.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace opdev::sim::tileop {

// Access helper for one tile in a core's memory.
struct View {
  SpaceBuffer* buf;
  const Tile* t;
  int32_t line = 0;  // provenance stamp
  bool InRange(int64_t r, int64_t c) const {
    return t->addr + t->ElementOffset(r, c) + t->elem_size() <= buf->bytes.size();
  }
  // The written flags of one element's bytes are checked and set inline (an element is 1 to
  // 8 bytes; a library call per element costs more than the loop).
  double Get(int64_t r, int64_t c, bool* undef) const {
    const uint8_t* p = Read(r, c, undef);
    return p ? LoadScalar(t->type.dtype, p) : 0;
  }
  void Set(int64_t r, int64_t c, double v, bool defined) {
    if (uint8_t* p = Write(r, c, defined)) StoreScalar(t->type.dtype, p, v);
  }
  // An integer element, sign-extended for signed dtypes (exact in every width).
  int64_t GetInt(int64_t r, int64_t c, bool* undef) const {
    const uint8_t* p = Read(r, c, undef);
    if (!p) return 0;
    const size_t es = t->elem_size();
    uint64_t bits = 0;
    std::memcpy(&bits, p, es);
    if (IsSigned(t->type.dtype) && es < 8 && (bits >> (es * 8 - 1)) & 1) bits |= ~0ULL << (es * 8);
    return static_cast<int64_t>(bits);
  }
  // The low bytes of v (two's complement) as the element.
  void SetInt(int64_t r, int64_t c, int64_t v, bool defined) {
    const uint64_t bits = static_cast<uint64_t>(v);
    if (uint8_t* p = Write(r, c, defined)) std::memcpy(p, &bits, t->elem_size());
  }

 private:
  // The bytes of element (r, c), with *undef set when one of them was never written; nullptr
  // (and *undef) when the element lies past the buffer.
  const uint8_t* Read(int64_t r, int64_t c, bool* undef) const {
    const uint64_t off = t->addr + t->ElementOffset(r, c);
    const size_t es = t->elem_size();
    if (off + es > buf->bytes.size()) { *undef = true; return nullptr; }
    const uint8_t* w = buf->written.data() + off;
    for (size_t k = 0; k < es; ++k)
      if (w[k] == 0) { *undef = true; break; }
    return buf->bytes.data() + off;
  }
  // The bytes of element (r, c) about to be written, their written flags and provenance set;
  // nullptr when the element lies past the buffer.
  uint8_t* Write(int64_t r, int64_t c, bool defined) {
    const uint64_t off = t->addr + t->ElementOffset(r, c);
    const size_t es = t->elem_size();
    if (off + es > buf->bytes.size()) return nullptr;
    buf->Touch(off, off + es);
    uint8_t* w = buf->written.data() + off;
    for (size_t k = 0; k < es; ++k) w[k] = defined ? 1 : 0;
    if (!buf->origin.empty()) std::fill_n(buf->origin.begin() + off, es, WriteOrigin{line, -1, 0});
    return buf->bytes.data() + off;
  }
};

inline View V(CoreMemory& mem, const Tile& t) { return View{&mem.Get(t.type.space), &t, mem.op_line}; }

// Copies `n` bytes at `from_off` of `from` to `to_off` of `to` unchanged, with their written
// flags and the provenance of this operation (gather-style ops move bytes, they do not convert
// them); nothing when either range leaves its buffer.
inline void CopyBytes(SpaceBuffer& to, uint64_t to_off, const SpaceBuffer& from, uint64_t from_off, size_t n,
                      int32_t line) {
  if (to_off + n > to.bytes.size() || from_off + n > from.bytes.size()) return;
  to.Touch(to_off, to_off + n);
  std::memmove(to.bytes.data() + to_off, from.bytes.data() + from_off, n);
  std::memmove(to.written.data() + to_off, from.written.data() + from_off, n);
  if (!to.origin.empty()) std::fill_n(to.origin.begin() + to_off, n, WriteOrigin{line, -1, 0});
}

// Element (sr, sc) of `from` into element (r, c) of `to`.
inline void CopyElement(View& to, int64_t r, int64_t c, const View& from, int64_t sr, int64_t sc) {
  CopyBytes(*to.buf, to.t->addr + to.t->ElementOffset(r, c), *from.buf, from.t->addr + from.t->ElementOffset(sr, sc),
            to.t->elem_size(), to.line);
}

inline void ReportUndef(std::vector<Issue>& issues, int64_t n, const char* op, const Tile& out) {
  if (n > 0)
    issues.push_back({hazard::kUninitUse,
                      absl::StrFormat("%s into tile '%s' reads %d element(s) never written in this run (the "
                                      "results computed from them stay undefined)",
                                      op, out.name, n)});
}

}  // namespace opdev::sim::tileop
