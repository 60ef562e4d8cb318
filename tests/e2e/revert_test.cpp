// Changes that matter (docs/debug.md, "Neutral edits" and "Revert evidence"): renames
// and layout are never ranked, and reverting the cause's hunk alone makes the test pass.
#include "rootline/debug.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace rootline;
using namespace rootline::test;

namespace {

struct Pair {
  TempDir t;
  DebugRequest req;
  Pair(const std::string &oldSource, const std::string &newSource, const std::string &input) {
    BuildRecipe o = sourceRecipe(t.path / "old" / "main.c", oldSource);
    BuildRecipe n = sourceRecipe(t.path / "new" / "main.c", newSource);
    req.oldRoot = t.path / "old";
    req.newRoot = t.path / "new";
    req.oldRecipe = o;
    req.newRecipe = n;
    req.input.stdinBytes = input;
  }
};

} // namespace

TEST_CASE("every mixed regression ranks its cause first, with revert evidence",
          "[debug][mixed][revert][sweep]") {
  std::vector<RegressionFixture> all = regressionFixturesIn("mixed");
  REQUIRE(all.size() >= 15);
  for (const auto &r : sampledInCI(all)) {
    DYNAMIC_SECTION(r.name) {
      DebugReport rep = debugRegression(debugRequest(r));
      REQUIRE_FALSE(rep.candidates.empty());
      const DebugCandidate &top = rep.candidates[0];
      INFO("rank 1: " << top.version << ":" << top.file << ":" << top.line << " (" << top.revert
                      << ")");
      CHECK(top.version == r.rootVersion);
      CHECK(top.file == r.rootFile);
      CHECK(top.line == static_cast<unsigned>(r.rootLine));
      CHECK((top.revert == "fixes" || top.revert == "fixes with others" ||
             top.revert == "fixes first difference"));
      // No ranked line is a neutral one.
      for (const auto &c : rep.candidates)
        CHECK(c.neutral.empty());
      // The aligned runs put the cause in the dual slice and find a first divergence.
      INFO("aligned: " << top.aligned << " " << top.alignedDetail);
      CHECK(top.aligned == "differs");
      REQUIRE(rep.firstDivergence.has_value());
      CHECK(rep.aligned);
    }
  }
}

TEST_CASE("a rename mixed into the cause's hunk is neutral, and the dropped line is the cause",
          "[debug][mixed][revert]") {
  RegressionFixture r = regressionFixtureIn("mixed", "bank_ledger");
  DebugReport rep = debugRegression(debugRequest(r));
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].version == "old");
  CHECK(rep.candidates[0].line == 27); // a->refused++, lost
  CHECK(rep.candidates[0].revertDetail.find("alone makes the test pass") != std::string::npos);
  bool rename = std::any_of(rep.neutralEdits.begin(), rep.neutralEdits.end(), [](auto &n) {
    return n.why.find("rename of `cost` to `total`") != std::string::npos;
  });
  CHECK(rename);
  nlohmann::json j = reportJson(rep);
  CHECK(textAt(j["candidates"][0], "/revert/result") == "fixes");
  CHECK_FALSE(j["neutral_edits"].empty());
  CHECK_FALSE(j["revert_trials"].empty());
  CHECK(reportMarkdown(rep).find("Neutral edits") != std::string::npos);
  CHECK(reportSummary(rep).find("reverting") != std::string::npos);
}

