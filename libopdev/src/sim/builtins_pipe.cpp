// Intra-core pipe synchronisation builtins (pl.system.sync_src / sync_dst, mutex_lock /
// mutex_unlock, bar_*, sync_all's and dump_data's full barrier) and the hooks that put every
// tile operation on its pipe: the pipe and the operands it writes come from the API catalog
// (a function's "pipe", or its data path by source and destination space; a parameter's
// "access"), the auto_mutex locks the frontend emits around operations on tiles of groups
// with mutex_ids are applied around it, and its accesses are checked against the other pipes
// (pipe_sync.h; docs/simulator.md, "Pipes of one core").
#include "builtins.h"

#include "opdev/api/catalog.h"

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"

#include <algorithm>
#include <unordered_map>

namespace opdev::sim {

struct PipeOpSpec {
  struct Operand {
    size_t pos = SIZE_MAX;  // positional index (SIZE_MAX: keyword only)
    std::string name;
    bool write = false;
  };
  const api::Function* fn = nullptr;
  std::optional<Pipe> pipe;  // fixed pipe (nullopt: by data path)
  std::vector<Operand> operands;
  bool vf = false;
  bool phase_op = false;  // matmul* / store*: phase= hands the Acc over through the unit flag
  bool matmul = false;
};

const PipeOpSpec* FindPipeOpSpec(const std::string& name) {
  static const std::unordered_map<std::string, PipeOpSpec> table = [] {
    std::unordered_map<std::string, PipeOpSpec> t;
    const api::Catalog& cat = api::Catalog::Builtin();
    for (const api::Function& f : cat.functions()) {
      if (f.pipe.empty() || f.name == "pl.getval" || f.name == "pl.setval") continue;  // element hooks
      PipeOpSpec s;
      s.fn = &f;
      if (f.pipe.find('|') == std::string::npos) s.pipe = ParsePipe(f.pipe);
      s.vf = absl::StartsWith(f.name, "vf.");
      s.matmul = absl::StartsWith(f.name, "pl.matmul");
      s.phase_op = s.matmul || f.name == "pl.store" || f.name == "pl.store_tile";
      size_t i = 0;
      for (const api::Param& p : f.params) {
        const bool positional = p.kind != api::ParamKind::kKeywordOnly;
        const bool operand = p.role == "tile" || p.role == "tile_or_scalar" || p.role == "tile_or_tensor" ||
                             p.role == "tensor" || p.role == "tile_or_group";
        if (operand && p.access != "none") s.operands.push_back({positional ? i : SIZE_MAX, p.name, p.access == "write"});
        if (positional) ++i;
      }
      if (!s.operands.empty()) t.emplace(f.name, std::move(s));
    }
    return t;
  }();
  auto it = table.find(name);
  return it == table.end() ? nullptr : &it->second;
}

bool BindsOnPipe(const PipeOpSpec& spec) { return spec.vf && spec.pipe && !spec.phase_op; }

namespace {

using BArgs = std::vector<Value>;

const Value* Operand(const PipeOpSpec::Operand& o, BArgs& pos, Kwargs& kw) {
  if (o.pos < pos.size()) return &pos[o.pos];
  for (auto& [k, v] : kw)
    if (k == o.name) return &v;
  return nullptr;
}

std::string_view SpaceLabel(MemSpace s) { return MemSpaceName(s); }

using Runs = std::vector<std::pair<uint64_t, uint64_t>>;

// The byte runs of a tile's valid window, sorted and merged.
void ComputeTileRuns(const Tile& t, int64_t rows, int64_t cols, Runs& out) {
  out.clear();
  const uint64_t es = t.elem_size();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols;) {
      const int64_t run = t.RowRun(c, cols);
      const uint64_t off = t.addr + t.ElementOffset(r, c);
      out.emplace_back(off, off + static_cast<uint64_t>(run) * es);
      c += run;
    }
  if (!std::is_sorted(out.begin(), out.end())) std::sort(out.begin(), out.end());
  size_t k = 0;
  for (size_t j = 1; j < out.size(); ++j) {
    if (out[j].first <= out[k].second) out[k].second = std::max(out[k].second, out[j].second);
    else out[++k] = out[j];
  }
  if (!out.empty()) out.resize(k + 1);
}

// What a tile's runs depend on: its address, type and valid window.
struct RunsKey {
  uint64_t addr;
  int64_t valid_rows, valid_cols, shape0, shape1;
  int dtype, space, layout, fractal, compact;
  bool operator==(const RunsKey&) const = default;
};
struct RunsKeyHash {
  size_t operator()(const RunsKey& k) const {
    uint64_t h = 1469598103934665603ULL;
    for (uint64_t v : {k.addr, static_cast<uint64_t>(k.valid_rows), static_cast<uint64_t>(k.valid_cols),
                       static_cast<uint64_t>(k.shape0), static_cast<uint64_t>(k.shape1),
                       static_cast<uint64_t>(k.dtype), static_cast<uint64_t>(k.space), static_cast<uint64_t>(k.layout),
                       static_cast<uint64_t>(k.fractal), static_cast<uint64_t>(k.compact)})
      h = (h ^ v) * 1099511628211ULL;
    return static_cast<size_t>(h);
  }
};

// The runs of `t`, memoised per thread: a kernel applies its operations to the same few tiles
// in every iteration, and a Cube tile's fractal rows make hundreds of runs to sort. The runs
// are a function of the key alone, so a hit is exact.
const Runs& TileRuns(const Tile& t) {
  static thread_local std::unordered_map<RunsKey, Runs, RunsKeyHash> memo;
  const RunsKey key{t.addr,
                    t.valid_rows,
                    t.valid_cols,
                    t.type.shape[0],
                    t.type.shape[1],
                    static_cast<int>(t.type.dtype),
                    static_cast<int>(t.type.space),
                    static_cast<int>(t.type.EffectiveLayout()),
                    t.type.fractal,
                    t.type.compact};
  auto it = memo.find(key);
  if (it != memo.end()) return it->second;
  if (memo.size() >= 4096) memo.clear();  // bounded: kernels use few distinct tiles
  int64_t rows = t.valid_rows;
  int64_t cols = t.valid_cols;
  if (rows <= 0 || cols <= 0) rows = t.type.shape[0], cols = t.type.shape[1];
  Runs& runs = memo[key];
  ComputeTileRuns(t, rows, cols, runs);
  return runs;
}

void ReportConflict(Interp& in, const PipeConflict& c, Pipe p, bool write, std::string_view op, MemSpace space,
                    const std::string& tile) {
  const std::string me(PipeName(p)), other(PipeName(c.other.pipe));
  const std::string where = absl::StrFormat("%s [0x%x, 0x%x) (tile '%s')", std::string(SpaceLabel(space)),
                                            c.begin, c.end, tile);
  const std::string evidence =
      absl::StrFormat("%s line %d; %s line %d", std::string(op), in.current_line, c.other.op, c.other.line);
  if (c.kind == PipeConflict::kMte2Waw) {
    in.sink.Report(hazard::kPipeWaw, in.current_line,
                   absl::StrFormat("MTE2 `%s` line %d writes %s again while the MTE2 write of `%s` line %d is not "
                                   "known complete and nothing read the bytes in between: call "
                                   "pl.system.bar_mte2() between the two loads (load.md)",
                                   std::string(op), in.current_line, where, c.other.op, c.other.line),
                   evidence);
    return;
  }
  const char* verb = c.kind == PipeConflict::kRaw ? "reads" : "writes";
  const char* theirs = c.kind == PipeConflict::kWar ? "read" : "written";
  in.sink.Report(hazard::kPipeRace, in.current_line,
                 absl::StrFormat("%s `%s` line %d %s %s %s by %s `%s` line %d: no %s->%s sync_src/sync_dst, mutex "
                                 "or barrier between them orders the two pipes (Tile_vector_computation.md: a "
                                 "make_tile tile gets no automatic sync)",
                                 me, std::string(op), in.current_line, verb, where, theirs, other, c.other.op,
                                 c.other.line, other, me),
                 evidence);
  (void)write;
}

// Records the accesses of `t` by the operation `epoch` on `p`.
void AccessTile(Interp& in, const Tile& t, Pipe p, uint32_t epoch, bool write, const char* op) {
  CoreContext& core = *in.core;
  if (!core.Owns(t.type.space)) return;  // another core's memory (cross_core_data.h)
  // Every run is recorded (the operation touches all of them); the first conflict is reported.
  bool reported = false;
  for (const auto& [b, e] : TileRuns(t)) {
    auto c = core.pipes.Access(t.type.space, b, e, p, epoch, write, in.current_line, op);
    if (c && !reported) {
      ReportConflict(in, *c, p, write, op, t.type.space, t.name);
      reported = true;
    }
  }
}

void MutexIds(const Value& v, MutexIdList& ids) {
  if (v.kind != VK::kTile) return;
  const std::vector<int64_t>& m = v.As<Tile>().mutex_ids;
  ids.insert(ids.end(), m.begin(), m.end());
}

void SortDistinct(MutexIdList& ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

}  // namespace

PipeOp PipeOpBefore(Interp& in, const XNode& call, std::vector<Value>& pos, Kwargs& kw) {
  PipeOp op;
  const PipeOpSpec* s = call.a->pipe_spec;
  if (!s || !in.core) return op;
  // The pipe: fixed, or the data path of the operands' spaces (store, move).
  std::optional<Pipe> pipe = s->pipe;
  if (!pipe) {
    std::string src, dst;
    for (const PipeOpSpec::Operand& o : s->operands) {
      const Value* v = Operand(o, pos, kw);
      if (!v) continue;
      std::string sp = v->kind == VK::kTile ? std::string(MemSpaceName(v->As<Tile>().type.space))
                       : v->kind == VK::kTensor ? "GM" : "";
      (o.write ? dst : src) = sp;
    }
    if (const api::DataPath* dp = api::Catalog::Builtin().FindDataPath(s->fn->name, src, dst)) pipe = ParsePipe(dp->pipe);
  }
  if (!pipe) return op;
  op.active = true;
  op.pipe = *pipe;
  PipeState& ps = in.core->pipes;
  // phase=: the Acc is handed over by the unit flag, not by its mutex (_call_parser.py).
  std::string phase;
  if (s->phase_op)
    for (auto& [k, v] : kw)
      if (k == "phase" && v.kind == VK::kEnum) phase = std::string(v.EnumMember());
  // auto_mutex: the positional tile operands' group mutex ids, locked on the op's pipe.
  if (in.core->auto_mutex && !s->vf) {
    for (const Value& v : pos) {
      if (v.kind != VK::kTile) continue;
      if (!phase.empty() && v.As<Tile>().type.space == MemSpace::kAcc) continue;
      MutexIds(v, op.ids);
    }
    SortDistinct(op.ids);
    for (int64_t id : op.ids) ps.Lock(op.pipe, id);
  }
  if (!phase.empty()) {
    for (const PipeOpSpec::Operand& o : s->operands) {
      const Value* v = Operand(o, pos, kw);
      if (!v || v->kind != VK::kTile || v->As<Tile>().type.space != MemSpace::kAcc) continue;
      op.acc = v->As<Tile>().addr;
      op.phase = s->matmul ? (phase == "Final" ? 2 : 1) : 3;
      break;
    }
    if (op.phase == 1 || op.phase == 2) ps.UnitFlagMatmul(op.acc, true, false);
    if (op.phase == 3) ps.UnitFlagStore(op.acc, true);
  }
  const uint32_t epoch = ps.Begin(op.pipe);
  // A vf.* register load or store reports the bytes it moves itself (PipeRegisterAccess): a
  // register reaches one row run of its tile, not the tile.
  if (s->vf) {
    in.pipe_reg_epoch = epoch;
    return op;
  }
  // Reads first: an in-place operation (pl.exp(t, t)) reads its operand before writing it.
  for (bool write : {false, true})
    for (const PipeOpSpec::Operand& o : s->operands) {
      const Value* v = Operand(o, pos, kw);
      if (o.write != write || !v || v->kind != VK::kTile) continue;  // GM: cross-core tracking only
      AccessTile(in, v->As<Tile>(), op.pipe, epoch, o.write, s->fn->name.c_str());
    }
  return op;
}

void PipeOpAfter(Interp& in, const PipeOp& op) {
  if (!op.active || !in.core) return;
  PipeState& ps = in.core->pipes;
  if (op.phase == 1 || op.phase == 2) ps.UnitFlagMatmul(op.acc, false, op.phase == 2);
  if (op.phase == 3) ps.UnitFlagStore(op.acc, false);
  for (int64_t id : op.ids) ps.Unlock(op.pipe, id);
}

void PipeVfRegisterOpBegin(Interp& in, const XNode& call) {
  const PipeOpSpec* s = call.a->pipe_spec;
  if (!s || !in.core || !in.in_kernel || !in.pipe_sync) return;
  in.pipe_reg_epoch = in.core->pipes.Begin(*s->pipe);
}

MutexIdList PipeVfCallBefore(Interp& in, std::vector<Value>& args, Kwargs& kw) {
  MutexIdList out;
  if (!in.core || !in.core->auto_mutex) return out;
  for (const Value& v : args) MutexIds(v, out);
  for (const auto& [k, v] : kw) MutexIds(v, out);
  SortDistinct(out);
  for (int64_t id : out) in.core->pipes.Lock(Pipe::kV, id);
  return out;
}

void PipeVfCallAfter(Interp& in, const MutexIdList& ids) {
  if (!in.core) return;
  for (int64_t id : ids) in.core->pipes.Unlock(Pipe::kV, id);
}

void PipeRegisterAccess(Interp& in, const Tile& t, uint64_t begin, uint64_t end, bool write, const char* what) {
  // Lanes past the tile's bytes (a 256-byte register over a narrower tile) carry nothing the
  // kernel uses; the range checks of the VF builtins report what lands outside a tile.
  if (t.size > 0) {
    begin = std::max(begin, t.addr);
    end = std::min(end, t.addr + t.size);
  }
  if (!in.core || !in.in_kernel || !in.pipe_sync || in.pipe_reg_epoch == 0 || begin >= end) return;
  if (!in.core->Owns(t.type.space)) return;
  if (auto c = in.core->pipes.Access(t.type.space, begin, end, Pipe::kV, in.pipe_reg_epoch, write, in.current_line, what))
    ReportConflict(in, *c, Pipe::kV, write, what, t.type.space, t.name);
}

void PipeScalarAccess(Interp& in, const Tile& t, uint64_t pos, uint64_t len, bool write, const char* what) {
  if (!in.core || !in.in_kernel || in.in_vf || !in.pipe_sync) return;
  PipeState& ps = in.core->pipes;
  MutexIdList ids;
  if (in.core->auto_mutex) ids.assign(t.mutex_ids.begin(), t.mutex_ids.end());
  SortDistinct(ids);
  for (int64_t id : ids) ps.Lock(Pipe::kS, id);
  const uint32_t epoch = ps.Begin(Pipe::kS);
  if (in.core->Owns(t.type.space))
    if (auto c = ps.Access(t.type.space, pos, pos + len, Pipe::kS, epoch, write, in.current_line, what))
      ReportConflict(in, *c, Pipe::kS, write, what, t.type.space, t.name);
  for (int64_t id : ids) ps.Unlock(Pipe::kS, id);
}

namespace {

Pipe PipeArg(const Args& a, std::string_view name, bool* ok) {
  const std::string s = a.EnumArg(99, name);
  if (s.empty()) a.Fail(absl::StrFormat("'%s' is required (a pl.PipeType member)", std::string(name)));
  auto p = ParsePipe(s);
  if (!p) {
    a.in().sink.Report(hazard::kPipeSync, a.line(),
                       absl::StrFormat("%s %s=PipeType.%s: the pipes are MTE2, V, MTE3, S, MTE1, M and FIX "
                                       "(sync_src_sync_dst.md, mutex_lock_mutex_unlock.md; PIPE_ALL is not a "
                                       "flag or mutex pipe)",
                                       a.fname(), std::string(name), s));
    *ok = false;
    return Pipe::kS;
  }
  return *p;
}

// Without the pipe model (SimOptions::pipe_sync off) the sync calls are no-ops.
bool InCore(Interp& in) { return in.core != nullptr && in.in_kernel && in.pipe_sync; }

struct FlagCall {
  Pipe set = Pipe::kS, wait = Pipe::kS;
  int64_t event = 0;
  bool ok = true;
};

FlagCall ParseFlag(const Args& a) {
  FlagCall f;
  f.set = PipeArg(a, "set_pipe", &f.ok);
  f.wait = PipeArg(a, "wait_pipe", &f.ok);
  f.event = a.Int(99, "event_id");
  if (f.event < 0 || f.event > 15) {
    a.in().sink.Report(hazard::kPipeSync, a.line(),
                       absl::StrFormat("%s event_id=%d outside 0..15 (sync_src_sync_dst.md)", a.fname(), f.event));
    f.ok = false;
  }
  if (f.ok && f.set == f.wait) {
    a.in().sink.ReportWithSeverity(
        hazard::kPipeSync, Severity::kWarning, a.line(),
        absl::StrFormat("%s with set_pipe == wait_pipe == %s orders nothing (sync_src_sync_dst.md: \"否则无意义\", "
                        "meaningless); a same-pipe order needs a barrier",
                        a.fname(), std::string(PipeName(f.set))));
    f.ok = false;
  }
  return f;
}

Value SyncSrc(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.system.sync_src");
  if (!InCore(in)) return Value::None();
  FlagCall f = ParseFlag(a);
  if (!f.ok) return Value::None();
  int prev = 0;
  if (!in.core->pipes.Set(f.set, f.wait, f.event, call.line, &prev))
    in.sink.Report(hazard::kPipeEventReuse, call.line,
                   absl::StrFormat("sync_src(%s -> %s, event_id=%d) at line %d sets a flag still set by line %d "
                                   "with no sync_dst in between: a flag is one bit, so this set is lost and one "
                                   "of the two waits hangs (Cube_matrix_computation.md: an event id is reused only "
                                   "after its previous sync was consumed)",
                                   std::string(PipeName(f.set)), std::string(PipeName(f.wait)), f.event, call.line,
                                   prev),
                   absl::StrFormat("earlier set at line %d", prev));
  return Value::None();
}

Value SyncDst(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.system.sync_dst");
  if (!InCore(in)) return Value::None();
  FlagCall f = ParseFlag(a);
  if (!f.ok) return Value::None();
  if (!in.core->pipes.Wait(f.set, f.wait, f.event))
    in.Fail(hazard::kPipeWaitNoSet, call.line,
            absl::StrFormat("sync_dst(%s -> %s, event_id=%d) on %s waits for a flag no sync_src set before it "
                            "(or whose set an earlier wait consumed): the %s pipe blocks for ever "
                            "(sync_src_sync_dst.md: set and wait are used in pairs, the set first)",
                            std::string(PipeName(f.set)), std::string(PipeName(f.wait)), f.event, in.core->Name(),
                            std::string(PipeName(f.wait))));
  return Value::None();
}

struct MutexCall {
  Pipe pipe = Pipe::kS;
  int64_t id = 0;
  bool ok = true;
};

MutexCall ParseMutex(const Args& a) {
  MutexCall m;
  m.pipe = PipeArg(a, "pipe", &m.ok);
  m.id = a.Int(99, "mutex_id");
  if (m.id < 0 || m.id > 31) {
    a.in().sink.Report(hazard::kPipeSync, a.line(),
                       absl::StrFormat("%s mutex_id=%d outside 0..31 (mutex_lock_mutex_unlock.md)", a.fname(), m.id));
    m.ok = false;
  }
  return m;
}

Value MutexLock(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.system.mutex_lock");
  if (!InCore(in)) return Value::None();
  MutexCall m = ParseMutex(a);
  if (!m.ok) return Value::None();
  PipeState& ps = in.core->pipes;
  if (auto it = ps.held.find(m.id); it != ps.held.end())
    in.sink.Report(hazard::kPipeSync, call.line,
                   absl::StrFormat("mutex_lock(%s, mutex_id=%d) while the lock of line %d (%s) is not released: "
                                   "pairs of one id must not nest (asc_lock: the hardware behaviour is "
                                   "unpredictable)",
                                   std::string(PipeName(m.pipe)), m.id, it->second.second,
                                   std::string(PipeName(it->second.first))));
  ps.held[m.id] = {m.pipe, call.line};
  ps.Lock(m.pipe, m.id);
  return Value::None();
}

Value MutexUnlock(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.system.mutex_unlock");
  if (!InCore(in)) return Value::None();
  MutexCall m = ParseMutex(a);
  if (!m.ok) return Value::None();
  PipeState& ps = in.core->pipes;
  auto it = ps.held.find(m.id);
  if (it == ps.held.end()) {
    in.sink.Report(hazard::kPipeSync, call.line,
                   absl::StrFormat("mutex_unlock(%s, mutex_id=%d) without a mutex_lock of that id before it "
                                   "(mutex_lock_mutex_unlock.md: lock and unlock are strictly paired)",
                                   std::string(PipeName(m.pipe)), m.id));
  } else if (it->second.first != m.pipe) {
    in.sink.Report(hazard::kPipeSync, call.line,
                   absl::StrFormat("mutex_unlock(%s, mutex_id=%d) releases a lock taken on %s at line %d: lock and "
                                   "unlock of one id use the same pipe (mutex_lock_mutex_unlock.md)",
                                   std::string(PipeName(m.pipe)), m.id, std::string(PipeName(it->second.first)),
                                   it->second.second));
  }
  if (it != ps.held.end()) ps.held.erase(it);
  ps.Unlock(m.pipe, m.id);
  return Value::None();
}

template <Pipe P>
Value BarPipe(Interp& in, const XNode&, BArgs&, Kwargs&) {
  if (InCore(in)) in.core->pipes.Barrier(P);
  return Value::None();
}

Value BarAll(Interp& in, const XNode&, BArgs&, Kwargs&) {
  if (InCore(in)) in.core->pipes.BarrierAll();
  return Value::None();
}

}  // namespace

void FinishPipes(Interp& in, CoreContext& core, bool completed) {
  if (!in.pipe_sync) return;
  in.stats.pipe_flags_pending += static_cast<int64_t>(core.pipes.PendingFlags());
  core.pipes.DropRuns();
  if (!completed) return;
  for (const auto& [id, h] : core.pipes.held)
    in.sink.Report(hazard::kPipeSync, h.second,
                   absl::StrFormat("mutex_lock(%s, mutex_id=%d) is never released before %s ends "
                                   "(mutex_lock_mutex_unlock.md: lock and unlock are strictly paired)",
                                   std::string(PipeName(h.first)), id, core.Name()));
}

void RegisterPipeBuiltins(BuiltinTable& t) {
  t["pl.system.sync_src"] = SyncSrc;
  t["pl.system.sync_dst"] = SyncDst;
  t["pl.system.mutex_lock"] = MutexLock;
  t["pl.system.mutex_unlock"] = MutexUnlock;
  t["pl.system.bar_m"] = BarPipe<Pipe::kM>;
  t["pl.system.bar_mte1"] = BarPipe<Pipe::kMte1>;
  t["pl.system.bar_mte2"] = BarPipe<Pipe::kMte2>;
  t["pl.system.bar_mte3"] = BarPipe<Pipe::kMte3>;
  t["pl.system.bar_fix"] = BarPipe<Pipe::kFix>;
  t["pl.system.bar_all"] = BarAll;
  // sync_all waits for every pipe's earlier work (sync_all.md:53); dump_data issues
  // pipe_barrier(PIPE_ALL) (pypto_tprint.h).
  t["pl.system.sync_all"] = BarAll;
  t["pl.dump_data"] = BarAll;
}

}  // namespace opdev::sim
