// Delta debugging (Zeller and Hildebrandt, "Simplifying and isolating failure-inducing
// input", TSE 2002) in revert form: the revert stage's search for the smallest set of
// hunk groups whose revert makes the test pass.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace rootline::debug {

struct ReducedRevert {
  std::vector<size_t> units; // the smallest set found (empty: no smaller set passed)
  // No unit of `units` can be left out: each was tried without it (1-minimal). False
  // when the trials ran out first; the set still passes but may hold more than it needs.
  bool oneMinimal = false;
};

// `units`: the groups in the order to try them (cheapest builds first); reverting all of
// them is the old version, which passes. `passes` runs one trial; `exhausted` says the
// stage's trials or time are spent.
ReducedRevert reduceRevert(std::vector<size_t> units,
                           const std::function<bool(const std::vector<size_t> &)> &passes,
                           const std::function<bool()> &exhausted);

} // namespace rootline::debug
