// rootline debug on real regressions: DESIGN.md examples 2-4, the regression corpus,
// and every error case of establishing the failure.
#include "rootline/debug.h"
#include "rootline/error.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

using namespace rootline;
using namespace rootline::test;

namespace {

DebugRequest requestFor(const RegressionFixture &r, ConditionKind kind = ConditionKind::Rsc) {
  return debugRequest(r, kind);
}

RegressionFixture regression(const std::string &name) { return regressionFixture(name); }

// True causes rootline does not rank first, and why (docs/debug.md). A miss that gets
// fixed fails the test until it is removed from this list.
// Fixtures whose true root cause rootline does not rank first, with the reason (none
// now). A fixture listed here must still miss (the test says when it is fixed).
const std::map<std::string, const char *> kKnownMisses = {};

} // namespace

TEST_CASE("example 2: RSC reports exactly the discount branch, PC also the shipping branch",
          "[debug]") {
  RegressionFixture r = regression("discount_threshold");
  DebugReport rsc = debugRegression(requestFor(r));
  REQUIRE(rsc.candidates.size() == 1);
  const DebugCandidate &c = rsc.candidates[0];
  CHECK(c.rank == 1);
  CHECK(c.version == "new");
  CHECK(c.line == 6);
  CHECK(c.kind == "branch deviation");
  CHECK(c.inChangedRegion);
  CHECK(c.removesFailure);
  CHECK(c.oldRun.stdoutBytes == c.newRun.stdoutBytes);
  CHECK(rsc.oldConstraints == 1);
  CHECK(rsc.newConstraints == 1);

  DebugReport pc = debugRegression(requestFor(r, ConditionKind::Pc));
  std::set<unsigned> lines;
  for (const auto &cand : pc.candidates)
    lines.insert(cand.line);
  CHECK(lines == std::set<unsigned>{6, 9});
  CHECK(pc.newConstraints == 2);
  CHECK(pc.solverCalls > rsc.solverCalls);
}

TEST_CASE("example 3: missing code is the old version's cap", "[debug]") {
  DebugReport rep = debugRegression(requestFor(regression("missing_cap")));
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].version == "old");
  CHECK(rep.candidates[0].line == 5);
  CHECK(rep.candidates[0].kind == "missing code");
  CHECK(rep.candidates[0].source.find("qty > 100") != std::string::npos);
}

TEST_CASE("example 4: a changed computation in the same partition", "[debug]") {
  DebugReport rep = debugRegression(requestFor(regression("changed_rate")));
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].line == 6);
  CHECK(rep.candidates[0].kind == "changed computation");
  CHECK(rep.direction.find("same partition") != std::string::npos);
}

TEST_CASE("a line the change modified is reported as the new version's line", "[debug]") {
  // The deviation is found in the old version's loop test `i + w <= n`; the change
  // replaced that line, so the report names the new line and keeps the old one.
  DebugReport rep = debugRegression(requestFor(regression("off_by_one_sum")));
  REQUIRE_FALSE(rep.candidates.empty());
  const DebugCandidate &top = rep.candidates[0];
  CHECK(top.version == "new");
  CHECK(top.line == 19);
  CHECK(top.kind == "changed code");
  CHECK(top.source.find("i + w < n") != std::string::npos);
  CHECK(top.otherLine == 19u);
  CHECK(std::any_of(top.reasons.begin(), top.reasons.end(), [](const std::string &s) {
    return s.find("old version's line 19") != std::string::npos;
  }));
}

