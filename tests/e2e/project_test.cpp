// A project as its users build and test it (docs/project.md): its own build system,
// rootline-cc recording bitcode and links, its own test script running the built
// program several times, and the failing process found among the processes it ran.
#include "rootline/error.h"
#include "rootline/process.h"
#include "rootline/project.h"
#include "rootline/replay.h"
#include "test_support.h"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <set>
#include <sstream>

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

TEST_CASE("an autotools project builds with its own configure and make, and its test script's "
          "failing process is the re-executed child that prints the wrong value",
          "[project][heavy]") {
  ProjectBuildOptions opt;
  fs::path oldTree = projectFixture("autotools_tally", "old");
  CHECK(detectBuildCommand(oldTree).starts_with("autoreconf -fi && ./configure && make"));
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

  TestCommand test{"sh tests/basic.sh", 120, std::nullopt};
  TempDir t;
  TestCommandRun oldNative = runTestCommand(oldBuild, test, {}, t.path / "unused");
  TestCommandRun newNative = runTestCommand(newBuild, test, {}, t.path / "unused");
  CHECK(oldNative.passed());
  CHECK_FALSE(newNative.passed());
  // The programs the test ran, seen by their access times (relatime on this machine).
  REQUIRE(oldNative.programsRun);
  CHECK(*oldNative.programsRun == std::vector<std::string>{"src/tally"});
  CHECK_FALSE(newNative.cannotTest());

  TestCommandRun oldTraced =
      runTestCommand(oldBuild, test, tracedPrograms(oldBuild), t.path / "old");
  TestCommandRun newTraced =
      runTestCommand(newBuild, test, tracedPrograms(newBuild), t.path / "new");
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

namespace {

struct ProjectCase {
  std::string name, test;
  nlohmann::json report;
  ProcessResult run;
};

// `rootline debug --old P/old --new P/new --test CMD --json` on a fixture project.
ProjectCase debugProject(const std::string &name, const std::string &test,
                         std::vector<std::string> extra = {}) {
  ProjectCase c{name, test, {}, {}};
  std::vector<std::string> args = {"--json", "debug",
                                   "--old",  projectFixture(name, "old").string(),
                                   "--new",  projectFixture(name, "new").string(),
                                   "--test", test};
  args.insert(args.end(), extra.begin(), extra.end());
  c.run = runRootline(args);
  INFO(c.run.err);
  REQUIRE(c.run.exitedWith(0));
  c.report = nlohmann::json::parse(c.run.out);
  return c;
}

bool hasNote(const nlohmann::json &report, const std::string &start, const std::string &part) {
  for (const auto &n : report["notes"]) {
    std::string s = n.get<std::string>();
    if (s.starts_with(start) && s.find(part) != std::string::npos)
      return true;
  }
  return false;
}

// `rootline --json debug --old DIR/old --new DIR/new --build make --test "sh check.sh"` on
// two trees a test wrote; its report.
nlohmann::json debugMadeTrees(const fs::path &dir) {
  ProcessResult r =
      runRootline({"--json", "debug", "--old", (dir / "old").string(), "--new",
                   (dir / "new").string(), "--build", "make", "--test", "sh check.sh"});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  return nlohmann::json::parse(r.out);
}

// Old and new trees of a one-file make project: `program`.c (`source`, and in the new tree
// `source` with each edit's `from` replaced by its `to`), its Makefile and `check` as
// check.sh.
void writeOneFileProject(const fs::path &dir, const std::string &program, const std::string &source,
                         const std::vector<std::pair<std::string, std::string>> &edits,
                         const std::string &check) {
  std::string changed = source;
  for (const auto &[from, to] : edits)
    changed.replace(changed.find(from), from.size(), to);
  for (bool old : {true, false}) {
    fs::path tree = dir / (old ? "old" : "new");
    writeText(tree / (program + ".c"), old ? source : changed);
    writeText(tree / "Makefile",
              program + ": " + program + ".c\n\tcc -o " + program + " " + program + ".c\n");
    writeText(tree / "check.sh", check);
  }
}

} // namespace

TEST_CASE("debug --test on an autotools project: the report names the test, the failing "
          "process and why it was chosen",
          "[project][cli][heavy]") {
  ProjectCase c = debugProject("autotools_tally", "sh tests/basic.sh");
  CHECK(hasNote(c.report, "built by 'autoreconf -fi && ./configure && make", ""));
  CHECK(hasNote(c.report, "test 'sh tests/basic.sh': passes on the old version, fails on the new",
                "9 traced process(es) in the old run"));
  // $$ is the same in both runs (a PID namespace), so the script's t.$$ is too.
  CHECK(hasNote(c.report, "failing process: `./src/tally -lL -- t.", "/b.txt` in the tree's top"));
  CHECK(hasNote(c.report, "failing process:", "its stdout differs in line 1: \" 4 27 t."));
  // The failing process is debugged from its own inputs: the file it read, its arguments.
  const nlohmann::json &input = c.report["test"]["input"];
  REQUIRE(input["args"].size() == 3);
  CHECK(input["args"][0] == "-lL");
  std::string file = input["args"][2];
  CHECK(file.ends_with("/b.txt"));
  CHECK(input["files"][file] ==
        "steps:\n\tpreheat the oven\n\tmix flour and water\nbake for 40 minutes\n");
  REQUIRE_FALSE(c.report["candidates"].empty());
  // Every candidate is a line of the program's own sources, named in the tree.
  for (const auto &cand : c.report["candidates"])
    CHECK(cand["file"].get<std::string>().starts_with("src/"));
  // The change moved tally_file() from main.c to tally.c and changed its calls, so the
  // tab's line is aligned under its callees; from the same column it computes another.
  const auto &top = c.report["candidates"][0];
  CHECK(top["file"] == "src/tally.c");
  CHECK(top["line"] == 55);
  CHECK(top["aligned"]["origin"] == true);
  // Its old text uses a macro the change removed: the trial puts its definition back,
  // and then that line alone reverted makes the test pass.
  // (The hunk, src/tally.c:52-56, or the line narrowed from it when the stage's share
  // leaves time for that trial.)
  CHECK(textAt(top, "/revert/result") == "fixes");
  std::string revert = textAt(top, "/revert/detail");
  CHECK(revert.starts_with("reverting src/tally.c:5"));
  // (Then what the test's other runs of the program did with it, each run alone.)
  CHECK(revert.find(" (with the old definition of `TALLY_TAB_WIDTH` put back) alone makes the "
                    "test pass") != std::string::npos);
  // The trial ran the failing process alone; the sentence says the test passes because the
  // whole test ran on that rebuilt tree too.
  bool confirmed = false;
  for (const auto &trial : c.report["revert_trials"])
    confirmed |= trial["hunks"] == nlohmann::json::array({textAt(top, "/revert/unit")}) &&
                 trial["result"] == "passes" && trial.value("whole_test", "") == "passes";
  CHECK(confirmed);
  CHECK(top["aligned"]["detail"] ==
        "in the dual slice: where both runs read `st->column` = 0, its execution computes "
        "`st->column` = 8 in the old run and 0 in the new run");
  // New code that only sets a new variable (`tab_width = 8`) is not the first divergence;
  // the first thing the runs do otherwise is pass another option string.
  CHECK(c.report["alignment"]["first_divergence"]["text"] ==
        "src/main.c:178 passes \"lwcLhV\" to getopt_long in the old run and \"lwcLT:hV\" in "
        "the new run");
  // tally_file() left main.c with its `fp`; the new `tab_width` is used as often there,
  // but it is no rename.
  for (const auto &n : c.report["neutral_edits"])
    CHECK(n["why"].get<std::string>().find("`fp`") == std::string::npos);
  // A line whose every input differs already is not where the runs part.
  for (const auto &cand : c.report["candidates"])
    if (cand["file"] == "src/format.c")
      CHECK(cand["aligned"]["origin"] == false);
}

TEST_CASE("debug --test on a CMake project with a ctest entry: the changed conversion ranks "
          "first, and reverting it alone in an incremental rebuild makes the test pass",
          "[project][cli]") {
  ProjectCase c = debugProject("cmake_units", "cd build && ctest --output-on-failure");
  CHECK(hasNote(c.report, "failing process: `build/units -p 4 100 C F` in build",
                "\"100 C = 212 F\" in the old run, \"100 C = -155.7 F\" in the new run"));
  REQUIRE_FALSE(c.report["candidates"].empty());
  const auto &top = c.report["candidates"][0];
  CHECK(top["file"] == "src/convert.c");
  CHECK(top["line"] == 13);
  CHECK(textAt(top, "/revert/result") == "fixes");
  // `int list = 0, quiet = 0;` (the old line set `list` only) gives a new variable its
  // first value: new state, not where the runs part.
  std::string first = c.report["alignment"]["first_divergence"]["text"];
  INFO(first);
  CHECK(first.find("`quiet`") == std::string::npos);
}

TEST_CASE("debug --test on a Makefile project whose test pipes one program into another, the "
          "failing process is the second of the pipeline, which read the first's output",
          "[project][cli]") {
  ProjectCase c = debugProject("make_pipeline", "make check");
  CHECK(hasNote(c.report, "failing process: `./csvsum -H`", "max=-0.5"));
  CHECK(c.report["test"]["input"]["stdin"].get<std::string>().find("-6.5") != std::string::npos);
  REQUIRE_FALSE(c.report["candidates"].empty());
  CHECK(c.report["candidates"][0]["file"] == "src/csvsum.c");
  // Its doubles read as people write them: the carved call leaves st->max = -4.3 (the
  // harness printed -4.2999999999999998); the alternative's -4.300000000000001 is the next
  // double, and stays.
  bool local = false;
  for (const auto &cand : c.report["candidates"])
    if (cand["local_alternative"].is_string()) {
      std::string text = cand["local_alternative"];
      INFO(text);
      CHECK(text.find("99999") == std::string::npos);
      local |= text.find("the old version leaves st->max = -4.3,") != std::string::npos;
    }
  CHECK(local);
}

TEST_CASE(
    "debug --test: a failing process that hands its argument file to a program it runs "
    "(gzip through popen), deleted before the test ends, is debugged alone with that file and "
    "the variable the test set",
    "[project][cli]") {
  ProjectCase c = debugProject("make_unpack", "sh tests/gz.sh");
  CHECK(hasNote(c.report, "failing process: `./wcz t.gz`", "\"2 3 19 t.gz\" in the new run"));
  // wcz never opens t.gz (gzip does), and the test removed it: the copy its runtime
  // made when the process started is the file the process gets when run alone.
  const nlohmann::json &input = c.report["test"]["input"];
  REQUIRE(input["files"].contains("t.gz"));
  std::string gz = input["files"]["t.gz"];
  REQUIRE(gz.size() > 2);
  CHECK(static_cast<unsigned char>(gz[0]) == 0x1f); // gzip's first magic byte (the JSON
                                                    // text replaces the second, not UTF-8)
  REQUIRE_FALSE(c.report["candidates"].empty());
  // The variable the test set for it comes along; rootline's own and the runner's stay.
  REQUIRE(input.contains("env"));
  CHECK(input["env"] == nlohmann::json{{"WCZ_TOTAL", "1"}});
  CHECK(c.report["candidates"][0]["file"] == "src/wcz.c");
  CHECK(c.report["candidates"][0]["line"] == 30);
  CHECK(textAt(c.report["candidates"][0], "/revert/result") == "fixes");
}

TEST_CASE("debug --test: a process that prints the release the change bumped is passed over, and "
          "the failing process writes its output into a file (in place, in a mktemp "
          "directory), debugged as its output",
          "[project][cli]") {
  ProjectCase c = debugProject("make_inplace", "sh tests/squeeze.sh");
  // `./sqz --version` differs first, by the version string version.h changed: not the
  // failure, and the report says why it was passed over.
  CHECK(hasNote(c.report, "passed over `./sqz --version` (process 1)",
                "differs only by text the change edited (`1.4-20240105 → 1.5-20240311`)"));
  // Matched across runs although its directory (mktemp -d) has another name in each.
  // Its stdout (the -v line with the release) differs too, but only by the release: the
  // file is what is debugged.
  CHECK(hasNote(c.report, "failing process: `sqz -v notes.txt` in /tmp/",
                "process 2 of the old run: the first whose behaviour differs in more than "
                "text the change edited; the file notes.txt it writes differs in line 3"));
  const nlohmann::json &input = c.report["test"]["input"];
  CHECK(input["output_file"] == "notes.txt");
  CHECK(input["files"]["notes.txt"] == "one  \n\n\n\ntwo\t\n\nthree\n");
  // The expected output is the file as the old version left it.
  CHECK(c.report["test"]["expected"]["stdout"] == "one\n\ntwo\n\nthree\n");
  CHECK(c.report["failure"]["summary"].get<std::string>().starts_with(
      "the file notes.txt differs from the expected output from byte 5"));
  CHECK(c.report["failure"]["new_criterion"].get<std::string>().starts_with(
      "the output at the file notes.txt, byte 5, printed at src/sqz.c:"));
  REQUIRE_FALSE(c.report["candidates"].empty());
  CHECK(c.report["candidates"][0]["file"] == "src/sqz.c");
  CHECK(c.report["candidates"][0]["line"] == 44);
  CHECK(textAt(c.report["candidates"][0], "/revert/result") == "fixes");
}

TEST_CASE("debug --test: a failing process given its file by an absolute path in the test's "
          "mktemp directory gets it inside its own run directory, and the random names are no "
          "difference between the runs",
          "[project][cli]") {
  ProjectCase c = debugProject("make_inplace", "sh tests/squeeze_abs.sh");
  // Its stdout names the file (another mktemp name in each run) and the release: neither
  // is the failure; the file it rewrote is.
  CHECK(hasNote(c.report, "failing process: `sqz -v /tmp/", "the file /tmp/tmp."));
  CHECK(hasNote(c.report, "failing process: `sqz -v /tmp/", "it writes differs in line 3"));
  CHECK(hasNote(c.report, "the failing process's argument(s) /tmp/",
                "name files in a temporary directory (/tmp, /var/tmp or $TMPDIR)"));
  const nlohmann::json &input = c.report["test"]["input"];
  REQUIRE(input["args"].size() == 2);
  std::string arg = input["args"][1];
  CHECK(arg.starts_with("tmp/tmp."));
  CHECK(arg.ends_with("/notes.txt"));
  CHECK(input["output_file"] == arg);
  CHECK(input["files"][arg] == "one  \n\n\n\ntwo\t\n\nthree\n");
  REQUIRE_FALSE(c.report["candidates"].empty());
  CHECK(c.report["candidates"][0]["file"] == "src/sqz.c");
  CHECK(c.report["candidates"][0]["line"] == 44);
  CHECK(textAt(c.report["candidates"][0], "/revert/result") == "fixes");
}

TEST_CASE("debug --test: a failing process whose stdout is right but whose exit status and "
          "error_at_line message differ is debugged from its first differing stderr byte, "
          "built by a Makefile that names gcc as its compiler",
          "[project][cli]") {
  // The Makefile says `CC = gcc`, not $CC: the build's PATH has `gcc` run rootline-cc, so
  // the program still carries its bitcode (without it: "linked no C program").
  ProjectCase c = debugProject("make_diagnostics", "make check");
  CHECK(hasNote(c.report, "built by 'make", ""));
  CHECK(hasNote(c.report, "failing process: `./recchk t.", "good.txt"));
  CHECK(c.report["failure"]["kind"] == "exit status");
  std::string failure = c.report["failure"]["summary"].get<std::string>();
  CHECK(failure.find("ends with exit 1 instead of exit 0") != std::string::npos);
  CHECK(failure.find("its stderr differs from byte 0") != std::string::npos);
  CHECK(c.report["failure"]["new_criterion"].get<std::string>().starts_with(
      "the output at stderr byte 0"));
  CHECK(c.report["failure"]["new"]["stderr"].get<std::string>().find("bad key 'port2'") !=
        std::string::npos);
  REQUIRE_FALSE(c.report["candidates"].empty());
  CHECK(c.report["candidates"][0]["file"] == "src/record.c");
  CHECK(c.report["candidates"][0]["line"] == 32);
  // The changed helper, called again with the character its failing call got ('2'): the
  // unit's flags come from the debug information of the project's own build.
  REQUIRE(c.report["unit_test"].is_object());
  CHECK(c.report["unit_test"]["call"] == "key_char(c = 50)");
  CHECK(c.report["unit_test"]["old_result"] == "returns 1\n");
  CHECK(c.report["unit_test"]["new_result"] == "returns 0\n");
}

TEST_CASE("debug --test: a process whose stdout goes to /dev/null is not the failing process "
          "for what it wrote there, the run the test checks is",
          "[project][cli]") {
  // The smoke run reads the program's own source, which the change edited, so its
  // output differs between the versions; the test never sees it.
  TempDir t;
  const std::string source = R"(#include <stdio.h>

/* Copies stdin to stdout with lower-case letters made upper-case. */
static int upper(int c)
{
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 'A';
    return c;
}

int main(void)
{
    int c;
    while ((c = getchar()) != EOF)
        putchar(upper(c));
    return 0;
}
)";
  writeOneFileProject(t.path, "upcase", source,
                      {{"c <= 'z'", "c < 'z'"}, {"Copies stdin", "Copies its input"}},
                      "#!/bin/sh\n./upcase < upcase.c > /dev/null || exit 1\n"
                      "out=$(echo lazy | ./upcase)\ntest \"$out\" = LAZY\n");
  nlohmann::json rep = debugMadeTrees(t.path);
  CHECK(hasNote(rep, "failing process: `./upcase`", "process 2 of the old run"));
  CHECK(rep["test"]["input"]["stdin"] == "lazy\n");
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["file"] == "upcase.c");
  CHECK(rep["candidates"][0]["line"] == 6);
}

