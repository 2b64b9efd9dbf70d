// The library's version (semantic versioning; equal to the CMake project version, which a test
// checks together with `opdev --version`, opdev_version() and opdev.__version__).
#pragma once

namespace opdev {

inline constexpr int kVersionMajor = 0;
inline constexpr int kVersionMinor = 1;
inline constexpr int kVersionPatch = 0;
inline const char* VersionString() { return "0.1.0"; }
// The C ABI's number (OPDEV_ABI_VERSION in bindings/c/opdev.h, the soname's number); the C
// ABI asserts at compile time that both agree. `opdev --version --json` reports it.
inline constexpr int kAbiVersion = 1;

}  // namespace opdev
