// opdev: Stage 4 of PyPTO-Pro operator development. This file only dispatches to the
// subcommands registered in cmd_*.cpp.
#include "command.h"

#include "opdev/version.h"

#include <cstdio>
#include <exception>
#include <iostream>

namespace {

void PrintUsage(std::ostream& os) {
  os << "usage: opdev <command> [options]\n\n"
        "Stage 4 of PyPTO-Pro operator development: check the frozen contract, plan the\n"
        "round, generate, budget, run (NPU or CPU simulator), compare, record KB usage.\n\n"
        "commands:\n";
  for (const auto& [name, cmd] : opdev::cli::Registry()) {
    std::string pad(name.size() < 12 ? 12 - name.size() : 1, ' ');
    os << "  " << name << pad << cmd.summary << "\n";
  }
  os << "\n'opdev <command> --help' shows a command's options. Exit codes: 0 clean, 1 findings,\n"
        "2 usage or input error.\n";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace opdev::cli;
  if (argc < 2) {
    PrintUsage(std::cerr);
    return kExitUsage;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    PrintUsage(std::cout);
    return kExitOk;
  }
  if (name == "--version" || name == "version") {
    // --version [--json]: the library version (also opdev_version() of the C ABI and
    // opdev.__version__ in Python) and the C ABI number.
    bool json = false;
    for (int i = 2; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--json") {
        json = true;
      } else if (a == "--help" || a == "-h") {
        std::cout << "usage: opdev --version [--json]\n\nPrints the library version; with --json "
                     "{\"abi_version\":N,\"version\":\"X.Y.Z\"}.\n";
        return kExitOk;
      } else {
        std::cerr << "opdev --version: unknown option '" << a << "'\n";
        return kExitUsage;
      }
    }
    if (json)
      std::cout << "{\"abi_version\":" << opdev::kAbiVersion << ",\"version\":\"" << opdev::VersionString() << "\"}\n";
    else
      std::cout << "opdev " << opdev::VersionString() << "\n";
    return kExitOk;
  }
  auto it = Registry().find(name);
  if (it == Registry().end()) {
    std::cerr << "opdev: unknown command '" << name << "'\n\n";
    PrintUsage(std::cerr);
    return kExitUsage;
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return it->second.run(args);
  } catch (const std::exception& e) {
    std::cerr << "opdev " << name << ": internal error: " << e.what() << "\n";
    return kExitUsage;
  }
}