TEST_CASE("a group whose one line, reverted alone, builds is not said to build only together",
          "[debug][revert]") {
  // A new name `k` ties its declaration to the line that uses it; that line put back
  // alone (the old `x + 1`) builds and fixes the test. The `unused` edit keeps the group
  // from being the whole change.
  Pair p(
      "#include <stdio.h>\nint main(void) {\n  int x;\n  if (scanf(\"%d\", &x) != 1)\n"
      "    return 1;\n  int z = 0;\n  int y = x + 1;\n  printf(\"%d\\n\", y + z);\n"
      "  int unused = 3;\n  (void)unused;\n  return 0;\n}\n",
      "#include <stdio.h>\nint main(void) {\n  int x;\n  if (scanf(\"%d\", &x) != 1)\n"
      "    return 1;\n  int k = 2;\n  int z = 0;\n  int y = x + k;\n  printf(\"%d\\n\", y + z);\n"
      "  int unused = 4;\n  (void)unused;\n  return 0;\n}\n",
      "4\n");
  DebugReport rep = debugRegression(p.req);
  REQUIRE_FALSE(rep.candidates.empty());
  bool group = false;
  for (const auto &c : rep.candidates) {
    INFO(c.revertDetail);
    CHECK(c.revertDetail.find("build only together") == std::string::npos);
    group |= c.revertDetail.find("the group of 2 hunks") != std::string::npos;
  }
  CHECK(group);
  bool narrowed = std::any_of(rep.candidates.begin(), rep.candidates.end(), [](auto &c) {
    return c.line == 8 && c.revertDetail.find("alone makes the test pass") != std::string::npos;
  });
  CHECK(narrowed);
}

TEST_CASE("a group whose revert changes the failure is tried hunk by hunk, and the hunk that "
          "fixes is reverted alone",
          "[debug][revert]") {
  // The new name UNIT ties its #define, the scaled store and the wrong sum into one
  // group; the division by 100 uses no new name and stays out. Reverting the group puts
  // the old scale back under the new division (the first line goes wrong: a different
  // failure); the sum's hunk alone fixes the test.
  Pair p("#include <stdio.h>\nint main(void) {\n  int a, b;\n  if (scanf(\"%d %d\", &a, &b) != 2)\n"
         "    return 1;\n  int scaled = a * 10;\n  int pad = 0;\n  printf(\"%d\\n\", scaled / 10 + "
         "pad);\n  int pad2 = 0;\n  printf(\"%d\\n\", a + b + pad2);\n  return 0;\n}\n",
         "#include <stdio.h>\n#define UNIT 100\nint main(void) {\n  int a, b;\n"
         "  if (scanf(\"%d %d\", &a, &b) != 2)\n    return 1;\n  int scaled = a * UNIT;\n"
         "  int pad = 0;\n  printf(\"%d\\n\", scaled / 100 + pad);\n  int pad2 = 0;\n"
         "  printf(\"%d\\n\", (a - b) * UNIT / 100 + pad2);\n  return 0;\n}\n",
         "42 5\n");
  DebugReport rep = debugRegression(p.req);
  bool groupChanged = std::any_of(rep.reverts.begin(), rep.reverts.end(), [](const auto &t) {
    return t.hunks.size() == 1 && t.hunks[0].find(" + ") != std::string::npos &&
           t.result == "different failure";
  });
  CHECK(groupChanged);
  REQUIRE_FALSE(rep.candidates.empty());
  const DebugCandidate &top = rep.candidates[0];
  INFO(top.file << ":" << top.line << " " << top.revert << ": " << top.revertDetail);
  CHECK(top.version == "new");
  CHECK(top.line == 11);
  CHECK(top.revert == "fixes");
  CHECK(top.revertDetail.starts_with("reverting main.c:11 alone makes the test pass"));
}

TEST_CASE("two hunks that fail only together are found as a minimal revert set",
          "[debug][revert]") {
  // a - b is 0 in the old version; the new one moves a and b apart, and reverting
  // either alone moves the difference elsewhere. The `unused` edit is irrelevant.
  Pair p("#include <stdio.h>\nint main(void) {\n  int x;\n  if (scanf(\"%d\", &x) != 1)\n"
         "    return 1;\n  int a = x + 1;\n  int pad = 0;\n  int b = x + 1;\n  int pad2 = 0;\n"
         "  int unused = 3;\n  (void)unused;\n  printf(\"%d %d\\n\", a - b, pad + pad2);\n"
         "  return 0;\n}\n",
         "#include <stdio.h>\nint main(void) {\n  int x;\n  if (scanf(\"%d\", &x) != 1)\n"
         "    return 1;\n  int a = x + 2;\n  int pad = 0;\n  int b = x + 3;\n  int pad2 = 0;\n"
         "  int unused = 4;\n  (void)unused;\n  printf(\"%d %d\\n\", a - b, pad + pad2);\n"
         "  return 0;\n}\n",
         "4\n");
  DebugReport rep = debugRegression(p.req);
  bool anyAlone = std::any_of(rep.candidates.begin(), rep.candidates.end(),
                              [](auto &c) { return c.revert == "fixes"; });
  CHECK_FALSE(anyAlone);
  CHECK(rep.minimalRevert == std::vector<std::string>{"main.c:6", "main.c:8"});
  CHECK(rep.minimalRevertOneMinimal);
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].revert == "fixes with others");
}

