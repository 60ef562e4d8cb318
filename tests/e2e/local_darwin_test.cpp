// Local Darwin (docs/debug.md, "Local Darwin"): when the whole-program composition cannot
// reason about the changed function (here its input goes through a lexer that parses
// numbers with strtod, which symbolic replay makes concrete), the function's carved call
// is composed over its own named values. The claims of the report are checked here
// apart from rootline: the harness written to --out, built against each version's
// source, prints what the report says each version does.
#include "rootline/build.h"
#include "rootline/process.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <regex>

using namespace rootline;
using namespace rootline::test;

namespace {

// A stack language: words go through a hashed keyword table, numbers through strtod.
// The change: a value at the machine's limit is now pushed as limit - 1.
const char *kInterpOld = R"(#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tiny stack language: words are looked up in a hashed keyword table. */
enum kind { K_NUM, K_ADD, K_SUB, K_MUL, K_DUP, K_PRINT, K_LIMIT };
struct token { enum kind kind; int value; };
struct machine { int sp; int stack[16]; int limit; int printed; };

static const char *names[] = {"add", "sub", "mul", "dup", "print", "limit"};
static int table[64];

static unsigned hash(const char *w) {
  unsigned h = 5381;
  for (; *w; ++w)
    h = h * 31 + (unsigned char)*w;
  return h % 64;
}

static void init_table(void) {
  for (int i = 0; i < 64; ++i)
    table[i] = -1;
  for (int i = 0; i < 6; ++i)
    table[hash(names[i])] = i;
}

static int lex(const char *w, struct token *t) {
  if (w[0] >= '0' && w[0] <= '9') {
    t->kind = K_NUM;
    t->value = (int)strtod(w, NULL);
    return 1;
  }
  int k = table[hash(w)];
  if (k < 0 || strcmp(names[k], w) != 0)
    return 0;
  t->kind = (enum kind)(k + 1);
  t->value = 0;
  return 1;
}

/* Applies one token; returns 0 when the machine refuses it. */
static int step(struct machine *m, const struct token *t) {
  switch (t->kind) {
  case K_NUM:
    if (m->sp >= 16)
      return 0;
    m->stack[m->sp++] = t->value > m->limit ? m->limit : t->value;
    return 1;
  case K_DUP:
    if (m->sp < 1 || m->sp >= 16)
      return 0;
    m->stack[m->sp] = m->stack[m->sp - 1];
    m->sp++;
    return 1;
  case K_PRINT:
    if (m->sp < 1)
      return 0;
    printf("%d\n", m->stack[--m->sp]);
    m->printed++;
    return 1;
  case K_LIMIT:
    if (m->sp < 1)
      return 0;
    m->limit = m->stack[--m->sp];
    return 1;
  default:
    break;
  }
  if (m->sp < 2)
    return 0;
  int a = m->stack[m->sp - 2], b = m->stack[m->sp - 1];
  int r = t->kind == K_ADD ? a + b : t->kind == K_SUB ? a - b : a * b;
  m->stack[m->sp - 2] = r;
  m->sp--;
  return 1;
}

int main(void) {
  char word[32];
  struct machine m = {0, {0}, 1000, 0};
  init_table();
  while (scanf("%31s", word) == 1) {
    struct token t;
    if (!lex(word, &t) || !step(&m, &t)) {
      printf("error at '%s'\n", word);
      return 1;
    }
  }
  printf("%d printed\n", m.printed);
  return 0;
}
)";

std::string interpNew() {
  std::string s = kInterpOld;
  const std::string from = "t->value > m->limit ? m->limit : t->value";
  s.replace(s.find(from), from.size(), "t->value >= m->limit ? m->limit - 1 : t->value");
  return s;
}

// The harness written to --out, built as its header says against one version's file
// (a one-file program: nothing else to link), run on `input`.
ProcessResult harnessRun(const fs::path &harness, const fs::path &unit, const fs::path &exe,
                         const std::string &input) {
  ProcessSpec build;
  build.argv = {clangPath(),      "-O0", "-w",        "-DRL_UNIT_SOURCE=\"" + unit.string() + "\"",
                harness.string(), "-o",  exe.string()};
  ProcessResult b = runProcess(build);
  INFO(b.err);
  REQUIRE(b.exitedWith(0));
  writeText(exe.string() + ".in", input);
  ProcessSpec run;
  run.argv = {exe.string()};
  run.stdinFile = exe.string() + ".in";
  run.timeoutSeconds = 30;
  return runProcess(run);
}

