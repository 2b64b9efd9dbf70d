// The Cube Module rules of `opdev check` on copies of examples/matmul (§1 parameters) and
// tests/data/cube/matmul_bf16 (§1 kernel code): the unmutated contracts check clean, and each
// mutated copy carries one Cube defect that yields its rule code at the mutated line.
#include "contract_test_util.h"

#include "opdev/contract/check.h"

using namespace opdev;
using namespace opdev::contract;
using namespace contract_test;

namespace {

class CubeOpDir {
 public:
  explicit CubeOpDir(const std::string& src) {
    std::string tmpl = (fs::temp_directory_path() / "opdev_cube_contract_XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    root_ = tmpl;
    dir_ = root_ + "/" + fs::path(src).filename().string();
    fs::copy(src, dir_, fs::copy_options::recursive);
  }
  ~CubeOpDir() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  const std::string& dir() const { return dir_; }
  // Replaces the single occurrence of `from` in DESIGN.md; returns the line where it starts.
  int Mutate(const std::string& from, const std::string& to) {
    std::string p = dir_ + "/DESIGN.md";
    std::string text = ReadAll(p);
    INFO("mutation anchor: " << from);
    REQUIRE(CountOf(text, from) == 1);
    size_t at = text.find(from);
    text.replace(at, from.size(), to);
    WriteAll(p, text);
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
  }

 private:
  std::string root_, dir_;
};

Diagnostics Check(const CubeOpDir& d) {
  Diagnostics diags;
  LoadOptions load;
  load.kb_root = kKbRoot;
  absl::Status st = CheckOpDirPath(d.dir(), load, CheckOptions{}, &diags);
  REQUIRE(st.ok());
  return diags;
}

bool HasAt(const Diagnostics& diags, const std::string& code, int line) {
  for (const auto& d : diags.items())
    if (d.code == code && d.line == line) return true;
  return false;
}

const std::string kMatmul = std::string(OPDEV_SOURCE_DIR) + "/examples/matmul";
const std::string kBf16 = std::string(OPDEV_SOURCE_DIR) + "/tests/data/cube/matmul_bf16";

}  // namespace

TEST_CASE("cube contracts: examples/matmul and matmul_bf16 check clean") {
  for (const std::string& src : {kMatmul, kBf16}) {
    CubeOpDir d(src);
    Diagnostics diags = Check(d);
    INFO(src << "\n" << diags.ToText());
    CHECK(diags.ErrorCount() == 0);
    CHECK(diags.WarningCount() == (src == kBf16 ? 1u : 0u));  // bf16: no EXPLORE_REPORT.md
  }
}

TEST_CASE("cube contracts: every Cube rule is listed") {
  for (const char* code : {"DESIGN-CUBE-SPACE-MISSING", "DESIGN-CUBE-OPERAND-SPACE",
                           "DESIGN-CUBE-ACC-FRACTAL", "DESIGN-CUBE-TILE-ALIGN",
                           "DESIGN-CUBE-BLOCK-DIM"}) {
    INFO(code);
    const RuleInfo* r = FindRule(code);
    REQUIRE(r != nullptr);
    CHECK(r->category == category::kDesignViolation);
  }
}

TEST_CASE("cube contracts: one mutated Cube defect, one finding at its line") {
  SECTION("no Right tile in a section_cube Module") {
    CubeOpDir d(kMatmul);
    d.Mutate("| B 子块 | `b_right` (l0b) | `[32, 256]` | FP16 | L0B(Right) |",
             "| B 子块 | `b_right` (l0b) | `[32, 256]` | FP16 | L1(Mat) |");
    Diagnostics diags = Check(d);
    INFO(diags.ToText());
    // Reported at the §0 Module row of the Cube Module.
    int module_line = 0;
    std::string text = ReadAll(d.dir() + "/DESIGN.md");
    module_line = 1 + static_cast<int>(std::count(
                          text.begin(), text.begin() + text.find("| Module 1 | 二维矩阵乘"), '\n'));
    CHECK(HasAt(diags, "DESIGN-CUBE-SPACE-MISSING", module_line));
  }
  SECTION("lhs of pl.matmul read from the Right tile") {
    CubeOpDir d(kBf16);
    int line = d.Mutate(
        "pl.matmul(acc.current(), a_left, b_right, phase=pl.AccPhase.Final)",
        "pl.matmul(acc.current(), b_right, a_left, phase=pl.AccPhase.Final)");
    Diagnostics diags = Check(d);
    INFO(diags.ToText());
    CHECK(HasAt(diags, "DESIGN-CUBE-OPERAND-SPACE", line));
  }
  SECTION("dst of pl.matmul_acc outside Acc") {
    CubeOpDir d(kBf16);
    int line = d.Mutate(
        "pl.matmul_acc(acc.current(), acc.current(), a_left, b_right, phase=pl.AccPhase.Final)",
        "pl.matmul_acc(a_mat, acc.current(), a_left, b_right, phase=pl.AccPhase.Final)");
    Diagnostics diags = Check(d);
    INFO(diags.ToText());
    CHECK(HasAt(diags, "DESIGN-CUBE-OPERAND-SPACE", line));
  }
  SECTION("an Acc tile below one fractal") {
    CubeOpDir d(kMatmul);
    int line = d.Mutate("| `acc_tile` (acc) | `[128, 256]` | FP32 |",
                        "| `acc_tile` (acc) | `[16, 16]` | FP16 |");
    Diagnostics diags = Check(d);
    INFO(diags.ToText());
    CHECK(HasAt(diags, "DESIGN-CUBE-ACC-FRACTAL", line));
    CHECK_FALSE(HasAt(diags, "DESIGN-CUBE-TILE-ALIGN", line));
  }
  SECTION("a Left tile off the 16-row fractal") {
    CubeOpDir d(kMatmul);
    int line = d.Mutate("| `a_left` (l0a) | `[128, 32]` |", "| `a_left` (l0a) | `[120, 32]` |");
    Diagnostics diags = Check(d);
    INFO(diags.ToText());
    CHECK(HasAt(diags, "DESIGN-CUBE-TILE-ALIGN", line));
  }
  SECTION("a Cube kernel capped by vector_core_num") {
    CubeOpDir d(kMatmul);
    int line = d.Mutate("Cube Kernel 使用 `core_num`：`block_dim = min(get_platform_info().core_num, total_tiles)`",
                        "`block_dim = min(get_platform_info().vector_core_num, total_tiles)`");
    Diagnostics diags = Check(d);
    INFO(diags.ToText());
    CHECK(HasAt(diags, "DESIGN-CUBE-BLOCK-DIM", line));
  }
  SECTION("a Left slot off the 512-byte alignment") {
    CubeOpDir d(kMatmul);
    int line = d.Mutate("| L0A(Left) | A 子块 | `l0a` | `[128,32]` | FP16 | `NZ` | `0x00000` | 8192 | 2 | 轮转 | `0x04000` |",
                        "| L0A(Left) | A 子块 | `l0a` | `[128,32]` | FP16 | `NZ` | `0x00100` | 8192 | 2 | 轮转 | `0x04100` |");
    Diagnostics diags = Check(d);
    INFO(diags.ToText());
    CHECK(HasAt(diags, "DESIGN-ADDR-ALIGN", line));
  }
}

TEST_CASE("cube contracts: the softmax fixture's Vector-only block_dim passes the Cube rule") {
  ScratchOpDir s;
  Diagnostics diags;
  LoadOptions load;
  load.kb_root = kKbRoot;
  REQUIRE(CheckOpDirPath(s.dir(), load, CheckOptions{}, &diags).ok());
  CHECK_FALSE(diags.HasCode("DESIGN-CUBE-BLOCK-DIM"));
  s.Mutate("DESIGN.md",
           "仅 Vector Kernel → `vector_core_num`；`num_tiles = ceil(B / TILE_ROWS)`；"
           "`block_dim = min(get_platform_info().vector_core_num, num_tiles)`",
           "`num_tiles = ceil(B / TILE_ROWS)`；`block_dim = min(get_platform_info().core_num, "
           "num_tiles)`");
  Diagnostics after;
  REQUIRE(CheckOpDirPath(s.dir(), load, CheckOptions{}, &after).ok());
  CHECK(after.HasCode("DESIGN-CUBE-BLOCK-DIM"));
}
