// Helpers of the codegen tests: temporary copies of example op dirs (tests never write into
// examples/), DESIGN.md mutation with a check that the mutation applied, and running Python.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace cgtest {

namespace fs = std::filesystem;

inline std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteAll(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << s;
}

// Temporary roots made by this test process; removed when it exits.
class TempRoots {
 public:
  ~TempRoots() {
    std::error_code ec;
    for (const auto& r : roots_) fs::remove_all(r, ec);
  }
  fs::path Make(const std::string& tag) {
    fs::path root = fs::temp_directory_path() /
                    ("opdev_codegen_" + std::to_string(::getpid()) + "_" + tag + "_" +
                     std::to_string(roots_.size()));
    fs::remove_all(root);
    fs::create_directories(root);
    roots_.push_back(root);
    return root;
  }

 private:
  std::vector<fs::path> roots_;
};

// A fresh copy of the directory `src` as <unique temporary root>/<src's name>.
inline fs::path CopyToTemp(const fs::path& src, const std::string& tag) {
  static TempRoots roots;
  fs::path dst = roots.Make(tag) / src.filename();
  fs::copy(src, dst, fs::copy_options::recursive);
  return dst;
}

// A fresh copy of examples/<name> in a unique temporary directory.
inline fs::path CopyExample(const std::string& name, const std::string& tag) {
  return CopyToTemp(fs::path(OPDEV_SOURCE_DIR) / "examples" / name, tag);
}

// Replaces the first occurrence of `from` by `to` in <dir>/DESIGN.md; returns the 1-based line
// of the replacement, or 0 when `from` is absent.
inline int MutateDesign(const fs::path& dir, const std::string& from, const std::string& to) {
  std::string text = ReadAll(dir / "DESIGN.md");
  size_t at = text.find(from);
  if (at == std::string::npos) return 0;
  text.replace(at, from.size(), to);
  WriteAll(dir / "DESIGN.md", text);
  int line = 1;
  for (size_t i = 0; i < at; ++i)
    if (text[i] == '\n') ++line;
  return line;
}

inline int RunShell(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace cgtest