TEST_CASE("a hunk that does not build when reverted alone is unresolved, not an error",
          "[debug][revert]") {
  // A parameter added and the call given its argument: neither builds without the other
  // (no new name ties them), so each alone is unresolved; tried together (the build error
  // names `f`), they are the whole change, evidence for no line.
  Pair p("#include <stdio.h>\nstatic int f(int v) { return v; }\nint main(void) {\n  int x;\n"
         "  if (scanf(\"%d\", &x) != 1)\n    return 1;\n  printf(\"%d\\n\", f(x));\n"
         "  return 0;\n}\n",
         "#include <stdio.h>\nstatic int f(int v, int w) { return v + w; }\nint main(void) {\n"
         "  int x;\n  if (scanf(\"%d\", &x) != 1)\n    return 1;\n  printf(\"%d\\n\", f(x, x));\n"
         "  return 0;\n}\n",
         "5\n");
  DebugReport rep = debugRegression(p.req);
  REQUIRE_FALSE(rep.candidates.empty());
  bool unresolved = std::any_of(rep.reverts.begin(), rep.reverts.end(),
                                [](auto &t) { return t.result == "does not build"; });
  CHECK(unresolved);
  for (const auto &c : rep.candidates) {
    INFO(c.line << ": " << c.revertDetail);
    CHECK(c.revert != "fixes");
    if (!c.revert.empty())
      CHECK((c.revert == "whole change" || c.revert == "unresolved"));
  }
  CHECK(std::any_of(rep.candidates.begin(), rep.candidates.end(),
                    [](auto &c) { return c.revert == "whole change"; }));
}

TEST_CASE("a hunk that needs a helper the change removed is reverted with it, when its group "
          "does not build",
          "[debug][revert]") {
  // The new version drops put_quoted() (and its QUOTE macro) and prints the name bare.
  // The helper's removal ties its three hunks into one group, but that group does not
  // build: dump()'s old text uses `n`, whose declaration went in a hunk of its own (`n`
  // is still a name in main). The call's hunk alone does not build either (put_quoted
  // is gone); grown by what its build error names, the helper's old definition, it
  // builds and fixes the test.
  Pair p("#include <stdio.h>\n#include <string.h>\n#define QUOTE '\"'\n"
         "static void put_quoted(const char *s) {\n  putchar(QUOTE);\n  fputs(s, stdout);\n"
         "  putchar(QUOTE);\n}\nstatic void dump(const char *s) {\n  int n;\n  fflush(stdout);\n"
         "  n = (int)strlen(s);\n  if (n > 100)\n    put_quoted(s);\n}\nint main(void) {\n"
         "  char name[64];\n  int n = 0;\n  if (scanf(\"%63s\", name) != 1)\n    return 1;\n"
         "  n = (int)strlen(name);\n  printf(\"%d,\", n);\n  put_quoted(name);\n"
         "  printf(\"\\n\");\n  dump(name);\n  return 0;\n}\n",
         "#include <stdio.h>\n#include <string.h>\nstatic void dump(const char *s) {\n"
         "  fflush(stdout);\n  if ((int)strlen(s) > 100)\n    fputs(s, stdout);\n}\n"
         "int main(void) {\n  char name[64];\n  int n = 0;\n"
         "  if (scanf(\"%63s\", name) != 1)\n    return 1;\n  n = (int)strlen(name);\n"
         "  printf(\"%d,\", n);\n  printf(\"%s\", name);\n  printf(\"\\n\");\n  dump(name);\n"
         "  return 0;\n}\n",
         "hello\n");
  DebugReport rep = debugRegression(p.req);
  REQUIRE_FALSE(rep.candidates.empty());
  const DebugCandidate &top = rep.candidates[0];
  CHECK(top.file == "main.c");
  CHECK(top.version == "new");
  CHECK(top.line == 15);
  INFO(top.revertDetail);
  CHECK(top.revert == "fixes");
  CHECK(top.revertDetail == "reverting main.c:15 with what its build needs (main.c:2 (old lines "
                            "3-8 deleted)) alone makes the test pass");
  // The trials say why the smaller sets did not build, in the compiler's words.
  bool groupError = false, callError = false;
  for (const auto &t : rep.reverts) {
    if (t.result != "does not build") {
      CHECK(t.error.empty());
      continue;
    }
    CHECK_FALSE(t.error.empty());
    if (t.hunks == std::vector<std::string>{"main.c:15"})
      callError = t.error.find("put_quoted") != std::string::npos;
    if (t.hunks.size() == 1 && t.hunks[0].find(" + ") != std::string::npos)
      groupError = groupError || t.error.find("'n'") != std::string::npos;
    // Paths are the tree's, not the cache's.
    CHECK(t.error.find("/") == std::string::npos);
  }
  CHECK(groupError);
  CHECK(callError);
  // A unit that did not build is never said to build "only together", nor to do
  // anything "alone".
  for (const auto &c : rep.candidates)
    if (c.revertDetail.find("does not build") != std::string::npos) {
      CHECK(c.revertDetail.find("only together") == std::string::npos);
      CHECK(c.revertDetail.find("alone") == std::string::npos);
    }
}

