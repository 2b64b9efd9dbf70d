// Capacities and alignments of the on-chip memories per target.
#include "opdev/support/target.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace opdev {

std::string_view TargetName(Target t) { return t == Target::kA5 ? "a5" : "a3"; }

std::optional<Target> ParseTarget(std::string_view name) {
  std::string n = absl::AsciiStrToLower(std::string(name));
  if (n == "a5" || n == "ascend950") return Target::kA5;
  if (n == "a3") return Target::kA3;
  return std::nullopt;
}

const std::vector<MemSpaceInfo>& OnChipSpaces(Target t) {
  static const std::vector<MemSpaceInfo> a5 = {
      {MemSpace::kVec, "Vec", "UB", 253952, 32},
      {MemSpace::kMat, "Mat", "L1", 524288, 32},
      {MemSpace::kLeft, "Left", "L0A", 65536, 512},
      {MemSpace::kRight, "Right", "L0B", 65536, 512},
      {MemSpace::kAcc, "Acc", "L0C", 262144, 64},
      // Not stated by the PyPTO-Pro docs (MemorySpace.md: Bias has no make_tile mapping in the
      // CCE codegen, yet matmul.md's bias samples allocate it): 4 KB bias table assumed.
      {MemSpace::kBias, "Bias", "BT", 4096, 64},
      // soc.cpp fallback fbuf_size (7 KB); block_ops.py enforces no alignment.
      {MemSpace::kScaling, "Scaling", "FB", 7168, 1},
      // MemorySpace.md: 4 KB each, 32 B aligned, address = paired Left/Right address >> 4.
      {MemSpace::kScaleLeft, "ScaleLeft", "L0A-scale", 4096, 32},
      {MemSpace::kScaleRight, "ScaleRight", "L0B-scale", 4096, 32},
  };
  static const std::vector<MemSpaceInfo> a3 = {
      {MemSpace::kVec, "Vec", "UB", 196608, 32},
      {MemSpace::kMat, "Mat", "L1", 524288, 32},
      {MemSpace::kLeft, "Left", "L0A", 65536, 512},
      {MemSpace::kRight, "Right", "L0B", 65536, 512},
      {MemSpace::kAcc, "Acc", "L0C", 131072, 64},
      {MemSpace::kBias, "Bias", "BT", 1024, 64},
      {MemSpace::kScaling, "Scaling", "FB", 7168, 1},
  };
  return t == Target::kA5 ? a5 : a3;
}

const MemSpaceInfo* FindSpace(Target t, MemSpace s) {
  for (const auto& info : OnChipSpaces(t))
    if (info.space == s) return &info;
  return nullptr;
}

std::string_view MemSpaceName(MemSpace s) {
  switch (s) {
    case MemSpace::kGM: return "GM";
    case MemSpace::kVec: return "Vec";
    case MemSpace::kMat: return "Mat";
    case MemSpace::kLeft: return "Left";
    case MemSpace::kRight: return "Right";
    case MemSpace::kAcc: return "Acc";
    case MemSpace::kBias: return "Bias";
    case MemSpace::kScaling: return "Scaling";
    case MemSpace::kScaleLeft: return "ScaleLeft";
    case MemSpace::kScaleRight: return "ScaleRight";
  }
  return "GM";
}

std::optional<MemSpace> ParseMemSpace(std::string_view name) {
  std::string_view n = name;
  if (auto pos = n.rfind('.'); pos != std::string_view::npos) n = n.substr(pos + 1);
  std::string l = absl::AsciiStrToLower(std::string(n));
  if (l == "gm" || l == "ddr") return MemSpace::kGM;
  if (l == "vec" || l == "ub") return MemSpace::kVec;
  if (l == "mat" || l == "l1") return MemSpace::kMat;
  if (l == "left" || l == "l0a") return MemSpace::kLeft;
  if (l == "right" || l == "l0b") return MemSpace::kRight;
  if (l == "acc" || l == "l0c") return MemSpace::kAcc;
  if (l == "bias" || l == "bt") return MemSpace::kBias;
  if (l == "scaling" || l == "fb") return MemSpace::kScaling;
  if (l == "scaleleft") return MemSpace::kScaleLeft;
  if (l == "scaleright") return MemSpace::kScaleRight;
  return std::nullopt;
}

}  // namespace opdev
