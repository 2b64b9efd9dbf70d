// Cross-core sync builtins: pl.system.set_cross_core / wait_cross_core on the launch's
// CrossCoreSync (events, vector clocks) and CoreScheduler (a wait blocks its core); the same
// set and wait serve the events the pipeline transform inserts (pipeline_stage.h).
#include "builtins.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <algorithm>
#include <set>

namespace opdev::sim {

namespace {

using BArgs = std::vector<Value>;

struct CrossCall {
  std::string pipe;
  int event = 0;
  CrossMode mode = CrossMode::kIntraBlock;
};

CrossCall ParseCross(const Args& a) {
  Interp& in = a.in();
  if (!in.in_kernel || !in.core || !in.xsync) a.Fail("only valid inside a @pl.jit kernel");
  CrossCall c;
  // set_cross_core_wait_cross_core.md: the pipes a set or wait may sit on.
  static const std::set<std::string> pipes = {"MTE1", "MTE2", "MTE3", "V", "S", "FIX"};
  c.pipe = a.EnumArg(99, "pipe");
  if (c.pipe.empty()) a.Fail("'pipe' is required (a pl.PipeType member)");
  if (!pipes.count(c.pipe))
    in.Fail(hazard::kCrossSync, a.line(),
            absl::StrFormat("%s pipe=PipeType.%s: the cross-core pipes are MTE1, MTE2, MTE3, V, S and FIX "
                            "(set_cross_core_wait_cross_core.md)",
                            a.fname(), c.pipe));
  const int64_t ev = a.Int(99, "event_id");
  if (ev < 0 || ev > 15)
    in.Fail(hazard::kCrossSync, a.line(),
            absl::StrFormat("%s event_id=%d outside 0..15 (set_cross_core_wait_cross_core.md)", a.fname(), ev));
  c.event = static_cast<int>(ev);
  const std::string m = a.EnumArg(99, "sync_mode");
  if (m.empty() || m == "INTRA_BLOCK") c.mode = CrossMode::kIntraBlock;
  else if (m == "INTER_BLOCK") c.mode = CrossMode::kInterBlock;
  else if (m == "INTER_SUBBLOCK") c.mode = CrossMode::kInterSubblock;
  else if (m == "UNICAST_BLOCK") c.mode = CrossMode::kUnicastBlock;
  else a.Fail("unknown sync_mode CrossCoreSyncMode." + m);
  return c;
}

Value SetCrossCore(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.system.set_cross_core");
  CrossCall c = ParseCross(a);
  CrossCoreSet(in, c.mode, c.event, ParsePipe(c.pipe), call.line, a.fname());
  return Value::None();
}

Value WaitCrossCore(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.system.wait_cross_core");
  CrossCall c = ParseCross(a);
  CrossCoreWait(in, c.mode, c.event, ParsePipe(c.pipe), call.line, a.fname(), "pipe " + c.pipe);
  return Value::None();
}

}  // namespace

void CrossCoreSet(Interp& in, CrossMode mode, int event, std::optional<Pipe> pipe, int line, std::string_view what) {
  const int self = in.core->ordinal;
  // The set publishes its pipe's clock (set_flag semantics: after the pipe's earlier work);
  // without a pipe, every pipe's (a set after all of the core's earlier work).
  std::vector<uint32_t> pipes;
  if (in.pipe_sync) {
    if (pipe) {
      pipes = in.core->pipes.Publish(*pipe);
    } else {
      for (int p = 0; p < kNumPipes; ++p) {
        const PipeClock c = in.core->pipes.Publish(static_cast<Pipe>(p));
        if (pipes.size() < c.size()) pipes.resize(c.size(), 0);
        for (size_t i = 0; i < c.size(); ++i) pipes[i] = std::max(pipes[i], c[i]);
      }
    }
  }
  CrossCoreSync::SetResult r = in.xsync->Set(self, mode, event, line, pipes);
  if (!r.error.empty())
    in.Fail(hazard::kCrossSync, line,
            absl::StrFormat("%s(event_id=%d, %s) on %s: %s", what, event, std::string(CrossModeName(mode)),
                            in.core->Name(), r.error));
  if (r.reused_line > 0)
    in.sink.Report(hazard::kEventReuse, line,
                   absl::StrFormat("%s sets cross-core event %d (%s) at line %d while %zu earlier sets of it (the "
                                   "first at line %d) may still be counted on %s: no wait of %s on a set %s made "
                                   "after consuming them orders them before this one, and a flag counts at most "
                                   "%zu sets (Ascend C CrossCoreSetFlag), so the counter can overflow; give the "
                                   "producer a credit event back before it runs that far ahead",
                                   in.core->Name(), event, std::string(CrossModeName(mode)), line,
                                   r.in_flight, r.reused_line, r.reused_receiver, in.core->Name(),
                                   r.reused_receiver, kFlagDepth),
                   absl::StrFormat("first counted set at line %d, this set at line %d", r.reused_line, line));
  in.sched->Yield(self);
}

void CrossCoreWait(Interp& in, CrossMode mode, int event, std::optional<Pipe> pipe, int line, std::string_view what,
                   const std::string& where) {
  const int self = in.core->ordinal;
  std::string bad = in.xsync->CheckWait(self, mode, event);
  if (!bad.empty())
    in.Fail(hazard::kCrossSync, line,
            absl::StrFormat("%s(event_id=%d, %s) on %s: %s", what, event, std::string(CrossModeName(mode)),
                            in.core->Name(), bad));
  CrossCoreSync& sync = *in.xsync;
  in.sched->WaitUntil(
      self, [&sync, self, mode, event] { return sync.CanWait(self, mode, event); }, line,
      absl::StrFormat("cross-core event %d (%s, %s) from %s", event, std::string(CrossModeName(mode)), where,
                      sync.WaitSources(self, mode)));
  std::vector<uint32_t> pipes;
  sync.Consume(self, mode, event, &pipes);
  // The waiting pipe learns the sets' clocks; without a pipe, every pipe does (S: the scalar
  // unit stalls and issues everything later after it).
  if (in.pipe_sync && !pipes.empty()) in.core->pipes.Join(pipe ? *pipe : Pipe::kS, pipes);
}

void RegisterSyncBuiltins(BuiltinTable& t) {
  t["pl.system.set_cross_core"] = SetCrossCore;
  t["pl.system.wait_cross_core"] = WaitCrossCore;
}

}  // namespace opdev::sim
