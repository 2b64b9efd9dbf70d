// Concurrent scheduling of the cores of one kernel launch. Every started core runs its
// interpreter execution on a thread of its own, but a baton lets exactly one core run at a
// time, and the baton changes hands only at sync points: a wait whose condition does not hold
// (the core blocks) or the end of a core. A core gets its thread only when it must run beside
// a live one: a core that receives the baton from a core that ended runs on that core's thread
// (so a launch whose cores never block runs on the calling thread alone). Seed 0 is the fixed order: the lowest-numbered core that can run
// gets the baton. A non-zero seed makes every sync point (set or wait) a switch point and
// picks the next core among those that can run with a PRNG seeded by it, so the interleaving
// is permuted but still reproducible. When no live core can run (every live core waits for a
// condition none can make true) the launch is deadlocked: the scheduler records each waiting
// core's line and what it waits for, and unwinds every core (one at a time) so the run ends.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace opdev::sim {

// Thrown inside a core's thread when the launch is aborted (deadlock or another core's
// failure); the core's body must let it propagate.
struct CoreAborted {};

class CoreScheduler {
 public:
  // `save(i)`/`restore(i)`: move the executing core's interpreter state out / in; called on
  // core i's thread right before it hands the baton away and right after it receives it.
  CoreScheduler(int cores, uint64_t seed, std::function<void(int)> save, std::function<void(int)> restore);

  // Runs body(i) for every core i and returns when all ended. The first exception a body
  // throws (other than CoreAborted) aborts the other cores and is rethrown here.
  void Run(const std::function<void(int)>& body);

  // On core `self`: blocks until `ready()` holds. `line`/`what` describe the wait for the
  // deadlock report. `ready` is evaluated only by the core holding the baton.
  void WaitUntil(int self, const std::function<bool()>& ready, int line, std::string what);
  // On core `self`: a sync point that does not block (a set). With a seed, may hand over.
  void Yield(int self);

  struct Waiter {
    int core = 0;
    int line = 0;
    std::string what;
  };
  // Non-empty after Run when the launch deadlocked: the waiting cores in core order.
  const std::vector<Waiter>& deadlock() const { return deadlock_; }

 private:
  enum class St { kNotStarted, kRunnable, kWaiting, kDone };
  struct Core {
    St st = St::kNotStarted;
    std::function<bool()> ready;
    int line = 0;
    std::string what;
    std::condition_variable cv;
  };
  int PickNext(int self, bool include_self);  // -1: none can run
  void HandTo(int self, int next, std::unique_lock<std::mutex>& lk);  // returns holding the baton
  // Runs core i (holding the baton, not started) on this thread, then every core that has not
  // started and receives the baton from the core that ended here.
  void Runner(int i);
  // Ends core `self`; returns the next core when it has not started (this thread runs it),
  // else -1 (the baton went to a started core, or every core ended).
  int Finish(int self, std::unique_lock<std::mutex>& lk);

  const std::function<void(int)>* body_ = nullptr;
  std::vector<std::thread> threads_;  // started cores beyond the calling thread (under mu_)

  std::vector<Core> cores_;
  uint64_t seed_;
  std::mt19937_64 rng_;
  std::function<void(int)> save_, restore_;
  std::mutex mu_;
  std::condition_variable done_cv_;
  int active_ = -1;
  int done_count_ = 0;
  bool abort_ = false;
  std::exception_ptr error_;
  std::vector<Waiter> deadlock_;
};

}  // namespace opdev::sim
