// Helpers shared by the step implementations (not public): the text rendering of
// diagnostics the commands print, the context fallbacks a request may omit (KB root,
// interpreter, target) and the request fields several steps take.
#pragma once

#include "opdev/steps/step.h"
#include "opdev/support/diagnostic.h"

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

// The directory no step writes into: $OPDEV_SHARED_DIR, default /work/shared.
std::string ProtectedSharedRoot();

// "ok" / "errors" / "input_error" for status 0 / 1 / 2.
const char* StatusWord(int status);

}  // namespace opdev::steps
