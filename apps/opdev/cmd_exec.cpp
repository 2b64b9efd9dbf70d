// opdev exec: runs a command with opdev's CPU device for PyPTO-Pro installed (the
// environment is the library's runtime::CpuDeviceEnvironment), or prints that environment.
#include "cli_util.h"
#include "command.h"

#include "opdev/runtime/device_env.h"
#include "opdev/support/target.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev exec [--target a5|a3] [--print-env] [--json] -- CMD [ARGS...]\n"
    "\n"
    "Runs CMD with opdev's CPU device for PyPTO-Pro installed: an unmodified PyPTO-Pro\n"
    "program imports pypto_pro, pypto and torch_npu from opdev, torch gains an 'npu' device\n"
    "that is the CPU, and every @pl.jit kernel launch runs on opdev's simulator (hazards\n"
    "raise with file:line). Example: opdev exec -- /usr/bin/python3 custom/softmax/test_softmax.py\n"
    "The variables set are PYTHONPATH (the device's packages first), OPDEV_C_LIBRARY and\n"
    "OPDEV_DEVICE_TARGET; nothing outside CMD's process changes.\n"
    "--print-env prints them as shell exports (eval \"$(opdev exec --print-env)\"), --json as\n"
    "a JSON object. Exit status: CMD's own, 127 when CMD cannot be started, 2 usage error.";

int Run(const std::vector<std::string>& all) {
  // Options end at "--"; the rest is the command, passed through untouched.
  std::vector<std::string> args, cmd;
  bool sep = false;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!sep && i > 0 && all[i] == "--") { sep = true; continue; }
    (sep ? cmd : args).push_back(all[i]);
  }
  po::options_description opts("options");
  std::vector<std::string> positional;
  opts.add_options()
      ("target", po::value<std::string>()->default_value("a5"), "simulated chip: a5 (Ascend950) or a3")
      ("print-env", "print the variables as shell exports instead of running a command")
      ("json", "with --print-env: print the variables as JSON")
      ("cmd", po::value<std::vector<std::string>>(&positional), "the command (after --)");
  po::positional_options_description pos;
  pos.add("cmd", -1);
  po::variables_map vm;
  int code = kExitOk;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &code)) return code;
  const bool json = vm.count("json") > 0;
  // A command given without "--" is accepted when it is unambiguous (no option after it).
  if (cmd.empty()) cmd = positional;
  else if (!positional.empty()) return FailUsage("exec", "unexpected arguments before '--'", json);
  auto target = ParseTarget(vm["target"].as<std::string>());
  if (!target) return FailUsage("exec", "--target must be a5 or a3", json);
  runtime::DeviceEnvOptions o;
  o.target = *target;
  auto env = runtime::CpuDeviceEnvironment(o, std::getenv("PYTHONPATH"));
  if (!env.ok()) return FailUsage("exec", std::string(env.status().message()), json);
  if (vm.count("print-env")) {
    if (json) {
      boost::json::object vars;
      for (const auto& [k, v] : env->vars) vars[k] = v;
      PrintJson(boost::json::object{{"env", std::move(vars)}, {"python_dir", env->python_dir},
                                    {"device_dir", env->device_dir}, {"c_library", env->c_library},
                                    {"target", std::string(TargetName(*target))}});
    } else {
      Out() << runtime::ShellExports(*env);
    }
    return kExitOk;
  }
  if (cmd.empty()) return FailUsage("exec", "expected a command after '--' (or --print-env)", json);
  for (const auto& [k, v] : env->vars) setenv(k.c_str(), v.c_str(), 1);
  std::vector<char*> argv;
  for (auto& a : cmd) argv.push_back(a.data());
  argv.push_back(nullptr);
  Out().flush();
  execvp(argv[0], argv.data());
  Err() << "opdev exec: cannot run '" << cmd[0] << "': " << std::strerror(errno) << "\n";
  return 127;
}

}  // namespace

OPDEV_COMMAND("exec", "run a command with the CPU device for PyPTO-Pro (python test_op.py on the CPU)", Run);

}  // namespace opdev::cli
