// The VF register file model: 256-byte vector registers (RegTensor) holding lanes of one dtype
// in their hardware bit patterns, and 256-bit predicate registers (MaskReg). A mask keeps one
// bit per register byte, as the hardware does: element i of a b-byte dtype is active when bit
// i*b is set, so a mask built for one width and used for another behaves as on the device.
// Registers also carry which lanes hold bytes never written in this run ("undefined").
#pragma once

#include "opdev/support/dtype.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace opdev::sim {

inline constexpr int kVRegBytes = 256;

struct VReg {
  alignas(64) std::array<uint8_t, kVRegBytes> raw;  // zeroed unless built as Uninit
  DType dtype = DType::kFloat32;
  bool any_undef = false;
  // Per lane (index < Lanes()); valid only while any_undef, and then every lane is set (left
  // uninitialised otherwise: a register is built per operation and most have no such lane).
  std::array<uint8_t, kVRegBytes> undef;

  VReg() : raw{} {}
  // A register whose every byte of `raw` its builder writes before anything reads it (the lane
  // operations' results): no zero fill, which would cost as much as a cheap operation.
  struct Uninit {};
  explicit VReg(Uninit) {}
  // A copy carries `undef` only when it is valid (most registers have no undefined lane, and
  // every operation builds and copies one register).
  VReg(const VReg& o) : raw(o.raw), dtype(o.dtype), any_undef(o.any_undef) {
    if (any_undef) undef = o.undef;
  }
  VReg& operator=(const VReg& o) {
    raw = o.raw;
    dtype = o.dtype;
    any_undef = o.any_undef;
    if (any_undef) undef = o.undef;
    return *this;
  }

  int ElemBytes() const {
    switch (dtype) {
      case DType::kFloat32: case DType::kInt32: case DType::kUInt32: return 4;
      case DType::kFloat16: case DType::kBFloat16: case DType::kInt16: case DType::kUInt16: return 2;
      case DType::kInt8: case DType::kUInt8: case DType::kBool: case DType::kHiFloat8: return 1;
      default: return 8;
    }
  }
  int Lanes() const { return kVRegBytes / ElemBytes(); }
  // Lane value as double (exact for every supported dtype except 64-bit integers > 2^53).
  double Get(int lane) const;
  void Set(int lane, double v);
  bool LaneUndef(int lane) const { return any_undef && undef[lane]; }
};

enum class MergeMode { kZeroing, kMerging };
enum class CastLayout { kZero, kOne, kTwo, kThree };

struct MaskReg {
  std::array<uint8_t, kVRegBytes> bit{};  // one flag per register byte
  int width = 4;  // element width in bytes the mask was built for (1, 2, 4, 8)

  bool Active(int lane, int elem_bytes) const { return bit[lane * elem_bytes] != 0; }
  int ActiveCount(int elem_bytes) const;
  // First `count` elements of `width` bytes active (clamped to the register).
  static MaskReg FirstN(int64_t count, int width);
  // The same in place: this mask becomes FirstN(count, width).
  void SetFirstN(int64_t count, int width);
};

// f(std::integral_constant<int, ES>{}) for a lane width `es` of 1, 2 or 4 bytes, else of 8: a
// lane loop written once over a constant count (which vectorises) serves every width.
template <typename F>
decltype(auto) WithLaneWidth(int es, F&& f) {
  switch (es) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 4: return f(std::integral_constant<int, 4>{});
    default: return f(std::integral_constant<int, 8>{});
  }
}

// 1 when a flag byte is set, else 0: flags are and-ed as bytes, without a branch.
inline uint8_t FlagSet(uint8_t b) { return static_cast<uint8_t>(b != 0); }

// Whether a lane of `r` that `m` makes active was computed from bytes never written (every
// lane looked at, without a branch per lane: the loops of the common widths vectorise).
template <int ES>
bool ActiveUndefN(const VReg& r, const MaskReg& m) {
  uint8_t hit = 0;
  for (int i = 0; i < kVRegBytes / ES; ++i)
    hit |= FlagSet(m.bit[static_cast<size_t>(i * ES)]) & FlagSet(r.undef[static_cast<size_t>(i)]);
  return hit != 0;
}
inline bool ActiveUndef(const VReg& r, const MaskReg& m) {
  if (!r.any_undef) return false;
  return WithLaneWidth(r.ElemBytes(), [&](auto es) { return ActiveUndefN<decltype(es)::value>(r, m); });
}

}  // namespace opdev::sim