TEST_CASE("a crash of the new version is compared with the same statement in the old one",
          "[debug]") {
  // New crashes at `counts[i]++` (line 14) with i = 100000000; old ran the same
  // statement (line 15) with i clamped to 9 by the line the change deleted.
  DebugReport rep = debugRegression(requestFor(regression("segv_only_new")));
  INFO(rep.newCriterion << " / " << rep.oldCriterion);
  CHECK(rep.newCriterion.find("the crash (SIG") ==
        0); // SIGSEGV, or SIGBUS where a mapping lies there
  CHECK(rep.newCriterion.find("main.c:14") != std::string::npos);
  CHECK(rep.oldCriterion.find("the same statement at") == 0);
  CHECK(rep.oldCriterion.find("main.c:15,") != std::string::npos);
  REQUIRE_FALSE(rep.candidates.empty());
  const DebugCandidate &top = rep.candidates[0];
  CHECK(top.version == "old");
  CHECK(top.line == 14);
  CHECK(top.kind == "missing code");
  CHECK(top.removesFailure);
  CHECK(top.newRun.outcome == "exit 0");
}

TEST_CASE("a goto label the change moved ranks first and stands for the statement it labels",
          "[debug]") {
  // `retry:` moved below the loop that skips blanks (new line 12, old line 10). The label
  // holds no code of its own: the statement it labels (the `if` at new line 13) stands
  // for it in the slice and in the carved calls of the differential unit test.
  DebugReport rep = debugRegression(requestFor(regression("goto_label_moved")));
  REQUIRE_FALSE(rep.candidates.empty());
  const DebugCandidate &top = rep.candidates[0];
  INFO(top.version << " " << top.file << ":" << top.line << " " << top.source);
  CHECK(top.version == "new");
  CHECK(top.line == 12);
  CHECK(top.source == "retry:");
  CHECK(top.inChangedRegion);
  CHECK(top.runsAt != 0);
  CHECK(std::any_of(top.reasons.begin(), top.reasons.end(), [](const std::string &r) {
    return r.find("labels the statement at line") == 0;
  }));
  // Where the runs part is true of them: after the comment the old run skips the blank
  // and reads `beta`; the new run leaves the word loop at once. The blank-skipping
  // `while` at line 10 ran in both runs, never "in the new run only".
  REQUIRE(rep.firstDivergence.has_value());
  INFO(rep.firstDivergence->text);
  CHECK(rep.firstDivergence->line == 21);
  CHECK(rep.firstDivergence->text.find("goes on to main.c:22 in the old run and to main.c:23 in "
                                       "the new run") != std::string::npos);
  // Evidence a user can run: a unit test that tells the versions apart.
  CHECK_FALSE(top.unitTest.empty());
}

TEST_CASE("a changed line the evidence does not refute ranks above an unchanged deviation",
          "[debug]") {
  // The new version's `if (member && amount >= 50)` has an alternative input that
  // avoids the stale discount (both versions agree), but the line is unchanged; the
  // deleted `else discount = 0;` is the change.
  DebugReport rep = debugRegression(requestFor(regression("deleted_else")));
  REQUIRE(rep.candidates.size() >= 2);
  CHECK(rep.candidates[0].version == "old");
  CHECK(rep.candidates[0].line == 15);
  CHECK(rep.candidates[0].inChangedRegion);
  CHECK(rep.candidates[1].version == "new");
  CHECK(rep.candidates[1].line == 13);
  CHECK(rep.candidates[1].removesFailure);
  CHECK_FALSE(rep.candidates[1].inChangedRegion);
}

TEST_CASE("a threshold on doubles read with %lf gets a branch deviation with a float input",
          "[debug][float]") {
  // bmi = weight / pow(height, 2); `bmi < 30.0` became `bmi < 35.0`. pow stays concrete
  // (noted); the weights are symbolic doubles.
  DebugReport rep = debugRegression(requestFor(regression("b3_bmi_category")));
  REQUIRE_FALSE(rep.candidates.empty());
  const DebugCandidate &top = rep.candidates[0];
  CHECK(top.line == 20);
  CHECK(top.kind == "branch deviation");
  INFO(top.condition);
  CHECK(top.condition.find("weight") != std::string::npos);
  CHECK(top.condition.find("35.0") != std::string::npos);
  REQUIRE(top.alternativeChanges.size() == 1);
  CHECK(top.alternativeChanges[0].find("token") == 0);
  CHECK(top.ran);
  CHECK(top.removesFailure); // both versions say "obese" for it
}

