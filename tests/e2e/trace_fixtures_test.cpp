// Every fixture traced natively: same behaviour as the uninstrumented build, and a
// replay with zero mismatches that ends the way the process ended.
#include "rootline/error.h"
#include "rootline/replay.h"
#include "rootline/run.h"
#include "rootline/slice.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <llvm/IR/Module.h>
#include <nlohmann/json.hpp>

#include <csignal>

using namespace rootline;
using namespace rootline::test;

namespace {

TestCase testOf(const ProgramFixture &f) {
  TestCase t;
  t.stdinFile = f.stdinFile;
  t.args = f.args;
  t.timeoutSeconds = 120;
  return t;
}

struct Counter : ReplayObserver {
  uint64_t n = 0, lastIndex = 0;
  bool ordered = true;
  void onInstance(const Instance &i) override {
    if (n && i.index != lastIndex + 1)
      ordered = false;
    lastIndex = i.index;
    ++n;
  }
};

// A replay result together with the module its instruction pointers point into.
struct Replayed {
  LoadedModule module;
  ReplayResult result;
};

Replayed replayOf(const TracedProgram &p, const fs::path &trace, ReplayObserver *obs = nullptr) {
  Replayed out{loadModule(p.module.bitcode), {}};
  ModuleIndex index(*out.module.module);
  TraceReader reader(trace, p.module.key);
  out.result = replayTrace(*out.module.module, index, reader, obs);
  return out;
}

} // namespace

TEST_CASE("every fixture traces with native behaviour and replays without mismatch",
          "[trace][fixtures]") {
  for (const auto &f : programFixtures()) {
    if (f.hasTag("cpu-heavy") || f.hasTag("stress"))
      continue; // covered by the stress test and bench/
    DYNAMIC_SECTION(f.name) {
      TracedProgram p = buildTraced(f.recipe());
      fs::path native = buildNative(p.recipe, p.module);
      TempDir t;
      TracedRun run = runTraced(p, testOf(f), t.path / "run.trace");
      ProcessResult ref = runNative(native, testOf(f));
      INFO(f.name << ": traced " << run.process.outcome() << ", native " << ref.outcome() << "\n"
                  << run.process.err);
      CHECK(run.process.out == ref.out);
      CHECK(run.process.err == ref.err);
      CHECK(run.process.outcome() == ref.outcome());
      CHECK(run.process.out == f.expectedStdout);

      Counter counter;
      Replayed replayed = replayOf(p, run.trace, &counter);
      const ReplayResult &r = replayed.result;
      CHECK(counter.ordered);
      CHECK(counter.n == r.instances);
      CHECK(r.instances > 0);
      if (f.signal.empty()) {
        CHECK(r.outcome == RunOutcome::Exit);
        CHECK(r.exitStatus == f.exitCode);
        // Everything the program handed to stdout, in order (nothing is lost at a normal exit).
        CHECK(r.stdoutBytes == ref.out);
      } else {
        REQUIRE(r.outcome == RunOutcome::Signal);
        CHECK(signalName(r.signal) == f.signal);
        REQUIRE(r.crashInst != nullptr);
        REQUIRE(f.crashLine.has_value());
        SourceLocation loc = ModuleIndex::locationOf(r.crashInst);
        CHECK(fs::path(loc.file).filename() == f.crashLine->first);
        CHECK(loc.line == static_cast<unsigned>(f.crashLine->second));
      }
    }
  }
}

TEST_CASE("both versions of every regression fixture trace and replay",
          "[trace][fixtures][sweep]") {
  for (const auto &reg : sampledInCI(regressionFixtures(), kRegressionStride)) {
    DYNAMIC_SECTION(reg.name) {
      for (const char *version : {"old", "new"}) {
        TracedProgram p = buildTraced(reg.program.recipeIn(reg.dir / version));
        TempDir t;
        TracedRun run = runTraced(p, testOf(reg.program), t.path / "run.trace");
        CHECK(run.process.out == (std::string(version) == "old" ? reg.oldStdout : reg.newStdout));
        RunOutcome outcome = replayOf(p, run.trace).result.outcome;
        CHECK(outcome == (run.process.signal ? RunOutcome::Signal : RunOutcome::Exit));
      }
    }
  }
}

