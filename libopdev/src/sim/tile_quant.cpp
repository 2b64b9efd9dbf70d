// pl.quant / pl.dequant over tiles in a core's memory (tile_quant.h).
#include "opdev/sim/tile_quant.h"

#include "opdev/sim/hazards.h"

#include "tile_view.h"

#include "absl/strings/str_format.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace opdev::sim::tileop {

namespace {

std::string Dt(const Tile& t) { return std::string(DTypeName(t.type.dtype)); }

void Need(std::vector<Issue>& issues, const char* op, const char* role, const Tile& t, bool ok, const char* what) {
  if (!ok)
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("%s: %s tile '%s' is %s; %s (%s.md)", op, role, t.name, Dt(t), what, op + 3)});
}

void RowParams(std::vector<Issue>& issues, const char* op, const Tile& out, const Tile& p) {
  if (p.type.dtype != DType::kFloat32)
    issues.push_back({hazard::kTypeMismatch,
                      absl::StrFormat("%s: per-row tile '%s' is %s, not DT_FP32 (%s.md)", op, p.name, Dt(p), op + 3)});
  if (p.valid_rows != out.valid_rows)
    issues.push_back({hazard::kTileShapeAlign,
                      absl::StrFormat("%s: per-row tile '%s' has %d valid rows, out '%s' %d (%s.md: one value per row)",
                                      op, p.name, p.valid_rows, out.name, out.valid_rows, op + 3)});
}

void SameShape(std::vector<Issue>& issues, const char* op, const Tile& out, const Tile& src) {
  if (out.valid_rows != src.valid_rows || out.valid_cols != src.valid_cols)
    issues.push_back({hazard::kTileShapeAlign,
                      absl::StrFormat("%s: out '%s' valid shape [%d, %d] differs from src '%s''s [%d, %d]", op,
                                      out.name, out.valid_rows, out.valid_cols, src.name, src.valid_rows,
                                      src.valid_cols)});
}

}  // namespace

std::vector<Issue> Quant(CoreMemory& mem, Tile& out, const Tile& src, const Tile& scale, const Tile* offset) {
  std::vector<Issue> issues;
  const char* op = "pl.quant";
  const bool asym = offset != nullptr;
  Need(issues, op, "out", out, out.type.dtype == (asym ? DType::kUInt8 : DType::kInt8),
       asym ? "QuantMode.ASYM produces DT_UINT8" : "QuantMode.SYM produces DT_INT8");
  Need(issues, op, "src", src, src.type.dtype == DType::kFloat32, "the source is DT_FP32");
  SameShape(issues, op, out, src);
  RowParams(issues, op, out, scale);
  if (asym) RowParams(issues, op, out, *offset);
  if (!issues.empty()) return issues;
  View vo = V(mem, out), vs = V(mem, src), vk = V(mem, scale);
  View vz = asym ? V(mem, *offset) : vk;
  const double lo = asym ? 0 : -128, hi = asym ? 255 : 127;
  int64_t undef = 0;
  for (int64_t r = 0; r < out.valid_rows; ++r) {
    bool ru = false;
    const float k = static_cast<float>(vk.Get(r, 0, &ru));
    const float z = asym ? static_cast<float>(vz.Get(r, 0, &ru)) : 0.0f;
    for (int64_t c = 0; c < out.valid_cols; ++c) {
      bool u = ru;
      const float x = static_cast<float>(vs.Get(r, c, &u));
      // The product in FP32, rounded half to even (quant.md: round; the frontend's own tests
      // compare with torch.round), the zero point added, then saturated.
      double q = std::nearbyint(static_cast<double>(x * k));
      if (asym) q = std::nearbyint(q + static_cast<double>(z));
      if (std::isnan(q)) q = 0;
      vo.SetInt(r, c, static_cast<int64_t>(std::clamp(q, lo, hi)), !u);
      undef += u;
    }
  }
  ReportUndef(issues, undef, op, out);
  return issues;
}

std::vector<Issue> Dequant(CoreMemory& mem, Tile& out, const Tile& src, const Tile& scale, const Tile& offset) {
  std::vector<Issue> issues;
  const char* op = "pl.dequant";
  Need(issues, op, "out", out, out.type.dtype == DType::kFloat32, "the result is DT_FP32");
  Need(issues, op, "src", src, src.type.dtype == DType::kInt8 || src.type.dtype == DType::kInt16,
       "the source is DT_INT8 or DT_INT16");
  SameShape(issues, op, out, src);
  RowParams(issues, op, out, scale);
  RowParams(issues, op, out, offset);
  if (!issues.empty()) return issues;
  View vo = V(mem, out), vs = V(mem, src), vk = V(mem, scale), vz = V(mem, offset);
  int64_t undef = 0;
  for (int64_t r = 0; r < out.valid_rows; ++r) {
    bool ru = false;
    const float k = static_cast<float>(vk.Get(r, 0, &ru));
    const float z = static_cast<float>(vz.Get(r, 0, &ru));
    for (int64_t c = 0; c < out.valid_cols; ++c) {
      bool u = ru;
      const float x = static_cast<float>(vs.GetInt(r, c, &u));
      vo.Set(r, c, static_cast<double>((x - z) * k), !u);  // dequant.md: (src - offset) * scale, FP32
      undef += u;
    }
  }
  ReportUndef(issues, undef, op, out);
  return issues;
}

}  // namespace opdev::sim::tileop
