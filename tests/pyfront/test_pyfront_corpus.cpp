// Corpus tests of pyfront: every Python file under tests/data/ parses to exactly the tree
// CPython 3.11 builds (ast.dump, with and without positions), and parse -> print -> parse
// gives the same tree (and printing is idempotent).
#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"
#include "opdev/support/file_io.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace opdev;

namespace {

std::vector<std::string> PythonFilesUnder(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && e.path().extension() == ".py") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> DataFiles() {
  return PythonFilesUnder(fs::path(OPDEV_SOURCE_DIR) / "tests" / "data");
}

std::string RunCommand(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 65536> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  pclose(p);
  return out;
}

// One output line of cpython_dump.py per file.
std::vector<std::string> CPythonDumps(const std::vector<std::string>& files, bool attributes) {
  std::string cmd = std::string(OPDEV_PYTHON) + " " + OPDEV_SOURCE_DIR +
                    "/tests/pyfront/cpython_dump.py" + (attributes ? " --attributes" : "");
  for (const auto& f : files) cmd += " '" + f + "'";
  std::string out = RunCommand(cmd);
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < out.size()) {
    size_t nl = out.find('\n', start);
    if (nl == std::string::npos) nl = out.size();
    lines.push_back(out.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// CPython 3.11 reports format-spec positions inconsistently; the reference script drops
// them, and so does this (an unset span dumps without positions).
class ClearFormatSpecSpans : public py::AstVisitor {
 public:
  bool EnterExpr(const py::Expr& e) override {
    if (e.kind == py::ExprKind::kFormattedValue && e.format_spec) {
      auto* spec = const_cast<py::Expr*>(e.format_spec.get());
      spec->span = py::Span{};
      for (auto& v : spec->elts) {
        if (v->kind == py::ExprKind::kConstant) v->span = py::Span{};
      }
    }
    return true;
  }
};

}  // namespace

TEST_CASE("corpus: at least 30 Python files under tests/data", "[pyfront][corpus]") {
  auto files = PythonFilesUnder(fs::path(OPDEV_SOURCE_DIR) / "tests" / "data" / "pyfront");
  CHECK(files.size() >= 30);
  size_t kernels = std::count_if(files.begin(), files.end(), [](const std::string& f) {
    return fs::path(f).filename().string().rfind("kernel_", 0) == 0;
  });
  CHECK(kernels >= 10);
  CHECK(files.size() - kernels >= 10);
}

TEST_CASE("corpus: every file parses exactly as CPython 3.11 parses it", "[pyfront][corpus]") {
  auto files = DataFiles();
  REQUIRE(!files.empty());
  auto want = CPythonDumps(files, false);
  REQUIRE(want.size() == files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    INFO(files[i]);
    Diagnostics diags;
    auto mod = py::ParseFile(files[i], &diags);
    if (want[i].rfind("SyntaxError", 0) == 0) {
      CHECK_FALSE(mod.ok());
      continue;
    }
    REQUIRE(mod.ok());
    CHECK(diags.empty());
    CHECK(py::DumpAst(*mod) == want[i]);
  }
}

TEST_CASE("corpus: source spans equal CPython's positions", "[pyfront][corpus]") {
  auto files = DataFiles();
  auto want = CPythonDumps(files, true);
  REQUIRE(want.size() == files.size());
  py::DumpOptions opts;
  opts.include_attributes = true;
  for (size_t i = 0; i < files.size(); ++i) {
    if (want[i].rfind("SyntaxError", 0) == 0) continue;
    INFO(files[i]);
    Diagnostics diags;
    auto mod = py::ParseFile(files[i], &diags);
    REQUIRE(mod.ok());
    ClearFormatSpecSpans clear;
    py::Walk(*mod, clear);
    CHECK(py::DumpAst(*mod, opts) == want[i]);
  }
}

TEST_CASE("corpus: parse -> print -> parse gives the same AST / printing is idempotent",
          "[pyfront][corpus]") {
  for (const auto& f : DataFiles()) {
    INFO(f);
    Diagnostics diags;
    auto mod = py::ParseFile(f, &diags);
    if (!mod.ok()) continue;  // deliberately invalid inputs are covered elsewhere
    std::string printed = py::PrintModule(*mod);
    auto again = py::ParseModule(printed, f + " (printed)", &diags);
    REQUIRE(again.ok());
    CHECK(py::AstEqual(*mod, *again));
    CHECK(py::PrintModule(*again) == printed);
  }
}

TEST_CASE("corpus: printed code is also valid for CPython and means the same",
          "[pyfront][corpus]") {
  // Print every data file to a temporary directory and let CPython parse the output: the
  // dumps must equal CPython's dumps of the originals.
  auto files = DataFiles();
  fs::path dir = fs::temp_directory_path() / "opdev_pyfront_printed";
  fs::create_directories(dir);
  std::vector<std::string> originals, printed_paths;
  for (size_t i = 0; i < files.size(); ++i) {
    Diagnostics diags;
    auto mod = py::ParseFile(files[i], &diags);
    if (!mod.ok()) continue;
    fs::path out = dir / (std::to_string(i) + ".py");
    REQUIRE(WriteFileAtomic(out.string(), py::PrintModule(*mod)).ok());
    originals.push_back(files[i]);
    printed_paths.push_back(out.string());
  }
  auto a = CPythonDumps(originals, false);
  auto b = CPythonDumps(printed_paths, false);
  REQUIRE(a.size() == originals.size());
  REQUIRE(b.size() == originals.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO(originals[i]);
    CHECK(a[i] == b[i]);
  }
  fs::remove_all(dir);
}
