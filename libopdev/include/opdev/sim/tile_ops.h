// The tile ("membase") vector operations of `pl.*` over tiles in a core's memory: element-wise
// binary/unary ops (tile-tile and tile-scalar), bitwise ops on integer tiles, the part ops
// (partadd/max/min/mul over two valid regions), axpy, cast, expands, fill_index, transpose,
// row/column reductions (row results in [R,1] DN tiles), expand_* broadcasts, comparisons
// (tile-tile and tile-scalar), select and fillpad. Each
// operation covers the destination's valid window; values are computed in fp32 (fp64 for
// 32/64-bit integers) and stored with exact RNE rounding to the destination dtype.
#pragma once

#include "opdev/sim/data_movement.h"
#include "opdev/sim/memory.h"
#include "opdev/sim/tile.h"

#include <optional>
#include <string_view>
#include <vector>

namespace opdev::sim::tileop {

enum class Bin { kAdd, kSub, kMul, kDiv, kMax, kMin };
enum class Un { kExp, kLog, kSqrt, kRsqrt, kAbs, kNeg, kRelu, kRecip };
enum class Red { kSum, kMax, kMin };
enum class Cmp { kEq, kNe, kLt, kLe, kGt, kGe };
enum class FillPadMode { kNormal, kExpand, kInplace };
enum class Bit { kAnd, kOr, kXor, kShl, kShr };

std::optional<Bin> ParseBin(std::string_view name);  // add sub mul div maximum minimum
std::optional<Un> ParseUn(std::string_view name);    // exp log sqrt rsqrt abs neg relu recip

std::vector<Issue> Binary(CoreMemory& mem, Bin op, Tile& out, const Tile& a, const Tile& b);
std::vector<Issue> BinaryScalar(CoreMemory& mem, Bin op, Tile& out, const Tile& a, double s,
                                bool scalar_first = false);
std::vector<Issue> Unary(CoreMemory& mem, Un op, Tile& out, const Tile& a);
// Integer tiles only, exact in every width: and/or/xor, and shl/shr by a per-element amount
// (shr arithmetic for signed, logical for unsigned dtypes; an amount outside [0, bits) is an
// error: shl.md/shr.md leave its result undefined).
std::vector<Issue> Bitwise(CoreMemory& mem, Bit op, Tile& out, const Tile& a, const Tile& b);
std::vector<Issue> BitwiseScalar(CoreMemory& mem, Bit op, Tile& out, const Tile& a, int64_t s);
// partadd.md: over out's valid window, op where both sources are valid, the one valid source's
// value elsewhere; one source's valid shape must equal out's.
std::vector<Issue> PartBinary(CoreMemory& mem, Bin op, Tile& out, const Tile& a, const Tile& b);
// axpy.md: out = alpha * src + out (src FP16 into an FP32 out widens).
std::vector<Issue> Axpy(CoreMemory& mem, Tile& out, const Tile& src, double alpha);
// transpose.md: out[c, r] = src[r, c] over out's valid window; out and src must not overlap.
std::vector<Issue> Transpose(CoreMemory& mem, Tile& out, const Tile& src);
// fill_index.md: out[r, c] = start + c over out's valid window (INT16/INT32/UINT16/UINT32).
std::vector<Issue> FillIndex(CoreMemory& mem, Tile& out, int64_t start);
// A workspace tile (`tmp` of xor) after the operation: its valid window holds no defined value.
void Clobber(CoreMemory& mem, Tile& tmp);
std::vector<Issue> Cast(CoreMemory& mem, Tile& out, const Tile& a);
std::vector<Issue> Expands(CoreMemory& mem, Tile& out, double s);
// dim=0: per row over the columns into out[R,1] (DN); dim=1: per column into out[1,C].
std::vector<Issue> Reduce(CoreMemory& mem, Red op, Tile& out, const Tile& src, int dim);
// argmax.md/argmin.md: the column index of each row's extreme (dim=0, out [R,1]) or the row
// index of each column's (dim=1, out [1,C]) into an INT32/UINT32 tile; of equal extremes the
// first index (the docs do not say which).
std::vector<Issue> ArgReduce(CoreMemory& mem, bool is_max, Tile& out, const Tile& src, int dim);
// dim=0: vec is [R,1]; dim=1: vec is [1,C]. out = src (op) broadcast(vec).
std::vector<Issue> Expand(CoreMemory& mem, Bin op, Tile& out, const Tile& src, const Tile& vec,
                          int dim);
// out = 1/0 in out's dtype.
std::vector<Issue> Compare(CoreMemory& mem, Cmp op, Tile& out, const Tile& a, const Tile& b);
std::vector<Issue> CompareScalar(CoreMemory& mem, Cmp op, Tile& out, const Tile& a, double s);
// out = mask != 0 ? lhs : rhs.
std::vector<Issue> Select(CoreMemory& mem, Tile& out, const Tile& mask, const Tile& lhs,
                          const Tile& rhs);
// out = mask != 0 ? lhs : s.
std::vector<Issue> SelectScalar(CoreMemory& mem, Tile& out, const Tile& mask, const Tile& lhs, double s);
std::vector<Issue> FillPad(CoreMemory& mem, Tile& out, const Tile& src, FillPadMode mode);

// Value a pad kind stands for in a dtype (+/-inf for floats, limits for integers).
double PadValue(Pad p, DType t);

}  // namespace opdev::sim::tileop
