// Aligned runs in rootline debug (docs/debug.md, "Aligned runs"): the first divergence
// on the slice, the dual slice, and changed lines that compute the same values.
#include "rootline/debug.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace rootline;
using namespace rootline::test;

namespace {

const DebugCandidate *at(const DebugReport &r, unsigned line) {
  for (const auto &c : r.candidates)
    if (c.version == "new" && c.line == line)
      return &c;
  return nullptr;
}

bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// Three changed lines in the slice of `d`: `lo` computes the same on this input (3 < 5
// and 3 <= 5 agree) and on every input like it; `t` the same on this input only (3 * 2
// and 3 + 3); `d` flips its sign.
const char *kOld = "#include <stdio.h>\n"
                   "int main(void) {\n"
                   "  int a, b;\n"
                   "  if (scanf(\"%d %d\", &a, &b) != 2) return 1;\n"
                   "  int lo = a < b ? a : b;\n"
                   "  int hi = a < b ? b : a;\n"
                   "  int t = a * 2;\n"
                   "  int d = hi - lo + t - t;\n"
                   "  printf(\"%d\\n\", d);\n"
                   "  return 0;\n"
                   "}\n";

std::string newVersion() {
  std::string s = kOld;
  s.replace(s.find("a < b ?"), 7, "a <= b ?");
  s.replace(s.find("a * 2;"), 6, "a + 3;");
  s.replace(s.find("hi - lo +"), 9, "lo - hi +");
  return s;
}

// Noise the taint cannot see and two runs of one version share: a function's address,
// copied byte by byte, is the same in every run of one program but moves when the code
// before it grows (functions with external linkage are laid out in the order they are
// defined).
const char *kLayoutOld = "#include <stdio.h>\n"
                         "#include <string.h>\n"
                         "int scale(int x) {\n"
                         "  return x + 1;\n"
                         "}\n"
                         "unsigned layout(void) {\n"
                         "  unsigned (*self)(void) = layout;\n"
                         "  unsigned seed;\n"
                         "  memcpy(&seed, &self, sizeof seed);\n"
                         "  unsigned odd = 0;\n"
                         "  for (int b = 0; b < 16; b++)\n"
                         "    if ((seed >> b) & 1)\n"
                         "      odd++;\n"
                         "  return odd;\n"
                         "}\n"
                         "int main(void) {\n"
                         "  int x;\n"
                         "  if (scanf(\"%d\", &x) != 1) return 1;\n"
                         "  unsigned odd = layout();\n"
                         "  printf(\"%d\\n\", scale(x) + (int)(odd - odd));\n"
                         "  return 0;\n"
                         "}\n";

} // namespace

TEST_CASE("the first divergence names the line and both values", "[debug][align]") {
  // DESIGN example 4: `price` computed at another rate.
  DebugReport rep = debugRegression(debugRequest(regressionFixture("changed_rate")));
  REQUIRE(rep.firstDivergence.has_value());
  CHECK(rep.firstDivergence->file == "main.c");
  CHECK(rep.firstDivergence->line == 6);
  CHECK(rep.firstDivergence->version == "new");
  INFO(rep.firstDivergence->text);
  CHECK(has(rep.firstDivergence->text, "main.c:6 computes `price` = 108 in the old run and 96 "
                                       "in the new run"));
  CHECK(rep.aligned);
  CHECK(rep.dualSliceExecutions > 0);
  CHECK(rep.dualSliceExecutions <= rep.sliceExecutions);
}

TEST_CASE("a loop's k-th iteration meets the k-th, and the divergence says which",
          "[debug][align]") {
  // `i + w <= n` became `i + w < n`: the loop test of the last window differs.
  DebugReport rep = debugRegression(debugRequest(regressionFixture("off_by_one_sum")));
  REQUIRE(rep.firstDivergence.has_value());
  INFO(rep.firstDivergence->text);
  CHECK(rep.firstDivergence->line == 19);
  CHECK(rep.firstDivergence->iteration > 1);
  CHECK(has(rep.firstDivergence->text, "iteration of its loop)"));
  CHECK(has(rep.firstDivergence->text, "goes on to"));
}

