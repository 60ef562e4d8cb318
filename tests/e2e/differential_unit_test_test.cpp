// The differential unit test (docs/debug.md, "Differential unit test"): one call of the
// rank-1 candidate's function, carved from the failing run and made again in a cmocka
// test that passes on the old version and fails on the new one. Checked here as a user
// would: the test written to --out is built against each version's own source, apart
// from rootline, and run.
#include "rootline/build.h"
#include "rootline/debug.h"
#include "rootline/differential_test.h"
#include "rootline/process.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <set>

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace rootline;
using namespace rootline::test;

namespace {

// A calculator whose input goes through a line lexer (sscanf) before it reaches the
// changed function, which takes the machine and the operation by pointer: the carved
// state is a local struct holding a pointer to a heap array, and a local op.
const char *kCalcOld = R"(#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct vm { int sp; int cap; int *stack; const char *name; };
struct op { char code; int arg; };
static int push(struct vm *vm, int v) {
  if (vm->sp >= vm->cap)
    return -1;
  vm->stack[vm->sp++] = v;
  return 0;
}
static int apply(struct vm *vm, const struct op *op) {
  if (op->code == 'p')
    return push(vm, op->arg);
  if (vm->sp < 2)
    return -1;
  int a = vm->stack[vm->sp - 2], b = vm->stack[vm->sp - 1];
  switch (op->code) {
  case '+': vm->stack[vm->sp - 2] = a + b; break;
  case '*': vm->stack[vm->sp - 2] = a * b; break;
  case '-': vm->stack[vm->sp - 2] = a - b; break;
  default: return -1;
  }
  vm->sp--;
  return 0;
}
int main(void) {
  struct vm vm = {0, 8, malloc(8 * sizeof(int)), "calc"};
  char line[64];
  while (fgets(line, sizeof line, stdin)) {
    struct op op = {0, 0};
    if (sscanf(line, "push %d", &op.arg) == 1)
      op.code = 'p';
    else
      op.code = line[0];
    if (apply(&vm, &op) != 0) {
      printf("error\n");
      return 1;
    }
  }
  printf("%d\n", vm.sp ? vm.stack[vm.sp - 1] : 0);
  free(vm.stack);
  return 0;
}
)";

// Shapes whose area functions are `static` in shapes.c, reached only through each
// shape's `area` field.
const char *kShapesHeader =
    R"(struct shape { const char *name; double (*area)(const struct shape *); double w, h; };
void make_shape(struct shape *s, const char *kind, double w, double h);
)";
const char *kShapes = R"(#include <string.h>
#include "shapes.h"
static double rect_area(const struct shape *s) { return s->w * s->h; }
static double tri_area(const struct shape *s) { return s->w * s->h / 2; }
void make_shape(struct shape *s, const char *kind, double w, double h) {
  s->name = kind;
  s->area = strcmp(kind, "tri") == 0 ? tri_area : rect_area;
  s->w = w;
  s->h = h;
}
)";

std::string calcNew() {
  std::string s = kCalcOld;
  const std::string from = "case '-': vm->stack[vm->sp - 2] = a - b;";
  s.replace(s.find(from), from.size(), "case '-': vm->stack[vm->sp - 2] = b - a;");
  return s;
}

// Builds the test written to --out against one version's main.c, as its header says:
// the unit's own file included, cmocka, free() wrapped.
// Run as a shell runs it (address randomization on), or as gdb does (`fixed`).
ProcessResult buildAndRun(const fs::path &test, const fs::path &unit, const fs::path &exe,
                          bool fixed = false) {
  ProcessSpec build;
  build.argv = {clangPath(),   "-O0",
                "-w",          "-DRL_UNIT_SOURCE=\"" + unit.string() + "\"",
                test.string(), "-Wl,--wrap=free",
                "-lcmocka",    "-o",
                exe.string()};
  ProcessResult b = runProcess(build);
  INFO(b.err);
  REQUIRE(b.exitedWith(0));
  ProcessSpec run;
  run.argv = {exe.string()};
  run.timeoutSeconds = 30;
  run.noAddressRandomization = fixed;
  return runProcess(run);
}

