// The test's other processes run alone on a trial's build (src/compose/other_processes.cpp;
// docs/debug.md, "The test's other processes"), on programs clang built.
#include "compose/debug_stages.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::debug;
using namespace rootline::test;

namespace {

// Prints its argument doubled; the old version keeps 0 as 1 (`n <= 0`), the new one does
// not (`n < 0`).
std::string doubler(const std::string &keep) {
  return "#include <stdio.h>\n"
         "#include <stdlib.h>\n"
         "int main(int argc, char **argv) {\n"
         "  int n = argc > 1 ? atoi(argv[1]) : 0;\n"
         "  if (" +
         keep +
         ")\n"
         "    n = 1;\n"
         "  printf(\"%d\\n\", n * 2);\n"
         "  return 0;\n"
         "}\n";
}

fs::path built(const fs::path &dir, const std::string &source) {
  return buildNativeVersion(dir.filename().string(), sourceRecipe(dir / "main.c", source));
}

ProgramInput argument(const std::string &arg) {
  ProgramInput in;
  in.argv0 = "./doubler";
  in.args = {arg};
  return in;
}

} // namespace

TEST_CASE("a trial is run on the test's alike processes that ran its line and on those the "
          "spectrum did not replay, and when none changed on the differing ones too",
          "[revert][spectrum]") {
  TempDir oldDir, newDir, fixDir, wrongDir, work;
  DebugRequest req;
  req.oldBuilt = BuiltVersion{{}, built(oldDir.path, doubler("n <= 0"))};
  req.newBuilt = BuiltVersion{{}, built(newDir.path, doubler("n < 0"))};
  fs::path fix = built(fixDir.path, doubler("n <= 0"));
  fs::path wrong = built(wrongDir.path, doubler("n < 5")); // 3 → 2, 4 → 2: changes them
  // The test ran `doubler 3`, `doubler 4`, `doubler 7` (alike) and `doubler 0` (differs).
  const std::vector<std::string> args = {"3", "4", "7", "0"};
  req.newTestProcesses = {{"", true}, {"", true}, {"", true}, {"", false}};
  req.newTestProcessInput = [&](size_t i) -> std::optional<ProgramInput> {
    return i < args.size() ? std::optional(argument(args[i])) : std::nullopt;
  };
  // The spectrum replayed `doubler 3` and `doubler 0`, which ran line 5; the others not.
  TestSpectrum spectrum;
  spectrum.replayed["new"] = {1, 1};
  spectrum.replayedWhole["new"] = {0, 3};
  spectrum.alikeRan[{"new", "main.c", 5}] = {0};
  spectrum.differingRan[{"new", "main.c", 5}] = {3};
  OtherProcesses others(req, spectrum, work.path);
  REQUIRE(others.available());
  Deadline deadline = Deadline::in(120);

  OthersVerdict v = others.check({{"main.c", 5}}, wrong, deadline);
  CHECK(v.run == 1);        // `doubler 3`, known to run the line
  CHECK(v.unreplayed == 2); // `doubler 4`, `doubler 7`
  CHECK(v.changed == 2);
  CHECK(v.firstChanged == "doubler 3"); // the test's first of them
  CHECK(v.differingRun == 0);           // changed: no repair, the differing ones wait

  v = others.check({{"main.c", 5}}, fix, deadline);
  CHECK(v.changed == 0);
  CHECK(v.run + v.unreplayed == 3);
  CHECK(v.differingRun == 1); // `doubler 0`: 0 in the new version alone, 2 in the old
  CHECK(v.restored == 1);

  // A line no replayed process ran: only the unreplayed ones may run it.
  v = others.check({{"main.c", 9}}, fix, deadline);
  CHECK(v.run == 0);
  CHECK(v.unreplayed == 2);
  CHECK(v.differingRun == 0);
}

TEST_CASE("a process of the test whose runs alone do not repeat themselves is not compared",
          "[revert][spectrum]") {
  // It prints the clock's nanoseconds: any build would "change" it.
  const std::string stamp = "#include <stdio.h>\n"
                            "#include <time.h>\n"
                            "int main(void) {\n"
                            "  struct timespec t;\n"
                            "  clock_gettime(CLOCK_MONOTONIC, &t);\n"
                            "  printf(\"%ld\\n\", (long)t.tv_nsec);\n"
                            "  return 0;\n"
                            "}\n";
  TempDir newDir, work;
  DebugRequest req;
  req.newBuilt = BuiltVersion{{}, built(newDir.path, stamp)};
  req.newTestProcesses = {{"", true}, {"", false}};
  req.newTestProcessInput = [](size_t) -> std::optional<ProgramInput> { return ProgramInput{}; };
  TestSpectrum spectrum;
  spectrum.replayed["new"] = {1, 1};
  spectrum.replayedWhole["new"] = {0, 1};
  spectrum.alikeRan[{"new", "main.c", 5}] = {0};
  OtherProcesses others(req, spectrum, work.path);
  OthersVerdict v = others.check({{"main.c", 5}}, req.newBuilt->native, Deadline::in(120));
  CHECK(v.run == 0);
  CHECK(v.changed == 0);
}
