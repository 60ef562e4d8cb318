// The build, trace, slice and align stages work on both versions at once when the
// machine has two cores (docs/debug.md, "Both versions at once"). The report must not
// depend on it: the same job one version after the other says the same.
#include "rootline/debug.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstdlib>

using namespace rootline;
using namespace rootline::test;

namespace {

// The report without what timing decides (seconds, the native runs' timeout, the
// solver's statistics).
nlohmann::json withoutTimes(nlohmann::json j) {
  if (j.is_object()) {
    j.erase("stats");
    nlohmann::json out = nlohmann::json::object();
    for (auto &[k, v] : j.items())
      if (k.find("second") == std::string::npos)
        out[k] = withoutTimes(v);
    return out;
  }
  if (j.is_array())
    for (auto &v : j)
      v = withoutTimes(v);
  return j;
}

nlohmann::json reportWithThreads(const DebugRequest &req, const char *threads) {
  if (threads)
    setenv("ROOTLINE_THREADS", threads, 1);
  else
    unsetenv("ROOTLINE_THREADS");
  DebugReport r = debugRegression(req);
  unsetenv("ROOTLINE_THREADS");
  return withoutTimes(reportJson(r));
}

} // namespace

TEST_CASE("debug with both versions at once reports what it reports one version after the "
          "other",
          "[debug][threads]") {
  // Two files (the align stage numbers both), and a change with renames mixed in.
  for (const RegressionFixture &r :
       {regressionFixture("two_files"), regressionFixtureIn("mixed", "bank_ledger")}) {
    INFO(r.name);
    DebugRequest req = debugRequest(r);
    req.budgetSeconds = 0; // no stage cut by the clock: the same work both ways
    nlohmann::json atOnce = reportWithThreads(req, nullptr);
    nlohmann::json oneByOne = reportWithThreads(req, "1");
    // Not a vacuous comparison: both found the fixture's cause and aligned the runs.
    REQUIRE(atOnce["candidates"].size() > 0);
    CHECK(atOnce["candidates"][0]["line"] == r.rootLine);
    CHECK(atOnce["alignment"]["complete"] == true);
    CHECK(atOnce["candidates"] == oneByOne["candidates"]);
    CHECK(atOnce["alignment"] == oneByOne["alignment"]);
    CHECK(atOnce["notes"] == oneByOne["notes"]);
    CHECK(atOnce["stages"] == oneByOne["stages"]);
    CHECK(atOnce == oneByOne);
  }
}
