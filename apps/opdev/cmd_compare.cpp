// opdev compare: the scheme-A precision verdict for tensor files (.npy/.bin), with
// diagnostics. Exit 0 on PASS, 1 on FAIL, 2 when an input cannot be used.
#include "cli_util.h"
#include "command.h"

#include "opdev/precision/compare.h"
#include "opdev/precision/tensor_file.h"

#include <iostream>
#include <optional>

namespace opdev::cli {
namespace {

namespace pr = opdev::precision;

constexpr const char* kUsage =
    "opdev compare ACTUAL GOLDEN [ACTUAL GOLDEN ...] [--dtype NAME] [--tile R,C] [--json]\n"
    "\n"
    "Applies the fixed scheme-A precision standard to each ACTUAL/GOLDEN pair of tensor\n"
    "files (.npy, or raw .bin with --shape and an element type) and prints the reference\n"
    "summary followed by diagnostics. A path 'none' is a None placeholder for a multi-output\n"
    "operator. Exit status: 0 PASS, 1 FAIL, 2 unusable input.";

bool IsNone(const std::string& s) { return s == "none" || s == "None"; }

int Run(const std::vector<std::string>& args) {
  po::options_description opts("options");
  std::vector<std::string> files;
  opts.add_options()
      ("files", po::value<std::vector<std::string>>(&files), "ACTUAL GOLDEN pairs")
      ("dtype", po::value<std::string>(),
       "comparison dtype (float16, bfloat16, float32, float64, half, float, double); default "
       "the actual tensor's dtype. Also the element type of .bin files without "
       "--actual-dtype/--golden-dtype, and 'bfloat16' reads 2-byte raw .npy ('V2') as bfloat16")
      ("actual-dtype", po::value<std::string>(),
       "element type of the ACTUAL files when not self-described (.bin) or to reinterpret a "
       "2-byte .npy payload as bfloat16")
      ("golden-dtype", po::value<std::string>(), "the same for the GOLDEN files")
      ("shape", po::value<std::string>(), "shape of .bin files, e.g. 4,128 or 4x128")
      ("tile", po::value<std::string>(),
       "the kernel's tile shape R,C on the last two axes: count failures per tile and report "
       "tail/row/column patterns")
      ("worst", po::value<int>()->default_value(10), "number of worst elements to list")
      ("threads", po::value<int>()->default_value(0), "worker threads (0 = all cores)")
      ("summary-only", "print only the reference summary text (no diagnostics)")
      ("json", "print the result as JSON");
  po::positional_options_description pos;
  pos.add("files", -1);
  po::variables_map vm;
  int code = kExitOk;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &code)) return code;
  const bool json = vm.count("json") > 0;
  const std::string cmd = "compare";

  if (files.empty() || files.size() % 2 != 0)
    return FailUsage(cmd,
                     files.empty() ? "expected ACTUAL GOLDEN file pairs"
                                   : "expected ACTUAL GOLDEN file pairs, got an odd number (" +
                                         std::to_string(files.size()) + ") of files",
                     json);

  pr::CompareOptions copts;
  std::optional<DType> cmp_dtype;
  if (vm.count("dtype")) {
    copts.dtype = vm["dtype"].as<std::string>();
    cmp_dtype = pr::ParseComparisonDType(*copts.dtype);
    if (!cmp_dtype) return FailUsage(cmd, "unsupported dtype: " + *copts.dtype, json);
  }
  auto side_dtype = [&](const char* key, std::optional<DType>* out) -> std::string {
    if (!vm.count(key)) return "";
    auto d = ParseDType(vm[key].as<std::string>());
    if (!d) return std::string("--") + key + ": unknown dtype '" + vm[key].as<std::string>() + "'";
    *out = d;
    return "";
  };
  std::optional<DType> actual_dtype, golden_dtype;
  if (auto e = side_dtype("actual-dtype", &actual_dtype); !e.empty()) return FailUsage(cmd, e, json);
  if (auto e = side_dtype("golden-dtype", &golden_dtype); !e.empty()) return FailUsage(cmd, e, json);
  std::optional<pr::Shape> shape;
  if (vm.count("shape")) {
    auto s = pr::ParseShape(vm["shape"].as<std::string>());
    if (!s.ok()) return FailUsage(cmd, "--shape: " + std::string(s.status().message()), json);
    shape = *s;
  }
  if (vm.count("tile")) {
    auto t = pr::ParseShape(vm["tile"].as<std::string>());
    if (!t.ok() || t->size() != 2 || (*t)[0] <= 0 || (*t)[1] <= 0)
      return FailUsage(cmd, "--tile: expected two positive integers R,C, got '" +
                                vm["tile"].as<std::string>() + "'",
                       json);
    copts.tile = std::make_pair((*t)[0], (*t)[1]);
  }
  copts.worst_k = std::max(0, vm["worst"].as<int>());
  copts.threads = std::max(0, vm["threads"].as<int>());

  auto read = [&](const std::string& path, std::optional<DType> side) -> absl::StatusOr<pr::Tensor> {
    pr::TensorReadOptions ro;
    ro.shape = shape;
    ro.dtype = side;
    ro.raw2_is_bfloat16 = cmp_dtype == DType::kBFloat16;
    std::string_view p(path);
    bool is_npy = p.size() >= 4 && p.substr(p.size() - 4) == ".npy";
    if (is_npy) ro.shape.reset();
    if (!is_npy && !ro.dtype) ro.dtype = cmp_dtype;
    return pr::ReadTensorFile(path, ro);
  };
  std::vector<std::optional<pr::Tensor>> actual, golden;
  for (size_t i = 0; i < files.size(); i += 2) {
    for (int side = 0; side < 2; ++side) {
      const std::string& path = files[i + static_cast<size_t>(side)];
      auto& list = side == 0 ? actual : golden;
      if (IsNone(path)) {
        list.emplace_back(std::nullopt);
        continue;
      }
      auto t = read(path, side == 0 ? actual_dtype : golden_dtype);
      if (!t.ok()) return FailUsage(cmd, std::string(t.status().message()), json);
      list.emplace_back(*std::move(t));
    }
  }

  copts.diagnostics = !vm.count("summary-only") || json;
  pr::PrecisionResult result = pr::CheckPrecision(actual, golden, copts);
  if (json) {
    boost::json::object o = pr::ToJson(result);
    boost::json::array pairs;
    for (size_t i = 0; i < files.size(); i += 2) {
      boost::json::object pair;
      pair["actual"] = files[i];
      pair["golden"] = files[i + 1];
      pairs.push_back(std::move(pair));
    }
    o["files"] = std::move(pairs);
    PrintJson(o);
  } else if (vm.count("summary-only")) {
    std::cout << result.summary << "\n";
  } else {
    std::cout << pr::RenderReport(result);
  }
  return result.passed ? kExitOk : kExitFindings;
}

}  // namespace

OPDEV_COMMAND("compare", "scheme-A precision verdict and diagnostics for tensor files", Run);

}  // namespace opdev::cli