TEST_CASE("the true root cause of every regression fixture is ranked first",
          "[debug][fixtures][sweep]") {
  for (const auto &r : sampledInCI(regressionFixtures(), kRegressionStride)) {
    if (r.program.hasTag("stress"))
      continue; // tests/e2e/budget_test.cpp, with a budget
    DYNAMIC_SECTION(r.name) {
      DebugReport rep = debugRegression(requestFor(r));
      bool knownMiss = kKnownMisses.count(r.name) != 0;
      if (!knownMiss)
        REQUIRE_FALSE(rep.candidates.empty());
      const DebugCandidate *truth = nullptr;
      for (const auto &c : rep.candidates)
        if (c.version == r.rootVersion && c.line == static_cast<unsigned>(r.rootLine) &&
            c.file == r.rootFile)
          truth = &c;
      std::string top = rep.candidates.empty()
                            ? std::string("nothing")
                            : rep.candidates[0].version + " " + rep.candidates[0].file + ":" +
                                  std::to_string(rep.candidates[0].line);
      INFO(r.name << ": rank 1 is " << top);
      if (auto miss = kKnownMisses.find(r.name); miss != kKnownMisses.end()) {
        INFO("known miss: " << miss->second);
        CHECK((truth == nullptr || truth->rank > 1)); // fixed? remove it from kKnownMisses
      } else {
        REQUIRE(truth != nullptr);
        CHECK(truth->rank == 1);
        // The cause changes what its line computes: never "same values" for the run.
        INFO("aligned: " << truth->aligned << " " << truth->alignedDetail);
        CHECK(truth->aligned != "same values");
        CHECK(rep.firstDivergence.has_value());
      }
    }
  }
}

TEST_CASE("debug refuses tests that do not establish a regression", "[debug]") {
  RegressionFixture r = regression("discount_threshold");
  TempDir t;
  SECTION("the test does not fail on the new version") {
    DebugRequest req = requestFor(r);
    req.newRoot = req.oldRoot;
    req.newRecipe = req.oldRecipe;
    CHECK(badInputError([&] { debugRegression(req); }).find("does not fail on the new version") !=
          std::string::npos);
  }
  SECTION("the test fails on the old version too") {
    DebugRequest req = requestFor(r);
    req.expectedStdout = "something else\n";
    CHECK(badInputError([&] { debugRegression(req); }).find("fails on the old version too") !=
          std::string::npos);
  }
  SECTION("a version does not build") {
    writeText(t.path / "main.c", "int main(void) { return missing; }\n");
    DebugRequest req = requestFor(r);
    req.newRoot = t.path;
    req.newRecipe = BuildRecipe{{{t.path / "main.c", {}, t.path}}, {}, "test"};
    std::string msg = badInputError([&] { debugRegression(req); });
    CHECK(msg.find("the new version does not build") != std::string::npos);
  }
  SECTION("the program is nondeterministic") {
    writeText(t.path / "main.c", "#include <stdio.h>\n#include <unistd.h>\nint main(void) { "
                                 "printf(\"%d\\n\", (int)getpid()); return 0; }\n");
    DebugRequest req = requestFor(r);
    req.newRoot = t.path;
    req.newRecipe = BuildRecipe{{{t.path / "main.c", {}, t.path}}, {}, "test"};
    CHECK(badInputError([&] { debugRegression(req); }).find("nondeterministic") !=
          std::string::npos);
  }
}

