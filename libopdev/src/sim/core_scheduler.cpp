// The baton scheduler of a launch's cores (see core_scheduler.h).
#include "core_scheduler.h"

#include <thread>

namespace opdev::sim {

CoreScheduler::CoreScheduler(int cores, uint64_t seed, std::function<void(int)> save,
                             std::function<void(int)> restore)
    : cores_(static_cast<size_t>(cores)), seed_(seed), rng_(seed), save_(std::move(save)), restore_(std::move(restore)) {}

int CoreScheduler::PickNext(int self, bool include_self) {
  std::vector<int> cand;
  for (int i = 0; i < static_cast<int>(cores_.size()); ++i) {
    if (i == self && !include_self) continue;
    Core& c = cores_[i];
    if (c.st == St::kDone) continue;
    // On abort every live core gets the baton once more, to unwind.
    if (abort_ || c.st == St::kRunnable || c.st == St::kNotStarted || (c.ready && c.ready())) {
      if (seed_ == 0 || abort_) return i;
      cand.push_back(i);
    }
  }
  if (cand.empty()) return -1;
  return cand[std::uniform_int_distribution<size_t>(0, cand.size() - 1)(rng_)];
}

void CoreScheduler::HandTo(int self, int next, std::unique_lock<std::mutex>& lk) {
  if (next == self) return;
  save_(self);
  active_ = next;
  if (cores_[next].st == St::kNotStarted)
    threads_.emplace_back([this, next] { Runner(next); });
  else
    cores_[next].cv.notify_one();
  cores_[self].cv.wait(lk, [&] { return active_ == self; });
  restore_(self);
}

void CoreScheduler::WaitUntil(int self, const std::function<bool()>& ready, int line, std::string what) {
  std::unique_lock<std::mutex> lk(mu_);
  if (abort_) throw CoreAborted{};
  Core& me = cores_[self];
  if (ready()) {
    if (seed_ != 0) HandTo(self, PickNext(self, true), lk);
    if (abort_) throw CoreAborted{};
    return;
  }
  me.st = St::kWaiting;
  me.ready = ready;
  me.line = line;
  me.what = std::move(what);
  int next = PickNext(self, false);
  if (next < 0) {
    // Every live core waits: record them all, then unwind starting with this core.
    for (int i = 0; i < static_cast<int>(cores_.size()); ++i)
      if (cores_[i].st == St::kWaiting) deadlock_.push_back({i, cores_[i].line, cores_[i].what});
    abort_ = true;
    throw CoreAborted{};
  }
  HandTo(self, next, lk);
  me.st = St::kRunnable;
  me.ready = nullptr;
  if (abort_) throw CoreAborted{};
}

void CoreScheduler::Yield(int self) {
  if (seed_ == 0) return;
  std::unique_lock<std::mutex> lk(mu_);
  if (abort_) throw CoreAborted{};
  HandTo(self, PickNext(self, true), lk);
  if (abort_) throw CoreAborted{};
}

int CoreScheduler::Finish(int self, std::unique_lock<std::mutex>& lk) {
  cores_[self].st = St::kDone;
  cores_[self].ready = nullptr;
  ++done_count_;
  if (done_count_ == static_cast<int>(cores_.size())) {
    active_ = -1;
    done_cv_.notify_all();
    return -1;
  }
  int next = PickNext(self, false);
  if (next < 0) {
    for (int i = 0; i < static_cast<int>(cores_.size()); ++i)
      if (cores_[i].st == St::kWaiting) deadlock_.push_back({i, cores_[i].line, cores_[i].what});
    abort_ = true;
    next = PickNext(self, false);
  }
  save_(self);
  active_ = next;
  if (cores_[next].st == St::kNotStarted) return next;
  cores_[next].cv.notify_one();
  return -1;
}

void CoreScheduler::Runner(int i) {
  while (i >= 0) {
    {
      std::unique_lock<std::mutex> lk(mu_);
      cores_[i].st = St::kRunnable;
      restore_(i);
      if (abort_) {
        i = Finish(i, lk);
        continue;
      }
    }
    try {
      (*body_)(i);
    } catch (const CoreAborted&) {
    } catch (...) {
      std::unique_lock<std::mutex> lk(mu_);
      if (!error_ && deadlock_.empty()) error_ = std::current_exception();
      abort_ = true;
    }
    std::unique_lock<std::mutex> lk(mu_);
    i = Finish(i, lk);
  }
}

void CoreScheduler::Run(const std::function<void(int)>& body) {
  const int n = static_cast<int>(cores_.size());
  if (n == 0) return;
  body_ = &body;
  int first = 0;
  {
    std::lock_guard<std::mutex> lk(mu_);
    first = active_ = PickNext(-1, true);
  }
  Runner(first);
  std::vector<std::thread> threads;
  {
    std::unique_lock<std::mutex> lk(mu_);
    done_cv_.wait(lk, [&] { return done_count_ == n; });
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
  body_ = nullptr;
  if (error_) std::rethrow_exception(error_);
}

}  // namespace opdev::sim
