// Per-core state of the simulator and the launch plan (which cores a launch runs).
#include "core_context.h"

#include "absl/strings/str_format.h"

namespace opdev::sim {

std::string_view CoreKindName(CoreKind k) { return k == CoreKind::kAic ? "AIC" : "AIV"; }

std::string_view LaunchKindName(LaunchKind k) {
  switch (k) {
    case LaunchKind::kVectorOnly: return "vector-only";
    case LaunchKind::kCubeOnly: return "cube-only";
    case LaunchKind::kMixed: return "mixed";
  }
  return "vector-only";
}

bool CoreContext::Owns(MemSpace s) const {
  switch (s) {
    case MemSpace::kGM: return true;
    case MemSpace::kVec: return kind == CoreKind::kAiv;
    case MemSpace::kMat: case MemSpace::kLeft: case MemSpace::kRight: case MemSpace::kAcc:
    case MemSpace::kBias: case MemSpace::kScaling: case MemSpace::kScaleLeft:
    case MemSpace::kScaleRight:
      return kind == CoreKind::kAic;
  }
  return false;
}

bool CoreContext::Runs(Section s) const {
  switch (s) {
    case Section::kNone: return true;
    case Section::kVector: return kind == CoreKind::kAiv;
    case Section::kCube: return kind == CoreKind::kAic;
  }
  return true;
}

std::string CoreContext::Name() const {
  if (launch == LaunchKind::kMixed && kind == CoreKind::kAiv)
    return absl::StrFormat("AIV %d (block %d, subblock %d)", BlockIdx(), block_idx, subblock_idx);
  return absl::StrFormat("%s %d", std::string(CoreKindName(kind)), block_idx);
}

int CoresPerBlock(LaunchKind kind) { return kind == LaunchKind::kMixed ? 3 : 1; }

CoreContext PlanCore(LaunchKind kind, int64_t block_dim, int64_t ordinal) {
  CoreContext c;
  c.launch = kind;
  c.block_num = block_dim;
  c.ordinal = static_cast<int>(ordinal);
  const int per = CoresPerBlock(kind);
  c.block_idx = ordinal / per;
  const int64_t slot = ordinal % per;
  switch (kind) {
    case LaunchKind::kVectorOnly: c.kind = CoreKind::kAiv; break;
    case LaunchKind::kCubeOnly: c.kind = CoreKind::kAic; break;
    case LaunchKind::kMixed:
      c.kind = slot == 0 ? CoreKind::kAic : CoreKind::kAiv;
      c.subblock_idx = slot == 0 ? 0 : slot - 1;
      c.subblock_num = slot == 0 ? 1 : 2;
      break;
  }
  return c;
}

}  // namespace opdev::sim
