// opdev gen on the real softmax op dir (examples/softmax: the published Stage 1-3 output plus
// goldens), in a temporary copy: the file compiles with CPython, re-parses with pyfront, and its
// constants, tile groups, kernel, VF, wrapper, eight §8 tests and budget match the DESIGN.
#include "codegen_test_util.h"

#include "opdev/budget/const_eval.h"
#include "opdev/codegen/generate.h"
#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"

#include <catch2/catch.hpp>

#include <map>

using namespace opdev;
namespace fs = std::filesystem;

namespace {

struct Generated {
  fs::path dir;
  codegen::GenerateResult result;
  py::Module module;
};

Generated GenerateSoftmax() {
  Generated g;
  g.dir = cgtest::CopyExample("softmax", "sm");
  g.result = codegen::GenerateKernelFile(g.dir.string(), {});
  INFO(g.result.diagnostics.ToText());
  REQUIRE(g.result.ok());
  Diagnostics d;
  auto m = py::ParseModule(g.result.file->content, "test_softmax.py", &d);
  REQUIRE(m.ok());
  g.module = std::move(*m);
  return g;
}

const py::Stmt* Def(const py::Module& m, const std::string& name) {
  for (const auto& d : py::TopLevelDefs(m))
    if (d.name == name) return d.stmt;
  return nullptr;
}

std::vector<std::string> CallsIn(const py::Stmt& s, const std::string& callee) {
  std::vector<std::string> out;
  py::ForEachCall(s, [&](const py::Expr& c) {
    if (py::CallName(c) == callee) out.push_back(py::PrintExpr(c));
  });
  return out;
}

}  // namespace

TEST_CASE("softmax: the file compiles with CPython and is deterministic") {
  Generated g = GenerateSoftmax();
  const auto& f = *g.result.file;
  CHECK(f.rel == "test_softmax.py");
  CHECK(f.path == (g.dir / "test_softmax.py").string());
  fs::path out = g.dir / "test_softmax.py";
  REQUIRE(codegen::WriteGeneratedFile(out.string(), f.content, {}).ok());
  CHECK(cgtest::RunShell(std::string(OPDEV_PYTHON) + " -m py_compile " + out.string()) == 0);
  // Printing the re-parsed module gives back an AST-equal module (pyfront round trip).
  Diagnostics d;
  auto again = py::ParseModule(py::PrintModule(g.module), "again.py", &d);
  REQUIRE(again.ok());
  CHECK(py::AstEqual(*again, g.module));
  // Same inputs, same bytes.
  auto second = codegen::GenerateKernelFile(g.dir.string(), {});
  REQUIRE(second.ok());
  CHECK(second.file->content == f.content);
  // Only the generated file was added to the op dir.
  CHECK(fs::exists(g.dir / "DESIGN.md"));
}

TEST_CASE("softmax: §2.1 constants verbatim at module level") {
  Generated g = GenerateSoftmax();
  budget::ConstEnv env = budget::FoldModuleConstants(g.module);
  CHECK(env.at("LANES") == 128);
  CHECK(env.at("MAX_N") == 8192);
  CHECK(env.at("TILE_ROWS") == 3);
  CHECK(env.at("SLOT_BYTES") == 49152);
  CHECK(env.at("VA_IN0") == 0);
  CHECK(env.at("VA_IN1") == 0x0C000);
  CHECK(env.at("VA_OUT0") == 0x18000);
  CHECK(env.at("VA_OUT1") == 0x24000);
  const std::string& c = g.result.file->content;
  CHECK(c.find("NEG_INF = -1e30      # reduce_max 有限负哨兵") != std::string::npos);
  CHECK(c.find("VA_IN1  = VA_IN0  + SLOT_BYTES   # 0x0C000 (49152)") != std::string::npos);
  // No constant is re-assigned inside the kernel.
  const py::Stmt* k = Def(g.module, "softmax_tile_group_kernel");
  REQUIRE(k);
  for (const auto& s : k->body)
    if (s->Is(py::StmtKind::kAssign) && s->targets[0]->Is(py::ExprKind::kName))
      CHECK(env.count(s->targets[0]->id) == 0);
}

TEST_CASE("softmax: tile type and groups completed from §2/§3") {
  Generated g = GenerateSoftmax();
  const py::Stmt* k = Def(g.module, "softmax_tile_group_kernel");
  REQUIRE(k);
  auto types = CallsIn(*k, "pl.TileType");
  REQUIRE(types.size() == 1);
  CHECK(types[0] ==
        "pl.TileType(shape=[TILE_ROWS, MAX_N], dtype=pl.DT_FP16, "
        "target_memory=pl.MemorySpace.Vec, valid_shape=[-1, -1])");
  auto groups = CallsIn(*k, "pl.make_tile_group");
  REQUIRE(groups.size() == 2);
  CHECK(groups[0] == "pl.make_tile_group(type=fp16_tt, addrs=[VA_IN0, VA_IN1], mutex_ids=[0, 1])");
  CHECK(groups[1] ==
        "pl.make_tile_group(type=fp16_tt, addrs=[VA_OUT0, VA_OUT1], mutex_ids=[2, 3])");
  // The TileType is declared first in the kernel body, before the groups.
  REQUIRE(k->body[0]->Is(py::StmtKind::kAssign));
  CHECK(k->body[0]->targets[0]->id == "fp16_tt");
}

