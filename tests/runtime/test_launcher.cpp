// Tests of the launcher with stand-in interpreters: the pipeline's command form and working
// directory, TILE_FWK_DEVICE_ID from --device or npu-smi, captured logs, the no-output
// watchdog, the wall-clock timeout, process-group kills, signals and one-case reruns.
#include "workspace.h"
#include <catch2/catch.hpp>

#include "opdev/runtime/launcher.h"
#include "opdev/support/file_io.h"

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

namespace fs = std::filesystem;
using namespace opdev::runtime;

namespace {
const std::string kData = std::string(OPDEV_SOURCE_DIR) + "/tests/data/runtime/";
std::string OpDir(const std::string& name) { return kData + "custom/" + name; }
fs::path TempDir(const char* name) {
  fs::path p = opdev_test::ScratchDir("runtime_" + std::string(name));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}
LaunchOptions Python(const std::string& op) {
  LaunchOptions o;
  o.op_dir = OpDir(op);
  o.interpreter = OPDEV_PYTHON;
  o.device = 0;
  o.timeout_seconds = 60;
  o.idle_timeout_seconds = 30;
  return o;
}
}  // namespace

TEST_CASE("the command is the pipeline's: python custom/<op>/test_<op>.py from custom's parent") {
  LaunchOptions o = Python("py_cases");
  auto plan = PlanCommand(o);
  REQUIRE(plan.ok());
  CHECK(plan->cwd == fs::path(kData).lexically_normal().parent_path().string());
  CHECK(plan->argv == std::vector<std::string>{OPDEV_PYTHON, "custom/py_cases/test_py_cases.py"});

  // Outside a "custom" directory: run from the op dir's parent.
  fs::path dir = TempDir("plan") / "softmax";
  fs::create_directories(dir);
  o.op_dir = dir.string() + "/";
  o.test_file = "modules/test_softmax_module12.py";
  plan = PlanCommand(o);
  REQUIRE(plan.ok());
  CHECK(plan->cwd == dir.parent_path().string());
  CHECK(plan->argv.back() == "softmax/modules/test_softmax_module12.py");

  o.op_dir = "/nonexistent/op";
  CHECK(PlanCommand(o).status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("a run captures stdout, stderr and the interleaved log and parses the cases") {
  fs::path logs = TempDir("logs");
  LaunchOptions o = Python("py_cases");
  o.expected_cases = {"test_py_cases_aligned", "test_py_cases_tail"};
  o.log_dir = logs.string();
  std::vector<std::string> seen;
  o.on_line = [&](const std::string& l) { seen.push_back(l); };
  auto r = Launch(o);
  REQUIRE(r.ok());
  REQUIRE(r->launched());
  CHECK(r->process->ok());
  CHECK(r->command == std::string(OPDEV_PYTHON) + " custom/py_cases/test_py_cases.py");
  REQUIRE(r->cases.size() == 2);
  CHECK(r->cases[0].status == CaseStatus::kPass);
  CHECK(r->cases[1].status == CaseStatus::kPass);
  CHECK(*r->cases[1].metrics.max_abs_error == Approx(9.765625e-4));
  CHECK(seen.size() == 2);
  auto err = opdev::ReadTextFile(r->stderr_path);  // logging writes to stderr
  REQUIRE(err.ok());
  CHECK(err->find("[tail [4,200]] PASS") != std::string::npos);
  auto all = opdev::ReadTextFile(r->combined_path);
  REQUIRE(all.ok());
  CHECK(*all == *err);
  CHECK(fs::file_size(r->stdout_path) == 0);
}

TEST_CASE("the interleaved log keeps a line whole when the other stream writes in the middle of it") {
  fs::path logs = TempDir("split_logs");
  LaunchOptions o = Python("py_split");
  o.expected_cases = {"test_py_split_case"};
  o.log_dir = logs.string();
  auto r = Launch(o);
  REQUIRE(r.ok());
  REQUIRE(r->launched());
  CHECK(r->process->ok());
  REQUIRE(r->cases.size() == 1);
  CHECK(r->cases[0].status == CaseStatus::kPass);
  auto all = opdev::ReadTextFile(r->combined_path);
  REQUIRE(all.ok());
  const std::string line = "[case [2,64]] PASS (matched_ratio=1.000000 (req>=0.99), "
                           "max_abs_error=0.000000e+00 (limit=1.000000e-01))\n";
  CHECK(all->find(line) != std::string::npos);
  CHECK(all->find("UserWarning: a warning between the pieces\n") != std::string::npos);
  CHECK(all->size() == fs::file_size(r->stdout_path) + fs::file_size(r->stderr_path));
}

TEST_CASE("the one-case mode runs one test function alone") {
  LaunchOptions o = Python("py_cases");
  o.case_name = "test_py_cases_tail";
  auto r = Launch(o);
  REQUIRE(r.ok());
  CHECK(r->process->ok());
  REQUIRE(r->cases.size() == 1);
  CHECK(r->cases[0].name == "test_py_cases_tail");
  CHECK(r->cases[0].status == CaseStatus::kPass);
  CHECK(r->command.find("test_py_cases_tail") != std::string::npos);
}

TEST_CASE("TILE_FWK_DEVICE_ID comes from --device, else from the idle chip npu-smi reports") {
  LaunchOptions o = Python("py_env");
  o.device = 5;
  auto r = Launch(o);
  REQUIRE(r.ok());
  CHECK(r->process->stdout_text.find("TILE_FWK_DEVICE_ID=5\n") != std::string::npos);
  CHECK(r->env_set.at("TILE_FWK_DEVICE_ID") == "5");
  CHECK(r->process->stdout_text.find("CWD=" + fs::path(kData).lexically_normal().parent_path().string()) !=
        std::string::npos);

  o.device.reset();
  o.npu_smi = kData + "npu-smi/fake-npu-smi";
  ::setenv("FAKE_NPU_SMI_INFO", (kData + "npu-smi/info_910b.txt").c_str(), 1);
  r = Launch(o);
  REQUIRE(r.ok());
  REQUIRE(r->device);
  CHECK(r->device->device_id == 1);
  CHECK(r->process->stdout_text.find("TILE_FWK_DEVICE_ID=1\n") != std::string::npos);
  CHECK(r->preflight_commands.size() == 2);

  // A missing npu-smi stops before the launch.
  o.npu_smi = "/nonexistent/npu-smi";
  r = Launch(o);
  REQUIRE(r.ok());
  CHECK_FALSE(r->launched());
  CHECK(r->preflight_kind == "npu_smi_missing");
  ::unsetenv("FAKE_NPU_SMI_INFO");
}

TEST_CASE("the no-output watchdog kills a hung run / the timeout kills a chatty one") {
  LaunchOptions o = Python("py_hang");
  o.idle_timeout_seconds = 1.0;
  o.timeout_seconds = 60;
  auto r = Launch(o);
  REQUIRE(r.ok());
  CHECK(r->process->termination == Termination::kIdleKilled);
  CHECK(r->process->wall_seconds < 30);
  CHECK(r->parsed.pass_lines == 1);  // output before the hang is kept

  o = Python("py_timeout");
  o.idle_timeout_seconds = 5;
  o.timeout_seconds = 1.5;
  r = Launch(o);
  REQUIRE(r.ok());
  CHECK(r->process->termination == Termination::kTimedOut);
  CHECK(r->process->stdout_text.find("compiling") != std::string::npos);
}

TEST_CASE("a kill takes the whole process group, helpers included") {
  fs::path dir = TempDir("group");
  std::string pid_file = (dir / "helper.pid").string();
  LaunchOptions o = Python("py_group");
  o.env["HELPER_PID_FILE"] = pid_file;
  o.idle_timeout_seconds = 1.0;
  auto r = Launch(o);
  REQUIRE(r.ok());
  CHECK(r->process->termination == Termination::kIdleKilled);
  auto pid_text = opdev::ReadTextFile(pid_file);
  REQUIRE(pid_text.ok());
  pid_t helper = std::stoi(*pid_text);
  // The helper was reparented and reaped by init after SIGKILL; give it a moment.
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    gone = ::kill(helper, 0) != 0;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(gone);
}

TEST_CASE("a signal death, a missing interpreter and a missing test file") {
  auto r = Launch(Python("py_signal"));
  REQUIRE(r.ok());
  CHECK(r->process->termination == Termination::kSignaled);
  CHECK(r->process->signal == SIGSEGV);

  LaunchOptions o = Python("py_cases");
  o.interpreter = "/nonexistent/python";
  r = Launch(o);
  REQUIRE(r.ok());
  CHECK(r->process->termination == Termination::kSpawnFailed);
  CHECK(r->process->spawn_error.find("No such file") != std::string::npos);

  o = Python("py_cases");
  o.test_file = "test_other.py";
  r = Launch(o);
  REQUIRE(r.ok());
  CHECK(r->preflight_kind == "missing_file");
  CHECK(r->preflight_error.find("custom/py_cases/test_other.py") != std::string::npos);
}
