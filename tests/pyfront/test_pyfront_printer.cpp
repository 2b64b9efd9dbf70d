// Printer tests: exact PEP 8-style output for hand-written inputs, minimal parentheses,
// and code-built trees (no spans, no number spellings) printing correctly.
#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"

#include <catch2/catch.hpp>

using namespace opdev;

namespace {
std::string Reprint(const std::string& src) {
  Diagnostics diags;
  auto m = py::ParseModule(src, "t.py", &diags);
  INFO(src);
  REQUIRE(m.ok());
  return py::PrintModule(*m);
}
}  // namespace

TEST_CASE("printer: PEP 8 layout of a messy module", "[pyfront][printer]") {
  const char* src =
      "import os\n"
      "import pypto_pro.language as pl\n"
      "X=1\n"
      "def f( a,b = 2,*args,c:int=3,**kw ) ->int :\n"
      "  '''Doc\n  string.'''\n"
      "  if a<b and not(c):return a+b*c\n"
      "  elif a: pass\n"
      "  else :\n"
      "      return -a**2\n"
      "class K ( object ) :\n"
      "  x=[ 1,2 ,3 ]\n"
      "  def m(self):\n"
      "      return {'a':self.x[1:2], **{}}\n"
      "  def n(self): return lambda y : y\n"
      "@pl.jit(auto_mutex = True)\n"
      "def k(x): y = x; return y\n";
  const char* want =
      "import os\n"
      "import pypto_pro.language as pl\n"
      "\n"
      "X = 1\n"
      "\n"
      "\n"
      "def f(a, b=2, *args, c: int = 3, **kw) -> int:\n"
      "    \"\"\"Doc\n  string.\"\"\"\n"
      "    if a < b and not c:\n"
      "        return a + b * c\n"
      "    elif a:\n"
      "        pass\n"
      "    else:\n"
      "        return -a ** 2\n"
      "\n"
      "\n"
      "class K(object):\n"
      "    x = [1, 2, 3]\n"
      "\n"
      "    def m(self):\n"
      "        return {\"a\": self.x[1:2], **{}}\n"
      "\n"
      "    def n(self):\n"
      "        return lambda y: y\n"
      "\n"
      "\n"
      "@pl.jit(auto_mutex=True)\n"
      "def k(x):\n"
      "    y = x\n"
      "    return y\n";
  CHECK(Reprint(src) == want);
}

TEST_CASE("printer: parentheses only where precedence needs them", "[pyfront][printer]") {
  CHECK(Reprint("x = (a + b) * c\n") == "x = (a + b) * c\n");
  CHECK(Reprint("x = a + (b * c)\n") == "x = a + b * c\n");
  CHECK(Reprint("x = a - (b - c)\n") == "x = a - (b - c)\n");
  CHECK(Reprint("x = (a - b) - c\n") == "x = a - b - c\n");
  CHECK(Reprint("x = (-a) ** 2\n") == "x = (-a) ** 2\n");
  CHECK(Reprint("x = 2 ** -a\n") == "x = 2 ** -a\n");
  CHECK(Reprint("x = (a ** b) ** c\n") == "x = (a ** b) ** c\n");
  CHECK(Reprint("x = a ** (b ** c)\n") == "x = a ** b ** c\n");
  CHECK(Reprint("x = (a < b) < c\n") == "x = (a < b) < c\n");
  CHECK(Reprint("x = not (a and b)\n") == "x = not (a and b)\n");
  CHECK(Reprint("x = (a if b else c) if d else e\n") == "x = (a if b else c) if d else e\n");
  CHECK(Reprint("x = (lambda: 1)()\n") == "x = (lambda: 1)()\n");
  CHECK(Reprint("x = (1).real\n") == "x = (1).real\n");
  CHECK(Reprint("x = (yield)\n") == "x = yield\n");
  CHECK(Reprint("def g():\n    return (yield a)\n") == "def g():\n    return (yield a)\n");
  CHECK(Reprint("for (a, b) in c: pass\n") == "for a, b in c:\n    pass\n");
  CHECK(Reprint("x = (1,)\n") == "x = 1,\n");
  CHECK(Reprint("f((1, 2))\n") == "f((1, 2))\n");
  CHECK(Reprint("f(x for x in y)\n") == "f(x for x in y)\n");
  CHECK(Reprint("f((x for x in y), 1)\n") == "f((x for x in y), 1)\n");
  CHECK(Reprint("if (n := 10) > 5: pass\n") == "if (n := 10) > 5:\n    pass\n");
  CHECK(Reprint("a[1:2, ::3]\n") == "a[1:2, ::3]\n");
  CHECK(Reprint("a[(1, 2)]\n") == "a[1, 2]\n");
  CHECK(Reprint("del (a, b), c\n") == "del (a, b), c\n");
  CHECK(Reprint("with (a as b, c): pass\n") == "with a as b, c:\n    pass\n");
  CHECK(Reprint("x = *a, *b\n") == "x = *a, *b\n");
}

