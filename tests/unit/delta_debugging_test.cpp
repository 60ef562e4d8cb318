// Delta debugging over revert groups (src/compose/delta_debugging.cpp): the set it
// returns passes, and it is called 1-minimal only when every group of it was tried
// without the others.
#include "compose/delta_debugging.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

using namespace rootline::debug;

namespace {

// A test that passes when every group of `needed` is reverted; counts the trials.
struct Oracle {
  std::set<size_t> needed;
  unsigned trials = 0;
  bool operator()(const std::vector<size_t> &reverted) {
    ++trials;
    return std::all_of(needed.begin(), needed.end(), [&](size_t u) {
      return std::find(reverted.begin(), reverted.end(), u) != reverted.end();
    });
  }
};

std::vector<size_t> upTo(size_t n) {
  std::vector<size_t> out;
  for (size_t u = 0; u < n; ++u)
    out.push_back(u);
  return out;
}

} // namespace

TEST_CASE("delta debugging finds the groups a revert needs and says it finished",
          "[unit][revert]") {
  Oracle oracle{{3, 7, 8}};
  ReducedRevert r = reduceRevert(upTo(12), std::ref(oracle), [] { return false; });
  CHECK(std::set<size_t>(r.units.begin(), r.units.end()) == std::set<size_t>{3, 7, 8});
  CHECK(r.oneMinimal);
  CHECK(oracle.trials > 0);
}

TEST_CASE("delta debugging cut by its budget keeps a passing set and does not call it minimal",
          "[unit][revert]") {
  // Every budget from one trial up: whatever set comes back passes and holds the needed
  // groups; it is 1-minimal only with enough trials.
  bool sawCut = false, sawDone = false;
  for (unsigned budget = 1; budget <= 60; ++budget) {
    Oracle oracle{{2, 9}};
    ReducedRevert r =
        reduceRevert(upTo(12), std::ref(oracle), [&] { return oracle.trials >= budget; });
    CHECK(oracle.trials <= budget);
    if (r.units.empty()) {
      CHECK_FALSE(r.oneMinimal); // nothing smaller than the whole change passed
      continue;
    }
    Oracle check{{2, 9}};
    CHECK(check(r.units));
    if (r.oneMinimal) {
      sawDone = true;
      CHECK(std::set<size_t>(r.units.begin(), r.units.end()) == std::set<size_t>{2, 9});
    } else {
      sawCut = true;
    }
  }
  CHECK(sawCut);
  CHECK(sawDone);
}

TEST_CASE("delta debugging with one group needed ends on it", "[unit][revert]") {
  Oracle oracle{{5}};
  ReducedRevert r = reduceRevert(upTo(8), std::ref(oracle), [] { return false; });
  CHECK(r.units == std::vector<size_t>{5});
  CHECK(r.oneMinimal);
}
