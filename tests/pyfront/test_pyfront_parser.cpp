// Parser tests: syntax errors become diagnostics with line and column (never a crash),
// the AST helpers consumers rely on, spans, and the tokenizer's lexical rules.
#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"
#include "opdev/pyfront/tokenizer.h"

#include <catch2/catch.hpp>

#include <string>

using namespace opdev;

namespace {

struct ErrorCase {
  const char* source;
  int line;
  int col;
  const char* code;
  const char* message_part;
};

py::Module MustParse(const std::string& src) {
  Diagnostics diags;
  auto m = py::ParseModule(src, "t.py", &diags);
  INFO(src);
  REQUIRE(m.ok());
  return std::move(*m);
}

std::string Dump(const std::string& src) { return py::DumpAst(MustParse(src)); }

}  // namespace

TEST_CASE("parser: syntax errors are diagnostics with file, line and column", "[pyfront]") {
  // Positions computed by hand (1-based columns, pointing at the offending token).
  const ErrorCase cases[] = {
      {"x = (1, 2\n", 1, 5, "PY-SYNTAX", "was never closed"},
      {"def f(:\n    pass\n", 1, 7, "PY-SYNTAX", "expected a name"},
      {"if x\n    y = 1\n", 1, 5, "PY-SYNTAX", "expected ':'"},
      {"a = 1\n  b = 2\n", 2, 3, "PY-INDENT", "unexpected indent"},
      {"if x:\n        a\n    b\n", 3, 5, "PY-INDENT", "unindent does not match"},
      {"def f():\nreturn 1\n", 2, 1, "PY-INDENT", "expected an indented block"},
      {"s = 'abc\n", 1, 5, "PY-SYNTAX", "unterminated string literal"},
      {"s = '''abc\n\n", 1, 5, "PY-SYNTAX", "unterminated triple-quoted string"},
      {"x = 0777\n", 1, 5, "PY-SYNTAX", "leading zeros"},
      {"x = 1__0\n", 1, 5, "PY-SYNTAX", "invalid decimal literal"},
      {"x = 0x\n", 1, 5, "PY-SYNTAX", "invalid hexadecimal literal"},
      {"f(a=1, 2)\n", 1, 8, "PY-SYNTAX", "positional argument follows keyword argument"},
      {"def f(a=1, b):\n    pass\n", 1, 12, "PY-SYNTAX", "non-default argument"},
      {"f() = 3\n", 1, 1, "PY-SYNTAX", "cannot assign to function call"},
      {"x = f'{}'\n", 1, 8, "PY-SYNTAX", "f-string: empty expression"},
      {"x = f'{a!x}'\n", 1, 10, "PY-SYNTAX", "f-string: invalid conversion"},
      {"x = f'}'\n", 1, 7, "PY-SYNTAX", "single '}'"},
      {"b'caf\xc3\xa9'\n", 1, 6, "PY-SYNTAX", "bytes can only contain ASCII"},
      {"x = 'a' b'b'\n", 1, 5, "PY-SYNTAX", "cannot mix bytes and nonbytes"},
      {"try:\n    pass\n", 1, 1, "PY-SYNTAX", "expected 'except' or 'finally'"},
      {"x = $\n", 1, 5, "PY-SYNTAX", "invalid character"},
      // A byte order mark after the start, a zero-width space, a no-break space: not name
      // characters (a fuzz finding: "\n<BOM>" parsed as a name and printed as a leading BOM).
      {"\n\xEF\xBB\xBF\n", 2, 1, "PY-SYNTAX", "invalid non-printable character U+FEFF"},
      {"ab\xE2\x80\x8B = 1\n", 1, 3, "PY-SYNTAX", "invalid non-printable character U+200B"},
      {"x =\xC2\xA0y\n", 1, 4, "PY-SYNTAX", "invalid non-printable character U+00A0"},
      {"def f[T](x): pass\n", 1, 6, "PY-UNSUPPORTED", "PEP 695"},
      {"type Alias = int\n", 1, 1, "PY-UNSUPPORTED", "type alias"},
      {"x = )\n", 1, 5, "PY-SYNTAX", "unmatched ')'"},
      {"for x in y:\n\tpass\n        pass\n", 3, 9, "PY-INDENT", "inconsistent use of tabs"},
      {"lambda: (yield)\nprint x\n", 2, 7, "PY-SYNTAX", "invalid syntax"},
  };
  for (const auto& c : cases) {
    INFO(c.source);
    Diagnostics diags;
    auto m = py::ParseModule(c.source, "bad.py", &diags);
    CHECK_FALSE(m.ok());
    REQUIRE(diags.size() == 1);
    const Diagnostic& d = diags.items()[0];
    CHECK(d.code == c.code);
    CHECK(d.file == "bad.py");
    CHECK(d.line == c.line);
    CHECK(d.column == c.col);
    CHECK(d.category == "input_error");
    CHECK(d.message.find(c.message_part) != std::string::npos);
    // The status names the same position.
    std::string where = "bad.py:" + std::to_string(c.line) + ":" + std::to_string(c.col) + ":";
    CHECK(std::string(m.status().message()).rfind(where, 0) == 0);
  }
}

