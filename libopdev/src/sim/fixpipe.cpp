// The fixpipe conversion of Acc elements (ReLU, quantisation scale, destination dtype).
#include "opdev/sim/fixpipe.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace opdev::sim {

float DeqScale(uint32_t bits) {
  bits &= 0xFFFFE000u;  // 1 sign + 8 exponent + 10 mantissa bits take part (pypto-matmul.md)
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float DeqTensorScale(uint64_t element) { return DeqScale(static_cast<uint32_t>(element & 0xFFFFFFFFu)); }

double FixConvert(const FixOptions& fix, double v, int64_t col, DType dst) {
  if (fix.relu && v < 0) v = 0;
  if (fix.PerChannel()) {
    const float s = col >= 0 && col < static_cast<int64_t>(fix.channel.size()) ? fix.channel[col] : 0.0f;
    v = static_cast<float>(static_cast<float>(v) * s);
  } else if (fix.has_scale) {
    v = static_cast<float>(static_cast<float>(v) * fix.scale);
  }
  if (!IsFloating(dst) && !std::isnan(v)) {
    double lo = 0, hi = 0;
    switch (dst) {
      case DType::kInt8: lo = -128; hi = 127; break;
      case DType::kUInt8: lo = 0; hi = 255; break;
      case DType::kInt16: lo = -32768; hi = 32767; break;
      case DType::kUInt16: lo = 0; hi = 65535; break;
      case DType::kInt32: lo = -2147483648.0; hi = 2147483647.0; break;
      default: lo = -9.2e18; hi = 9.2e18; break;
    }
    v = std::clamp(std::nearbyint(v), lo, hi);
  }
  return v;
}

}  // namespace opdev::sim
