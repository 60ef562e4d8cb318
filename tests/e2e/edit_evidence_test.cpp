// Edit evidence (docs/debug.md, "Edit evidence"): a one-token edit of a line, tried on the
// new version with the rest of the change kept, tells apart the lines of a unit whose
// revert makes the test pass but cannot say which of its lines matters.
#include "rootline/debug.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace rootline;
using namespace rootline::test;

namespace {

// `rootline debug` of two single-file versions on one stdin.
DebugReport debugPair(const std::string &oldSource, const std::string &newSource,
                      const std::string &input) {
  TempDir t;
  DebugRequest req;
  req.oldRecipe = sourceRecipe(t.path / "old" / "main.c", oldSource);
  req.newRecipe = sourceRecipe(t.path / "new" / "main.c", newSource);
  req.oldRoot = t.path / "old";
  req.newRoot = t.path / "new";
  req.input.stdinBytes = input;
  return debugRegression(req);
}

} // namespace

TEST_CASE("in a helper the change added, the line whose one-token edit makes the test pass "
          "ranks first, and edits that do not pass say nothing",
          "[debug][revert][edits]") {
  // The change extracts the sum into sum_to() (a new name ties it to its call: one unit
  // whose revert passes and whose lines revert cannot tell apart), with `i < n` for
  // `i <= n`. The `unused` edit keeps the unit from being the whole change.
  const char *oldSource = "#include <stdio.h>\n"
                          "int main(void) {\n"
                          "  int n;\n"
                          "  int unused = 3;\n"
                          "  (void)unused;\n"
                          "  if (scanf(\"%d\", &n) != 1)\n"
                          "    return 1;\n"
                          "  int total = 0;\n"
                          "  for (int i = 1; i <= n; i++)\n"
                          "    total += i;\n"
                          "  printf(\"%d\\n\", total);\n"
                          "  return 0;\n"
                          "}\n";
  const char *newSource = "#include <stdio.h>\n"
                          "static int sum_to(int n) {\n"
                          "  if (n < 0)\n"
                          "    return 0;\n"
                          "  int total = 0;\n"
                          "  for (int i = 1; i < n; i++)\n"
                          "    total += i;\n"
                          "  return total;\n"
                          "}\n"
                          "int main(void) {\n"
                          "  int n;\n"
                          "  int unused = 4;\n"
                          "  (void)unused;\n"
                          "  if (scanf(\"%d\", &n) != 1)\n"
                          "    return 1;\n"
                          "  printf(\"%d\\n\", sum_to(n));\n"
                          "  return 0;\n"
                          "}\n";
  DebugReport rep = debugPair(oldSource, newSource, "4\n");
  REQUIRE_FALSE(rep.candidates.empty());
  const DebugCandidate &top = rep.candidates[0];
  INFO("rank 1: " << top.file << ":" << top.line << " " << top.edit << " / " << top.revertDetail);
  CHECK(top.version == "new");
  CHECK(top.line == 6);
  CHECK(top.edit == "changing `<` to `<=` at main.c:6 (`for (int i = 1; i <= n; i++)`) alone "
                    "makes the test pass, the rest of the change kept");
  CHECK(top.revert == "fixes"); // its unit's revert passes too
  // The edit trial is in the report, with its run, and the line's rank rests on it.
  nlohmann::json j = reportJson(rep);
  auto runnable = j["candidates"][0]["runnable_evidence"];
  CHECK(std::find(runnable.begin(), runnable.end(), "edit") != runnable.end());
  bool passed = false, other = false;
  for (const auto &trial : j["revert_trials"]) {
    if (trial["what"] != "edit")
      continue;
    std::string label = trial["hunks"][0];
    if (label == "main.c:6: `<` → `<=`") {
      passed = trial["result"] == "passes";
      CHECK(trial["run"]["stdout"] == "10\n");
    } else if (label == "main.c:3: `<` → `<=`") {
      other = true;
      CHECK(trial["result"] == "same failure");
    }
  }
  CHECK(passed);
  CHECK(other); // `n < 0` was tried (it is in the slice) and changed nothing
  // The unit has its repair: its literals (`n < 0`, `total = 0`, `i = 1`) are not tried.
  for (const auto &trial : j["revert_trials"])
    if (trial["what"] == "edit") {
      std::string label = trial["hunks"][0];
      CHECK(label.find("`0` →") == std::string::npos);
      CHECK(label.find("`1` →") == std::string::npos);
    }
  for (const auto &c : rep.candidates)
    if (c.line != 6)
      CHECK(c.edit.empty());
  CHECK(reportMarkdown(rep).find("**Edit:** changing `<` to `<=` at main.c:6") !=
        std::string::npos);
}