namespace {

// tally: sums the numbers on stdin, each scaled; `--about` prints a banner with argv[0].
// The new version scales by 2 instead of 3 (line 5), and its banner has other words.
void writeBannerTrees(const fs::path &top) {
  const std::string source = R"(#include <stdio.h>
#include <string.h>

static int scaled(int v)
{
    return v * 3;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--about") == 0) {
        printf("%s 1.0\n", argv[0]);
        return 0;
    }
    int v, sum = 0;
    while (scanf("%d", &v) == 1)
        sum += scaled(v);
    printf("%d\n", sum);
    return 0;
}
)";
  std::string changed = source;
  changed.replace(changed.find("v * 3"), 5, "v * 2");
  changed.replace(changed.find("%s 1.0"), 6, "%s 1.1 (with totals)");
  for (bool old : {true, false}) {
    fs::path dir = top / (old ? "old" : "new");
    writeText(dir / "tally.c", old ? source : changed);
    writeText(dir / "Makefile", "tally: tally.c\n\tcc -o tally tally.c\n");
    // The banner is shown, not checked; the sum is checked.
    writeText(dir / "check.sh", "#!/bin/sh\n./tally --about\nout=$(echo 1 2 3 | ./tally)\n"
                                "test \"$out\" = 18\n");
  }
}

} // namespace

