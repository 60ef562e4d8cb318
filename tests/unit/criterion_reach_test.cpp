// Whether a branch deviation's alternative run reaches the failing output, and whether
// an agreeing input is rejected early (docs/debug.md, "Reaching the criterion" and "Weak
// evidence").
#include "compose/debug_stages.h"

#include <catch2/catch.hpp>

using namespace rootline;

namespace {
RunSummary printed(const std::string &out) { return {"exit 0", out, 0, ""}; }
} // namespace

TEST_CASE("an alternative run reaches the criterion when it prints up to the differing line",
          "[debug][evidence]") {
  RunSummary passing = printed("start\n20\n"), failing = printed("start\n21\n");
  // The outputs first differ on line 2.
  CHECK(debug::missedCriterion(printed("start\n18\n"), passing, failing).empty());
  CHECK(debug::missedCriterion(printed("start\n18"), passing, failing).empty());
  CHECK(debug::missedCriterion(printed("start\n"), passing, failing) ==
        "its run prints 1 line(s) and stops before the failing output (stdout line 2)");
  CHECK(debug::missedCriterion(printed(""), passing, failing) ==
        "its run prints 0 line(s) and stops before the failing output (stdout line 2)");
  // A process whose output is a file it writes (diffstat -o case07.out): its lines.
  CHECK(debug::missedCriterion(printed("start\n"), passing, failing, "case07.out") ==
        "its run writes 1 line(s) of case07.out and stops before the failing output (its line "
        "2)");
  // A failure that is not in stdout (a crash, a status): nothing to reach.
  RunSummary crashed{"signal SIGSEGV", "start\n20\n", 0, ""};
  CHECK(debug::missedCriterion(printed(""), passing, crashed).empty());
  // The first line differs: any run reaches it.
  CHECK(debug::missedCriterion(printed(""), printed("a\n"), printed("b\n")) ==
        "its run prints 0 line(s) and stops before the failing output (stdout line 1)");
}

TEST_CASE("an input that leaves the failing run's path and soon ends is rejected early",
          "[debug][evidence]") {
  std::vector<uint64_t> failing(200, 1);
  // Off the path at branch 5, then 3 branches and the end: an error path.
  std::vector<uint64_t> rejected(failing.begin(), failing.begin() + 5);
  rejected.insert(rejected.end(), {0, 1, 1});
  CHECK(debug::leftFailingPathEarly(failing, rejected) ==
        "the input leaves the failing run's path after 5 of its 200 branches, and the run "
        "ends 3 branch(es) later: both versions reject it early");
  // Off the path, then on for as long again as the failing run: real work.
  std::vector<uint64_t> other(failing.begin(), failing.begin() + 5);
  other.push_back(0);
  other.insert(other.end(), 190, 1);
  CHECK(debug::leftFailingPathEarly(failing, other).empty());
  // The same path, or one that leaves it near the end: nothing to say.
  CHECK(debug::leftFailingPathEarly(failing, failing).empty());
  std::vector<uint64_t> late(failing.begin(), failing.begin() + 190);
  late.push_back(0);
  CHECK(debug::leftFailingPathEarly(failing, late).empty());
}