TEST_CASE("a unit whose line put back to its old text makes the test pass gets no edit trials, "
          "and that line ranks first",
          "[debug][revert][edits]") {
  // One hunk, lines 6-8; line 7 put back to `int y = x * 2;` fixes the test. Line 8, which
  // the change added, does not (its revert drops it), but its `<` → `<=` would pass (it
  // takes x off again) and rank first: the unit already has its answer, line 7's old text.
  const char *oldSource = "#include <stdio.h>\n"
                          "int main(void) {\n"
                          "  int x;\n"
                          "  if (scanf(\"%d\", &x) != 1)\n"
                          "    return 1;\n"
                          "  int y = x * 2;\n"
                          "  printf(\"%d\\n\", y);\n"
                          "  int unused = 3;\n"
                          "  (void)unused;\n"
                          "  return 0;\n"
                          "}\n";
  const char *newSource = "#include <stdio.h>\n"
                          "int main(void) {\n"
                          "  int x;\n"
                          "  if (scanf(\"%d\", &x) != 1)\n"
                          "    return 1;\n"
                          "  int scale = 3;\n"
                          "  int y = x * scale;\n"
                          "  y -= (scale < 3) ? x : 0;\n"
                          "  printf(\"%d\\n\", y);\n"
                          "  int unused = 4;\n"
                          "  (void)unused;\n"
                          "  return 0;\n"
                          "}\n";
  DebugReport rep = debugPair(oldSource, newSource, "5\n");
  REQUIRE_FALSE(rep.candidates.empty());
  const DebugCandidate &top = rep.candidates[0];
  INFO("rank 1: " << top.file << ":" << top.line << " " << top.edit << " / " << top.revertDetail);
  CHECK(top.line == 7);
  CHECK(top.revertDetail == "reverting main.c:7 alone makes the test pass");
  for (const auto &trial : rep.reverts) {
    INFO(trial.what << " " << (trial.hunks.empty() ? "" : trial.hunks[0]) << " " << trial.result);
    CHECK(trial.what != "edit");
  }
}

TEST_CASE("an off-by-one start in a helper the change added is found by its literal's edit",
          "[debug][revert][edits]") {
  // The change extracts the sum into sum_of() and starts it at a[1]: `i = 1` for `i = 0`.
  // The helper and its call are one unit whose revert passes. On the `for` line, `<` →
  // `<=` reads a[n] (0) and still misses a[0]; `1` → `0` repairs it.
  const char *oldSource = "#include <stdio.h>\n"
                          "int main(void) {\n"
                          "  int a[8] = {0}, n = 0;\n"
                          "  while (n < 7 && scanf(\"%d\", &a[n]) == 1)\n"
                          "    n++;\n"
                          "  int s = 0;\n"
                          "  for (int i = 0; i < n; i++)\n"
                          "    s += a[i];\n"
                          "  printf(\"%d\\n\", s);\n"
                          "  return 0;\n"
                          "}\n";
  const char *newSource = "#include <stdio.h>\n"
                          "static int sum_of(const int *a, int n) {\n"
                          "  int s = 0;\n"
                          "  for (int i = 1; i < n; i++)\n"
                          "    s += a[i];\n"
                          "  return s;\n"
                          "}\n"
                          "int main(void) {\n"
                          "  int a[8] = {0}, n = 0;\n"
                          "  while (n < 7 && scanf(\"%d\", &a[n]) == 1)\n"
                          "    n++;\n"
                          "  printf(\"%d\\n\", sum_of(a, n));\n"
                          "  return 0;\n"
                          "}\n";
  DebugReport rep = debugPair(oldSource, newSource, "5 2 3\n");
  REQUIRE_FALSE(rep.candidates.empty());
  const DebugCandidate &top = rep.candidates[0];
  INFO("rank 1: " << top.file << ":" << top.line << " " << top.edit << " / " << top.revertDetail);
  CHECK(top.version == "new");
  CHECK(top.line == 4);
  CHECK(top.edit == "changing `1` to `0` at main.c:4 (`for (int i = 0; i < n; i++)`) alone "
                    "makes the test pass, the rest of the change kept");
  nlohmann::json j = reportJson(rep);
  bool bound = false, start = false, total = false;
  for (const auto &trial : j["revert_trials"]) {
    if (trial["what"] != "edit")
      continue;
    std::string label = trial["hunks"][0];
    if (label == "main.c:4: `<` → `<=`") {
      bound = true; // tried first, and not a repair: a[0] is still left out
      CHECK(trial["result"] != "passes");
    } else if (label == "main.c:4: `1` → `0`") {
      start = true;
      CHECK(trial["result"] == "passes");
      CHECK(trial["run"]["stdout"] == "10\n");
    } else if (label == "main.c:3: `0` → `1`") {
      total = true; // `int s = 1;` gives 6, not 10
      CHECK(trial["result"] != "passes");
    }
  }
  CHECK(bound);
  CHECK(start);
  CHECK(total);
  for (const auto &c : rep.candidates)
    if (c.line != 4)
      CHECK(c.edit.empty());
}