// `rootline --json debug` of two one-file versions (old/main.c, new/main.c) on `input`,
// with the report's files in `out`: its JSON report.
nlohmann::json debugOneFile(const TempDir &t, const std::string &oldSrc, const std::string &newSrc,
                            const std::string &input, const fs::path &out,
                            const std::vector<std::string> &extra = {}) {
  writeText(t.path / "in.txt", input);
  writeText(t.path / "old" / "main.c", oldSrc);
  writeText(t.path / "new" / "main.c", newSrc);
  std::vector<std::string> args = {"--json",  "debug",
                                   "--old",   (t.path / "old" / "main.c").string(),
                                   "--new",   (t.path / "new" / "main.c").string(),
                                   "--stdin", (t.path / "in.txt").string(),
                                   "--out",   out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  ProcessResult r = runRootline(args);
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  return nlohmann::json::parse(r.out);
}

// Debugs two one-file versions compiled with `-std=c11` (strict C: no POSIX unless the
// file asks for it), on the input "5".
DebugReport debugUnderC11(const TempDir &t, const std::string &oldMain,
                          const std::string &newMain) {
  DebugRequest req = twoVersions(t.path, oldMain, newMain, "5\n");
  for (BuildRecipe *r : {&req.oldRecipe, &req.newRecipe})
    r->units[0].flags = {"-std=c11"};
  return debugRegression(req);
}

} // namespace

TEST_CASE("a differential unit test of a function taking structs by pointer is carved from the "
          "failing run, written to --out, it passes on the old version and fails on the new one",
          "[debug][unittest]") {
  TempDir t;
  fs::path out = t.path / "report";
  nlohmann::json rep = debugOneFile(t, kCalcOld, calcNew(), "push 10\npush 4\n-\npush 2\n*\n", out);
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["function"] == "apply");
  REQUIRE(rep["unit_test"].is_object());
  const nlohmann::json &u = rep["unit_test"];
  CHECK(u["function"] == "apply");
  CHECK(u["occurrence"] == 3); // push, push, then the subtraction
  CHECK(u["call"] == "apply(vm = a 24-byte local, op = an 8-byte local)");
  CHECK(u["passes_old"] == true);
  CHECK(u["fails_new"] == true);
  // The machine's stack array (a heap object the local struct points to) holds 6 after
  // the old subtraction and -6 after the new one; both return 0.
  std::string summary = u["summary"].get<std::string>();
  CHECK(summary.find("both versions return 0, but they leave different bytes in object") !=
        std::string::npos);
  CHECK(rep["candidates"][0]["unit_test"] == u["summary"]);
  const nlohmann::json &runnable = rep["candidates"][0]["runnable_evidence"];
  CHECK(std::find(runnable.begin(), runnable.end(), "unit test") != runnable.end());
  fs::path test = out / u["file"].get<std::string>();
  REQUIRE(fs::exists(test));

  // The Markdown report shows the state's lines that differ and folds the whole state.
  std::string md = readFile(out / "report.md");
  size_t at = md.find("### Differential unit test");
  REQUIRE(at != std::string::npos);
  std::string section = md.substr(at, md.find("\n### ", at) - at);
  INFO(section);
  size_t fold = section.find("<details>");
  REQUIRE(fold != std::string::npos);
  std::string shown = section.substr(0, fold);
  CHECK(shown.find("line(s) alike are left out") != std::string::npos);
  CHECK(shown.find("returns 0") == std::string::npos); // alike: only in the fold
  CHECK(section.find("returns 0", fold) != std::string::npos);
  CHECK(shown.find("06 00 00 00") != std::string::npos); // the old stack's 6
  CHECK(shown.find("fa ff ff ff") != std::string::npos); // the new one's -6

  // Apart from rootline: the test with each version's file.
  ProcessResult onOld = buildAndRun(test, t.path / "old" / "main.c", t.path / "t-old");
  INFO(onOld.out << onOld.err);
  CHECK(onOld.exitedWith(0));
  ProcessResult onNew = buildAndRun(test, t.path / "new" / "main.c", t.path / "t-new");
  INFO(onNew.out << onNew.err);
  CHECK_FALSE(onNew.exitedWith(0));
  CHECK(onNew.out.find("FAILED") != std::string::npos);
}

