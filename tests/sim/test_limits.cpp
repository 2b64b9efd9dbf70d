// The simulator's explicit limits (issue 17 item 6, issue 18 defects 2-7): every run ends by
// itself. Endless and runaway loops stop with SIM-WORK-BUDGET naming the loop's line and its
// iteration counts (asserted on the hazard, never on the time); block_dim is checked against
// the platform's cores; memory, list length and call depth are capped (SIM-LIMIT); a VF op on
// a register dtype its doc page does not list is SIM-OP-DTYPE; integer arithmetic follows
// Python (compared with /usr/bin/python3 on generated expressions) or refuses with SIM-LIMIT.
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"

#include <catch2/catch.hpp>

#include <algorithm>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unistd.h>

using namespace opdev;

namespace {

const char* kHeader =
    "import pypto_pro.language as pl\n"
    "from pypto_pro.language import Vf as vf\n"
    "import torch\n";

sim::SimResult RunSrc(const std::string& body, const std::string& entry, std::vector<precision::Tensor> in = {},
                      int64_t budget = 0, int64_t block_dim = 0) {
  sim::SimOptions o;
  o.entry = entry;
  o.work_budget = budget;
  o.block_dim = block_dim;
  auto r = sim::RunKernelSource(std::string(kHeader) + body, "limits.py", in, o);
  INFO(r.status().message());
  REQUIRE(r.ok());
  return *r;
}

const Diagnostic* Hazard(const sim::SimResult& r, std::string_view code) {
  for (const auto& d : r.hazards.items())
    if (d.code == code) return &d;
  return nullptr;
}

int LineOf(const std::string& body, const std::string& needle) {
  size_t pos = (std::string(kHeader) + body).find(needle);
  REQUIRE(pos != std::string::npos);
  std::string all = std::string(kHeader) + body;
  return 1 + static_cast<int>(std::count(all.begin(), all.begin() + static_cast<long>(pos), '\n'));
}

precision::Tensor X(std::vector<int64_t> shape = {1, 64}) {
  return simtest::Random(DType::kFloat32, shape, -1.0, 1.0);
}

// A vector kernel whose section body is `inner` (indented 8 spaces) and a wrapper launching it.
std::string Kernel(const std::string& inner, const std::string& launch = "k[None, 1](x, y)") {
  return "@pl.jit\n"
         "def k(x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],\n"
         "      y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32]):\n"
         "    with pl.section_vector():\n" +
         inner +
         "\n"
         "def w(x):\n"
         "    y = torch.empty_like(x)\n"
         "    " + launch + "\n"
         "    return y\n";
}

}  // namespace

// ---- work budget ---------------------------------------------------------------------------

TEST_CASE("an endless while loop in a kernel stops by itself with the default budget") {
  std::string body = Kernel("        i = 0\n        while i >= 0:\n            i = i + 1\n");
  sim::SimResult r = RunSrc(body, "w", {X()});
  CHECK_FALSE(r.completed);
  const Diagnostic* h = Hazard(r, "SIM-WORK-BUDGET");
  REQUIRE(h);
  CHECK(h->line == LineOf(body, "while i >= 0"));
  CHECK(h->category == "runtime_failure");
  CHECK(h->message.find("the loop at line " + std::to_string(h->line) + " was at iteration") != std::string::npos);
  CHECK(h->message.find("the default for 64 input elements") != std::string::npos);
  CHECK(r.stats.work_budget == sim::DefaultWorkBudget(64));
  CHECK(r.stats.work > r.stats.work_budget);
}

TEST_CASE("a while loop without progress stops at its second iteration") {
  std::string body = Kernel("        n = 3\n        while n > 0:\n            n = n + 0\n");
  sim::SimResult r = RunSrc(body, "w", {X()});
  const Diagnostic* h = Hazard(r, "SIM-WORK-BUDGET");
  REQUIRE(h);
  CHECK(h->line == LineOf(body, "while n > 0"));
  CHECK(h->message.find("makes no progress: iteration 1") != std::string::npos);
  CHECK(r.stats.statements < 20);
}

TEST_CASE("while True: pass in a kernel stops at once") {
  std::string body = Kernel("        while True:\n            pass\n");
  sim::SimResult r = RunSrc(body, "w", {X()});
  const Diagnostic* h = Hazard(r, "SIM-WORK-BUDGET");
  REQUIRE(h);
  CHECK(h->line == LineOf(body, "while True"));
  CHECK(r.stats.statements < 20);
}

