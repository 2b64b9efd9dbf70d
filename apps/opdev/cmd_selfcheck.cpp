// `opdev selfcheck`: the static items of the verifier's stage4-check (or module-check with
// --module-k) on the kernel file of an op dir, each with its status, category and findings.
#include "cli_util.h"
#include "command.h"

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev selfcheck <op_dir> [--module-k K | --finalize] [--file REL] [--kb-root DIR]\n"
    "                [--snapshot FILE] [--python PATH|--no-probe] [--json]\n\n"
    "Runs every static item of the verifier's stage4-check (S4-1..7, S4-10..15) or, with\n"
    "--module-k K, of its module-check (MC-1, 2, 5, 6, 7) on the kernel file, on its parsed\n"
    "AST. S4-13 imports the delivered unit (test file + <op>_golden.py alone) with --python\n"
    "(default /usr/bin/python3; missing runtime packages are stubbed). KB usage (S4-14/MC-7)\n"
    "is checked with the KB at --kb-root. --snapshot FILE (from `opdev plan --snapshot-out`)\n"
    "adds the L1 rule that only this round's file changed. Never writes anything.\n"
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
  for (const char* key : {"file", "kb-root", "snapshot"})
    if (vm.count(key)) request[RequestKey(key)] = vm[key].as<std::string>();
  for (const char* key : {"finalize", "no-probe"})
    if (vm[key].as<bool>()) request[RequestKey(key)] = true;
  if (vm.count("module-k")) request["module_k"] = vm["module-k"].as<long long>();
  return RunAndPrintStep("selfcheck", "selfcheck", request, json);
}

}  // namespace

OPDEV_COMMAND("selfcheck", "static self-check of a kernel file (verifier stage4/module-check items)", Run);

}  // namespace opdev::cli
