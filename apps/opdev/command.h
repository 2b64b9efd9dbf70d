// Subcommand registry of the opdev command. Each cmd_<name>.cpp registers one subcommand
// with OPDEV_COMMAND; main.cpp only dispatches. Exit codes: 0 clean/PASS, 1 findings/FAIL,
// 2 usage or I/O error.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace opdev::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUsage = 2;

struct Command {
  std::string name;
  std::string summary;
  // argv[0] is the subcommand name.
  std::function<int(const std::vector<std::string>& args)> run;
};

std::map<std::string, Command>& Registry();

struct Registrar {
  Registrar(std::string name, std::string summary,
            std::function<int(const std::vector<std::string>&)> run) {
    Registry()[name] = Command{name, std::move(summary), std::move(run)};
  }
};

}  // namespace opdev::cli

#define OPDEV_CONCAT_INNER(a, b) a##b
#define OPDEV_CONCAT(a, b) OPDEV_CONCAT_INNER(a, b)
#define OPDEV_COMMAND(name, summary, fn) \
  static ::opdev::cli::Registrar OPDEV_CONCAT(opdev_cmd_, __LINE__)(name, summary, fn)