TEST_CASE("a changed line computing the same values ranks below the one that differs",
          "[debug][align]") {
  TempDir t;
  DebugRequest req;
  req.oldRecipe = sourceRecipe(t.path / "old" / "main.c", kOld);
  req.newRecipe = sourceRecipe(t.path / "new" / "main.c", newVersion());
  req.oldRoot = t.path / "old";
  req.newRoot = t.path / "new";
  req.input.stdinBytes = "3 5\n";
  DebugReport rep = debugRegression(req);
  const DebugCandidate *d = at(rep, 8);
  REQUIRE(d != nullptr);
  CHECK(d->rank == 1);
  CHECK(d->aligned == "differs");
  // `lo` and `t` are listed with the reason; when ranked at all, below `d`. The solver
  // proves `lo` equal for the whole partition, and finds inputs where `t` is not.
  REQUIRE(rep.sameValueLines.size() == 2);
  CHECK(rep.sameValueLines[0].line == 5);
  CHECK(rep.sameValueLines[1].line == 7);
  INFO(rep.sameValueLines[0].why);
  INFO(rep.sameValueLines[1].why);
  CHECK(has(rep.sameValueLines[0].why, "behaviour-neutral for this failure"));
  CHECK(has(rep.sameValueLines[0].why, "`lo` = 3"));
  CHECK(has(rep.sameValueLines[0].why, "for every input of the failing input's partition"));
  CHECK(has(rep.sameValueLines[1].why, "`t` = 6"));
  CHECK(has(rep.sameValueLines[1].why, "on this input only"));
  if (const DebugCandidate *lo = at(rep, 5)) {
    CHECK(lo->aligned == "same values");
    CHECK(d->rank < lo->rank);
  }
  REQUIRE(rep.firstDivergence.has_value());
  CHECK(has(rep.firstDivergence->text, "computes `d` = 2 in the old run and -2 in the new run"));
  CHECK(rep.firstDivergence->line == 8);

  // Every report format carries it.
  nlohmann::json j = reportJson(rep);
  CHECK(j["alignment"]["first_divergence"]["line"] == 8);
  CHECK(j["alignment"]["same_values"][0]["line"] == 5);
  std::string md = reportMarkdown(rep);
  CHECK(has(md, "**First divergence**"));
  CHECK(has(md, "compute the same values"));
  CHECK(has(reportSummary(rep), "first divergence: main.c:8"));
  CHECK(has(reportHtml(rep), "First divergence"));
  CHECK(has(reportSarif(rep).dump(), "in the dual slice"));
}

TEST_CASE("a reformatted and renamed function still aligns line by line", "[debug][align]") {
  // roman_numerals: the switch of value() was reflowed (one line became two) and an
  // `if` joined onto one line; the cause is `v < next` → `v <= next` at new line 33.
  DebugReport rep = debugRegression(debugRequest(regressionFixtureIn("mixed", "roman_numerals")));
  REQUIRE(rep.firstDivergence.has_value());
  INFO(rep.firstDivergence->text);
  CHECK(rep.firstDivergence->line == 33);
  const DebugCandidate *cause = at(rep, 33);
  REQUIRE(cause != nullptr);
  CHECK(cause->aligned == "differs");
  // The joined `if (v == 0) return -1;` computes the same in both runs.
  CHECK(std::any_of(rep.sameValueLines.begin(), rep.sameValueLines.end(),
                    [](const SameValueLine &l) { return l.line == 32; }));
}

