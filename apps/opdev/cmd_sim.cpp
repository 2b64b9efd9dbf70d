// `opdev sim`: runs a PyPTO-Pro kernel file's wrapper or kernel on .npy inputs with the CPU
// simulator, writes the outputs as .npy and reports hazards with file:line. The work is the
// library's "sim" step (libopdev/src/steps/sim_step.cpp).
#include "cli_util.h"
#include "command.h"

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev sim FILE --entry NAME --in X.npy [--in Y.npy ...] --out-dir DIR\n"
    "          [--block-dim N] [--scalar V ...] [--target a5|a3] [--vector-cores N]\n"
    "          [--cube-cores N] [--work-budget UNITS] [--schedule-seed N]\n"
    "          [--tiling-key NAME=VALUE ...] [--datatype PARAM=DTYPE ...] [--no-pipe-sync] [--json]\n"
    "       opdev sim --hazards [--json]\n\n"
    "Executes the entry of a PyPTO-Pro kernel file on the CPU: a wrapper (inputs bind to its\n"
    "parameters; its statements must stay within the wrapper boundary; outputs are the tensors\n"
    "it returns) or the @pl.jit kernel itself (inputs bind to every tensor parameter, outputs\n"
    "included; outputs are the parameters a core wrote). The cores of a launch run as concurrent\n"
    "cores, one at a time, switching at cross-core waits (fixed order; --schedule-seed N > 0\n"
    "permutes the interleaving reproducibly, switching at every set and wait). float16\n"
    "and bfloat16 are stored with exact round-to-nearest-even, arithmetic is fp32.\n"
    "Outputs are written to DIR/<name>.npy. Hazards (out-of-range DMA, tile placement and\n"
    "overlap, mask width mix, never-written bytes reaching results, output coverage, VF-body\n"
    "rules, wrapper boundary) are reported with file:line; --hazards lists every code.\n"
    "Every run has a work budget (one unit per statement and register op, one per 64 tile\n"
    "elements; default 20M + 64 per input element): an endless or runaway loop stops with\n"
    "SIM-WORK-BUDGET naming the loop's line and iteration counts; --work-budget sets it.\n"
    "--vector-cores / --cube-cores set get_platform_info()'s vector_core_num and core_num /\n"
    "cube_core_num (defaults 48 and 24, the framework's A5 fallback; a chip reports its own):\n"
    "the block_dim limit of a launch (SIM-BLOCK-DIM) is checked against them.\n"
    "--tiling-key NAME=VALUE gives a kernel entry declared with @pl.jit(tiling_key=...) the key\n"
    "its host launch kernel[stream, block_dim, {...}] would (every field, tiling_key.md).\n"
    "--datatype PARAM=DTYPE gives a kernel entry declared with @pl.jit(datatype={...}) the dtype\n"
    "dict its host launch kernel[stream, block_dim, (key,) {...}] would (every parameter the\n"
    "decorator names; DTYPE as DT_FP16, float16, bf16, ...).\n"
    "The pipes of each core are checked by default (SIM-PIPE-*: a missing sync_src/sync_dst,\n"
    "mutex or barrier between two pipes on the same on-chip bytes, as on the device, where\n"
    "nothing inserts them for make_tile tiles); --no-pipe-sync runs one core's pipes in program\n"
    "order instead (--pipe-sync, the default, is accepted).\n"
    "Exit status: 0 ran clean, 1 hazards (errors) or the run stopped, 2 usage or input error.";

int RunSim(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("file", po::value<std::string>(), "kernel .py file")(
      "entry", po::value<std::string>(), "wrapper or @pl.jit kernel to run")(
      "in", po::value<std::vector<std::string>>()->composing(), "input tensor (.npy; 2-byte raw '<V2' is bfloat16), in parameter order")(
      "scalar", po::value<std::vector<double>>()->composing(), "extra scalar argument after the tensors")(
      "out-dir", po::value<std::string>(), "directory for the output .npy files")(
      "block-dim", po::value<int64_t>()->default_value(0),
      "cores: kernel entry default 1; for a wrapper, overrides its launch")(
      "target", po::value<std::string>()->default_value("a5"), "a5 or a3")(
      "vector-cores", po::value<int64_t>()->default_value(48), "get_platform_info().vector_core_num")(
      "cube-cores", po::value<int64_t>()->default_value(24),
      "get_platform_info().core_num and cube_core_num")(
      "work-budget", po::value<int64_t>()->default_value(0), "work units before SIM-WORK-BUDGET (0: default)")(
      "schedule-seed", po::value<int64_t>()->default_value(0),
      "0: fixed core order; N > 0: a reproducible permuted interleaving of the cores")(
      "tiling-key", po::value<std::vector<std::string>>()->composing(),
      "NAME=VALUE of a kernel entry's tiling key (repeat per field)")(
      "datatype", po::value<std::vector<std::string>>()->composing(),
      "PARAM=DTYPE of a kernel entry's datatype dict (repeat per parameter)")(
      "pipe-sync", po::bool_switch(),
      "check the pipes of each core (the default): SIM-PIPE-* for missing sync_src/sync_dst, mutexes, barriers")(
      "no-pipe-sync", po::bool_switch(), "run one core's pipes in program order, without the pipe model")(
      "hazards", po::bool_switch(), "list the hazard catalogue and exit")(
      "json", po::bool_switch(), "machine-readable result");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  int code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &code)) return code;
  const bool json = vm["json"].as<bool>();
  if (vm["pipe-sync"].as<bool>() && vm["no-pipe-sync"].as<bool>())
    return FailUsage("sim", "--pipe-sync and --no-pipe-sync contradict each other: give at most one", json);
  boost::json::object request{{"hazards", vm["hazards"].as<bool>()},
                              {"target", vm["target"].as<std::string>()},
                              {"block_dim", vm["block-dim"].as<int64_t>()},
                              {"vector_cores", vm["vector-cores"].as<int64_t>()},
                              {"cube_cores", vm["cube-cores"].as<int64_t>()},
                              {"work_budget", vm["work-budget"].as<int64_t>()},
                              {"schedule_seed", vm["schedule-seed"].as<int64_t>()},
                              {"pipe_sync", !vm["no-pipe-sync"].as<bool>()}};
  for (const char* key : {"file", "entry", "out-dir"})
    if (vm.count(key)) request[RequestKey(key)] = vm[key].as<std::string>();
  if (vm.count("in")) {
    boost::json::array in;
    for (const auto& p : vm["in"].as<std::vector<std::string>>()) in.emplace_back(p);
    request["in"] = std::move(in);
  }
  if (vm.count("tiling-key")) {
    boost::json::array key;
    for (const auto& f : vm["tiling-key"].as<std::vector<std::string>>()) key.emplace_back(f);
    request["tiling_key"] = std::move(key);
  }
  if (vm.count("datatype")) {
    boost::json::array dt;
    for (const auto& f : vm["datatype"].as<std::vector<std::string>>()) dt.emplace_back(f);
    request["datatype"] = std::move(dt);
  }
  if (vm.count("scalar")) {
    boost::json::array scalars;
    for (double v : vm["scalar"].as<std::vector<double>>()) scalars.emplace_back(v);
    request["scalar"] = std::move(scalars);
  }
  return RunAndPrintStep("sim", "sim", request, json);
}

}  // namespace

OPDEV_COMMAND("sim", "run a PyPTO-Pro kernel file on the CPU simulator (outputs .npy, hazards)", RunSim);

}  // namespace opdev::cli