TEST_CASE("two test runs go at once where the machine gives mount namespaces, each seeing "
          "its own tree at the work path",
          "[project]") {
  TempDir t;
  writeBannerTrees(t.path);
  ProjectBuildOptions opt;
  opt.command = "make";
  BuiltProject oldB = buildProject(t.path / "old", "old", opt);
  BuiltProject newB = buildProject(t.path / "new", "new", opt);
  if (!testRunsGoAtOnce()) {
    WARN("this machine gives no mount namespaces: the runs go one after the other");
    return;
  }
  // Each run leaves its version's word where the other can see it, and waits (at most
  // 20 s) for the other's: one after the other, the first would wait in vain.
  ScopedWorkDir meet("meet");
  std::string d = meet.path.string();
  TestCommand test{"v=$(./tally --about | cut -d' ' -f2); touch '" + d +
                       "'/$v; n=0; while [ ! -e '" + d + "/1.0' ] || [ ! -e '" + d +
                       "/1.1' ]; do n=$((n+1)); [ $n -gt 200 ] && exit 3; sleep 0.1; done; "
                       "echo \"$v $(pwd)\"",
                   120, std::nullopt};
  auto [a, b] = runTestCommandOnBoth({oldB, test, {}, t.path / "unused-a"},
                                     {newB, test, {}, t.path / "unused-b"});
  CHECK(a.passed());
  CHECK(b.passed());
  std::string work = projectWorkPath().string();
  CHECK(a.result.out == "1.0 " + work + "\n");
  CHECK(b.result.out == "1.1 " + work + "\n");
  // Each saw the program it ran; the trees left nothing behind.
  REQUIRE(a.programsRun);
  CHECK(*a.programsRun == std::vector<std::string>{"tally"});
  CHECK(fs::is_empty(projectWorkPath()));
}

TEST_CASE("a test run with some processes run by the old version: the listed command runs the "
          "old program with its argv[0], every other the new one, and the run says which ran",
          "[project]") {
  TempDir t;
  writeBannerTrees(t.path);
  ProjectBuildOptions opt;
  opt.command = "make";
  BuiltProject oldB = buildProject(t.path / "old", "old", opt);
  BuiltProject newB = buildProject(t.path / "new", "new", opt);
  ProcessSubstitution sub;
  sub.programs["tally"] = {nativeExecutable(oldB.programs.at(0), oldB.home),
                           nativeExecutable(newB.programs.at(0), newB.home)};
  sub.asOld.push_back({"tally", projectWorkPath().string(), {"--about"}});
  TestCommand test{"sh check.sh", 120, std::nullopt};
  TestCommandRun run = runTestCommand(newB, test, {}, t.path / "unused", &sub);
  // The banner is the old one, under the name the script ran it by; the sum is the new
  // version's (6 * 2), so the test fails.
  CHECK(run.result.out == "./tally 1.0\n");
  CHECK_FALSE(run.passed());
  CHECK(run.substitutedRan == std::set<size_t>{0});
  REQUIRE(run.ranAsNew.size() == 1);
  CHECK(run.ranAsNew[0].program == "tally");
  CHECK(run.ranAsNew[0].args.empty());
  // Listing the summing command instead makes the test pass with the new banner shown.
  sub.asOld = {{"tally", projectWorkPath().string(), {}}};
  TestCommandRun other = runTestCommand(newB, test, {}, t.path / "unused", &sub);
  CHECK(other.result.out == "./tally 1.1 (with totals)\n");
  CHECK(other.passed());
}

TEST_CASE("debug --test: a process that differs but that the test does not judge (a banner it "
          "shows) is passed over by a trial, and the process the test checks is debugged",
          "[project][cli]") {
  TempDir t;
  writeBannerTrees(t.path);
  nlohmann::json rep = debugMadeTrees(t.path);
  CHECK(hasNote(rep, "passed over `./tally --about` (process 1)",
                "with every other differing command run by the old version, the test passes"));
  CHECK(hasNote(rep, "failing process: `./tally`",
                "process 2 of the old run: with every other command whose behaviour differs run "
                "by the old version, it alone still fails the test"));
  CHECK(rep["test"]["input"]["stdin"] == "1 2 3\n");
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["file"] == "tally.c");
  CHECK(rep["candidates"][0]["line"] == 6);
}