TEST_CASE("softmax: one @pl.jit kernel and the VF with call-site parameters") {
  Generated g = GenerateSoftmax();
  int jits = 0, vfs = 0;
  for (const auto& d : py::TopLevelDefs(g.module)) {
    if (d.HasDecorator("pl.jit")) ++jits;
    if (d.HasDecorator("pl.vector_function")) ++vfs;
  }
  CHECK(jits == 1);
  CHECK(vfs == 1);
  const py::Stmt* k = Def(g.module, "softmax_tile_group_kernel");
  REQUIRE(k);
  CHECK(py::PrintExpr(*k->decorator_list[0]) == "pl.jit(auto_mutex=True)");
  REQUIRE(k->args->args.size() == 2);
  CHECK(k->args->args[0].arg == "x");
  CHECK(py::PrintExpr(*k->args->args[0].annotation) ==
        "pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16]");
  CHECK(k->args->args[1].arg == "y");
  // Section, strided core loop, set_validshape before load, VF call, store.
  std::string body = py::PrintStmt(*k);
  CHECK(body.find("with pl.section_vector():") != std::string::npos);
  CHECK(body.find("for tile_id in pl.range(core_id, num_tiles, num_cores):") != std::string::npos);
  size_t vs = body.find("pl.set_validshape(in_slot, [valid_rows, cols])");
  size_t ld = body.find("pl.load(in_slot, x, [row_off, 0])");
  REQUIRE(vs != std::string::npos);
  REQUIRE(ld != std::string::npos);
  CHECK(vs < ld);
  CHECK(body.find("softmax_rows_vf(in_slot, out_slot, valid_rows, cols)") != std::string::npos);
  CHECK(body.find("pl.store(y, out_slot, [row_off, 0])") != std::string::npos);

  const py::Stmt* vf = Def(g.module, "softmax_rows_vf");
  REQUIRE(vf);
  std::string sig = py::PrintStmt(*vf).substr(0, py::PrintStmt(*vf).find('\n'));
  CHECK(sig == "@pl.vector_function");
  auto& a = vf->args->args;
  REQUIRE(a.size() == 4);
  CHECK(a[0].arg == "in_tile");
  CHECK(a[0].annotation == nullptr);
  CHECK(a[1].arg == "out_tile");
  CHECK(a[2].arg == "n_rows");
  CHECK(py::PrintExpr(*a[2].annotation) == "pl.DT_INT64");
  CHECK(a[3].arg == "n_cols");
  // No MTE op inside the VF; the three passes' calls are all there.
  CHECK(CallsIn(*vf, "pl.load").empty());
  CHECK(CallsIn(*vf, "vf.reduce_max").size() == 1);
  CHECK(CallsIn(*vf, "vf.exp_sub").size() == 4);
  CHECK(CallsIn(*vf, "vf.store_align").size() == 1);
  // The DESIGN's pass-3 use of pass-2 masks is transcribed, not repaired, and reported.
  CHECK(g.result.diagnostics.HasCode("CODEGEN-LOOP-SCOPED-NAME"));
  CHECK(CallsIn(*vf, "vf.div")[0] == "vf.div(e_even, row_sum_b, mreg_fp32_z)");
}

TEST_CASE("softmax: wrapper per §5 with exactly one launch") {
  Generated g = GenerateSoftmax();
  const py::Stmt* w = Def(g.module, "softmax_wrapper");
  REQUIRE(w);
  REQUIRE(w->args->args.size() == 1);
  CHECK(w->args->args[0].arg == "x");
  std::string text = py::PrintStmt(*w);
  CHECK(text.find("if x.dtype != torch.float16:") != std::string::npos);
  CHECK(text.find("if x.dim() != 2:") != std::string::npos);
  CHECK(text.find("if x.stride(1) != 1 or x.stride(0) != x.stride(1) * x.size(1):") !=
        std::string::npos);
  CHECK(text.find("is_contiguous") == std::string::npos);  // outside the wrapper allowlist
  CHECK(text.find("if not 1 <= N <= 8192:") != std::string::npos);
  CHECK(text.find("y = torch.empty((B, N), dtype=torch.float16, device=x.device)") !=
        std::string::npos);
  CHECK(text.find("num_tiles = (B + TILE_ROWS - 1) // TILE_ROWS") != std::string::npos);
  CHECK(text.find("block_dim = min(get_platform_info().vector_core_num, num_tiles)") !=
        std::string::npos);
  // Exactly one launch, not inside a loop; no torch op other than torch.empty.
  int launches = 0;
  py::ForEachCall(*w, [&](const py::Expr& c) {
    if (c.func && c.func->Is(py::ExprKind::kSubscript)) {
      ++launches;
      CHECK(py::PrintExpr(c) == "softmax_tile_group_kernel[None, block_dim](x, y)");
    }
    std::string n = py::CallName(c);
    if (n.rfind("torch.", 0) == 0) CHECK(n == "torch.empty");
  });
  CHECK(launches == 1);
  for (const auto& s : w->body) CHECK_FALSE(s->Is(py::StmtKind::kFor));
}

