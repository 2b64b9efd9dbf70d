// Where the round may write its report (issue 18 defects 11, 12): a `reports/` symlink that
// leads outside the op dir is not written through, and a --report-dir inside a protected
// tree (the KB root, the shared reference tree) is refused as gen --out refuses it. Both are
// refused before any step runs, and nothing is written at the target.
#include "workspace.h"
#include <catch2/catch.hpp>

#include "opdev/stage/stage.h"
#include "stage/report_dir.h"

#include <filesystem>

namespace fs = std::filesystem;
using namespace opdev::stage;

namespace {
fs::path Fresh(const std::string& tag) {
  fs::path root = opdev_test::ScratchDir("reportdir_" + tag);
  fs::remove_all(root);
  fs::create_directories(root / "custom");
  fs::copy(fs::path(OPDEV_SOURCE_DIR) / "examples/softmax", root / "custom" / "softmax", fs::copy_options::recursive);
  fs::remove_all(root / "custom" / "softmax" / "reports");
  return root;
}
size_t Entries(const fs::path& dir) {
  size_t n = 0;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) ++n;
  return n;
}
}  // namespace

TEST_CASE("stage does not write through a reports/ symlink leading outside the op dir") {
  fs::path root = Fresh("symlink");
  fs::path op = root / "custom" / "softmax";
  fs::create_directories(root / "elsewhere");
  fs::create_directory_symlink(root / "elsewhere", op / "reports");
  StageOptions o;
  o.op_dir = op.string();
  o.kb_root = std::string(OPDEV_SHARED_DIR) + "/fixtures/kb";
  o.python = OPDEV_PYTHON;
  auto r = RunStage(o);
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.status().message()).find("outside the op dir") != std::string::npos);
  CHECK(Entries(root / "elsewhere") == 0);
  fs::remove_all(root);
}

TEST_CASE("stage --report-dir inside a protected tree is refused, as gen --out is") {
  fs::path root = Fresh("kb");
  fs::copy(fs::path(OPDEV_SHARED_DIR) / "fixtures/kb", root / "kb", fs::copy_options::recursive);
  const size_t before = Entries(root / "kb");
  StageOptions o;
  o.op_dir = (root / "custom" / "softmax").string();
  o.kb_root = (root / "kb").string();
  o.python = OPDEV_PYTHON;
  o.report_dir = (root / "kb" / "patterns" / "reports").string();
  o.protected_roots = {o.kb_root};
  auto r = RunStage(o);
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.status().message()).find("read-only reference tree") != std::string::npos);
  CHECK(Entries(root / "kb") == before);
  fs::remove_all(root);
}

TEST_CASE("report dirs: elsewhere is allowed, the op dir's own reports/ is, a symlinked one is not") {
  fs::path root = Fresh("ok");
  const std::string op = (root / "custom" / "softmax").string();
  CHECK(CheckReportDir(op, (root / "out").string(), {(root / "kb").string()}, false).ok());
  CHECK(CheckReportDir(op, op + "/reports/opdev", {}, true).ok());
  fs::create_directories(root / "x");
  fs::create_directory_symlink(root / "x", root / "custom" / "softmax" / "reports");
  CHECK_FALSE(CheckReportDir(op, op + "/reports/opdev", {}, true).ok());
  fs::remove_all(root);
}