TEST_CASE("a warm cache builds no differential unit test again, and the test says the same",
          "[debug][unittest][cache]") {
  TempDir t;
  writeText(t.path / "in.txt", "push 10\npush 4\n-\npush 2\n*\n");
  writeText(t.path / "old" / "main.c", kCalcOld);
  writeText(t.path / "new" / "main.c", calcNew());
  OwnCacheDir cache(t.path / "cache");
  auto debugOnce = [&] {
    ProcessResult r = runRootline({"--json", "debug", "--old", (t.path / "old" / "main.c").string(),
                                   "--new", (t.path / "new" / "main.c").string(), "--stdin",
                                   (t.path / "in.txt").string()});
    INFO(r.err);
    REQUIRE(r.exitedWith(0));
    return nlohmann::json::parse(r.out)["unit_test"];
  };
  auto executables = [&] {
    std::set<std::string> names;
    for (const auto &e : fs::recursive_directory_iterator(t.path / "cache" / "build" / "exe"))
      if (e.is_regular_file() && e.path().filename() == "program")
        names.insert(e.path().string() + "@" +
                     std::to_string(e.last_write_time().time_since_epoch().count()));
    return names;
  };
  nlohmann::json first = debugOnce();
  REQUIRE(first.is_object());
  REQUIRE(first["fails_new"] == true);
  // The recorder and the test, each against both versions, are in the cache.
  size_t sources = 0;
  for (const auto &e : fs::directory_iterator(t.path / "cache" / "differential-test"))
    sources += fs::exists(e.path() / "test.c");
  CHECK(sources == 2);
  std::set<std::string> before = executables();
  nlohmann::json second = debugOnce();
  CHECK(executables() == before); // nothing built, nothing rewritten
  CHECK(second["summary"] == first["summary"]);
  CHECK(second["passes_old"] == true);
  CHECK(second["fails_new"] == true);
}

TEST_CASE("no differential unit test for a changed function that takes a struct by value, the "
          "unit test stage says why",
          "[debug][unittest]") {
  TempDir t;
  const std::string oldMain = R"(#include <stdio.h>
struct pair { int a, b; };
static int total(struct pair p) { return p.a + p.b; }
int main(void) {
  struct pair p;
  if (scanf("%d %d", &p.a, &p.b) != 2) return 1;
  printf("%d\n", total(p));
  return 0;
}
)";
  std::string newMain = oldMain;
  newMain.replace(newMain.find("p.a + p.b"), 9, "p.a - p.b");
  DebugReport rep = debugRegression(twoVersions(t.path, oldMain, newMain, "3 4\n"));
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].function == "total");
  CHECK_FALSE(rep.unitTest);
  auto stage = std::find_if(rep.stages.begin(), rep.stages.end(),
                            [](const StageRecord &s) { return s.name == "unit test"; });
  REQUIRE(stage != rep.stages.end());
  CHECK(stage->note.find("takes a struct by value") != std::string::npos);
}

TEST_CASE("the call recorder's output is read back per call", "[unittest]") {
  auto calls = recordedCalls("=== call 3 ===\nreturns 1\no0: 01 02\n=== call 7 ===\n"
                             "ends with signal 11\n=== call 9 ===\n");
  REQUIRE(calls.size() == 3);
  CHECK(calls[3] == "returns 1\no0: 01 02\n");
  CHECK(calls[7] == "ends with signal 11\n");
  CHECK(calls[9].empty());
}