TEST_CASE("pl.range(0, 10**12) with a body stops at the budget, naming the loop and its iteration") {
  std::string body = Kernel("        s = 0\n        for i in pl.range(0, 10**12):\n            s = s + i\n");
  sim::SimResult r = RunSrc(body, "w", {X()}, /*budget=*/100000);
  const Diagnostic* h = Hazard(r, "SIM-WORK-BUDGET");
  REQUIRE(h);
  CHECK(h->line == LineOf(body, "for i in pl.range"));
  CHECK(h->message.find("budget of 100000 (set by the caller)") != std::string::npos);
  // Statements before the loop: y =, the launch, with, s = 0, for (5); then one per iteration.
  CHECK(h->message.find("was at iteration 99996") != std::string::npos);
  CHECK(r.stats.work_budget == 100000);
}

TEST_CASE("nested 1e6 x 1e6 loops: the hazard names the inner loop and the enclosing one") {
  std::string body = Kernel(
      "        s = 0\n        for i in pl.range(0, 1000000):\n            for j in range(1000000):\n"
      "                s = s + 1\n");
  sim::SimResult r = RunSrc(body, "w", {X()}, /*budget=*/3000000);
  const Diagnostic* h = Hazard(r, "SIM-WORK-BUDGET");
  REQUIRE(h);
  CHECK(h->line == LineOf(body, "for j in range"));
  const int outer = LineOf(body, "for i in pl.range");
  CHECK(h->message.find("enclosing loops: line " + std::to_string(outer) + " at iteration 3") != std::string::npos);
}

TEST_CASE("a kernel within its budget is unaffected, a budget below its work stops it") {
  auto x = simtest::Random(DType::kFloat32, {40, 300}, -4.0, 4.0, 3);
  sim::SimOptions o;
  o.entry = "softmax_wrapper";
  auto ok = sim::RunKernelFile(simtest::DataPath("softmax_vf_fp32.py"), {x}, o);
  REQUIRE(ok.ok());
  CHECK(ok->completed);
  CHECK(ok->hazards.empty());
  CHECK(ok->stats.work < ok->stats.work_budget / 10);  // the default leaves a wide margin
  o.work_budget = ok->stats.work / 2;
  auto cut = sim::RunKernelFile(simtest::DataPath("softmax_vf_fp32.py"), {x}, o);
  REQUIRE(cut.ok());
  CHECK_FALSE(cut->completed);
  CHECK(cut->hazards.Find("SIM-WORK-BUDGET"));
}

// ---- block_dim -----------------------------------------------------------------------------

TEST_CASE("block_dim beyond the vector cores is refused, up to vector_core_num runs") {
  std::string inner = "        i = pl.get_block_idx()\n";
  for (const char* bd : {"2**31", "2**40", "100000", "49"}) {
    std::string body = Kernel(inner, std::string("k[None, ") + bd + "](x, y)");
    sim::SimResult r = RunSrc(body, "w", {X()});
    INFO(bd);
    const Diagnostic* h = Hazard(r, "SIM-BLOCK-DIM");
    REQUIRE(h);
    CHECK(h->line == LineOf(body, "k[None,"));
    CHECK(h->message.find("vector_core_num=48") != std::string::npos);
    CHECK(r.stats.cores_run == 0);
  }
  sim::SimResult ok = RunSrc(Kernel(inner, "k[None, 48](x, y)"), "w", {X()});
  CHECK_FALSE(Hazard(ok, "SIM-BLOCK-DIM"));
  CHECK(ok.stats.cores_run == 48);
}

TEST_CASE("a kernel with a Cube section is limited to core_num blocks") {
  std::string body = Kernel("        i = pl.get_block_idx()\n    with pl.section_cube():\n        j = 0\n",
                            "k[None, 25](x, y)");
  sim::SimResult r = RunSrc(body, "w", {X()});
  const Diagnostic* h = Hazard(r, "SIM-BLOCK-DIM");
  REQUIRE(h);
  CHECK(h->message.find("core_num=24") != std::string::npos);
}

// ---- memory caps ---------------------------------------------------------------------------