TEST_CASE("printer: strings, f-strings and numbers", "[pyfront][printer]") {
  CHECK(Reprint("s = 'abc'\n") == "s = \"abc\"\n");
  CHECK(Reprint("s = 'say \"hi\"'\n") == "s = 'say \"hi\"'\n");
  CHECK(Reprint("s = 'it\\'s'\n") == "s = \"it's\"\n");
  CHECK(Reprint("s = 'a' 'b'\n") == "s = \"ab\"\n");
  CHECK(Reprint("s = b'\\x00a'\n") == "s = b\"\\x00a\"\n");
  CHECK(Reprint("s = u'x'\n") == "s = u\"x\"\n");
  // A docstring keeps its u prefix, one line or several (a fuzz finding: it was dropped).
  CHECK(Reprint("u''\n") == "u\"\"\n");
  CHECK(Reprint("def f():\n    u'''a\n    b'''\n") == "def f():\n    u\"\"\"a\n    b\"\"\"\n");
  CHECK(Reprint("s = f'{a!r:>{w}} {{x}}'\n") == "s = f\"{a!r:>{w}} {{x}}\"\n");
  CHECK(Reprint("s = f\"{d['k']}\"\n") == "s = f\"{d['k']}\"\n");
  CHECK(Reprint("s = f'{x=}'\n") == "s = f\"x={x!r}\"\n");
  CHECK(Reprint("n = 0x10000 + 1_000 + 1e-30 + 2J\n") == "n = 0x10000 + 1_000 + 1e-30 + 2J\n");
}

TEST_CASE("printer: trees built in code print from values", "[pyfront][printer]") {
  // Codegen builds nodes without spans or source spellings.
  auto call = std::make_unique<py::Expr>();
  call->kind = py::ExprKind::kCall;
  auto func = std::make_unique<py::Expr>();
  func->kind = py::ExprKind::kAttribute;
  func->id = "min";
  func->value_expr = std::make_unique<py::Expr>();
  func->value_expr->id = "pl";
  call->func = std::move(func);
  auto n = std::make_unique<py::Expr>();
  n->kind = py::ExprKind::kConstant;
  n->const_kind = py::ConstKind::kInt;
  n->value = "128";
  call->args.push_back(std::move(n));
  auto s = std::make_unique<py::Expr>();
  s->kind = py::ExprKind::kConstant;
  s->const_kind = py::ConstKind::kStr;
  s->value = "a\"b\n";
  call->args.push_back(std::move(s));
  py::Keyword kw;
  kw.arg = "dtype";
  kw.value = std::make_unique<py::Expr>();
  kw.value->id = "DT_FP16";
  call->keywords.push_back(std::move(kw));
  CHECK(py::PrintExpr(*call) == "pl.min(128, 'a\"b\\n', dtype=DT_FP16)");
}
