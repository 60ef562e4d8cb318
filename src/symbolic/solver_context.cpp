// Z3 contexts destroyed on a thread of their own (rootline/solver_context.h).
#include "rootline/solver_context.h"

#include <condition_variable>
#include <deque>
#include <mutex>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace rootline {

namespace {

// One thread, started when the first context is handed over, destroys them in order.
// It runs at the lowest priority: the job's own threads come first.
class Reaper {
public:
  static constexpr unsigned kMaxPending = 2;

  static Reaper &instance() {
    // Built after Z3's own statics (on first use), so destroyed before them: the
    // destructor's wait runs while Z3 still works.
    static Reaper reaper;
    return reaper;
  }

  // Takes `ctx` once the thread runs; if it cannot be started, `ctx` stays. A job
  // that ends while two contexts are still being freed waits for one of them: jobs run
  // one after another (triage, bisect) must not pile up contexts faster than they go.
  void discard(std::unique_ptr<z3::context> &ctx) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return pending_ < kMaxPending; });
    if (!thread_.joinable())
      thread_ = std::thread([this] { run(); });
    queue_.push_back(std::move(ctx));
    ++pending_;
    wake_.notify_all();
  }

  unsigned pending() {
    std::lock_guard lock(mutex_);
    return pending_;
  }

  void wait() {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
  }

  void hold(bool held) {
    std::lock_guard lock(mutex_);
    held_ = held;
    wake_.notify_all();
  }

  std::thread::id lastReaper() {
    std::lock_guard lock(mutex_);
    return last_;
  }

  ~Reaper() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
      wake_.notify_all();
    }
    if (thread_.joinable())
      thread_.join();
  }

private:
  void run() {
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 19);
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || (!queue_.empty() && !held_); });
      if (queue_.empty())
        return; // stopping, and nothing left
      std::unique_ptr<z3::context> ctx = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      ctx.reset();
      lock.lock();
      last_ = std::this_thread::get_id();
      --pending_;
      done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::deque<std::unique_ptr<z3::context>> queue_;
  unsigned pending_ = 0;
  bool stop_ = false, held_ = false;
  std::thread::id last_;
  std::thread thread_;
};

} // namespace

SolverContext::SolverContext() : ctx_(std::make_unique<z3::context>()) {}

SolverContext::~SolverContext() {
  try {
    Reaper::instance().discard(ctx_);
  } catch (...) {
  }
  ctx_.reset(); // when no thread could take it: destroyed here
}

unsigned solverContextsPending() { return Reaper::instance().pending(); }

void waitForSolverContexts() { Reaper::instance().wait(); }

void holdSolverContextReaper(bool held) { Reaper::instance().hold(held); }

std::thread::id lastSolverContextReaper() { return Reaper::instance().lastReaper(); }

bool exitWithoutWaitingForSolvers() { return solverContextsPending() > 0; }

} // namespace rootline