TEST_CASE("rootline debug writes JSON and Markdown reports and a terminal summary",
          "[debug][cli]") {
  RegressionFixture r = regression("discount_threshold");
  TempDir t;
  auto res = runRootline({"debug", "--old", (r.dir / "old").string(), "--new",
                          (r.dir / "new").string(), "--src", "main.c", "--stdin",
                          (r.dir / "input.txt").string(), "--out", (t.path / "rep").string()});
  REQUIRE(res.exitedWith(0));
  CHECK(res.out.find("1. main.c:6 [new, branch deviation]") != std::string::npos);
  auto j = nlohmann::json::parse(readFile(t.path / "rep" / "report.json"));
  CHECK(j["schema"] == "rootline.debug/1");
  CHECK(j["candidates"][0]["line"] == 6);
  CHECK(j["candidates"][0]["evidence"]["removes_failure"] == true);
  CHECK(j["composition"]["condition"] == "rsc");
  std::string md = readFile(t.path / "rep" / "report.md");
  CHECK(md.find("### 1. `main.c:6`") != std::string::npos);
  CHECK(md.find("Alternative input") != std::string::npos);
  std::string html = readFile(t.path / "rep" / "report.html");
  CHECK(html.find("<span class=\"l cand\" id=\"new-6\">") != std::string::npos); // the candidate
  CHECK(html.find("<span class=\"l chg slice\" id=\"old-6\">") !=
        std::string::npos); // old slice: the discount test, changed
  CHECK(html.find("<span class=\"l chg\" id=\"new-9\">") !=
        std::string::npos); // shipping: changed, not in the slice
  CHECK(html.find("<span class=\"l \" id=\"new-10\">") != std::string::npos); // neither
  CHECK(html.find("src=") == std::string::npos); // self-contained: no external resources

  res = runRootline({"--json", "debug", "--old", (r.dir / "old").string(), "--new",
                     (r.dir / "new").string(), "--src", "main.c", "--stdin",
                     (r.dir / "input.txt").string(), "--condition", "pc"});
  REQUIRE(res.exitedWith(0));
  CHECK(nlohmann::json::parse(res.out)["candidates"].size() == 2);

  res = runRootline({"debug", "--old", (r.dir / "old").string(), "--new", (r.dir / "old").string(),
                     "--src", "main.c", "--stdin", (r.dir / "input.txt").string()});
  CHECK(res.exitCode == ExitBadInput);
  CHECK(res.err.find("does not fail") != std::string::npos);
  res = runRootline(
      {"debug", "--old", (t.path / "nope").string(), "--new", (r.dir / "old").string()});
  CHECK(res.exitCode == ExitBadInput);
  CHECK(res.err.find("neither a directory nor a source file") != std::string::npos);
}

TEST_CASE("a changed parameter type found by reverting names its function and claims no distance",
          "[debug][cli]") {
  // `is_big(double t)` became `is_big(int t)`: 2.7 is cut to 2 at the call. The header
  // line holds no code of the trace, so only the revert trials find it.
  TempDir t;
  const std::string prog = "#include <stdio.h>\n"
                           "\n"
                           "static int is_big(double t)\n"
                           "{\n"
                           "    return t > 2.5;\n"
                           "}\n"
                           "\n"
                           "int main(void)\n"
                           "{\n"
                           "    double x;\n"
                           "    if (scanf(\"%lf\", &x) != 1)\n"
                           "        return 1;\n"
                           "    printf(\"%d\\n\", is_big(x));\n"
                           "    return 0;\n"
                           "}\n";
  std::string changed = prog;
  changed.replace(changed.find("double t"), 8, "int t");
  writeText(t.path / "old.c", prog);
  writeText(t.path / "new.c", changed);
  writeText(t.path / "in.txt", "2.7\n");
  auto res = runRootline({"--json", "debug", "--old", (t.path / "old.c").string(), "--new",
                          (t.path / "new.c").string(), "--stdin", (t.path / "in.txt").string()});
  REQUIRE(res.exitedWith(0));
  auto j = nlohmann::json::parse(res.out);
  REQUIRE_FALSE(j["candidates"].empty());
  const auto &top = j["candidates"][0];
  CHECK(top["line"] == 3);
  CHECK(top["function"] == "is_big");
  bool byRevert = false;
  for (const auto &r : top["reasons"]) {
    std::string reason = r.get<std::string>();
    INFO(reason);
    CHECK(reason.find("step(s) from the failure") == std::string::npos);
    byRevert |= reason.find("found by reverting hunks") == 0;
  }
  CHECK(byRevert);
  // The unit test stage says why it wrote none, about the function, not "no function".
  bool said = false;
  for (const auto &s : j["stages"])
    said |=
        s["note"].get<std::string>().find("`is_big` has another signature") != std::string::npos;
  CHECK(said);
}

