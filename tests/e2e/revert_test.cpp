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
          "[debug][mixed][revert]") {
  std::vector<RegressionFixture> all = regressionFixturesIn("mixed");
  REQUIRE(all.size() >= 15);
  for (const auto &r : all) {
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
  RegressionFixture r = regressionFixturesIn("mixed")[0];
  for (const auto &f : regressionFixturesIn("mixed"))
    if (f.name == "bank_ledger")
      r = f;
  REQUIRE(r.name == "bank_ledger");
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
  CHECK(j["candidates"][0]["revert"]["result"] == "fixes");
  CHECK_FALSE(j["neutral_edits"].empty());
  CHECK_FALSE(j["revert_trials"].empty());
  CHECK(reportMarkdown(rep).find("Neutral edits") != std::string::npos);
  CHECK(reportSummary(rep).find("reverting") != std::string::npos);
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
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].revert == "fixes with others");
}

TEST_CASE("a hunk that does not build when reverted alone is unresolved, not an error",
          "[debug][revert]") {
  // A parameter added and the call given its argument: neither builds without the other
  // (no new name ties them), so each alone is unresolved.
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
  CHECK(std::any_of(rep.candidates.begin(), rep.candidates.end(),
                    [](auto &c) { return c.revert == "unresolved"; }));
}

TEST_CASE("an extracted helper and its call are one revert unit", "[debug][revert]") {
  // New: `twice` declared in one hunk and called, wrongly, in another; they build only
  // together, so they are reverted together.
  Pair p("#include <stdio.h>\nint main(void) {\n  int x;\n  if (scanf(\"%d\", &x) != 1)\n"
         "    return 1;\n  int y = x * 2;\n  printf(\"%d\\n\", y);\n  return 0;\n}\n",
         "#include <stdio.h>\nstatic int twice(int v) {\n  return v * 2;\n}\nint main(void) {\n"
         "  int x;\n  if (scanf(\"%d\", &x) != 1)\n    return 1;\n  int y = twice(x) + 1;\n"
         "  printf(\"%d\\n\", y);\n  return 0;\n}\n",
         "4\n");
  DebugReport rep = debugRegression(p.req);
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].line == 9);
  CHECK(rep.candidates[0].revert == "fixes");
  CHECK(rep.candidates[0].revertDetail.find("main.c:2-4 + main.c:9") != std::string::npos);
  REQUIRE(rep.reverts.size() == 1);
  CHECK(rep.reverts[0].hunks == std::vector<std::string>{"main.c:2-4 + main.c:9"});
  CHECK(rep.reverts[0].result == "passes");
}

TEST_CASE("between two commits, a rename mixed into the change is neutral and the cause is "
          "reverted alone",
          "[debug][mixed][revert][vcs]") {
  RegressionFixture r;
  for (const auto &f : regressionFixturesIn("mixed"))
    if (f.name == "isbn_check")
      r = f;
  REQUIRE(r.name == "isbn_check");
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
  CHECK(j["candidates"][0]["revert"]["result"] == "fixes");
  bool rename = false;
  for (const auto &n : j["neutral_edits"])
    rename = rename || n["why"].get<std::string>().find("`pos` to `ndigits`") != std::string::npos;
  CHECK(rename);
  // The trials never touch the repository's work tree.
  CHECK(git(repo, {"status", "--porcelain"}).out.empty());
}

TEST_CASE("a mixed regression given as two single files ranks its cause first, reverted alone",
          "[debug][mixed][revert][cli]") {
  RegressionFixture r = regressionFixturesIn("mixed")[0];
  for (const auto &f : regressionFixturesIn("mixed"))
    if (f.name == "bank_ledger")
      r = f;
  REQUIRE(r.name == "bank_ledger");
  // Two files with different names, outside any tree: diffed as a pair.
  TempDir t;
  fs::copy_file(r.dir / "old" / "main.c", t.path / "ledger_good.c");
  fs::copy_file(r.dir / "new" / "main.c", t.path / "ledger_bad.c");
  ProcessResult p = runRootline({"--json", "debug", "--old", (t.path / "ledger_good.c").string(),
                                 "--new", (t.path / "ledger_bad.c").string(), "--stdin",
                                 r.program.stdinFile->string()});
  INFO(p.err);
  REQUIRE(p.exitedWith(0));
  auto j = nlohmann::json::parse(p.out);
  CHECK(j["candidates"][0]["version"] == "old");
  CHECK(j["candidates"][0]["line"] == 27);
  CHECK(j["candidates"][0]["revert"]["result"] == "fixes");
  CHECK_FALSE(j["neutral_edits"].empty());
}
