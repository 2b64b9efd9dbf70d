// Helpers shared by the subcommand files: option parsing with Boost.Program_options,
// printing a library step's result (opdev/steps/step.h) as text or JSON, and uniform output
// of diagnostics.
#pragma once

#include "opdev/steps/step.h"
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

// The streams a command writes to (std::cout, std::cerr).
std::ostream& Out();
std::ostream& Err();

// Prints a JSON document (pretty) to stdout.
void PrintJson(const boost::json::value& v);

// Reports an error that is the call's failure (usage/I/O): "opdev <cmd>: <msg>" to stderr,
// or {"error": msg} to stdout under --json. Returns kExitUsage.
int FailUsage(const std::string& cmd, const std::string& message, bool json);

// The request key of an option: its name with '-' written '_' ("module-k" -> "module_k").
std::string RequestKey(const std::string& option);

// Runs a library step and prints its result the way every command does: the document under
// --json, else its text (stdout) and text_err (stderr); a failed call goes to FailUsage.
// `log_prefix` non-null: progress lines go to stderr with that prefix when not --json and
// stderr is a terminal. Returns the step's status (the exit code).
int RunAndPrintStep(const std::string& cmd, const std::string& step,
                    const boost::json::object& request, bool json,
                    const char* log_prefix = nullptr);

}  // namespace opdev::cli
