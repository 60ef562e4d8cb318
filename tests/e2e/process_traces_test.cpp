// Programs that fork, vfork and exec: every process gets a trace of its own under
// ROOTLINE_TRACE_DIR, and each replays on its own (docs/trace-format.md, "Processes").
#include "rootline/module_index.h"
#include "rootline/process_traces.h"
#include "rootline/replay.h"
#include "rootline/run.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::test;

namespace {

// A parent that forks (the child prints), vforks a child that execs the program itself,
// runs a shell through system(), and finally replaces itself with its own image.
const char *kFamily = R"(#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[1], "child") == 0) {
    printf("image %s\n", argv[2]);
    return 3;
  }
  int x = 0;
  if (scanf("%d", &x) != 1)
    return 2;
  printf("parent %d\n", x);
  fflush(stdout);
  pid_t p = fork();
  if (p == 0) {
    printf("forked child %d\n", x * 2);
    exit(0);
  }
  int st = 0;
  waitpid(p, &st, 0);
  pid_t v = vfork();
  if (v == 0) {
    execl(argv[0], argv[0], "child", "vf", (char *)0);
    _exit(127);
  }
  waitpid(v, &st, 0);
  printf("vfork child exited %d\n", WEXITSTATUS(st));
  fflush(stdout);
  int rc = system("echo from-sh");
  printf("system %d\n", WEXITSTATUS(rc));
  fflush(stdout);
  if (x > 5)
    execlp(argv[0], argv[0], "child", "final", (char *)0);
  return 0;
}
)";

struct Replayed {
  ReplayResult result;
  std::string stdoutBytes;
};

Replayed replayOne(const TracedProgram &p, const fs::path &trace) {
  LoadedModule m = loadModule(p.module.bitcode);
  ModuleIndex index(*m.module);
  TraceReader reader(trace, p.module.key);
  Replayed r;
  r.result = replayTrace(*m.module, index, reader);
  r.stdoutBytes = r.result.stdoutBytes;
  return r;
}

} // namespace

TEST_CASE("fork, vfork, exec and system: every traced process has its own trace and replays",
          "[trace][processes]") {
  TempDir t;
  TracedProgram p = buildTraced(sourceRecipe(t.path / "family.c", kFamily));
  fs::path traces = t.path / "traces";
  fs::create_directories(traces);
  writeText(t.path / "in.txt", "7\n");
  ProcessSpec spec;
  spec.argv = {p.instrumentedExe.string()};
  spec.stdinFile = (t.path / "in.txt").string();
  spec.extraEnv["ROOTLINE_TRACE_DIR"] = traces.string();
  spec.timeoutSeconds = 60;
  ProcessResult run = runProcess(spec);
  REQUIRE(run.exitedWith(3)); // the final image's status
  CHECK(run.out == "parent 7\nforked child 14\nimage vf\nvfork child exited 3\nfrom-sh\n"
                   "system 0\nimage final\n");

  std::vector<ProcessTrace> procs = processTraces(traces);
  // main, its forked child, the vfork child (a fork here), the image it exec'd, and the
  // final image; the shell of system() is not a traced program.
  REQUIRE(procs.size() == 5);
  for (size_t i = 0; i < procs.size(); ++i)
    CHECK(procs[i].number() == i);
  const TraceProcess &main = procs[0].header.process;
  CHECK(main.parentSeq == 0);
  CHECK(main.argv == std::vector<std::string>{p.instrumentedExe.string()});
  CHECK(fs::equivalent(main.exe, p.instrumentedExe));
  // The forked children continue the parent's trace; the exec'd images start anew with
  // the pid of the process that exec'd.
  CHECK(procs[1].header.process.parentSeq == 1);
  CHECK(procs[2].header.process.parentSeq == 1);
  CHECK(procs[3].header.process.parentSeq == 0);
  CHECK(procs[3].header.process.argv ==
        std::vector<std::string>{p.instrumentedExe.string(), "child", "vf"});
  CHECK(procs[3].header.process.pid == procs[2].header.process.pid);
  CHECK(procs[4].header.process.pid == main.pid);
  CHECK(procs[4].header.process.argv.back() == "final");

  Replayed r0 = replayOne(p, procs[0].trace);
  CHECK(r0.result.outcome == RunOutcome::Exec);
  CHECK(r0.stdoutBytes == "parent 7\nvfork child exited 3\nsystem 0\n");
  Replayed r1 = replayOne(p, procs[1].trace);
  CHECK(r1.result.outcome == RunOutcome::Exit);
  // Replayed from the start of the parent: its output before the fork, then its own.
  CHECK(r1.stdoutBytes == "parent 7\nforked child 14\n");
  Replayed r2 = replayOne(p, procs[2].trace);
  CHECK(r2.result.outcome == RunOutcome::Exec);
  for (size_t i : {3, 4}) {
    Replayed r = replayOne(p, procs[i].trace);
    CHECK(r.result.outcome == RunOutcome::Exit);
    CHECK(r.result.exitStatus == 3);
    CHECK(r.stdoutBytes == (i == 3 ? "image vf\n" : "image final\n"));
  }
}

TEST_CASE("a single-file trace is the process's own: children that exec the program do not "
          "write over it",
          "[trace][processes]") {
  TempDir t;
  TracedProgram p = buildTraced(sourceRecipe(t.path / "family.c", kFamily));
  writeText(t.path / "in.txt", "9\n");
  TestCase test;
  test.stdinFile = t.path / "in.txt";
  TracedRun run = runTraced(p, test, t.path / "run.trace");
  REQUIRE(run.process.exitedWith(3));
  Replayed r = replayOne(p, run.trace);
  // The trace is the first image's, whole: it ends where that image exec'd the last one.
  CHECK(r.result.outcome == RunOutcome::Exec);
  CHECK(r.stdoutBytes == "parent 9\nvfork child exited 3\nsystem 0\n");
}
