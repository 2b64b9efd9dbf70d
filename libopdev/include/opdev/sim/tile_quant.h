// The per-row quantisation tile operations pl.quant and pl.dequant (quant.md, dequant.md).
#pragma once

#include "opdev/sim/data_movement.h"
#include "opdev/sim/memory.h"
#include "opdev/sim/tile.h"

#include <vector>

namespace opdev::sim::tileop {

// quant.md: out = clamp(round(src * scale[r]), -128, 127) into INT8 (symmetric), or
// clamp(round(src * scale[r]) + offset[r], 0, 255) into UINT8 (asymmetric; `offset` non-null);
// src and the per-row scale / offset tiles FP32, the product in FP32, round half to even.
std::vector<Issue> Quant(CoreMemory& mem, Tile& out, const Tile& src, const Tile& scale, const Tile* offset);
// dequant.md: out = (src - offset[r]) * scale[r] in FP32, src INT8 or INT16.
std::vector<Issue> Dequant(CoreMemory& mem, Tile& out, const Tile& src, const Tile& scale, const Tile& offset);

}  // namespace opdev::sim::tileop
