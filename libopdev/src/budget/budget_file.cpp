// Budget of a kernel file / op dir, with the DESIGN §3 comparison.
#include "opdev/budget/budget_file.h"

#include "opdev/budget/design_map.h"
#include "opdev/budget/kernel_budget.h"
#include "opdev/contract/design_doc.h"
#include "opdev/pyfront/parser.h"

#include <boost/filesystem.hpp>

namespace opdev::budget {
namespace {
namespace fs = boost::filesystem;

// The op's kernel in an op dir: test_<op>.py where <op> is the DESIGN op_name, else the only
// test_*.py file.
std::string FindKernel(const fs::path& dir, const std::string& op) {
  if (!op.empty() && fs::exists(dir / ("test_" + op + ".py"))) return (dir / ("test_" + op + ".py")).string();
  std::string found;
  int n = 0;
  boost::system::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind("test_", 0) == 0 && it->path().extension() == ".py") {
      found = it->path().string();
      ++n;
    }
  }
  return n == 1 ? found : "";
}

}  // namespace

bool FileBudget::ok() const {
  return (!kernel || kernel->ok()) && (!design || design->ok()) && !comparison.HasErrors() &&
         !inputs.HasErrors();
}

boost::json::object FileBudget::ToJson() const {
  boost::json::object o;
  o["ok"] = ok();
  o["kernel_path"] = kernel_path;
  o["design_path"] = design_path;
  o["kernel"] = kernel ? boost::json::value(BudgetReportToJson(*kernel)) : nullptr;
  o["design"] = design ? boost::json::value(BudgetReportToJson(*design)) : nullptr;
  o["comparison"] = comparison.ToJson();
  o["inputs"] = inputs.ToJson();
  return o;
}

absl::StatusOr<FileBudget> BudgetPath(const std::string& path, Target target,
                                      const std::string& design_path) {
  FileBudget fb;
  boost::system::error_code ec;
  if (!fs::exists(path, ec)) return absl::NotFoundError(path + ": no such file or directory");
  std::optional<contract::DesignDoc> design;
  auto load_design = [&](const std::string& p) -> absl::Status {
    auto d = contract::LoadDesignDoc(p, &fb.inputs);
    if (!d.ok()) return d.status();
    design = std::move(*d);
    fb.design_path = p;
    return absl::OkStatus();
  };
  const bool is_dir = fs::is_directory(path, ec);
  fs::path dir = is_dir ? fs::path(path) : fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (design_path != "-") {
    std::string dp = design_path.empty() ? (dir / "DESIGN.md").string() : design_path;
    if (!design_path.empty() || fs::exists(dp, ec)) {
      if (auto st = load_design(dp); !st.ok()) return st;
    }
  }
  if (is_dir) {
    fb.kernel_path = FindKernel(dir, design ? design->OpName() : "");
    if (fb.kernel_path.empty() && !design)
      return absl::FailedPreconditionError(path + ": neither a kernel test_<op>.py nor a DESIGN.md to budget");
  } else {
    fb.kernel_path = path;
  }
  if (!fb.kernel_path.empty()) {
    auto mod = py::ParseFile(fb.kernel_path, &fb.inputs);
    if (!mod.ok()) {
      if (fb.inputs.HasErrors() && !is_dir) {
        // A syntax error is a finding of the input; report it through the status too.
        return absl::InvalidArgumentError(std::string(mod.status().message()));
      }
      return mod.status();
    }
    SlotModel slots = SlotsFromKernel(*mod, fb.kernel_path, target, &fb.inputs);
    fb.kernel = CheckBudget(slots);
  }
  if (design) {
    CheckOptions o;
    o.category = std::string(category::kDesignViolation);
    o.section = "§3";
    SlotModel map = SlotsFromDesignMap(*design, target);
    fb.design = CheckBudget(map, o);
    if (fb.kernel) {
      fb.comparison = CompareWithDesignMap(fb.kernel->model, map, category::kImplementationError);
      if (fb.kernel->matmul && fb.design->matmul)
        fb.comparison.Append(CompareMatmulTilings(*fb.kernel->matmul, *fb.design->matmul,
                                                  fb.kernel_path, category::kImplementationError));
    }
  }
  return fb;
}

}  // namespace opdev::budget