TEST_CASE("softmax: one test per §8 row with its shape, device and seeded SPEC inputs") {
  Generated g = GenerateSoftmax();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"test_softmax_aligned", "[3, 128]"},         {"test_softmax_row_tail", "[4, 128]"},
      {"test_softmax_col_tail", "[3, 200]"},        {"test_softmax_tail2d", "[4, 200]"},
      {"test_softmax_multitile", "[7, 200]"},       {"test_softmax_p0_batch1_n128", "[1, 128]"},
      {"test_softmax_p0_batch4_n2048", "[4, 2048]"}, {"test_softmax_p0_batch32_n4096", "[32, 4096]"}};
  REQUIRE(g.result.file->tests.size() == 8);
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& [name, shape] = cases[i];
    CHECK(g.result.file->tests[i] == name);
    const py::Stmt* t = Def(g.module, name);
    REQUIRE(t);
    std::string text = py::PrintStmt(*t);
    CHECK(text.find("from softmax_golden import _get_device") != std::string::npos);
    CHECK(text.find("device = _get_device()") != std::string::npos);
    CHECK(text.find("torch.manual_seed(42)") != std::string::npos);
    CHECK(text.find("x = _make_input(" + shape + ", torch.float16, -65504.0, 65504.0, device)") !=
          std::string::npos);
    CHECK(text.find("y = softmax_wrapper(x)") != std::string::npos);
    CHECK(text.find("_assert_precision(y, x, label=\"" + name + " " + shape + "\")") !=
          std::string::npos);
  }
  // The runner calls every test in §8 order.
  std::string c = g.result.file->content;
  size_t main = c.find("if __name__ == \"__main__\":");
  REQUIRE(main != std::string::npos);
  size_t last = main;
  for (const auto& [name, _] : cases) {
    size_t at = c.find("    " + name + "()", main);
    REQUIRE(at != std::string::npos);
    CHECK(at > last);
    last = at;
  }
}

TEST_CASE("softmax: dev-only imports stay inside _assert_precision") {
  Generated g = GenerateSoftmax();
  for (const auto& s : g.module.body) {
    if (s->Is(py::StmtKind::kImport) || s->Is(py::StmtKind::kImportFrom)) {
      std::string text = py::PrintStmt(*s);
      CHECK(text.find("precision_compare") == std::string::npos);
      CHECK(text.find("golden") == std::string::npos);
    }
  }
  const py::Stmt* ap = Def(g.module, "_assert_precision");
  REQUIRE(ap);
  std::string text = py::PrintStmt(*ap);
  CHECK(text.find("from precision_compare import check_precision") != std::string::npos);
  CHECK(text.find("from softmax_golden_cpu import softmax_golden_cpu") != std::string::npos);
  CHECK(text.find("matched_ratio={}, max_abs_error={}") != std::string::npos);
}

TEST_CASE("softmax: budget of the generated file equals the §3 map, 192 KiB of 248 KiB") {
  Generated g = GenerateSoftmax();
  const auto& b = g.result.file->budget;
  CHECK(b.ok());
  REQUIRE(b.spaces.size() == 1);
  CHECK(b.spaces[0].space == MemSpace::kVec);
  CHECK(b.spaces[0].high_water == 192u * 1024u);
  CHECK(b.spaces[0].capacity == 248u * 1024u);
  REQUIRE(b.model.slots.size() == 4);
  const std::vector<std::tuple<std::string, std::uint64_t, int>> want = {
      {"in_group[0]", 0x00000, 0}, {"in_group[1]", 0x0C000, 1},
      {"out_group[0]", 0x18000, 2}, {"out_group[1]", 0x24000, 3}};
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(b.model.slots[i].name == std::get<0>(want[i]));
    CHECK(b.model.slots[i].address == std::get<1>(want[i]));
    CHECK(b.model.slots[i].bytes == 49152u);
    CHECK(b.model.slots[i].mutex_ids == std::vector<int>{std::get<2>(want[i])});
  }
}