TEST_CASE("a group that passes as a whole narrows to a line whose revert needs a helper the "
          "change removed, reverted as its hunk with that helper",
          "[debug][revert]") {
  // The new version drops put_quoted() (its QUOTE macro and its counter) and prints the
  // name bare; the call's hunk also writes its newline another way. The helper's removal,
  // the counter's reset and the call are one group, which builds and passes. The call's
  // line alone does not build (put_quoted is gone); its hunk, grown by the helper's old
  // definition, passes too: two of the group's three hunks, evidence for that line.
  Pair p("#include <stdio.h>\n#include <string.h>\n#define QUOTE '\"'\nstatic int quoted;\n"
         "static void put_quoted(const char *s) {\n  putchar(QUOTE);\n  fputs(s, stdout);\n"
         "  putchar(QUOTE);\n  quoted++;\n}\nint main(void) {\n  char name[64];\n  int n = 0;\n"
         "  quoted = 0;\n  if (scanf(\"%63s\", name) != 1)\n    return 1;\n"
         "  n = (int)strlen(name);\n  printf(\"%d,\", n);\n  put_quoted(name);\n"
         "  printf(\"\\n\");\n  return 0;\n}\n",
         "#include <stdio.h>\n#include <string.h>\nint main(void) {\n  char name[64];\n"
         "  int n = 1;\n  if (scanf(\"%63s\", name) != 1)\n    return 1;\n"
         "  n = (int)strlen(name);\n  printf(\"%d,\", n);\n  printf(\"%s\", name);\n"
         "  putchar('\\n');\n  return 0;\n}\n",
         "hello\n");
  DebugReport rep = debugRegression(p.req);
  REQUIRE_FALSE(rep.candidates.empty());
  const DebugCandidate &top = rep.candidates[0];
  CHECK(top.file == "main.c");
  CHECK(top.line == 10);
  INFO(top.revertDetail);
  CHECK(top.revert == "fixes");
  CHECK(top.revertDetail == "reverting main.c:10-11 with what its build needs (main.c:2 (old "
                            "lines 3-10 deleted)) alone makes the test pass");
  // The line alone was tried first, and did not build; the whole group passed.
  bool lineTried = false, groupPassed = false;
  for (const auto &t : rep.reverts) {
    lineTried = lineTried ||
                (t.hunks == std::vector<std::string>{"main.c:10"} && t.result == "does not build");
    groupPassed = groupPassed || (t.hunks.size() == 1 &&
                                  t.hunks[0] == "main.c:2 (old lines 3-10 deleted) + main.c:5 + "
                                                "main.c:10-11" &&
                                  t.result == "passes");
  }
  CHECK(lineTried);
  CHECK(groupPassed);
}