nlohmann::json debugInterp(const TempDir &t, const std::string &mode, const fs::path &out) {
  writeText(t.path / "in.txt", "5 limit 7 2 add print 5 dup mul print\n");
  writeText(t.path / "old" / "interp.c", kInterpOld);
  writeText(t.path / "new" / "interp.c", interpNew());
  std::vector<std::string> args = {"--json",         "debug",
                                   "--old",          (t.path / "old").string(),
                                   "--new",          (t.path / "new").string(),
                                   "--src",          "interp.c",
                                   "--stdin",        (t.path / "in.txt").string(),
                                   "--local-darwin", mode,
                                   "--out",          out.string()};
  ProcessResult r = runRootline(args);
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  return nlohmann::json::parse(r.out);
}

} // namespace

TEST_CASE("local Darwin decides at the changed function where the whole-program composition "
          "does not, and its alternative behaves as the report says on both versions",
          "[debug][localdarwin]") {
  TempDir t;
  fs::path out = t.path / "report";
  nlohmann::json rep = debugInterp(t, "auto", out);
  REQUIRE_FALSE(rep["candidates"].empty());
  const nlohmann::json &top = rep["candidates"][0];
  CHECK(top["file"] == "interp.c");
  CHECK(top["line"] == 47);
  // The whole program: the number is made concrete in strtod, so no input reaches the
  // changed line's branch.
  CHECK(rep["composition"]["direction"].get<std::string>().find("same partition") == 0);
  CHECK(top["evidence_level"] != "runs");

  REQUIRE(rep["local_darwin"].is_object());
  const nlohmann::json &ld = rep["local_darwin"];
  CHECK(ld["function"] == "step");
  CHECK(ld["decided"] == true);
  std::vector<std::string> names;
  for (const auto &in : ld["inputs"])
    names.push_back(in["name"]);
  // What the call read, by name (it pushes: m->stack[0] is written, not read).
  CHECK(names == std::vector<std::string>{"m->sp", "m->limit", "t->kind", "t->value"});
  REQUIRE_FALSE(ld["alternatives"].empty());
  const nlohmann::json &alt = ld["alternatives"][0];
  CHECK(alt["file"] == "interp.c");
  CHECK(alt["line"] == 47);
  // The one value where the versions take other paths: the limit itself.
  CHECK(alt["changes"] == nlohmann::json::array({"t->value: 7 → 5"}));
  std::string text = alt["text"];
  CHECK(text.find("`(int)t->value > (int)m->limit` false at interp.c:47") != std::string::npos);
  CHECK(text.find("the old version leaves m->stack[0] = 5, the new one leaves m->stack[0] = 4") !=
        std::string::npos);
  CHECK(top["local_alternative"] == alt["text"]);
  const nlohmann::json &runnable = top["runnable_evidence"];
  CHECK(std::find(runnable.begin(), runnable.end(), "local alternative") != runnable.end());

  // Apart from rootline: the harness with each version's source, on the carved values
  // and on the alternative, prints what the report recorded.
  fs::path harness = out / ld["harness"].get<std::string>();
  REQUIRE(fs::exists(harness));
  std::string carved = ld["stdin"];
  std::string values;
  for (const auto &in : ld["inputs"])
    values += in["value"].get<std::string>() + "\n";
  CHECK(values == "0\n5\nK_NUM\n7\n"); // an enum by its enumerator's name
  fs::path oldUnit = t.path / "old" / "interp.c", newUnit = t.path / "new" / "interp.c";
  ProcessResult o = harnessRun(harness, oldUnit, t.path / "h-old", carved);
  ProcessResult n = harnessRun(harness, newUnit, t.path / "h-new", carved);
  CHECK(o.out == ld["old_result"].get<std::string>());
  CHECK(n.out == ld["new_result"].get<std::string>());
  CHECK(o.out.find("leaves m->stack[0] = 5\n") != std::string::npos);
  CHECK(n.out.find("leaves m->stack[0] = 4\n") != std::string::npos);
  std::string stdinText = alt["stdin"];
  ProcessResult ao = harnessRun(harness, oldUnit, t.path / "a-old", stdinText);
  ProcessResult an = harnessRun(harness, newUnit, t.path / "a-new", stdinText);
  CHECK(ao.out == alt["old_result"].get<std::string>());
  CHECK(an.out == alt["new_result"].get<std::string>());
  CHECK(ao.out.find("returns 1\n") != std::string::npos);
  CHECK((ao.out == an.out) == alt["versions_agree"].get<bool>());
}

