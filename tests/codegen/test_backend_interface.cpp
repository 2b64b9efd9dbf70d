// The backend interface (codegen/backend.h, composer.h) must not change what the Vector
// backend writes: every Vector op dir generates exactly the bytes the generator wrote before
// the interface existed (sha256 of test_<op>.py recorded from that build), and the backend is
// chosen by the DESIGN §0 Module sections.
#include "codegen_test_util.h"

#include "opdev/codegen/generate.h"
#include "opdev/support/file_io.h"

#include <catch2/catch.hpp>

using namespace opdev;
namespace fs = std::filesystem;

TEST_CASE("backend interface: Vector files are byte-identical to the pre-interface generator") {
  const std::pair<const char*, const char*> kFiles[] = {
      {"examples/softmax", "85fc6f2e680e09cc994cea2176b63f2d790a6bf7013c564b735e0a48fe150fb9"},
      {"examples/silu", "bf027aa31222c2c230e094dd9e6cf9838a95fc3eccbf16d9e452cd88f6305f3c"},
      {"tests/data/codegen/add_relu", "4b359d7808847b0ba332b4f27e62ee3847326e15189616e51a3ecd80483c0f42"},
      {"tests/data/codegen/half_relu_exp", "8317bf8888f0eddc75e7f03e2a5f9dd0df19297ae8e1268f613f54a4c8ec07c1"},
      {"tests/data/codegen/layernorm", "be67f144847e3371b536b83aa5be527319d5ecee070fa71dd7b89c71e37fd081"},
      {"tests/data/codegen/rmsnorm", "bedcb7e2d90318e25469ec26e2d051af113dbee17e681ce8e8c27c0e523f1f1e"},
      {"tests/data/codegen/rmsnorm_long", "52cbe3da0afadad8983547cda81db528135fc8e44cf2535cf3234c9ee8a9df8b"},
      {"tests/data/codegen/row_softmax", "0a3cd252c9c0f2cc26a6a7f67c49fd2cc86456f26826637029bc52b8f7c6d6f7"},
      {"tests/data/codegen/softmax_long", "2f4e6b02a0c8426e094adb9caa127b547f4b8f4e9ca85b050e223417faec4628"},
      {"tests/data/codegen/swish", "5574e4825e1457e295bf44895dc739182e96fa35f75129ee5f12ac167ba98105"},
  };
  // Since then one intended change: `_make_input` draws standard normal values inside a SPEC
  // range that holds [-3, 3] (docs/device.md, the published softmax). With the old helper text
  // put back, every file is still the pre-interface bytes.
  const std::string kOldHelper =
      "    \"Seeded input of the SPEC dtype, uniform over the SPEC value range.\"\n"
      "    if dtype.is_floating_point:\n";
  const std::string kNewHelper =
      "    \"\"\"Seeded input of the SPEC dtype inside the SPEC value range: standard normal\n"
      "    when the range holds [-3, 3] (the range is the legal domain, not a distribution),\n"
      "    uniform over a narrower range.\"\"\"\n"
      "    if dtype.is_floating_point and low <= -3 and high >= 3:\n"
      "        data = torch.randn(shape, dtype=torch.float32).clamp_(low, high)\n"
      "    elif dtype.is_floating_point:\n";
  for (const auto& [rel, sha] : kFiles) {
    INFO(rel);
    fs::path dir = cgtest::CopyToTemp(fs::path(OPDEV_SOURCE_DIR) / rel, "bytes");
    auto r = codegen::GenerateKernelFile(dir.string(), {});
    INFO(r.diagnostics.ToText());
    REQUIRE(r.ok());
    std::string content = r.file->content;
    const size_t at = content.find(kNewHelper);
    REQUIRE(at != std::string::npos);
    content.replace(at, kNewHelper.size(), kOldHelper);
    CHECK(Sha256Hex(content) == sha);
    CHECK(r.file->content.find("(L0, pure Vector)") != std::string::npos);
    CHECK(r.file->content.find("get_platform_info().vector_core_num") != std::string::npos);
  }
}

TEST_CASE("backend interface: a DESIGN mixing Vector and Cube Modules is not an L0 file") {
  fs::path dir = cgtest::CopyExample("softmax", "mixed");
  REQUIRE(cgtest::MutateDesign(
              dir, "| `x`（primary，fp16 `[B,N]`） | `y`（fp16 `[B,N]`） | `section_vector` |",
              "| `x`（primary，fp16 `[B,N]`） | `y`（fp16 `[B,N]`） | `section_vector` |\n"
              "| Module 2 | matmul | `y` | `z` | `section_cube` |") > 0);
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  CHECK_FALSE(r.ok());
  CHECK(r.diagnostics.HasCode("CODEGEN-MODE-UNSUPPORTED"));
}

TEST_CASE("backend interface: a Module section that is neither vector nor cube is a finding") {
  fs::path dir = cgtest::CopyExample("softmax", "badsection");
  REQUIRE(cgtest::MutateDesign(dir, "| `y`（fp16 `[B,N]`） | `section_vector` |",
                               "| `y`（fp16 `[B,N]`） | `section_vf` |") > 0);
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  CHECK_FALSE(r.ok());
  CHECK(r.diagnostics.HasCode("CODEGEN-MODULE-SECTION"));
}