TEST_CASE("parser: pathological inputs end in a diagnostic, not a crash", "[pyfront]") {
  Diagnostics diags;
  std::string deep(5000, '(');
  auto m1 = py::ParseModule(deep, "deep.py", &diags);
  CHECK_FALSE(m1.ok());
  std::string nested = "x = " + std::string(180, '[') + std::string(180, ']') + "\n";
  diags = {};
  auto m2 = py::ParseModule(nested, "nested.py", &diags);
  CHECK_FALSE(m2.ok());
  CHECK(diags.HasCode("PY-TOO-DEEP"));
  std::string unary = "x = " + std::string(10000, '-') + "1\n";
  diags = {};
  auto m3 = py::ParseModule(unary, "unary.py", &diags);
  CHECK_FALSE(m3.ok());
  CHECK(diags.HasCode("PY-TOO-DEEP"));
  // Within the limit, nesting is fine.
  std::string ok = "x = " + std::string(50, '(') + "1" + std::string(50, ')') + "\n";
  diags = {};
  CHECK(py::ParseModule(ok, "ok.py", &diags).ok());
  // Embedded NUL and invalid bytes.
  diags = {};
  CHECK_FALSE(py::ParseModule(std::string("x = 1\0\n", 7), "nul.py", &diags).ok());
  CHECK(diags.items().at(0).line == 1);
  CHECK(diags.items().at(0).column == 6);
  // Invalid UTF-8 (found by the fuzzer: it printed as an unparsable \U escape).
  diags = {};
  CHECK_FALSE(py::ParseModule("x = 1\ns = '\xff\xf7'\n", "utf.py", &diags).ok());
  REQUIRE(diags.size() == 1);
  CHECK(diags.items()[0].line == 2);
  CHECK(diags.items()[0].column == 6);
  CHECK(diags.items()[0].message.find("UTF-8") != std::string::npos);
  diags = {};
  CHECK(py::ParseModule("", "empty.py", &diags).ok());
  CHECK(py::ParseModule("\n\n# only a comment", "c.py", &diags).ok());
}

TEST_CASE("parser: ParseFile reports I/O failures as status without diagnostics",
          "[pyfront]") {
  Diagnostics diags;
  auto m = py::ParseFile("/nonexistent/dir/k.py", &diags);
  CHECK_FALSE(m.ok());
  CHECK(absl::IsNotFound(m.status()));
  CHECK(diags.empty());
}

TEST_CASE("parser: ParseExpression", "[pyfront]") {
  Diagnostics diags;
  auto e = py::ParseExpression("pl.min(TILE_ROWS, rows - row_off)", "expr", &diags);
  REQUIRE(e.ok());
  CHECK(py::CallName(**e) == "pl.min");
  CHECK((*e)->args.size() == 2);
  CHECK((*e)->span.line == 1);
  CHECK((*e)->span.col == 1);
  CHECK((*e)->span.end_col == 34);
  auto bad = py::ParseExpression("a +", "expr", &diags);
  CHECK_FALSE(bad.ok());
  CHECK(diags.size() == 1);
  auto multi = py::ParseExpression("f(a,\n  b)", "expr", &diags);
  REQUIRE(multi.ok());
  CHECK((*multi)->span.end_line == 2);
}