TEST_CASE("debug --test: a writer that its reader's early exit ends with SIGPIPE differs by "
          "timing, not by version, and is passed over, and a process killed before its trace "
          "began does not shift the failing process's inputs",
          "[project][cli]") {
  // The new `gen` writes far more than the pipe holds, so `head -n 1`'s exit kills it;
  // the old one's single line is written before head can exit. The test sees the
  // first line only, which both print alike.
  TempDir t;
  const std::string gen = "#include <stdio.h>\nint main(void)\n{\n    int i;\n"
                          "    for (i = 0; i < ROWS; i++)\n        puts(\"row\");\n"
                          "    return 0;\n}\n";
  const std::string upcase = "#include <stdio.h>\nint main(void)\n{\n    int c;\n"
                             "    while ((c = getchar()) != EOF)\n"
                             "        putchar(c >= 'a' && c <= 'z' ? c - 32 : c);\n"
                             "    return 0;\n}\n";
  std::string changed = upcase;
  changed.replace(changed.find("c <= 'z'"), 8, "c < 'z'");
  for (bool old : {true, false}) {
    fs::path dir = t.path / (old ? "old" : "new");
    writeText(dir / "gen.c", gen);
    writeText(dir / "upcase.c", old ? upcase : changed);
    // `killer` dies by SIGKILL before its trace's first write: an empty trace, which
    // the list of processes leaves out, so list places and trace numbers part.
    writeText(dir / "killer.c", "#include <signal.h>\n#include <unistd.h>\n"
                                "int main(void)\n{\n    kill(getpid(), SIGKILL);\n"
                                "    return 0;\n}\n");
    writeText(dir / "Makefile", std::string("all: gen upcase killer\ngen: gen.c\n\tcc -DROWS=") +
                                    (old ? "1" : "500000") +
                                    " -o gen gen.c\nupcase: upcase.c\n\tcc -o upcase upcase.c\n"
                                    "killer: killer.c\n\tcc -o killer killer.c\n");
    writeText(dir / "check.sh", "#!/bin/sh\n./killer\nfirst=$(./gen | head -n 1)\n"
                                "test \"$first\" = row || exit 1\n"
                                "out=$(echo lazy | ./upcase)\ntest \"$out\" = LAZY\n");
  }
  nlohmann::json rep = debugMadeTrees(t.path);
  CHECK(hasNote(rep, "failing process: `./upcase`", ""));
  CHECK(rep["test"]["input"]["stdin"] == "lazy\n");
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["file"] == "upcase.c");
  CHECK(rep["candidates"][0]["line"] == 6);
}

TEST_CASE("debug --test: a program that points its stdout at a file of its own (freopen, as "
          "diffstat -o does) is debugged with that file as its output",
          "[project][cli]") {
  TempDir t;
  const std::string source = R"(#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int v;
    if (argc == 3 && strcmp(argv[1], "-o") == 0 && !freopen(argv[2], "w", stdout))
        return 2;
    while (scanf("%d", &v) == 1)
        printf("%d\n", v * 2);
    return 0;
}
)";
  writeOneFileProject(t.path, "dbl", source, {{"v * 2", "v * 3"}},
                      "#!/bin/sh\necho 1 2 | ./dbl -o res.txt || exit 1\n"
                      "test \"$(cat res.txt)\" = \"2\n4\"\n");
  nlohmann::json rep = debugMadeTrees(t.path);
  CHECK(rep["test"]["input"]["output_file"] == "res.txt");
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["file"] == "dbl.c");
  CHECK(rep["candidates"][0]["line"] == 10);
}

namespace {

// dbl: prints each number of stdin doubled; the new version triples (line 6). check.sh
// logs each of its runs to `log` ("traced" when rootline traced it, else "native"), runs
// dbl, and with `failTraced` fails every traced run after dbl ran.
void writeLoggedDbl(const fs::path &dir, const fs::path &log, bool failTraced) {
  const std::string source = R"(#include <stdio.h>

int main(void)
{
    int v;
    while (scanf("%d", &v) == 1)
        printf("%d\n", v * 2);
    return 0;
}
)";
  writeOneFileProject(
      dir, "dbl", source, {{"v * 2", "v * 3"}},
      "#!/bin/sh\n{ [ -n \"$ROOTLINE_TRACE_DIR\" ] && echo traced || echo native; } "
      ">> '" +
          log.string() + "'\nout=$(echo 1 2 | ./dbl)\n" +
          (failTraced ? "[ -n \"$ROOTLINE_TRACE_DIR\" ] && exit 1\n" : "") +
          "test \"$out\" = \"2\n4\"\n");
}

std::vector<std::string> linesOf(const fs::path &file) {
  std::vector<std::string> out;
  std::istringstream in(readFile(file));
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

} // namespace

TEST_CASE("debug --test: a project of a few programs is traced first, and when the traced runs "
          "pass on the old version and fail on the new, no native run comes before them",
          "[project][cli]") {
  TempDir t;
  ScopedWorkDir logs("logs");
  writeLoggedDbl(t.path, logs.path / "runs", false);
  nlohmann::json rep = debugMadeTrees(t.path);
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["file"] == "dbl.c");
  CHECK(rep["candidates"][0]["line"] == 7);
  CHECK(hasNote(rep, "test 'sh check.sh': passes on the old version, fails on the new (exit 1)",
                "1 traced process(es) in the old run"));
  // The first two runs of the test are the traced ones, one per version; the whole test
  // of a trial that passes runs it natively after.
  std::vector<std::string> runs = linesOf(logs.path / "runs");
  REQUIRE(runs.size() >= 2);
  CHECK(runs[0] == "traced");
  CHECK(runs[1] == "traced");
}

TEST_CASE("debug --test: when the traced runs do not pass on the old version and fail on the "
          "new, native runs give the verdict and the traced runs are still what is debugged",
          "[project][cli]") {
  TempDir t;
  ScopedWorkDir logs("logs");
  writeLoggedDbl(t.path, logs.path / "runs", true);
  nlohmann::json rep = debugMadeTrees(t.path);
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["file"] == "dbl.c");
  CHECK(rep["candidates"][0]["line"] == 7);
  CHECK(
      hasNote(rep, "test 'sh check.sh': passes on the old version, fails on the new (exit 1)", ""));
  std::vector<std::string> runs = linesOf(logs.path / "runs");
  REQUIRE(runs.size() >= 4);
  CHECK(std::vector<std::string>(runs.begin(), runs.begin() + 4) ==
        std::vector<std::string>{"traced", "traced", "native", "native"});
}

TEST_CASE("debug --test: a program that points stdout and stderr at files of its own (diffstat "
          "-e ERR -o OUT) is debugged with the stdout file as its output, its diagnostics "
          "file after it",
          "[project][cli]") {
  // The new version stops with a message into the -e file: what it wrote on descriptors
  // 1 and 2 is those files' (the runtime logs it apart), so the process runs alone as in
  // the test, and the result file, not the diagnostics, is what is debugged.
  TempDir t;
  const std::string source = R"(#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void failed(const char *s)
{
    fprintf(stderr, "%s: too large\n", s);
    exit(1);
}

int main(int argc, char **argv)
{
    int v, i;
    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-e") == 0 && !freopen(argv[i + 1], "w", stderr))
            return 2;
        if (strcmp(argv[i], "-o") == 0 && !freopen(argv[i + 1], "w", stdout))
            return 2;
    }
    while (scanf("%d", &v) == 1) {
        if (v > 100)
            failed("value");
        printf("%d\n", v * 2);
    }
    return 0;
}
)";
  writeOneFileProject(t.path, "dbl", source, {{"v > 100", "v > 1"}},
                      "#!/bin/sh\necho 1 2 | ./dbl -e err.txt -o res.txt\n"
                      "test \"$(cat res.txt)\" = \"2\n4\"\n");
  nlohmann::json rep = debugMadeTrees(t.path);
  CHECK(rep["test"]["input"]["output_file"] == "res.txt");
  CHECK(rep["test"]["expected"]["stdout"] == "2\n4\n");
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["file"] == "dbl.c");
  CHECK(rep["candidates"][0]["line"] == 21);
  // The revert trial ran that process alone; check.sh then ran on the same rebuilt tree and
  // passed, so the sentence says the test passes.
  CHECK(rep["candidates"][0]["revert"]["detail"] == "reverting dbl.c:21 alone makes the test pass");
  // The output spectrum counts the lines of that file, and says so.
  unsigned spectrum = 0;
  for (const auto &c : rep["candidates"])
    for (const auto &reason : c["reasons"])
      if (reason.get<std::string>().find("line(s) both versions print alike") !=
          std::string::npos) {
        ++spectrum;
        CHECK(reason.get<std::string>().find(" res.txt line(s) ") != std::string::npos);
      }
  CHECK(spectrum > 0);
  bool confirmed = false;
  for (const auto &trial : rep["revert_trials"])
    confirmed |= trial["hunks"] == nlohmann::json::array({"dbl.c:21"}) &&
                 trial["result"] == "passes" && trial.value("whole_test", "") == "passes";
  CHECK(confirmed);
}

