// The local engine: up to -j units at a time as processes on this machine.
#include "cluster/engines.h"
#include "rootline/error.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace rootline::cluster {

EngineRun runLocal(const WorkPlan &plan, const EngineOptions &options) {
  using Clock = std::chrono::steady_clock;
  auto deadline = options.waitSeconds > 0
                      ? Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(options.waitSeconds))
                      : Clock::time_point::max();
  EngineRun run;
  std::vector<size_t> todo = missingUnits(plan);
  for (unsigned attempt = 0; !todo.empty() && attempt <= options.retries; ++attempt) {
    if (attempt > 0)
      run.resubmitted += static_cast<unsigned>(todo.size());
    std::atomic<size_t> next{0};
    std::atomic<size_t> done{0};
    std::mutex sayLock;
    auto worker = [&] {
      for (size_t k; (k = next++) < todo.size();) {
        if (Clock::now() >= deadline)
          return; // left as missing: merge names it
        try {
          runWorkUnit(plan, todo[k], options.self);
        } catch (const std::exception &) {
          // No result written (killed, or the plan's disk failed): the unit counts as
          // missing and is retried. Nothing may escape a worker thread.
        }
        size_t d = ++done;
        if (options.progress) {
          std::lock_guard<std::mutex> lock(sayLock);
          options.progress->update(std::to_string(d) + "/" + std::to_string(todo.size()) +
                                   " unit(s) done" +
                                   (attempt ? " (retry " + std::to_string(attempt) + ")" : ""));
        }
      }
    };
    unsigned n = std::max(1u, std::min<unsigned>(options.jobs, static_cast<unsigned>(todo.size())));
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < n; ++i)
      threads.emplace_back(worker);
    for (auto &t : threads)
      t.join();
    todo = missingUnits(plan);
    if (Clock::now() >= deadline) {
      if (!todo.empty())
        run.note = "the engine stopped waiting after " +
                   std::to_string(static_cast<int>(options.waitSeconds)) + " s";
      break;
    }
  }
  run.missing = todo;
  return run;
}

} // namespace rootline::cluster