TEST_CASE("a stress run of at least ten million instructions traces and replays",
          "[trace][stress]") {
  ProgramFixture f = programFixture("stress_loop");
  TracedProgram p = buildTraced(f.recipe());
  TempDir t;
  TracedRun run = runTraced(p, testOf(f), t.path / "run.trace");
  REQUIRE(run.process.exitedWith(0));
  CHECK(run.process.out == f.expectedStdout);
  Replayed replayed = replayOf(p, run.trace);
  CHECK(replayed.result.outcome == RunOutcome::Exit);
  CHECK(replayed.result.instances >= 10'000'000);
}

// The writer thread holds up to four 1 MiB buffers; these programs log far more than
// that before they end, so every way of ending must wait for it and keep event order.
TEST_CASE("a trace spanning many buffers is whole however the program ends", "[trace][long]") {
  TempDir t;
  const char *work = "#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n"
                     "int g[64];\n"
                     "int main(int argc, char **argv) {\n"
                     "  for (int i = 0; i < 3000000; i++) g[i & 63] += i;\n"
                     "  printf(\"%d\\n\", g[5]);\n"
                     "  fflush(stdout);\n"
                     "  if (argv[1][0] == 's') { int *p = 0; return *p; }\n" // line 9
                     "  if (argv[1][0] == 'x') _exit(3);\n"
                     "  return 4;\n"
                     "}\n";
  BuildRecipe recipe = sourceRecipe(t.path / "many.c", work);
  TracedProgram p = buildTraced(recipe);
  fs::path native = buildNative(p.recipe, p.module);
  for (std::string how : {"segv", "xexit", "return"}) {
    DYNAMIC_SECTION(how) {
      TestCase test;
      test.args = {how};
      TracedRun run = runTraced(p, test, t.path / (how + ".trace"));
      ProcessResult ref = runNative(native, test);
      CHECK(run.process.outcome() == ref.outcome());
      CHECK(run.process.out == ref.out);
      REQUIRE(fs::file_size(run.trace) > 8u << 20);
      Replayed replayed = replayOf(p, run.trace);
      const ReplayResult &r = replayed.result;
      CHECK(r.instances > 30'000'000);
      if (how == "segv") {
        REQUIRE(r.outcome == RunOutcome::Signal);
        CHECK(r.signal == SIGSEGV);
        REQUIRE(r.crashInst != nullptr);
        CHECK(ModuleIndex::locationOf(r.crashInst).line == 9);
      } else {
        REQUIRE(r.outcome == RunOutcome::Exit);
        CHECK(r.exitStatus == (how == "xexit" ? 3 : 4));
      }
    }
  }
}

TEST_CASE("a forked child runs untraced and the parent's trace replays", "[trace]") {
  TempDir t;
  BuildRecipe recipe = sourceRecipe(
      t.path / "fork.c", "#include <stdio.h>\n#include <sys/wait.h>\n#include <unistd.h>\n"
                         "int g[8];\n"
                         "int main(void) {\n"
                         "  for (int i = 0; i < 100000; i++) g[i & 7] += i;\n"
                         "  fflush(stdout);\n"
                         "  pid_t pid = fork();\n"
                         "  if (pid == 0) {\n"
                         "    for (int i = 0; i < 100000; i++) g[i & 7] -= i;\n"
                         "    printf(\"child %d\\n\", g[1]);\n"
                         "    return 0;\n"
                         "  }\n"
                         "  int status = 0;\n"
                         "  waitpid(pid, &status, 0);\n"
                         "  printf(\"parent %d %d\\n\", g[1], WEXITSTATUS(status));\n"
                         "  return 0;\n"
                         "}\n");
  TracedProgram p = buildTraced(recipe);
  fs::path native = buildNative(p.recipe, p.module);
  TracedRun run = runTraced(p, TestCase{}, t.path / "run.trace");
  ProcessResult ref = runNative(native, TestCase{});
  CHECK(run.process.out == ref.out);
  CHECK(run.process.outcome() == ref.outcome());
  Replayed replayed = replayOf(p, run.trace);
  CHECK(replayed.result.outcome == RunOutcome::Exit);
  // The trace holds the parent's output only, which native printed after the child's.
  const std::string &parentOut = replayed.result.stdoutBytes;
  CHECK(parentOut.rfind("parent 624962500 0\n", 0) == 0);
  CHECK(ref.out == "child 0\n" + parentOut);
}

