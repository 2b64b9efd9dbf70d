// Option parsing and output helpers shared by opdev's subcommands.
#include "cli_util.h"

#include "command.h"
#include "opdev/support/json_print.h"

namespace opdev::cli {

namespace {
thread_local std::ostream* t_out = nullptr;
thread_local std::ostream* t_err = nullptr;
}  // namespace

std::map<std::string, Command>& Registry() {
  static std::map<std::string, Command> registry;
  return registry;
}

std::ostream& Out() { return t_out ? *t_out : std::cout; }
std::ostream& Err() { return t_err ? *t_err : std::cerr; }

ScopedStreams::ScopedStreams(std::ostream& out, std::ostream& err)
    : prev_out_(t_out), prev_err_(t_err) {
  t_out = &out;
  t_err = &err;
}

ScopedStreams::~ScopedStreams() {
  t_out = prev_out_;
  t_err = prev_err_;
}

bool ParseArgs(const std::vector<std::string>& args, const std::string& usage_line,
               po::options_description& opts, po::positional_options_description& pos,
               po::variables_map& vm, int* exit_code) {
  opts.add_options()("help,h", "show this help");
  std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    po::store(po::command_line_parser(rest).options(opts).positional(pos).run(), vm);
    if (vm.count("help")) {
      Out() << "usage: " << usage_line << "\n\n" << opts << "\n";
      *exit_code = kExitOk;
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    Err() << "opdev " << args[0] << ": " << e.what() << "\nusage: " << usage_line
              << "\n(see 'opdev " << args[0] << " --help')\n";
    *exit_code = kExitUsage;
    return false;
  }
  return true;
}

void PrintJson(const boost::json::value& v) { Out() << PrettyJson(v); }

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
    Err() << "opdev " << cmd << ": " << message << "\n";
  }
  return kExitUsage;
}

}  // namespace opdev::cli
