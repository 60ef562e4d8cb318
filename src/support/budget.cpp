#include "rootline/budget.h"

#include <algorithm>
#include <cstdlib>

#include <unistd.h>

namespace rootline {

Deadline Deadline::in(double seconds) {
  Deadline d;
  d.limited_ = true;
  d.end_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(std::max(0.0, seconds)));
  return d;
}

double Deadline::remaining() const {
  if (!limited_)
    return 1e9;
  return std::max(0.0, std::chrono::duration<double>(end_ - Clock::now()).count());
}

Deadline Deadline::share(double fraction, double floorSeconds) const {
  if (!limited_)
    return *this;
  double left = remaining();
  return Deadline::in(std::min(left, std::max(left * fraction, floorSeconds)));
}

Deadline Deadline::atMost(double seconds) const {
  Deadline d = Deadline::in(seconds);
  if (limited_ && end_ < d.end_)
    return *this;
  return d;
}

Deadline Deadline::before(double seconds) const {
  if (!limited_)
    return *this;
  return Deadline::in(remaining() - seconds);
}

double Deadline::clamp(double wanted, double minimum) const {
  return std::max(minimum, std::min(wanted, remaining()));
}

unsigned Deadline::clampMs(unsigned wantedMs, unsigned minimumMs) const {
  double left = remaining() * 1000;
  return static_cast<unsigned>(std::max<double>(minimumMs, std::min<double>(wantedMs, left)));
}

uint64_t memoryCap(const char *envVar, unsigned divisor) {
  if (const char *mb = std::getenv(envVar); mb && *mb) {
    char *end = nullptr;
    unsigned long long v = std::strtoull(mb, &end, 10);
    if (end && *end == '\0' && v > 0)
      return static_cast<uint64_t>(v) << 20;
  }
  long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return (uint64_t{16} << 30) / std::max(divisor, 1u);
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize) / std::max(divisor, 1u);
}

} // namespace rootline