TEST_CASE("debug and validate take two single-file programs with different names", "[debug][cli]") {
  RegressionFixture r = regression("off_by_one_sum");
  TempDir t;
  fs::copy_file(r.dir / "old" / "main.c", t.path / "fixed.c");
  fs::create_directories(t.path / "v2");
  fs::copy_file(r.dir / "new" / "main.c", t.path / "v2" / "window_buggy.c");
  fs::copy_file(r.dir / "old" / "main.c", t.path / "v2" / "window_fix.c");
  std::string in = (r.dir / "input.txt").string();
  auto res = runRootline({"--json", "debug", "--old", (t.path / "fixed.c").string(), "--new",
                          (t.path / "v2" / "window_buggy.c").string(), "--stdin", in, "--out",
                          (t.path / "rep").string()});
  REQUIRE(res.exitedWith(0));
  auto j = nlohmann::json::parse(res.out);
  // The two files are diffed as a pair: the changed loop line, shown in the new file.
  CHECK(j["candidates"][0]["version"] == "new");
  CHECK(j["candidates"][0]["file"] == "window_buggy.c");
  CHECK(j["candidates"][0]["line"] == 19);
  CHECK(j["candidates"][0]["in_changed_region"] == true);
  std::string html = readFile(t.path / "rep" / "report.html");
  CHECK(html.find("fixed.c → window_buggy.c") != std::string::npos); // one side-by-side pane

  res = runRootline({"validate", "--old", (t.path / "fixed.c").string(), "--new",
                     (t.path / "v2" / "window_buggy.c").string(), "--fix",
                     (t.path / "v2" / "window_fix.c").string(), "--stdin", in});
  CHECK(res.exitedWith(0));

  res = runRootline({"debug", "--old", (t.path / "fixed.c").string(), "--new",
                     (t.path / "v2").string(), "--stdin", in});
  CHECK(res.exitCode == ExitBadInput);
  CHECK(res.err.find("every version as a directory or every version as a C file") !=
        std::string::npos);
  res =
      runRootline({"debug", "--old", (t.path / "fixed.c").string(), "--new",
                   (t.path / "v2" / "window_buggy.c").string(), "--src", "main.c", "--stdin", in});
  CHECK(res.exitCode == ExitBadInput);
  CHECK(res.err.find("--src does not go with versions given as files") != std::string::npos);
  CHECK(snapshotTree(t.path / "v2").size() == 2); // nothing written beside the sources
}

TEST_CASE("the SARIF report validates against the SARIF 2.1.0 schema", "[debug][sarif]") {
  REQUIRE(fs::exists(ROOTLINE_SARIF_SCHEMA));
  RegressionFixture r = regression("missing_cap");
  TempDir t;
  auto res = runRootline({"debug", "--old", (r.dir / "old").string(), "--new",
                          (r.dir / "new").string(), "--src", "main.c", "--stdin",
                          (r.dir / "input.txt").string(), "--out", (t.path / "rep").string()});
  REQUIRE(res.exitedWith(0));
  auto sarif = nlohmann::json::parse(readFile(t.path / "rep" / "report.sarif"));
  CHECK(sarif["version"] == "2.1.0");
  CHECK(sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] ==
        5);
  CHECK(sarif["runs"][0]["results"][0]["ruleId"] == "missing-code");
  ProcessSpec spec;
  spec.argv = {"/usr/bin/python3", (sourceDir() / "tests" / "tools" / "validate_json.py").string(),
               (t.path / "rep" / "report.sarif").string(), ROOTLINE_SARIF_SCHEMA};
  ProcessResult v = runProcess(spec);
  INFO(v.err);
  CHECK(v.exitedWith(0));

  // A document that breaks the schema is refused by the same validator.
  sarif["version"] = "1.0";
  writeText(t.path / "bad.sarif", sarif.dump());
  spec.argv[2] = (t.path / "bad.sarif").string();
  CHECK_FALSE(runProcess(spec).exitedWith(0));
}

