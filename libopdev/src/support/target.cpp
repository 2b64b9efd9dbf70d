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
  };
  static const std::vector<MemSpaceInfo> a3 = {
      {MemSpace::kVec, "Vec", "UB", 196608, 32},
      {MemSpace::kMat, "Mat", "L1", 524288, 32},
      {MemSpace::kLeft, "Left", "L0A", 65536, 512},
      {MemSpace::kRight, "Right", "L0B", 65536, 512},
      {MemSpace::kAcc, "Acc", "L0C", 131072, 64},
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
  }
  return "GM";
}

std::optional<MemSpace> ParseMemSpace(std::string_view name) {
  std::string_view n = name;
  if (auto pos = n.rfind('.'); pos != std::string_view::npos) n = n.substr(pos + 1);
  std::string l = absl::AsciiStrToLower(std::string(n));
  if (l == "gm") return MemSpace::kGM;
  if (l == "vec" || l == "ub") return MemSpace::kVec;
  if (l == "mat" || l == "l1") return MemSpace::kMat;
  if (l == "left" || l == "l0a") return MemSpace::kLeft;
  if (l == "right" || l == "l0b") return MemSpace::kRight;
  if (l == "acc" || l == "l0c") return MemSpace::kAcc;
  return std::nullopt;
}

}  // namespace opdev
