#include "rootline/progress.h"

#include <unistd.h>

namespace rootline {

namespace {
constexpr double kQuietStartSeconds = 1.0; // a run shorter than this prints nothing
constexpr double kTerminalPeriod = 0.2;    // in-place updates
constexpr double kPlainPeriod = 5.0;       // plain lines within one stage
} // namespace

Progress::Progress(std::FILE *out, bool terminal)
    : out_(out), terminal_(terminal), start_(std::chrono::steady_clock::now()), lastPrint_(start_) {
}

Progress::Progress(Progress &parent, std::string prefix)
    : out_(parent.out_), terminal_(parent.terminal_), parent_(&parent), prefix_(std::move(prefix)),
      start_(parent.start_), lastPrint_(parent.lastPrint_) {}

Progress::~Progress() { finish(); }

Progress Progress::toStderr(bool enabled) {
  return Progress(enabled ? stderr : nullptr, enabled && isatty(STDERR_FILENO));
}

double Progress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::stage(const std::string &name, const std::string &detail) {
  if (!out_)
    return;
  stage_ = name;
  detail_ = detail;
  stageShown_ = false;
  if (parent_)
    return parent_->update(prefix_ + name + (detail.empty() ? "" : ": " + detail));
  print(false);
}

void Progress::update(const std::string &detail) {
  if (!out_)
    return;
  detail_ = detail;
  if (parent_)
    return parent_->update(prefix_ + stage_ + (detail.empty() ? "" : ": " + detail));
  print(false);
}

void Progress::print(bool force) {
  auto now = std::chrono::steady_clock::now();
  double t = elapsed();
  if (!force && t < kQuietStartSeconds)
    return;
  double since = std::chrono::duration<double>(now - lastPrint_).count();
  double period = terminal_ ? kTerminalPeriod : kPlainPeriod;
  if (!force && stageShown_ && printedAny_ && since < period)
    return;
  lastPrint_ = now;
  printedAny_ = true;
  stageShown_ = true;
  std::string line = "rootline: [" + std::to_string(static_cast<int>(t)) + "s] " + stage_;
  if (!detail_.empty())
    line += ": " + detail_;
  if (terminal_) {
    std::fprintf(out_, "\r\033[K%s", line.c_str());
    lineOpen_ = true;
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
}

void Progress::finish() {
  if (out_ && lineOpen_ && !parent_) {
    std::fprintf(out_, "\r\033[K");
    std::fflush(out_);
    lineOpen_ = false;
  }
}

} // namespace rootline