TEST_CASE("the unit's -D and -std flags are kept in its debug information, so its differential "
          "unit test compiles as the build did",
          "[debug][unittest]") {
  TempDir t;
  const std::string oldMain = R"(#include <stdio.h>
static int scaled(int x) { return x * SCALE + OFFSET; }
int main(void) {
  int x;
  if (scanf("%d", &x) != 1) return 1;
  printf("%d\n", scaled(x));
  return 0;
}
)";
  std::string newMain = oldMain;
  newMain.replace(newMain.find("x * SCALE + OFFSET"), 18, "x * SCALE - OFFSET");
  DebugRequest req = twoVersions(t.path, oldMain, newMain, "5\n");
  for (BuildRecipe *r : {&req.oldRecipe, &req.newRecipe})
    r->units[0].flags = {"-std=c99", "-DSCALE=3", "-D", "OFFSET=(1 + 1)"}; // strict C: no POSIX
  DebugReport rep = debugRegression(req);
  REQUIRE_FALSE(rep.candidates.empty());
  REQUIRE(rep.unitTest);
  CHECK(rep.unitTest->call == "scaled(x = 5)");
  CHECK(rep.unitTest->oldResult == "returns 17\n");
  CHECK(rep.unitTest->newResult == "returns 13\n");
}

TEST_CASE("a unit that gcc builds with a warning and clang 19 calls an error (getopt undeclared "
          "under -std=c11) is traced and gets its differential unit test",
          "[debug][unittest]") {
  // make_pipeline's csvsum: `-std=c11` hides getopt's declaration in <unistd.h>; gcc
  // warns about the implicit declaration, clang 16 and later refuse it by default.
  TempDir t;
  const std::string oldMain = R"(#include <stdio.h>
#include <unistd.h>
static int scaled(int x) { return x * 3 + 2; }
int main(int argc, char **argv) {
  int opt, loud = 0;
  while ((opt = getopt(argc, argv, "l")) != -1)
    if (opt == 'l')
      loud = 1;
  int x;
  if (scanf("%d", &x) != 1) return 1;
  printf("%d%s\n", scaled(x), loud ? "!" : "");
  return 0;
}
)";
  std::string newMain = oldMain;
  newMain.replace(newMain.find("x * 3 + 2"), 9, "x * 3 - 2");
  DebugReport rep = debugUnderC11(t, oldMain, newMain);
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].line == 3);
  REQUIRE(rep.unitTest);
  CHECK(rep.unitTest->call == "scaled(x = 5)");
  CHECK(rep.unitTest->oldResult == "returns 17\n");
  CHECK(rep.unitTest->newResult == "returns 13\n");
}

TEST_CASE("a unit that asks for POSIX with its own feature macro above its includes (optarg "
          "under -std=c11) gets its differential unit test",
          "[debug][unittest]") {
  // The test includes the unit's file: nothing of libc may be included before it, or
  // the unit's `#define _POSIX_C_SOURCE` comes too late to declare optarg.
  TempDir t;
  const std::string oldMain = R"(#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static int scaled(int x, int by) { return x * by + 2; }
int main(int argc, char **argv) {
  int opt, by = 3;
  while ((opt = getopt(argc, argv, "b:")) != -1)
    if (opt == 'b')
      by = atoi(optarg);
  int x;
  if (scanf("%d", &x) != 1) return 1;
  printf("%d\n", scaled(x, by));
  return 0;
}
)";
  std::string newMain = oldMain;
  newMain.replace(newMain.find("x * by + 2"), 10, "x * by - 2");
  DebugReport rep = debugUnderC11(t, oldMain, newMain);
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].line == 5);
  REQUIRE(rep.unitTest);
  CHECK(rep.unitTest->call == "scaled(x = 5, by = 3)");
  CHECK(rep.unitTest->oldResult == "returns 17\n");
  CHECK(rep.unitTest->newResult == "returns 13\n");
}

TEST_CASE("a changed function that reads a read-only table: the test leaves the table to the "
          "program (it cannot be written) and still tells the versions apart",
          "[debug][unittest]") {
  TempDir t;
  const std::string oldMain = R"(#include <stdio.h>
static const int table[] = {5, 7, 9, 11};
static int price(int k) { return table[k] * 2; }
int main(void) {
  int k;
  if (scanf("%d", &k) != 1 || k < 0 || k > 3) return 1;
  printf("%d\n", price(k));
  return 0;
}
)";
  std::string newMain = oldMain;
  newMain.replace(newMain.find("table[k] * 2;"), 13, "table[k] * 2 + 1;");
  DebugReport rep = debugRegression(twoVersions(t.path, oldMain, newMain, "2\n"));
  REQUIRE(rep.unitTest);
  CHECK(rep.unitTest->call == "price(k = 2)");
  CHECK(rep.unitTest->oldResult.starts_with("returns 18\n"));
  CHECK(rep.unitTest->newResult.starts_with("returns 19\n"));
}

