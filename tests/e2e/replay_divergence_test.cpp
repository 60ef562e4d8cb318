// Replay when the native run does what the IR alone does not say: an overflow that
// writes a local replay models itself, and a trace that disagrees with the module
// (docs/trace-format.md, "Replay").
#include "rootline/error.h"
#include "rootline/replay.h"
#include "rootline/run.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <fstream>

using namespace rootline;
using namespace rootline::test;

namespace {

ReplayResult replayFile(const TracedProgram &p, const fs::path &trace, bool stopAtMismatch) {
  LoadedModule m = loadModule(p.module.bitcode);
  ModuleIndex index(*m.module);
  TraceReader reader(trace, p.module.key);
  ReplayLimits limits;
  limits.stopAtMismatch = stopAtMismatch;
  return replayTrace(*m.module, index, reader, nullptr, limits);
}

TestCase stdinTest(const fs::path &file) {
  TestCase t;
  t.stdinFile = file;
  t.timeoutSeconds = 60;
  return t;
}

} // namespace

TEST_CASE("an overflow into a local that replay models is applied to it, and named",
          "[trace][replay][memory]") {
  // vals[4] written up to vals[6]: the stores land on `total` and `limit`, scalars whose
  // loads the trace does not log. Replay must see the values the native run saw.
  TempDir t;
  BuildRecipe recipe = sourceRecipe(t.path / "main.c", R"(#include <stdio.h>
int main(void) {
  int limit = 3;
  int total = 0;
  int k;
  int vals[4];
  scanf("%d", &k);
  for (int i = 0; i < k; i++) vals[i] = i * 2;
  for (int i = 0; i < k; i++) total += vals[i];
  if (total > limit) printf("big %d\n", total);
  else printf("small %d\n", total);
  return 0;
}
)");
  writeText(t.path / "in.txt", "7\n");
  TracedProgram p = buildTraced(recipe);
  fs::path native = buildNative(p.recipe, p.module);
  TracedRun run = runTraced(p, stdinTest(t.path / "in.txt"), t.path / "run.trace");
  ProcessResult ref = runNative(native, stdinTest(t.path / "in.txt"));
  REQUIRE(run.process.out == ref.out);
  ReplayResult r = replayFile(p, run.trace, false);
  CHECK(r.outcome == RunOutcome::Exit);
  CHECK(r.stdoutBytes == ref.out);
  REQUIRE_FALSE(r.clobberedLocals.empty());
  CHECK(r.clobberedLocals[0].find("overwritten by instance") != std::string::npos);
}

TEST_CASE("the new versions of the memory-error fixtures replay like their native runs",
          "[trace][replay][memory][diagnoses]") {
  for (const auto &reg : regressionFixturesIn("diagnoses")) {
    if (reg.meta.value("failure_kind", "") != "memory_error")
      continue;
    DYNAMIC_SECTION(reg.name) {
      TracedProgram p = buildTraced(reg.program.recipeIn(reg.dir / "new"));
      TempDir t;
      TestCase test = stdinTest(*reg.program.stdinFile);
      TracedRun run = runTraced(p, test, t.path / "run.trace");
      CHECK(run.process.out == reg.newStdout);
      ReplayResult r = replayFile(p, run.trace, true);
      INFO(r.divergence);
      CHECK(r.outcome == RunOutcome::Exit);
    }
  }
}

TEST_CASE("a trace that disagrees with replay ends it as diverged, keeping what agreed",
          "[trace][replay]") {
  ProgramFixture f = programFixture("bubble_sort");
  TracedProgram p = buildTraced(f.recipe());
  TempDir t;
  TestCase test;
  test.stdinFile = f.stdinFile;
  test.args = f.args;
  TracedRun run = runTraced(p, test, t.path / "run.trace");
  ReplayResult whole = replayFile(p, run.trace, false);
  REQUIRE(whole.outcome == RunOutcome::Exit);
  // Flip a branch outcome in the middle of the trace.
  std::vector<uint64_t> branches;
  {
    TraceReader reader(run.trace, p.module.key);
    Event ev;
    while (reader.next(ev))
      if (ev.tag == Ev::BR_TRUE || ev.tag == Ev::BR_FALSE)
        branches.push_back(ev.offset);
  }
  REQUIRE(branches.size() > 10);
  uint64_t at = branches[branches.size() / 2];
  {
    std::fstream file(run.trace, std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(static_cast<std::streamoff>(at));
    char tag = static_cast<char>(file.get());
    file.seekp(static_cast<std::streamoff>(at));
    file.put(static_cast<char>(tag == static_cast<char>(Ev::BR_TRUE) ? Ev::BR_FALSE : Ev::BR_TRUE));
  }
  CHECK_THROWS_AS(replayFile(p, run.trace, false), Error);
  ReplayResult cut = replayFile(p, run.trace, true);
  CHECK(cut.outcome == RunOutcome::Diverged);
  CHECK(cut.divergence.find("replay mismatch") != std::string::npos);
  CHECK(cut.divergence.find("agree up to instance") != std::string::npos);
  CHECK(cut.instances > 0);
  CHECK(cut.instances < whole.instances);
}