TEST_CASE("debug --test: a change that breaks two of the test's cases: reverting the failing "
          "process's cause makes that process right and the whole test still fails, and the "
          "report says so, never that the test passes",
          "[project][cli]") {
  TempDir t;
  const std::string source = R"(#include <stdio.h>
#include <stdlib.h>

static int scale(int x) { return x * 3; }
static int shift(int x) { return x + 7; }

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int v = atoi(argv[2]);
    if (argv[1][0] == 's')
        printf("%d\n", scale(v));
    else
        printf("%d\n", shift(v));
    return 0;
}
)";
  // Both cases run; the script fails when either does.
  writeOneFileProject(t.path, "calc", source, {{"x * 3", "x * 4"}, {"x + 7", "x + 8"}},
                      "#!/bin/sh\nok=0\ntest \"$(./calc s 5)\" = 15 || ok=1\n"
                      "test \"$(./calc t 5)\" = 12 || ok=1\nexit $ok\n");
  nlohmann::json rep = debugMadeTrees(t.path);
  REQUIRE_FALSE(rep["candidates"].empty());
  const auto &top = rep["candidates"][0];
  CHECK(top["file"] == "calc.c");
  CHECK(top["line"] == 4);
  CHECK(top["revert"]["result"] == "fixes failing process");
  CHECK(top["revert"]["detail"] == "reverting calc.c:4 alone makes the failing process behave as "
                                   "in the old version, but the test still fails");
  // The whole test ran on the trials that passed: the line's revert fails it, the whole
  // change's (the old version) passes it. No sentence about a line says the test passes.
  unsigned confirmed = 0;
  for (const auto &trial : rep["revert_trials"]) {
    INFO(trial.dump());
    if (trial["result"] != "passes")
      continue;
    bool line = trial["hunks"] == nlohmann::json::array({"calc.c:4"});
    CHECK(trial.value("whole_test", "") == (line ? "fails" : "passes"));
    confirmed += line;
  }
  CHECK(confirmed == 1);
  for (const auto &c : rep["candidates"]) {
    CHECK(c["edit"].is_null()); // an edit that fixes one case repairs nothing
    for (const auto &r : c["reasons"])
      CHECK(r.get<std::string>().find("makes the test pass") == std::string::npos);
  }
}

TEST_CASE("debug --test: a program that puts a file on its stdout with dup2 (gnulib's "
          "fd_reopen) is debugged with that file as its output",
          "[project][cli]") {
  TempDir t;
  const std::string source = R"(#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int v;
    if (argc == 3 && strcmp(argv[1], "-o") == 0) {
        int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0)
            return 2;
        close(fd);
    }
    while (scanf("%d", &v) == 1)
        printf("%d\n", v + 1);
    return 0;
}
)";
  writeOneFileProject(t.path, "inc", source, {{"v + 1", "v + 2"}},
                      "#!/bin/sh\necho 1 2 | ./inc -o res.txt || exit 1\n"
                      "test \"$(cat res.txt)\" = \"2\n3\"\n");
  nlohmann::json rep = debugMadeTrees(t.path);
  CHECK(rep["test"]["input"]["output_file"] == "res.txt");
  CHECK(rep["test"]["expected"]["stdout"] == "2\n3\n");
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["file"] == "inc.c");
  CHECK(rep["candidates"][0]["line"] == 16);
}

TEST_CASE("debug --test: output a program prints through a pointer to fprintf is what the test "
          "saw, so its failing process runs alone as in the test",
          "[project][cli]") {
  // As mawk's printf does (`printer = (PRINTER) fprintf`): the call goes through a
  // pointer, and the trace must still hold what it printed.
  TempDir t;
  const std::string source = R"(#include <stdio.h>

typedef int (*printer_t)(FILE *, const char *, ...);

static int scaled(int v)
{
    return v * 3;
}

int main(void)
{
    printer_t printer = fprintf;
    int v;
    while (scanf("%d", &v) == 1)
        printer(stdout, "%4d:%4d\n", v, scaled(v));
    return 0;
}
)";
  std::string changed = source;
  changed.replace(changed.find("v * 3"), 5, "v * 2");
  for (bool old : {true, false}) {
    fs::path dir = t.path / (old ? "old" : "new");
    writeText(dir / "scale.c", old ? source : changed);
    writeText(dir / "Makefile", "scale: scale.c\n\tcc -o scale scale.c\n");
    writeText(dir / "check.sh", "#!/bin/sh\nout=$(echo 1 2 | ./scale | tr -d ' ')\n"
                                "test \"$out\" = \"1:3\n2:6\"\n");
  }
  nlohmann::json rep = debugMadeTrees(t.path);
  CHECK(rep["test"]["expected"]["stdout"] == "   1:   3\n   2:   6\n");
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["file"] == "scale.c");
  CHECK(rep["candidates"][0]["line"] == 7);
}

TEST_CASE("debug --test on a Meson project: built by meson and ninja, tested by `meson test`, "
          "which runs a script in the build directory: the rewritten tokenizer's lines are "
          "candidates beside the composition's deviations, and the report names repository "
          "files",
          "[project][cli][heavy]") {
  fs::path oldTree = projectFixture("meson_wordstat", "old");
  CHECK(detectBuildCommand(oldTree) == "meson setup build && meson compile -C build");
  ProjectCase c = debugProject("meson_wordstat", "meson test -C build --print-errorlogs");
  CHECK(hasNote(c.report, "built by 'meson setup build && meson compile -C build'", ""));
  // meson runs the script from build/, which runs ./wordstat there.
  CHECK(hasNote(c.report, "failing process: `./wordstat -t t.", "/hamlet.txt` in build"));
  const nlohmann::json &input = c.report["test"]["input"];
  REQUIRE(input["args"].size() == 2);
  CHECK(input["files"][input["args"][1].get<std::string>()] == "to be, or not to be");
  // Meson compiles `../src/count.c` from build/: every place a note names is a file of
  // the repository.
  for (const auto &n : c.report["notes"])
    CHECK(n.get<std::string>().find("../") == std::string::npos);
  // The new option string, passed to getopt (glibc's __posix_getopt, as the source names it).
  CHECK(c.report["alignment"]["first_divergence"]["text"] ==
        "src/main.c:112 passes \"aim:n:tV\" to getopt in the old run and \"ac:im:n:tV\" in the "
        "new run");
  REQUIRE_FALSE(c.report["candidates"].empty());
  CHECK(c.report["candidates"][0]["file"] == "src/tokenize.c");
  const nlohmann::json *bound = nullptr, *loop = nullptr, *call = nullptr;
  for (const auto &cand : c.report["candidates"]) {
    INFO(cand.dump());
    CHECK(cand["file"].get<std::string>().starts_with("src/"));
    // "missing code" is code the change deleted or changed, never an unchanged line.
    if (cand["kind"] == "missing code")
      CHECK(cand["in_changed_region"] == true);
    if (cand["file"] == "src/tokenize.c" && cand["line"] == 58)
      bound = &cand;
    if (cand["file"] == "src/tokenize.c" && cand["line"] == 45)
      loop = &cand;
    if (cand["file"] == "src/tokenize.c" && cand["line"] == 52)
      call = &cand;
  }
  // The old line called through the `emit` parameter; the new one calls the new helper.
  REQUIRE(call);
  CHECK((*call)["aligned"]["detail"] == "in the dual slice: its execution calls the function in "
                                        "`emit` in the old run and emit_word in the new run");
  // The cause, `emit_word (buf, start, len - 1, …)`, is no branch of either slice
  // condition: it is a candidate from the slice, beside the deviations.
  REQUIRE(bound);
  CHECK((*bound)["aligned"]["result"] == "differs");
  CHECK((*bound)["aligned"]["detail"].get<std::string>().starts_with(
      "in the dual slice: its execution runs in the new run only"));
  // Where the runs part: the old loop ran to i <= len, the new one stops at i < len and
  // leaves the last word to line 57.
  REQUIRE(loop);
  CHECK((*loop)["aligned"]["origin"] == true);
  CHECK((*loop)["aligned"]["detail"].get<std::string>().find(
            "goes on to src/tokenize.c:46 in the old run and to src/tokenize.c:57 in the new "
            "run") != std::string::npos);
}

