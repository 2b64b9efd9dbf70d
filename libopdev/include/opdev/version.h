// The library's version (semantic versioning; the C ABI has its own number in opdev.h).
#pragma once

namespace opdev {

inline constexpr int kVersionMajor = 0;
inline constexpr int kVersionMinor = 1;
inline constexpr int kVersionPatch = 0;
inline const char* VersionString() { return "0.1.0"; }

}  // namespace opdev
