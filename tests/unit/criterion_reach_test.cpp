// Whether a branch deviation's alternative run reaches the failing output
// (docs/debug.md, "Reaching the criterion").
#include "compose/debug_stages.h"

#include <catch2/catch.hpp>

using namespace rootline;

namespace {
RunSummary printed(const std::string &out) { return {"exit 0", out, 0}; }
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
  // A failure that is not in stdout (a crash, a status): nothing to reach.
  RunSummary crashed{"signal SIGSEGV", "start\n20\n", 0};
  CHECK(debug::missedCriterion(printed(""), passing, crashed).empty());
  // The first line differs: any run reaches it.
  CHECK(debug::missedCriterion(printed(""), printed("a\n"), printed("b\n")) ==
        "its run prints 0 line(s) and stops before the failing output (stdout line 1)");
}
