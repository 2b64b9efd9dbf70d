// Helpers shared by the subcommand files: option parsing with Boost.Program_options and
// uniform output of diagnostics as text or JSON.
#pragma once

#include "opdev/support/diagnostic.h"

#include <boost/json/value.hpp>
#include <boost/program_options.hpp>

#include <iostream>
#include <string>
#include <vector>

namespace opdev::cli {

namespace po = boost::program_options;

// Parses args (args[0] = subcommand name). Prints help and returns false with exit code
// in *exit_code when --help is given or parsing fails (message names the bad option).
bool ParseArgs(const std::vector<std::string>& args, const std::string& usage_line,
               po::options_description& opts, po::positional_options_description& pos,
               po::variables_map& vm, int* exit_code);

// The streams a command writes to: std::cout/std::cerr, or the buffers of a ScopedStreams
// on this thread (the C ABI runs commands in-process and captures their output this way).
std::ostream& Out();
std::ostream& Err();

class ScopedStreams {
 public:
  ScopedStreams(std::ostream& out, std::ostream& err);
  ~ScopedStreams();
  ScopedStreams(const ScopedStreams&) = delete;
  ScopedStreams& operator=(const ScopedStreams&) = delete;

 private:
  std::ostream* prev_out_;
  std::ostream* prev_err_;
};

// Prints a JSON document (pretty) to stdout.
void PrintJson(const boost::json::value& v);

// Prints diagnostics compiler-style to stderr followed by a one-line count summary.
void PrintDiagnosticsText(const Diagnostics& diags, std::ostream& os = Err());

// Reports an error that is the call's failure (usage/I/O): "opdev <cmd>: <msg>" to stderr,
// or {"error": msg} to stdout under --json. Returns kExitUsage.
int FailUsage(const std::string& cmd, const std::string& message, bool json);

}  // namespace opdev::cli
