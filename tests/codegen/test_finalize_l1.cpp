// L1 finalize of examples/matmul_softmax: opdev's cleanup of the last staged file (renames,
// op-dir walk-up, delivery header) with its arity guard and proofread; a refused cleanup keeps
// its error and the final file is rebuilt from the last verified staged file's kernel; the
// orchestrator's cleanup output is proofread; a verifier retry repairs only the final file.
// The arity guard is also tested on its own against 0/1/2/N returns and 1/2/N unpack widths.
#include "codegen_test_util.h"

#include "codegen/cleanup.h"
#include "opdev/codegen/generate.h"
#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"

#include <catch2/catch.hpp>

using namespace opdev;
namespace fs = std::filesystem;

namespace {

bool Has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

codegen::GenerateResult Gen(const fs::path& dir, plan::Dispatch d) {
  codegen::GenerateOptions o;
  o.dispatch = d;
  return codegen::GenerateKernelFile(dir.string(), o);
}

void Write(const codegen::GenerateResult& r) {
  INFO(r.diagnostics.ToText());
  REQUIRE(r.ok());
  REQUIRE(codegen::WriteGeneratedFile(r.file->path, r.file->content, {}).ok());
}

plan::Dispatch Module(int k) {
  plan::Dispatch d;
  d.module_k = k;
  return d;
}

plan::Dispatch Finalize(std::optional<bool> cleanup = std::nullopt, bool retry = false) {
  plan::Dispatch d;
  d.finalize = true;
  d.cleanup_succeeded = cleanup;
  d.retry_of_verifier = retry;
  return d;
}

// The op dir with both staged files written.
fs::path Staged(const std::string& tag) {
  fs::path dir = cgtest::CopyExample("matmul_softmax", tag);
  Write(Gen(dir, Module(1)));
  Write(Gen(dir, Module(2)));
  return dir;
}

std::string KernelOf(const std::string& src) {
  Diagnostics d;
  auto m = py::ParseModule(src, "t.py", &d);
  REQUIRE(m.ok());
  for (const auto& def : py::TopLevelDefs(*m))
    if (def.HasDecorator("pl.jit")) return py::PrintStmt(*def.stmt);
  return "";
}

void Replace(const fs::path& p, const std::string& from, const std::string& to) {
  std::string t = cgtest::ReadAll(p);
  size_t at = t.find(from);
  REQUIRE(at != std::string::npos);
  t.replace(at, from.size(), to);
  cgtest::WriteAll(p, t);
}

std::vector<codegen::GoldenBinding> Bindings(const std::string& delivery) {
  Diagnostics d;
  auto m = py::ParseModule(delivery, "d.py", &d);
  REQUIRE(m.ok());
  return codegen::GoldenBindings(*m, "demo_golden_cpu");
}

std::optional<codegen::ReturnShape> Shape(const std::string& golden) {
  Diagnostics d;
  auto m = py::ParseModule(golden, "g.py", &d);
  REQUIRE(m.ok());
  return codegen::GoldenReturnShape(*m, "demo_golden_cpu");
}

// True when the guard refuses `delivery` against `golden`; false when it passes or stays
// silent because the return is not statically knowable.
bool Refused(const std::string& golden, const std::string& delivery) {
  auto s = Shape(golden);
  if (!s) return false;
  Diagnostics d;
  codegen::CheckGoldenArity(*s, Bindings(delivery), "demo_golden_cpu", "d.py",
                            category::kImplementationError, &d);
  return d.HasCode("CLEANUP-ARITY");
}

// The same with the delivery's wrapper: what demo_wrapper returns decides whether a golden
// tuple converted with list() is compared pairwise with a tuple of outputs.
bool RefusedWithWrapper(const std::string& golden, const std::string& delivery) {
  auto s = Shape(golden);
  if (!s) return false;
  Diagnostics pd;
  auto m = py::ParseModule(delivery, "d.py", &pd);
  REQUIRE(m.ok());
  Diagnostics d;
  codegen::CheckGoldenArity(*s, codegen::GoldenBindings(*m, "demo_golden_cpu"), "demo_golden_cpu", "d.py",
                            category::kImplementationError, &d, codegen::GoldenReturnShape(*m, "demo_wrapper"));
  return d.HasCode("CLEANUP-ARITY");
}

// The binding opdev's generated _assert_precision makes (emitters.cpp), and a wrapper.
std::string Delivery(const std::string& wrapper_return) {
  return "def _assert_precision(actual, *inputs):\n"
         "    host_inputs = [t.cpu() for t in inputs]\n"
         "    golden = demo_golden_cpu(*host_inputs)\n"
         "    if isinstance(actual, (tuple, list)):\n"
         "        golden = list(golden)\n"
         "    check(actual, golden)\n"
         "\n\n"
         "def demo_wrapper(x):\n"
         "    a = x + 1\n"
         "    b = x + 2\n"
         "    c = x + 3\n"
         "    return " + wrapper_return + "\n";
}

const std::string kG1 = "def demo_golden_cpu(x):\n    return x + 1\n";
const std::string kG2 = "def demo_golden_cpu(x):\n    return x + 1, x + 2\n";
const std::string kG3 = "def demo_golden_cpu(x):\n    return x + 1, x + 2, x + 3\n";

}  // namespace

