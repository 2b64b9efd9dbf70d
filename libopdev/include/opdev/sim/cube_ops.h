// The Cube data paths of the simulator, on the bytes of the cores' on-chip memories:
//  * CopyWindow: the MTE1 copy of pl.move (Mat -> Left/Right/Bias, 2-D extract and insert),
//    element by element through both tiles' layouts, converting the dtype when it differs
//    (FP16/BF16 -> FP32 for Bias) and carrying each element's written bit;
//  * CopyWindowFix: the FIX copy of pl.move Acc -> Vec (fixpipe.h conversion);
//  * Matmul: pl.matmul / pl.matmul_acc, dst = lhs x rhs (+ bias row | + acc), with products
//    exact and accumulation in FP32 (INT32 for INT8) in a fixed order: each output element
//    starts from its initial value (0, bias[n] or acc[m, n]) and adds lhs[m, k] * rhs[k, n]
//    for k = 0, 1, ..., K-1, one rounding per step (a fused multiply-add). Run to run and
//    machine to machine the result is bit-identical. An output element is "written" only when
//    every input it read was, so stale pads surface only if they reach a stored result.
// Shapes, spaces and dtypes are checked by the callers (builtins_cube.cpp).
#pragma once

#include "opdev/sim/fixpipe.h"
#include "opdev/sim/memory.h"
#include "opdev/sim/tile.h"

#include <cstdint>

namespace opdev::sim::cube {

// dst[dr + r, dc + c] = src[sr + r, sc + c] for r < rows, c < cols.
void CopyWindow(CoreMemory& mem, Tile& dst, int64_t dr, int64_t dc, const Tile& src, int64_t sr,
                int64_t sc, int64_t rows, int64_t cols);
// The same copy between two cores' memories (Acc -> Vec into an AIV's UB, Vec -> Mat into the
// AIC's L1): `dst` lives in `dmem`, `src` in `smem` (which may be the same memory).
void CopyWindow(CoreMemory& dmem, Tile& dst, int64_t dr, int64_t dc, const CoreMemory& smem, const Tile& src,
                int64_t sr, int64_t sc, int64_t rows, int64_t cols);

// The FIX copy of pl.move Acc -> Vec: each Acc element through the fixpipe (FixConvert, the
// per-channel scale chosen by its Acc column); an element counts as written when its Acc bytes
// and (per-channel) its scale value were.
void CopyWindowFix(CoreMemory& dmem, Tile& dst, int64_t dr, int64_t dc, const CoreMemory& smem, const Tile& src,
                   int64_t sr, int64_t sc, int64_t rows, int64_t cols, const FixOptions& fix);

struct MatmulOperands {
  Tile* dst = nullptr;
  const Tile* lhs = nullptr;     // [M, K]: M = valid rows, K = valid cols
  const Tile* rhs = nullptr;     // [K, N]: N = valid cols
  const Tile* bias = nullptr;    // optional [1, >= N] FP32 row
  const Tile* acc_in = nullptr;  // optional accumulator read (matmul_acc)
};
// Returns the number of output elements left undefined (some input never written).
int64_t Matmul(CoreMemory& mem, const MatmulOperands& ops);

// The GEMM kernel behind Matmul: C[M, N] (row-major, holding the initial values) +=
// A[M, K] x B[K, N] (row-major), per element k = 0..K-1 in order, each step one fused
// multiply-add (std::fma). `exact_products`: the caller's word that every product is exact in
// float (FP16 inputs; BF16 inputs unless a product leaves the FP32 range), which lets a CPU
// without an FMA unit take the plain multiply-add, equal for exact products, instead of the
// library's std::fma; the vector kernels always fuse. Exposed for the benchmark and tests.
void GemmF32(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k,
             bool exact_products);
// One GEMM variant by its vector width in floats (1: the portable loops, 8: AVX2 + FMA, 16:
// AVX-512), whatever GemmF32 chose (tests). False, with nothing written, when the CPU lacks
// its instructions.
bool GemmF32Variant(int lanes, const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k,
                    bool exact_products);
// INT8 x INT8 -> INT32 (wrapping as the 32-bit hardware accumulator).
void GemmI32(const int32_t* a, const int32_t* b, int32_t* c, int64_t m, int64_t n, int64_t k);

}  // namespace opdev::sim::cube
