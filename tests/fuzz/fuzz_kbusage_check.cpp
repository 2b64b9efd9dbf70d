// libFuzzer target for the KB_USAGE checker: each input becomes the KB_USAGE.json of a copy of
// the real softmax op dir (frozen inputs from the shared fixtures, the stand-in kernel file of
// tests/data/kbusage) and is checked as the verifier would; any verdict is fine, a crash, a
// hang or a check that fails as a call on a readable file is not.
#include "opdev/kbusage/check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {
std::string g_op_dir;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fs::path root = fs::temp_directory_path() / ("opdev_fuzz_kbu_" + std::to_string(::getpid()));
  fs::path op = root / "custom" / "softmax";
  fs::remove_all(root);
  fs::create_directories(op);
  for (const auto& e : fs::directory_iterator(fs::path(OPDEV_SHARED_DIR) / "fixtures" / "softmax"))
    if (e.is_regular_file()) fs::copy_file(e.path(), op / e.path().filename());
  fs::copy_file(fs::path(OPDEV_SOURCE_DIR) / "tests/data/kbusage/softmax/test_softmax.py", op / "test_softmax.py");
  g_op_dir = op.string();
  std::atexit([] {
    std::error_code ec;
    fs::remove_all(fs::path(g_op_dir).parent_path().parent_path(), ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    std::ofstream out(g_op_dir + "/KB_USAGE.json", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  opdev::kbusage::CheckOptions o;
  o.kb_root = std::string(OPDEV_SHARED_DIR) + "/fixtures/kb";
  opdev::Diagnostics d;
  auto r = opdev::kbusage::CheckKbUsage(g_op_dir, o, &d);
  if (!r.ok()) {
    std::fprintf(stderr, "the checker failed as a call: %s\n", std::string(r.status().message()).c_str());
    std::abort();
  }
  (void)r->ToJson();
  return 0;
}
