// `opdev stage`: the whole Stage 4 round with its verdict report.
#include "cli_util.h"
#include "command.h"

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev stage <op_dir> [--kb-root DIR] [--module-k K | --finalize] [--backend sim|npu]\n"
    "            [--no-gen] [--design-cases] [--python PATH] [--device N] [--timeout S]\n"
    "            [--idle-timeout S] [--json]\n\n"
    "One Stage 4 round: check -> plan -> gen (or, with --no-gen, verify the existing file) ->\n"
    "budget -> self-check -> run -> compare -> KB usage generate + check -> read-only guard ->\n"
    "verdict. Writes <op_dir>/reports/opdev/stage_report.json and stage_report.md (commands,\n"
    "per-quadruple KB evidence, per-case results, hazards, artifacts, failure category and\n"
    "next action). A failed run is triaged: the case attributes that separate failing from\n"
    "passing cases and their §8 symptom row, the first failing case rerun alone, with another\n"
    "seed and shrunk to a minimal repro (simulator), its wrong elements localised to rows,\n"
    "registers and lanes, hazards listed once with their cases, and the defect routed by where\n"
    "its line came from (the generated file's source map: DESIGN -> suspected design_violation;\n"
    "opdev's own code or a hand-written file -> implementation_error at the kernel line).\n"
    "The verdict is CLEAN, FAIL, FLAKY (the first failure did not come back alone),\n"
    "NOT_MEASURED (environment) or INCOMPLETE (a step could not run); it is opdev's\n"
    "self-check, never a verifier PASS. Progress goes to\n"
    "stderr on a terminal; --json prints only the report.\n"
    "sim: the run step executes the test file under opdev's CPU device (as `opdev run`); when\n"
    "it stops at its first failing case the triage measures every DESIGN §8 case on the\n"
    "simulator. --design-cases runs the DESIGN §8 cases through the wrapper instead (the\n"
    "diagnostic mode of `opdev run --design-cases`; a report that does not depend on how the\n"
    "test file's stdout and stderr interleave).\n"
    "--python is the interpreter of the NPU run (default `python`); the golden and the import\n"
    "probe use --probe-python (default /usr/bin/python3).\n"
    "Exit status: 0 CLEAN, 1 FAIL / FLAKY / NOT_MEASURED / INCOMPLETE, 2 usage error.";

int Run(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()
      ("op_dir", po::value<std::string>(), "the op dir")
      ("kb-root", po::value<std::string>(), "KB root (topology-map.json)")
      ("module-k", po::value<long long>(), "L1 Module K")
      ("finalize", po::bool_switch(), "L1 finalize")
      ("backend", po::value<std::string>()->default_value("sim"), "sim or npu")
      ("no-gen", po::bool_switch(), "verify the existing kernel file")
      ("design-cases", po::bool_switch(), "sim: the DESIGN §8 runner for the run step")
      ("python", po::value<std::string>(), "interpreter of the NPU run")
      ("probe-python", po::value<std::string>(), "Python with torch for the golden and import probe")
      ("device", po::value<int>(), "NPU device id")
      ("npu-smi", po::value<std::string>(), "npu-smi program")
      ("timeout", po::value<double>(), "NPU run wall-clock limit (s)")
      ("idle-timeout", po::value<double>(), "NPU run no-output limit (s)")
      ("report-dir", po::value<std::string>(), "report folder (default <op_dir>/reports/opdev)")
      ("json", po::bool_switch(), "print the report JSON");
  po::positional_options_description pos;
  pos.add("op_dir", 1);
  po::variables_map vm;
  int code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &code)) return code;
  bool json = vm["json"].as<bool>();
  if (!vm.count("op_dir") || vm["op_dir"].as<std::string>().empty())
    return FailUsage("stage", "missing <op_dir>", json);
  boost::json::object request{{"op_dir", vm["op_dir"].as<std::string>()},
                              {"backend", vm["backend"].as<std::string>()}};
  for (const char* key : {"kb-root", "python", "probe-python", "npu-smi", "report-dir"})
    if (vm.count(key)) request[RequestKey(key)] = vm[key].as<std::string>();
  for (const char* key : {"finalize", "no-gen", "design-cases"})
    if (vm[key].as<bool>()) request[RequestKey(key)] = true;
  if (vm.count("module-k")) request["module_k"] = vm["module-k"].as<long long>();
  if (vm.count("device")) request["device"] = vm["device"].as<int>();
  for (const char* key : {"timeout", "idle-timeout"})
    if (vm.count(key)) request[RequestKey(key)] = vm[key].as<double>();
  return RunAndPrintStep("stage", "stage", request, json, "");
}

}  // namespace

OPDEV_COMMAND("stage", "the whole Stage 4 round with a verdict report", Run);

}  // namespace opdev::cli
