// libFuzzer target for the JSON contract loaders: the same bytes go to the DESIGN_BINDINGS,
// KB_SELECTION (flat and split) and topology-map loaders. A rejected text must come with a
// positioned diagnostic; an accepted one with a model; nothing may crash or recurse without
// bound (the nesting limit).
#include "opdev/contract/design_bindings.h"
#include "opdev/contract/kb_selection.h"
#include "opdev/contract/topology_map.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
void RequirePositioned(const absl::Status& st, const opdev::Diagnostics& d, const char* what) {
  if (st.ok()) return;
  for (const auto& x : d.items())
    if (x.severity == opdev::Severity::kError && x.line >= 1) return;
  std::fprintf(stderr, "%s: rejected without a positioned error diagnostic: %s\n", what,
               std::string(st.message()).c_str());
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  {
    opdev::Diagnostics d;
    auto r = opdev::contract::ParseDesignBindings(text, "DESIGN_BINDINGS.json", &d);
    RequirePositioned(r.status(), d, "DESIGN_BINDINGS");
    if (r.ok()) (void)r->ActiveRequirements();
  }
  for (const char* cls : {".", "vec"}) {
    opdev::Diagnostics d;
    auto r = opdev::contract::ParseKbSelection(text, "KB_SELECTION.json", cls, &d);
    RequirePositioned(r.status(), d, "KB_SELECTION");
  }
  {
    opdev::Diagnostics d;
    auto r = opdev::contract::ParseTopologyMap(text, "topology-map.json", &d);
    RequirePositioned(r.status(), d, "topology-map");
  }
  return 0;
}
