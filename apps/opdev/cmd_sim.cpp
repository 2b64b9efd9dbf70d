// `opdev sim`: runs a PyPTO-Pro kernel file's wrapper or kernel on .npy inputs with the CPU
// simulator, writes the outputs as .npy and reports hazards with file:line.
#include "cli_util.h"
#include "command.h"

#include "opdev/precision/tensor_file.h"
#include "opdev/sim/hazards.h"
#include "opdev/sim/simulator.h"

#include <boost/json.hpp>

#include <filesystem>
#include <iostream>
#include <set>

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev sim FILE --entry NAME --in X.npy [--in Y.npy ...] --out-dir DIR\n"
    "          [--block-dim N] [--scalar V ...] [--target a5|a3] [--vector-cores N] [--json]\n"
    "       opdev sim --hazards [--json]\n\n"
    "Executes the entry of a PyPTO-Pro kernel file on the CPU: a wrapper (inputs bind to its\n"
    "parameters; its statements must stay within the wrapper boundary; outputs are the tensors\n"
    "it returns) or the @pl.jit kernel itself (inputs bind to every tensor parameter, outputs\n"
    "included; outputs are the parameters a core wrote). Each SPMD core runs in turn; float16\n"
    "and bfloat16 are stored with exact round-to-nearest-even, arithmetic is fp32.\n"
    "Outputs are written to DIR/<name>.npy. Hazards (out-of-range DMA, tile placement and\n"
    "overlap, mask width mix, never-written bytes reaching results, output coverage, VF-body\n"
    "rules, wrapper boundary) are reported with file:line; --hazards lists every code.\n"
    "Exit status: 0 ran clean, 1 hazards (errors) or the run stopped, 2 usage or input error.";

int ListHazards(bool json) {
  if (json) {
    PrintJson(boost::json::parse(sim::HazardCatalogueJson()));
    return kExitOk;
  }
  for (const auto& h : sim::HazardCatalogue())
    Out() << h.code << "  [" << SeverityName(h.severity) << ", " << h.category << "]  " << h.summary << "\n";
  return kExitOk;
}

std::string ShapeText(const precision::Shape& s) { return precision::ShapeToString(s); }

