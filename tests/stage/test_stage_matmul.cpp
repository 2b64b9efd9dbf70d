// The Cube round on the bundled matmul example: `opdev stage --backend sim` on a copy in the
// pipeline's layout (custom/matmul) ends CLEAN with every DESIGN §8 case PASS, and the
// diagnostic DESIGN §8 runner draws its inputs inside SPEC.md's value_range (uniform over
// [-1, 1]) and passes every case too.
#include <catch2/catch.hpp>

#include "opdev/precision/tensor_file.h"
#include "opdev/stage/run_op.h"
#include "opdev/stage/stage.h"

#include <algorithm>
#include <filesystem>
#include <string>

#include <unistd.h>

namespace fs = std::filesystem;
using namespace opdev::stage;

namespace {
fs::path CopyMatmul(const std::string& tag) {
  // One folder per process: worktrees run this suite at the same time on one machine.
  fs::path root = fs::temp_directory_path() /
                  ("opdev_test_stage_matmul_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::path dir = root / "custom" / "matmul";
  fs::create_directories(dir.parent_path());
  fs::copy(fs::path(OPDEV_SOURCE_DIR) / "examples/matmul", dir, fs::copy_options::recursive);
  fs::remove_all(dir / "reports");
  return dir;
}
// Removes a test's folder when the test case ends.
struct RemoveAtEnd {
  fs::path dir;
  ~RemoveAtEnd() {
    std::error_code ec;
    fs::remove_all(dir.parent_path().parent_path(), ec);
  }
};
}  // namespace

TEST_CASE("opdev stage on a copy of examples/matmul ends CLEAN on the simulator") {
  fs::path dir = CopyMatmul("stage");
  RemoveAtEnd cleanup{dir};
  StageOptions o;
  o.op_dir = dir.string();
  o.kb_root = std::string(OPDEV_SHARED_DIR) + "/fixtures/kb";
  o.backend = "sim";
  o.python = OPDEV_PYTHON;
  auto r = RunStage(o);
  REQUIRE(r.ok());
  INFO(r->ToText());
  CHECK(r->verdict.outcome == "CLEAN");
  CHECK(r->generated);
  REQUIRE(r->cases.size() == 8);
  for (const auto& c : r->cases) {
    INFO(c.name << ": " << c.summary << c.error);
    CHECK(c.status == opdev::runtime::CaseStatus::kPass);
  }
  CHECK_FALSE(r->hazards.HasErrors());
}

TEST_CASE("the DESIGN §8 runner draws matmul inputs inside SPEC's value_range and every case passes") {
  fs::path dir = CopyMatmul("design_cases");
  RemoveAtEnd cleanup{dir};
  {
    StageOptions o;  // the round writes test_matmul.py, which the runner then simulates
    o.op_dir = dir.string();
    o.kb_root = std::string(OPDEV_SHARED_DIR) + "/fixtures/kb";
    o.python = OPDEV_PYTHON;
    REQUIRE(RunStage(o).ok());
  }
  RunOpOptions ro;
  ro.op_dir = dir.string();
  ro.backend = "sim";
  ro.design_cases = true;
  ro.python = OPDEV_PYTHON;
  auto r = RunOp(ro);
  REQUIRE(r.ok());
  REQUIRE(r->cases.size() == 8);
  for (const auto& c : r->cases) {
    INFO(c.name << ": " << c.summary << c.error);
    CHECK(c.status == opdev::runtime::CaseStatus::kPass);
  }
  // SPEC.md: a and b in [-1, 1]; the draw covers the range (not a narrower one).
  for (const char* in : {"in0", "in1"}) {
    auto t = opdev::precision::ReadNpy(
        (dir / "reports/opdev/run/sim" / (std::string("test_matmul_p0_m256_k256_n256.") + in + ".npy")).string());
    REQUIRE(t.ok());
    REQUIRE(t->numel() == 256 * 256);
    double lo = 0, hi = 0;
    for (int64_t i = 0; i < t->numel(); ++i) {
      lo = std::min(lo, t->GetDouble(i));
      hi = std::max(hi, t->GetDouble(i));
    }
    INFO(in << ": [" << lo << ", " << hi << "]");
    CHECK(lo >= -1.0);
    CHECK(hi <= 1.0);
    CHECK(lo < -0.99);
    CHECK(hi > 0.99);
  }
}
