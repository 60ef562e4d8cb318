// Stage bookkeeping for rootline debug: what each stage took and what it left out.
#include "compose/debug_stages.h"

namespace rootline::debug {

void Stages::begin(const std::string &name, const std::string &detail) {
  end();
  current_ = StageRecord{name, 0, true, ""};
  start_ = Deadline::Clock::now();
  if (progress_)
    progress_->stage(name, detail);
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

void Stages::remark(const std::string &what) { report_.notes.push_back(what); }

void Stages::update(const std::string &detail) {
  if (progress_)
    progress_->update(detail);
}

void Stages::end() {
  if (!current_)
    return;
  current_->seconds = std::chrono::duration<double>(Deadline::Clock::now() - start_).count();
  if (!current_->complete)
    report_.notes.push_back("budget: the " + current_->name +
                            " stage stopped at its share: " + current_->note);
  report_.stages.push_back(std::move(*current_));
  current_.reset();
}

} // namespace rootline::debug
