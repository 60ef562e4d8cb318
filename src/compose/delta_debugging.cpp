#include "compose/delta_debugging.h"

#include <algorithm>

namespace rootline::debug {

ReducedRevert reduceRevert(std::vector<size_t> c,
                           const std::function<bool(const std::vector<size_t> &)> &passes,
                           const std::function<bool()> &exhausted) {
  bool confirmed = false; // some trial passed on c (reverting everything is assumed)
  size_t n = 2;
  for (;;) {
    if (c.size() < 2)
      return {confirmed ? c : std::vector<size_t>{}, confirmed};
    size_t chunk = (c.size() + n - 1) / n;
    bool reduced = false, cut = false;
    for (size_t start = 0; start < c.size() && !reduced && !cut; start += chunk) {
      std::vector<size_t> part(c.begin() + static_cast<long>(start),
                               c.begin() + static_cast<long>(std::min(c.size(), start + chunk)));
      std::vector<size_t> rest;
      for (size_t u : c)
        if (std::find(part.begin(), part.end(), u) == part.end())
          rest.push_back(u);
      for (const auto *candidate : {&part, &rest}) {
        if (candidate->empty() || candidate->size() == c.size())
          continue;
        if (exhausted()) {
          cut = true;
          break;
        }
        if (passes(*candidate)) {
          n = candidate == &part ? 2 : std::max<size_t>(n - 1, 2);
          c = *candidate;
          reduced = confirmed = true;
          break;
        }
      }
    }
    if (cut)
      return {confirmed ? c : std::vector<size_t>{}, false};
    // A round at n = |c| tried every unit alone and every set without one unit: done.
    if (!reduced && n >= c.size())
      return {confirmed ? c : std::vector<size_t>{}, confirmed};
    if (!reduced)
      n = std::min(c.size(), n * 2);
  }
}

} // namespace rootline::debug