TEST_CASE("a changed function that returns a string literal is compared by the string",
          "[debug][unittest]") {
  TempDir t;
  const std::string oldMain = R"(#include <stdio.h>
static const char *grade(int score) {
  if (score >= 80)
    return "B";
  return "C";
}
int main(void) {
  int s;
  while (scanf("%d", &s) == 1)
    printf("%s\n", grade(s));
  return 0;
}
)";
  std::string newMain = oldMain;
  newMain.replace(newMain.find("score >= 80"), 11, "score > 80");
  DebugReport rep = debugRegression(twoVersions(t.path, oldMain, newMain, "95 80 72\n"));
  REQUIRE(rep.unitTest);
  CHECK(rep.unitTest->call == "grade(score = 80)");
  CHECK(rep.unitTest->oldResult == "returns \"B\"\n");
  CHECK(rep.unitTest->newResult == "returns \"C\"\n");
}

TEST_CASE("a comparator that qsort calls (entered from uninstrumented code) is carved with its "
          "arguments, and gets a differential unit test",
          "[debug][unittest]") {
  TempDir t;
  const std::string oldMain = R"(#include <stdio.h>
#include <stdlib.h>
struct rec { int key; int id; };
static int by_key(const void *x, const void *y) {
  const struct rec *a = x, *b = y;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}
int main(void) {
  struct rec r[16];
  int n = 0;
  while (n < 16 && scanf("%d %d", &r[n].key, &r[n].id) == 2)
    n++;
  qsort(r, n, sizeof r[0], by_key);
  for (int i = 0; i < n; i++)
    printf("%d ", r[i].id);
  printf("\n");
  return 0;
}
)";
  std::string newMain = oldMain;
  const std::string tie = "return a->id < b->id ? -1 : a->id > b->id;";
  newMain.replace(newMain.find(tie), tie.size(), "return a->id > b->id ? -1 : a->id < b->id;");
  DebugReport rep = debugRegression(twoVersions(t.path, oldMain, newMain, "3 1\n1 2\n3 3\n2 4\n"));
  REQUIRE_FALSE(rep.candidates.empty());
  CHECK(rep.candidates[0].function == "by_key");
  REQUIRE(rep.unitTest);
  CHECK(rep.unitTest->function == "by_key");
  CHECK(rep.unitTest->call.find("by_key(x = ") == 0);
  CHECK(rep.unitTest->passesOld);
  CHECK(rep.unitTest->failsNew);
  // Two records of key 3 compared: the old order of their ids, and the reversed one.
  CHECK(rep.unitTest->oldResult != rep.unitTest->newResult);
}

TEST_CASE("a changed function that reads a static table of another unit: the test reaches the "
          "program's own table through the alias the program's rest gives it, and tells the "
          "versions apart",
          "[debug][unittest]") {
  // The keyword table is `static` in kw.c; the changed function, in main.c, reads it
  // through the pointer kw_table() returned.
  TempDir t;
  const std::string kw = R"(#include "kw.h"
static const struct kw keywords[] = {{"begin", 1}, {"end", 2}, {"print", 3}, {"while", 4}};
const struct kw *kw_table(int *n) {
  *n = (int)(sizeof keywords / sizeof keywords[0]);
  return keywords;
}
)";
  const std::string header = R"(struct kw { const char *name; int code; };
const struct kw *kw_table(int *n);
)";
  const std::string oldMain = R"(#include <stdio.h>
