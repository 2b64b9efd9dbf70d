// `opdev plan`: the plan of one Stage 4 round from the dispatch (mode, product, wrapper,
// golden, starting point, run command, prerequisites, read-only set), and the read-only
// guard (snapshot at plan time, check at the end of the round).
#include "cli_util.h"
#include "command.h"

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev plan <op_dir> [--module-k K | --finalize [--retry] [--cleanup-failed]]\n"
    "           [--dispatch JSON|@FILE] [--snapshot-out FILE] [--json]\n"
    "opdev plan <op_dir> --snapshot-check FILE [--json]\n\n"
    "Plans one Stage 4 round from the orchestrator's dispatch: no flag = L0, --module-k K =\n"
    "L1 Module K, --finalize = L1 finalize (--retry: a verifier retry of it). Prints the\n"
    "mode, the one file to produce, wrapper and golden names, the starting point, the run\n"
    "command exactly as the pipeline runs it, prerequisites and the read-only set.\n"
    "--snapshot-out FILE also records the content hash of every read-only file; at the end\n"
    "of the round --snapshot-check FILE reports every read-only file that changed.\n"
    "Exit status: 0 plan without errors, 1 invalid dispatch / missing prerequisites /\n"
    "read-only files changed, 2 usage error or unusable op dir.";

int RunPlan(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("op-dir", po::value<std::string>(), "the op dir (custom/<op>/)")(
      "module-k", po::value<std::string>(), "dispatch: develop L1 Module K (positive integer)")(
      "finalize", po::bool_switch(), "dispatch: L1 finalize")(
      "retry", po::bool_switch(), "with --finalize: a verifier retry of the finalize")(
      "cleanup-failed", po::bool_switch(),
      "with --finalize: the orchestrator's cleanup failed (default: inferred from "
      "test_<op>.py)")("dispatch", po::value<std::string>(),
                       "the dispatch as a JSON object {module_k, finalize, retry_of_verifier, "
                       "cleanup_succeeded}, or @FILE")(
      "snapshot-out", po::value<std::string>(), "write the read-only guard snapshot to FILE")(
      "snapshot-check", po::value<std::string>(),
      "compare the read-only files with the snapshot in FILE and report changes")(
      "json", po::bool_switch(), "print a JSON report on stdout");
  po::positional_options_description pos;
  pos.add("op-dir", 1);
  po::variables_map vm;
  int exit_code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &exit_code)) return exit_code;
  bool json = vm["json"].as<bool>();
  boost::json::object request;
  if (vm.count("snapshot-check")) {
    request["snapshot_check"] = vm["snapshot-check"].as<std::string>();
    return RunAndPrintStep("plan", "plan", request, json);
  }
  if (!vm.count("op-dir")) return FailUsage("plan", "missing <op_dir> (see --help)", json);
  request["op_dir"] = vm["op-dir"].as<std::string>();
  if (vm.count("module-k")) request["module_k"] = vm["module-k"].as<std::string>();
  if (vm["finalize"].as<bool>()) request["finalize"] = true;
  if (vm["retry"].as<bool>()) request["retry"] = true;
  if (vm["cleanup-failed"].as<bool>()) request["cleanup_failed"] = true;
  if (vm.count("dispatch")) request["dispatch"] = vm["dispatch"].as<std::string>();
  if (vm.count("snapshot-out")) request["snapshot_out"] = vm["snapshot-out"].as<std::string>();
  return RunAndPrintStep("plan", "plan", request, json);
}

}  // namespace

OPDEV_COMMAND("plan", "plan one Stage 4 round from the dispatch; guard the read-only set", RunPlan);

}  // namespace opdev::cli
