// In-process execution of registered subcommands with captured output.
#include "command_bridge.h"

#include "cli_util.h"
#include "command.h"

#include <sstream>

namespace opdev::cabi {

int RunCommandCaptured(const std::vector<std::string>& argv, std::string* out, std::string* err) {
  std::ostringstream o, e;
  int code = cli::kExitUsage;
  auto it = argv.empty() ? cli::Registry().end() : cli::Registry().find(argv[0]);
  if (it == cli::Registry().end()) {
    e << "unknown command";
  } else {
    cli::ScopedStreams streams(o, e);
    code = it->second.run(argv);
  }
  *out = o.str();
  *err = e.str();
  return code;
}

}  // namespace opdev::cabi