TEST_CASE("torch.empty((50000, 50000)) in a wrapper is refused before allocating") {
  std::string body = "def w(x):\n    y = torch.empty((50000, 50000), dtype=torch.float16)\n    return y\n";
  sim::SimResult r = RunSrc(body, "w", {X()});
  const Diagnostic* h = Hazard(r, "SIM-LIMIT");
  REQUIRE(h);
  CHECK(h->line == 5);
  CHECK(h->message.find("host-memory limit") != std::string::npos);
}

TEST_CASE("a shape whose byte size overflows int64 is refused") {
  std::string body = "def w(x):\n    y = torch.empty((2**40, 2**40))\n    return y\n";
  sim::SimResult r = RunSrc(body, "w", {X()});
  REQUIRE(Hazard(r, "SIM-LIMIT"));
}

TEST_CASE("[0] * 10**11 and list(range(10**12)) are refused") {
  for (const char* e : {"[0] * 10**11", "list(range(10**12))", "[1, 2] * (2**20)"}) {
    std::string body = Kernel(std::string("        big = ") + e + "\n");
    sim::SimResult r = RunSrc(body, "w", {X()});
    INFO(e << "\n" << r.hazards.ToText());
    const Diagnostic* h = Hazard(r, "SIM-LIMIT");
    REQUIRE(h);
    CHECK(h->line == LineOf(body, "big = "));
    CHECK(h->message.find("items") != std::string::npos);
  }
}

TEST_CASE("make_tile_group(depth=10**9) is refused as a capacity violation") {
  std::string body = Kernel(
      "        t = pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n"
      "        g = pl.make_tile_group(type=t, addrs=0, mutex_ids=[], depth=10**9)\n");
  sim::SimResult r = RunSrc(body, "w", {X()});
  const Diagnostic* h = Hazard(r, "SIM-TILE-CAPACITY");
  REQUIRE(h);
  CHECK(h->line == LineOf(body, "make_tile_group"));
}

// ---- recursion -----------------------------------------------------------------------------

TEST_CASE("recursion in a wrapper, a helper, mutual recursion and a VF function: SIM-LIMIT") {
  struct Case {
    const char* name;
    std::string body;
  };
  std::vector<Case> cases = {
      {"wrapper", "def w(x):\n    return w(x)\n"},
      {"helper", "def h(n):\n    return h(n + 1)\n\ndef w(x):\n    h(0)\n    return x\n"},
      {"mutual", "def a(n):\n    return b(n)\n\ndef b(n):\n    return a(n)\n\ndef w(x):\n    a(0)\n    return x\n"},
      {"vf", "@pl.vector_function\ndef f(t):\n    f(t)\n\n" +
                 Kernel("        t = pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n"
                        "        f(pl.make_tile(t, addr=0))\n")},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    sim::SimResult r = RunSrc(c.body, "w", {X()});
    const Diagnostic* h = Hazard(r, "SIM-LIMIT");
    REQUIRE(h);
    CHECK(h->message.find("call depth limit of 64") != std::string::npos);
    CHECK_FALSE(r.completed);
  }
}

// ---- VF dtype rules ------------------------------------------------------------------------

namespace {
std::string Int8Kernel(const std::string& op) {
  return "@pl.vector_function\n"
         "def f(src, dst):\n"
         "    m = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_INT8)\n"
         "    v = vf.load_align(src, 0)\n"
         "    r = " + op + "\n"
         "    vf.store_align(dst, r, m)\n"
         "\n"
         "@pl.jit\n"
         "def k(x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_INT8],\n"
         "      y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_INT8]):\n"
         "    t = pl.TileType(shape=[1, 256], dtype=pl.DT_INT8, target_memory=pl.MemorySpace.Vec)\n"
         "    a = pl.make_tile(t, addr=0)\n"
         "    b = pl.make_tile(t, addr=256)\n"
         "    with pl.section_vector():\n"
         "        pl.load(a, x, [0, 0])\n"
         "        f(a, b)\n"
         "        pl.store(y, b, [0, 0])\n";
}
}  // namespace

