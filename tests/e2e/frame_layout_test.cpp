// Locals placed from their frame's anchor (anchoredLocals, ENTER_FRAME and LAYOUT in
// docs/trace-format.md): which locals qualify, on real C compiled by clang, and that
// traces without their ALLOCA_LOCAL events still replay exactly.
#include "rootline/replay.h"
#include "rootline/run.h"
#include "rootline/trace.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <llvm/IR/Module.h>

#include <map>
#include <set>

using namespace rootline;
using namespace rootline::test;

namespace {

const char *kProgram = R"(#include <stdio.h>
static int depth(int n, int flag) {
  int total = 0;              /* stored at its declaration */
  int maybe;                  /* stored on one path only, read on both */
  int both;                   /* stored on both paths before its read */
  if (flag) {
    maybe = n;
    both = 1;
  } else {
    both = 2;
  }
  for (int i = 0; i < n; i++) /* a loop counter */
    total += i * both;
  if (n > 0)
    total += depth(n - 1, !flag);
  return flag ? total + maybe : total;
}
int main(void) {
  int k;                      /* its address escapes: not modelled */
  if (scanf("%d", &k) != 1)
    return 2;
  printf("%d\n", depth(k, 1) & 0xffff);
  return 0;
}
)";

// The source names of a function's anchored locals ("n.addr" for parameter n).
std::set<std::string> anchoredNames(const llvm::Module &m, const char *fn) {
  std::set<std::string> out;
  for (const llvm::AllocaInst *al : anchoredLocals(*m.getFunction(fn)))
    out.insert(al->getName().str());
  return out;
}

} // namespace

TEST_CASE("anchored locals are the modelled locals every path stores before reading",
          "[trace][frame]") {
  TempDir t;
  TracedProgram p = buildTraced(sourceRecipe(t.path / "main.c", kProgram));
  LoadedModule m = loadModule(p.module.bitcode);
  // Parameters are stored on entry; `maybe` may be read as it was on entry.
  CHECK(anchoredNames(*m.module, "depth") ==
        std::set<std::string>{"n.addr", "flag.addr", "total", "both", "i"});
  // main's return slot is stored before every return; k escapes through scanf.
  CHECK(anchoredNames(*m.module, "main") == std::set<std::string>{"retval"});
}

TEST_CASE("a trace places anchored locals from ENTER_FRAME and still replays exactly",
          "[trace][frame][replay]") {
  TempDir t;
  TracedProgram p = buildTraced(sourceRecipe(t.path / "main.c", kProgram));
  writeText(t.path / "in.txt", "40\n");
  TestCase test;
  test.stdinFile = t.path / "in.txt";
  test.timeoutSeconds = 60;
  fs::path native = buildNative(p.recipe, p.module);
  ProcessResult ref = runNative(native, test);
  TracedRun run = runTraced(p, test, t.path / "run.trace");
  REQUIRE(run.process.out == ref.out);

  LoadedModule m = loadModule(p.module.bitcode);
  ModuleIndex index(*m.module);
  uint32_t depthId = index.indexOf(m.module->getFunction("depth"));
  std::map<Ev, int> count;
  std::map<uint64_t, int> layouts; // function id -> LAYOUT events
  TraceReader reader(run.trace, p.module.key);
  for (Event ev; reader.next(ev);) {
    ++count[ev.tag];
    if (ev.tag == Ev::LAYOUT)
      ++layouts[ev.a];
  }
  // depth runs 41 times: one ENTER_FRAME each (main has one too), its layout once,
  // and only `maybe` logs its initial bytes.
  CHECK(count[Ev::ENTER_FRAME] == 42);
  CHECK(count[Ev::ENTER] == 0);
  CHECK(layouts[depthId] == 1);
  CHECK(layouts.size() == 2);
  CHECK(count[Ev::ALLOCA_LOCAL] == 41);

  TraceReader again(run.trace, p.module.key);
  ReplayLimits limits;
  limits.stopAtMismatch = true;
  ReplayResult r = replayTrace(*m.module, index, again, nullptr, limits);
  INFO(r.divergence);
  CHECK(r.outcome == RunOutcome::Exit);
  CHECK(r.stdoutBytes == ref.out);
}
