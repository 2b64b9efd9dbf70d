// Option parsing and output helpers shared by opdev's subcommands.
#include "cli_util.h"

#include "command.h"
#include "opdev/support/json_print.h"

namespace opdev::cli {

bool ParseArgs(const std::vector<std::string>& args, const std::string& usage_line,
               po::options_description& opts, po::positional_options_description& pos,
               po::variables_map& vm, int* exit_code) {
  opts.add_options()("help,h", "show this help");
  std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    po::store(po::command_line_parser(rest).options(opts).positional(pos).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: " << usage_line << "\n\n" << opts << "\n";
      *exit_code = kExitOk;
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "opdev " << args[0] << ": " << e.what() << "\nusage: " << usage_line
              << "\n(see 'opdev " << args[0] << " --help')\n";
    *exit_code = kExitUsage;
    return false;
  }
  return true;
}

void PrintJson(const boost::json::value& v) { std::cout << PrettyJson(v); }

void PrintDiagnosticsText(const Diagnostics& diags, std::ostream& os) {
  os << diags.ToText();
  os << diags.ErrorCount() << " error(s), " << diags.WarningCount() << " warning(s)\n";
}

int FailUsage(const std::string& cmd, const std::string& message, bool json) {
  if (json) {
    boost::json::object o;
    o["error"] = message;
    PrintJson(o);
  } else {
    std::cerr << "opdev " << cmd << ": " << message << "\n";
  }
  return kExitUsage;
}

}  // namespace opdev::cli