TEST_CASE("vf.exp on a DT_INT8 register: SIM-OP-DTYPE naming the documented dtypes, no crash") {
  auto x = simtest::Random(DType::kInt8, {1, 256}, -100, 100);
  auto y = simtest::Random(DType::kInt8, {1, 256}, 0, 1);
  for (const char* op : {"vf.exp(v, m)", "vf.exp_sub(v, v, m)", "vf.reduce_sum(v, m)", "vf.mul(v, v, m)"}) {
    std::string body = Int8Kernel(op);
    sim::SimResult r = RunSrc(body, "k", {x, y});
    INFO(op << "\n" << r.hazards.ToText());
    const Diagnostic* h = Hazard(r, "SIM-OP-DTYPE");
    REQUIRE(h);
    CHECK(h->line == LineOf(body, "r = "));
    CHECK(h->message.find("DT_INT8 register") != std::string::npos);
    CHECK(h->message.find(".md") != std::string::npos);
  }
  sim::SimResult exp = RunSrc(Int8Kernel("vf.exp(v, m)"), "k", {x, y});
  CHECK(Hazard(exp, "SIM-OP-DTYPE")->message.find("DT_FP16, DT_FP32") != std::string::npos);
}

TEST_CASE("vf.add and vf.max on DT_INT8 registers (documented) compute all 256 lanes") {
  auto x = simtest::Random(DType::kInt8, {1, 256}, -50, 50, 7);
  auto y = simtest::Random(DType::kInt8, {1, 256}, 0, 1);
  sim::SimResult r = RunSrc(Int8Kernel("vf.add(v, v, m)"), "k", {x, y});
  INFO(r.hazards.ToText());
  REQUIRE(r.completed);
  REQUIRE(r.outputs.size() == 1);
  for (int64_t i = 0; i < 256; ++i) CHECK(r.outputs[0].tensor.GetDouble(i) == 2 * x.GetDouble(i));
  sim::SimResult m = RunSrc(Int8Kernel("vf.max(v, vf.neg(v, m), m)"), "k", {x, y});
  REQUIRE(m.completed);
  for (int64_t i = 0; i < 256; ++i) CHECK(m.outputs[0].tensor.GetDouble(i) == std::fabs(x.GetDouble(i)));
}

// ---- integer literals and Python int semantics ---------------------------------------------

TEST_CASE("integer literals of 200k and 1M digits are refused by the parser as CPython does") {
  for (size_t n : {200000u, 1000000u}) {
    std::string body = "N = " + std::string(n, '7') + "\ndef w(x):\n    return x\n";
    sim::SimOptions o;
    o.entry = "w";
    auto r = sim::RunKernelSource(std::string(kHeader) + body, "limits.py", {X()}, o);
    REQUIRE_FALSE(r.ok());
    CHECK(std::string(r.status().message()).find("Exceeds the limit (4300 digits)") != std::string::npos);
  }
  std::string hex = "N = 0x" + std::string(100000, 'f') + "\ndef w(x):\n    return x\n";
  sim::SimOptions o;
  o.entry = "w";
  auto r = sim::RunKernelSource(std::string(kHeader) + hex, "limits.py", {X()}, o);
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.status().message()).find("bits exceeds opdev's limit") != std::string::npos);
}

TEST_CASE("an integer literal beyond int64 (but within CPython's limit) is SIM-LIMIT when used") {
  std::string body = "def w(x):\n    n = 123456789012345678901234567890\n    return x\n";
  sim::SimResult r = RunSrc(body, "w", {X()});
  const Diagnostic* h = Hazard(r, "SIM-LIMIT");
  REQUIRE(h);
  CHECK(h->line == 5);
}

