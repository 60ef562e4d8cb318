// Every fixture builds through src/build and its native run matches its expectation.
#include "rootline/build.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::test;

namespace {

void checkRun(const ProcessResult &r, const ProgramFixture &f) {
  INFO("fixture " << f.name << ": " << r.outcome() << "\nstderr: " << r.err);
  CHECK(r.out == f.expectedStdout);
  if (f.signal.empty()) {
    CHECK(r.exitedWith(f.exitCode));
  } else {
    CHECK(signalName(r.signal) == f.signal);
  }
}

} // namespace

TEST_CASE("every program fixture builds and its native run gives the expected stdout",
          "[fixtures][build][sweep]") {
  auto fixtures = programFixtures();
  REQUIRE(fixtures.size() >= 20);
  for (const auto &f : sampledInCI(fixtures)) {
    DYNAMIC_SECTION(f.name) {
      auto mod = buildModule(f.recipe());
      auto exe = linkExecutable(mod.bitcode, mod.key, "native", {}, f.libs);
      checkRun(runProgram(exe.path, f), f);
    }
  }
}

TEST_CASE("every regression fixture builds in both versions with the recorded outputs",
          "[fixtures][build][sweep]") {
  auto regressions = regressionFixtures();
  REQUIRE(regressions.size() >= 3);
  for (const auto &r : sampledInCI(regressions, kRegressionStride)) {
    DYNAMIC_SECTION(r.name) {
      for (const char *version : {"old", "new"}) {
        auto recipe = r.program.recipeIn(r.dir / version);
        auto mod = buildModule(recipe);
        auto exe = linkExecutable(mod.bitcode, mod.key, "native", {}, r.program.libs);
        auto run = runProgram(exe.path, r.program);
        INFO(r.name << " " << version);
        CHECK(run.out == (std::string(version) == "old" ? r.oldStdout : r.newStdout));
      }
      CHECK(r.oldStdout != r.newStdout);
    }
  }
}
