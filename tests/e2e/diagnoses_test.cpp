// Every failure gets a diagnosis (docs/debug.md, "Failure kinds"): the fixtures of
// fixtures/diagnoses end in a ranked report whose first line is the root cause, never
// in an error, whatever the new version does wrong.
#include "rootline/debug.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::test;

namespace {

std::vector<RegressionFixture> ofKind(const std::string &kind) {
  std::vector<RegressionFixture> out;
  for (auto &r : regressionFixturesIn("diagnoses"))
    if (r.meta.value("failure_kind", "") == kind)
      out.push_back(r);
  return out;
}

// The report of a fixture, which must rank its root cause first.
DebugReport diagnose(const RegressionFixture &r) {
  DebugRequest req = debugRequest(r);
  req.budgetSeconds = 40;
  DebugReport rep = debugRegression(req);
  REQUIRE_FALSE(rep.candidates.empty());
  const DebugCandidate &top = rep.candidates[0];
  INFO("failure: " << rep.failure << "; rank 1: " << top.version << ":" << top.line << " "
                   << top.kind);
  CHECK(top.version == r.rootVersion);
  CHECK(top.line == static_cast<unsigned>(r.rootLine));
  return rep;
}

} // namespace

TEST_CASE("a hang: the loop that does not exit is the criterion and its cause ranks first",
          "[debug][diagnoses][hang]") {
  auto all = ofKind("hang");
  REQUIRE(all.size() >= 3);
  for (const auto &r : all) {
    DYNAMIC_SECTION(r.name) {
      DebugReport rep = diagnose(r);
      CHECK(rep.hang);
      CHECK(rep.failureKind == "hang");
      CHECK(rep.newRun.outcome == "timeout");
      // Runs after the failure stage get a multiple of the old run's time, not --timeout.
      CHECK(rep.runTimeoutSeconds < 30);
      std::string loopLine = ":" + std::to_string(r.meta["hang"]["loop_line"].get<int>()) + " ";
      INFO(rep.hangLoop);
      CHECK(rep.hangLoop.find(loopLine) != std::string::npos);
      CHECK(rep.newCriterion.find("exit condition of the loop") != std::string::npos);
    }
  }
}

TEST_CASE("the new version prints less, or nothing: the lost output's cause ranks first",
          "[debug][diagnoses][missing-output]") {
  auto all = ofKind("missing_output");
  REQUIRE(all.size() >= 3);
  for (const auto &r : all) {
    DYNAMIC_SECTION(r.name) {
      DebugReport rep = diagnose(r);
      CHECK(rep.failureKind == "missing output");
    }
  }
}

TEST_CASE("the new version prints more: the extra output's cause ranks first",
          "[debug][diagnoses][extra-output]") {
  auto all = ofKind("extra_output");
  REQUIRE(all.size() >= 3);
  for (const auto &r : all) {
    DYNAMIC_SECTION(r.name) {
      DebugReport rep = diagnose(r);
      CHECK((rep.failureKind == "extra output" || rep.failureKind == "wrong output"));
    }
  }
}

TEST_CASE("a memory error in the new version: its cause ranks first",
          "[debug][diagnoses][memory]") {
  auto all = ofKind("memory_error");
  REQUIRE(all.size() >= 3);
  for (const auto &r : all) {
    DYNAMIC_SECTION(r.name) { diagnose(r); }
  }
}
