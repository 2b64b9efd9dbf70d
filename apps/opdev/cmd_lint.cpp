// `opdev lint`: parse Python kernel files with pyfront and check every pl.* / pl.system.* /
// vf.* reference against the PyPTO-Pro API catalog; print each unresolved or illegal call
// with file, line and column. `--show NAME` prints one catalog entry instead. The work is
// the library's "lint" step (libopdev/src/steps/lint_step.cpp).
#include "cli_util.h"
#include "command.h"

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev lint FILE... [--json] [--allow-warnings] [--no-context] [--no-syntax]\n"
    "           [--catalog PATH]\n"
    "opdev lint --show NAME [--json]\n\n"
    "Parses each Python file (Python 3.11 grammar) and checks every pl.*, pl.system.* and\n"
    "vf.* call and reference against the PyPTO-Pro API catalog: unknown names, legacy\n"
    "spellings, arity, unknown keywords, operands passed by keyword, MTE ops inside a\n"
    "@pl.vector_function, calls illegal in their section, and Python syntax a kernel body\n"
    "cannot use. Syntax errors are reported as PY-* findings.\n\n"
    "Exit status: 0 clean, 1 findings (warnings count unless --allow-warnings),\n"
    "2 usage error or unreadable file.\n"
    "The catalog is the one built into opdev; --catalog PATH (or the environment variable\n"
    "OPDEV_API_CATALOG) uses another JSON file of the same schema.";

int RunLint(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("file", po::value<std::vector<std::string>>(), "Python files to check")(
      "json", po::bool_switch(), "print a JSON report on stdout")(
      "allow-warnings", po::bool_switch(), "exit 0 when there are only warnings")(
      "no-context", po::bool_switch(), "skip section / VF legality checks")(
      "no-syntax", po::bool_switch(), "skip the kernel-body syntax check")(
      "catalog", po::value<std::string>()->default_value(""), "API catalog JSON to use")(
      "show", po::value<std::string>()->default_value(""),
      "print the catalog entry of a function, enum or legacy name");
  po::positional_options_description pos;
  pos.add("file", -1);
  po::variables_map vm;
  int exit_code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &exit_code)) return exit_code;
  bool json = vm["json"].as<bool>();

  boost::json::object request{{"allow_warnings", vm["allow-warnings"].as<bool>()},
                              {"no_context", vm["no-context"].as<bool>()},
                              {"no_syntax", vm["no-syntax"].as<bool>()},
                              {"catalog", vm["catalog"].as<std::string>()},
                              {"show", vm["show"].as<std::string>()}};
  if (vm.count("file")) {
    boost::json::array files;
    for (const auto& f : vm["file"].as<std::vector<std::string>>()) files.emplace_back(f);
    request["file"] = std::move(files);
  }
  return RunAndPrintStep("lint", "lint", request, json);
}

}  // namespace

OPDEV_COMMAND("lint", "check pl.*/vf.* calls of Python kernel files against the API catalog",
              RunLint);

}  // namespace opdev::cli