TEST_CASE("a libtool project: the program in .libs links the project's shared library, its "
          "traced module holds the library's code, and its native binary runs without the "
          "wrapper script",
          "[project][heavy]") {
  ProjectBuildOptions opt;
  BuiltProject built = buildProject(projectFixture("libtool_kvcheck", "new"), "new", opt);
  // src/kvcheck is libtool's wrapper script; the program is the ELF it runs.
  const ProjectProgram &kvcheck = selectProgram(built, "kvcheck");
  CHECK(kvcheck.path == "src/.libs/kvcheck");
  std::vector<fs::path> libs = projectSharedLibraries(kvcheck, built.home);
  REQUIRE(libs.size() == 1);
  CHECK(libs[0].filename() == "libkv.so");
  CHECK_FALSE(programBitcode(libs[0]).empty());
  ProjectExecutables exes = programExecutables(built, kvcheck);
  // The library's units are in the traced module: its functions are defined there.
  LoadedModule module = loadModule(exes.traced.module.bitcode);
  const llvm::Function *unescape = module.module->getFunction("unescape");
  CHECK((unescape && !unescape->isDeclaration()));
  for (const std::string &flag : exes.traced.linkFlags)
    CHECK(flag.find("libkv.so") == std::string::npos);
  // Natively, a copy whose RPATH finds lib/.libs in the home: no LD_LIBRARY_PATH needed.
  CHECK(exes.native.string().ends_with(".rootline-native"));
  ProcessSpec spec;
  spec.argv = {exes.native.string(), "--version"};
  ProcessResult r = runProcess(spec);
  CHECK(r.exitedWith(0));
  CHECK(r.out.starts_with("kvcheck 1.1"));
}

TEST_CASE("debug --test on a libtool project: the failing process is the program its wrapper "
          "script ran, and the cause in the shared library ranks in the top 3",
          "[project][cli][heavy]") {
  // No budget: which revert trials run before the clock ends decides whether main.c:69
  // ("same failure" when reverted) stays above the library's lines; a busy machine must
  // not change the answer.
  ProjectCase c = debugProject("libtool_kvcheck", "make check", {"--budget", "0"});
  CHECK(hasNote(c.report, "failing process: `src/.libs/kvcheck -g at -g bang t.",
                "/hex.conf` in tests"));
  CHECK(hasNote(c.report,
                "failing process:", "\"wow!\" in the old run, \"wow\\x21\" in the new run"));
  REQUIRE_FALSE(c.report["candidates"].empty());
  CHECK(c.report["candidates"][0]["file"] == "lib/kvparse.c");
  // The old line 81 had no counterpart execution; the new line 82 did run: the report
  // says which line ran in the old run only.
  for (const auto &cand : c.report["candidates"])
    if (cand["version"] == "new" && cand["in_changed_region"] == true && cand.contains("aligned") &&
        cand["aligned"].is_object())
      CHECK(cand["aligned"].value("detail", "").find("its execution runs in the old run only") ==
            std::string::npos);
  bool cause = false;
  for (size_t i = 0; i < 3 && i < c.report["candidates"].size(); ++i)
    cause |= c.report["candidates"][i]["file"] == "lib/kvparse.c" &&
             c.report["candidates"][i]["line"] == 82;
  CHECK(cause);
  // No two trials build the same files: a line's unit that is its group's whole hunk, or
  // a group asked again for another line, takes the first trial's result.
  std::set<std::string> trials;
  for (const auto &t : c.report["revert_trials"]) {
    std::string key = t["what"].get<std::string>() + ":";
    for (const auto &h : t["hunks"])
      key += " " + h.get<std::string>();
    INFO(key);
    CHECK(trials.insert(key).second);
  }
  CHECK(trials.size() >= 20);
}

TEST_CASE("debug --test: a test that fails on the old version too, or passes on the new one, "
          "is a one-line error",
          "[project][cli]") {
  std::vector<std::string> args = {"debug",
                                   "--old",
                                   projectFixture("make_pipeline", "old").string(),
                                   "--new",
                                   projectFixture("make_pipeline", "new").string(),
                                   "--test",
                                   "false"};
  ProcessResult r = runRootline(args);
  CHECK(r.exitedWith(2));
  CHECK(r.err.find("rootline: error: the test fails on the old version too (exit 1): 'false'") !=
        std::string::npos);
  args.back() = "true";
  r = runRootline(args);
  CHECK(r.exitedWith(2));
  CHECK(r.err.find("the test passes on the new version") != std::string::npos);
  args.back() = "exit 125";
  r = runRootline(args);
  CHECK(r.exitedWith(2));
  CHECK(r.err.find("the test cannot test the old version (exit 125)") != std::string::npos);
  args = {"debug",
          "--old",
          projectFixture("make_pipeline", "old").string(),
          "--new",
          projectFixture("make_pipeline", "new").string(),
          "--build",
          "make no-such-target",
          "--test",
          "make check"};
  r = runRootline(args);
  CHECK(r.exitedWith(2));
  CHECK(r.err.find(
            "rootline: error: the old version does not build: 'make no-such-target' failed: ") !=
        std::string::npos);
  CHECK(r.err.find("(log: ") != std::string::npos);
}

namespace {

// A repository whose two commits are a fixture project's old and new trees.
void makeTwoCommitRepo(const fs::path &repo, const std::string &project) {
  auto git = [&](std::vector<std::string> args) {
    ProcessSpec spec;
    spec.argv = {
        "/usr/bin/git", "-C", repo.string(), "-c", "user.name=t", "-c", "user.email=t@example.org"};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    ProcessResult r = runProcess(spec);
    INFO(r.err);
    REQUIRE(r.exitedWith(0));
  };
  fs::create_directories(repo);
  git({"init", "-q"});
  for (const char *version : {"old", "new"}) {
    for (const auto &e : fs::directory_iterator(repo))
      if (e.path().filename() != ".git")
        fs::remove_all(e.path());
    fs::copy(projectFixture(project, version), repo, fs::copy_options::recursive);
    git({"add", "-A"});
    git({"commit", "-qm", version});
  }
}

} // namespace

TEST_CASE("bisect --check and bisect with the project's build and test, and debug between "
          "two commits with --test",
          "[project][cli][git][heavy]") {
  TempDir t;
  fs::path repo = t.path / "repo";
  makeTwoCommitRepo(repo, "make_pipeline");
  std::vector<std::string> base = {"bisect", "--repo", repo.string(), "--test", "make check"};
  auto check = [&](const std::string &rev, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--check", rev});
    args.insert(args.end(), extra.begin(), extra.end());
    return runRootline(args);
  };
  CHECK(check("HEAD~1").exitedWith(0));
  CHECK(check("HEAD").exitedWith(1));
  ProcessResult broken = check("HEAD", {"--build", "make no-such-target"});
  CHECK(broken.exitedWith(125)); // does not build: skip
  CHECK(broken.err.find("skip (does not build: the ") != std::string::npos);

  std::vector<std::string> bisect = base;
  bisect.insert(bisect.end(), {"--good", "HEAD~1", "--bad", "HEAD", "--json"});
  ProcessResult b = runRootline(bisect);
  INFO(b.err);
  REQUIRE(b.exitedWith(0));
  nlohmann::json j = nlohmann::json::parse(b.out);
  CHECK(j["first_bad"]["subject"] == "new");
  // The first bad commit is debugged against its parent, from the test's failing process.
  REQUIRE(j["debug"].is_object());
  CHECK(hasNote(j["debug"], "failing process: `./csvsum -H`", ""));

  ProcessResult d = runRootline({"--json", "debug", "--repo", repo.string(), "--good", "HEAD~1",
                                 "--bad", "HEAD", "--test", "make check"});
  INFO(d.err);
  REQUIRE(d.exitedWith(0));
  nlohmann::json report = nlohmann::json::parse(d.out);
  CHECK(hasNote(report, "failing process: `./csvsum -H`", ""));
  CHECK(report["candidates"][0]["file"] == "src/csvsum.c");
}