#include <string.h>
#include "kw.h"
static int code_of(const struct kw *t, int n, const char *word) {
  for (int i = 0; i < n; i++)
    if (strcmp(t[i].name, word) == 0)
      return t[i].code;
  return 0;
}
int main(void) {
  char word[32];
  int n;
  const struct kw *t = kw_table(&n);
  while (scanf("%31s", word) == 1)
    printf("%s %d\n", word, code_of(t, n, word));
  return 0;
}
)";
  std::string newMain = oldMain;
  newMain.replace(newMain.find("for (int i = 0; i < n; i++)"), 27, "for (int i = 1; i < n; i++)");
  for (const char *side : {"old", "new"}) {
    writeText(t.path / side / "kw.c", kw);
    writeText(t.path / side / "kw.h", header);
    writeText(t.path / side / "main.c", std::string(side) == "old" ? oldMain : newMain);
  }
  writeText(t.path / "in.txt", "print begin\n");
  ProcessResult r =
      runRootline({"--json", "debug", "--old", (t.path / "old").string(), "--new",
                   (t.path / "new").string(), "--src", "main.c", "kw.c", "--stdin",
                   (t.path / "in.txt").string(), "--out", (t.path / "report").string()});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  nlohmann::json rep = nlohmann::json::parse(r.out);
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["function"] == "code_of");
  INFO(rep["stages"].dump());
  REQUIRE(rep["unit_test"].is_object());
  CHECK(rep["unit_test"]["function"] == "code_of");
  CHECK(rep["unit_test"]["passes_old"] == true);
  CHECK(rep["unit_test"]["fails_new"] == true);
  std::string text = readFile(t.path / "report" / rep["unit_test"]["file"].get<std::string>());
  CHECK(text.find("&keywords") == std::string::npos);
  CHECK(text.find("__asm__(\"rl_static.keywords\")") != std::string::npos);
}

TEST_CASE("a changed function that calls through function pointers (a callback argument, a "
          "struct's method) gets the same functions in its differential unit test",
          "[debug][unittest]") {
  // The area functions are `static` in shapes.c, reached only through each shape's
  // `area` field; the changed function also takes the formatter as a callback.
  TempDir t;
  const std::string oldMain = R"(#include <stdio.h>
#include "shapes.h"
static int cents(double x) { return (int)(x * 100 + 0.5); }
static int priced(const struct shape *s, double rate, int (*round_to)(double)) {
  return round_to(s->area(s) * rate);
}
int main(void) {
  char kind[16];
  double w, h;
  struct shape s;
  while (scanf("%15s %lf %lf", kind, &w, &h) == 3) {
    make_shape(&s, kind, w, h);
    printf("%s %d\n", kind, priced(&s, 1.5, cents));
  }
  return 0;
}
)";
  std::string newMain = oldMain;
  newMain.replace(newMain.find("s->area(s) * rate"), 17, "s->area(s) * rate * rate");
  for (const char *side : {"old", "new"}) {
    writeText(t.path / side / "shapes.c", kShapes);
    writeText(t.path / side / "shapes.h", kShapesHeader);
    writeText(t.path / side / "main.c", std::string(side) == "old" ? oldMain : newMain);
  }
  writeText(t.path / "in.txt", "tri 3 4\n");
  ProcessResult r =
      runRootline({"--json", "debug", "--old", (t.path / "old").string(), "--new",
                   (t.path / "new").string(), "--src", "main.c", "shapes.c", "--stdin",
                   (t.path / "in.txt").string(), "--out", (t.path / "report").string()});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  nlohmann::json rep = nlohmann::json::parse(r.out);
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["function"] == "priced");
  INFO(rep["stages"].dump());
  REQUIRE(rep["unit_test"].is_object());
  CHECK(rep["unit_test"]["call"] ==
        "priced(s = a 32-byte local, rate = a floating-point value, round_to = `cents`)");
  CHECK(rep["unit_test"]["old_result"].get<std::string>().starts_with("returns 900\n"));
  CHECK(rep["unit_test"]["new_result"].get<std::string>().starts_with("returns 1350\n"));
  CHECK(rep["unit_test"]["passes_old"] == true);
  CHECK(rep["unit_test"]["fails_new"] == true);
  // tri_area, static in shapes.c, through the alias the program's rest gives it.
  std::string text = readFile(t.path / "report" / rep["unit_test"]["file"].get<std::string>());
  CHECK(text.find("rl_static.tri_area") != std::string::npos);
}

