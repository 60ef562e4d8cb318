// Time budgets: a deadline that every long loop consults, and shares of it handed to
// pipeline stages (DESIGN.md 2.8). A default-constructed Deadline never expires.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>

namespace rootline {

class Deadline {
public:
  using Clock = std::chrono::steady_clock;

  Deadline() = default; // unlimited
  static Deadline in(double seconds);
  static Deadline unlimited() { return {}; }

  bool limited() const { return limited_; }
  bool expired() const { return limited_ && Clock::now() >= end_; }
  // Seconds left (never negative); a large number when unlimited.
  double remaining() const;
  // A stage's share: `fraction` of what is left now, at least `floorSeconds` (but never
  // past this deadline). Unlimited stays unlimited.
  Deadline share(double fraction, double floorSeconds = 0) const;
  // The earlier of this deadline and `seconds` from now.
  Deadline atMost(double seconds) const;
  // This deadline brought forward by `seconds` (a reserve for the stages after).
  Deadline before(double seconds) const;
  // A timeout for one child process or solver query: `wanted`, cut to what is left
  // (at least `minimum`, so a nearly spent budget still gets a short, bounded try).
  double clamp(double wanted, double minimum = 0.05) const;
  unsigned clampMs(unsigned wantedMs, unsigned minimumMs = 50) const;

private:
  bool limited_ = false;
  Clock::time_point end_{};
};

// Checks the deadline every `period` calls of `tick`, so per-instance loops pay one
// increment and a compare.
class DeadlineCheck {
public:
  explicit DeadlineCheck(const Deadline &d, uint32_t period = 1u << 14)
      : deadline_(d), period_(period) {}
  bool tick() {
    due_ = ++count_ >= period_;
    if (!due_)
      return false;
    count_ = 0;
    return expired_ = deadline_.expired();
  }
  // The last tick reached the period (a moment for other periodic checks).
  bool due() const { return due_; }
  bool expired() const { return expired_; }

private:
  const Deadline &deadline_;
  uint32_t period_, count_ = 0;
  bool expired_ = false, due_ = false;
};

// The bytes a stage's records of one run may take (docs/trace-format.md, "Memory"):
// `envVar` MiB when it is set to a positive number, else 1/`divisor` of the machine's
// memory. Past it, the stage stops with a note, never with the kernel's OOM killer.
uint64_t memoryCap(const char *envVar, unsigned divisor);

} // namespace rootline