namespace {

// A symbol table hashed with a seed made of the process id and an address (as real
// interpreters seed their string hashes). The runs differ in the seed, in the buckets
// and in the chains walked; the change is the sum's sign at the end.
const char *kSeededOld = "#include <stdint.h>\n"
                         "#include <stdio.h>\n"
                         "#include <stdlib.h>\n"
                         "#include <string.h>\n"
                         "#include <unistd.h>\n"
                         "static unsigned seed;\n"
                         "struct entry { char key[16]; int value; struct entry *next; };\n"
                         "static struct entry *table[8];\n"
                         "static unsigned hash(const char *s) {\n"
                         "  unsigned h = seed;\n"
                         "  while (*s) h = h * 31 + (unsigned char)*s++;\n"
                         "  return h % 8;\n"
                         "}\n"
                         "static void put(const char *k, int v) {\n"
                         "  struct entry *e = calloc(1, sizeof *e);\n"
                         "  strncpy(e->key, k, 15);\n"
                         "  e->value = v;\n"
                         "  unsigned b = hash(k);\n"
                         "  e->next = table[b];\n"
                         "  table[b] = e;\n"
                         "}\n"
                         "static int get(const char *k) {\n"
                         "  for (struct entry *e = table[hash(k)]; e; e = e->next)\n"
                         "    if (strcmp(e->key, k) == 0) return e->value;\n"
                         "  return 0;\n"
                         "}\n"
                         "int main(void) {\n"
                         "  unsigned h = (unsigned)getpid();\n"
                         "  h ^= (unsigned)(uintptr_t)&h;\n"
                         "  seed = h;\n"
                         "  char name[16];\n"
                         "  int v;\n"
                         "  while (scanf(\"%15s %d\", name, &v) == 2) put(name, v);\n"
                         "  int total = get(\"a\") + get(\"b\");\n"
                         "  printf(\"%d\\n\", total);\n"
                         "  return 0;\n"
                         "}\n";

// A string table seeded as Lua seeds its strings (an address and the pid), looked up
// for names that are not in it: whether a bucket's chain is empty depends on the seed.
// The lookups run under a changed line (a limit written another way, the same value),
// so they are reached from the change; the real change is the sign at the end.
const char *kChainsOld = "#include <stdint.h>\n"
                         "#include <stdio.h>\n"
                         "#include <stdlib.h>\n"
                         "#include <string.h>\n"
                         "#include <unistd.h>\n"
                         "static unsigned seed;\n"
                         "struct entry { char key[16]; int value; struct entry *next; };\n"
                         "static struct entry *table[16];\n"
                         "static unsigned hash(const char *s) {\n"
                         "  unsigned h = seed;\n"
                         "  while (*s) h = h * 31 + (unsigned char)*s++;\n"
                         "  return h % 16;\n"
                         "}\n"
                         "static void put(const char *k, int v) {\n"
                         "  struct entry *e = calloc(1, sizeof *e);\n"
                         "  strncpy(e->key, k, 15);\n"
                         "  e->value = v;\n"
                         "  unsigned b = hash(k);\n"
                         "  e->next = table[b];\n"
                         "  table[b] = e;\n"
                         "}\n"
                         "static int get(const char *k) {\n"
                         "  struct entry *e = table[hash(k)];\n"
                         "  while (e != NULL) {\n"
                         "    if (strcmp(e->key, k) == 0) return e->value;\n"
                         "    e = e->next;\n"
                         "  }\n"
                         "  return 0;\n"
                         "}\n"
                         "int main(void) {\n"
                         "  unsigned h = (unsigned)getpid() * 2654435761u;\n"
                         "  h ^= (unsigned)(uintptr_t)&h;\n"
                         "  seed = h;\n"
                         "  char name[16];\n"
                         "  int v;\n"
                         "  while (scanf(\"%15s %d\", name, &v) == 2) put(name, v);\n"
                         "  int limit = 24;\n"
                         "  int absent = 0;\n"
                         "  for (int i = 0; i < limit; i++) {\n"
                         "    char k[8];\n"
                         "    snprintf(k, sizeof k, \"x%d\", i);\n"
                         "    absent += get(k) == 0;\n"
                         "  }\n"
                         "  int total = get(\"a\") + get(\"b\");\n"
                         "  printf(\"%d %d\\n\", total, absent);\n"
                         "  return 0;\n"
                         "}\n";

// A seed read from a local's address bytes (memcpy, no cast: the taint does not see it),
// spread over a loop whose bound comes from a changed line. The new version's main has a
// larger frame, so the seed differs between the versions, and between two runs of the
// old version with their stacks placed apart. The real change is the sign at the end.
const char *kBytesSeedOld = "#include <stdio.h>\n"
                            "#include <string.h>\n"
                            "static unsigned spread(int width) {\n"
                            "  char mark = 0;\n"
                            "  char *where = &mark;\n"
                            "  unsigned seed;\n"
                            "  memcpy(&seed, &where, sizeof seed);\n"
                            "  unsigned odd = 0;\n"
                            "  for (int b = 4; b < 4 + width; b++)\n"
                            "    if ((seed >> b) & 1)\n"
                            "      odd++;\n"
                            "  return (odd & 0u) + (unsigned)mark;\n"
                            "}\n"
                            "int main(void) {\n"
                            "  int x;\n"
                            "  if (scanf(\"%d\", &x) != 1) return 1;\n"
                            "  int width = 8;\n"
                            "  unsigned odd = spread(width);\n"
                            "  printf(\"%d\\n\", x + 1 + (int)(odd - odd));\n"
                            "  return 0;\n"
                            "}\n";

// A call moved to another function that returns the same value but counts its calls:
// the line's values are the same, what it does is not.
const char *kCallsOld = "#include <stdio.h>\n"
                        "static int calls;\n"
                        "static int twice(int x) { return 2 * x; }\n"
                        "static int twice_counted(int x) { calls++; return 2 * x; }\n"
                        "int main(void) {\n"
                        "  int x;\n"
                        "  if (scanf(\"%d\", &x) != 1) return 1;\n"
                        "  int y = twice(x);\n"
                        "  int z = twice_counted(y);\n"
                        "  printf(\"%d %d\\n\", z, calls);\n"
                        "  return 0;\n"
                        "}\n";

} // namespace