TEST_CASE("finalize: the arity guard against golden returns and delivery unpacks") {
  // Matching multi-value unpacks pass; a single name bound to a single value passes.
  CHECK_FALSE(Refused(kG2, "a, b = demo_golden_cpu(x)\n"));
  CHECK_FALSE(Refused(kG2, "(a, b) = demo_golden_cpu(x)\n"));
  CHECK_FALSE(Refused(kG3, "a, b, c = demo_golden_cpu(x)\n"));
  CHECK_FALSE(Refused(kG1, "expected = demo_golden_cpu(x)\n"));
  CHECK_FALSE(Refused(kG3, "a, *rest = demo_golden_cpu(x)\n"));  // starred: elastic
  CHECK_FALSE(Refused(kG2, "expected = torch.zeros(4)\n"));      // never called
  // Mismatches.
  CHECK(Refused(kG1, "(a,) = demo_golden_cpu(x)\n"));
  CHECK(Refused(kG1, "a, b = demo_golden_cpu(x)\n"));
  CHECK(Refused(kG2, "a, b, c = demo_golden_cpu(x)\n"));
  CHECK(Refused(kG3, "a, b = demo_golden_cpu(x)\n"));
  CHECK(Refused(kG2, "g = demo_golden_cpu(x)\ncheck(out, g)\n"));
  CHECK(Refused(kG2, "g = mod.demo_golden_cpu(x)\ncheck(out, g)\n"));  // attribute call
  // A bare name the delivery uses as a tuple.
  CHECK_FALSE(Refused(kG2, "g = demo_golden_cpu(x)\ncheck(out, g[0])\n"));
  CHECK_FALSE(Refused(kG2, "g = demo_golden_cpu(x)\na, b = g\n"));
  CHECK_FALSE(Refused(kG2, "g = demo_golden_cpu(x)\nfor t in g:\n    check(t)\n"));
  // List literals unpack like tuples.
  const std::string list2 = "def demo_golden_cpu(x):\n    return [x + 1, x + 2]\n";
  CHECK_FALSE(Refused(list2, "a, b = demo_golden_cpu(x)\n"));
  CHECK(Refused(list2, "a, b, c = demo_golden_cpu(x)\n"));
  // Not statically knowable: silent either way.
  CHECK_FALSE(Shape("def demo_golden_cpu(x):\n    return _ref(x)\n").has_value());
  CHECK_FALSE(Shape("def demo_golden_cpu(x):\n    return torch.max(x, dim=-1)\n").has_value());
  CHECK_FALSE(Shape("def demo_golden_cpu(x):\n    print(x)\n").has_value());
  CHECK_FALSE(Shape("def demo_golden_cpu(x):\n    if x:\n        return x, x\n    return x\n")
                  .has_value());
  CHECK_FALSE(Shape("def demo_golden_cpu(x):\n    return (*x,)\n").has_value());
  // A nested helper's returns are not the golden's own.
  const std::string nested =
      "def demo_golden_cpu(x):\n    def h(v):\n        return v * 2\n    return h(x), h(x + 1)\n";
  REQUIRE(Shape(nested).has_value());
  CHECK(Shape(nested)->arity == 2);
  CHECK(Refused(nested, "(a,) = demo_golden_cpu(x)\n"));
  CHECK_FALSE(Refused(nested, "a, b = demo_golden_cpu(x)\n"));
  // The finding names the delivery line.
  Diagnostics d;
  codegen::CheckGoldenArity(*Shape(kG2), Bindings("x = 1\ng = demo_golden_cpu(x)\n"),
                            "demo_golden_cpu", "d.py", category::kImplementationError, &d);
  REQUIRE(d.Find("CLEANUP-ARITY") != nullptr);
  CHECK(d.Find("CLEANUP-ARITY")->line == 2);
}

