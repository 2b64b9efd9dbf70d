// libFuzzer target for pyfront and the API checker: any byte string is parsed; a parse
// failure must be a diagnostic with a position, a parsed module must print to source that
// parses back to an equal tree, and the checker must run on it without faults.
#include "opdev/api/checker.h"
#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string src(reinterpret_cast<const char*>(data), size);
  opdev::Diagnostics diags;
  auto mod = opdev::py::ParseModule(src, "fuzz.py", &diags);
  if (!mod.ok()) {
    if (diags.size() != 1 || diags.items()[0].line < 1 || diags.items()[0].column < 1) {
      std::fprintf(stderr, "parse failure without a positioned diagnostic\n");
      std::abort();
    }
    return 0;
  }
  std::string printed = opdev::py::PrintModule(*mod);
  opdev::Diagnostics again_diags;
  auto again = opdev::py::ParseModule(printed, "printed.py", &again_diags);
  if (!again.ok() || !opdev::py::AstEqual(*mod, *again)) {
    std::fprintf(stderr, "round trip failed:\n--- printed ---\n%s\n--- %s\n", printed.c_str(),
                 again.ok() ? "trees differ" : again_diags.ToText().c_str());
    std::abort();
  }
  opdev::Diagnostics lint = opdev::api::CheckModule(*mod, opdev::api::Catalog::Builtin());
  (void)lint;
  return 0;
}
