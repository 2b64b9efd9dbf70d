// `opdev usage generate|check`: write every class's KB_USAGE.json for a round, or check the
// usage files the way the verifier does.
#include "cli_util.h"
#include "command.h"

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev usage generate <op_dir> [--kb-root DIR] [--module-k K | --finalize [--retry]]\n"
    "                     [--module-checked 1,2,..] [--deviation [CLASS:]REF#REQ=WHY]...\n"
    "                     [--strict-locations] [--dry-run] [--json]\n"
    "opdev usage check <op_dir> [--kb-root DIR] [--mode L0|L1-module|L1-finalize]\n"
    "                  [--module-k K] [--module-checked 1,2,..] [--json]\n\n"
    "generate: writes each class's KB_USAGE.json for the round the dispatch names (no flag =\n"
    "L0, --module-k K = L1 Module K staged records, --finalize = final records plus the\n"
    "module-checked staged ones). Records point at symbols resolved from each requirement's\n"
    "planned_location and checked to exist in the produced file. Nothing is written when an\n"
    "error is found; writes are atomic. Usage is wiped only on first entry or when the\n"
    "upstream artifacts changed (hash kept in .opdev_kb_usage_state.json).\n"
    "check: the verifier's view of every class's KB_USAGE.json (category kb_usage_invalid).\n"
    "Default mode: L0 for a non-fusion op, else L1-module with --module-k, else L1-finalize.\n"
    "KB root: --kb-root, else $OPDEV_KB_ROOT, else found by walking up from the op dir.\n"
    "Exit status: 0 clean, 1 findings, 2 usage error or unusable inputs.";

int RunUsage(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("action", po::value<std::string>(), "generate or check")(
      "op-dir", po::value<std::string>(), "the op dir (custom/<op>/)")(
      "kb-root", po::value<std::string>()->default_value(""), "KB root holding topology-map.json")(
      "module-k", po::value<std::string>(), "L1 Module K (generate: the dispatch; check: current Module)")(
      "finalize", po::bool_switch(), "generate: L1 finalize dispatch")(
      "retry", po::bool_switch(), "generate: a verifier retry of the finalize")(
      "mode", po::value<std::string>(), "check: L0, L1-module or L1-finalize")(
      "module-checked", po::value<std::string>(),
      "finalize: comma-separated Modules whose staged files passed module-check (default: all)")(
      "deviation", po::value<std::vector<std::string>>()->composing(),
      "generate: [CLASS:]REFERENCE#REQ_ID=JUSTIFICATION for a deviation DESIGN froze")(
      "strict-locations", po::bool_switch(),
      "generate: a planned_location without a resolvable file/symbol is an error")(
      "dry-run", po::bool_switch(), "generate: compute and report, write nothing")(
      "print", po::bool_switch(), "generate: also print the generated files")(
      "json", po::bool_switch(), "print a JSON report on stdout");
  po::positional_options_description pos;
  pos.add("action", 1).add("op-dir", 1);
  po::variables_map vm;
  int exit_code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &exit_code)) return exit_code;
  bool json = vm["json"].as<bool>();
  if (!vm.count("action")) return FailUsage("usage", "missing action: generate or check", json);
  std::string action = vm["action"].as<std::string>();
  if (action != "generate" && action != "check")
    return FailUsage("usage", "unknown action '" + action + "' (expected generate or check)", json);
  if (!vm.count("op-dir")) return FailUsage("usage", "missing <op_dir> (see --help)", json);
  boost::json::object request{{"op_dir", vm["op-dir"].as<std::string>()},
                              {"kb_root", vm["kb-root"].as<std::string>()}};
  for (const char* key : {"module-k", "mode", "module-checked"})
    if (vm.count(key)) request[RequestKey(key)] = vm[key].as<std::string>();
  for (const char* key : {"finalize", "retry", "strict-locations", "dry-run", "print"})
    if (vm[key].as<bool>()) request[RequestKey(key)] = true;
  if (vm.count("deviation")) {
    boost::json::array d;
    for (const auto& s : vm["deviation"].as<std::vector<std::string>>()) d.emplace_back(s);
    request["deviation"] = std::move(d);
  }
  return RunAndPrintStep("usage", action == "generate" ? "usage-generate" : "usage-check", request, json);
}

}  // namespace

OPDEV_COMMAND("usage", "generate or check KB_USAGE.json (usage generate|check <op_dir>)", RunUsage);

}  // namespace opdev::cli
