// Progress of long work on stderr (DESIGN.md 3): the stage, its counts and the time
// so far. On a terminal one line that updates in place; otherwise plain lines, at most
// one every few seconds. Nothing is printed during the first second, so quick runs
// stay silent; a disabled Progress prints nothing at all (--json, -q).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace rootline {

class Progress {
public:
  // `out` null: disabled. `terminal`: update one line in place.
  explicit Progress(std::FILE *out = nullptr, bool terminal = false);
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  // Progress on stderr when enabled, in place when stderr is a terminal.
  static Progress toStderr(bool enabled);
  // Progress of work nested in `parent`'s current stage (a job within a job): its
  // stages and counts show as the parent's counts, after `prefix`.
  Progress(Progress &parent, std::string prefix);

  bool enabled() const { return out_ != nullptr; }
  // A new stage ("build", "trace", "slice", "symbolic", "compose", "evidence", "rank").
  void stage(const std::string &name, const std::string &detail = "");
  // Counts within the current stage; throttled, cheap to call often.
  void update(const std::string &detail);
  // Ends the in-place line (call before printing results).
  void finish();
  double elapsed() const;

private:
  void print(bool force);
  std::FILE *out_;
  bool terminal_;
  Progress *parent_ = nullptr;
  std::string prefix_;
  std::chrono::steady_clock::time_point start_, lastPrint_;
  std::string stage_, detail_;
  bool printedAny_ = false, lineOpen_ = false, stageShown_ = true;
};

} // namespace rootline
