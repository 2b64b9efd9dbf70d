// Hardware targets (A5 = Ascend 950, A3) and their on-chip memory spaces: capacities and
// address alignment. The single source for every capacity check (contract, budget, sim).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opdev {

enum class Target { kA5, kA3 };

// PyPTO-Pro MemorySpace names; the hardware buffer each maps to is in the comment.
enum class MemSpace {
  kGM, kVec /*UB*/, kMat /*L1*/, kLeft /*L0A*/, kRight /*L0B*/, kAcc /*L0C*/,
  kBias /*BT: matmul bias table*/, kScaling /*FB: fixpipe quantisation parameters*/,
  kScaleLeft /*L0A MX scale domain*/, kScaleRight /*L0B MX scale domain*/,
};

struct MemSpaceInfo {
  MemSpace space;
  std::string_view name;      // "Vec", "Mat", "Left", "Right", "Acc", "Bias", ...
  std::string_view hardware;  // "UB", "L1", "L0A", "L0B", "L0C"
  std::uint64_t capacity;     // bytes on this target
  std::uint64_t alignment;    // required address alignment in bytes
};

std::string_view TargetName(Target t);                       // "a5" / "a3"
std::optional<Target> ParseTarget(std::string_view name);    // "a5", "A5", "a3", "A3"

// The on-chip spaces of a target, in the order Vec, Mat, Left, Right, Acc, Bias, Scaling,
// ScaleLeft, ScaleRight (A3 has no ScaleLeft/ScaleRight).
const std::vector<MemSpaceInfo>& OnChipSpaces(Target t);
const MemSpaceInfo* FindSpace(Target t, MemSpace s);

std::string_view MemSpaceName(MemSpace s);
// Accepts the PyPTO-Pro names (Vec, Mat, Left, Right, Acc, Bias, Scaling, ScaleLeft,
// ScaleRight, GM/DDR), the hardware names (UB, L1, L0A, L0B, L0C, BT, FB), `pl.MemorySpace.Vec` / `MemorySpace.Vec` forms, case-insensitively.
std::optional<MemSpace> ParseMemSpace(std::string_view name);

}  // namespace opdev
