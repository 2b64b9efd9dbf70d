// The `vf.*` register operations as plain C++ over VReg/MaskReg, vectorised over whole
// registers. Numerics: float lanes are computed in fp32 (fp16/bf16 lanes are widened exactly,
// computed in fp32 and rounded back to nearest-even, which for + - * / equals a correctly
// rounded fp16/bf16 operation); transcendental functions use the C library in fp32.
// Masked-off lanes are zero (ZEROING) or keep `merge_src` (MERGING).
#pragma once

#include "opdev/sim/vreg.h"

#include <optional>
#include <utility>
#include <string_view>

namespace opdev::sim::vf {

enum class BinOp { kAdd, kSub, kMul, kDiv, kMax, kMin };
enum class UnOp { kExp, kLn, kSqrt, kAbs, kNeg, kRelu, kRsqrt, kRecip };
enum class CmpOp { kEq, kNe, kLt, kLe, kGt, kGe };
enum class ReduceOp { kSum, kMax, kMin };

std::optional<BinOp> ParseBinOp(std::string_view name);     // add sub mul div max min
std::optional<UnOp> ParseUnOp(std::string_view name);       // exp ln log sqrt abs neg relu
std::optional<CmpOp> ParseCmpOp(std::string_view name);     // eq ne lt le gt ge
std::optional<ReduceOp> ParseReduceOp(std::string_view name);  // reduce_sum/max/min

// create_mask(pattern, dtype): pattern names ALL, ALLF, VL1..VL128, H, Q, M3, M4.
std::optional<MaskReg> CreateMask(std::string_view pattern, DType dtype);
// update_mask(count, dtype): the first min(count, lanes) lanes.
MaskReg UpdateMask(int64_t count, DType dtype);

VReg Binary(BinOp op, const VReg& a, const VReg& b, const MaskReg& m,
            MergeMode mode = MergeMode::kZeroing, const VReg* merge_src = nullptr);
// adds/muls/maxs/mins: the scalar is converted to the register dtype first.
VReg BinaryScalar(BinOp op, const VReg& a, double s, const MaskReg& m);
VReg Unary(UnOp op, const VReg& a, const MaskReg& m, MergeMode mode = MergeMode::kZeroing,
           const VReg* merge_src = nullptr);
// exp(src0 - src1). For fp16 sources with out_dtype fp32, lane i of the result takes source
// lane 2i (ZERO) or 2i+1 (ONE), active when that source lane is active in the mask.
VReg ExpSub(const VReg& a, const VReg& b, const MaskReg& m, DType out_dtype, CastLayout layout);
// Result in lane 0, other lanes zero. Sum is a pairwise binary tree (fp16 accumulates in fp32).
VReg Reduce(ReduceOp op, const VReg& a, const MaskReg& m);
VReg FullScalar(double v, DType dtype, const MaskReg* m, MergeMode mode = MergeMode::kZeroing,
                const VReg* merge_src = nullptr);
// Broadcast lane 0 (or the highest lane) of src.
VReg FullLane(const VReg& src, const MaskReg& m, bool highest = false,
              MergeMode mode = MergeMode::kZeroing, const VReg* merge_src = nullptr);
// Active lanes take a, inactive lanes take b.
VReg Select(const VReg& a, const VReg& b, const MaskReg& m);
MaskReg Compare(CmpOp op, const VReg& a, const VReg& b, const MaskReg& m);
MaskReg CompareScalar(CmpOp op, const VReg& a, double s, const MaskReg& m);
// Widening (2x: lane i <- src lane 2i / 2i+1 by layout), narrowing (2x: src lane i -> dst lane
// 2i / 2i+1, other lanes zero) and same-width conversions; the mask filters source lanes.
VReg AsType(const VReg& a, const MaskReg& m, DType to, CastLayout layout);
// de_interleave.md: over the 2 * lanes elements of (src0, src1) in that order, dst0 takes the
// even elements and dst1 the odd ones. interleave.md, the inverse: the pair (dst0, dst1) holds
// src0_0, src1_0, src0_1, src1_1, ... Undefined lanes move with their values. The mask forms
// shuffle `width`-flag elements of the predicates the same way.
// and_ / or_ / xor / not_ (logical_computation/*.md): bitwise on each active lane's bit
// pattern (the mask filters by the source's element width), inactive lanes zero (ZEROING); a
// lane is undefined when a source lane is. The mask forms combine predicate bits under `m`.
enum class BitOp { kAnd, kOr, kXor, kNot };
VReg Bitwise(BitOp op, const VReg& a, const VReg* b, const MaskReg& m);
MaskReg Bitwise(BitOp op, const MaskReg& a, const MaskReg* b, const MaskReg& m);
// load_align dist=DINTLV_B8/B16/B32 (load_align.md): 2 * 256 bytes of `es`-byte elements, the
// even-indexed ones into the first register and the odd-indexed ones into the second.
std::pair<VReg, VReg> LoadDeInterleaved(const uint8_t* p, const uint8_t* written, DType dtype);
std::pair<VReg, VReg> DeInterleave(const VReg& src0, const VReg& src1);
std::pair<VReg, VReg> Interleave(const VReg& src0, const VReg& src1);
std::pair<MaskReg, MaskReg> DeInterleave(const MaskReg& src0, const MaskReg& src1);
std::pair<MaskReg, MaskReg> Interleave(const MaskReg& src0, const MaskReg& src1);

// Register <-> memory (the caller checks ranges): 256 bytes from `p`. `written` holds one
// flag per byte of the source (nullptr: all written).
VReg LoadBytes(const uint8_t* p, const uint8_t* written, DType dtype);
// Predicated store: writes the active lanes only, marking their bytes written (or not, for
// undefined lanes). Returns true when an active lane was undefined.
bool StoreBytes(const VReg& r, const MaskReg& m, uint8_t* p, uint8_t* written);

}  // namespace opdev::sim::vf
