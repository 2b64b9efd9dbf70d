// The simulator's library entry: parse and lower a kernel file, bind input tensors, run the
// wrapper or kernel entry, check output coverage and return outputs plus hazards.
#include "opdev/sim/simulator.h"

#include "interpreter.h"
#include "program.h"
#include "program_cache.h"
#include "run_digest.h"

#include "opdev/support/file_io.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <boost/json.hpp>

#include <algorithm>

namespace opdev::sim {

namespace {

std::shared_ptr<GmTensor> ToGm(const precision::Tensor& t, const std::string& name) {
  return GmTensor::MakeCopy(name, t.dtype(), t.shape(), t.data());
}

// The output tensor of `g`. When the run's outputs name `g` once (`take`), its bytes move
// into the output instead of being copied: the run's tensors die with the run.
absl::StatusOr<precision::Tensor> FromGm(GmTensor& g, bool take) {
  if (take) return precision::Tensor::FromByteVector(g.dtype, g.shape, std::move(g.data));
  return precision::Tensor::FromBytes(g.dtype, g.shape, g.data.data(), g.data.size());
}

// Whether any writer entry is negative (never written): an OR of the entries in constant
// blocks of 16, which vectorises; the common case of a wholly written output is one such pass.
bool AnyUnwritten(const std::vector<int32_t>& w) {
  constexpr size_t kBlock = 16;
  size_t i = 0;
  for (; i + kBlock <= w.size(); i += kBlock) {
    int32_t any = 0;
    for (size_t j = 0; j < kBlock; ++j) any |= w[i + j];
    if (any < 0) return true;
  }
  for (; i < w.size(); ++i)
    if (w[i] < 0) return true;
  return false;
}

// The dict of a launch's bracket, {name: value(v), ...} in order; None when `entries` is empty.
template <typename T, typename MakeValue>
Value BracketDict(const std::vector<std::pair<std::string, T>>& entries, MakeValue value) {
  if (entries.empty()) return Value::None();
  std::vector<Value> kv;
  for (const auto& [name, v] : entries) {
    kv.push_back(Value::Str(name));
    kv.push_back(value(v));
  }
  Value d = Value::TupleV(std::move(kv));
  d.kind = VK::kDict;
  return d;
}

void CheckCoverage(Interp& in, HazardSink& sink, const GmTensor& t, int line) {
  int64_t unwritten = 0, first = -1;
  if (t.writer.empty()) {  // never written at all
    if (t.numel() == 0) return;
    unwritten = t.numel();
    first = 0;
  } else {
    if (!AnyUnwritten(t.writer)) return;
    for (size_t i = 0; i < t.writer.size(); ++i)
      if (t.writer[i] < 0) { if (first < 0) first = static_cast<int64_t>(i); ++unwritten; }
  }
  std::vector<std::string> idx;
  int64_t rem = first;
  std::vector<int64_t> coord(t.shape.size());
  for (int d = static_cast<int>(t.shape.size()) - 1; d >= 0; --d) {
    coord[d] = t.shape[d] ? rem % t.shape[d] : 0;
    rem = t.shape[d] ? rem / t.shape[d] : 0;
  }
  sink.Report(hazard::kOutputUnwritten, line,
              absl::StrFormat("%d of %d elements of output '%s' were never written by any core (first at "
                              "[%s]); check the work split, loop bounds and tail handling",
                              unwritten, t.numel(), t.name, absl::StrJoin(coord, ", ")));
  (void)in;
}

}  // namespace

int64_t DefaultWorkBudget(int64_t input_elements) {
  constexpr int64_t kBase = 20'000'000, kPerElement = 64;
  const int64_t e = std::max<int64_t>(0, input_elements);
  if (e > (INT64_MAX - kBase) / kPerElement) return INT64_MAX;
  return kBase + kPerElement * e;
}

RunLimits RunLimits::For(int64_t work_budget, int64_t memory_limit_bytes, int64_t input_elements) {
  RunLimits l;
  if (work_budget > 0) {
    l.work_budget = work_budget;
    l.budget_origin = "set by the caller";
  } else {
    l.work_budget = DefaultWorkBudget(input_elements);
    l.budget_origin = absl::StrCat("the default for ", input_elements, " input elements");
  }
  l.memory_bytes = memory_limit_bytes > 0 ? memory_limit_bytes : kDefaultMemoryLimitBytes;
  return l;
}

namespace {

absl::StatusOr<SimResult> RunSource(std::string_view source, const std::string& filename,
                                    const std::vector<precision::Tensor>& inputs, const SimOptions& options) {
  // The lowered program, cached (program_cache.h); a concurrent run of the same source lowers
  // its own copy instead of waiting.
  bool hit = false;
  auto lowered = GetLoweredProgram(filename, source, &hit);
  if (!lowered.ok()) return lowered.status();
  std::shared_ptr<LoweredProgram> lp = *lowered;
  std::unique_lock<std::mutex> run_lock(lp->run_mu, std::try_to_lock);
  if (!run_lock.owns_lock()) {
    hit = false;
    auto own = LowerSource(filename, source);
    if (!own.ok()) return own.status();
    lp = *own;
    run_lock = std::unique_lock<std::mutex>(lp->run_mu);
  }
  // Module values start as lowering left them and the run's are dropped when it ends.
  struct Restore {
    LoweredProgram& lp;
    ~Restore() { RestoreModuleState(*lp.prog, lp.initial_globals); }
  } restore{*lp};
  RestoreModuleState(*lp->prog, lp->initial_globals);
  Program* prog = lp->prog.get();
  HazardSink sink = lp->lowering;
  auto fit = prog->funcs.find(options.entry);
  if (fit == prog->funcs.end()) {
    std::vector<std::string> names;
    for (const auto& [n, f] : prog->funcs)
      if (f->kind == FuncKind::kJit || f->kind == FuncKind::kHost) names.push_back(n);
    return absl::NotFoundError(absl::StrCat(filename, ": no function '", options.entry,
                                            "' (wrappers and kernels: ", absl::StrJoin(names, ", "), ")"));
  }
  const FuncIR& entry = *fit->second;
  if (entry.kind != FuncKind::kJit && entry.kind != FuncKind::kHost)
    return absl::InvalidArgumentError(absl::StrCat(filename, ": '", options.entry,
                                                   "' is a ", entry.kind == FuncKind::kVector ? "@pl.vector_function" : "helper",
                                                   "; the entry must be the wrapper or the @pl.jit kernel"));

  Interp in(*prog, sink, options.target);
  int64_t input_elements = 0;
  for (const auto& t : inputs) input_elements += t.numel();
  in.limits = RunLimits::For(options.work_budget, options.memory_limit_bytes, input_elements);

  in.record_provenance = options.record_provenance;
  in.schedule_seed = options.schedule_seed;
  in.pipe_sync = options.pipe_sync;
  in.platform.vector_core_num = options.vector_core_num;
  in.platform.cube_core_num = options.cube_core_num;
  in.platform.core_num = options.cube_core_num;
  in.platform.soc_version = options.target == Target::kA5 ? "Ascend950" : "Ascend910_93";

  SimResult result;
  result.program_cached = hit;
  std::vector<Value> args;
  std::vector<std::shared_ptr<GmTensor>> bound;
  // Parameter names for the inputs.
  size_t ti = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = i < entry.params.size() ? entry.params[i].name : absl::StrCat("arg", i);
    auto g = ToGm(inputs[i], name);
    in.tensors.push_back(g);
    bound.push_back(g);
    args.push_back(Value::Obj(VK::kTensor, g));
    ++ti;
  }
  for (double s : options.scalar_args) {
    if (std::floor(s) == s && std::fabs(s) < 9e15) args.push_back(Value::Int(static_cast<int64_t>(s)));
    else args.push_back(Value::Float(s));
  }
  if (args.size() > entry.params.size())
    return absl::InvalidArgumentError(absl::StrFormat("%s: '%s' takes %d parameters but %d inputs were given", filename,
                                                      entry.name, entry.params.size(), args.size()));

