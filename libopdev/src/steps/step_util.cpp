// Helpers shared by the step implementations; see step_util.h.
#include "steps/step_util.h"

#include <cstdlib>

namespace opdev::steps {

void WriteDiagnosticsText(const Diagnostics& diags, std::ostream& os) {
  os << diags.ToText();
  os << diags.CountsText() << "\n";
}

std::string KbRootOf(const StepContext& ctx, RequestReader& rr) {
  std::string kb = rr.String("kb_root");
  return kb.empty() ? ctx.kb_root : kb;
}

std::string PythonOf(const StepContext& ctx, RequestReader& rr, const std::string& fallback,
                     std::string_view key) {
  std::string py = rr.String(key);
  if (!py.empty()) return py;
  return ctx.python.empty() ? fallback : ctx.python;
}

std::optional<Target> TargetOf(const StepContext& ctx, RequestReader& rr, std::string* error,
                               const std::string& message_prefix) {
  std::string name = rr.String("target");
  if (name.empty()) return ctx.target;
  auto t = ParseTarget(name);
  if (!t) *error = message_prefix + name;
  return t;
}

std::string ProtectedSharedRoot() {
  const char* shared = std::getenv("OPDEV_SHARED_DIR");
  return shared && *shared ? shared : "/work/shared";
}

const char* StatusWord(int status) {
  return status == kStatusOk ? "ok" : status == kStatusFindings ? "errors" : "input_error";
}

}  // namespace opdev::steps