TEST_CASE("a hanging program is stopped at the timeout with its trace flushed", "[trace]") {
  TempDir t;
  BuildRecipe recipe = sourceRecipe(t.path / "hang.c",
                                    "#include <unistd.h>\nint main(void) { for (;;) sleep(1); }\n");
  TracedProgram p = buildTraced(recipe);
  TestCase test;
  test.timeoutSeconds = 0.5;
  TracedRun run = runTraced(p, test, t.path / "run.trace");
  CHECK(run.process.timedOut);
  Replayed replayed = replayOf(p, run.trace);
  const ReplayResult &r = replayed.result;
  REQUIRE(r.outcome == RunOutcome::Signal);
  CHECK(r.signal == SIGTERM);
  REQUIRE(r.crashInst != nullptr);
  INFO(ModuleIndex::describe(r.crashInst));
  CHECK(ModuleIndex::locationOf(r.crashInst).line == 2); // stopped inside sleep()

  auto cli = runRootline({"trace", "--src", (t.path / "hang.c").string(), "--timeout", "1"});
  CHECK(cli.exitCode == ExitBadInput);
  CHECK(cli.err.find("did not finish within 1 s") != std::string::npos);
}

TEST_CASE("a busy program stopped by SIGTERM mid-event still leaves a well-formed trace",
          "[trace]") {
  TempDir t;
  BuildRecipe recipe =
      sourceRecipe(t.path / "spin.c",
                   "int g[4];\nint main(void) { for (unsigned i = 0;; i++) g[i & 3] += i; }\n");
  TracedProgram p = buildTraced(recipe);
  TestCase test;
  test.timeoutSeconds = 0.2;
  TracedRun run = runTraced(p, test, t.path / "run.trace");
  CHECK(run.process.timedOut);
  TraceReader reader(run.trace, p.module.key);
  Event e, last;
  uint64_t n = 0;
  while (reader.next(e)) {
    last = e;
    ++n;
  }
  CHECK(n > 1000);
  // Either the handler dropped the partial event and appended SIGNAL, or it could not
  // do so safely and the trace just ends early; never a corrupt event.
  CHECK((last.tag == Ev::SIGNAL || reader.truncated() || last.tag != Ev::END));
}

TEST_CASE("a trace larger than --max-trace-bytes stops cleanly with a clear error", "[trace]") {
  ProgramFixture f = programFixture("stress_loop");
  auto cli =
      runRootline({"trace", "--src", (f.dir / "main.c").string(), "--max-trace-bytes", "2000000"});
  CHECK(cli.exitCode == ExitBadInput);
  CHECK(cli.err.find("--max-trace-bytes") != std::string::npos);
  CHECK(std::count(cli.err.begin(), cli.err.end(), '\n') <= 2);

  // The limit holds to the byte, also below the 1 MiB buffer size.
  TracedProgram p = buildTraced(f.recipe());
  TempDir t;
  TestCase test;
  test.maxTraceBytes = 50000;
  TracedRun run = runTraced(p, test, t.path / "run.trace");
  CHECK(run.limitReached);
  CHECK(fs::file_size(run.trace) <= 50000 + 4096 + 8); // within 4 KiB, + the LIMIT event
  CHECK(fs::file_size(run.trace) > 40000);
  TraceReader reader(run.trace, p.module.key);
  Event e, last;
  while (reader.next(e))
    last = e;
  CHECK(last.tag == Ev::LIMIT);
  CHECK(last.a + 1 + 3 == fs::file_size(run.trace)); // the bytes before it, then its own
  CHECK_FALSE(reader.truncated());
}

TEST_CASE("rootline trace passes output and exit status through and summarises", "[trace][cli]") {
  ProgramFixture f = programFixture("exit_status");
  std::vector<std::string> args = {"trace"};
  for (const auto &s : f.sources)
    args.insert(args.end(), {"--src", (f.dir / s).string()});
  if (f.stdinFile)
    args.insert(args.end(), {"--stdin", f.stdinFile->string()});
  auto r = runRootline(args);
  CHECK(r.exitedWith(f.exitCode));
  CHECK(r.out == f.expectedStdout);
  CHECK(r.err.find("instructions") != std::string::npos);
  CHECK(r.err.find("0 mismatches") != std::string::npos);

  args.insert(args.begin(), "--json");
  r = runRootline(args);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["instructions"].get<uint64_t>() > 0);
  CHECK(j["stdout"].get<std::string>() == f.expectedStdout);
  CHECK(j["outcome"].get<std::string>() == "exit " + std::to_string(f.exitCode));
}

