// bothVersions: one stage's work for the old and the new version, at once on a machine
// with two cores, with the report reading the same whichever ends first.
#include "compose/debug_stages.h"
#include "rootline/error.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

using namespace rootline;
using namespace rootline::debug;

namespace {

// Sets $ROOTLINE_THREADS for one scope.
struct ThreadsSetting {
  explicit ThreadsSetting(const char *value) {
    if (const char *v = std::getenv("ROOTLINE_THREADS"))
      saved = v;
    if (value)
      setenv("ROOTLINE_THREADS", value, 1);
    else
      unsetenv("ROOTLINE_THREADS");
  }
  ~ThreadsSetting() {
    if (saved.empty())
      unsetenv("ROOTLINE_THREADS");
    else
      setenv("ROOTLINE_THREADS", saved.c_str(), 1);
  }
  std::string saved;
};

// Waits until `flag` is set, at most 20 s (a bound, not a speed claim: sequential work
// never sets it).
bool waitFor(const std::atomic<bool> &flag) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!flag && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  return flag;
}

} // namespace

TEST_CASE("bothVersions runs the versions at once and joins their notes old first",
          "[unittest][threads]") {
  ThreadsSetting threads(nullptr);
  // At once on a machine with two cores (CI's): the old work sees the new one's end.
  bool atOnce = std::thread::hardware_concurrency() >= 2;
  CHECK(versionsAtOnce() == atOnce);
  DebugReport report;
  Stages stages(report, nullptr);
  stages.begin("trace");
  std::atomic<bool> newRan{false};
  bool oldSawNew = false;
  bothVersions(
      stages,
      [&](Stages &s) {
        // The new version's work ends first: the notes still read old, then new.
        if (atOnce)
          oldSawNew = waitFor(newRan);
        s.cut("old part cut");
        s.remark("old remark");
      },
      [&](Stages &s) {
        s.note("new part noted");
        s.remark("new remark");
        newRan = true;
      });
  stages.end();
  CHECK(oldSawNew == atOnce);
  REQUIRE(report.stages.size() == 1);
  CHECK_FALSE(report.stages[0].complete);
  CHECK(report.stages[0].note == "old part cut; new part noted");
  REQUIRE(report.notes.size() == 3);
  CHECK(report.notes[0] == "old remark");
  CHECK(report.notes[1] == "new remark");
  CHECK(report.notes[2] == "budget: the trace stage stopped at its share: old part cut; new "
                           "part noted");
}

TEST_CASE("bothVersions rethrows the old version's error first, after both ended",
          "[unittest][threads]") {
  DebugReport report;
  Stages stages(report, nullptr);
  stages.begin("build");
  std::atomic<bool> newEnded{false};
  try {
    bothVersions(
        stages, [&](Stages &) { throw Error("the old version does not build"); },
        [&](Stages &) {
          newEnded = true;
          throw Error("the new version does not build");
        });
    FAIL("no error");
  } catch (const Error &e) {
    CHECK(std::string(e.what()) == "the old version does not build");
  }
  if (versionsAtOnce())
    CHECK(newEnded); // joined before the rethrow, never left running
  else
    CHECK_FALSE(newEnded); // one after the other, as before
  try {
    bothVersions(
        stages, [&](Stages &) {}, [&](Stages &) { throw Error("the new version does not build"); });
    FAIL("no error");
  } catch (const Error &e) {
    CHECK(std::string(e.what()) == "the new version does not build");
  }
}

TEST_CASE("bothVersions with ROOTLINE_THREADS=1 runs the old version's work, then the new's",
          "[unittest][threads]") {
  ThreadsSetting threads("1");
  CHECK_FALSE(versionsAtOnce());
  DebugReport report;
  Stages stages(report, nullptr);
  stages.begin("slice");
  std::vector<std::string> order;
  bothVersions(
      stages, [&](Stages &s) { order.push_back("old"), s.note("a"); },
      [&](Stages &s) { order.push_back("new"), s.note("b"); });
  stages.end();
  CHECK(order == std::vector<std::string>{"old", "new"});
  REQUIRE(report.stages.size() == 1);
  CHECK(report.stages[0].complete);
  CHECK(report.stages[0].note == "a; b");
}