TEST_CASE("of two lines whose edits make the test pass the one the other's execution depends "
          "on ranks first and the other is said to make up for it",
          "[debug][revert][edits]") {
  // The change moves the test for a number into is_number() and turns `w[n] == '\0'`
  // into `!=` (line 6). "42" then fails the first alternative and reaches the second
  // (line 7), where `&&` → `||` lets any leading digits pass: a repair of the test too,
  // made after the fault, nearer the failure on the slice, and depending on line 6's
  // decision. Line 6's own edit removes the fault where it starts. (`unused` keeps the helper's
  // unit from being the whole change.)
  const char *oldSource = "#include <stdio.h>\n"
                          "int main(void) {\n"
                          "  char w[64];\n"
                          "  while (scanf(\"%63s\", w) == 1) {\n"
                          "    int n = 0;\n"
                          "    while (w[n] >= '0' && w[n] <= '9')\n"
                          "      n++;\n"
                          "    int number = (n > 0 && w[n] == '\\0') ||\n"
                          "                 (n > 0 && w[n] == 'k' && w[n + 1] == '\\0');\n"
                          "    printf(\"%s %s\\n\", number ? \"number\" : \"word\", w);\n"
                          "  }\n"
                          "  return 0;\n"
                          "}\n"
                          "int unused = 3;\n";
  const char *newSource = "#include <stdio.h>\n"
                          "static int is_number(const char *w) {\n"
                          "  int n = 0;\n"
                          "  while (w[n] >= '0' && w[n] <= '9')\n"
                          "    n++;\n"
                          "  return (n > 0 && w[n] != '\\0') ||\n"
                          "         (n > 0 && w[n] == 'k' && w[n + 1] == 0);\n"
                          "}\n"
                          "int main(void) {\n"
                          "  char w[64];\n"
                          "  while (scanf(\"%63s\", w) == 1)\n"
                          "    printf(\"%s %s\\n\", is_number(w) ? \"number\" : \"word\", w);\n"
                          "  return 0;\n"
                          "}\n"
                          "int unused = 4;\n";
  DebugReport rep = debugPair(oldSource, newSource, "42 abc 7k\n");
  REQUIRE_FALSE(rep.candidates.empty());
  const DebugCandidate &top = rep.candidates[0];
  INFO("rank 1: " << top.file << ":" << top.line << " " << top.edit << " / " << top.revertDetail);
  CHECK(top.version == "new");
  CHECK(top.line == 6);
  CHECK(top.edit == "changing `!=` to `==` at main.c:6 (`return (n > 0 && w[n] == '\\0') ||`) "
                    "alone makes the test pass, the rest of the change kept; main.c:7, whose "
                    "edit passes too, depends on this line's execution");
  // Both repairs ran and passed, with the old version's output.
  bool early = false, late = false;
  for (const RevertTrial &trial : rep.reverts) {
    if (trial.what != "edit")
      continue;
    if (trial.hunks[0] == "main.c:6: `!=` → `==`" || trial.hunks[0] == "main.c:7: `&&` → `||`") {
      (trial.hunks[0][7] == '6' ? early : late) = true;
      CHECK(trial.result == "passes");
      CHECK(trial.run.stdoutBytes == "number 42\nword abc\nnumber 7k\n");
    }
  }
  CHECK(early);
  CHECK(late);
  auto seven = std::find_if(rep.candidates.begin(), rep.candidates.end(),
                            [](const DebugCandidate &c) { return c.line == 7; });
  REQUIRE(seven != rep.candidates.end());
  CHECK(seven->rank > top.rank);
  CHECK(std::find(seven->reasons.begin(), seven->reasons.end(),
                  "its execution depends on main.c:6, whose edit makes the test pass too: this "
                  "line's edit may make up for a fault there") != seven->reasons.end());
}
