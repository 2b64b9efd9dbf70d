// A kernel launch from a host program (launch.h): the file's lowered program comes from a
// process-wide cache of lowered sources (program_cache.h); the host's module values replace the
// simulator's own evaluation; tensors are copied in from and back to the caller's memory;
// only findings inside the functions the kernel reaches are reported.
#include "opdev/sim/launch.h"

#include "interpreter.h"
#include "program.h"
#include "program_cache.h"
#include "run_digest.h"

#include "opdev/support/file_io.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace opdev::sim {

namespace {

// Line ranges of the kernel and every function it calls, transitively; `passed` are the
// functions the host passes as closure values (called by a name the source cannot resolve).
std::vector<std::pair<int, int>> ReachableRanges(const Program& prog, const FuncIR& kernel,
                                                 const std::vector<const FuncIR*>& passed) {
  std::vector<std::pair<int, int>> ranges;
  std::set<const FuncIR*> seen{&kernel};
  std::vector<const FuncIR*> work{&kernel};
  for (const FuncIR* f : passed)
    if (seen.insert(f).second) work.push_back(f);
  while (!work.empty()) {
    const FuncIR* f = work.back();
    work.pop_back();
    int first = f->def->span.line;
    for (const auto& d : f->def->decorator_list) first = std::min(first, d->span.line);
    ranges.emplace_back(first, std::max(f->def->span.end_line, f->def->span.line));
    py::ForEachCall(*f->def, [&](const py::Expr& call) {
      if (call.func->kind != py::ExprKind::kName) return;
      const FuncIR* callee = ResolveCallee(prog, *f, call.func->id);
      if (!callee || !seen.insert(callee).second) return;
      work.push_back(callee);
    });
  }
  return ranges;
}

bool InRanges(int line, const std::vector<std::pair<int, int>>& ranges) {
  for (const auto& [a, b] : ranges)
    if (line >= a && line <= b) return true;
  return false;
}

class Converter {
 public:
  Converter(std::vector<std::shared_ptr<GmTensor>>& gm, const Program& prog) : gm_(gm), prog_(prog) {}

  absl::StatusOr<Value> Convert(const HostValue& h, const std::string& where) {
    switch (h.kind) {
      case HostValue::Kind::kNone: return Value::None();
      case HostValue::Kind::kBool: return Value::Bool(h.i != 0);
      case HostValue::Kind::kInt: return Value::Int(h.i);
      case HostValue::Kind::kFloat: return Value::Float(h.f);
      case HostValue::Kind::kStr: return Value::Str(h.s);
      case HostValue::Kind::kTensor: {
        if (h.i < 0 || h.i >= static_cast<int64_t>(gm_.size()))
          return absl::InvalidArgumentError(absl::StrFormat("%s: tensor index %d out of range (%d tensors)", where,
                                                            h.i, gm_.size()));
        return Value::Obj(VK::kTensor, gm_[h.i]);
      }
      case HostValue::Kind::kTuple: case HostValue::Kind::kList: {
        std::vector<Value> items;
        for (size_t i = 0; i < h.items.size(); ++i) {
          auto v = Convert(h.items[i], absl::StrCat(where, "[", i, "]"));
          if (!v.ok()) return v.status();
          items.push_back(std::move(*v));
        }
        return h.kind == HostValue::Kind::kTuple ? Value::TupleV(std::move(items)) : Value::ListV(std::move(items));
      }
      case HostValue::Kind::kObject: {
        auto obj = std::make_shared<HostObject>();
        obj->type_name = h.s.empty() ? "object" : h.s;
        for (const auto& [k, fv] : h.fields) {
          auto v = Convert(fv, absl::StrCat(where, ".", k));
          if (!v.ok()) return v.status();
          obj->fields.emplace_back(k, std::move(*v));
        }
        return Value::Obj(VK::kObject, obj);
      }
      case HostValue::Kind::kConstant: {
        Value c;
        if (FindConstant(h.s, &c)) return c;
        return absl::InvalidArgumentError(absl::StrCat(where, ": unknown PyPTO-Pro constant '", h.s, "'"));
      }
      case HostValue::Kind::kFunction: {
        const FuncIR* f = FindFunction(prog_, h.s, static_cast<int>(h.i));
        // Not a def of the file (a lambda, a function of another module): an error where it is used.
        if (!f)
          return Value::Unavailable(absl::StrFormat("it holds function '%s' (line %d), which is not a def of %s",
                                                    h.s, h.i, prog_.file));
        return Value::Obj(VK::kFunc, std::make_shared<const FuncIR*>(f));
      }
    }
    return absl::InternalError("unknown host value kind");
  }