TEST_CASE("an extracted helper and its call are one revert unit", "[debug][revert]") {
  // New: `twice` declared in one hunk and called, wrongly, in another; they are one
  // group, the whole change: reverting it says nothing about a line. The call's line
  // reverted alone (the helper kept) does.
  Pair p("#include <stdio.h>\nint main(void) {\n  int x;\n  if (scanf(\"%d\", &x) != 1)\n"
         "    return 1;\n  int y = x * 2;\n  printf(\"%d\\n\", y);\n  return 0;\n}\n",
         "#include <stdio.h>\nstatic int twice(int v) {\n  return v * 2;\n}\nint main(void) {\n"
         "  int x;\n  if (scanf(\"%d\", &x) != 1)\n    return 1;\n  int y = twice(x) + 1;\n"
         "  printf(\"%d\\n\", y);\n  return 0;\n}\n",
         "4\n");
  DebugReport rep = debugRegression(p.req);
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].line == 9);
  INFO(rep.candidates[0].revertDetail);
  CHECK(rep.candidates[0].revert == "fixes");
  CHECK(rep.candidates[0].revertDetail == "reverting main.c:9 alone makes the test pass");
  REQUIRE(rep.reverts.size() >= 2);
  CHECK(rep.reverts[0].hunks == std::vector<std::string>{"main.c:2-4 + main.c:9"});
  CHECK(rep.reverts[0].result == "passes");
  CHECK(rep.reverts[1].hunks == std::vector<std::string>{"main.c:9"});
  CHECK(rep.reverts[1].result == "passes");
  // No line is said to fix the test "alone" for the whole change's trial.
  for (const auto &c : rep.candidates)
    if (c.line != 9 && !c.revert.empty()) {
      CHECK(c.revert == "whole change");
      CHECK(c.revertDetail.find("reverting the whole change (main.c:2-4 + main.c:9) makes the "
                                "test pass") == 0);
    }
}

TEST_CASE("between two commits, a rename mixed into the change is neutral and the cause is "
          "reverted alone",
          "[debug][mixed][revert][vcs]") {
  RegressionFixture r = regressionFixtureIn("mixed", "isbn_check");
  TempDir t;
  fs::path repo = t.path / "repo";
  fs::create_directories(repo);
  REQUIRE(git(repo, {"init", "-q"}).exitedWith(0));
  for (const char *side : {"old", "new"}) {
    writeText(repo / "isbn.c", readFile(r.dir / side / "main.c"));
    REQUIRE(git(repo, {"add", "isbn.c"}).exitedWith(0));
    REQUIRE(git(repo, {"commit", "-q", "-m", side}).exitedWith(0));
  }
  ProcessResult res =
      runRootline({"--json", "debug", "--repo", repo.string(), "--good", "HEAD~1", "--bad", "HEAD",
                   "--src", "isbn.c", "--stdin", r.program.stdinFile->string()});
  INFO(res.err);
  REQUIRE(res.exitedWith(0));
  nlohmann::json j = nlohmann::json::parse(res.out);
  REQUIRE_FALSE(j["candidates"].empty());
  CHECK(j["candidates"][0]["file"] == "isbn.c");
  CHECK(j["candidates"][0]["line"] == r.rootLine);
  CHECK(textAt(j["candidates"][0], "/revert/result") == "fixes");
  bool rename = false;
  for (const auto &n : j["neutral_edits"])
    rename = rename || n["why"].get<std::string>().find("`pos` to `ndigits`") != std::string::npos;
  CHECK(rename);
  // The trials never touch the repository's work tree.
  CHECK(git(repo, {"status", "--porcelain"}).out.empty());
}

