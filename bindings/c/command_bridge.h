// Runs an opdev subcommand in-process with its output captured (thread-local streams), so
// the C ABI returns exactly the document the command prints with --json.
#pragma once

#include <string>
#include <vector>

namespace opdev::cabi {

// argv[0] is the subcommand name. Returns the command's exit code (2 for an unknown name).
int RunCommandCaptured(const std::vector<std::string>& argv, std::string* out, std::string* err);

}  // namespace opdev::cabi
