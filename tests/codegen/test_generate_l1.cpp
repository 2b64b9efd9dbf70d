// L1 Module rounds of examples/matmul_softmax (Module 1 Cube s = q·kᵀ, Module 2 Vector row
// softmax): Module 1's staged file holds the Cube section only, without the cross-core set
// whose partner is still to come; Module 2's file is Module 1's kernel plus the Vector
// section, with both sides of the §6 event exactly as §1 writes them; Module 1's file is not
// touched by the Module 2 round; a hand-edited Module 1 file, §1/§6 event disagreements and a
// kernel whose sections do not match the §0 Modules are findings with no file.
#include "codegen_test_util.h"

#include "opdev/codegen/generate.h"
#include "opdev/pyfront/ast.h"
#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"

#include <catch2/catch.hpp>

using namespace opdev;
namespace fs = std::filesystem;

namespace {

bool Has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

codegen::GenerateResult Gen(const fs::path& dir, int k) {
  codegen::GenerateOptions o;
  o.dispatch.module_k = k;
  return codegen::GenerateKernelFile(dir.string(), o);
}

void Write(const codegen::GenerateResult& r) {
  REQUIRE(r.ok());
  REQUIRE(codegen::WriteGeneratedFile(r.file->path, r.file->content, {}).ok());
}

// The printed statements of the `with pl.section_*()` block `index` of the kernel in `src`.
std::string SectionText(const std::string& src, size_t index) {
  Diagnostics d;
  auto m = py::ParseModule(src, "t.py", &d);
  REQUIRE(m.ok());
  for (const auto& def : py::TopLevelDefs(*m)) {
    if (!def.HasDecorator("pl.jit")) continue;
    size_t seen = 0;
    for (const auto& s : def.stmt->body)
      if (s->Is(py::StmtKind::kWith) && seen++ == index) return py::PrintStmt(*s);
  }
  return "";
}

}  // namespace

TEST_CASE("l1: Module 1 of matmul_softmax is the Cube section alone, returning s") {
  fs::path dir = cgtest::CopyExample("matmul_softmax", "l1m1");
  auto r = Gen(dir, 1);
  INFO(r.diagnostics.ToText());
  REQUIRE(r.ok());
  const auto& f = *r.file;
  CHECK(f.rel == "modules/test_matmul_softmax_module1.py");
  CHECK(f.wrapper == "matmul_softmax_wrapper_module1");
  CHECK(f.kernel == "matmul_softmax_kernel");
  CHECK(f.tests.size() == 6);
  const std::string& c = f.content;
  CHECK(Count(c, "@pl.jit") == 1);
  CHECK(Has(c, "(L1 Module 1 of 2, staged, Vector/Cube fusion)"));
  // Kernel parameters: the §5 arguments Module 1 uses (no y), typed from SPEC / module_interfaces.
  CHECK(Has(c, "def matmul_softmax_kernel(q: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16], "
               "k: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16], "
               "s: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32]):"));
  CHECK(Has(c, "with pl.section_cube():"));
  CHECK_FALSE(Has(c, "section_vector"));
  // The READY set pairs with Module 2: left out, with a note at its DESIGN line.
  CHECK_FALSE(Has(c, "cross_core"));
  const Diagnostic* note = r.diagnostics.Find("CODEGEN-L1-SYNC-LATER");
  REQUIRE(note != nullptr);
  CHECK(note->severity == Severity::kNote);
  CHECK(Has(note->evidence, "set_cross_core(pipe=pl.PipeType.FIX, event_id=READY_EVENT)"));
  // Wrapper: primary inputs, s allocated with torch.empty and returned, one launch.
  CHECK(Has(c, "def matmul_softmax_wrapper_module1(q, k):"));
  CHECK(Has(c, "    s = torch.empty((M, N), dtype=torch.float32, device=q.device)\n"));
  CHECK(Has(c, "    matmul_softmax_kernel[None, block_dim](q, k, s)\n    return s\n"));
  CHECK(Count(c, "matmul_softmax_kernel[None, block_dim]") == 1);
  // Tests against the stage golden, imported inside the function body; the op dir on sys.path.
  CHECK(Has(c, "    from matmul_softmax_golden_stage1 import matmul_softmax_golden_stage1\n"));
  CHECK_FALSE(Has(c, "\nfrom matmul_softmax_golden_stage1"));
  CHECK(Has(c, "_OP_DIR = str(Path(__file__).resolve().parent.parent)"));
  CHECK(Has(c, "    s = matmul_softmax_wrapper_module1(q, k)\n    _assert_precision(s, q, k, "));
  // Only Module 1's tiles: the Vec rows of §3 belong to Module 2's round.
  CHECK_FALSE(Has(c, "MemorySpace.Vec"));
  Diagnostics d;
  CHECK(py::ParseModule(c, f.rel, &d).ok());
}

