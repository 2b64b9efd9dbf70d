// Checker tests: exact findings (code, line, column) on a deliberately wrong kernel, clean
// results on every kernel and host file of the corpus, alias resolution, and the
// `opdev lint` command end to end.
#include "opdev/api/checker.h"
#include "opdev/pyfront/parser.h"

#include <catch2/catch.hpp>

#include <boost/json.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <tuple>

using namespace opdev;

namespace {

const std::string kSrc = OPDEV_SOURCE_DIR;

Diagnostics LintFile(const std::string& path, api::CheckOptions opts = {}) {
  Diagnostics diags;
  auto m = py::ParseFile(path, &diags);
  REQUIRE(m.ok());
  return api::CheckModule(*m, api::Catalog::Builtin(), opts);
}

Diagnostics LintSource(const std::string& src) {
  Diagnostics diags;
  auto m = py::ParseModule(src, "t.py", &diags);
  REQUIRE(m.ok());
  return api::CheckModule(*m, api::Catalog::Builtin());
}

struct Run {
  int status = -1;
  std::string out;
};

Run RunOpdev(const std::string& args) {
  const char* bin = std::getenv("OPDEV_BIN");
  REQUIRE(bin != nullptr);
  REQUIRE(std::filesystem::exists(bin));
  Run r;
  FILE* p = popen((std::string(bin) + " " + args + " 2>/dev/null").c_str(), "r");
  REQUIRE(p);
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

}  // namespace

TEST_CASE("checker: every finding of the deliberately wrong kernel", "[api]") {
  Diagnostics d = LintFile(kSrc + "/tests/data/api/lint_findings.py");
  // (line, column, code, severity) - from the markers in the file, columns by hand.
  using F = std::tuple<int, int, std::string, Severity>;
  const std::vector<F> want = {
      {8, 47, "API-UNKNOWN", Severity::kError},          // pl.DT_FP17
      {11, 2, "API-LEGACY", Severity::kWarning},         // @pl.inline
      {18, 32, "API-UNKNOWN", Severity::kError},         // pl.MaskPattern.ALLL
      {20, 5, "API-VF-RESULT-UNUSED", Severity::kError}, // vf.add as a statement
      {21, 5, "API-MTE-IN-VF", Severity::kError},        // pl.load in the VF body
      {22, 5, "API-CONTEXT", Severity::kError},          // pl.add in the VF body
      {26, 26, "API-UNKNOWN-KEYWORD", Severity::kError}, // pl.jit(autotune=)
      {30, 5, "API-VF-CALL-CONTEXT", Severity::kError},  // body_vf outside section_vector
      {33, 9, "API-UNKNOWN", Severity::kError},          // pl.lod
      {34, 9, "API-ARITY", Severity::kError},            // pl.add(t, t)
      {35, 31, "API-UNKNOWN-KEYWORD", Severity::kError}, // orders=
      {36, 16, "API-POSITIONAL-ONLY", Severity::kError}, // out=
      {36, 23, "API-POSITIONAL-ONLY", Severity::kError}, // src=
      {37, 31, "API-DUPLICATE-ARG", Severity::kError},   // dst_tile= twice
      {38, 9, "API-LEGACY", Severity::kError},           // set_validshape(t, r, c)
      {39, 9, "API-LEGACY", Severity::kError},           // pl.fillpad_inplace
      {40, 13, "API-CONTEXT", Severity::kError},         // vf.load_align in section_vector
      {41, 9, "API-CONTEXT", Severity::kError},          // pl.matmul in section_vector
      {42, 9, "API-ARITY", Severity::kError},            // sync_src positional
      {43, 9, "API-ARITY", Severity::kError},            // pl.store 5 positional
      {44, 17, "API-KERNEL-SYNTAX", Severity::kError},   // lambda
      {45, 9, "API-KERNEL-SYNTAX", Severity::kError},    // try
      {50, 10, "API-LEGACY", Severity::kError},          // with pl.section_vf()
  };
  std::vector<F> got;
  for (const auto& x : d.items()) got.emplace_back(x.line, x.column, x.code, x.severity);
  INFO(d.ToText());
  CHECK(got == want);
  for (const auto& x : d.items()) {
    CHECK(x.file == kSrc + "/tests/data/api/lint_findings.py");
    CHECK(!x.message.empty());
  }
  // Messages carry the fix.
  CHECK(d.Find("API-MTE-IN-VF")->message.find("pipe MTE2") != std::string::npos);
  bool suggests_load = false, suggests_fillpad = false;
  for (const auto& x : d.items()) {
    suggests_load |= x.message.find("did you mean pl.load?") != std::string::npos;
    suggests_fillpad |=
        x.message.find("pl.fillpad(out, src, mode=pl.FillPadMode.INPLACE)") != std::string::npos;
  }
  CHECK(suggests_load);
  CHECK(suggests_fillpad);
}

TEST_CASE("checker: every corpus file is clean", "[api]") {
  for (const auto& e : std::filesystem::directory_iterator(kSrc + "/tests/data/pyfront")) {
    if (e.path().extension() != ".py") continue;
    INFO(e.path().string());
    Diagnostics d = LintFile(e.path().string());
    CHECK(d.ToText().empty());
  }
}

TEST_CASE("checker: context switches can be turned off", "[api]") {
  api::CheckOptions opts;
  opts.check_context = false;
  opts.check_syntax = false;
  Diagnostics d = LintFile(kSrc + "/tests/data/api/lint_findings.py", opts);
  CHECK_FALSE(d.HasCode("API-CONTEXT"));
  CHECK_FALSE(d.HasCode("API-MTE-IN-VF"));
  CHECK_FALSE(d.HasCode("API-KERNEL-SYNTAX"));
  CHECK(d.HasCode("API-ARITY"));
}

TEST_CASE("checker: aliases come from the imports", "[api]") {
  Diagnostics d = LintSource(
      "import pypto_pro.language as P\n"
      "from pypto_pro.language import Vf as V, system as S, load\n"
      "@P.vector_function\n"
      "def f(t):\n"
      "    m = V.create_mask(pattern=P.MaskPattern.ALL, dtype=P.DT_FP32)\n"
      "    x = V.load_align(t, 0)\n"
      "    V.store_align(t, x, m)\n"
      "@P.jit\n"
      "def k(x: P.Tensor[[16, 16], P.DT_FP32]):\n"
      "    with P.section_vector():\n"
      "        t = P.make_tile(P.TileType([16, 16], P.DT_FP32), addr=0)\n"
      "        load(t, x, [0, 0])\n"
      "        S.bar_all()\n"
      "        f(t)\n"
      "        load(t)\n"
      "        pl.nothing()\n");
  INFO(d.ToText());
  REQUIRE(d.size() == 1);  // `pl` is not bound here, so pl.nothing() is not ours
  CHECK(d.items()[0].code == "API-ARITY");
  CHECK(d.items()[0].line == 15);
  CHECK(d.items()[0].message.find("pl.load") != std::string::npos);
  // Without imports, pl and vf are assumed (DESIGN-style snippets).
  Diagnostics d2 = LintSource("pl.lod(1)\nvf.nope()\n");
  REQUIRE(d2.size() == 2);
  CHECK(d2.items()[0].code == "API-UNKNOWN");
  CHECK(d2.items()[1].code == "API-UNKNOWN");
}

TEST_CASE("checker: a literal descending store order is rejected (store.md)", "[api]") {
  Diagnostics d = LintSource(
      "import pypto_pro.language as pl\n"
      "@pl.jit\n"
      "def k(x: pl.Tensor[[4, 64, 64], pl.DT_FP16], o: pl.Tensor[[4, 64, 64], pl.DT_FP16], a: int):\n"
      "    with pl.section_vector():\n"
      "        t = pl.make_tile(pl.TileType([64, 64], pl.DT_FP16), addr=0)\n"
      "        pl.load(t, x, [0, 0, 0], order=[2, 1])\n"        // a load may transpose
      "        pl.store(o, t, [0, 0, 0], order=[0, 2])\n"
      "        pl.store(o, t, [0, 0, 0], order=[2, 1])\n"
      "        pl.store_tile(o, t, [0, 0, 0], order=(1, 0))\n"
      "        pl.store(o, t, [0, 0, 0], order=[a, 0])\n");  // computed: left to the run
  INFO(d.ToText());
  REQUIRE(d.size() == 2);
  CHECK(d.items()[0].code == "API-STORE-ORDER");
  CHECK(d.items()[0].line == 8);
  CHECK(d.items()[0].message.find("pl.store: order must be ascending, got [2, 1]") != std::string::npos);
  CHECK(d.items()[1].code == "API-STORE-ORDER");
  CHECK(d.items()[1].line == 9);
  CHECK(d.items()[1].message.find("pl.store_tile") != std::string::npos);
}

TEST_CASE("checker: a @pl.pipeline.stage body takes the domain of the section that calls it", "[api]") {
  // programming_paradigm_overview.md: the stage decorator only marks the function; it is
  // called inside pl.section_cube() / pl.section_vector(), so its MTE and Cube ops are legal.
  Diagnostics d = LintSource(
      "import pypto_pro.language as pl\n"
      "@pl.pipeline.stage\n"
      "def qk(a, a_mat, left, acc, right):\n"
      "    pl.load(a_mat, a, [0, 0])\n"
      "    pl.move(left, a_mat)\n"
      "    pl.matmul(acc, left, right)\n"
      "@pl.jit\n"
      "def k(a: pl.Tensor[[64, 64], pl.DT_FP16]):\n"
      "    with pl.section_cube():\n"
      "        qk(a, None, None, None, None)\n");
  INFO(d.ToText());
  CHECK(d.empty());  // before: API-CONTEXT on lines 4-6 ("a kernel body outside any section")
}

TEST_CASE("opdev lint: exit codes, text and JSON", "[api][cli]") {
  std::string bad = kSrc + "/tests/data/api/lint_findings.py";
  std::string good = kSrc + "/tests/data/pyfront/kernel_softmax_vf_fp16.py";
  Run r = RunOpdev("lint " + bad + " --json");
  CHECK(r.status == 1);
  boost::system::error_code ec;
  auto v = boost::json::parse(r.out, ec);
  REQUIRE(!ec);
  CHECK(v.at("status").as_string() == "findings");
  CHECK(v.at("errors").as_int64() == 22);
  CHECK(v.at("warnings").as_int64() == 1);
  CHECK(v.at("diagnostics").as_array().size() == 23);
  CHECK(v.at("diagnostics").as_array()[0].at("line").as_int64() == 8);

  Run text = RunOpdev("lint " + bad);
  CHECK(text.status == 1);
  CHECK(text.out.find("lint_findings.py:33:9: error[API-UNKNOWN]") != std::string::npos);

  Run clean = RunOpdev("lint " + good);
  CHECK(clean.status == 0);
  CHECK(clean.out.find("clean") != std::string::npos);

  CHECK(RunOpdev("lint /nonexistent/k.py").status == 2);
  CHECK(RunOpdev("lint").status == 2);
  Run show = RunOpdev("lint --show pl.load");
  CHECK(show.status == 0);
  CHECK(show.out.find("dst_tile: positional_or_keyword, tile in Vec Mat") != std::string::npos);
  CHECK(show.out.find("python/pypto_pro/language/_api.py:80") != std::string::npos);
  CHECK(RunOpdev("lint --show pl.nope").status == 2);
  // Syntax errors are findings with a position.
  Run syn = RunOpdev("lint " + kSrc + "/tests/data/api/syntax_error.py --json");
  CHECK(syn.status == 1);
  auto sv = boost::json::parse(syn.out, ec);
  REQUIRE(!ec);
  CHECK(sv.at("diagnostics").as_array()[0].at("code").as_string() == "PY-SYNTAX");
  CHECK(sv.at("diagnostics").as_array()[0].at("line").as_int64() == 4);
}
