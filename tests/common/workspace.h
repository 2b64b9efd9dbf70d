// Shared test helpers: temporary workspaces (`<tmp>/opdev_test_<name>/custom/`), whole-file
// read/write, and a copy of the real softmax op dir with stand-in goldens.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace opdev_test {
namespace fs = std::filesystem;

// `<tmp>/opdev_test_<name>_<pid>`: a folder of this process (test binaries of several
// checkouts, and several test cases of one binary, run at the same time), emptied now and
// removed when the process exits.
inline fs::path ScratchDir(const std::string& name) {
  struct Cleanup {
    std::vector<fs::path> dirs;
    ~Cleanup() {
      std::error_code ec;
      for (const auto& d : dirs) fs::remove_all(d, ec);
    }
  };
  static Cleanup cleanup;
  fs::path p = fs::temp_directory_path() / ("opdev_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  cleanup.dirs.push_back(p);
  return p;
}

inline fs::path FreshWorkspace(const std::string& name) {
  fs::path p = ScratchDir(name);
  fs::create_directories(p / "custom");
  return p;
}

inline void Write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

inline std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// custom/softmax: the real fixture's frozen inputs plus stand-in goldens.
inline fs::path SoftmaxOpDir(const fs::path& ws) {
  fs::path op = ws / "custom" / "softmax";
  fs::create_directories(op);
  for (const auto& e : fs::directory_iterator(fs::path(OPDEV_SHARED_DIR) / "fixtures" / "softmax"))
    fs::copy_file(e.path(), op / e.path().filename());
  Write(op / "softmax_golden.py", "def _get_device():\n    return 'cpu'\n");
  Write(op / "softmax_golden_cpu.py", "def softmax_golden_cpu(x):\n    return x\n");
  return op;
}

}  // namespace opdev_test
