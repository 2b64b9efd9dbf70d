// `opdev check`: validate the frozen contracts of an op dir (DESIGN.md, DESIGN_BINDINGS.json,
// KB_SELECTION.json, module_interfaces.yaml, the KB's topology-map.json and selected files)
// and print every finding with file, line, section, rule and failure category.
#include "cli_util.h"
#include "command.h"

#include "opdev/contract/check.h"

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev check <op_dir> [--kb-root DIR] [--target a5|a3] [--json]\n\n"
    "Checks the frozen Stage 1-3 contracts of an op dir before Stage 4 starts. Reads only;\n"
    "never writes. Exit status: 0 no errors (warnings allowed), 1 contract errors,\n"
    "2 usage error or unreadable input (missing op dir/KB root, non-UTF-8, over 16 MiB,\n"
    "a directory or an escaping symlink where a contract file should be).\n\n"
    "KB root, first match wins: --kb-root DIR; the environment variable OPDEV_KB_ROOT;\n"
    "walking up from the op dir, the first ancestor A with A/../shared/fixtures/kb/\n"
    "topology-map.json or A/kb/topology-map.json.";

int RunCheck(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("op-dir", po::value<std::string>(), "the op dir (custom/<op>/)")(
      "kb-root", po::value<std::string>()->default_value(""),
      "KB root holding topology-map.json and the selected patterns/constraints")(
      "target", po::value<std::string>()->default_value("a5"),
      "hardware target for capacities: a5 or a3")("json", po::bool_switch(),
                                                  "print a JSON report on stdout")(
      "list-rules", po::bool_switch(), "print every rule code with its category and exit");
  po::positional_options_description pos;
  pos.add("op-dir", 1);
  po::variables_map vm;
  int exit_code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &exit_code)) return exit_code;
  bool json = vm["json"].as<bool>();

  if (vm["list-rules"].as<bool>()) {
    if (json) {
      boost::json::array a;
      for (const auto& r : contract::ContractRules())
        a.push_back(boost::json::object{{"code", std::string(r.code)},
                                        {"category", std::string(r.category)},
                                        {"summary", std::string(r.summary)}});
      PrintJson(a);
    } else {
      for (const auto& r : contract::ContractRules())
        Out() << r.code << "  (" << r.category << ")  " << r.summary << "\n";
    }
    return kExitOk;
  }
  if (!vm.count("op-dir")) return FailUsage("check", "missing <op_dir> (see --help)", json);
  auto target = ParseTarget(vm["target"].as<std::string>());
  if (!target)
    return FailUsage("check", "unknown --target '" + vm["target"].as<std::string>() +
                                  "' (expected a5 or a3)", json);

  boost::json::object request{{"op_dir", vm["op-dir"].as<std::string>()},
                              {"kb_root", vm["kb-root"].as<std::string>()},
                              {"target", std::string(TargetName(*target))}};
  return RunAndPrintStep("check", "check", request, json);
}

}  // namespace

OPDEV_COMMAND("check", "validate the frozen contracts of an op dir (DESIGN, bindings, KB selection)",
              RunCheck);

}  // namespace opdev::cli
