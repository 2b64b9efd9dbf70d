// Option parsing and output helpers shared by opdev's subcommands.
#include "cli_util.h"

#include "command.h"
#include "opdev/support/json_print.h"

#include <unistd.h>

namespace opdev::cli {

std::map<std::string, Command>& Registry() {
  static std::map<std::string, Command> registry;
  return registry;
}

std::ostream& Out() { return std::cout; }
std::ostream& Err() { return std::cerr; }

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

std::string RequestKey(const std::string& option) {
  std::string key = option;
  for (char& c : key)
    if (c == '-') c = '_';
  return key;
}

int RunAndPrintStep(const std::string& cmd, const std::string& step,
                    const boost::json::object& request, bool json, const char* log_prefix) {
  steps::StepContext ctx;
  if (log_prefix && !json && ::isatty(2)) {
    std::string prefix = log_prefix;
    ctx.log = [prefix](int, const std::string& line) { Err() << prefix << line << "\n"; };
  }
  steps::StepResult r = steps::RunStep(step, ctx, request);
  if (r.call_failed) return FailUsage(cmd, r.ErrorMessage(), json);
  if (json) {
    PrintJson(r.document);
  } else {
    Out() << r.text;
    Err() << r.text_err;
  }
  return r.status;
}

}  // namespace opdev::cli