TEST_CASE("a hash seed made of an address and the pid is never the first divergence",
          "[debug][align]") {
  TempDir t;
  std::string newText = kSeededOld;
  newText.replace(newText.find("get(\"a\") + get"), 14, "get(\"a\") - get");
  DebugReport rep =
      debugRegression(twoVersions(t.path, kSeededOld, newText, "a 5\nb 2\nc 7\nd 1\ne 4\n"));
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].line == 34);
  REQUIRE(rep.firstDivergence.has_value());
  INFO(rep.firstDivergence->text);
  CHECK(rep.firstDivergence->line == 34);
  // The seed's lines differ between the runs (another pid), but no claim is made of them.
  for (unsigned line : {28u, 29u, 30u, 10u, 11u})
    if (const DebugCandidate *c = at(rep, line))
      CHECK(c->aligned != "differs");
}

TEST_CASE("a collision chain's head read from a seeded bucket does not decide the first "
          "divergence, even where the lookups run under a changed line",
          "[debug][align]") {
  TempDir t;
  std::string newText = kChainsOld;
  newText.replace(newText.find("limit = 24"), 10, "limit = 12 * 2");
  newText.replace(newText.find("get(\"a\") + get"), 14, "get(\"a\") - get");
  DebugReport rep = debugRegression(
      twoVersions(t.path, kChainsOld, newText, "a 5\nb 2\nc 7\nd 1\ne 4\nf 3\ng 9\n"));
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].line == 44);
  REQUIRE(rep.firstDivergence.has_value());
  INFO(rep.firstDivergence->text);
  // Not get()'s `while (e != NULL)` (line 24) nor its body: the seeds differ (another
  // pid), so whether a name's bucket is empty differs too; that is noise.
  CHECK(rep.firstDivergence->line == 44);
}