TEST_CASE("local Darwin does not run when the whole-program composition already gave the "
          "candidate an alternative input, nor when it is turned off",
          "[debug][localdarwin]") {
  TempDir t;
  // With the digits parsed by hand the whole-program composition reaches the changed
  // line: auto leaves local Darwin out.
  std::string byHand = kInterpOld;
  const std::string from = "t->value = (int)strtod(w, NULL);";
  byHand.replace(byHand.find(from), from.size(),
                 "int v = 0;\n    for (; *w >= '0' && *w <= '9'; ++w)\n      v = v * 10 + (*w - "
                 "'0');\n    t->value = v;");
  std::string byHandNew = byHand;
  const std::string line = "t->value > m->limit ? m->limit : t->value";
  byHandNew.replace(byHandNew.find(line), line.size(),
                    "t->value >= m->limit ? m->limit - 1 : t->value");
  writeText(t.path / "in.txt", "5 limit 7 2 add print 5 dup mul print\n");
  writeText(t.path / "old" / "interp.c", byHand);
  writeText(t.path / "new" / "interp.c", byHandNew);
  ProcessResult r = runRootline({"--json", "debug", "--old", (t.path / "old").string(), "--new",
                                 (t.path / "new").string(), "--src", "interp.c", "--stdin",
                                 (t.path / "in.txt").string()});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  nlohmann::json rep = nlohmann::json::parse(r.out);
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["evidence_level"] == "runs");
  CHECK(rep["local_darwin"].is_null());

  TempDir u;
  nlohmann::json never = debugInterp(u, "never", u.path / "report");
  CHECK(never["local_darwin"].is_null());
  CHECK(never["candidates"][0]["local_alternative"].is_null());
}

TEST_CASE("a function that keeps its state in globals gets a differential unit test and local "
          "Darwin over those globals, and the harness prints on both versions what the report "
          "says",
          "[debug][localdarwin]") {
  // As in many GNU tools, push() takes no argument: it reads `tok` and `limit` and
  // writes `stack`, all globals. What it only writes is part of what it leaves.
  const char *oldSrc = R"(#include <stdio.h>
#include <stdlib.h>
static int limit = 1000;
static int sp;
static int stack[16];
static int tok; /* the number the lexer read last */

static int lex(const char *w) {
  if (w[0] < '0' || w[0] > '9')
    return 0;
  tok = (int)strtod(w, NULL);
  return 1;
}

/* Pushes the number just read, capped at the limit. */
static int push(void) {
  if (sp >= 16)
    return 0;
  stack[sp++] = tok > limit ? limit : tok;
  return 1;
}

int main(void) {
  char word[32];
  while (scanf("%31s", word) == 1) {
    if (word[0] == 'L' && sp > 0) {
      limit = stack[--sp];
      continue;
    }
    if (!lex(word) || !push()) {
      printf("error at '%s'\n", word);
      return 1;
    }
  }
  for (int i = 0; i < sp; ++i)
    printf("%d\n", stack[i]);
  return 0;
}
)";
  std::string newSrc = oldSrc;
  const std::string from = "tok > limit ? limit : tok";
  newSrc.replace(newSrc.find(from), from.size(), "tok >= limit ? limit - 1 : tok");
  TempDir t;
  fs::path out = t.path / "report";
  writeText(t.path / "in.txt", "5 L 7 2\n");
  writeText(t.path / "old" / "push.c", oldSrc);
  writeText(t.path / "new" / "push.c", newSrc);
  ProcessResult r = runRootline({"--json", "debug", "--old", (t.path / "old").string(), "--new",
                                 (t.path / "new").string(), "--src", "push.c", "--stdin",
                                 (t.path / "in.txt").string(), "--local-darwin", "always", "--out",
                                 out.string()});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  nlohmann::json rep = nlohmann::json::parse(r.out);
  REQUIRE(rep["unit_test"].is_object());
  CHECK(rep["unit_test"]["call"] == "push()");
  REQUIRE(rep["local_darwin"].is_object());
  const nlohmann::json &ld = rep["local_darwin"];
  INFO(ld.dump());
  CHECK(ld["function"] == "push");
  std::vector<std::string> names;
  for (const auto &in : ld["inputs"])
    names.push_back(in["name"]);
  CHECK(names == std::vector<std::string>{"limit", "sp", "tok"});
  // Apart from rootline: the carved call pushes 7 against the limit 5.
  fs::path harness = out / ld["harness"].get<std::string>();
  REQUIRE(fs::exists(harness));
  std::string carved = ld["stdin"];
  ProcessResult o = harnessRun(harness, t.path / "old" / "push.c", t.path / "h-old", carved);
  ProcessResult n = harnessRun(harness, t.path / "new" / "push.c", t.path / "h-new", carved);
  CHECK(o.out == ld["old_result"].get<std::string>());
  CHECK(n.out == ld["new_result"].get<std::string>());
  CHECK(o.out.find("leaves stack[0] = 5\n") != std::string::npos);
  CHECK(n.out.find("leaves stack[0] = 4\n") != std::string::npos);
  // The alternative the report ran: the limit itself, where the versions part.
  REQUIRE_FALSE(ld["alternatives"].empty());
  const nlohmann::json &alt = ld["alternatives"][0];
  CHECK(alt["changes"] == nlohmann::json::array({"tok: 7 → 5"}));
  std::string stdinText = alt["stdin"];
  ProcessResult ao = harnessRun(harness, t.path / "old" / "push.c", t.path / "a-old", stdinText);
  ProcessResult an = harnessRun(harness, t.path / "new" / "push.c", t.path / "a-new", stdinText);
  CHECK(ao.out == alt["old_result"].get<std::string>());
  CHECK(an.out == alt["new_result"].get<std::string>());
}

