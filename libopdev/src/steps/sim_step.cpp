// The "sim" step: run a PyPTO-Pro kernel file's wrapper or kernel on .npy inputs with the CPU
// simulator, write the outputs as .npy and report hazards with file:line; or, with
// "hazards", list the hazard catalogue.
// Request: {"file": "k.py", "entry": "NAME", "in"?: ["x.npy", ...], "scalar"?: [1.0, ...],
// "out_dir": "DIR", "block_dim"?: int, "target"?: "a5"|"a3", "vector_cores"?: int,
// "cube_cores"?: int, "work_budget"?: int (work units; 0 or absent: the default from the problem size),
// "schedule_seed"?: int (0 or absent: the fixed core order; > 0 permutes the interleaving),
// "pipe_sync"?: bool (the intra-core pipe model, SIM-PIPE-*; default true),
// "tiling_key"?: ["NAME=VALUE", ...] (a kernel entry's tiling key, tiling_key.md),
// "datatype"?: ["PARAM=DTYPE", ...] (a kernel entry's datatype dict, @pl.jit(datatype=...))} or
// {"hazards": true}. Status 0 ran clean, 1 hazards (errors) or the run stopped, 2 unusable
// input. Outputs never overwrite an input file.
#include "opdev/precision/tensor_file.h"
#include "opdev/sim/hazards.h"
#include "opdev/sim/simulator.h"
#include "opdev/support/dtype.h"
#include "opdev/steps/step.h"
#include "steps/step_util.h"

#include <boost/json/parse.hpp>

#include <filesystem>
#include <set>
#include <sstream>