  Value ret;
  try {
    in.RunModuleBody();
    Kwargs kw;
    if (entry.kind == FuncKind::kJit) {
      int64_t bd = options.block_dim > 0 ? options.block_dim : 1;
      const Value key = BracketDict(options.tiling_key, Value::Int);
      const Value datatype = BracketDict(options.datatype, Value::DTypeV);
      in.Launch(entry, bd, args, kw, entry.line, &key, &datatype);
    } else {
      if (!options.tiling_key.empty())
        return absl::InvalidArgumentError(absl::StrCat(filename, ": a tiling key is given for the kernel entry only; the "
                                                       "wrapper's launch names its own"));
      if (!options.datatype.empty())
        return absl::InvalidArgumentError(absl::StrCat(filename, ": a datatype dict is given for the kernel entry only; "
                                                       "the wrapper's launch names its own"));
      in.in_wrapper = true;
      in.block_dim_override = options.block_dim;
      ret = in.CallFunction(entry, args, kw, entry.line);
    }
    result.completed = true;
  } catch (const SimError& e) {
    sink.Report(e.code, e.line, e.what());
  } catch (const std::bad_alloc&) {
    sink.Report(hazard::kLimit, in.current_line, "out of host memory while simulating");
  }

  // Outputs.
  std::vector<std::pair<std::string, std::shared_ptr<GmTensor>>> outs;
  if (entry.kind == FuncKind::kJit) {
    for (const auto& g : bound)
      if (g->AnyWritten()) outs.emplace_back(g->name, g);
  } else if (result.completed) {
    if (ret.kind == VK::kTensor) {
      outs.emplace_back(ret.As<GmTensor>().name, ret.Ptr<GmTensor>());
    } else if (ret.IsSeq()) {
      for (const auto& v : ret.Items())
        if (v.kind == VK::kTensor) outs.emplace_back(v.As<GmTensor>().name, v.Ptr<GmTensor>());
    } else if (ret.kind != VK::kNone) {
      sink.Report(hazard::kRuntimeError, entry.line, "the wrapper returned a " + KindName(ret.kind) + ", not tensors");
    }
  }
  if (result.completed) {
    int line = in.launches.empty() ? entry.line : in.launches.back().line;
    if (in.launches.empty() && !outs.empty())
      sink.Report(hazard::kOutputUnwritten, entry.line, "the wrapper never launched a kernel");
    else
      for (const auto& [n, g] : outs) CheckCoverage(in, sink, *g, line);
  }
  for (const auto& [n, g] : outs) {
    const auto same = [&g = g](const auto& o) { return o.second == g; };
    auto t = FromGm(*g, std::count_if(outs.begin(), outs.end(), same) == 1);
    if (!t.ok()) return t.status();
    SimOutput o{n, *t, {}};
    if (options.record_provenance) {
      o.origin.resize(static_cast<size_t>(g->numel()));
      for (size_t i = 0; i < o.origin.size(); ++i) {
        ElementOrigin& e = o.origin[i];
        e.core = g->WriterOf(static_cast<int64_t>(i));
        if (i < g->origin.size()) {
          e.writer_line = g->origin[i].line;
          e.lane = g->origin[i].lane;
          e.active_lanes = g->origin[i].active;
          e.store_line = g->store_line[i];
        }
      }
    }
    result.outputs.push_back(std::move(o));
  }
  result.hazards = sink.Finish();
  result.stats.vf_ops = in.stats.vf_ops;
  result.stats.lane_ops = in.stats.lane_ops;
  result.stats.tile_elems = in.stats.tile_elems;
  result.stats.statements = in.stats.statements;
  result.stats.cores_run = in.stats.cores_run;
  result.stats.pipe_flags_pending = in.stats.pipe_flags_pending;
  result.stats.launches = static_cast<int64_t>(in.launches.size());
  result.stats.block_dim = in.launches.empty() ? 0 : in.launches.back().block_dim;
  result.stats.work = in.Work();
  result.stats.work_budget = in.limits.work_budget;
  return result;
}

}  // namespace

absl::StatusOr<SimResult> RunKernelSource(std::string_view source, const std::string& filename,
                                          const std::vector<precision::Tensor>& inputs,
                                          const SimOptions& options) {
  if (DigestLogPath().empty()) return RunSource(source, filename, inputs, options);
  const uint64_t key = RunKey(source, inputs, options);
  auto r = RunSource(source, filename, inputs, options);
  if (r.ok()) LogRun(filename, options.entry, key, *r);
  return r;
}

absl::StatusOr<SimResult> RunKernelFile(const std::string& path, const std::vector<precision::Tensor>& inputs,
                                        const SimOptions& options) {
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  return RunKernelSource(*text, path, inputs, options);
}

std::string HazardCatalogueJson() {
  boost::json::array arr;
  for (const auto& h : HazardCatalogue()) {
    boost::json::object o;
    o["code"] = std::string(h.code);
    o["severity"] = std::string(SeverityName(h.severity));
    o["category"] = std::string(h.category);
    o["summary"] = std::string(h.summary);
    arr.push_back(std::move(o));
  }
  return boost::json::serialize(arr);
}

}  // namespace opdev::sim