TEST_CASE("local Darwin leaves out a call that runs most of a long run, and says how much of "
          "the run it is",
          "[debug][localdarwin][long]") {
  // An insertion sort of 4000 readings called once from main: 3.0e7 instructions, the
  // sort nearly all of them. The whole-program composition does not finish; composing
  // at the sort would not either.
  fs::path dir = fixturesDir() / "regressions" / "stress_insertion_sort";
  ProcessResult r =
      runRootline({"--json", "debug", "--old", (dir / "old" / "main.c").string(), "--new",
                   (dir / "new" / "main.c").string(), "--stdin", (dir / "input.txt").string()});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  nlohmann::json rep = nlohmann::json::parse(r.out);
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["line"] == 20);
  CHECK(rep["local_darwin"].is_null());
  std::string note;
  for (const auto &s : rep["stages"])
    if (s["name"] == "local darwin")
      note = s.value("note", "");
  INFO(note);
  std::smatch m;
  REQUIRE(std::regex_search(note, m,
                            std::regex("call 1 of `insertion_sort` runs ([0-9]+) of the new "
                                       "run's ([0-9]+) instances: composing there is no smaller "
                                       "than the whole program")));
  // True of the run: the sort is at least half of it, and the run is what the trace
  // stage replayed.
  uint64_t call = std::stoull(m[1].str()), run = std::stoull(m[2].str());
  CHECK(call * 2 >= run);
  CHECK(call < run);
  CHECK(run > 10000000);
}

TEST_CASE("a call that grows a carved object with realloc gets local Darwin and a differential "
          "unit test, two runs of one version leave the same state",
          "[debug][localdarwin]") {
  // add() moves the 16-byte array it was given. Freed by realloc, the old object's
  // bytes would hold glibc's tcache key, which is random in every process.
  const char *oldSrc = R"(#include <stdio.h>
#include <stdlib.h>
struct list { int *items; int n, cap; };

static int add(struct list *l, int v) {
  if (l->n == l->cap) {
    l->cap *= 2;
    l->items = realloc(l->items, l->cap * sizeof *l->items);
    if (!l->items)
      return 0;
  }
  l->items[l->n++] = v > 100 ? 100 : v;
  return 1;
}

int main(void) {
  struct list l = {malloc(4 * sizeof(int)), 0, 4};
  char word[32];
  while (scanf("%31s", word) == 1)
    if (!add(&l, (int)strtod(word, NULL)))
      return 1;
  for (int i = 0; i < l.n; ++i)
    printf("%d\n", l.items[i]);
  free(l.items);
  return 0;
}
)";
  std::string newSrc = oldSrc;
  const std::string from = "v > 100 ? 100 : v";
  newSrc.replace(newSrc.find(from), from.size(), "v >= 100 ? 99 : v");
  TempDir t;
  fs::path out = t.path / "report";
  writeText(t.path / "in.txt", "1 2 3 4 150\n");
  writeText(t.path / "old" / "list.c", oldSrc);
  writeText(t.path / "new" / "list.c", newSrc);
  ProcessResult r = runRootline({"--json", "debug", "--old", (t.path / "old").string(), "--new",
                                 (t.path / "new").string(), "--src", "list.c", "--stdin",
                                 (t.path / "in.txt").string(), "--local-darwin", "always", "--out",
                                 out.string()});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  nlohmann::json rep = nlohmann::json::parse(r.out);
  std::string notes = stageNotes(rep);
  INFO(notes); // before: "no local Darwin: … the program is nondeterministic …"
  REQUIRE(rep["local_darwin"].is_object());
  const nlohmann::json &ld = rep["local_darwin"];
  INFO(ld.dump());
  CHECK(ld["function"] == "add");
  REQUIRE(rep["unit_test"].is_object());
  CHECK(rep["unit_test"]["call"].get<std::string>().starts_with("add("));
  // Apart from rootline: the harness moves the array and leaves the same on every run.
  fs::path harness = out / ld["harness"].get<std::string>();
  REQUIRE(fs::exists(harness));
  std::string carved = ld["stdin"];
  ProcessResult o1 = harnessRun(harness, t.path / "old" / "list.c", t.path / "h-old", carved);
  ProcessResult o2 = harnessRun(harness, t.path / "old" / "list.c", t.path / "h-old", carved);
  CHECK(o1.out == o2.out);
  CHECK(o1.out.find("(freed)") != std::string::npos);
  CHECK(o1.out == ld["old_result"].get<std::string>());
}