TEST_CASE("finalize: a multi-output golden passes the arity guard on the generated delivery when the wrapper returns as many outputs") {
  const std::string g2 = "def demo_golden_cpu(x):\n    return x + 1, x + 2\n";
  const std::string g3 = "def demo_golden_cpu(x):\n    return x + 1, x + 2, x + 3\n";
  // Two outputs, two golden values: compared pairwise.
  CHECK_FALSE(RefusedWithWrapper(g2, Delivery("a, b")));
  CHECK_FALSE(RefusedWithWrapper(g3, Delivery("(a, b, c)")));
  // One output, or another count, or a wrapper return that cannot be told statically.
  CHECK(RefusedWithWrapper(g2, Delivery("a")));
  CHECK(RefusedWithWrapper(g2, Delivery("a, b, c")));
  CHECK(RefusedWithWrapper(g3, Delivery("a, b")));
  CHECK(RefusedWithWrapper(g2, Delivery("make_outputs(a, b)")));
  // Without the wrapper's shape the bare name stays refused (the binding alone proves nothing).
  CHECK(Refused(g2, Delivery("a, b")));
  // A one-value golden bound to one name is fine whatever the wrapper returns.
  CHECK_FALSE(RefusedWithWrapper(kG1, Delivery("a")));
}

TEST_CASE("finalize: opdev's cleanup of the last staged file gives the delivery file") {
  fs::path dir = Staged("fin_ok");
  const fs::path m1 = dir / "modules/test_matmul_softmax_module1.py";
  const fs::path m12 = dir / "modules/test_matmul_softmax_module12.py";
  const std::string s1 = cgtest::ReadAll(m1), s12 = cgtest::ReadAll(m12);
  auto r = Gen(dir, Finalize());
  INFO(r.diagnostics.ToText());
  REQUIRE(r.ok());
  CHECK(r.diagnostics.HasCode("CLEANUP-OK"));
  CHECK(r.file->rel == "test_matmul_softmax.py");
  CHECK(r.file->wrapper == "matmul_softmax_wrapper");
  CHECK(r.file->kernel == "matmul_softmax_kernel");
  CHECK(r.file->tests.size() == 6);
  const std::string& c = r.file->content;
  CHECK(c.rfind("# Delivery file of matmul_softmax, consolidated from "
                "modules/test_matmul_softmax_module12.py by the L1 cleanup.\n", 0) == 0);
  CHECK(Has(c, "def matmul_softmax_wrapper(q, k):"));
  CHECK(Has(c, "    y = matmul_softmax_wrapper(q, k)\n"));
  CHECK_FALSE(Has(c, "_wrapper_module"));
  CHECK_FALSE(Has(c, "_golden_stage"));
  CHECK(Has(c, "    from matmul_softmax_golden_cpu import matmul_softmax_golden_cpu\n"));
  CHECK(Has(c, "_OP_DIR = str(Path(__file__).resolve().parent)\n"));
  CHECK(KernelOf(c) == KernelOf(s12));  // the final staged file's kernel, unchanged
  Write(r);
  CHECK(cgtest::ReadAll(m1) == s1);
  CHECK(cgtest::ReadAll(m12) == s12);
  // The orchestrator's cleanup succeeded: its output (here opdev's) is proofread, unchanged.
  auto p = Gen(dir, Finalize(true));
  INFO(p.diagnostics.ToText());
  REQUIRE(p.ok());
  CHECK(p.diagnostics.HasCode("CLEANUP-PROOFREAD-OK"));
  CHECK(p.file->content == c);
}