TEST_CASE("rootline trace reports the crash site of a crashing program", "[trace][cli]") {
  ProgramFixture f = programFixture("crash_divzero");
  std::vector<std::string> args = {"--json", "trace"};
  for (const auto &s : f.sources)
    args.insert(args.end(), {"--src", (f.dir / s).string()});
  if (f.stdinFile)
    args.insert(args.end(), {"--stdin", f.stdinFile->string()});
  auto r = runRootline(args);
  CHECK(r.exitCode == 128 + SIGFPE);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["signal"] == "SIGFPE");
  CHECK(j["crash"]["line"].get<int>() == f.crashLine->second);
}

TEST_CASE("rootline trace rejects a missing stdin file and a program that does not compile",
          "[trace][cli]") {
  TempDir t;
  writeText(t.path / "ok.c", "int main(void) { return 0; }\n");
  writeText(t.path / "bad.c", "int main(void) { return x; }\n");
  auto r = runRootline(
      {"trace", "--src", (t.path / "ok.c").string(), "--stdin", (t.path / "nope.txt").string()});
  CHECK(r.exitCode == ExitBadInput);
  CHECK(r.err.find("nope.txt") != std::string::npos);
  r = runRootline({"trace", "--src", (t.path / "bad.c").string()});
  CHECK(r.exitCode == ExitBadInput);
  CHECK(r.err.find("cannot compile") != std::string::npos);
  CHECK(r.err.find("error:") != std::string::npos);
}

TEST_CASE("isnan, isinf and isfinite (llvm.is.fpclass) replay", "[trace]") {
  // clang-19 turns these into llvm.is.fpclass; mujs's number conversions use them.
  TempDir t;
  BuildRecipe recipe = sourceRecipe(t.path / "cls.c", R"(#include <math.h>
#include <stdio.h>
int main(void) {
  double xs[] = {0.0, -0.0, 1.5, -2.0, 1e-310, 0.0 / 0.0, 1.0 / 0.0, -1.0 / 0.0};
  for (int i = 0; i < 8; ++i)
    printf("%d%d%d%d ", isnan(xs[i]) != 0, isinf(xs[i]) != 0, isfinite(xs[i]) != 0,
           isnormal(xs[i]) != 0);
  float f = (float)xs[5];
  printf("%d\n", isnan(f) != 0);
  return 0;
}
)");
  TracedProgram p = buildTraced(recipe);
  TestCase test;
  TracedRun run = runTraced(p, test, t.path / "run.trace");
  REQUIRE(run.process.exitedWith(0));
  CHECK(run.process.out == "0010 0010 0011 0011 0010 1000 0100 0100 1\n");
  Replayed replayed = replayOf(p, run.trace);
  CHECK(replayed.result.outcome == RunOutcome::Exit);
}

TEST_CASE("every IR construct fixture slices its output", "[trace][slice][ir]") {
  unsigned n = 0;
  for (const auto &f : programFixtures()) {
    if (!f.hasTag("ir"))
      continue;
    ++n;
    DYNAMIC_SECTION(f.name) {
      TracedProgram p = buildTraced(f.recipe());
      TempDir t;
      TracedRun run = runTraced(p, testOf(f), t.path / "run.trace");
      LoadedModule m = loadModule(p.module.bitcode);
      ModuleIndex index(*m.module);
      StaticAnalysis analysis(*m.module, index);
      DependenceRecorder deps(index, analysis);
      TraceReader reader(run.trace, p.module.key);
      ReplayResult r = replayTrace(*m.module, index, reader, &deps);
      CHECK(r.outcome == RunOutcome::Exit);
      DynamicTrace trace = deps.take();
      Slice s = computeSlice(trace, index, analysis, resolveCriterion("output", trace, index));
      CHECK(s.complete);
      CHECK(s.size() > 0);
    }
  }
  CHECK(n >= 15);
}