namespace {

// The operands: edge values of int64 and small numbers (INT64_MIN is written as an
// expression, its literal being out of range).
const char* kOperands[] = {"0", "1", "-1", "2", "-2", "3", "7", "-7", "63", "64", "65", "100", "-100",
                           "12345", "2147483647", "-2147483648", "4294967296", "3037000499", "3037000500",
                           "9223372036854775807", "(-9223372036854775807 - 1)", "-9223372036854775807",
                           "4611686018427387904", "1000000007", "-1000000007"};
const char* kOps[] = {"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^"};

// Python itself would need unbounded time or memory for `a ** b` and `a << b` with a large b
// (except for `**` with a in {0, 1, -1} and `<<` with a = 0); those pairs are left out.
bool Feasible(const std::string& op, const std::string& a, const std::string& b) {
  if (op != "**" && op != "<<") return true;
  if (a == "0" || (op == "**" && (a == "1" || a == "-1"))) return true;
  long long v = std::strtoll(b.c_str() + (b[0] == '(' ? 1 : 0), nullptr, 10);
  return v >= -100 && v <= 100;
}

// Each expression evaluated by /usr/bin/python3 (names a = 7, b = -3, c = 2^40 defined) and by
// the simulator in a wrapper whose body starts with `prelude` (which assigns those locals when
// the expressions use them): the number of expressions whose result (int, float, the
// exception, SIM-LIMIT) differs; *checked counts the compared ones.
size_t MismatchesAgainstPython(const std::vector<std::string>& exprs, const std::string& prelude,
                               size_t* checked_out) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("opdev_ints_" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir + "/exprs.txt");
    for (const auto& e : exprs) f << e << "\n";
    std::ofstream py(dir + "/eval.py");
    // Python's semantics operation by operation, with the simulator's documented limit: an int
    // result (also an intermediate one) outside int64 is SIM-LIMIT, where Python would go on
    // with a big int.
    py << "import ast, operator, sys\n"
          "names = {'a': 7, 'b': -3, 'c': 1 << 40}\n"
          "class Limit(Exception): pass\n"
          "BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,\n"
          "       ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,\n"
          "       ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,\n"
          "       ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor}\n"
          "UN = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}\n"
          "def ev(n):\n"
          "    if isinstance(n, ast.Constant): v = n.value\n"
          "    elif isinstance(n, ast.Name): v = names[n.id]\n"
          "    elif isinstance(n, ast.UnaryOp): v = UN[type(n.op)](ev(n.operand))\n"
          "    elif isinstance(n, ast.BinOp):\n"
          "        l = ev(n.left); r = ev(n.right); v = BIN[type(n.op)](l, r)\n"
          "    elif isinstance(n, ast.Call) and n.func.id == 'abs': v = abs(ev(n.args[0]))\n"
          "    else: raise SystemExit('unexpected node ' + ast.dump(n))\n"
          "    if isinstance(v, int) and not -2**63 <= v < 2**63: raise Limit()\n"
          "    return v\n"
          "for line in open(sys.argv[1]):\n"
          "    e = line.strip()\n"
          "    try:\n"
          "        v = ev(ast.parse(e, mode='eval').body)\n"
          "        if isinstance(v, bool): v = int(v)\n"
          "        print('INT %d' % v if isinstance(v, int) else 'FLOAT %r' % v)\n"
          "    except Limit: print('LIMIT')\n"
          "    except ZeroDivisionError: print('EXC ZeroDivisionError')\n"
          "    except ValueError: print('EXC ValueError')\n"
          "    except OverflowError: print('EXC OverflowError')\n"
          "    except TypeError: print('EXC unsupported operand types')\n";
  }
  const std::string cmd = std::string(OPDEV_PYTHON) + " " + dir + "/eval.py " + dir + "/exprs.txt > " + dir + "/out.txt";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream res(dir + "/out.txt");
  std::vector<std::string> expected;
  for (std::string l; std::getline(res, l);) expected.push_back(l);
  std::filesystem::remove_all(dir);
  REQUIRE(expected.size() == exprs.size());

  // One wrapper per expression: it raises "ok" when the value equals Python's.
  size_t checked = 0, mismatches = 0;
  for (size_t i = 0; i < exprs.size(); ++i) {
    const std::string& want = expected[i];
    std::string test;
    if (want.rfind("INT ", 0) == 0) {
      std::string v = want.substr(4);
      test = v == "-9223372036854775808" ? "(-9223372036854775807 - 1)" : v;
    } else if (want.rfind("FLOAT ", 0) == 0) {
      test = want.substr(6);
      if (test == "inf" || test == "-inf" || test == "nan") continue;  // not a Python literal
    }
    std::string body = "def w(x):\n" + prelude + "    v = " + exprs[i] + "\n" +
                       (test.empty() ? std::string("    raise ValueError('no error')\n")
                                     : "    if v == " + test + ":\n        raise ValueError('ok')\n"
                                       "    raise ValueError('mismatch')\n");
    sim::SimResult r = RunSrc(body, "w", {X()});
    std::string got;
    if (Hazard(r, "SIM-LIMIT")) got = "LIMIT";
    else if (const Diagnostic* rt = Hazard(r, "SIM-RUNTIME")) got = rt->message;
    bool ok;
    if (want == "LIMIT") ok = got == "LIMIT";
    // The float divisions' messages say "... by zero" without the exception's name.
    else if (want.rfind("EXC ", 0) == 0)
      ok = got.find(want.substr(4)) != std::string::npos ||
           (want == "EXC ZeroDivisionError" && got.rfind("float ", 0) == 0 && got.find(" by zero") != std::string::npos);
    else ok = got == "raised ok";
    ++checked;
    if (!ok) {
      ++mismatches;
      UNSCOPED_INFO(exprs[i] << ": python " << want << ", simulator " << got);
    }
  }
  *checked_out = checked;
  return mismatches;
}

}  // namespace