TEST_CASE("finalize: a refused cleanup keeps its error and the final file is rebuilt from the last staged file") {
  fs::path dir = Staged("fin_rebuild");
  // The CPU golden returns one value a static reader can see ...
  Replace(dir / "matmul_softmax_golden_cpu.py", "    return torch.softmax(s, dim=-1)\n",
          "    return torch.softmax(s, dim=-1) * 1.0\n");
  // ... and the last staged file unpacks the staged golden into a one-element tuple.
  const fs::path m12 = dir / "modules/test_matmul_softmax_module12.py";
  Replace(m12, "    golden = matmul_softmax_golden_stage12(*host_inputs)\n",
          "    (golden,) = matmul_softmax_golden_stage12(*host_inputs)\n");
  const std::string s12 = cgtest::ReadAll(m12);
  auto r = Gen(dir, Finalize());
  INFO(r.diagnostics.ToText());
  REQUIRE(r.ok());
  const Diagnostic* kept = r.diagnostics.Find("CLEANUP-ARITY");
  REQUIRE(kept != nullptr);
  CHECK(kept->severity == Severity::kWarning);
  CHECK(Has(kept->message, "cleanup of modules/test_matmul_softmax_module12.py failed"));
  CHECK(r.diagnostics.HasCode("CLEANUP-REBUILT"));
  const std::string& c = r.file->content;
  CHECK(Has(c, "(L1 finalize, rebuilt from Modules 1..2, Vector/Cube fusion)"));
  CHECK(Has(c, "    golden = matmul_softmax_golden_cpu(*host_inputs)\n"));
  CHECK(Has(c, "    matmul_softmax_kernel[None, block_dim](q, k, s, y)\n    return y\n"));
  CHECK_FALSE(Has(c, "sys.path"));
  CHECK(KernelOf(c) == KernelOf(s12));
  CHECK(cgtest::ReadAll(m12) == s12);
  // The dispatch says the orchestrator's cleanup failed: rebuilt directly.
  auto f = Gen(dir, Finalize(false));
  INFO(f.diagnostics.ToText());
  REQUIRE(f.ok());
  CHECK(f.diagnostics.HasCode("CLEANUP-FAILED"));
  CHECK(f.diagnostics.HasCode("CLEANUP-REBUILT"));
  CHECK(f.file->content == c);
}

TEST_CASE("finalize: a golden whose return contradicts the delivery's binding is refused even after the rebuild") {
  fs::path dir = Staged("fin_arity");
  Replace(dir / "matmul_softmax_golden_cpu.py", "    return torch.softmax(s, dim=-1)\n",
          "    return torch.softmax(s, dim=-1), s\n");
  auto r = Gen(dir, Finalize());
  CHECK_FALSE(r.ok());
  CHECK_FALSE(r.file.has_value());
  bool warning = false, error = false;
  for (const auto& d : r.diagnostics.items())
    if (d.code == "CLEANUP-ARITY") (d.severity == Severity::kError ? error : warning) = true;
  CHECK(warning);  // the cleanup's original error, kept
  CHECK(error);    // the rebuilt file binds the same way
}

TEST_CASE("finalize: a rebuilt kernel that is not the last staged file's is refused") {
  fs::path dir = Staged("fin_differs");
  const fs::path m12 = dir / "modules/test_matmul_softmax_module12.py";
  Replace(m12, "            m_off = t * TILE_M\n", "            m_off = TILE_M * t\n");
  auto r = Gen(dir, Finalize(false));
  CHECK_FALSE(r.ok());
  CHECK(r.diagnostics.HasCode("CLEANUP-REBUILD-DIFFERS"));
}

TEST_CASE("finalize: a verifier retry repairs only the final file") {
  fs::path dir = Staged("fin_retry");
  Write(Gen(dir, Finalize()));
  const fs::path final_file = dir / "test_matmul_softmax.py";
  const std::string delivered = cgtest::ReadAll(final_file);
  const std::string s12 = cgtest::ReadAll(dir / "modules/test_matmul_softmax_module12.py");
  // A final file that still calls the staged wrapper name and walks up two levels.
  Replace(final_file, "    y = matmul_softmax_wrapper(q, k)\n",
          "    y = matmul_softmax_wrapper_module12(q, k)\n");
  Replace(final_file, "Path(__file__).resolve().parent)\n",
          "Path(__file__).resolve().parents[1])\n");
  auto r = Gen(dir, Finalize(std::nullopt, true));
  INFO(r.diagnostics.ToText());
  REQUIRE(r.ok());
  CHECK(r.diagnostics.HasCode("CLEANUP-RETRY"));
  CHECK(r.file->content == delivered);
  CHECK(cgtest::ReadAll(dir / "modules/test_matmul_softmax_module12.py") == s12);
  // What the delivery fixes cannot repair is reported, not rewritten.
  Replace(final_file, "@pl.jit(auto_mutex=True)\n",
          "@pl.jit(auto_mutex=True)\ndef extra_kernel():\n    pass\n\n\n@pl.jit(auto_mutex=True)\n");
  auto bad = Gen(dir, Finalize(std::nullopt, true));
  CHECK_FALSE(bad.ok());
  CHECK(bad.diagnostics.HasCode("CLEANUP-PROOFREAD"));
}
