// The steps of a Stage 4 round as uniform library calls: a JSON request in, a JSON document
// (the one `opdev <step> --json` prints), a status (the command's exit code) and a text
// rendering out. The command, the C ABI and the Python binding all go through these, so
// every front-end returns byte-identical documents.
//
//   opdev::steps::StepContext ctx;              // target a5, python /usr/bin/python3
//   boost::json::object req{{"op_dir", "examples/softmax"}};
//   opdev::steps::StepResult r = opdev::steps::RunStep("check", ctx, req);
//   // r.status: 0 clean, 1 findings, 2 call failed (r.document = {"error": ...})
#pragma once

#include "opdev/support/target.h"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::steps {

inline constexpr int kStatusOk = 0;
inline constexpr int kStatusFindings = 1;
inline constexpr int kStatusError = 2;

struct StepContext {
  Target target = Target::kA5;
  std::string kb_root;                 // empty: the step's default search
  std::string python = "/usr/bin/python3";
  // Progress/log lines (level 0 info, 1 warning, 2 error); may be empty.
  std::function<void(int level, const std::string& message)> log;
};

struct StepResult {
  int status = kStatusOk;
  boost::json::value document;  // what --json prints
  std::string text;             // what the command prints without --json (stdout)
  std::string text_err;         // what the command prints without --json (stderr)

  static StepResult Error(std::string message);
};

// The step names: check, plan, gen, budget, run, compare, usage-generate, usage-check,
// selfcheck, stage, sim, lint.
std::vector<std::string> StepNames();

// Runs one step. Never throws: an exception inside a step becomes status 2 with
// {"error": "internal error: ..."}. An unknown step name is status 2.
StepResult RunStep(std::string_view name, const StepContext& ctx,
                   const boost::json::object& request);

// Request helpers shared by the step implementations: typed field access with clear
// errors ("request field 'module_k' must be an integer").
struct RequestReader {
  explicit RequestReader(const boost::json::object& r) : request(r) {}
  const boost::json::object& request;
  std::string error;  // first problem found

  std::string String(std::string_view key, bool required = false);
  std::optional<std::int64_t> Int(std::string_view key);
  bool Bool(std::string_view key, bool fallback = false);
  std::vector<std::string> Strings(std::string_view key);
  bool Ok() const { return error.empty(); }
};

}  // namespace opdev::steps
