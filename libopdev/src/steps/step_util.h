// Helpers shared by the step implementations (not public): the text rendering of
// diagnostics the commands print, the context fallbacks a request may omit (KB root,
// interpreter, target) and the request fields several steps take.
#pragma once

#include "opdev/steps/step.h"
#include "opdev/support/diagnostic.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace opdev::steps {

// Diagnostics compiler-style followed by "N error(s), M warning(s)" (what every command
// prints for its findings).
void WriteDiagnosticsText(const Diagnostics& diags, std::ostream& os);

// "kb_root" of the request, else the context's (both may be empty: the default search).
std::string KbRootOf(const StepContext& ctx, RequestReader& rr);

// "python" of the request, else the context's, else `fallback`.
std::string PythonOf(const StepContext& ctx, RequestReader& rr, const std::string& fallback,
                     std::string_view key = "python");

// "target" of the request ("a5"/"a3"), else the context's. nullopt with *error set when the
// name is unknown; `message_prefix` starts the message (the command's wording).
std::optional<Target> TargetOf(const StepContext& ctx, RequestReader& rr, std::string* error,
                               const std::string& message_prefix = "unknown target ");

// Reads the launch fields run and stage share ("backend", "device", "npu_smi", "timeout",
// "idle_timeout") into the options `o` (RunOpOptions or StageOptions) and checks them.
// Returns the command's message for a bad value, or "" (a field of the wrong JSON type is
// left in rr.error).
template <typename Options>
std::string ReadLaunchFields(RequestReader& rr, Options& o) {
  if (std::string b = rr.String("backend"); !b.empty()) o.backend = b;
  std::optional<std::int64_t> device = rr.Int("device");
  if (std::string s = rr.String("npu_smi"); !s.empty()) o.npu_smi = s;
  if (auto t = rr.Number("timeout")) o.timeout_seconds = *t;
  if (auto t = rr.Number("idle_timeout")) o.idle_timeout_seconds = *t;
  if (!rr.Ok()) return "";
  if (o.backend != "sim" && o.backend != "npu") return "--backend must be sim or npu";
  if (device) {
    if (*device < 0) return "--device must be >= 0";
    o.device = static_cast<int>(*device);
  }
  if (!(o.timeout_seconds > 0) || !(o.idle_timeout_seconds > 0)) return "timeouts must be positive";
  return "";
}

// The directory no step writes into: $OPDEV_SHARED_DIR, default /work/shared.
std::string ProtectedSharedRoot();

// "ok" / "errors" / "input_error" for status 0 / 1 / 2.
const char* StatusWord(int status);

}  // namespace opdev::steps