TEST_CASE("integer arithmetic agrees with /usr/bin/python3 on generated expressions") {
  // Every operator on every operand pair (unary forms too); Python decides each result.
  std::vector<std::string> exprs;
  for (const char* a : kOperands) {
    exprs.push_back(std::string("-(") + a + ")");
    exprs.push_back(std::string("~(") + a + ")");
    exprs.push_back(std::string("abs(") + a + ")");
    for (const char* op : kOps)
      for (const char* b : kOperands)
        if (Feasible(op, a, b)) exprs.push_back(std::string("(") + a + ") " + op + " (" + b + ")");
  }
  size_t checked = 0;
  CHECK(MismatchesAgainstPython(exprs, "", &checked) == 0);
  CHECK(checked > 3000);
}

TEST_CASE("nested integer arithmetic of locals and constants agrees with /usr/bin/python3") {
  // Integer expressions of locals and constants nested two and three deep (the simulator
  // computes those without temporaries and falls back to its general path for floats,
  // exceptions and overflow): the result, or the exception, must be Python's.
  const char* leaves[] = {"a", "b", "c", "0", "1", "-1", "2", "3", "7", "-8", "1000000007",
                          "9223372036854775807", "(-9223372036854775807 - 1)", "4611686018427387904"};
  const char* ops[] = {"+", "-", "*", "/", "//", "%", ">>", "&", "|", "^"};
  uint64_t st = 12345;
  auto pick = [&](size_t n) {
    st = st * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>(st >> 33) % n;
  };
  auto leaf = [&] { return std::string(leaves[pick(std::size(leaves))]); };
  auto op = [&] { return std::string(" ") + ops[pick(std::size(ops))] + " "; };
  std::vector<std::string> exprs;
  for (int i = 0; i < 1500; ++i) {
    switch (pick(3)) {
      case 0: exprs.push_back("(" + leaf() + op() + leaf() + ")" + op() + leaf()); break;
      case 1: exprs.push_back(leaf() + op() + "(" + leaf() + op() + leaf() + ")"); break;
      default: exprs.push_back("(" + leaf() + op() + leaf() + ")" + op() + "(" + leaf() + op() + "(" + leaf() + op() + leaf() + "))");
    }
  }
  size_t checked = 0;
  CHECK(MismatchesAgainstPython(exprs, "    a = 7\n    b = -3\n    c = 1 << 40\n", &checked) == 0);
  CHECK(checked > 1200);
}

TEST_CASE("an operation's left operand and a subscript's object are evaluated first, as in Python") {
  // Both sides fail; Python reports the left one. `c * c * c` leaves int64 (SIM-LIMIT),
  // `1 / 0` is a ZeroDivisionError.
  const char* cases[] = {
      "    v = (1 / 0) + (c * c * c)\n",
      "    v = (1 / 0) & (c * c * c)\n",
      "    v = [1, 2][1 // 0] + (c * c * c)\n",
      "    v = [1, 2, 1 // 0][c * c * c]\n",
  };
  for (const char* body : cases) {
    INFO(body);
    sim::SimResult r = RunSrc(std::string("def w(x):\n    c = 1 << 40\n") + body + "    return x\n", "w", {X()});
    const Diagnostic* rt = Hazard(r, "SIM-RUNTIME");
    REQUIRE(rt != nullptr);
    CHECK(rt->message.find("ZeroDivisionError") != std::string::npos);
    CHECK(Hazard(r, "SIM-LIMIT") == nullptr);
  }
}