TEST_CASE("what differs between two runs of the old version is never the first divergence, "
          "even where the taint cannot see the noise",
          "[debug][align]") {
  TempDir t;
  std::string newText = kBytesSeedOld;
  newText.replace(newText.find("int width = 8;"), 14,
                  "int width = 4 * 2;\n  char pad[64] = {0};\n  (void)pad;");
  newText.replace(newText.find("x + 1 +"), 7, "x - 1 +");
  DebugReport rep = debugRegression(twoVersions(t.path, kBytesSeedOld, newText, "4\n"));
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].line == 21);
  REQUIRE(rep.firstDivergence.has_value());
  INFO(rep.firstDivergence->text);
  // Not spread()'s `if ((seed >> b) & 1)` (line 10): the two versions' seeds differ by
  // the frame, and the old version's own two runs differ there too.
  CHECK(rep.firstDivergence->line == 21);
  bool noted = false;
  for (const auto &st : rep.stages)
    noted |= st.note.find("also differ between two runs of the old version") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("a call moved to another function with the same result is not 'the same values'",
          "[debug][align]") {
  TempDir t;
  std::string newText = kCallsOld;
  newText.replace(newText.find("= twice(x)"), 10, "= twice_counted(x)");
  DebugReport rep = debugRegression(twoVersions(t.path, kCallsOld, newText, "4\n"));
  const DebugCandidate *c = at(rep, 8);
  REQUIRE(c != nullptr);
  CHECK(c->rank == 1);
  INFO(c->alignedDetail);
  CHECK(c->aligned == "differs");
  CHECK(has(c->alignedDetail, "calls twice in the old run and twice_counted in the new run"));
  for (const auto &s : rep.sameValueLines)
    CHECK(s.line != 8);
  REQUIRE(rep.firstDivergence.has_value());
  CHECK(rep.firstDivergence->line == 8);
}

TEST_CASE("a store moved across its reader computes the same values but is never called "
          "behaviour-neutral",
          "[debug][align]") {
  // The change increments the count before the test that reads it, instead of after:
  // every execution of `n++` stores the same values in both runs, but the test at line 5
  // now reads them where it read the previous count before. With all readings below
  // zero, the maximum stays 0.
  const char *old = "#include <stdio.h>\n"
                    "struct stats { int n; int max; };\n"
                    "static void add(struct stats *s, int v) {\n"
                    "  if (s->n == 0 || v > s->max)\n"
                    "    s->max = v;\n"
                    "  s->n++;\n"
                    "}\n"
                    "int main(void) {\n"
                    "  struct stats s = {0, 0};\n"
                    "  int v;\n"
                    "  while (scanf(\"%d\", &v) == 1)\n"
                    "    add(&s, v);\n"
                    "  printf(\"%d readings, max %d\\n\", s.n, s.max);\n"
                    "  return 0;\n"
                    "}\n";
  std::string moved = old;
  moved.replace(moved.find("  if (s->n == 0"), 0, "  s->n++;\n");
  moved.erase(moved.find("  s->n++;\n}\n"), 10);
  REQUIRE(moved.find("  s->n++;\n  if (s->n == 0 || v > s->max)\n    s->max = v;\n}\n") !=
          std::string::npos);
  TempDir t;
  DebugRequest req;
  req.oldRecipe = sourceRecipe(t.path / "old" / "main.c", old);
  req.newRecipe = sourceRecipe(t.path / "new" / "main.c", moved);
  req.oldRoot = t.path / "old";
  req.newRoot = t.path / "new";
  req.input.stdinBytes = "-4 -3 -7\n";
  DebugReport rep = debugRegression(req);
  REQUIRE(rep.newRun.stdoutBytes == "3 readings, max 0\n");
  REQUIRE(rep.oldRun.stdoutBytes == "3 readings, max -3\n");
  const DebugCandidate *inc = at(rep, 4); // `s->n++;` in the new version
  REQUIRE(inc != nullptr);
  INFO(inc->alignedDetail);
  CHECK(inc->aligned == "differs");
  CHECK(has(inc->alignedDetail, "computes the same values in both runs, but in the new run "
                                "main.c:5 reads what it stored, and in the old run that read "
                                "does not"));
  for (const auto &s : rep.sameValueLines)
    CHECK_FALSE((s.file == "main.c" && s.line == 4));
  // The unchanged test that now reads the new count is a candidate too, next to the
  // moved store (the first divergence, where the test goes the other way, first): a fix
  // may go to either line.
  const DebugCandidate *test = at(rep, 5);
  REQUIRE(test != nullptr);
  INFO(test->alignedDetail);
  CHECK(std::min(inc->rank, test->rank) == 1);
  CHECK(std::max(inc->rank, test->rank) == 2);
  CHECK_FALSE(test->inChangedRegion);
  CHECK(test->aligned == "differs");
  CHECK(has(test->alignedDetail, "in the new run it reads what the changed line main.c:4 "
                                 "stored, and in the old run this read does not"));
  // The old version's `s->n++;` (line 7) is shown where the change moved it, never as
  // the line that "replaced" it.
  for (const auto &c : rep.candidates)
    for (const auto &r : c.reasons)
      if (has(r, "found at the old version's line 7 "))
        CHECK((c.line == 4 && has(r, "which the change moved to this line")));
}