TEST_CASE("explore --build explores a program of the project as its own build links it",
          "[project][cli]") {
  TempDir t;
  writeText(t.path / "seed.txt", "1.5\n-2\n");
  fs::path out = t.path / "tests";
  ProcessResult r = runRootline({"--json", "explore", "--project",
                                 projectFixture("make_pipeline", "old").string(), "--build", "auto",
                                 "--target", "csvsum", "--stdin", (t.path / "seed.txt").string(),
                                 "--out", out.string(), "--max-runs", "20"});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["runs"].get<unsigned>() == 20);
  CHECK(j["distinct_paths"].get<unsigned>() > 5);
  CHECK(fs::exists(out / "test-0001" / "stdin"));
  // The project builds two programs: without --target that is an error naming both.
  ProcessResult both =
      runRootline({"explore", "--project", projectFixture("make_pipeline", "old").string(),
                   "--build", "auto", "--out", (t.path / "t2").string()});
  CHECK(both.exitedWith(2));
  CHECK(both.err.find("choose one with --target NAME") != std::string::npos);
  CHECK(both.err.find("csvcut") != std::string::npos);
}

TEST_CASE("validate --test: the project's build for good, bad and fix, the test's failing "
          "process as the failing input, and a fix that fails the project's test rejected",
          "[project][cli][validate][heavy]") {
  TempDir t;
  fs::path fix = t.path / "fix";
  fs::copy(projectFixture("make_pipeline", "new"), fix, fs::copy_options::recursive);
  std::string csvsum = readFile(fix / "src" / "csvsum.c");
  size_t at = csvsum.find("st->count == 0 || v > st->max");
  REQUIRE(at != std::string::npos);
  csvsum.replace(at, 14, "st->count == 1");
  writeText(fix / "src" / "csvsum.c", csvsum);
  std::vector<std::string> args = {"--json", "validate",
                                   "--old",  projectFixture("make_pipeline", "old").string(),
                                   "--new",  projectFixture("make_pipeline", "new").string(),
                                   "--fix",  fix.string(),
                                   "--test", "make check"};
  ProcessResult right = runRootline(args);
  INFO(right.err);
  CHECK(right.exitedWith(0));
  nlohmann::json j = nlohmann::json::parse(right.out);
  CHECK(hasNote(j, "test 'make check' on the fix: passes", ""));
  CHECK(hasNote(j, "failing process: `./csvsum -H`", ""));
  // The bad version offered as its own fix fails the project's test: rejected.
  args[7] = projectFixture("make_pipeline", "new").string();
  ProcessResult wrong = runRootline(args);
  CHECK(wrong.exitedWith(1));
  nlohmann::json w = nlohmann::json::parse(wrong.out);
  CHECK(w["verdict"].get<std::string>().starts_with("rejected: "));
}

TEST_CASE("a version whose sources differ from an already built one only in C files is built "
          "incrementally from it, and gives what a whole build gives",
          "[project]") {
  TempDir t;
  fs::copy(projectFixture("make_pipeline", "old"), t.path / "a", fs::copy_options::recursive);
  fs::copy(projectFixture("make_pipeline", "old"), t.path / "b", fs::copy_options::recursive);
  fs::copy(projectFixture("make_pipeline", "old"), t.path / "h", fs::copy_options::recursive);
  // b: csvsum prints "total=" for "sum=" (a .c file only); h: a header changes too.
  std::string sum = readFile(t.path / "b" / "src" / "csvsum.c");
  REQUIRE(sum.find("sum=%g") != std::string::npos);
  sum.replace(sum.find("sum=%g"), 6, "total=%g");
  writeText(t.path / "b" / "src" / "csvsum.c", sum);
  writeText(t.path / "h" / "src" / "csvsum.c", sum);
  writeText(t.path / "h" / "src" / "num.h",
            readFile(t.path / "h" / "src" / "num.h") + "\n/* a header edit */\n");
  // A file this run alone has, so that no tree built by an earlier run is near.
  for (const char *v : {"a", "b", "h"})
    writeText(t.path / v / "RUN", t.path.string());
  ProjectBuildOptions opt;
  opt.command = "make";
  BuiltProject a = buildProject(t.path / "a", "a", opt);
  CHECK(a.reusedFrom.empty());
  BuiltProject b = buildProject(t.path / "b", "b", opt);
  CHECK_FALSE(b.reusedFrom.empty());
  BuiltProject h = buildProject(t.path / "h", "h", opt);
  CHECK(h.reusedFrom.empty()); // a header changed: the whole build
  // b's csvsum is rebuilt from b's source: it prints the new label.
  auto run = [&](const BuiltProject &p) {
    ProcessSpec spec;
    spec.argv = {(p.home / "csvsum").string(), "-H", "-f", "2"};
    writeText(t.path / "in.csv", "x,y\na,1\nb,2\n");
    spec.stdinFile = (t.path / "in.csv").string();
    spec.timeoutSeconds = 30;
    return runProcess(spec).out;
  };
  CHECK(run(a).find("sum=3") != std::string::npos);
  CHECK(run(b).find("total=3") != std::string::npos);
  CHECK(run(h).find("total=3") != std::string::npos);
  // The traced program is b's too: both programs are listed, with their bitcode.
  REQUIRE(b.programs.size() == 2);
  for (const auto &prog : b.programs)
    CHECK_FALSE(prog.bitcode.empty());
  // Its test runs as on a whole build.
  TestCommand test{"sh tests/pipeline.sh", 120, std::nullopt};
  CHECK(runTestCommand(a, test, {}, t.path / "ta").passed());
  CHECK_FALSE(runTestCommand(b, test, {}, t.path / "tb").passed()); // "sum=" expected
}

TEST_CASE("debug --test --expect: a test that prints instead of checking fails when its "
          "stdout differs from the expected file",
          "[project]") {
  TempDir t;
  fs::path dir = fixturesDir() / "projects" / "make_pipeline";
  // The test prints csvsum's result for all-negative values, where the new version's
  // max is wrong; it exits 0 on both versions.
  std::string test = "printf 'x,y\\na,-1\\nb,-2\\n' | ./csvsum -H -f 2";
  ProjectBuildOptions opt;
  opt.command = "make";
  BuiltProject oldBuild = buildProject(dir / "old", "old", opt);
  TempDir w;
  TestCommandRun plain = runTestCommand(oldBuild, {test, 120, std::nullopt}, {}, w.path / "a");
  REQUIRE(plain.passed());
  CHECK(plain.result.out.find("max=-1") != std::string::npos);
  writeText(t.path / "expected.txt", plain.result.out);
  CHECK(runTestCommand(oldBuild, {test, 120, plain.result.out}, {}, w.path / "b").passed());
  TestCommandRun other =
      runTestCommand(oldBuild, {test, 120, std::string("no\n")}, {}, w.path / "c");
  CHECK_FALSE(other.passed());
  CHECK(other.result.exitedWith(0));
  // Without --expect both versions pass; with it, the new one fails and is debugged.
  ProcessResult without = runRootline({"--json", "debug", "--old", (dir / "old").string(), "--new",
                                       (dir / "new").string(), "--build", "make", "--test", test});
  CHECK(without.exitedWith(2));
  CHECK(without.err.find("the test passes on the new version") != std::string::npos);
  ProcessResult r = runRootline({"--json", "debug", "--old", (dir / "old").string(), "--new",
                                 (dir / "new").string(), "--build", "make", "--test", test,
                                 "--expect", (t.path / "expected.txt").string()});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  nlohmann::json report = nlohmann::json::parse(r.out);
  REQUIRE_FALSE(report["candidates"].empty());
  CHECK(report["candidates"][0]["file"] == "src/csvsum.c");
  // An expected file the old version does not print: it fails there too.
  writeText(t.path / "wrong.txt", "count=7\n");
  ProcessResult wrong =
      runRootline({"debug", "--old", (dir / "old").string(), "--new", (dir / "new").string(),
                   "--build", "make", "--test", test, "--expect", (t.path / "wrong.txt").string()});
  CHECK(wrong.exitedWith(2));
  CHECK(wrong.err.find("its output differs from --expect") != std::string::npos);
}

