// opdev compare: the scheme-A precision verdict for tensor files (.npy/.bin), with
// diagnostics. Exit 0 on PASS, 1 on FAIL, 2 when an input cannot be used.
#include "cli_util.h"
#include "command.h"

#include <algorithm>

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev compare ACTUAL GOLDEN [ACTUAL GOLDEN ...] [--dtype NAME] [--tile R,C] [--json]\n"
    "\n"
    "Applies the fixed scheme-A precision standard to each ACTUAL/GOLDEN pair of tensor\n"
    "files (.npy, or raw .bin with --shape and an element type) and prints the reference\n"
    "summary followed by diagnostics. A path 'none' is a None placeholder for a multi-output\n"
    "operator. Exit status: 0 PASS, 1 FAIL, 2 unusable input.";

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

  // The library step validates every option (one place for the command and the C ABI).
  boost::json::array pairs;
  for (size_t i = 0; i < files.size(); i += 2) pairs.push_back(boost::json::array{files[i], files[i + 1]});
  boost::json::object request{{"pairs", std::move(pairs)},
                              {"worst", vm["worst"].as<int>()},
                              {"threads", vm["threads"].as<int>()},
                              {"summary_only", vm.count("summary-only") > 0}};
  for (const char* key : {"dtype", "actual-dtype", "golden-dtype", "shape", "tile"}) {
    if (!vm.count(key)) continue;
    std::string k(key);
    std::replace(k.begin(), k.end(), '-', '_');
    request[k] = vm[key].as<std::string>();
  }
  return RunAndPrintStep(cmd, "compare", request, json);
}

}  // namespace

OPDEV_COMMAND("compare", "scheme-A precision verdict and diagnostics for tensor files", Run);

}  // namespace opdev::cli
