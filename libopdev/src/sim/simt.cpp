// SIMT launches: `pl.simt.launch(fn, threads=..., args=(...))` runs a `@pl.simt.function` once
// per thread of a 1-3-D grid (x-major order; the result does not depend on it when the threads
// do not race), its context queries (`pl.simt.thread_idx()`, `block_dim()`, `block_idx()`,
// `grid_dim()`, `linear_thread_idx()`), and the cross-thread race check of element accesses.
#include "simt.h"

#include "builtins.h"

#include "opdev/sim/hazards.h"

#include "absl/strings/str_format.h"

namespace opdev::sim {

void SimtAccess(Interp& in, const void* buffer, uint64_t pos, bool write, int line, const char* kind,
                const std::string& name, int64_t element) {
  SimtLaunch* s = in.simt;
  if (!s) return;
  SimtLaunch::Cell& c = s->cells[{buffer, pos}];
  const int64_t t = s->linear;
  auto race = [&](const char* what, int64_t other, int other_line) {
    if (s->race_reported) return;
    s->race_reported = true;
    in.sink.Report(hazard::kSimtRace, line,
                   absl::StrFormat("%s race in pl.simt.launch of '%s' (line %d): thread %d %s element %d of %s '%s', "
                                   "which thread %d %s at line %d; SIMT threads run concurrently and PyPTO-Pro's "
                                   "SIMT has no barrier, so the result depends on their timing",
                                   what, s->callee, s->line, t, write ? "writes" : "reads", element, kind, name,
                                   other, c.writer == other ? "wrote" : "read", other_line));
  };
  if (c.writer >= 0 && c.writer != t) race(write ? "write-write" : "read-after-write", c.writer, c.write_line);
  if (write && c.reader >= 0 && c.reader != t) race("write-after-read", c.reader, c.read_line);
  if (write) {
    c.writer = t;
    c.write_line = line;
  } else if (c.reader < 0 || c.reader == t) {
    c.reader = t;
    c.read_line = line;
  }
}

namespace {

Value Dim3(int64_t x, int64_t y, int64_t z) {
  auto obj = std::make_shared<HostObject>();
  obj->type_name = "dim3";
  obj->fields = {{"x", Value::Int(x)}, {"y", Value::Int(y)}, {"z", Value::Int(z)}};
  return Value::Obj(VK::kObject, obj);
}

SimtLaunch& Context(Interp& in, const XNode& call, std::vector<Value>& pos, Kwargs& kw, const char* what) {
  if (!in.simt)
    in.Fail(hazard::kRuntimeError, call.line,
            std::string(what) + "() can only be used inside a SIMT function (a @pl.simt.function run by "
                                "pl.simt.launch; simt_ops.py)");
  if (!pos.empty() || !kw.empty())
    in.Fail(hazard::kRuntimeError, call.line, std::string(what) + "() takes no arguments");
  return *in.simt;
}

Value ThreadIdx(Interp& in, const XNode& call, std::vector<Value>& pos, Kwargs& kw) {
  SimtLaunch& s = Context(in, call, pos, kw, "pl.simt.thread_idx");
  return Dim3(s.thread[0], s.thread[1], s.thread[2]);
}
Value BlockDim(Interp& in, const XNode& call, std::vector<Value>& pos, Kwargs& kw) {
  SimtLaunch& s = Context(in, call, pos, kw, "pl.simt.block_dim");
  return Dim3(s.dims[0], s.dims[1], s.dims[2]);
}
// The outer grid is the kernel's launch on the AIVs: x is the AIV's index as pl.get_block_idx()
// gives it, and the grid's x the number of AIVs (block_dim; twice that in a mixed kernel, an
// assumption: the docs do not describe SIMT in mixed kernels).
Value BlockIdx(Interp& in, const XNode& call, std::vector<Value>& pos, Kwargs& kw) {
  Context(in, call, pos, kw, "pl.simt.block_idx");
  return Dim3(in.core ? in.core->BlockIdx() : 0, 0, 0);
}
Value GridDim(Interp& in, const XNode& call, std::vector<Value>& pos, Kwargs& kw) {
  Context(in, call, pos, kw, "pl.simt.grid_dim");
  return Dim3(in.core ? in.core->block_num * in.core->subblock_num : 1, 1, 1);
}
Value LinearThreadIdx(Interp& in, const XNode& call, std::vector<Value>& pos, Kwargs& kw) {
  return Value::Int(Context(in, call, pos, kw, "pl.simt.linear_thread_idx").linear);
}
Value WarpSize(Interp& in, const XNode& call, std::vector<Value>& pos, Kwargs& kw) {
  Context(in, call, pos, kw, "pl.simt.warp_size");
  in.Fail(hazard::kUnsupported, call.line,
          "pl.simt.warp_size(): the warp size of the target is not documented (the backend emits the device's "
          "warpSize), so the simulator does not guess it");
}

Value Launch(Interp& in, const XNode& call, std::vector<Value>& pos, Kwargs& kw) {
  const int line = call.line;
  if (in.simt) in.Fail(hazard::kRuntimeError, line, "nested pl.simt.launch is not supported (simt_ops.py)");
  if (!in.in_kernel || !in.core || in.core->kind != CoreKind::kAiv || in.in_vf)
    in.Fail(hazard::kRuntimeError, line,
            "pl.simt.launch runs a SIMT function from a pl.section_vector() of a kernel (simt_ops.py: it "
            "requires the Vector target)");
  if (pos.size() != 1 || pos[0].kind != VK::kFunc)
    in.Fail(hazard::kRuntimeError, line,
            "pl.simt.launch() requires one SIMT function name as its positional argument: "
            "pl.simt.launch(fn, threads=256, args=(out, n))");
  const FuncIR& f = *pos[0].As<const FuncIR*>();
  if (f.kind != FuncKind::kSimt || !f.simt_max_threads)
    in.Fail(hazard::kRuntimeError, line,
            "'" + f.name + "' is not a launchable @pl.simt.function (one with max_threads=...; a "
                           "@pl.simt.function without it is a helper SIMT functions call)");
  Frame module_scope;  // max_threads is evaluated like a default value: module names only
  const int64_t max_threads = in.ToInt(in.Eval(*f.simt_max_threads, module_scope), f.line, "max_threads");
  if (max_threads < 1 || max_threads > 2048)
    in.Fail(hazard::kRuntimeError, f.line,
            absl::StrFormat("@pl.simt.function '%s': max_threads must be in the range [1, 2048], got %d", f.name,
                            max_threads));
  const Value* threads = nullptr;
  const Value* args = nullptr;
  for (const auto& [k, v] : kw) {
    if (k == "threads" && !threads) threads = &v;
    else if (k == "args" && !args) args = &v;
    else in.Fail(hazard::kRuntimeError, line, "pl.simt.launch() accepts exactly the 'threads' and 'args' keyword arguments");
  }
  if (!threads || !args) in.Fail(hazard::kRuntimeError, line, "pl.simt.launch() requires both threads= and args=");
  if (args->kind != VK::kTuple)
    in.Fail(hazard::kRuntimeError, line, "pl.simt.launch() args must be a tuple (args=(out,) for one argument)");
  SimtLaunch s;
  s.callee = f.name;
  s.line = line;
  std::vector<Value> dims = threads->kind == VK::kTuple ? threads->Items() : std::vector<Value>{*threads};
  if (dims.empty() || dims.size() > 3)
    in.Fail(hazard::kRuntimeError, line, "pl.simt.launch() threads tuple must contain one to three dimensions");
  int64_t total = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    s.dims[i] = in.ToInt(dims[i], line, "threads");
    if (s.dims[i] < 1) in.Fail(hazard::kRuntimeError, line, absl::StrFormat("threads dimension %d is %d, not >= 1", i, s.dims[i]));
    total *= s.dims[i];
    if (total > max_threads) break;
  }
  if (total > max_threads)
    in.Fail(hazard::kRuntimeError, line,
            absl::StrFormat("pl.simt.launch of '%s' with %d threads per block exceeds its max_threads=%d",
                            f.name, total, max_threads));
  in.simt = &s;
  struct Reset {
    Interp& in;
    ~Reset() { in.simt = nullptr; }
  } reset{in};
  for (int64_t z = 0; z < s.dims[2]; ++z)
    for (int64_t y = 0; y < s.dims[1]; ++y)
      for (int64_t x = 0; x < s.dims[0]; ++x) {
        s.thread[0] = x;
        s.thread[1] = y;
        s.thread[2] = z;
        s.linear = x + y * s.dims[0] + z * s.dims[0] * s.dims[1];
        std::vector<Value> a = args->Items();
        Kwargs none;
        in.CallFunction(f, a, none, line);
      }
  return Value::None();
}

}  // namespace

void RegisterSimtBuiltins(BuiltinTable& t) {
  t["pl.simt.launch"] = Launch;
  t["pl.simt.thread_idx"] = ThreadIdx;
  t["pl.simt.block_dim"] = BlockDim;
  t["pl.simt.block_idx"] = BlockIdx;
  t["pl.simt.grid_dim"] = GridDim;
  t["pl.simt.linear_thread_idx"] = LinearThreadIdx;
  t["pl.simt.warp_size"] = WarpSize;
}

}  // namespace opdev::sim