TEST_CASE("l1: Module 2 extends Module 1's kernel with the Vector section and the §6 event / Module 1's file is untouched") {
  fs::path dir = cgtest::CopyExample("matmul_softmax", "l1m2");
  // Module 2 before Module 1's staged file exists: the planner's prerequisite.
  {
    auto r = Gen(dir, 2);
    CHECK_FALSE(r.ok());
    CHECK(r.diagnostics.HasCode("PLAN-PREREQ-MISSING"));
  }
  auto r1 = Gen(dir, 1);
  Write(r1);
  const fs::path m1 = dir / "modules/test_matmul_softmax_module1.py";
  const std::string before = cgtest::ReadAll(m1);
  auto r2 = Gen(dir, 2);
  INFO(r2.diagnostics.ToText());
  REQUIRE(r2.ok());
  Write(r2);
  CHECK(cgtest::ReadAll(m1) == before);  // the historical staged file, byte for byte
  const std::string& c = r2.file->content;
  CHECK(r2.file->rel == "modules/test_matmul_softmax_module12.py");
  CHECK(r2.file->wrapper == "matmul_softmax_wrapper_module12");
  CHECK_FALSE(r2.diagnostics.HasCode("CODEGEN-L1-SYNC-LATER"));
  CHECK(Count(c, "@pl.jit") == 1);
  CHECK(Has(c, ", s: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32], "
               "y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16]):"));
  // Both sides of READY, as §1 writes them, each in its own section.
  const std::string cube = SectionText(c, 0), vec = SectionText(c, 1);
  CHECK(Has(cube, "with pl.section_cube():"));
  CHECK(Has(cube, "pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=READY_EVENT)"));
  CHECK(Has(vec, "with pl.section_vector():"));
  CHECK(Has(vec, "pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=READY_EVENT)"));
  CHECK(SectionText(c, 2).empty());
  // Module 1's section is the previous file's, plus only the connection.
  std::string prev_cube = SectionText(before, 0);
  const std::string set_line =
      "\n    pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=READY_EVENT)";
  std::string stripped = cube;
  size_t at = stripped.find(set_line);
  REQUIRE(at != std::string::npos);
  stripped.erase(at, set_line.size());
  CHECK(stripped == prev_cube);
  // Wrapper: s is the workspace of the launch contract, y the Module 2 output it returns.
  CHECK(Has(c, "    s = torch.empty((M, N), dtype=torch.float32, device=q.device)\n"
               "    y = torch.empty((M, N), dtype=torch.float16, device=q.device)\n"));
  CHECK(Has(c, "    matmul_softmax_kernel[None, block_dim](q, k, s, y)\n    return y\n"));
  CHECK(Has(c, "    from matmul_softmax_golden_stage12 import matmul_softmax_golden_stage12\n"));
  CHECK(Has(c, "    y = matmul_softmax_wrapper_module12(q, k)\n"));
}

TEST_CASE("l1: a new Module starts from the last verified staged file / an edited one is not extended") {
  fs::path dir = cgtest::CopyExample("matmul_softmax", "l1start");
  Write(Gen(dir, 1));
  const fs::path m1 = dir / "modules/test_matmul_softmax_module1.py";
  std::string text = cgtest::ReadAll(m1);
  const std::string from = "            m_off = t * TILE_M\n";
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), "            m_off = TILE_M * t\n");
  cgtest::WriteAll(m1, text);
  auto r = Gen(dir, 2);
  CHECK_FALSE(r.ok());
  const Diagnostic* d = r.diagnostics.Find("CODEGEN-L1-START-DIFFERS");
  REQUIRE(d != nullptr);
  CHECK(d->category == "implementation_error");
  CHECK(d->line > 1);
  CHECK_FALSE(fs::exists(dir / "modules/test_matmul_softmax_module12.py"));
}

TEST_CASE("l1: §1 events must be the ones §6 lists") {
  fs::path dir = cgtest::CopyExample("matmul_softmax", "l1ev");
  // §2.1 moves READY_EVENT to 3; the §6 tables still say 0.
  REQUIRE(cgtest::MutateDesign(dir, "READY_EVENT = 0 ", "READY_EVENT = 3 ") > 0);
  auto r = Gen(dir, 1);
  CHECK_FALSE(r.ok());
  CHECK(r.diagnostics.HasCode("CODEGEN-L1-EVENT"));
  CHECK_FALSE(r.file.has_value());
}

TEST_CASE("l1: the fused kernel needs one section block per §0 Module") {
  fs::path dir = cgtest::CopyExample("matmul_softmax", "l1sec");
  // A statement outside every section cannot be assigned to a Module round.
  REQUIRE(cgtest::MutateDesign(dir, "def matmul_softmax_kernel(q, k, s, y):\n",
                               "def matmul_softmax_kernel(q, k, s, y):\n    width = TILE_N\n") > 0);
  auto r = Gen(dir, 1);
  CHECK_FALSE(r.ok());
  const Diagnostic* d = r.diagnostics.Find("CODEGEN-L1-MODULE-SECTIONS");
  REQUIRE(d != nullptr);
  CHECK(d->category == "design_violation");
}

TEST_CASE("l1: §0 section kinds must match the kernel's section blocks") {
  fs::path dir = cgtest::CopyExample("matmul_softmax", "l1kind");
  REQUIRE(cgtest::MutateDesign(dir, "| `s`（module_1） | `y`（fp16 `[M,N]`） | `section_vector` |",
                               "| `s`（module_1） | `y`（fp16 `[M,N]`） | `section_cube` |") > 0);
  auto r = Gen(dir, 1);
  CHECK_FALSE(r.ok());
  CHECK(r.diagnostics.HasCode("CODEGEN-L1-MODULE-SECTIONS"));
}