TEST_CASE("ast helpers: calls, decorators, literals on a kernel file", "[pyfront]") {
  Diagnostics diags;
  auto mod = py::ParseFile(std::string(OPDEV_SOURCE_DIR) +
                               "/tests/data/pyfront/kernel_softmax_vf_fp16.py",
                           &diags);
  REQUIRE(mod.ok());
  auto defs = py::TopLevelDefs(*mod);
  REQUIRE(defs.size() == 2);
  CHECK(defs[0].name == "softmax_rows_vf");
  CHECK(defs[0].decorators == std::vector<std::string>{"pl.vector_function"});
  CHECK(defs[0].HasDecorator("pl.vector_function"));
  CHECK(defs[1].name == "softmax_kernel");
  CHECK(defs[1].decorators == std::vector<std::string>{"pl.jit"});
  CHECK(defs[1].stmt->span.line == 73);  // the `def` line, as in CPython
  // The decorator keeps its keyword arguments.
  const py::Expr& jit = *defs[1].stmt->decorator_list[0];
  const py::Expr* auto_mutex = py::FindKeyword(jit, "auto_mutex");
  REQUIRE(auto_mutex);
  CHECK(py::BoolValue(*auto_mutex) == true);

  auto consts = py::TopLevelAssignments(*mod);
  REQUIRE(consts.size() >= 9);
  CHECK(consts[0].first == "LANES");
  CHECK(py::IntValue(*consts[0].second) == 128);
  CHECK(consts[3].first == "NEG_INF");
  CHECK(py::NumberValue(*consts[3].second) == Approx(-1e30));
  CHECK_FALSE(py::IntValue(*consts[3].second).has_value());
  CHECK(consts[5].first == "VA_IN0");
  CHECK(py::IntValue(*consts[5].second) == 0);
  CHECK(consts[5].second->text == "0x00000");

  int make_groups = 0, exp_subs = 0, first_line = 0;
  py::ForEachCall(*mod, [&](const py::Expr& call) {
    std::string n = py::CallName(call);
    if (n == "pl.make_tile_group") {
      ++make_groups;
      const py::Expr* ids = py::FindKeyword(call, "mutex_ids");
      REQUIRE(ids);
      CHECK(ids->kind == py::ExprKind::kList);
    }
    if (n == "vf.exp_sub") {
      ++exp_subs;
      if (!first_line) first_line = call.span.line;
    }
  });
  CHECK(make_groups == 2);
  CHECK(exp_subs == 4);
  CHECK(first_line == 41);
}

TEST_CASE("ast helpers: DottedName, CallName and IntValue edge cases", "[pyfront]") {
  auto m = MustParse("a.b.c(1)\nf()(2)\nx[0].y()\n-0x10\n+7\n99999999999999999999\n'txt'\n");
  CHECK(py::CallName(*m.body[0]->value) == "a.b.c");
  CHECK(py::CallName(*m.body[1]->value).empty());
  CHECK(py::CallName(*m.body[2]->value).empty());
  CHECK(py::IntValue(*m.body[3]->value) == -16);
  CHECK(py::IntValue(*m.body[4]->value) == 7);
  CHECK_FALSE(py::IntValue(*m.body[5]->value).has_value());
  CHECK(m.body[5]->value->value == "99999999999999999999");
  CHECK(py::StringValue(*m.body[6]->value) == "txt");
  CHECK_FALSE(py::StringValue(*m.body[3]->value).has_value());
}

TEST_CASE("parser: soft keywords match/case/_ stay usable as names", "[pyfront]") {
  CHECK(Dump("match = 1\nmatch.x = 2\nmatch(3)\ncase = [match]\n_ = case\n") ==
        "Module(body=[Assign(targets=[Name(id='match', ctx=Store())], value=Constant(value=1)), "
        "Assign(targets=[Attribute(value=Name(id='match', ctx=Load()), attr='x', ctx=Store())], "
        "value=Constant(value=2)), Expr(value=Call(func=Name(id='match', ctx=Load()), "
        "args=[Constant(value=3)], keywords=[])), Assign(targets=[Name(id='case', ctx=Store())], "
        "value=List(elts=[Name(id='match', ctx=Load())], ctx=Load())), "
        "Assign(targets=[Name(id='_', ctx=Store())], value=Name(id='case', ctx=Load()))], "
        "type_ignores=[])");
  CHECK(Dump("match (x):\n    case _:\n        pass\n") ==
        "Module(body=[Match(subject=Name(id='x', ctx=Load()), cases=[match_case("
        "pattern=MatchAs(), body=[Pass()])])], type_ignores=[])");
}

