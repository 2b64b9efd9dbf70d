// The cube_matmul backend: examples/matmul (§1 freezes the API sequence and (TM, TK1, TK0, TN))
// gets the dynamic two-level-K matmul structure; tests/data/cube/matmul_bf16 (§1 gives the
// kernel code) is transcribed verbatim; mutated DESIGNs are design_violation findings with no
// file, and hazards that still transcribe faithfully are warnings.
#include "codegen_test_util.h"

#include "opdev/codegen/generate.h"
#include "opdev/pyfront/parser.h"

#include <catch2/catch.hpp>

using namespace opdev;
namespace fs = std::filesystem;

namespace {

fs::path CubeData(const std::string& name, const std::string& tag) {
  return cgtest::CopyToTemp(fs::path(OPDEV_SOURCE_DIR) / "tests/data/cube" / name, tag);
}

bool Has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("cube: examples/matmul gets the dynamic two-level-K matmul structure") {
  fs::path dir = cgtest::CopyExample("matmul", "mm");
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  INFO(r.diagnostics.ToText());
  REQUIRE(r.ok());
  CHECK(r.diagnostics.HasCode("CODEGEN-CUBE-SKELETON"));
  CHECK(r.diagnostics.WarningCount() <= 1);  // only the planner's workspace note
  const auto& f = *r.file;
  CHECK(f.rel == "test_matmul.py");
  CHECK(f.kernel == "matmul_kernel");
  CHECK(f.wrapper == "matmul_wrapper");
  CHECK(f.vector_functions.empty());
  CHECK(f.tests.size() == 8);
  const std::string& c = f.content;
  CHECK(Has(c, "(L0, pure Cube)"));
  CHECK(Has(c, "def matmul_kernel(a: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16], "
               "b: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16], "
               "c: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16]):"));
  // Tile types completed from §2 (Acc with its fractal), groups from §2/§3.
  CHECK(Has(c, "a_l1_tt = pl.TileType(shape=[TILE_M, KL1], dtype=pl.DT_FP16, "
               "target_memory=pl.MemorySpace.Mat, valid_shape=[-1, -1])"));
  CHECK(Has(c, "l0a_tt = pl.TileType(shape=[TILE_M, KL0], dtype=pl.DT_FP16, "
               "target_memory=pl.MemorySpace.Left, valid_shape=[-1, -1], layout=pl.NZ)"));
  CHECK(Has(c, "acc_tt = pl.TileType(shape=[TILE_M, TILE_N], dtype=pl.DT_FP32, "
               "target_memory=pl.MemorySpace.Acc, valid_shape=[-1, -1], fractal=1024)"));
  CHECK(Has(c, "a_l1 = pl.make_tile_group(type=a_l1_tt, addrs=A_L1_ADDR, mutex_ids=[0, 1, 2, 3])"));
  CHECK(Has(c, "b_l1 = pl.make_tile_group(type=b_l1_tt, addrs=B_L1_ADDR, mutex_ids=[4, 5, 6, 7])"));
  CHECK(Has(c, "l0a = pl.make_tile_group(type=l0a_tt, addrs=L0A_ADDR, mutex_ids=[8, 9])"));
  CHECK(Has(c, "acc = pl.make_tile_group(type=acc_tt, addrs=L0C_ADDR, mutex_ids=[12])"));
  // The structure: layout transform around the loop, clipped loads, offsets, four branches,
  // clipped Final store.
  CHECK(Has(c, "pl.system.set_mm_layout_transform(enabled=True)"));
  CHECK(Has(c, "pl.system.set_mm_layout_transform(enabled=False)"));
  CHECK(Has(c, "for tile_id in pl.range(core_id, total_tiles, num_cores):"));
  CHECK(Has(c, "pl.set_validshape(a_mat, [valid_m, valid_k1])\n"));
  CHECK(Has(c, "pl.load(a_mat, a, [i, k_off])"));
  CHECK(Has(c, "pl.move(a_left, a_mat, offset=[0, sub_off])"));
  CHECK(Has(c, "pl.move(b_right, b_mat, offset=[sub_off, 0])"));
  CHECK(Has(c, "pl.matmul(acc.current(), a_left, b_right, phase=pl.AccPhase.Final)"));
  CHECK(Has(c, "pl.matmul(acc.current(), a_left, b_right, phase=pl.AccPhase.Partial)"));
  CHECK(Has(c, "pl.matmul_acc(acc.current(), acc.current(), a_left, b_right, "
               "phase=pl.AccPhase.Final)"));
  CHECK(Has(c, "pl.set_validshape(acc.current(), [valid_m, valid_n])"));
  CHECK(Has(c, "pl.store(c, acc.current(), [i, j], phase=pl.STPhase.Final)"));
  // Wrapper: core_num block_dim, the k_multiple check, one launch.
  CHECK(Has(c, "    if K % K_FRACTAL != 0:\n        raise ValueError("));
  CHECK(c.find("if K % K_FRACTAL != 0:") < c.find("c = torch.empty("));
  CHECK(Has(c, "    total_tiles = (M + TILE_M - 1) // TILE_M * ((N + TILE_N - 1) // TILE_N)\n"));
  CHECK(Has(c, "    block_dim = min(get_platform_info().core_num, total_tiles)\n"));
  CHECK(Has(c, "    matmul_kernel[None, block_dim](a, b, c)\n"));
  CHECK_FALSE(Has(c, "vector_core_num"));
  // Tests: the keyed §8 shapes.
  CHECK(Has(c, "a = _make_input([200, 208], torch.float16, -1.0, 1.0, device)"));
  CHECK(Has(c, "b = _make_input([208, 300], torch.float16, -1.0, 1.0, device)"));
  // Budget of the generated file: every Cube space, the spec §9 formula.
  REQUIRE(f.budget.spaces.size() == 4);
  CHECK(f.budget.spaces[0].space == MemSpace::kMat);
  CHECK(f.budget.spaces[0].high_water == 0x60000u);
  CHECK(f.budget.spaces[3].space == MemSpace::kAcc);
  REQUIRE(f.budget.matmul);
  CHECK(f.budget.matmul->tiling.tm == 128);
  CHECK(f.budget.matmul->tiling.tk1 == 64);
  CHECK(f.budget.matmul->tiling.tk0 == 32);
  CHECK(f.budget.matmul->tiling.tn == 256);
  CHECK(f.budget.matmul->formula.l1 == 196608u);
  CHECK(f.budget.matmul->formula.l0a == 16384u);
  CHECK(f.budget.matmul->formula.l0b == 32768u);
  CHECK(f.budget.matmul->formula.l0c == 131072u);
  REQUIRE(codegen::WriteGeneratedFile((dir / f.rel).string(), f.content, {}).ok());
  CHECK(cgtest::RunShell(std::string(OPDEV_PYTHON) + " -m py_compile " + (dir / f.rel).string()) == 0);
  // Deterministic.
  auto again = codegen::GenerateKernelFile(dir.string(), {});
  REQUIRE(again.ok());
  CHECK(again.file->content == f.content);
}

TEST_CASE("cube: the ASW order adds the snake walk and its M-tile check") {
  fs::path dir = cgtest::CopyExample("matmul", "mm_asw");
  REQUIRE(cgtest::MutateDesign(dir, "K_FRACTAL = 16       # FP16 的 K 分形宽度；K 须为其倍数",
                               "K_FRACTAL = 16       # FP16 的 K 分形宽度；K 须为其倍数\n"
                               "MAIN_WINDOW = 4      # ASW 窗口") > 0);
  REQUIRE(cgtest::MutateDesign(dir, "  order: raster", "  order: asw\n  window: MAIN_WINDOW") > 0);
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  INFO(r.diagnostics.ToText());
  REQUIRE(r.ok());
  const std::string& c = r.file->content;
  CHECK(Has(c, "column = tile_id // n_tiles // MAIN_WINDOW"));
  CHECK(Has(c, "ni = ni_forward + column % 2 * (n_tiles - 1 - 2 * ni_forward)"));
  CHECK(Has(c, "    if (M + TILE_M - 1) // TILE_M % MAIN_WINDOW != 0:\n"));
}

TEST_CASE("cube: a DESIGN that leaves a matmul fact open gets a finding and no file") {
  struct Mutation {
    const char* what;
    const char* from;
    const char* to;
    const char* code;
  };
  const Mutation ms[] = {
      {"TK0 missing", "  TK0: KL0\n", "", "CODEGEN-CUBE-PARAM-MISSING"},
      {"order missing", "  order: raster\n", "", "CODEGEN-CUBE-PARAM-MISSING"},
      {"TK1 not a multiple of TK0", "  TK0: KL0\n", "  TK0: 48\n", "CODEGEN-CUBE-PARAM"},
      {"TN off the fractal", "  TN: TILE_N\n", "  TN: 200\n", "CODEGEN-CUBE-FRACTAL"},
      {"api_sequence without matmul_acc", "pl.matmul / pl.matmul_acc(", "pl.matmul(",
       "CODEGEN-CUBE-SEQUENCE"},
      {"unknown API in the sequence", "pl.move(Mat→Left", "pl.moov(Mat→Left", "CODEGEN-UNKNOWN-API"},
      {"Acc shape contradicts the parameters", "| `acc_tile` (acc) | `[128, 256]`",
       "| `acc_tile` (acc) | `[128, 128]`", "CODEGEN-CUBE-TILE"},
      {"Left dtype contradicts SPEC", "| `a_left` (l0a) | `[128, 32]` | FP16",
       "| `a_left` (l0a) | `[128, 32]` | FP32", "CODEGEN-CUBE-TILE"},
      {"no TileGroup row for l0b", "| `l0b` | 2 | `[[10],[11]]`", "| `l0x` | 2 | `[[10],[11]]`",
       "CODEGEN-CUBE-TILE"},
      {"§5 caps a Cube kernel by vector_core_num", "get_platform_info().core_num, total_tiles",
       "get_platform_info().vector_core_num, total_tiles", "CODEGEN-BLOCK-DIM-CORES"},
      {"no cube_matmul block", "cube_matmul:\n", "cube_params:\n", "CODEGEN-NO-KERNEL-CODE"},
  };
  for (const Mutation& m : ms) {
    DYNAMIC_SECTION(m.what) {
      fs::path dir = cgtest::CopyExample("matmul", "mm_bad");
      REQUIRE(cgtest::MutateDesign(dir, m.from, m.to) > 0);
      auto r = codegen::GenerateKernelFile(dir.string(), {});
      INFO(r.diagnostics.ToText());
      CHECK_FALSE(r.ok());
      CHECK_FALSE(r.file.has_value());
      CHECK(r.diagnostics.HasCode(m.code));
    }
  }
}

TEST_CASE("cube: a DESIGN without k_multiple is generated with a warning") {
  fs::path dir = cgtest::CopyExample("matmul", "mm_nok");
  REQUIRE(cgtest::MutateDesign(dir, "  k_multiple: K_FRACTAL\n", "") > 0);
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  INFO(r.diagnostics.ToText());
  REQUIRE(r.ok());
  CHECK(r.diagnostics.HasCode("CODEGEN-CUBE-K-FRACTAL"));
  CHECK_FALSE(Has(r.file->content, "K_FRACTAL != 0"));
}

TEST_CASE("cube: §1 Cube code is transcribed verbatim (bf16)") {
  fs::path dir = CubeData("matmul_bf16", "bf16");
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  INFO(r.diagnostics.ToText());
  REQUIRE(r.ok());
  CHECK_FALSE(r.diagnostics.HasCode("CODEGEN-CUBE-SKELETON"));
  const std::string& c = r.file->content;
  CHECK(Has(c, "@pl.jit(auto_mutex=True)\ndef matmul_bf16_kernel(a: pl.Tensor[[pl.DYNAMIC, "
               "pl.DYNAMIC], pl.DT_BF16]"));
  CHECK(Has(c, "acc_tt = pl.TileType(shape=[TILE_M, TILE_N], dtype=pl.DT_FP32, "
               "target_memory=pl.MemorySpace.Acc, valid_shape=[-1, -1], fractal=1024)"));
  CHECK(Has(c, "round_cnt = (total_tiles + num_cores - 1) // num_cores"));
  CHECK(Has(c, "if index < total_tiles:"));
  CHECK(Has(c, "block_dim = min(get_platform_info().core_num, total_tiles)"));
  REQUIRE(r.file->budget.matmul);
  CHECK(r.file->budget.matmul->tiling.operand == DType::kBFloat16);
}

TEST_CASE("cube: hazards that still transcribe are warnings, structural defects are findings") {
  SECTION("no set_mm_layout_transform before K-blocked accumulation") {
    fs::path dir = CubeData("matmul_bf16", "bf16_nolt");
    REQUIRE(cgtest::MutateDesign(dir, "      pl.system.set_mm_layout_transform(enabled=True)\n",
                                 "") > 0);
    auto r = codegen::GenerateKernelFile(dir.string(), {});
    INFO(r.diagnostics.ToText());
    REQUIRE(r.ok());
    CHECK(r.diagnostics.HasCode("CODEGEN-CUBE-LAYOUT-TRANSFORM"));
  }
  SECTION("a store without the phase the matmuls set") {
    fs::path dir = CubeData("matmul_bf16", "bf16_phase");
    REQUIRE(cgtest::MutateDesign(dir, "[i, j], phase=pl.STPhase.Final)", "[i, j])") > 0);
    auto r = codegen::GenerateKernelFile(dir.string(), {});
    INFO(r.diagnostics.ToText());
    REQUIRE(r.ok());
    CHECK(r.diagnostics.HasCode("CODEGEN-CUBE-PHASE"));
  }
  SECTION("no Final phase") {
    fs::path dir = CubeData("matmul_bf16", "bf16_final");
    std::string text = cgtest::ReadAll(dir / "DESIGN.md");
    for (size_t p; (p = text.find("pl.AccPhase.Final")) != std::string::npos;)
      text.replace(p, 17, "pl.AccPhase.Partial");
    cgtest::WriteAll(dir / "DESIGN.md", text);
    auto r = codegen::GenerateKernelFile(dir.string(), {});
    CHECK(r.diagnostics.HasCode("CODEGEN-CUBE-NO-FINAL"));
  }
  SECTION("a Vector section inside the Cube Module") {
    fs::path dir = CubeData("matmul_bf16", "bf16_vec");
    REQUIRE(cgtest::MutateDesign(dir, "  with pl.section_cube():", "  with pl.section_vector():") > 0);
    auto r = codegen::GenerateKernelFile(dir.string(), {});
    CHECK_FALSE(r.ok());
    CHECK(r.diagnostics.HasCode("CODEGEN-NOT-PURE-CUBE"));
    CHECK(r.diagnostics.HasCode("CODEGEN-NO-CUBE-SECTION"));
  }
  SECTION("an undefined name") {
    fs::path dir = CubeData("matmul_bf16", "bf16_undef");
    REQUIRE(cgtest::MutateDesign(dir, "k_outer = (k + KL1 - 1) // KL1", "k_outer = (k + KL2 - 1) // KL1") > 0);
    auto r = codegen::GenerateKernelFile(dir.string(), {});
    CHECK_FALSE(r.ok());
    CHECK(r.diagnostics.HasCode("CODEGEN-UNDEFINED-NAME"));
  }
}