TEST_CASE("a callback the change renamed (static in another unit) is reached in the other "
          "version under its old name, so the differential unit test links against both",
          "[debug][unittest]") {
  // The new version renames tri_area, static in shapes.c, to triangle_area; the call is
  // carved from the new run, whose shape points at triangle_area.
  TempDir t;
  std::string newShapes = kShapes;
  for (size_t at; (at = newShapes.find("tri_area")) != std::string::npos;)
    newShapes.replace(at, 8, "triangle_area");
  const std::string oldMain = R"(#include <stdio.h>
#include "shapes.h"
static int priced(const struct shape *s, double rate) {
  return (int)(s->area(s) * rate + 0.5);
}
int main(void) {
  char kind[16];
  double w, h;
  struct shape s;
  while (scanf("%15s %lf %lf", kind, &w, &h) == 3) {
    make_shape(&s, kind, w, h);
    printf("%s %d\n", kind, priced(&s, 150));
  }
  return 0;
}
)";
  std::string newMain = oldMain;
  newMain.replace(newMain.find("s->area(s) * rate + 0.5"), 23, "s->area(s) * rate");
  // Two commits: git's diff over both files gives the change's renames.
  fs::path repo = t.path / "repo";
  fs::create_directories(repo);
  REQUIRE(git(repo, {"init", "-q"}).exitedWith(0));
  for (bool old : {true, false}) {
    writeText(repo / "shapes.c", old ? kShapes : newShapes);
    writeText(repo / "shapes.h", kShapesHeader);
    writeText(repo / "main.c", old ? oldMain : newMain);
    REQUIRE(git(repo, {"add", "-A"}).exitedWith(0));
    REQUIRE(git(repo, {"commit", "-qm", old ? "old" : "new"}).exitedWith(0));
  }
  writeText(t.path / "in.txt", "tri 3 0.5\n");
  ProcessResult r =
      runRootline({"--json", "debug", "--repo", repo.string(), "--good", "HEAD~1", "--bad", "HEAD",
                   "--src", "main.c", "shapes.c", "--stdin", (t.path / "in.txt").string(), "--out",
                   (t.path / "report").string()});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  nlohmann::json rep = nlohmann::json::parse(r.out);
  REQUIRE_FALSE(rep["candidates"].empty());
  CHECK(rep["candidates"][0]["function"] == "priced");
  INFO(rep["stages"].dump());
  REQUIRE(rep["unit_test"].is_object());
  CHECK(rep["unit_test"]["call"] == "priced(s = a 32-byte local, rate = a floating-point value)");
  CHECK(rep["unit_test"]["passes_old"] == true);
  CHECK(rep["unit_test"]["fails_new"] == true);
  std::string text = readFile(t.path / "report" / rep["unit_test"]["file"].get<std::string>());
  CHECK(text.find("rl_static.triangle_area") != std::string::npos);
}

