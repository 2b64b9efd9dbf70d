// The second example, examples/silu (elementwise fp32, Pattern A, §1 written as complete
// Python defs), generates cleanly: the file compiles, re-parses, and its budget equals §3.
#include "codegen_test_util.h"

#include "opdev/codegen/generate.h"
#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"

#include <catch2/catch.hpp>

using namespace opdev;
namespace fs = std::filesystem;

TEST_CASE("silu: generates, compiles and matches its DESIGN") {
  fs::path dir = cgtest::CopyExample("silu", "silu");
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  INFO(r.diagnostics.ToText());
  REQUIRE(r.ok());
  CHECK(r.diagnostics.WarningCount() <= 1);  // only the op-dir-outside-workspace note of the planner
  const auto& f = *r.file;
  CHECK(f.rel == "test_silu.py");
  CHECK(f.kernel == "silu_kernel");
  CHECK(f.wrapper == "silu_wrapper");
  CHECK(f.vector_functions == std::vector<std::string>{"silu_vf"});
  CHECK(f.tests == std::vector<std::string>{"test_silu_aligned", "test_silu_row_tail",
                                            "test_silu_col_tail", "test_silu_tail2d",
                                            "test_silu_multitile", "test_silu_p0_b64_n1024"});
  REQUIRE(codegen::WriteGeneratedFile((dir / f.rel).string(), f.content, {}).ok());
  CHECK(cgtest::RunShell(std::string(OPDEV_PYTHON) + " -m py_compile " + (dir / f.rel).string()) == 0);

  Diagnostics d;
  auto m = py::ParseModule(f.content, f.rel, &d);
  REQUIRE(m.ok());
  const std::string& c = f.content;
  CHECK(c.find("def silu_vf(in_tile, out_tile, n_rows: pl.DT_INT64, n_cols: pl.DT_INT64):") !=
        std::string::npos);
  CHECK(c.find("fp32_tt = pl.TileType(shape=[TILE_ROWS, MAX_N], dtype=pl.DT_FP32, "
               "target_memory=pl.MemorySpace.Vec, valid_shape=[-1, -1])") != std::string::npos);
  CHECK(c.find("def silu_kernel(x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32], "
               "y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32]):") != std::string::npos);
  CHECK(c.find("    silu_kernel[None, block_dim](x, y)\n") != std::string::npos);
  CHECK(c.find("x = _make_input([13, 2048], torch.float32, -50.0, 50.0, device)") !=
        std::string::npos);
  // Budget: 4 x 32 KiB = 128 KiB of 248 KiB.
  REQUIRE(f.budget.spaces.size() == 1);
  CHECK(f.budget.spaces[0].high_water == 0x20000u);
  CHECK(f.budget.model.slots.size() == 4);
  CHECK(f.budget.model.slots[3].address == 0x18000u);
}

TEST_CASE("silu: a structured §1 def whose parameters differ from the §5 launch is reported") {
  fs::path dir = cgtest::CopyExample("silu", "silu_bad");
  REQUIRE(cgtest::MutateDesign(dir, "def silu_kernel(x, y):", "def silu_kernel(inp, y):") > 0);
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  CHECK_FALSE(r.ok());
  CHECK(r.diagnostics.HasCode("CODEGEN-LAUNCH-MISMATCH"));
}

TEST_CASE("writes refuse read-only files, frozen contracts and protected roots") {
  fs::path dir = cgtest::CopyExample("silu", "write");
  fs::path out = dir / "test_silu.py";
  cgtest::WriteAll(out, "# previous\n");
  fs::permissions(out, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  auto st = codegen::WriteGeneratedFile(out.string(), "x = 1\n", {});
  CHECK(st.code() == absl::StatusCode::kFailedPrecondition);
  fs::permissions(out, fs::perms::owner_all);
  CHECK(cgtest::ReadAll(out) == "# previous\n");
  CHECK_FALSE(codegen::WriteGeneratedFile((dir / "DESIGN.md").string(), "x\n", {}).ok());
  CHECK_FALSE(codegen::WriteGeneratedFile((dir / "silu_golden.py").string(), "x\n", {}).ok());
  codegen::WriteOptions w;
  w.protected_roots.push_back(dir.string());
  CHECK_FALSE(codegen::WriteGeneratedFile(out.string(), "x = 1\n", w).ok());
  CHECK(cgtest::ReadAll(out) == "# previous\n");
  CHECK(codegen::WriteGeneratedFile(out.string(), "x = 1\n", {}).ok());
  CHECK(cgtest::ReadAll(out) == "x = 1\n");
}