TEST_CASE("a mixed regression given as two single files ranks its cause first, reverted alone",
          "[debug][mixed][revert][cli]") {
  RegressionFixture r = regressionFixtureIn("mixed", "bank_ledger");
  // Two files with different names, outside any tree: diffed as a pair.
  TempDir t;
  fs::copy_file(r.dir / "old" / "main.c", t.path / "ledger_good.c");
  fs::copy_file(r.dir / "new" / "main.c", t.path / "ledger_bad.c");
  ProcessResult p =
      runRootline({"--json", "debug", "--old", (t.path / "ledger_good.c").string(), "--new",
                   (t.path / "ledger_bad.c").string(), "--stdin", r.program.stdinFile->string()});
  INFO(p.err);
  REQUIRE(p.exitedWith(0));
  auto j = nlohmann::json::parse(p.out);
  CHECK(j["candidates"][0]["version"] == "old");
  CHECK(j["candidates"][0]["line"] == 27);
  CHECK(textAt(j["candidates"][0], "/revert/result") == "fixes");
  CHECK_FALSE(j["neutral_edits"].empty());
}

TEST_CASE("revert trials never touch files the program is not built from", "[debug][revert]") {
  TempDir t;
  fs::path repo = t.path / "repo";
  fs::create_directories(repo / "tests");
  REQUIRE(git(repo, {"init", "-q"}).exitedWith(0));
  auto write = [&](const std::string &limit, const std::string &log, const std::string &gen) {
    writeText(repo / "main.c", "#include <stdio.h>\nint main(void) {\n  int x;\n"
                               "  if (scanf(\"%d\", &x) != 1)\n    return 1;\n"
                               "  printf(\"%d\\n\", x " +
                                   limit + " 10 ? 1 : 0);\n  return 0;\n}\n");
    writeText(repo / "ChangeLog", log);
    writeText(repo / "tests" / "gen.c", gen);
    writeText(repo / "input.txt", "10\n");
  };
  write(">=", "v1: first\n", "int gen(void) { return 1; }\n");
  REQUIRE(git(repo, {"add", "-A"}).exitedWith(0));
  REQUIRE(git(repo, {"commit", "-qm", "works"}).exitedWith(0));
  write(">", "v2: stricter limit\nv1: first\n", "int gen(void) { return 2; }\n");
  REQUIRE(git(repo, {"commit", "-qam", "breaks"}).exitedWith(0));
  auto res = runRootline({"debug", "--repo", repo.string(), "--good", "HEAD~1", "--bad", "HEAD",
                          "--src", "main.c", "--stdin", (repo / "input.txt").string(), "--out",
                          (t.path / "rep").string()});
  REQUIRE(res.exitedWith(0));
  auto j = nlohmann::json::parse(readFile(t.path / "rep" / "report.json"));
  REQUIRE_FALSE(j["revert_trials"].empty());
  for (const auto &trial : j["revert_trials"])
    for (const auto &h : trial["hunks"]) {
      std::string hunk = h;
      CHECK(hunk.find("ChangeLog") == std::string::npos);
      CHECK(hunk.find("tests/gen.c") == std::string::npos);
    }
  CHECK(j["candidates"][0]["line"] == 6);
  CHECK(textAt(j["candidates"][0], "/revert/result") == "fixes");
  // The revert stage says what it left out.
  CHECK(j["stages"].dump().find("2 changed file(s) the program is not built from") !=
        std::string::npos);
}

