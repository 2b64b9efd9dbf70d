// libFuzzer target for module_interfaces.yaml: any bytes are parsed; a rejected text must
// carry a YAML-SYNTAX (or field) diagnostic, and no input may crash or throw out of the
// loader.
#include "opdev/contract/module_interfaces.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  opdev::Diagnostics d;
  auto r = opdev::contract::ParseModuleInterfaces(text, "module_interfaces.yaml", &d);
  if (!r.ok() && !d.HasErrors()) {
    std::fprintf(stderr, "rejected without a diagnostic: %s\n", std::string(r.status().message()).c_str());
    std::abort();
  }
  if (r.ok()) {
    for (const auto& m : r->modules) (void)m.FieldLine("golden_steps");
    (void)r->FindModule(1);
    for (const auto& w : r->final_outputs) (void)w.SourceModule();
  }
  return 0;
}
