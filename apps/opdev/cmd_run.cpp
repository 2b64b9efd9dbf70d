// `opdev run`: runs an op dir's kernel file on the CPU simulator or the NPU and prints the
// per-case results with the triaged failure category.
#include "cli_util.h"
#include "command.h"

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev run <op_dir> --backend sim|npu [--case NAME] [--module-k K] [--file REL]\n"
    "          [--python PATH] [--device N] [--npu-smi PATH] [--timeout S] [--idle-timeout S]\n"
    "          [--log-dir DIR] [--target a5|a3] [--design-cases] [--json]\n\n"
    "npu: runs exactly the pipeline's command (python custom/<op>/test_<op>.py, or the staged\n"
    "file with --module-k) from the workspace root, argv only (no shell), with\n"
    "TILE_FWK_DEVICE_ID from --device or the first idle chip `npu-smi info` reports; the whole\n"
    "process group is killed after --timeout (default 1800 s) or --idle-timeout seconds\n"
    "without output (default 900 s). --python chooses the interpreter (default `python`).\n"
    "sim: runs the same command (the interpreter is --python, default /usr/bin/python3) under\n"
    "opdev's CPU device for PyPTO-Pro (see `opdev exec`): the test file's own cases, data,\n"
    "golden and precision_compare, every kernel launch on opdev's simulator; the same process\n"
    "handling, limits and output parsing as npu. --target selects the simulated chip.\n"
    "--design-cases (diagnostic mode): instead, every DESIGN §8 case through the wrapper with\n"
    "inputs derived from module_interfaces.yaml, against <op>_golden_cpu.py run by --python.\n"
    "--case NAME runs one case alone. Logs go to <op_dir>/reports/opdev/run (or --log-dir).\n"
    "Exit status: 0 every case PASS, 1 a failure (or not measured), 2 usage error.";

int Run(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()
      ("op_dir", po::value<std::string>(), "the op dir")
      ("backend", po::value<std::string>()->default_value("sim"), "sim or npu")
      ("case", po::value<std::string>(), "run one DESIGN §8 case alone")
      ("module-k", po::value<long long>(), "L1 Module K: run the staged file")
      ("file", po::value<std::string>(), "run this op-dir-relative file")
      ("python", po::value<std::string>(), "interpreter (npu: the test; sim: the golden)")
      ("device", po::value<int>(), "NPU device id (TILE_FWK_DEVICE_ID)")
      ("npu-smi", po::value<std::string>(), "npu-smi program for idle-chip discovery")
      ("timeout", po::value<double>(), "wall-clock limit in seconds")
      ("idle-timeout", po::value<double>(), "no-output limit in seconds")
      ("log-dir", po::value<std::string>(), "where logs go")
      ("target", po::value<std::string>(), "sim: simulated chip a5 (default) or a3")
      ("design-cases", po::bool_switch(), "sim: the DESIGN §8 diagnostic runner instead of the test file")
      ("json", po::bool_switch(), "print JSON");
  po::positional_options_description pos;
  pos.add("op_dir", 1);
  po::variables_map vm;
  int code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &code)) return code;
  bool json = vm["json"].as<bool>();
  if (!vm.count("op_dir") || vm["op_dir"].as<std::string>().empty())
    return FailUsage("run", "missing <op_dir>", json);
  boost::json::object request{{"op_dir", vm["op_dir"].as<std::string>()},
                              {"backend", vm["backend"].as<std::string>()}};
  if (vm["design-cases"].as<bool>()) request["design_cases"] = true;
  for (const char* key : {"case", "file", "python", "npu-smi", "log-dir", "target"})
    if (vm.count(key)) request[RequestKey(key)] = vm[key].as<std::string>();
  if (vm.count("module-k")) request["module_k"] = vm["module-k"].as<long long>();
  if (vm.count("device")) request["device"] = vm["device"].as<int>();
  for (const char* key : {"timeout", "idle-timeout"})
    if (vm.count(key)) request[RequestKey(key)] = vm[key].as<double>();
  return RunAndPrintStep("run", "run", request, json, "  ");
}

}  // namespace

OPDEV_COMMAND("run", "run the kernel file on the simulator or the NPU and triage failures", Run);

}  // namespace opdev::cli
