// `opdev check` end to end: exit codes 0/1/2, text and JSON output, --help, --list-rules, on
// the bundled example, the published fixture and mutated copies.
#include "contract_test_util.h"

#include <boost/json/parse.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>

using namespace contract_test;

namespace {

struct Run {
  int code = -1;
  std::string out;  // stdout + stderr
};

std::string Bin() {
  const char* b = std::getenv("OPDEV_BIN");
  if (b && *b) return b;
  return std::string(OPDEV_BINARY_DIR) + "/bin/opdev";
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

Run Opdev(const std::string& args, bool merge_stderr = true) {
  std::string bin = Bin();
  INFO("opdev binary: " << bin);
  REQUIRE(fs::exists(bin));
  std::string cmd = Quote(bin) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
  Run r;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace

TEST_CASE("opdev check examples/softmax: clean, KB root found by default") {
  WithoutKbRootEnv no_env;  // the command inherits the environment, whose root would win
  Run r = Opdev("check " + Quote(std::string(OPDEV_SOURCE_DIR) + "/examples/softmax"));
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("0 error(s), 1 warning(s)") != std::string::npos);
  CHECK(r.out.find("DESIGN.md:170: warning[DESIGN-VSEL-NONCOMPUTE]") != std::string::npos);
}

TEST_CASE("opdev check on the published fixture with --kb-root, JSON report") {
  Run r = Opdev("check " + Quote(kFixtureDir) + " --kb-root " + Quote(kKbRoot) + " --json", false);
  INFO(r.out);
  CHECK(r.code == 0);
  auto v = boost::json::parse(r.out);
  const auto& o = v.as_object();
  CHECK(o.at("status").as_string() == "clean");
  CHECK(o.at("errors").as_int64() == 0);
  CHECK(o.at("kb_root").as_string() == kKbRoot);
  CHECK(o.at("target").as_string() == "a5");
  const auto& diags = o.at("diagnostics").as_array();
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].as_object().at("code").as_string() == "DESIGN-VSEL-NONCOMPUTE");
  CHECK(diags[0].as_object().at("line").as_int64() == 170);
  CHECK(diags[0].as_object().at("section").as_string() == "§1");
}

TEST_CASE("opdev check: contract errors exit 1 with compiler-style lines") {
  ScratchOpDir s;
  s.Mutate("DESIGN.md", "`[[2],[3]]`", "`[[1],[3]]`");
  Run r = Opdev("check " + Quote(s.dir()) + " --kb-root " + Quote(kKbRoot));
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find(s.path("DESIGN.md") + ":221: error[DESIGN-MUTEX-DUPLICATE]") != std::string::npos);
  CHECK(r.out.find("(design_violation)") != std::string::npos);
  Run j = Opdev("check " + Quote(s.dir()) + " --kb-root " + Quote(kKbRoot) + " --json", false);
  CHECK(j.code == 1);
  CHECK(boost::json::parse(j.out).as_object().at("status").as_string() == "errors");
}

TEST_CASE("opdev check: usage and input errors exit 2") {
  CHECK(Opdev("check").code == 2);
  CHECK(Opdev("check /nonexistent/op --kb-root " + Quote(kKbRoot)).code == 2);
  CHECK(Opdev("check " + Quote(kFixtureDir) + " --target a9").code == 2);
  CHECK(Opdev("check " + Quote(kFixtureDir) + " --no-such-option").code == 2);
  Run kb = Opdev("check " + Quote(kFixtureDir) + " --kb-root /nonexistent/kb");
  CHECK(kb.code == 2);
  CHECK(kb.out.find("KB-ROOT-MISSING") != std::string::npos);
  ScratchOpDir s;
  s.Mutate("KB_SELECTION.json", "\"op\": \"softmax\"", "\"op\": \"soft\xc3\x28max\"");
  Run bad = Opdev("check " + Quote(s.dir()) + " --kb-root " + Quote(kKbRoot));
  CHECK(bad.code == 2);
  CHECK(bad.out.find("KB_SELECTION.json:3: error[CONTRACT-FILE-UNREADABLE]") != std::string::npos);
}

TEST_CASE("opdev check --help states the KB root rule / --list-rules lists every code") {
  Run h = Opdev("check --help");
  CHECK(h.code == 0);
  CHECK(h.out.find("OPDEV_KB_ROOT") != std::string::npos);
  CHECK(h.out.find("--kb-root") != std::string::npos);
  Run l = Opdev("check --list-rules --json", false);
  CHECK(l.code == 0);
  auto rules = boost::json::parse(l.out).as_array();
  CHECK(rules.size() > 80);
  bool found = false;
  for (const auto& r : rules)
    found = found || r.as_object().at("code").as_string() == "BINDINGS-KIND-STATUS";
  CHECK(found);
}
