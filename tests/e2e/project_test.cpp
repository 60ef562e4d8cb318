// A project as its users build and test it (docs/project.md): its own build system,
// rootline-cc recording bitcode and links, its own test script running the built
// program several times, and the failing process found among the processes it ran.
#include "rootline/project.h"
#include "rootline/replay.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::test;

namespace {

fs::path projectFixture(const std::string &name, const std::string &version) {
  return fixturesDir() / "projects" / name / version;
}

std::vector<std::pair<std::string, fs::path>> tracedPrograms(const BuiltProject &p) {
  std::vector<std::pair<std::string, fs::path>> out;
  for (const auto &prog : p.programs)
    out.emplace_back(prog.path, programExecutables(p, prog).traced.instrumentedExe);
  return out;
}

} // namespace

TEST_CASE("an autotools project builds with its own configure and make; its test script's "
          "failing process is the re-executed child that prints the wrong value",
          "[project]") {
  ProjectBuildOptions opt;
  fs::path oldTree = projectFixture("autotools_tally", "old");
  CHECK(detectBuildCommand(oldTree) .starts_with("autoreconf -fi && ./configure && make"));
  BuiltProject oldBuild = buildProject(oldTree, "old", opt);
  BuiltProject newBuild = buildProject(projectFixture("autotools_tally", "new"), "new", opt);
  REQUIRE(oldBuild.programs.size() == 1);
  const ProjectProgram &tally = selectProgram(oldBuild, "tally");
  CHECK(tally.path == "src/tally");
  // main.c, tally.c, format.c and the two units of lib/libutil.a that it uses.
  CHECK(tally.bitcode.size() == 5);
  CHECK_FALSE(oldTree.empty());
  CHECK_FALSE(fs::exists(oldTree / "configure")); // the fixture itself is never built in
  CHECK(buildProject(oldTree, "old", opt).cacheHit);

  TestCommand test{"sh tests/basic.sh", 120};
  TempDir t;
  TestCommandRun oldNative = runTestCommand(oldBuild, test, {}, t.path / "unused");
  TestCommandRun newNative = runTestCommand(newBuild, test, {}, t.path / "unused");
  CHECK(oldNative.passed());
  CHECK_FALSE(newNative.passed());
  CHECK_FALSE(newNative.cannotTest());

  TestCommandRun oldTraced = runTestCommand(oldBuild, test, tracedPrograms(oldBuild), t.path / "old");
  TestCommandRun newTraced = runTestCommand(newBuild, test, tracedPrograms(newBuild), t.path / "new");
  CHECK(oldTraced.passed()); // traced programs behave like the native ones
  CHECK_FALSE(newTraced.passed());
  // Five runs of tally in the script; one forks a child per file that execs tally
  // again: a forked child's trace and an exec'd image's trace each.
  REQUIRE(oldTraced.processes.size() == 9);
  REQUIRE(newTraced.processes.size() == 9);
  size_t forks = 0;
  for (const auto &p : oldTraced.processes)
    forks += p.header.process.parentSeq != 0;
  CHECK(forks == 2);
  std::optional<FailingProcess> f = firstDifferingProcess(oldTraced.processes, newTraced.processes);
  REQUIRE(f);
  const TraceProcess &p = oldTraced.processes[f->oldIndex].header.process;
  INFO(commandLine(p) << ": " << f->why);
  REQUIRE(f->newIndex);
  CHECK(p.argv.size() == 4);
  CHECK(p.argv[0] == "./src/tally");
  CHECK(p.argv[1] == "-lL");
  CHECK(p.argv.back().ends_with("/b.txt"));
  CHECK(f->outputFd == 1u);
  CHECK(f->why.starts_with("its stdout differs in line 1: \" 4 27 t."));
  CHECK(f->why.find("in the old run, \" 4 19 t.") != std::string::npos);
  // The input file it read was copied when it opened it (the script deletes it).
  CHECK(fs::exists(oldTraced.traceDir / ("p" + std::to_string(f->oldIndex) + ".in1")));
}