TEST_CASE("a new local that a constant initialiser fills with memcpy is not where the runs "
          "part",
          "[debug][align]") {
  // clang copies `{ 1, 0, {5, 9} }` from a constant with llvm.memcpy: the line logs no
  // store, and its execution has no counterpart in the old run. It gives a new variable
  // its first value; the runs part at the changed sum.
  const char *old = "#include <stdio.h>\n"
                    "int main(void) {\n"
                    "  int v, sum = 0;\n"
                    "  while (scanf(\"%d\", &v) == 1)\n"
                    "    sum += v;\n"
                    "  printf(\"%d\\n\", sum);\n"
                    "  return 0;\n"
                    "}\n";
  const char *changed = "#include <stdio.h>\n"
                        "struct opts { int scale; int verbose; long limits[2]; };\n"
                        "int main(void) {\n"
                        "  struct opts o = { 1, 0, {5, 9} };\n"
                        "  int v, sum = 0;\n"
                        "  while (scanf(\"%d\", &v) == 1)\n"
                        "    sum += v + 1;\n"
                        "  printf(\"%d\\n\", sum * o.scale);\n"
                        "  return 0;\n"
                        "}\n";
  TempDir t;
  DebugReport rep = debugRegression(twoVersions(t.path, old, changed, "4 5\n"));
  REQUIRE(rep.oldRun.stdoutBytes == "9\n");
  REQUIRE(rep.newRun.stdoutBytes == "11\n");
  REQUIRE(rep.firstDivergence.has_value());
  INFO(rep.firstDivergence->text);
  CHECK(rep.firstDivergence->line == 7);
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].line == 7);
}

TEST_CASE("a branch the change does not reach is not where the runs part, even when noise "
          "the taint cannot see and both old runs share decided it",
          "[debug][align]") {
  TempDir t;
  std::string newText = kLayoutOld;
  // The changed function grows, so layout() (after it) moves and its bit count differs.
  newText.replace(newText.find("  return x + 1;\n"), 16,
                  "  int y = x - 1;\n"
                  "  if (y > 100000) {\n"
                  "    y = y * 3 + 7;\n"
                  "    y = y / 5 - 11;\n"
                  "    y = y * 13 + 17;\n"
                  "    y = y % 1009 + 19;\n"
                  "  }\n"
                  "  return y;\n");
  DebugReport rep = debugRegression(twoVersions(t.path, kLayoutOld, newText, "4\n"));
  REQUIRE(rep.firstDivergence.has_value());
  INFO(rep.firstDivergence->text);
  // Not layout()'s `if ((seed >> b) & 1)` (line 12): it ran before the changed line and
  // nothing the change computed reaches it.
  CHECK(rep.firstDivergence->line == 4);
  bool noted = false;
  for (const auto &st : rep.stages)
    noted |= st.note.find("differing execution(s) that no changed line's execution reaches "
                          "(a value, a branch, code that ran in one run only) are not taken") !=
             std::string::npos;
  CHECK(noted); // layout()'s branches did go other ways
}