TEST_CASE("revert trials beyond the first ranking's try the cheapest builds first",
          "[debug][revert]") {
  // Three groups: the bug (in the slice, tried first), an unused helper added to main.c
  // and an unused macro added to a header. Of the two the first ranking does not name, the
  // source edit (one unit to rebuild) is tried before the header edit (every includer).
  TempDir t;
  std::string oldMain = "#include <stdio.h>\n#include \"lim.h\"\nint main(void) {\n  int x;\n"
                        "  if (scanf(\"%d\", &x) != 1)\n    return 1;\n"
                        "  printf(\"%d\\n\", x > LIM ? 1 : 0);\n  return 0;\n}\n";
  std::string newMain = "#include <stdio.h>\n#include \"lim.h\"\n"
                        "static int spare(int v) { return v + 1; }\nint main(void) {\n"
                        "  int x;\n  if (scanf(\"%d\", &x) != 1)\n    return 1;\n"
                        "  printf(\"%d\\n\", x >= LIM ? 1 : 0);\n  return 0;\n}\n";
  writeText(t.path / "old" / "lim.h", "#define LIM 10\n");
  writeText(t.path / "new" / "lim.h", "#define LIM 10\n#define SPARE_LIMIT 3\n");
  DebugReport rep = debugRegression(twoVersions(t.path, oldMain, newMain, "10\n"));
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].line == 8);
  std::vector<std::string> reverted;
  for (const auto &trial : rep.reverts)
    if (trial.what == "revert")
      for (const auto &h : trial.hunks)
        reverted.push_back(h);
  INFO(nlohmann::json(reverted).dump());
  auto at = [&](const std::string &label) {
    return std::find(reverted.begin(), reverted.end(), label) - reverted.begin();
  };
  REQUIRE(at("main.c:3") < static_cast<long>(reverted.size()));
  REQUIRE(at("lim.h:2") < static_cast<long>(reverted.size()));
  CHECK(at("main.c:8") < at("main.c:3"));
  CHECK(at("main.c:3") < at("lim.h:2"));
}

TEST_CASE("a line the change added that only opens a control statement is not reverted alone, "
          "since dropping it would run its body unconditionally",
          "[debug][revert]") {
  // Dropping `if (cut && len > width)` makes `len = width;` run always, which pads the
  // left-aligned cell right by chance: a one-line "fix" that puts back no old code.
  const std::string oldSource = R"(#include <stdio.h>
#include <string.h>

static void put_cell(const char *word, int width, int right) {
  printf(right ? "%*s|" : "%-*s|", width, word);
}

int main(void) {
  char word[64];
  int width = 6, right = 0;
  while (scanf("%63s", word) == 1)
    put_cell(word, width, right);
  putchar('\n');
  return 0;
}
)";
  const std::string newSource = R"(#include <stdio.h>
#include <string.h>

static int format_cell(char *out, size_t cap, const char *word, int width, int right, int cut) {
  int len = (int)strlen(word);
  if (cut && len > width)
    len = width;
  if (right)
    return snprintf(out, cap, "%*.*s|", width, len, word);
  return snprintf(out, cap, "%-*.*s|", len, len, word);
}

static void put_cell(const char *word, int width, int right, int cut) {
  char cell[256] = "";
  format_cell(cell, sizeof cell, word, width, right, cut);
  fputs(cell, stdout);
}

int main(void) {
  char word[64];
  int width = 6, right = 0, cut = 0;
  while (scanf("%63s", word) == 1)
    put_cell(word, width, right, cut);
  putchar('\n');
  return 0;
}
)";
  Pair p(oldSource, newSource, "x yz\n");
  DebugReport rep = debugRegression(p.req);
  REQUIRE_FALSE(rep.candidates.empty());
  // The group of hunks passes, and lines of it were narrowed (not the header).
  bool groupPasses = false, narrowed = false;
  for (const RevertTrial &t : rep.reverts) {
    INFO(t.what << " " << (t.hunks.empty() ? "" : t.hunks[0]) << ": " << t.result);
    CHECK_FALSE((t.what == "revert" && t.hunks == std::vector<std::string>{"main.c:6"}));
    groupPasses =
        groupPasses || (t.what == "revert" && t.hunks.size() == 1 &&
                        t.hunks[0].find(" + ") != std::string::npos && t.result == "passes");
    narrowed = narrowed || (t.what == "revert" && t.hunks == std::vector<std::string>{"main.c:10"});
  }
  CHECK(groupPasses);
  CHECK(narrowed); // the wrong padding's own line was tried
  for (const DebugCandidate &c : rep.candidates)
    if (c.line == 6)
      CHECK_FALSE((c.revert == "fixes" && c.revertLines == 1));
}
