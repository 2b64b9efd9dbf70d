// Faithful transcription, never silent repair: each defect planted in a copy of the real
// softmax DESIGN.md yields its design_violation finding at the DESIGN line and no file.
#include "codegen_test_util.h"

#include "opdev/codegen/generate.h"

#include <catch2/catch.hpp>

using namespace opdev;
namespace fs = std::filesystem;

namespace {

struct Defect {
  const char* name;
  const char* from;
  const char* to;
  const char* code;
  bool at_mutated_line;  // the finding names the mutated DESIGN line
};

// Each `from` is copied from examples/softmax/DESIGN.md; its first occurrence is in §1 unless
// noted.
const Defect kDefects[] = {
    {"undefined variable", "row_off = tile_id * TILE_ROWS", "row_off = tile_idx * TILE_ROWS",
     "CODEGEN-UNDEFINED-NAME", true},
    {"address differs from §3", "addrs=[VA_IN0, VA_IN1]", "addrs=[VA_IN0, VA_OUT1]",
     "CODEGEN-ADDRESS-MISMATCH", true},
    {"VF call/param mismatch", "softmax_rows_vf(in_slot, out_slot, valid_rows, cols)",
     "softmax_rows_vf(in_slot, out_slot, valid_rows)", "CODEGEN-VF-CALL-MISMATCH", true},
    {"MTE op in a VF body", "reg = vf.load_align(in_tile, base + r*LANES)",
     "reg = pl.load(in_tile, in_tile, [0, 0])", "CODEGEN-MTE-IN-VF", true},
    {"unknown API", "part = vf.reduce_max(reg, mreg_fp16)",
     "part = vf.reduce_maximum(reg, mreg_fp16)", "CODEGEN-UNKNOWN-API", true},
    {"constant differs from §2.1", "TILE_ROWS = 3        # UB tile 行物理尺寸\n",
     "TILE_ROWS = 4        # UB tile 行物理尺寸\n", "CODEGEN-CONSTANT-MISMATCH", true},
    {"mutex ids differ from §2", "mutex_ids=[2,3])", "mutex_ids=[3,2])",
     "CODEGEN-MUTEX-MISMATCH", true},
    {"load before set_validshape (§7)",
     "pl.set_validshape(in_slot,  [valid_rows, cols]); pl.load(in_slot,  x, [row_off,0])",
     "pl.load(in_slot,  x, [row_off,0]); pl.set_validshape(in_slot,  [valid_rows, cols])",
     "CODEGEN-VALIDSHAPE-ORDER", true},
    {"no launch contract in §5", "`softmax_tile_group_kernel[None, block_dim](x, y)`",
     "`softmax_tile_group_kernel(x, y)`", "CODEGEN-LAUNCH-MISSING", false},
    {"DESIGN code does not parse", "for m in pl.range(0, n_rows):", "for m in pl.range(0, n_rows)",
     "CODEGEN-DESIGN-SYNTAX", true},
    {"tile table contradicts the §3 map (§2 row in FP32)",
     "| `[3, 8192]` | FP16 | UB(Vec) | `—` | 49152 | 双缓冲，mutex_ids=[2,3]",
     "| `[3, 8192]` | FP32 | UB(Vec) | `—` | 49152 | 双缓冲，mutex_ids=[2,3]",
     "CODEGEN-TILE-TABLE-CONFLICT", true},
    {"depth differs from the code", "| `out_group` | 2 |", "| `out_group` | 3 |",
     "CODEGEN-DEPTH-MISMATCH", false},
};

}  // namespace

TEST_CASE("each planted DESIGN defect is reported and nothing is generated") {
  for (const Defect& d : kDefects) {
    SECTION(d.name) {
      fs::path dir = cgtest::CopyExample("softmax", "defect");
      const int line = cgtest::MutateDesign(dir, d.from, d.to);
      REQUIRE(line > 0);  // the mutation applied to the real DESIGN text
      auto r = codegen::GenerateKernelFile(dir.string(), {});
      INFO(d.name << "\n" << r.diagnostics.ToText());
      CHECK_FALSE(r.ok());
      CHECK_FALSE(r.file.has_value());
      REQUIRE(r.diagnostics.HasCode(d.code));
      const Diagnostic* f = r.diagnostics.Find(d.code);
      CHECK(f->severity == Severity::kError);
      CHECK(f->category == "design_violation");
      CHECK(f->file == (dir / "DESIGN.md").string());
      CHECK(f->line > 0);
      if (d.at_mutated_line) CHECK(f->line == line);
      CHECK_FALSE(fs::exists(dir / "test_softmax.py"));
    }
  }
}

TEST_CASE("the unmodified copy generates cleanly (control for the defect table)") {
  fs::path dir = cgtest::CopyExample("softmax", "control");
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  INFO(r.diagnostics.ToText());
  CHECK(r.ok());
  CHECK(r.diagnostics.ErrorCount() == 0);
}

TEST_CASE("a §1 without kernel code is reported, not invented") {
  fs::path dir = cgtest::CopyExample("softmax", "nokernel");
  REQUIRE(cgtest::MutateDesign(dir, "# kernel 主体（@pl.jit(auto_mutex=True)）", "# kernel 主体") > 0);
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  CHECK_FALSE(r.ok());
  CHECK(r.diagnostics.HasCode("CODEGEN-NO-KERNEL-CODE"));
}

TEST_CASE("L1 dispatch on a pure-Vector op is refused by the planner") {
  fs::path dir = cgtest::CopyExample("softmax", "l1");
  codegen::GenerateOptions o;
  o.dispatch.module_k = 1;
  auto r = codegen::GenerateKernelFile(dir.string(), o);
  CHECK_FALSE(r.ok());
  CHECK(r.diagnostics.HasCode("DISPATCH-NOT-FUSION"));
}