TEST_CASE("a function that ends the process on the old version (a refused value) and returns on "
          "the new one gets a differential unit test that expects that end",
          "[debug][unittest]") {
  // The change widens the range parse_level accepts: "150" was refused (exit 2), now it
  // is added. Interpreters raise errors the same way, with no handler set in the test:
  // Lua's luaL_error aborts.
  const char *oldSrc = R"(#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A level is a number from 0 to 99. */
static int parse_level(const char *text) {
  char *end;
  long v = strtol(text, &end, 10);
  if (*end != '\0' || v < 0 || v > 99) {
    fprintf(stderr, "invalid level '%s'\n", text);
    exit(2);
  }
  return (int)v;
}

int main(void) {
  char line[64];
  int total = 0;
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\n")] = '\0';
    char *eq = strchr(line, '=');
    if (eq)
      total += parse_level(eq + 1);
  }
  printf("total %d\n", total);
  return 0;
}
)";
  std::string newSrc = oldSrc;
  newSrc.replace(newSrc.find("v > 99)"), 7, "v > 999)");
  TempDir t;
  fs::path out = t.path / "report";
  nlohmann::json rep =
      debugOneFile(t, oldSrc, newSrc, "a=5\nb=150\n", out, {"--local-darwin", "always"});
  std::string notes = stageNotes(rep);
  INFO(notes); // before: "none of the 2 carved calls … (1 do not return on the old version's code)"
  REQUIRE(rep["unit_test"].is_object());
  const nlohmann::json &u = rep["unit_test"];
  CHECK(u["function"] == "parse_level");
  CHECK(u["occurrence"] == 2);
  CHECK(u["old_result"] == "ends with exit 2\n");
  CHECK(u["new_result"].get<std::string>().starts_with("returns 150\n"));
  CHECK(u["summary"].get<std::string>().find(
            "the old version ends with exit 2, the new one returns 150") != std::string::npos);
  // Local Darwin's harness says how the old version's call ended, not "does nothing more".
  REQUIRE(rep["local_darwin"].is_object());
  CHECK(rep["local_darwin"]["old_result"] == "ends with exit 2\n");
  CHECK(rep["local_darwin"]["new_result"].get<std::string>().starts_with("returns 150\n"));
  // Apart from rootline: the test expects the end on the old version's file and sees the
  // new one return.
  fs::path test = out / u["file"].get<std::string>();
  REQUIRE(fs::exists(test));
  ProcessResult onOld = buildAndRun(test, t.path / "old" / "main.c", t.path / "t-old");
  INFO(onOld.out << onOld.err);
  CHECK(onOld.exitedWith(0));
  ProcessResult onNew = buildAndRun(test, t.path / "new" / "main.c", t.path / "t-new");
  INFO(onNew.out << onNew.err);
  CHECK_FALSE(onNew.exitedWith(0));
  CHECK(onNew.out.find("FAILED") != std::string::npos);
}

TEST_CASE(
    "a carved state that holds addresses the test does not rebuild (a freed buffer and a list "
    "past the carving's depth) gives a test that passes on the old version on every run",
    "[debug][unittest]") {
  // tally() reads the first two nodes of a list of eight; the bag also keeps a pointer
  // to a buffer freed before the call. Those addresses are the traced run's: in the
  // test's process, laid out anew on every run, they mean nothing, and a test that
  // compared their bytes failed on the old version when run by hand (mujs's compile()).
  const char *oldSrc = R"(#include <stdio.h>
#include <stdlib.h>
struct node { int v; struct node *next; };
struct bag { int count; int sum; struct node *head; char *scratch; };
static void tally(struct bag *b) {
  int s = 0, n = 0;
  for (struct node *p = b->head; p && n < 2; p = p->next, ++n)
    s += p->v;
  b->sum = s;
  b->count = n;
}
int main(void) {
  struct bag b = {0, 0, NULL, malloc(64)};
  free(b.scratch);
  int v;
  while (scanf("%d", &v) == 1) {
    struct node *n = malloc(sizeof *n);
    n->v = v;
    n->next = b.head;
    b.head = n;
  }
  tally(&b);
  printf("%d %d\n", b.count, b.sum);
  return 0;
}
)";
  std::string newSrc = oldSrc;
  newSrc.replace(newSrc.find("n < 2;"), 6, "n < 3;");
  TempDir t;
  fs::path out = t.path / "report";
  nlohmann::json rep = debugOneFile(t, oldSrc, newSrc, "1 2 3 4 5 6 7 8\n", out);
  std::string notes = stageNotes(rep);
  INFO(notes);
  REQUIRE(rep["unit_test"].is_object());
  CHECK(rep["unit_test"]["function"] == "tally");
  fs::path test = out / rep["unit_test"]["file"].get<std::string>();
  REQUIRE(fs::exists(test));
  // Apart from rootline, with address randomization and without (as under gdb): the
  // same verdict on every run.
  for (int run = 0; run < 4; ++run) {
    bool fixed = run == 3;
    ProcessResult onOld = buildAndRun(test, t.path / "old" / "main.c", t.path / "t-old", fixed);
    INFO("run " << run << ": " << onOld.out << onOld.err);
    CHECK(onOld.exitedWith(0));
    ProcessResult onNew = buildAndRun(test, t.path / "new" / "main.c", t.path / "t-new", fixed);
    INFO("run " << run << ": " << onNew.out << onNew.err);
    CHECK_FALSE(onNew.exitedWith(0));
    CHECK(onNew.out.find("FAILED") != std::string::npos);
  }
}
