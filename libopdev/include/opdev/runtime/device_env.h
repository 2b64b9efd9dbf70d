// The environment of opdev's CPU device for PyPTO-Pro: what a process needs so that an
// unmodified PyPTO-Pro program (`python test_op.py`, `python -m pytest ...`) imports
// pypto_pro / pypto / torch_npu from opdev (bindings/python/device) and launches its
// kernels on opdev's simulator through the C library.
//
//   opdev::runtime::DeviceEnvOptions o;       // target a5
//   auto env = opdev::runtime::CpuDeviceEnvironment(o, getenv("PYTHONPATH"));
//   // env->vars: PYTHONPATH (device dir, binding dir, then the inherited path),
//   //            OPDEV_C_LIBRARY, OPDEV_DEVICE_TARGET
//
// The files are found next to the running library: an installed tree
// (PREFIX/share/opdev/python, PREFIX/lib/libopdev_c.so.1) or, in a build tree, the source
// tree's bindings/python and the build's libopdev_c. A machine with the real pypto_pro keeps
// it: only a process started with these variables sees the CPU device.
#pragma once

#include "opdev/support/target.h"

#include "absl/status/statusor.h"

#include <string>
#include <utility>
#include <vector>

namespace opdev::runtime {

struct DeviceEnvOptions {
  Target target = Target::kA5;
  std::string python_dir;  // override: the directory holding opdev/ and device/
  std::string c_library;   // override: libopdev_c.so path
};

struct DeviceEnv {
  std::string python_dir;  // holds the opdev binding (opdev/) and the device (device/)
  std::string device_dir;  // python_dir/device: pypto_pro, pypto, torch_npu
  std::string c_library;
  std::vector<std::pair<std::string, std::string>> vars;  // to set, in this order
};

// `inherited_pythonpath` (may be null or empty) is appended to PYTHONPATH. Errors when the
// device files or the C library cannot be found.
absl::StatusOr<DeviceEnv> CpuDeviceEnvironment(const DeviceEnvOptions& options,
                                               const char* inherited_pythonpath);

// `export NAME='value'` lines for a POSIX shell.
std::string ShellExports(const DeviceEnv& env);

}  // namespace opdev::runtime
