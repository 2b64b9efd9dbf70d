// Helpers of the planner tests: building op dirs under a temporary workspace.
#pragma once

#include "workspace.h"

#include <filesystem>
#include <string>

namespace plan_test {
namespace fs = std::filesystem;

inline fs::path FreshWorkspace(const std::string& name) {
  return opdev_test::FreshWorkspace("plan_" + name);
}
using opdev_test::Read;
using opdev_test::SoftmaxOpDir;
using opdev_test::Write;

// custom/fused: a three-Module fusion op with goldens; `staged` Modules already exist.
inline fs::path FusedOpDir(const fs::path& ws, int staged, bool stage_goldens = true) {
  fs::path op = ws / "custom" / "fused";
  fs::create_directories(op / "modules");
  fs::copy_file(fs::path(OPDEV_SOURCE_DIR) / "tests/data/plan/fused_module_interfaces.yaml",
                op / "module_interfaces.yaml");
  Write(op / "DESIGN.md", "# fused design\n");
  Write(op / "DESIGN_BINDINGS.json", "{\"schema_version\": 1, \"bindings\": []}\n");
  Write(op / "fused_golden.py", "def _get_device():\n    return 'cpu'\n");
  Write(op / "fused_golden_cpu.py", "def fused_golden_cpu(x, w):\n    return x\n");
  const char* suffixes[] = {"1", "12", "123"};
  for (int k = 1; k <= 3; ++k) {
    if (stage_goldens)
      Write(op / "modules" / ("fused_golden_stage" + std::string(suffixes[k - 1]) + ".py"),
            "def fused_golden_stage" + std::string(suffixes[k - 1]) + "(x, w):\n    return x\n");
    if (k <= staged)
      Write(op / "modules" / ("test_fused_module" + std::string(suffixes[k - 1]) + ".py"),
            "# staged module " + std::to_string(k) + "\n");
  }
  return op;
}

}  // namespace plan_test