TEST_CASE("parser: numbers keep their spelling and canonical value", "[pyfront]") {
  auto m = MustParse("a = 0x1_0000\nb = 0o17\nc = 0b101\nd = 1_000.5e-3\ne = 3j\n");
  const py::Expr& a = *m.body[0]->value;
  CHECK(a.const_kind == py::ConstKind::kInt);
  CHECK(a.value == "65536");
  CHECK(a.text == "0x1_0000");
  CHECK(m.body[1]->value->value == "15");
  CHECK(m.body[2]->value->value == "5");
  CHECK(m.body[3]->value->const_kind == py::ConstKind::kFloat);
  CHECK(m.body[3]->value->value == "1.0005");
  CHECK(m.body[4]->value->const_kind == py::ConstKind::kImag);
  CHECK(py::PrintExpr(a) == "0x1_0000");
}

TEST_CASE("parser: strings decode escapes / f-strings become JoinedStr", "[pyfront]") {
  auto m = MustParse("s = 'a\\tb\\x41\\u00e9' r'\\n'\nb = b'\\xff\\n'\nf = f'{x!r:>{w}}!'\n");
  CHECK(m.body[0]->value->value == "a\tbA\xc3\xa9\\n");
  CHECK(m.body[1]->value->const_kind == py::ConstKind::kBytes);
  CHECK(m.body[1]->value->value == std::string("\xff\n"));
  const py::Expr& f = *m.body[2]->value;
  REQUIRE(f.kind == py::ExprKind::kJoinedStr);
  REQUIRE(f.elts.size() == 2);
  CHECK(f.elts[0]->kind == py::ExprKind::kFormattedValue);
  CHECK(f.elts[0]->conversion == 'r');
  CHECK(f.elts[0]->value_expr->id == "x");
  // The nested expression keeps its real position.
  CHECK(f.elts[0]->value_expr->span.col == 8);
  CHECK(py::StringValue(*f.elts[1]) == "!");
}

TEST_CASE("tokenizer: printable non-ASCII letters are name characters", "[pyfront]") {
  auto r = py::Tokenize("caf\xC3\xA9 = \xCE\xB1\xCE\xB2\n");
  REQUIRE(r.error.empty());
  REQUIRE(r.tokens.size() >= 3);
  CHECK(r.tokens[0].text == "caf\xC3\xA9");
  CHECK(r.tokens[2].text == "\xCE\xB1\xCE\xB2");
  // A byte order mark is skipped at the very start only (elsewhere it is an error).
  auto bom = py::Tokenize("\xEF\xBB\xBFx = 1\n");
  CHECK(bom.error.empty());
  auto late = py::Tokenize("x = 1\n\xEF\xBB\xBF");
  CHECK(late.error == "invalid non-printable character U+FEFF");
}

TEST_CASE("tokenizer: indentation, joining and token kinds", "[pyfront]") {
  auto r = py::Tokenize("if a:\n\tx = (1,\n  2)  # c\n\ty = 3 \\\n + 4\n");
  REQUIRE(r.error.empty());
  std::vector<std::string> kinds;
  for (const auto& t : r.tokens) {
    switch (t.kind) {
      case py::TokenKind::kIndent: kinds.push_back("INDENT"); break;
      case py::TokenKind::kDedent: kinds.push_back("DEDENT"); break;
      case py::TokenKind::kNewline: kinds.push_back("NL"); break;
      case py::TokenKind::kEndMarker: kinds.push_back("END"); break;
      default: kinds.push_back(std::string(t.text));
    }
  }
  CHECK(kinds == std::vector<std::string>{"if", "a", ":", "NL", "INDENT", "x", "=", "(", "1",
                                          ",", "2", ")", "NL", "y", "=", "3", "+", "4", "NL",
                                          "DEDENT", "END"});
  // Token positions: '2' is on line 3, column 3.
  CHECK(r.tokens[10].line == 3);
  CHECK(r.tokens[10].col == 3);
  auto n = py::Tokenize("x = 1_0.5e+1_0j + .5 + 1. + 0xF_F\n");
  REQUIRE(n.error.empty());
  CHECK(n.tokens[2].text == "1_0.5e+1_0j");
  CHECK(n.tokens[4].text == ".5");
  CHECK(n.tokens[6].text == "1.");
  CHECK(n.tokens[8].text == "0xF_F");
}
