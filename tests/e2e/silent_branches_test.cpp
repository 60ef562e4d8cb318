// Branches that log no BR event (silentBranches, docs/trace-format.md "Silent
// branches"): which branches qualify on real C compiled by clang, and that a wrong
// direction is still caught, by the next event.
#include "rootline/replay.h"
#include "rootline/run.h"
#include "rootline/trace.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <llvm/IR/Module.h>

#include <fstream>
#include <set>

using namespace rootline;
using namespace rootline::test;

namespace {

// The names of the blocks whose terminating branch is silent in `fn`.
std::set<std::string> silentBlocks(const llvm::Module &m, const char *fn) {
  std::set<std::string> out;
  const llvm::Function &f = *m.getFunction(fn);
  for (const llvm::BranchInst *br : silentBranches(f, anchoredLocals(f)))
    out.insert(br->getParent()->getName().str());
  return out;
}

// Number of conditional branches in `fn`.
size_t conditionalBranches(const llvm::Module &m, const char *fn) {
  size_t n = 0;
  for (const llvm::BasicBlock &bb : *m.getFunction(fn))
    if (auto *br = llvm::dyn_cast<llvm::BranchInst>(bb.getTerminator()))
      n += br->isConditional();
  return n;
}

} // namespace

TEST_CASE("a branch is silent exactly when its successors begin with different events",
          "[trace][silent]") {
  TempDir t;
  TracedProgram p = buildTraced(sourceRecipe(t.path / "main.c", R"(#include <stdio.h>
/* The loop's test: the body begins with a LOAD of a[i], the exit with the RET. */
int sum(int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}
/* A loop that logs nothing keeps its branch: both sides begin with the RET. */
int count(int n) {
  int c = 0;
  while (n > 0) {
    n--;
    c++;
  }
  return c;
}
/* Both sides begin with a LOAD: logged. */
int pick(int *a, int c) {
  int s;
  if (c)
    s = a[0];
  else
    s = a[1];
  return s;
}
/* One side calls printf, which may log anything first: logged. */
int say(int *a, int c) {
  if (c)
    printf("%d\n", c);
  return a[0];
}
int main(void) {
  int a[3] = {1, 2, 3};
  printf("%d %d %d %d\n", sum(a, 3), count(4), pick(a, 1), say(a, 0));
  return 0;
}
)"));
  LoadedModule m = loadModule(p.module.bitcode);
  CHECK(silentBlocks(*m.module, "sum") == std::set<std::string>{"for.cond"});
  CHECK(silentBlocks(*m.module, "count").empty());
  CHECK(conditionalBranches(*m.module, "count") == 1);
  CHECK(silentBlocks(*m.module, "pick").empty());
  CHECK(silentBlocks(*m.module, "say").empty());
}

TEST_CASE("a load that turns a silent branch the other way is caught at the next event",
          "[trace][silent][replay]") {
  // The loop's test `data[i] != 1` is silent: the body begins with a LOAD, the exit
  // with the STORE to `total`. Changing the logged value of the last test's load to 2
  // makes replay enter the body, where it expects a LOAD and meets the STORE.
  TempDir t;
  TracedProgram p = buildTraced(sourceRecipe(t.path / "main.c", R"(#include <stdio.h>
int data[6] = {5, 3, 8, 1, 7, 4};
int total;
int main(void) {
  int i = 0, s = 0;
  while (data[i] != 1) {
    s += data[i];
    i++;
  }
  total = s;
  printf("%d\n", total);
  return 0;
}
)"));
  LoadedModule m = loadModule(p.module.bitcode);
  REQUIRE(silentBlocks(*m.module, "main") == std::set<std::string>{"while.cond"});
  TestCase test;
  test.timeoutSeconds = 60;
  TracedRun run = runTraced(p, test, t.path / "run.trace");
  REQUIRE(run.process.out == "16\n");

  ModuleIndex index(*m.module);
  auto replay = [&] {
    TraceReader reader(run.trace, p.module.key);
    ReplayLimits limits;
    limits.stopAtMismatch = true;
    return replayTrace(*m.module, index, reader, nullptr, limits);
  };
  ReplayResult whole = replay();
  REQUIRE(whole.outcome == RunOutcome::Exit);
  CHECK(whole.stdoutBytes == "16\n");

  // The LOAD of 1 right before the STORE to `total`: its last byte is the value.
  uint64_t valueByte = 0;
  int brEvents = 0;
  {
    TraceReader reader(run.trace, p.module.key);
    Event prev, ev;
    while (reader.next(ev)) {
      brEvents += ev.tag == Ev::BR_TRUE || ev.tag == Ev::BR_FALSE;
      if (ev.tag == Ev::STORE && prev.tag == Ev::LOAD && prev.b == 1)
        valueByte = ev.offset - 1;
      prev = ev;
    }
  }
  CHECK(brEvents == 0); // the loop ran four times without one
  REQUIRE(valueByte != 0);
  {
    std::fstream file(run.trace, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(valueByte));
    file.put('\x02');
  }
  ReplayResult cut = replay();
  CHECK(cut.outcome == RunOutcome::Diverged);
  CHECK(cut.divergence.find("replay mismatch") != std::string::npos);
  CHECK(cut.divergence.find("STORE") != std::string::npos);
}