TEST_CASE("a function the change moved, with one token of a line edited on the way, is aligned "
          "with its old self, the edited loop bound differs, it does not run 'in the new run "
          "only'",
          "[debug][align]") {
  // The change moves total() above main (dropping its declaration) and, on the way,
  // makes the loop run once more: it adds the unused slot v[n].
  const std::string body = "static int total(const int *v, int n) {\n"
                           "  int sum = 0;\n"
                           "  for (int i = 0; i < n; i++)\n"
                           "    sum += v[i] * (i + 1);\n"
                           "  return sum;\n"
                           "}\n";
  const std::string mainText = "int main(void) {\n"
                               "  int v[8] = {9, 9, 9, 9, 9, 9, 9, 9};\n"
                               "  int n = 0;\n"
                               "  while (n < 7 && scanf(\"%d\", &v[n]) == 1)\n"
                               "    n++;\n"
                               "  printf(\"%d\\n\", total(v, n));\n"
                               "  return 0;\n"
                               "}\n";
  std::string oldText =
      "#include <stdio.h>\nstatic int total(const int *v, int n);\n" + mainText + body;
  std::string movedBody = body;
  movedBody.replace(movedBody.find("i < n"), 5, "i <= n");
  std::string newText = "#include <stdio.h>\n" + movedBody + mainText;
  TempDir t;
  DebugReport rep = debugRegression(twoVersions(t.path, oldText, newText, "1 2 3\n"));
  REQUIRE(rep.oldRun.stdoutBytes == "14\n");
  REQUIRE(rep.newRun.stdoutBytes == "50\n");
  const DebugCandidate *bound = at(rep, 4); // the moved, edited `for` in the new version
  REQUIRE(bound != nullptr);
  INFO(bound->alignedDetail);
  CHECK(bound->rank == 1);
  CHECK(bound->aligned == "differs");
  CHECK_FALSE(has(bound->alignedDetail, "in the new run only"));
  REQUIRE(rep.firstDivergence.has_value());
  CHECK(rep.firstDivergence->line == 4);
}

TEST_CASE("a rewritten condition whose outcome matches its old counterpart's, but which enters "
          "code the change added, is never 'the same values'",
          "[debug][align]") {
  // `v > 0 && v < 100` becomes `v > 0 || v < -5`: both are true for 3 and 4, but the new
  // run goes on into a line the change added, where the old one went on to the line
  // whose counterpart is the new line 9.
  const char *oldText = "#include <stdio.h>\n"
                        "int main(void) {\n"
                        "  int v, sum = 0;\n"
                        "  while (scanf(\"%d\", &v) == 1) {\n"
                        "    if (v < -100)\n"
                        "      break;\n"
                        "    if (v > 0 && v < 100)\n"
                        "      sum += v;\n"
                        "  }\n"
                        "  printf(\"%d\\n\", sum);\n"
                        "  return 0;\n"
                        "}\n";
  const char *newText = "#include <stdio.h>\n"
                        "int main(void) {\n"
                        "  int v, sum = 0;\n"
                        "  while (scanf(\"%d\", &v) == 1) {\n"
                        "    if (v < -100)\n"
                        "      break;\n"
                        "    if (v > 0 || v < -5) {\n"
                        "      int d = 2 * v;\n"
                        "      sum += d;\n"
                        "    }\n"
                        "  }\n"
                        "  printf(\"%d\\n\", sum);\n"
                        "  return 0;\n"
                        "}\n";
  TempDir t;
  DebugReport rep = debugRegression(twoVersions(t.path, oldText, newText, "3 4\n"));
  REQUIRE(rep.oldRun.stdoutBytes == "7\n");
  REQUIRE(rep.newRun.stdoutBytes == "14\n");
  for (const auto &s : rep.sameValueLines)
    CHECK(s.line != 7);
  const DebugCandidate *condition = at(rep, 7);
  REQUIRE(condition != nullptr);
  INFO(condition->alignedDetail);
  CHECK(condition->aligned == "differs");
}