TEST_CASE("an edit after a usage string continued with backslash-newline is ranked first",
          "[debug][neutral]") {
  TempDir t;
  std::string oldText =
      "#include <stdio.h>\nstatic const char *usage = \"\\\n  -b  Ignored.\\n\";\n"
      "int main (void) { int x = 1; printf (\"%d\\n\", x); return 0; }\n";
  std::string newText = oldText;
  newText.replace(newText.find("x = 1"), 5, "x = 2");
  writeText(t.path / "old" / "p.c", oldText);
  writeText(t.path / "new" / "p.c", newText);
  writeText(t.path / "expected", "1\n");
  auto res = runRootline({"debug", "--old", (t.path / "old" / "p.c").string(), "--new",
                          (t.path / "new" / "p.c").string(), "--expect",
                          (t.path / "expected").string(), "--out", (t.path / "rep").string()});
  REQUIRE(res.exitedWith(0));
  auto j = nlohmann::json::parse(readFile(t.path / "rep" / "report.json"));
  REQUIRE_FALSE(j["candidates"].empty());
  CHECK(j["candidates"][0]["line"] == 4);
  CHECK(j["neutral_edits"].empty());
}

TEST_CASE("the output spectrum counts the output lines both versions print alike that "
          "depend on each candidate",
          "[debug][spectrum]") {
  // Three items, one line each; the change touches the total every line prints (same
  // values) and the bulk discount only the second item gets (the cause).
  TempDir t;
  std::string oldText = "#include <stdio.h>\n"
                        "\n"
                        "int main(void) {\n"
                        "  char name[64];\n"
                        "  int qty, price;\n"
                        "  while (scanf(\"%63s %d %d\", name, &qty, &price) == 3) {\n"
                        "    int total = qty * price;\n"
                        "    if (qty >= 10)\n"
                        "      total = total - total / 10;\n"
                        "    printf(\"%-8s %6d\\n\", name, total);\n"
                        "  }\n"
                        "  return 0;\n"
                        "}\n";
  std::string newText = oldText;
  newText.replace(newText.find("qty * price"), 11, "price * qty");
  newText.replace(newText.find("total / 10"), 10, "total / 5");
  writeText(t.path / "old" / "p.c", oldText);
  writeText(t.path / "new" / "p.c", newText);
  writeText(t.path / "in.txt", "pen 2 3\nink 12 10\ncap 1 5\n");
  auto res = runRootline({"debug", "--old", (t.path / "old" / "p.c").string(), "--new",
                          (t.path / "new" / "p.c").string(), "--stdin",
                          (t.path / "in.txt").string(), "--out", (t.path / "rep").string()});
  REQUIRE(res.exitedWith(0));
  auto j = nlohmann::json::parse(readFile(t.path / "rep" / "report.json"));
  std::map<int, nlohmann::json> byLine;
  for (const auto &c : j["candidates"])
    if (c["version"] == "new")
      byLine[c["line"].get<int>()] = c;
  REQUIRE(byLine.count(9));
  REQUIRE(byLine.count(7));
  // "pen" and "cap" are printed alike; only "ink" went through the discount.
  CHECK(byLine[9]["shared_outputs"]["of"] == 2);
  CHECK(byLine[9]["shared_outputs"]["holding"] == 0);
  CHECK(byLine[7]["shared_outputs"]["holding"] == 2);
  auto says = [](const nlohmann::json &c, const std::string &text) {
    for (const auto &r : c["reasons"])
      if (r.get<std::string>() == text)
        return true;
    return false;
  };
  CHECK(says(byLine[9], "none of the 2 stdout line(s) both versions print alike depends on it"));
  CHECK(says(byLine[7], "each of the 2 stdout line(s) both versions print alike depends on it"));
  CHECK(j["candidates"][0]["line"] == 9);
}
