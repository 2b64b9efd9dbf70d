// The fixpipe (FIX) conversion of Acc (L0C) elements on their way to GM (pl.store /
// pl.store_tile) or to UB (pl.move Acc -> Vec): an optional ReLU (relu_pre_mode), then an
// optional quantisation scale (scale=: one per-tensor deqScalar, or one deqTensor value per
// column from a Scaling tile), multiplied in FP32, then the destination dtype (round to
// nearest even; integers saturate). store.md / move.md give the paths and their exclusions;
// the scale's precision (sign, 8 exponent and 10 mantissa bits of the float32 pattern, the
// deqTensor value in the low 32 bits of each INT64) is docs/zh/api/operation/pypto-matmul.md's.
#pragma once

#include "opdev/sim/tile.h"

#include <cstdint>
#include <vector>

namespace opdev::sim {

struct FixOptions {
  bool relu = false;
  bool has_scale = false;
  float scale = 1.0f;  // per-tensor, as the fixpipe uses it (DeqScale)
  // Per-channel (scale=Tile): the value of each column of the Scaling tile, and whether its
  // bytes were written in this run. Empty for per-tensor.
  std::vector<float> channel;
  std::vector<uint8_t> channel_written;
  bool PerChannel() const { return !channel.empty(); }
};

// The scale the fixpipe applies for the float32 bit pattern `bits`: its sign, exponent and the
// top 10 mantissa bits (the low 13 are dropped).
float DeqScale(uint32_t bits);
// The per-channel value of one INT64 deqTensor element: DeqScale of its low 32 bits.
float DeqTensorScale(uint64_t element);

// One Acc element `v` of tile column `col` through the fixpipe into `dst` (the result as a
// double the destination represents exactly after StoreScalar).
double FixConvert(const FixOptions& fix, double v, int64_t col, DType dst);

}  // namespace opdev::sim