namespace opdev::steps {
namespace {

namespace fs = std::filesystem;

StepResult HazardList() {
  StepResult r;
  r.document = boost::json::parse(sim::HazardCatalogueJson());
  std::ostringstream os;
  for (const auto& h : sim::HazardCatalogue())
    os << h.code << "  [" << SeverityName(h.severity) << ", " << h.category << "]  " << h.summary
       << "\n";
  r.text = os.str();
  return r;
}

boost::json::object StatsJson(const sim::SimStats& s) {
  boost::json::object st;
  st["launches"] = s.launches;
  st["block_dim"] = s.block_dim;
  st["cores_run"] = s.cores_run;
  st["pipe_flags_pending"] = s.pipe_flags_pending;
  st["vf_ops"] = s.vf_ops;
  st["lane_ops"] = s.lane_ops;
  st["tile_elems"] = s.tile_elems;
  st["statements"] = s.statements;
  st["work"] = s.work;
  st["work_budget"] = s.work_budget;
  return st;
}

}  // namespace

StepResult RunSimStep(const StepContext& ctx, const boost::json::object& request) {
  RequestReader rr(request);
  const bool hazards = rr.Bool("hazards");
  const std::string file = rr.String("file");
  const std::string entry = rr.String("entry");
  const std::string out_dir = rr.String("out_dir");
  const std::vector<std::string> in_paths = rr.Strings("in");
  const std::vector<double> scalars = rr.Numbers("scalar");
  const std::optional<int64_t> block_dim = rr.Int("block_dim");
  const std::optional<int64_t> vector_cores = rr.Int("vector_cores");
  const std::optional<int64_t> cube_cores = rr.Int("cube_cores");
  const std::optional<int64_t> work_budget = rr.Int("work_budget");
  const std::optional<int64_t> schedule_seed = rr.Int("schedule_seed");
  const bool pipe_sync = rr.Bool("pipe_sync", true);
  const std::vector<std::string> tiling_key = rr.Strings("tiling_key");
  const std::vector<std::string> datatype = rr.Strings("datatype");
  std::string target_error;
  const std::optional<Target> target = TargetOf(ctx, rr, &target_error);
  if (!rr.Ok()) return StepResult::Error(rr.error);
  if (hazards) return HazardList();
  if (file.empty()) return StepResult::Error("missing FILE");
  if (entry.empty()) return StepResult::Error("missing --entry NAME");
  if (out_dir.empty()) return StepResult::Error("missing --out-dir DIR");
  if (!target) return StepResult::Error(target_error);
  if (block_dim.value_or(0) < 0) return StepResult::Error("--block-dim must be >= 0");
  if (vector_cores.value_or(48) <= 0) return StepResult::Error("--vector-cores must be positive");
  if (cube_cores.value_or(24) <= 0) return StepResult::Error("--cube-cores must be positive");
  if (work_budget.value_or(0) < 0) return StepResult::Error("--work-budget must be >= 0 (0: the default)");
  if (schedule_seed.value_or(0) < 0)
    return StepResult::Error("--schedule-seed must be >= 0 (0: the fixed core order)");

  std::vector<precision::Tensor> inputs;
  // A 2-byte raw .npy ('<V2') input is bfloat16: the simulator has no other 2-byte raw dtype.
  precision::TensorReadOptions read_opts;
  read_opts.raw2_is_bfloat16 = true;
  for (const auto& p : in_paths) {
    auto t = precision::ReadTensorFile(p, read_opts);
    if (!t.ok()) return StepResult::Error(std::string(t.status().message()));
    inputs.push_back(*t);
  }
  std::error_code ec;
  if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec))
    return StepResult::Error("--out-dir " + out_dir + " exists and is not a directory");

  sim::SimOptions so;
  so.entry = entry;
  so.target = *target;
  so.block_dim = block_dim.value_or(0);
  so.vector_core_num = vector_cores.value_or(48);
  so.cube_core_num = cube_cores.value_or(24);
  so.scalar_args = scalars;
  so.work_budget = work_budget.value_or(0);
  so.schedule_seed = static_cast<uint64_t>(schedule_seed.value_or(0));
  so.pipe_sync = pipe_sync;
  for (const auto& f : tiling_key) {
    const size_t eq = f.find('=');
    int64_t v = 0;
    size_t used = 0;
    bool ok = eq != std::string::npos && eq > 0 && eq + 1 < f.size();
    if (ok) {
      try {
        v = std::stoll(f.substr(eq + 1), &used);
      } catch (const std::exception&) {
        ok = false;
      }
      ok = ok && used == f.size() - eq - 1;
    }
    if (!ok) return StepResult::Error("--tiling-key takes NAME=INTEGER, got '" + f + "'");
    so.tiling_key.emplace_back(f.substr(0, eq), v);
  }
  for (const auto& f : datatype) {
    const size_t eq = f.find('=');
    const std::optional<DType> dt =
        eq != std::string::npos && eq > 0 ? ParseDType(std::string_view(f).substr(eq + 1)) : std::nullopt;
    if (!dt) return StepResult::Error("--datatype takes PARAM=DTYPE (e.g. x=DT_FP16), got '" + f + "'");
    so.datatype.emplace_back(f.substr(0, eq), *dt);
  }
  auto run = sim::RunKernelFile(file, inputs, so);
  if (!run.ok()) return StepResult::Error(std::string(run.status().message()));

  // Write the outputs; never over an input file.
  std::set<std::string> input_abs;
  for (const auto& p : in_paths) input_abs.insert(fs::weakly_canonical(p, ec).string());
  fs::create_directories(out_dir, ec);
  if (ec) return StepResult::Error("cannot create " + out_dir + ": " + ec.message());
  std::ostringstream text;
  boost::json::array outs;
  std::set<std::string> used;
  for (size_t i = 0; i < run->outputs.size(); ++i) {
    std::string name = run->outputs[i].name.empty() ? "out" + std::to_string(i) : run->outputs[i].name;
    if (!used.insert(name).second) name += "_" + std::to_string(i);
    const std::string path = (fs::path(out_dir) / (name + ".npy")).string();
    if (input_abs.count(fs::weakly_canonical(path, ec).string()))
      return StepResult::Error("refusing to overwrite input " + path);
    const precision::Tensor& t = run->outputs[i].tensor;
    if (auto st = precision::WriteNpy(path, t); !st.ok())
      return StepResult::Error(std::string(st.message()));
    boost::json::array shape;
    for (int64_t d : t.shape()) shape.push_back(d);
    outs.push_back(boost::json::object{{"name", name},
                                       {"path", path},
                                       {"dtype", std::string(DTypeName(t.dtype()))},
                                       {"shape", std::move(shape)}});
    text << "wrote " << path << "  " << DTypeName(t.dtype()) << " "
         << precision::ShapeToString(t.shape()) << "\n";
  }
  const bool clean = run->completed && !run->hazards.HasErrors();
  StepResult r;
  r.status = clean ? kStatusOk : kStatusFindings;
  boost::json::object o;
  o["file"] = file;
  o["entry"] = so.entry;
  o["target"] = std::string(TargetName(so.target));
  o["completed"] = run->completed;
  o["clean"] = clean;
  o["outputs"] = std::move(outs);
  o["stats"] = StatsJson(run->stats);
  o["hazards"] = run->hazards.ToJson();
  r.document = std::move(o);
  text << (run->completed ? "ran " : "stopped ") << so.entry << ": " << run->stats.launches
       << " launch(es), block_dim " << run->stats.block_dim << ", " << run->stats.vf_ops
       << " register ops (" << run->stats.lane_ops << " lane-ops), " << run->stats.tile_elems
       << " tile elements\n";
  if (!run->hazards.empty()) WriteDiagnosticsText(run->hazards, text);
  else text << "no hazards\n";
  r.text = text.str();
  return r;
}

}  // namespace opdev::steps
