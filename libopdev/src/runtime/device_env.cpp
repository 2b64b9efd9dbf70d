// The CPU device's environment (device_env.h): locate the device's Python packages and the
// C library relative to the loaded opdev code, then build the variables.
#include "opdev/runtime/device_env.h"

#include "absl/strings/str_cat.h"

#include <dlfcn.h>

#include <filesystem>

namespace fs = std::filesystem;

namespace opdev::runtime {
namespace {

// The file this code was loaded from (the opdev command, or libopdev_c.so).
fs::path LoadedFrom() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&LoadedFrom), &info) && info.dli_fname && *info.dli_fname) {
    std::error_code ec;
    fs::path p = fs::canonical(info.dli_fname, ec);
    if (!ec) return p;
  }
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self;
}

bool IsDeviceDir(const fs::path& python_dir) {
  std::error_code ec;
  return fs::is_regular_file(python_dir / "device" / "pypto_pro" / "__init__.py", ec) &&
         fs::is_regular_file(python_dir / "opdev" / "__init__.py", ec);
}

}  // namespace

absl::StatusOr<DeviceEnv> CpuDeviceEnvironment(const DeviceEnvOptions& options,
                                               const char* inherited_pythonpath) {
  DeviceEnv env;
  fs::path root = LoadedFrom().parent_path().parent_path();  // PREFIX of bin/ or lib/
#ifndef OPDEV_INSTALL_LIBDIR
#define OPDEV_INSTALL_LIBDIR "lib"
#endif
#ifndef OPDEV_INSTALL_DATADIR
#define OPDEV_INSTALL_DATADIR "share"
#endif
  std::vector<fs::path> python_candidates;
  if (!options.python_dir.empty()) python_candidates.push_back(options.python_dir);
  else {
    python_candidates.push_back(root / OPDEV_INSTALL_DATADIR / "opdev" / "python");
#ifdef OPDEV_SOURCE_PYTHON_DIR
    python_candidates.push_back(OPDEV_SOURCE_PYTHON_DIR);
#endif
  }
  for (const auto& c : python_candidates)
    if (IsDeviceDir(c)) {
      env.python_dir = fs::absolute(c).lexically_normal().string();
      break;
    }
  if (env.python_dir.empty()) {
    std::string tried;
    for (const auto& c : python_candidates) tried += (tried.empty() ? "" : ", ") + c.string();
    return absl::NotFoundError(absl::StrCat("the CPU device's Python packages (device/pypto_pro, opdev/) are not in ",
                                            tried));
  }
  env.device_dir = (fs::path(env.python_dir) / "device").string();
  std::vector<fs::path> lib_candidates;
  if (!options.c_library.empty()) lib_candidates.push_back(options.c_library);
  else {
    lib_candidates.push_back(LoadedFrom().parent_path() / "libopdev_c.so.1");
    lib_candidates.push_back(root / OPDEV_INSTALL_LIBDIR / "libopdev_c.so.1");
#ifdef OPDEV_BUILD_C_LIBRARY
    lib_candidates.push_back(OPDEV_BUILD_C_LIBRARY);
#endif
  }
  std::error_code ec;
  for (const auto& c : lib_candidates)
    if (fs::is_regular_file(c, ec)) {
      env.c_library = fs::absolute(c).lexically_normal().string();
      break;
    }
  if (env.c_library.empty()) {
    std::string tried;
    for (const auto& c : lib_candidates) tried += (tried.empty() ? "" : ", ") + c.string();
    return absl::NotFoundError(absl::StrCat("the C library libopdev_c is not at ", tried,
                                            " (build the opdev_c target)"));
  }
  std::string path = env.device_dir + ":" + env.python_dir;
  if (inherited_pythonpath && *inherited_pythonpath) path += std::string(":") + inherited_pythonpath;
  env.vars.emplace_back("PYTHONPATH", path);
  env.vars.emplace_back("OPDEV_C_LIBRARY", env.c_library);
  env.vars.emplace_back("OPDEV_DEVICE_TARGET", std::string(TargetName(options.target)));
  return env;
}

std::string ShellExports(const DeviceEnv& env) {
  std::string out;
  for (const auto& [k, v] : env.vars) {
    std::string q;
    for (char c : v) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += "export " + k + "='" + q + "'\n";
  }
  return out;
}

}  // namespace opdev::runtime