TEST_CASE("a changed condition whose outcome matches its old counterpart's from another "
          "result of the call it tests is never 'the same values'",
          "[debug][align]") {
  // diffstat's rewrite, in small: the old line 8 tests `sscanf(...) == 2` where sscanf
  // returned 1, the new (seeded) one `sscanf(...) != 2` where it returned 2. Both are
  // false and both go on to the same line, but the old text is true on the new run's
  // value (reverting line 8 alone prints 18420): the line is not behaviour-neutral.
  const char *oldText = "#include <stdio.h>\n"
                        "int main(void) {\n"
                        "  char buf[64];\n"
                        "  int total = 0;\n"
                        "  while (fgets(buf, sizeof buf, stdin)) {\n"
                        "    int a = 0, b = 0;\n"
                        "    if (sscanf(buf, \"%d:%d\",\n"
                        "               &a, &b) == 2)\n"
                        "      total += a * 3600 + b * 60;\n"
                        "    else\n"
                        "      total += a * 60 + b;\n"
                        "  }\n"
                        "  printf(\"%d\\n\", total);\n"
                        "  return 0;\n"
                        "}\n";
  std::string newText = oldText;
  newText.replace(newText.find("%d:%d"), 5, "%d %d");
  newText.replace(newText.find("== 2"), 4, "!= 2");
  TempDir t;
  DebugReport rep = debugRegression(twoVersions(t.path, oldText, newText, "5 7\n"));
  REQUIRE(rep.oldRun.stdoutBytes == "300\n");
  REQUIRE(rep.newRun.stdoutBytes == "307\n");
  for (const auto &s : rep.sameValueLines) {
    INFO(s.why);
    CHECK(s.line != 8);
  }
  const DebugCandidate *condition = at(rep, 8);
  REQUIRE(condition != nullptr);
  CHECK(condition->aligned != "same values");
}

TEST_CASE("a run that crashed in a callee parts where it crashed and not at the calling lines "
          "it never finished",
          "[debug][align]") {
  // mujs's compile(): the change moved `loop:` below the NULL check, so the `goto` of a
  // node without a right child reads through NULL. The old run returns there and goes
  // on; the new run's calling lines (walk's recursion, main's call) never finish. Their
  // missing stores and branches are the crash, not where the runs part: the statement
  // the jump now reaches, in the new run only, is. The NULL check runs once more after
  // each jump in the old run only: its other runs, in another loop nesting in each
  // version, are each other's.
  const char *old = "#include <stdio.h>\n"
                    "#include <stdlib.h>\n"
                    "struct node { int v; struct node *left, *right; };\n"
                    "static int total;\n"
                    "static void walk(struct node *n) {\n"
                    "loop:\n"
                    "  if (!n)\n"
                    "    return;\n"
                    "\n"
                    "  total += n->v;\n"
                    "  walk(n->left);\n"
                    "  n = n->right;\n"
                    "  goto loop;\n"
                    "}\n"
                    "static struct node *insert(struct node *t, int v) {\n"
                    "  if (!t) {\n"
                    "    t = calloc(1, sizeof *t);\n"
                    "    t->v = v;\n"
                    "  } else if (v < t->v)\n"
                    "    t->left = insert(t->left, v);\n"
                    "  else\n"
                    "    t->right = insert(t->right, v);\n"
                    "  return t;\n"
                    "}\n"
                    "int main(void) {\n"
                    "  struct node *root = NULL;\n"
                    "  int v;\n"
                    "  while (scanf(\"%d\", &v) == 1)\n"
                    "    root = insert(root, v);\n"
                    "  walk(root);\n"
                    "  printf(\"total %d\\n\", total);\n"
                    "  return 0;\n"
                    "}\n";
  std::string changed = old;
  const std::string from = "loop:\n  if (!n)\n    return;\n";
  changed.replace(changed.find(from), from.size(), "  if (!n)\n    return;\nloop:\n");
  TempDir t;
  DebugReport rep = debugRegression(twoVersions(t.path, old, changed, "5 3 8 1\n"));
  REQUIRE(rep.oldRun.stdoutBytes == "total 17\n");
  REQUIRE(rep.newRun.outcome == "signal SIGSEGV");
  REQUIRE(rep.firstDivergence.has_value());
  INFO(rep.firstDivergence->text);
  CHECK(rep.firstDivergence->file == "main.c");
  CHECK(rep.firstDivergence->version == "new");
  CHECK(rep.firstDivergence->line == 10); // total += n->v, reached through NULL
  CHECK(has(rep.firstDivergence->text, "runs in the new run only"));
}