 private:
  std::vector<std::shared_ptr<GmTensor>>& gm_;
  const Program& prog_;
};

}  // namespace

void ClearLaunchCache() { ClearProgramCache(); }

namespace {

// `gm_out` (digest log only): receives the launch's GM tensors.
absl::StatusOr<LaunchResult> Launch(const LaunchRequest& req, std::vector<std::shared_ptr<GmTensor>>* gm_out) {
  try {
    if (req.block_dim <= 0)
      return absl::InvalidArgumentError(absl::StrCat("block_dim must be a positive integer, got ", req.block_dim));
    for (size_t i = 0; i < req.tensors.size(); ++i) {
      const auto& t = req.tensors[i];
      int64_t n = 1;
      for (int64_t d : t.shape) {
        if (d < 0) return absl::InvalidArgumentError(absl::StrCat("tensor ", i, " ('", t.name, "') has a negative dimension"));
        n *= d;
      }
      if (n > 0 && !t.data) return absl::InvalidArgumentError(absl::StrCat("tensor ", i, " ('", t.name, "') has no data"));
    }
    LaunchResult result;
    auto text = ReadTextFile(req.file);
    if (!text.ok()) return text.status();
    auto cached = GetLoweredProgram(req.file, *text, &result.cache_hit);
    if (!cached.ok()) return cached.status();
    LoweredProgram& cp = **cached;
    std::lock_guard<std::mutex> run_lock(cp.run_mu);
    Program& prog = *cp.prog;
    const FuncIR* found = FindFunction(prog, req.kernel, req.line);
    if (!found) {
      std::vector<std::string> names;
      for (const auto& [n, f] : prog.funcs)
        if (f->kind == FuncKind::kJit) names.push_back(f->name);
      return absl::NotFoundError(absl::StrCat(req.file, ": no @pl.jit function '", req.kernel, "'",
                                              req.line > 0 ? absl::StrCat(" defined at line ", req.line) : "",
                                              " (kernels: ", names.empty() ? "none" : absl::StrJoin(names, ", "),
                                              "); kernels are module-level functions or functions defined inside "
                                              "module-level functions"));
    }
    const FuncIR& kernel = *found;
    if (kernel.kind != FuncKind::kJit)
      return absl::InvalidArgumentError(absl::StrCat(req.file, ":", kernel.line, ": '", req.kernel,
                                                     "' is not a @pl.jit kernel"));
    std::vector<const FuncIR*> passed;
    for (const auto& [name, hv] : req.globals)
      if (hv.kind == HostValue::Kind::kFunction)
        if (const FuncIR* f = FindFunction(prog, hv.s, static_cast<int>(hv.i))) passed.push_back(f);
    auto ranges = ReachableRanges(prog, kernel, passed);

    // Compile-time checks: the frontend rejects API misuse before anything runs.
    if (req.check_api) {
      Diagnostics api;
      for (const auto& d : cp.Api().items())
        if (InRanges(d.line, ranges)) api.Add(d);
      if (api.HasErrors()) {
        result.rejected = true;
        result.hazards = std::move(api);
        return result;
      }
      for (const auto& d : api.items()) result.hazards.Add(d);
    }

    // Fresh module values, then the host's.
    RestoreModuleState(prog, cp.initial_globals);
    std::vector<std::shared_ptr<GmTensor>> gm;
    for (const auto& t : req.tensors) {
      gm.push_back(GmTensor::MakeCopy(t.name, t.dtype, t.shape, t.data));
    }
    if (gm_out) *gm_out = gm;
    Converter conv(gm, prog);
    std::vector<std::pair<std::string, Value>> globals;
    for (const auto& [name, hv] : req.globals) {
      auto v = conv.Convert(hv, "global '" + name + "'");
      if (!v.ok()) return v.status();
      globals.emplace_back(name, std::move(*v));
    }
    std::vector<Value> args;
    for (size_t i = 0; i < req.args.size(); ++i) {
      std::string pname = i < kernel.params.size() ? kernel.params[i].name : absl::StrCat(i);
      auto v = conv.Convert(req.args[i], absl::StrCat("argument '", pname, "'"));
      if (!v.ok()) return v.status();
      args.push_back(std::move(*v));
    }
    Kwargs kw;
    for (const auto& [k, hv] : req.kwargs) {
      auto v = conv.Convert(hv, "argument '" + k + "'");
      if (!v.ok()) return v.status();
      kw.emplace_back(k, std::move(*v));
    }

    std::optional<Value> key;
    if (req.tiling_key) {
      std::vector<Value> kv;
      for (const auto& [k, hv] : *req.tiling_key) {
        auto v = conv.Convert(hv, "tiling key field '" + k + "'");
        if (!v.ok()) return v.status();
        kv.push_back(Value::Str(k));
        kv.push_back(std::move(*v));
      }
      key = Value::TupleV(std::move(kv));
      key->kind = VK::kDict;
    }

    HazardSink sink(req.file);
    const Diagnostics lowering = cp.lowering.Finish();
    for (const auto& d : lowering.items())
      if (InRanges(d.line, ranges)) sink.ReportWithSeverity(d.code, d.severity, d.line, d.message, d.evidence);
    Interp in(prog, sink, req.target);
    if (req.tiling_key_schema) {
      auto schema = std::make_shared<TilingKeySchema>();
      schema->cls = req.tiling_key_schema->cls;
      schema->line = kernel.line;
      for (const auto& [name, values] : req.tiling_key_schema->fields) schema->fields.push_back({name, values});
      in.host_tiling_key = std::move(schema);
    }
    in.host_datatype = true;  // the host passes the datatype variables among the globals
    int64_t input_elements = 0;
    for (const auto& g : gm) input_elements += g->numel();
    in.limits = RunLimits::For(req.work_budget, req.memory_limit_bytes, input_elements);
    in.schedule_seed = req.schedule_seed;
    in.pipe_sync = req.pipe_sync;
    in.platform.vector_core_num = req.vector_core_num;
    in.platform.cube_core_num = req.cube_core_num;
    in.platform.core_num = req.cube_core_num;
    in.platform.soc_version = req.target == Target::kA5 ? "Ascend950" : "Ascend910_93";
    for (const auto& t : gm) in.tensors.push_back(t);
    try {
      in.RunModuleBody();
      for (auto& [name, v] : globals) prog.globals[name] = std::move(v);
      in.Launch(kernel, req.block_dim, args, kw, kernel.line, key ? &*key : nullptr);
      result.completed = true;
    } catch (const SimError& e) {
      sink.Report(e.code, e.line, e.what());
    } catch (const std::bad_alloc&) {
      sink.Report(hazard::kRuntimeError, in.current_line, "out of memory while simulating");
    }
    // Copy back every tensor some core wrote (unwritten elements still hold the input).
    for (size_t i = 0; i < gm.size(); ++i) {
      if (!gm[i]->AnyWritten()) continue;
      if (!gm[i]->data.empty()) std::memcpy(req.tensors[i].data, gm[i]->data.data(), gm[i]->data.size());
      result.written.push_back(static_cast<int64_t>(i));
    }
    Diagnostics run = sink.Finish();
    for (const auto& d : run.items()) result.hazards.Add(d);
    result.hazards.Sort();
    result.stats.vf_ops = in.stats.vf_ops;
    result.stats.lane_ops = in.stats.lane_ops;
    result.stats.tile_elems = in.stats.tile_elems;
    result.stats.statements = in.stats.statements;
    result.stats.cores_run = in.stats.cores_run;
    result.stats.pipe_flags_pending = in.stats.pipe_flags_pending;
    result.stats.launches = static_cast<int64_t>(in.launches.size());
    result.stats.block_dim = in.launches.empty() ? 0 : in.launches.back().block_dim;
    return result;
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("internal error: ", e.what()));
  }
}

}  // namespace

absl::StatusOr<LaunchResult> LaunchKernel(const LaunchRequest& req) {
  if (DigestLogPath().empty()) return Launch(req, nullptr);
  std::vector<std::shared_ptr<GmTensor>> gm;
  auto r = Launch(req, &gm);
  auto text = ReadTextFile(req.file);
  if (r.ok()) LogLaunch(text.ok() ? std::string_view(*text) : std::string_view(), req, gm, *r);
  return r;
}

}  // namespace opdev::sim
