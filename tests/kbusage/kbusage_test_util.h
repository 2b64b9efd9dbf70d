// Helpers of the KB usage tests: temporary workspaces holding copies of the real softmax
// inputs and small built op dirs (split layout, empty selection, L1 fusion).
#pragma once

#include "opdev/kbusage/generate.h"
#include "opdev/kbusage/py_json.h"
#include "opdev/plan/round_plan.h"

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kbu_test {
namespace fs = std::filesystem;

inline fs::path FreshWorkspace(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("opdev_test_kbusage_" + name);
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
inline std::string KbRoot() { return std::string(OPDEV_SHARED_DIR) + "/fixtures/kb"; }
inline fs::path Data(const std::string& rel) {
  return fs::path(OPDEV_SOURCE_DIR) / "tests/data/kbusage" / rel;
}

// custom/softmax with the real frozen inputs, stand-in goldens and the stand-in kernel file.
inline fs::path SoftmaxOpDir(const fs::path& ws, bool with_product = true) {
  fs::path op = ws / "custom" / "softmax";
  fs::create_directories(op);
  for (const auto& e : fs::directory_iterator(fs::path(OPDEV_SHARED_DIR) / "fixtures" / "softmax"))
    fs::copy_file(e.path(), op / e.path().filename());
  Write(op / "softmax_golden.py", "def _get_device():\n    return 'cpu'\n");
  Write(op / "softmax_golden_cpu.py", "def softmax_golden_cpu(x):\n    return x\n");
  if (with_product) fs::copy_file(Data("softmax/test_softmax.py"), op / "test_softmax.py");
  return op;
}

// Copies a built op dir from tests/data/kbusage/<name> to custom/<op>.
inline fs::path CopyOpDir(const fs::path& ws, const std::string& name, const std::string& op) {
  fs::path dst = ws / "custom" / op;
  fs::copy(Data(name), dst, fs::copy_options::recursive);
  return dst;
}

inline opdev::plan::RoundPlan Plan(const fs::path& op, const opdev::plan::Dispatch& d = {}) {
  opdev::Diagnostics diags;
  auto p = opdev::plan::PlanRound(op.string(), d, &diags);
  if (!p.ok()) throw std::runtime_error(diags.ToText());
  return *p;
}

inline boost::json::value ReadJson(const fs::path& p) { return boost::json::parse(Read(p)); }

// The indent=2 Python form plus newline, as KB_USAGE files are written.
inline std::optional<std::string> PyJsonDumpsForTest(const boost::json::value& v) {
  auto r = opdev::kbusage::PyJsonDumps(v, 2);
  if (!r.ok()) return std::nullopt;
  return *r + "\n";
}

}  // namespace kbu_test
