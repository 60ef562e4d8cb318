// Stage bookkeeping for rootline debug: what each stage took and what it left out.
#include "compose/debug_stages.h"

#include <cstdlib>
#include <exception>
#include <thread>

namespace rootline::debug {

Stages Stages::branchOf(Stages &parent) {
  Stages branch;
  branch.progress_ = parent.progress_;
  branch.progressLock_ = parent.progressLock_;
  branch.current_ = StageRecord{parent.current_ ? parent.current_->name : "", 0, true, ""};
  return branch;
}

void Stages::join(const Stages &branch) {
  if (branch.current_ && !branch.current_->note.empty()) {
    if (branch.current_->complete)
      note(branch.current_->note);
    else
      cut(branch.current_->note);
  }
  for (const std::string &r : branch.remarks_)
    remark(r);
}

void Stages::begin(const std::string &name, const std::string &detail) {
  end();
  current_ = StageRecord{name, 0, true, ""};
  start_ = Deadline::Clock::now();
  if (progress_) {
    std::lock_guard<std::mutex> hold(*progressLock_);
    progress_->stage(name, detail);
  }
}

void Stages::cut(const std::string &what) {
  if (!current_)
    return;
  current_->complete = false;
  current_->note += (current_->note.empty() ? "" : "; ") + what;
}

void Stages::note(const std::string &what) {
  if (current_)
    current_->note += (current_->note.empty() ? "" : "; ") + what;
}

void Stages::remark(const std::string &what) {
  if (report_)
    report_->notes.push_back(what);
  else
    remarks_.push_back(what);
}

void Stages::update(const std::string &detail) {
  if (progress_) {
    std::lock_guard<std::mutex> hold(*progressLock_);
    progress_->update(detail);
  }
}

void Stages::end() {
  if (!current_ || !report_)
    return;
  current_->seconds = std::chrono::duration<double>(Deadline::Clock::now() - start_).count();
  if (!current_->complete)
    report_->notes.push_back("budget: the " + current_->name +
                             " stage stopped at its share: " + current_->note);
  report_->stages.push_back(std::move(*current_));
  current_.reset();
}

bool versionsAtOnce() {
  const char *threads = std::getenv("ROOTLINE_THREADS");
  if (threads && std::string(threads) == "1")
    return false;
  return std::thread::hardware_concurrency() >= 2;
}

void bothVersions(Stages &stages, const std::function<void(Stages &)> &oldWork,
                  const std::function<void(Stages &)> &newWork) {
  Stages oldBranch = Stages::branchOf(stages), newBranch = Stages::branchOf(stages);
  std::exception_ptr oldError, newError;
  auto guarded = [](const std::function<void(Stages &)> &work, Stages &branch,
                    std::exception_ptr &error) {
    try {
      work(branch);
    } catch (...) {
      error = std::current_exception();
    }
  };
  if (versionsAtOnce()) {
    std::thread other([&] { guarded(newWork, newBranch, newError); });
    guarded(oldWork, oldBranch, oldError);
    other.join();
  } else {
    guarded(oldWork, oldBranch, oldError);
    if (!oldError)
      guarded(newWork, newBranch, newError);
  }
  stages.join(oldBranch);
  stages.join(newBranch);
  if (oldError)
    std::rethrow_exception(oldError);
  if (newError)
    std::rethrow_exception(newError);
}

std::pair<RunSummary, RunSummary> runMadeUpInputOnBoth(Stages &stages, const Version &oldV,
                                                       const Version &newV,
                                                       const ProgramInput &input,
                                                       const fs::path &dir, double timeoutSeconds) {
  std::pair<RunSummary, RunSummary> runs;
  bothVersions(
      stages,
      [&](Stages &) {
        runs.first = runInputNatively(oldV.native, input, dir / "old", timeoutSeconds,
                                      kMadeUpInputOutputLimit);
      },
      [&](Stages &) {
        runs.second = runInputNatively(newV.native, input, dir / "new", timeoutSeconds,
                                       kMadeUpInputOutputLimit);
      });
  return runs;
}

} // namespace rootline::debug
