// The steps of a Stage 4 round as uniform library calls: a JSON request in, a JSON document
// (the one `opdev <step> --json` prints), a status (the command's exit code) and a text
// rendering out. The command, the C ABI and the Python binding all go through these, so
// every front-end returns byte-identical documents.
//
//   opdev::steps::StepContext ctx;              // target a5, each step's default python
//   boost::json::object req{{"op_dir", "examples/softmax"}};
//   opdev::steps::StepResult r = opdev::steps::RunStep("check", ctx, req);
//   // r.status: 0 clean, 1 findings, 2 input error; r.call_failed: the call itself failed
//   // and r.document is {"error": ...}
//
// Requests use the command's option names with '-' written '_' ("--module-k 2" is
// {"module_k": 2}); docs/embedding.md lists every step's request keys. The step validates
// its request (the command only turns argv into a request) and its error messages are the
// command's.
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
  // Interpreter when the request names none: the golden's and the import probe's, and the
  // NPU run's. Empty: each step's own default (/usr/bin/python3; the NPU run: `python`).
  std::string python;
  // Progress/log lines (level 0 info, 1 warning, 2 error); may be empty.
  std::function<void(int level, const std::string& message)> log;
};

struct StepResult {
  int status = kStatusOk;
  boost::json::value document;  // what --json prints
  std::string text;             // what the command prints without --json (stdout)
  std::string text_err;         // what the command prints without --json (stderr)
  // The call failed as a call (bad request, unusable input): status 2, document
  // {"error": message}; the command prints "opdev <cmd>: <message>" (or the document).
  bool call_failed = false;

  static StepResult Error(std::string message);
  std::string ErrorMessage() const;  // document["error"] or ""
};

// The step names, in the order of a round: check, plan, gen, lint, budget, selfcheck, sim,
// run, compare, usage-generate, usage-check, stage.
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
  std::optional<double> Number(std::string_view key);
  // An integer or its text (the command passes option text through unparsed, so both
  // front-ends report a bad value the same way).
  std::optional<std::string> IntOrString(std::string_view key);
  bool Bool(std::string_view key, bool fallback = false);
  std::vector<std::string> Strings(std::string_view key);
  std::vector<double> Numbers(std::string_view key);
  bool Ok() const { return error.empty(); }
};

}  // namespace opdev::steps
