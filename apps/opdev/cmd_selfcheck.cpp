// `opdev selfcheck`: the items of the verifier's stage4-check (or module-check with
// --module-k) on the kernel file of an op dir, each with its status, category and findings.
#include "cli_util.h"
#include "command.h"

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev selfcheck <op_dir> [--module-k K | --finalize] [--file REL] [--kb-root DIR]\n"
    "                [--snapshot FILE] [--python PATH|--no-probe]\n"
    "                [--backend sim|npu [--device N] [--timeout S] [--idle-timeout S]] [--json]\n\n"
    "Evaluates the verifier's stage4-check items S4-1..S4-15 or, with --module-k K, its\n"
    "module-check (pre-check MC-0, then MC-1, 2, 5, 6, 3, 4, 7 in the verifier's order) on the\n"
    "kernel file's parsed AST. S4-5 covers the mechanical rules 1-4 and the semantic rules:\n"
    "no value-dependent host operation, the kernel produces the output, no guard narrowing\n"
    "SPEC's range, the tests' data as DESIGN §8 and SPEC. S4-13 imports the delivered unit\n"
    "(test file + <op>_golden.py alone) with --python (default /usr/bin/python3; missing\n"
    "runtime packages are stubbed). S4-14/MC-7 run the KB usage check with the KB at\n"
    "--kb-root (else $OPDEV_KB_ROOT or the ancestor search); not_available only when the op\n"
    "dir has no KB_USAGE.json. The dynamic items S4-8/S4-9 (MC-3/MC-4) need a run: with\n"
    "--backend the file is run first as `opdev run` does (logs under reports/opdev/run/);\n"
    "without it they are blocked. --snapshot FILE (from `opdev plan --snapshot-out`) adds the\n"
    "L1 rule that only this round's file changed. Without --backend nothing is written.\n"
    "Exit status: 0 every item passed, 1 an item failed or is blocked, 2 usage error.";

int Run(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()
      ("op_dir", po::value<std::string>(), "the op dir (custom/<op>)")
      ("module-k", po::value<long long>(), "L1 Module K: module-check items")
      ("finalize", po::bool_switch(), "L1 finalize: stage4-check items plus the read-only rule")
      ("file", po::value<std::string>(), "check this op-dir-relative file instead of the mode's product")
      ("kb-root", po::value<std::string>(), "KB root (topology-map.json) for the KB usage item")
      ("snapshot", po::value<std::string>(), "read-only snapshot taken at the start of the round")
      ("python", po::value<std::string>()->default_value("/usr/bin/python3"),
       "interpreter for the delivery import probe")
      ("no-probe", po::bool_switch(), "skip the import probe (AST rule only)")
      ("backend", po::value<std::string>(), "run the file first on sim|npu for S4-8/9 (MC-3/4)")
      ("device", po::value<long long>(), "npu: device id (else the idle-chip search)")
      ("timeout", po::value<double>(), "npu: wall-clock limit in seconds")
      ("idle-timeout", po::value<double>(), "npu: seconds without output before a suspected hang")
      ("json", po::bool_switch(), "print the report as JSON");
  po::positional_options_description pos;
  pos.add("op_dir", 1);
  po::variables_map vm;
  int code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &code)) return code;
  bool json = vm["json"].as<bool>();
  if (!vm.count("op_dir") || vm["op_dir"].as<std::string>().empty())
    return FailUsage("selfcheck", "missing <op_dir>", json);
  boost::json::object request{{"op_dir", vm["op_dir"].as<std::string>()},
                              {"python", vm["python"].as<std::string>()}};
  for (const char* key : {"file", "kb-root", "snapshot", "backend"})
    if (vm.count(key)) request[RequestKey(key)] = vm[key].as<std::string>();
  for (const char* key : {"finalize", "no-probe"})
    if (vm[key].as<bool>()) request[RequestKey(key)] = true;
  if (vm.count("module-k")) request["module_k"] = vm["module-k"].as<long long>();
  if (vm.count("device")) request["device"] = vm["device"].as<long long>();
  for (const char* key : {"timeout", "idle-timeout"})
    if (vm.count(key)) request[RequestKey(key)] = vm[key].as<double>();
  return RunAndPrintStep("selfcheck", "selfcheck", request, json);
}

}  // namespace

OPDEV_COMMAND("selfcheck", "self-check of a kernel file (the verifier's stage4-check / module-check items)", Run);

}  // namespace opdev::cli
