// Cross-core sync builtins: pl.system.set_cross_core / wait_cross_core on the launch's
// CrossCoreSync (events, vector clocks) and CoreScheduler (a wait blocks its core).
#include "builtins.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

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
  const int self = in.core->ordinal;
  // The set publishes its pipe's clock (set_flag semantics: after the pipe's earlier work).
  std::vector<uint32_t> pipes;
  if (auto p = ParsePipe(c.pipe); p && in.pipe_sync) pipes = in.core->pipes.Publish(*p);
  CrossCoreSync::SetResult r = in.xsync->Set(self, c.mode, c.event, call.line, pipes);
  if (!r.error.empty())
    in.Fail(hazard::kCrossSync, call.line,
            absl::StrFormat("%s(event_id=%d, %s) on %s: %s", a.fname(), c.event,
                            std::string(CrossModeName(c.mode)), in.core->Name(), r.error));
  if (r.reused_line > 0)
    in.sink.Report(hazard::kEventReuse, call.line,
                   absl::StrFormat("%s sets cross-core event %d (%s) at line %d while %zu earlier sets of it (the "
                                   "first at line %d) may still be counted on %s: no wait of %s on a set %s made "
                                   "after consuming them orders them before this one, and a flag counts at most "
                                   "%zu sets (Ascend C CrossCoreSetFlag), so the counter can overflow; give the "
                                   "producer a credit event back before it runs that far ahead",
                                   in.core->Name(), c.event, std::string(CrossModeName(c.mode)), call.line,
                                   r.in_flight, r.reused_line, r.reused_receiver, in.core->Name(),
                                   r.reused_receiver, kFlagDepth),
                   absl::StrFormat("first counted set at line %d, this set at line %d", r.reused_line, call.line));
  in.sched->Yield(self);
  return Value::None();
}

Value WaitCrossCore(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.system.wait_cross_core");
  CrossCall c = ParseCross(a);
  const int self = in.core->ordinal;
  std::string bad = in.xsync->CheckWait(self, c.mode, c.event);
  if (!bad.empty())
    in.Fail(hazard::kCrossSync, call.line,
            absl::StrFormat("%s(event_id=%d, %s) on %s: %s", a.fname(), c.event,
                            std::string(CrossModeName(c.mode)), in.core->Name(), bad));
  CrossCoreSync& sync = *in.xsync;
  const CrossMode mode = c.mode;
  const int event = c.event;
  in.sched->WaitUntil(
      self, [&sync, self, mode, event] { return sync.CanWait(self, mode, event); }, call.line,
      absl::StrFormat("cross-core event %d (%s, pipe %s) from %s", event, std::string(CrossModeName(mode)), c.pipe,
                      sync.WaitSources(self, mode)));
  std::vector<uint32_t> pipes;
  sync.Consume(self, mode, event, &pipes);
  if (auto p = ParsePipe(c.pipe); p && !pipes.empty() && in.pipe_sync) in.core->pipes.Join(*p, pipes);
  return Value::None();
}

}  // namespace

void RegisterSyncBuiltins(BuiltinTable& t) {
  t["pl.system.set_cross_core"] = SetCrossCore;
  t["pl.system.wait_cross_core"] = WaitCrossCore;
}

}  // namespace opdev::sim
