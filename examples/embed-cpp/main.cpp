// embed_opdev: checks an op dir through the C ABI and through the C++ library and prints
// both verdicts. Usage: embed_opdev <op_dir> <kb_root>. Exit 0 when both agree it is clean.
#include <opdev.h>

#include "opdev/contract/check.h"
#include "opdev/support/diagnostic.h"

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: embed_opdev <op_dir> <kb_root>\n");
    return 2;
  }
  std::printf("opdev %s (C ABI %d)\n", opdev_version(), opdev_abi_version());

  // Through the C ABI: a JSON request in, the `opdev check --json` document out.
  std::string options = std::string("{\"kb_root\": \"") + argv[2] + "\"}";
  opdev_context* ctx = opdev_context_new(options.c_str());
  if (!ctx) {
    std::fprintf(stderr, "context: %s\n", opdev_last_error(nullptr));
    return 2;
  }
  std::string request = std::string("{\"op_dir\": \"") + argv[1] + "\"}";
  char* doc = nullptr;
  int c_status = opdev_check(ctx, request.c_str(), &doc);
  std::printf("C ABI check: status %d\n", c_status);
  opdev_string_free(doc);
  opdev_context_free(ctx);

  // Through the C++ library.
  opdev::contract::LoadOptions load;
  load.kb_root = argv[2];
  opdev::Diagnostics diags;
  absl::Status st = opdev::contract::CheckOpDirPath(argv[1], load, {}, &diags);
  std::printf("C++ check: %s, %zu error(s), %zu warning(s)\n", st.ok() ? "ok" : "failed",
              diags.ErrorCount(), diags.WarningCount());
  return (c_status == OPDEV_OK && st.ok() && !diags.HasErrors()) ? 0 : 1;
}
