// The `opdev sim` command end to end: .npy in, .npy out, exit codes and JSON hazards.
#include "sim_test_util.h"

#include "opdev/precision/tensor_file.h"
#include "opdev/support/file_io.h"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

using namespace opdev;

namespace {
struct CmdResult {
  int exit = -1;
  std::string out;
};
CmdResult RunCmd(const std::string& cmd) {
  CmdResult r;
  FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.exit = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}
std::string Bin() {
  const char* b = std::getenv("OPDEV_BIN");
  REQUIRE(b != nullptr);
  REQUIRE(std::filesystem::exists(b));
  return b;
}
}  // namespace

TEST_CASE("opdev sim writes the wrapper's output as .npy and exits 0 on a clean run") {
  auto dir = std::filesystem::temp_directory_path() / "opdev_sim_cli_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto x = simtest::Random(DType::kFloat32, {33, 65}, -4.0, 4.0, 2);
  REQUIRE(precision::WriteNpy((dir / "x.npy").string(), x).ok());
  auto r = RunCmd(Bin() + " sim " + simtest::DataPath("softmax_vf_fp32.py") + " --entry softmax_wrapper --in " +
                  (dir / "x.npy").string() + " --out-dir " + (dir / "out").string());
  CHECK(r.exit == 0);
  auto y = precision::ReadNpy((dir / "out" / "y.npy").string());
  REQUIRE(y.ok());
  CHECK(simtest::MaxAbsDiff(*y, simtest::SoftmaxRef(x)) < 1e-6);
  // A defective kernel: exit 1 and the hazard in JSON with its line.
  std::string src = *ReadTextFile(simtest::DataPath("softmax_vf_fp32.py"));
  src.replace(src.find("pl.store(y, yt, [r0, 0])"), 24, "pl.store(y, yt, [r0 + 1, 0])");
  REQUIRE(WriteFileAtomic((dir / "bad.py").string(), src).ok());
  auto bad = RunCmd(Bin() + " sim " + (dir / "bad.py").string() + " --entry softmax_wrapper --in " +
                    (dir / "x.npy").string() + " --out-dir " + (dir / "out2").string() + " --json");
  CHECK(bad.exit == 1);
  auto j = boost::json::parse(bad.out).as_object();
  bool found = false;
  for (const auto& h : j["hazards"].as_array())
    if (h.as_object().at("code").as_string() == "SIM-GM-OOB") found = true;
  CHECK(found);
  // Usage errors exit 2.
  CHECK(RunCmd(Bin() + " sim " + simtest::DataPath("softmax_vf_fp32.py") + " --out-dir x").exit == 2);
  CHECK(RunCmd(Bin() + " sim " + simtest::DataPath("softmax_vf_fp32.py") + " --entry nope --out-dir " +
               (dir / "o3").string()).exit == 2);
  std::filesystem::remove_all(dir);
}

TEST_CASE("opdev sim checks the pipes of each core by default / --no-pipe-sync turns the model off") {
  auto dir = std::filesystem::temp_directory_path() / "opdev_sim_cli_pipes";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto x = simtest::Random(DType::kFloat32, {8, 64}, -1.0, 1.0, 3);
  REQUIRE(precision::WriteNpy((dir / "x.npy").string(), x).ok());
  REQUIRE(precision::WriteNpy((dir / "y.npy").string(), simtest::Random(DType::kFloat32, {8, 64}, 0, 0, 1)).ok());
  // A make_tile load consumed by V with no MTE2 -> V flag (Tile_vector_computation.md): a race
  // on the device.
  const std::string src =
      "import pypto_pro.language as pl\n"
      "\n"
      "@pl.jit()\n"
      "def k(x: pl.Tensor[[8, 64], pl.DT_FP32], y: pl.Tensor[[8, 64], pl.DT_FP32]):\n"
      "    with pl.section_vector():\n"
      "        t = pl.make_tile(pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=2048)\n"
      "        pl.load(t, x, [0, 0])\n"
      "        pl.mul(t, t, 2.0)\n"
      "        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)\n"
      "        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)\n"
      "        pl.store(y, t, [0, 0])\n";
  REQUIRE(WriteFileAtomic((dir / "k.py").string(), src).ok());
  const std::string base = Bin() + " sim " + (dir / "k.py").string() + " --entry k --in " + (dir / "x.npy").string() +
                           " --in " + (dir / "y.npy").string() + " --json --out-dir ";
  auto codes = [](const std::string& out) {
    std::vector<std::string> c;
    const boost::json::value doc = boost::json::parse(out);
    for (const auto& h : doc.as_object().at("hazards").as_array())
      c.emplace_back(h.as_object().at("code").as_string());
    return c;
  };
  for (const char* flag : {"", " --pipe-sync"}) {
    CAPTURE(flag);
    auto on = RunCmd(base + (dir / "on").string() + flag);
    CHECK(on.exit == 1);
    auto c = codes(on.out);
    CHECK(std::find(c.begin(), c.end(), "SIM-PIPE-RACE") != c.end());
  }
  // Both switches at once is a usage error, not a silent choice.
  auto both = RunCmd(base + (dir / "both").string() + " --pipe-sync --no-pipe-sync");
  CHECK(both.exit == 2);
  CHECK(both.out.find("contradict") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "both" / "y.npy"));
  auto off = RunCmd(base + (dir / "off").string() + " --no-pipe-sync");
  CHECK(off.exit == 0);
  CHECK(codes(off.out).empty());
  auto y = precision::ReadNpy((dir / "off" / "y.npy").string());
  REQUIRE(y.ok());
  for (int64_t i = 0; i < y->numel(); ++i) CHECK(y->GetDouble(i) == 2 * x.GetDouble(i));
  std::filesystem::remove_all(dir);
}
