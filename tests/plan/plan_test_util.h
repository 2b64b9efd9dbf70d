// Helpers of the planner tests: building op dirs under a temporary workspace.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace plan_test {
namespace fs = std::filesystem;

inline fs::path FreshWorkspace(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("opdev_test_plan_" + name);
  fs::remove_all(p);
  fs::create_directories(p / "custom");
  return p;
}

inline void Write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

inline std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// custom/softmax: the real fixture's frozen inputs plus stand-in goldens.
inline fs::path SoftmaxOpDir(const fs::path& ws) {
  fs::path op = ws / "custom" / "softmax";
  fs::create_directories(op);
  for (const auto& e : fs::directory_iterator(fs::path(OPDEV_SHARED_DIR) / "fixtures" / "softmax"))
    fs::copy_file(e.path(), op / e.path().filename());
  Write(op / "softmax_golden.py", "def _get_device():\n    return 'cpu'\n");
  Write(op / "softmax_golden_cpu.py", "def softmax_golden_cpu(x):\n    return x\n");
  return op;
}

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
