// The `opdev plan` and `opdev usage` commands end to end (exit codes, JSON reports), run
// through the built binary named by $OPDEV_BIN. When the binary has not been built these
// cases report that and check nothing else.
#include <catch2/catch.hpp>

#include "kbusage_test_util.h"

#include <cstdlib>

using namespace kbu_test;

namespace {

struct Run {
  int code = -1;
  std::string out;
};

std::string Bin() {
  const char* b = std::getenv("OPDEV_BIN");
  return b && fs::exists(b) ? std::string(b) : std::string();
}

Run Opdev(const fs::path& ws, const std::string& args) {
  Run r;
  std::string cmd = Bin() + " " + args + " > " + (ws / "stdout.txt").string() + " 2> " +
                    (ws / "stderr.txt").string();
  int st = std::system(cmd.c_str());
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = Read(ws / "stdout.txt");
  return r;
}

}  // namespace

TEST_CASE("opdev plan: L0 plan, invalid dispatch, read-only guard") {
  if (Bin().empty()) {
    WARN("OPDEV_BIN not built; command tests skipped");
    return;
  }
  auto ws = FreshWorkspace("cli_plan");
  auto op = SoftmaxOpDir(ws, /*with_product=*/false);
  auto r = Opdev(ws, "plan " + op.string() + " --json");
  INFO(r.out << Read(ws / "stderr.txt"));
  REQUIRE(r.code == 0);
  auto j = boost::json::parse(r.out);
  CHECK(j.at("plan").at("mode") == "L0");
  CHECK(j.at("plan").at("run_command") == "python custom/softmax/test_softmax.py");
  CHECK(j.at("plan").at("wrapper") == "softmax_wrapper");

  auto bad = Opdev(ws, "plan " + op.string() + " --module-k 2.0 --json");
  CHECK(bad.code == 1);
  CHECK(bad.out.find("DISPATCH-TYPE") != std::string::npos);
  auto nf = Opdev(ws, "plan " + op.string() + " --module-k 1 --json");
  CHECK(nf.code == 1);
  CHECK(nf.out.find("DISPATCH-NOT-FUSION") != std::string::npos);
  auto both = Opdev(ws, "plan " + op.string() + " --module-k 1 --finalize");
  CHECK(both.code == 1);
  auto json_dispatch = Opdev(ws, "plan " + op.string() + " --dispatch '{\"module_k\": \"1\"}' --json");
  CHECK(json_dispatch.code == 1);
  CHECK(json_dispatch.out.find("DISPATCH-TYPE") != std::string::npos);
  CHECK(Opdev(ws, "plan " + (ws / "nowhere").string()).code == 2);

  fs::path snap = ws / "ro.json";
  REQUIRE(Opdev(ws, "plan " + op.string() + " --snapshot-out " + snap.string()).code == 0);
  CHECK(Opdev(ws, "plan --snapshot-check " + snap.string()).code == 0);
  Write(op / "SPEC.md", Read(op / "SPEC.md") + "edited\n");
  auto changed = Opdev(ws, "plan --snapshot-check " + snap.string() + " --json");
  CHECK(changed.code == 1);
  CHECK(changed.out.find("RO-CONTRACT-CHANGED") != std::string::npos);
}

TEST_CASE("opdev usage generate and check") {
  if (Bin().empty()) {
    WARN("OPDEV_BIN not built; command tests skipped");
    return;
  }
  auto ws = FreshWorkspace("cli_usage");
  auto op = SoftmaxOpDir(ws);
  std::string kb = " --kb-root " + KbRoot();
  auto gen = Opdev(ws, "usage generate " + op.string() + kb + " --json");
  INFO(gen.out << Read(ws / "stderr.txt"));
  REQUIRE(gen.code == 0);
  auto g = boost::json::parse(gen.out);
  CHECK(g.at("mode") == "L0");
  CHECK(g.at("result").at("classes").at(0).at("final_records") == 32);
  auto chk = Opdev(ws, "usage check " + op.string() + kb + " --json");
  REQUIRE(chk.code == 0);
  CHECK(boost::json::parse(chk.out).at("summary").at("records") == 32);

  std::string usage = Read(op / "KB_USAGE.json");
  std::string broken = usage;
  broken.replace(broken.find("\"implemented\""), 13, "\"verified\"");
  Write(op / "KB_USAGE.json", broken);
  auto bad = Opdev(ws, "usage check " + op.string() + kb + " --mode L0 --json");
  CHECK(bad.code == 1);
  CHECK(bad.out.find("KBU-STATUS-FORBIDDEN") != std::string::npos);

  Write(op / "KB_USAGE.json", "not json");
  auto nj = Opdev(ws, "usage generate " + op.string() + kb);
  CHECK(nj.code == 1);
  CHECK(Read(op / "KB_USAGE.json") == "not json");
  CHECK(Opdev(ws, "usage frobnicate " + op.string() + kb).code == 2);
  CHECK(Opdev(ws, "usage check " + op.string() + kb + " --mode L7").code == 2);
}

TEST_CASE("opdev gen then opdev usage on a copy of examples/softmax") {
  if (Bin().empty()) {
    WARN("OPDEV_BIN not built; command tests skipped");
    return;
  }
  auto ws = FreshWorkspace("cli_gen");
  fs::path op = ws / "custom" / "softmax";
  fs::copy(fs::path(OPDEV_SOURCE_DIR) / "examples" / "softmax", op, fs::copy_options::recursive);
  auto gen = Opdev(ws, "gen " + op.string());
  INFO(gen.out << Read(ws / "stderr.txt"));
  REQUIRE(gen.code == 0);
  REQUIRE(fs::exists(op / "test_softmax.py"));
  std::string kb = " --kb-root " + KbRoot();
  auto usage = Opdev(ws, "usage generate " + op.string() + kb + " --json");
  INFO(usage.out);
  REQUIRE(usage.code == 0);
  auto chk = Opdev(ws, "usage check " + op.string() + kb + " --json");
  INFO(chk.out);
  CHECK(chk.code == 0);
}
