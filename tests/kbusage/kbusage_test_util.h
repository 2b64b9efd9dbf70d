// Helpers of the KB usage tests: temporary workspaces holding copies of the real softmax
// inputs and small built op dirs (split layout, empty selection, L1 fusion).
#pragma once

#include "workspace.h"

#include "opdev/kbusage/generate.h"
#include "opdev/kbusage/py_json.h"
#include "opdev/plan/round_plan.h"

#include <boost/json.hpp>

#include <filesystem>
#include <string>

namespace kbu_test {
namespace fs = std::filesystem;

inline fs::path FreshWorkspace(const std::string& name) {
  return opdev_test::FreshWorkspace("kbusage_" + name);
}
using opdev_test::Read;
using opdev_test::Write;
inline std::string KbRoot() { return std::string(OPDEV_SHARED_DIR) + "/fixtures/kb"; }
inline fs::path Data(const std::string& rel) {
  return fs::path(OPDEV_SOURCE_DIR) / "tests/data/kbusage" / rel;
}

// custom/softmax with the real frozen inputs, stand-in goldens and the stand-in kernel file.
inline fs::path SoftmaxOpDir(const fs::path& ws, bool with_product = true) {
  fs::path op = opdev_test::SoftmaxOpDir(ws);
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