namespace {

// A tree whose Makefile generates gen.h and fails the first time it runs as a parallel
// make's race does: a tool's complaint and no diagnostic of the code.
void writeRacyTree(const fs::path &dir, const std::string &mainC) {
  writeText(dir / "main.c", mainC);
  writeText(dir / "Makefile", "prog: gen.h main.c\n"
                              "\tcc -o prog main.c\n"
                              "gen.h:\n"
                              "\t@if [ ! -e .ran-once ]; then touch .ran-once; "
                              "echo \"sed: can't read y.tab.c\" >&2; exit 2; fi\n"
                              "\techo '#define N 7' > gen.h\n");
}

} // namespace

TEST_CASE("a project build that fails without a diagnostic of the code (a parallel make's race) "
          "runs once more and one that fails with the compiler's words does not",
          "[project]") {
  TempDir t;
  OwnCacheDir cache(t.path / "cache"); // no build of an earlier run to start from
  ProjectBuildOptions opt;
  opt.command = "make";
  writeRacyTree(t.path / "ok",
                "#include <stdio.h>\n#include \"gen.h\"\nint main(void) { printf(\"%d\\n\", N); "
                "return 0; }\n");
  BuiltProject b = buildProject(t.path / "ok", "new", opt);
  REQUIRE(b.programs.size() == 1);
  ProcessSpec run;
  run.argv = {nativeExecutable(b.programs[0], b.home).string()};
  run.timeoutSeconds = 30;
  CHECK(runProcess(run).out == "7\n");
  CHECK(readFile(b.log).find("the build failed without a diagnostic of the code: run once more") !=
        std::string::npos);

  // A revert trial's variant: built natively (no bitcode section in its objects).
  fs::path variant = buildProjectVariant(
      b,
      {{"main.c", "#include <stdio.h>\n#include \"gen.h\"\nint main(void) { printf(\"%d\\n\", "
                  "N + 1); return 0; }\n"}},
      b.programs[0].path, 120);
  run.argv = {variant.string()};
  CHECK(runProcess(run).out == "8\n");
  ProcessSpec readelf;
  readelf.argv = {"/usr/bin/readelf", "-S", "-W", variant.string()};
  readelf.timeoutSeconds = 30;
  ProcessResult sections = runProcess(readelf);
  REQUIRE(sections.exitedWith(0));
  CHECK(sections.out.find(".rootline_bc") == std::string::npos);

  // A compile error is the code's: one run, and the message quotes the compiler.
  writeText(t.path / "bad" / "main.c", "int main(void) { return 1 }\n");
  writeText(t.path / "bad" / "Makefile", "prog: main.c\n\tcc -o prog main.c\n");
  fs::path log;
  try {
    buildProject(t.path / "bad", "new", opt);
    FAIL("the tree with a syntax error built");
  } catch (const Error &e) {
    std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("main.c:1:") != std::string::npos);
    CHECK(msg.find(": error:") != std::string::npos);
    size_t at = msg.find("(log: ");
    REQUIRE(at != std::string::npos);
    log = msg.substr(at + 6, msg.size() - at - 7);
  }
  REQUIRE(fs::exists(log));
  std::string text = readFile(log);
  CHECK(text.find("run once more") == std::string::npos);
  size_t compiles = 0;
  for (size_t at = text.find("cc -o prog main.c"); at != std::string::npos;
       at = text.find("cc -o prog main.c", at + 1))
    ++compiles;
  CHECK(compiles == 1);
}

TEST_CASE("debug --test: an edit that makes the failing process pass and changes what the test's "
          "alike processes do is no repair, and the whole test is not needed to say so",
          "[project][cli][spectrum]") {
  // fixtures/projects/make_scale: `<` → `<=` at line 11 is the repair; `==` → `!=` at line
  // 18 makes the failing `./scale -k 0 5` pass too, and changes what `./scale -k 3 2 3`,
  // `./scale -k 2 5` and `./scale -k 4 2 -1` print, three of the five runs that behave
  // alike in both versions and run line 18.
  ProjectCase c = debugProject("make_scale", "sh tests/scale.sh");
  CHECK(hasNote(c.report, "failing process: `./scale -k 0 5`", ""));
  REQUIRE_FALSE(c.report["candidates"].empty());
  const auto &first = c.report["candidates"][0];
  CHECK(first["line"] == 11);
  REQUIRE(first.contains("edit"));
  CHECK(first["edit"].get<std::string>().find(
            "; the 4 process(es) of the test that behave alike in both versions and run this "
            "line behave as before with it, each run alone, and it makes 1 of the 1 process(es) "
            "of the test whose behaviour differs between the versions and that run this line "
            "behave as in the old version") != std::string::npos);
  bool compensating = false, repair = false;
  for (const auto &t : c.report["revert_trials"]) {
    if (t["what"] != "edit" || t["result"] != "passes")
      continue;
    REQUIRE(t.contains("other_processes"));
    if (t["hunks"][0] == "src/scale.c:18: `==` → `!=`") {
      compensating = true;
      CHECK(t["other_processes"]["changed"] == 3);
      CHECK(t["other_processes"]["run"] == 5);
      CHECK(t["other_processes"]["first_changed"] == "scale -k 3 2 3");
      CHECK_FALSE(t.contains("whole_test")); // the check said it: no whole test ran
    } else if (t["hunks"][0] == "src/scale.c:11: `<` → `<=`") {
      repair = true;
      CHECK(t["other_processes"]["changed"] == 0);
      // The one differing process that runs line 11 is the failing one: restored.
      CHECK(t["other_processes"]["differing_run"] == 1);
      CHECK(t["other_processes"]["restored"] == 1);
    }
  }
  CHECK(compensating);
  CHECK(repair);
  bool said = false;
  for (const auto &cand : c.report["candidates"])
    if (cand["line"] == 18) {
      CHECK(cand.value("edit", nlohmann::json()).is_null());
      said = cand.value("process_only_edit", "") ==
             "changing `==` to `!=` at src/scale.c:18 (`if (factor != 1)`) alone makes the failing "
             "process behave as in the old version, but it changes what 3 of the 5 process(es) of "
             "the test that behave alike in both versions and run this line do, each run alone "
             "(`scale -k 3 2 3`)";
    }
  CHECK(said);
}

TEST_CASE("debug --test: of a group's lines, the one only the failing run of the program ran "
          "ranks first, and the test spectrum's counts are those of the test's runs",
          "[project][cli][spectrum]") {
  // fixtures/projects/make_columns: the test runs ./cols five times; only the 4th is
  // left-aligned, and only it runs line 14. The lines nearer the output run in all five.
  ProjectCase c = debugProject("make_columns", "sh tests/cols.sh");
  CHECK(hasNote(c.report, "failing process: `./cols x yz`", ""));
  REQUIRE_FALSE(c.report["candidates"].empty());
  const auto &first = c.report["candidates"][0];
  CHECK(first["file"] == "src/cols.c");
  CHECK(first["line"] == 14);
  const nlohmann::json expected = {{"differing", 1}, {"differing_of", 1}, {"differing_among", 1},
                                   {"alike", 0},     {"alike_of", 4},     {"alike_among", 4}};
  CHECK(first["test_spectrum"] == expected);
  bool said = false;
  for (const auto &r : first["reasons"])
    said = said || r == "run by 1 of the 1 process(es) of the test whose behaviour differs "
                        "between the versions, and by none of the 4 that behave alike";
  CHECK(said);
  // The lines every run takes: each of the five ran them.
  unsigned everyRun = 0;
  for (const auto &cand : c.report["candidates"]) {
    if (cand["line"] == 20 || cand["line"] == 19) { // fputs (cell, stdout); the call
      REQUIRE(cand.contains("test_spectrum"));
      CHECK(cand["test_spectrum"]["differing"] == 1);
      CHECK(cand["test_spectrum"]["alike"] == 4);
      ++everyRun;
    }
  }
  CHECK(everyRun == 2);
}