int RunSim(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("file", po::value<std::string>(), "kernel .py file")(
      "entry", po::value<std::string>(), "wrapper or @pl.jit kernel to run")(
      "in", po::value<std::vector<std::string>>()->composing(), "input tensor (.npy), in parameter order")(
      "scalar", po::value<std::vector<double>>()->composing(), "extra scalar argument after the tensors")(
      "out-dir", po::value<std::string>(), "directory for the output .npy files")(
      "block-dim", po::value<int64_t>()->default_value(0),
      "cores: kernel entry default 1; for a wrapper, overrides its launch")(
      "target", po::value<std::string>()->default_value("a5"), "a5 or a3")(
      "vector-cores", po::value<int64_t>()->default_value(48), "get_platform_info().vector_core_num")(
      "hazards", po::bool_switch(), "list the hazard catalogue and exit")(
      "json", po::bool_switch(), "machine-readable result");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  int code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &code)) return code;
  const bool json = vm["json"].as<bool>();
  if (vm["hazards"].as<bool>()) return ListHazards(json);
  if (!vm.count("file")) return FailUsage("sim", "missing FILE", json);
  if (!vm.count("entry")) return FailUsage("sim", "missing --entry NAME", json);
  if (!vm.count("out-dir")) return FailUsage("sim", "missing --out-dir DIR", json);
  auto target = ParseTarget(vm["target"].as<std::string>());
  if (!target) return FailUsage("sim", "unknown target " + vm["target"].as<std::string>(), json);
  if (vm["block-dim"].as<int64_t>() < 0) return FailUsage("sim", "--block-dim must be >= 0", json);
  if (vm["vector-cores"].as<int64_t>() <= 0) return FailUsage("sim", "--vector-cores must be positive", json);

  std::vector<std::string> in_paths;
  if (vm.count("in")) in_paths = vm["in"].as<std::vector<std::string>>();
  std::vector<precision::Tensor> inputs;
  for (const auto& p : in_paths) {
    auto t = precision::ReadTensorFile(p);
    if (!t.ok()) return FailUsage("sim", std::string(t.status().message()), json);
    inputs.push_back(*t);
  }
  const std::string out_dir = vm["out-dir"].as<std::string>();
  std::error_code ec;
  if (std::filesystem::exists(out_dir, ec) && !std::filesystem::is_directory(out_dir, ec))
    return FailUsage("sim", "--out-dir " + out_dir + " exists and is not a directory", json);

  sim::SimOptions so;
  so.entry = vm["entry"].as<std::string>();
  so.target = *target;
  so.block_dim = vm["block-dim"].as<int64_t>();
  so.vector_core_num = vm["vector-cores"].as<int64_t>();
  if (vm.count("scalar")) so.scalar_args = vm["scalar"].as<std::vector<double>>();
  const std::string file = vm["file"].as<std::string>();
  auto r = sim::RunKernelFile(file, inputs, so);
  if (!r.ok()) return FailUsage("sim", std::string(r.status().message()), json);

  // Write outputs; never over an input file.
  std::set<std::string> input_abs;
  for (const auto& p : in_paths) input_abs.insert(std::filesystem::weakly_canonical(p, ec).string());
  std::filesystem::create_directories(out_dir, ec);
  if (ec) return FailUsage("sim", "cannot create " + out_dir + ": " + ec.message(), json);
  boost::json::array outs;
  std::set<std::string> used;
  for (size_t i = 0; i < r->outputs.size(); ++i) {
    std::string name = r->outputs[i].name.empty() ? "out" + std::to_string(i) : r->outputs[i].name;
    if (!used.insert(name).second) name += "_" + std::to_string(i);
    std::string path = (std::filesystem::path(out_dir) / (name + ".npy")).string();
    if (input_abs.count(std::filesystem::weakly_canonical(path, ec).string()))
      return FailUsage("sim", "refusing to overwrite input " + path, json);
    if (auto st = precision::WriteNpy(path, r->outputs[i].tensor); !st.ok())
      return FailUsage("sim", std::string(st.message()), json);
    const auto& t = r->outputs[i].tensor;
    boost::json::object o;
    o["name"] = name;
    o["path"] = path;
    o["dtype"] = std::string(DTypeName(t.dtype()));
    boost::json::array shape;
    for (int64_t d : t.shape()) shape.push_back(d);
    o["shape"] = shape;
    outs.push_back(o);
    if (!json) Out() << "wrote " << path << "  " << DTypeName(t.dtype()) << " " << ShapeText(t.shape()) << "\n";
  }
  const bool clean = r->completed && !r->hazards.HasErrors();
  if (json) {
    boost::json::object o;
    o["file"] = file;
    o["entry"] = so.entry;
    o["target"] = std::string(TargetName(so.target));
    o["completed"] = r->completed;
    o["clean"] = clean;
    o["outputs"] = outs;
    boost::json::object st;
    st["launches"] = r->stats.launches;
    st["block_dim"] = r->stats.block_dim;
    st["cores_run"] = r->stats.cores_run;
    st["vf_ops"] = r->stats.vf_ops;
    st["lane_ops"] = r->stats.lane_ops;
    st["tile_elems"] = r->stats.tile_elems;
    st["statements"] = r->stats.statements;
    o["stats"] = st;
    o["hazards"] = r->hazards.ToJson();
    PrintJson(o);
  } else {
    Out() << (r->completed ? "ran " : "stopped ") << so.entry << ": " << r->stats.launches
              << " launch(es), block_dim " << r->stats.block_dim << ", " << r->stats.vf_ops
              << " register ops (" << r->stats.lane_ops << " lane-ops), " << r->stats.tile_elems
              << " tile elements\n";
    if (!r->hazards.empty()) PrintDiagnosticsText(r->hazards);
    else Out() << "no hazards\n";
  }
  return clean ? kExitOk : kExitFindings;
}

}  // namespace

OPDEV_COMMAND("sim", "run a PyPTO-Pro kernel file on the CPU simulator (outputs .npy, hazards)", RunSim);

}  // namespace opdev::cli
