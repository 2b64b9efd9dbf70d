// Helpers for the contract tests: a scratch copy of the real softmax op dir (optionally with
// one file mutated) in a fresh temporary directory, removed when the object goes away.
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace contract_test {

namespace fs = std::filesystem;

inline const std::string kFixtureDir = std::string(OPDEV_SHARED_DIR) + "/fixtures/softmax";
inline const std::string kKbRoot = std::string(OPDEV_SHARED_DIR) + "/fixtures/kb";
inline const char* const kContractFiles[] = {"SPEC.md", "EXPLORE_REPORT.md", "DESIGN.md",
                                             "DESIGN_BINDINGS.json", "KB_SELECTION.json",
                                             "module_interfaces.yaml"};

// Unsets OPDEV_KB_ROOT for a test's scope (the variable takes precedence over the ancestor
// search), restoring it afterwards.
class WithoutKbRootEnv {
 public:
  WithoutKbRootEnv() {
    if (const char* v = std::getenv("OPDEV_KB_ROOT")) saved_ = v, had_ = true;
    ::unsetenv("OPDEV_KB_ROOT");
  }
  ~WithoutKbRootEnv() {
    if (had_) ::setenv("OPDEV_KB_ROOT", saved_.c_str(), 1);
  }

 private:
  std::string saved_;
  bool had_ = false;
};

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteAll(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

inline size_t CountOf(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

class ScratchOpDir {
 public:
  ScratchOpDir() {
    std::string tmpl = (fs::temp_directory_path() / "opdev_contract_XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    root_ = tmpl;
    dir_ = root_ + "/softmax";
    fs::create_directories(dir_);
    for (const char* f : kContractFiles) {
      fs::copy_file(kFixtureDir + "/" + f, dir_ + "/" + f);
      fs::permissions(dir_ + "/" + f, fs::perms::owner_read | fs::perms::owner_write);
    }
  }
  ~ScratchOpDir() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  const std::string& dir() const { return dir_; }
  const std::string& root() const { return root_; }
  std::string path(const std::string& f) const { return dir_ + "/" + f; }

  // Replaces the single occurrence of `from` in `file` by `to` (the test fails otherwise).
  void Mutate(const std::string& file, const std::string& from, const std::string& to) {
    std::string text = ReadAll(path(file));
    INFO("mutation anchor in " << file << ": " << from);
    REQUIRE(CountOf(text, from) == 1);
    text.replace(text.find(from), from.size(), to);
    WriteAll(path(file), text);
  }

 private:
  std::string root_;
  std::string dir_;
};

}  // namespace contract_test
