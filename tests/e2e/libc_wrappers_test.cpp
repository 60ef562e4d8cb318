// Each libc wrapper, exercised by a real program under the tracer: the program behaves
// as natively, and each call instance carries exactly the effects the wrapper logs.
#include "rootline/replay.h"
#include "rootline/run.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <map>

using namespace rootline;
using namespace rootline::test;

namespace {

struct Call {
  std::string callee;
  std::vector<Operand> args;
  Val result;
  std::vector<Event> effects;
  std::vector<std::string>
      payloads; // copies of event bytes (the trace buffer dies with the reader)
};

struct CallCollector : ReplayObserver {
  std::vector<Call> calls;
  void onInstance(const Instance &i) override {
    if (!i.external)
      return;
    auto *cb = llvm::cast<llvm::CallBase>(i.inst);
    Call c;
    c.callee = cb->getCalledFunction() ? cb->getCalledFunction()->getName().str() : "<indirect>";
    c.args.assign(i.operands.begin(), i.operands.end());
    c.result = i.result;
    c.effects = i.effects;
    for (auto &e : c.effects) {
      c.payloads.emplace_back(e.bytes);
      e.bytes = {};
    }
    calls.push_back(std::move(c));
  }
  std::vector<const Call *> named(const std::string &name) const {
    std::vector<const Call *> out;
    for (const auto &c : calls)
      if (c.callee == name)
        out.push_back(&c);
    return out;
  }
};

struct Traced {
  ProcessResult process;
  ProcessResult native;
  CallCollector calls;
  ReplayResult replay;
};

Traced traceProgram(const std::string &source, const std::string &stdinText,
                    std::vector<std::string> args = {}) {
  TempDir t;
  BuildRecipe recipe = sourceRecipe(t.path / "prog.c", source);
  writeText(t.path / "in.txt", stdinText);
  TracedProgram p = buildTraced(recipe);
  TestCase test;
  test.stdinFile = t.path / "in.txt";
  test.args = args;
  Traced out;
  TracedRun run = runTraced(p, test, t.path / "run.trace");
  out.process = run.process;
  out.native = runNative(buildNative(recipe, p.module), test);
  LoadedModule m = loadModule(p.module.bitcode);
  ModuleIndex index(*m.module);
  TraceReader reader(run.trace, p.module.key);
  out.replay = replayTrace(*m.module, index, reader, &out.calls);
  REQUIRE(out.replay.outcome == RunOutcome::Exit);
  CHECK(out.process.out == out.native.out);
  CHECK(out.process.err == out.native.err);
  CHECK(out.process.outcome() == out.native.outcome());
  return out;
}

const Event *find(const Call &c, Ev tag, int nth = 0) {
  for (const auto &e : c.effects)
    if (e.tag == tag && nth-- == 0)
      return &e;
  return nullptr;
}

} // namespace

TEST_CASE("memory and string wrappers log what they read, write and copy", "[trace][libc]") {
  auto t = traceProgram(R"(
#include <stdlib.h>
#include <string.h>
int main(void) {
  char a[32] = "hello", b[32];
  strcpy(b, a);                 /* copy 6 */
  strncpy(b, "xy", 5);          /* copy 3, zero 2 */
  strcat(b, "zz");              /* reads b, copies 3 */
  memset(a, 'q', 4);
  memmove(a + 1, a, 3);
  int r = (int)strlen(b) + strcmp(a, b) + strncmp(a, "qq", 2) + memcmp(a, b, 2);
  r += strchr(b, 'z') != 0;
  r += strrchr(b, 'z') != 0;
  r += strstr(b, "yz") != 0;
  r += memchr(a, 'o', 6) != 0;
  char *d = strdup(b);
  r += d[0];
  free(d);
  return r & 0x7f;
}
)",
                        "");
  auto strcpyCall = t.calls.named("strcpy");
  REQUIRE(strcpyCall.size() == 1);
  const Event *copy = find(*strcpyCall[0], Ev::MEM_COPY);
  REQUIRE(copy);
  CHECK(copy->c == 6);
  CHECK(copy->a == strcpyCall[0]->args[0].value.lo);
  CHECK(copy->b == strcpyCall[0]->args[1].value.lo);

  auto strncpyCall = t.calls.named("strncpy");
  REQUIRE(strncpyCall.size() == 1);
  CHECK(find(*strncpyCall[0], Ev::MEM_COPY)->c == 3);
  CHECK(find(*strncpyCall[0], Ev::MEM_SET)->c == 2);

  auto strcatCall = t.calls.named("strcat");
  REQUIRE(strcatCall.size() == 1);
  CHECK(find(*strcatCall[0], Ev::MEM_READ)->b == 3); // "xy" + NUL
  CHECK(find(*strcatCall[0], Ev::MEM_COPY)->c == 3); // "zz" + NUL

  auto strlenCall = t.calls.named("strlen");
  REQUIRE(strlenCall.size() == 1);
  CHECK(strlenCall[0]->result.lo == 4);
  CHECK(find(*strlenCall[0], Ev::MEM_READ)->b == 5);

  // strcmp("qqqqo", "xyzz") differs at the first byte, but its result depends on every
  // byte up to the shorter string's NUL: 5 bytes of each are logged (libc models).
  auto strcmpCall = t.calls.named("strcmp");
  REQUIRE(strcmpCall.size() == 1);
  CHECK(find(*strcmpCall[0], Ev::MEM_READ, 0)->b == 5);
  CHECK(find(*strcmpCall[0], Ev::MEM_READ, 1)->b == 5);

  REQUIRE(t.calls.named("strncmp").size() == 1);
  CHECK(find(*t.calls.named("strncmp")[0], Ev::MEM_READ, 1)->b == 2); // at most n
  REQUIRE(t.calls.named("memcmp").size() == 1);
  CHECK(find(*t.calls.named("memcmp")[0], Ev::MEM_READ, 0)->b == 2); // all n
  CHECK(find(*t.calls.named("strchr")[0], Ev::MEM_READ)->b == 5);    // the whole string
  CHECK(find(*t.calls.named("strrchr")[0], Ev::MEM_READ)->b == 5);
  CHECK(find(*t.calls.named("memchr")[0], Ev::MEM_READ)->b == 5); // "qqqqo": found at index 4

  auto strdupCall = t.calls.named("strdup");
  REQUIRE(strdupCall.size() == 1);
  CHECK(find(*strdupCall[0], Ev::HEAP_ALLOC)->b == 5);
  CHECK(find(*strdupCall[0], Ev::MEM_COPY)->a == strdupCall[0]->result.lo);
  auto freeCall = t.calls.named("free");
  REQUIRE(freeCall.size() == 1);
  CHECK(find(*freeCall[0], Ev::HEAP_FREE)->a == strdupCall[0]->result.lo);
}

TEST_CASE("heap wrappers log allocations, zeroing, moves and frees", "[trace][libc]") {
  auto t = traceProgram(R"(
#include <stdlib.h>
#include <string.h>
int main(void) {
  int *p = malloc(3 * sizeof(int));
  int *z = calloc(4, sizeof(int));
  p[0] = 1; p[1] = 2; p[2] = 3;
  p = realloc(p, 1000 * sizeof(int));
  int r = p[2] + z[3];
  free(p);
  free(z);
  return r;
}
)",
                        "");
  CHECK(t.process.exitedWith(3));
  auto m = t.calls.named("malloc");
  REQUIRE(m.size() == 1);
  CHECK(find(*m[0], Ev::HEAP_ALLOC)->b == 12);
  auto c = t.calls.named("calloc");
  REQUIRE(c.size() == 1);
  CHECK(find(*c[0], Ev::HEAP_ALLOC)->b == 16);
  CHECK(find(*c[0], Ev::MEM_SET)->c == 16);
  auto r = t.calls.named("realloc");
  REQUIRE(r.size() == 1);
  CHECK(find(*r[0], Ev::HEAP_ALLOC)->b == 4000);
  if (r[0]->result.lo != m[0]->result.lo) { // moved: the old contents are copied and freed
    CHECK(find(*r[0], Ev::MEM_COPY)->c == 12);
    CHECK(find(*r[0], Ev::HEAP_FREE)->a == m[0]->result.lo);
  }
  CHECK(t.calls.named("free").size() == 2);
}

TEST_CASE("qsort logs that it read and rewrote the array, and its comparator is traced",
          "[trace][libc]") {
  auto t = traceProgram(R"(
#include <stdio.h>
#include <stdlib.h>
static int calls;
static int desc(const void *a, const void *b) {
  calls++;
  return *(const int *)b - *(const int *)a;
}
int main(void) {
  int v[5] = {3, 9, 1, 7, 5};
  qsort(v, 5, sizeof v[0], desc);
  printf("%d %d %d\n", v[0], v[4], calls > 0);
  return 0;
}
)",
                        "");
  CHECK(t.process.out == "9 1 1\n");
  auto q = t.calls.named("qsort");
  REQUIRE(q.size() == 1);
  const Event *read = find(*q[0], Ev::MEM_READ), *write = find(*q[0], Ev::MEM_WRITE);
  REQUIRE(read != nullptr);
  REQUIRE(write != nullptr);
  CHECK(read->a == q[0]->args[0].value.lo);
  CHECK(read->b == 20);
  CHECK(write->a == read->a);
  CHECK(write->b == 20);
}

TEST_CASE("atoi and strtol log the bytes each number was parsed from", "[trace][libc]") {
  auto t = traceProgram(R"(
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  const char *s = "  -42 rest";
  char *end = 0;
  int a = atoi(s);
  errno = 0;
  unsigned long big = strtoul("99999999999999999999999", &end, 10);
  int range = errno == ERANGE; /* strtoul's errno survives the logging */
  long h = strtol("ff;", &end, 16);
  printf("%d %d %ld %c %d\n", a, range, h, *end, big == (unsigned long)-1);
  return 0;
}
)",
                        "");
  CHECK(t.process.out == "-42 1 255 ; 1\n");
  auto a = t.calls.named("atoi");
  REQUIRE(a.size() == 1);
  const Event *tok = find(*a[0], Ev::MEM_TOKEN);
  REQUIRE(tok != nullptr);
  CHECK(tok->a == a[0]->args[0].value.lo + 2); // white space skipped: "-42"
  CHECK(tok->b == 3);
  CHECK(tok->c == 0); // the value is the call's result
  CHECK(tok->d == 4);
  CHECK(static_cast<char>(tok->e) == 'd');
  auto h = t.calls.named("strtol");
  REQUIRE(h.size() == 1);
  tok = find(*h[0], Ev::MEM_TOKEN);
  REQUIRE(tok != nullptr);
  CHECK(tok->b == 2);
  CHECK(static_cast<char>(tok->e) == 'x');
  CHECK(find(*h[0], Ev::MEM_WRITE) != nullptr); // *endptr
}

TEST_CASE("stdin wrappers tie every consumed byte to its stdin offset", "[trace][libc]") {
  auto t = traceProgram(R"(
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(void) {
  int a, b;
  char word[16], line[32], raw[4];
  int c0 = getchar();                 /* 'A' at 0 */
  int c1 = getc(stdin);               /* 'B' at 1 */
  ungetc(c1, stdin);                  /* back to 1 */
  int c2 = fgetc(stdin);              /* 'B' at 1 again */
  if (scanf("%d %d %5s", &a, &b, word) != 3) return 1;   /* " 12  -7 hello" */
  fgets(line, sizeof line, stdin);    /* rest of line 1 */
  size_t n = fread(raw, 1, 4, stdin); /* "wxyz" */
  char *gl = NULL; size_t cap = 0;
  ssize_t len = getline(&gl, &cap, stdin);  /* "last line\n" */
  printf("%c%c%c %d %d %s|%s|%zu %.4s|%zd %s", c0, c1, c2, a, b, word, line, n, raw, len, gl);
  free(gl);
  return 0;
}
)",
                        "AB 12  -7 hello world\nwxyzlast line\n");
  CHECK(t.process.out == "ABB 12 -7 hello| world\n|4 wxyz|10 last line\n");
  auto g = t.calls.named("getchar");
  REQUIRE(g.size() == 1);
  CHECK(find(*g[0], Ev::INPUT_CHAR)->a == 0);
  CHECK(find(*t.calls.named("getc")[0], Ev::INPUT_CHAR)->a == 1);
  CHECK(find(*t.calls.named("fgetc")[0], Ev::INPUT_CHAR)->a == 1);

  auto s = t.calls.named("__isoc99_scanf");
  REQUIRE(s.size() == 1);
  const Event *t1 = find(*s[0], Ev::TOKEN, 0), *t2 = find(*s[0], Ev::TOKEN, 1),
              *t3 = find(*s[0], Ev::TOKEN, 2);
  REQUIRE((t1 && t2 && t3));
  CHECK((t1->a == 3 && t1->b == 2 && t1->d == 4 && t1->e == 'd'));  // "12" at 3
  CHECK((t2->a == 7 && t2->b == 2 && t2->e == 'd'));                // "-7" at 7
  CHECK((t3->a == 10 && t3->b == 5 && t3->d == 6 && t3->e == 's')); // "hello" + NUL
  CHECK(t1->c == s[0]->args[1].value.lo);                           // stored where &a points

  auto f = t.calls.named("fgets");
  REQUIRE(f.size() == 1);
  const Event *in = find(*f[0], Ev::INPUT);
  REQUIRE(in);
  CHECK((in->a == 15 && in->c == 7)); // " world\n"
  const Event *fr = find(*t.calls.named("fread")[0], Ev::INPUT);
  CHECK((fr->a == 22 && fr->c == 4));
  const Event *gl = find(*t.calls.named("getline")[0], Ev::INPUT);
  CHECK((gl->a == 26 && gl->c == 10));
  CHECK(t.replay.stdinBytes == 36);
  CHECK(t.replay.tokens == 3);
}

TEST_CASE("output wrappers tie output bytes to the argument that produced them", "[trace][libc]") {
  auto t = traceProgram(R"(
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
  const char *name = argv[1];
  printf("x=%d y=%s %5.2f%%\n", 42, name, 3.14159);
  puts("line");
  putchar('!');
  fputs("fp", stdout);
  fprintf(stderr, "err %ld\n", 7L);
  fputc('c', stdout);
  putc('d', stdout);
  fwrite("wr", 1, 2, stdout);
  fflush(stdout);
  write(1, "W\n", 2);
  char buf[32];
  int n = snprintf(buf, sizeof buf, "%s-%d", name, argc);
  sprintf(buf + n, "!");
  return (int)strlen(buf);
}
)",
                        "", {"bob"});
  CHECK(t.process.out == "x=42 y=bob  3.14%\nline\n!fpcdwrW\n");
  CHECK(t.process.err == "err 7\n");
  CHECK(t.process.exitedWith(6));
  auto p = t.calls.named("printf");
  REQUIRE(p.size() == 1);
  // "x=" literal (arg 0), 42 (arg 1), " y=" (0), "bob" (arg 2, from argv), " " (0), " 3.14" (arg
  // 3), "%\n"
  std::string joined;
  std::vector<std::pair<uint64_t, std::string>> pieces;
  for (size_t i = 0; i < p[0]->effects.size(); ++i)
    if (p[0]->effects[i].tag == Ev::OUTPUT) {
      pieces.push_back({p[0]->effects[i].c, p[0]->payloads[i]});
      joined += p[0]->payloads[i];
    }
  CHECK(joined == "x=42 y=bob  3.14%\n");
  auto argOf = [&](const std::string &text) {
    for (auto &[arg, bytes] : pieces)
      if (bytes == text)
        return static_cast<int64_t>(arg);
    return static_cast<int64_t>(-1);
  };
  CHECK(argOf("42") == 1);
  CHECK(argOf("bob") == 2);
  CHECK(argOf(" 3.14") == 3);
  CHECK(argOf("x=") == 0);
  // Offsets in the stdout stream are contiguous.
  uint64_t expectOffset = 0;
  for (size_t i = 0; i < p[0]->effects.size(); ++i)
    if (p[0]->effects[i].tag == Ev::OUTPUT) {
      CHECK(p[0]->effects[i].b == expectOffset);
      expectOffset += p[0]->payloads[i].size();
    }
  // puts: the string (arg 1, from its memory) then the newline.
  auto pu = t.calls.named("puts");
  REQUIRE(pu.size() == 1);
  CHECK(find(*pu[0], Ev::OUTPUT)->b == 18);
  CHECK(find(*pu[0], Ev::OUTPUT)->c == 1);
  for (const char *fn : {"putchar", "fputs", "fputc", "putc", "fwrite", "write"}) {
    INFO(fn);
    auto calls = t.calls.named(fn);
    REQUIRE(calls.size() == 1);
    const Event *o = find(*calls[0], Ev::OUTPUT);
    REQUIRE(o);
    CHECK(o->a == 1);
  }
  const Event *err = find(*t.calls.named("fprintf")[0], Ev::OUTPUT);
  CHECK(err->a == 2);
  CHECK(t.replay.stdoutBytes == t.process.out);
  CHECK(t.replay.stderrBytes == t.process.err);
  auto sn = t.calls.named("snprintf");
  REQUIRE(sn.size() == 1);
  CHECK(find(*sn[0], Ev::MEM_WRITE)->b == 6); // "bob-2" + NUL
  bool readsArgv = false;                     // %s read argv[1]
  for (const auto &e : sn[0]->effects)
    readsArgv |= e.tag == Ev::MEM_READ && e.a == t.replay.argv[1].addr && e.b >= 3;
  CHECK(readsArgv);
  CHECK(find(*t.calls.named("sprintf")[0], Ev::MEM_WRITE)->b == 2);
}

TEST_CASE("argv strings and the exit status are in the trace", "[trace][libc]") {
  auto t = traceProgram(R"(
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[2], "quit") == 0) exit(4);
  return 0;
}
)",
                        "", {"one", "quit"});
  CHECK(t.process.exitedWith(4));
  REQUIRE(t.replay.argv.size() == 3);
  CHECK(t.replay.argv[1].bytes == std::string("one", 4));
  CHECK(t.replay.argv[2].bytes == std::string("quit", 5));
  CHECK(t.replay.exitStatus == 4);
}

TEST_CASE("diagnostics (perror, error, error_at_line, warn, warnx), the va_list printers and the "
          "unlocked stdio of gnulib print what glibc prints and log every byte",
          "[trace][libc]") {
  auto t = traceProgram(R"(
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <error.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void say(FILE *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
}
static void shout(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
}
static char *joined(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[32];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char *out;
  if (asprintf(&out, "<%s>", buf) < 0) exit(3);
  return out;
}
int main(int argc, char **argv) {
  /* the native and the traced executables have different paths */
  program_invocation_name = "/bin/tool";
  program_invocation_short_name = "tool";
  int c = getc_unlocked(stdin);       /* 'q' at 0 */
  char line[16];
  fgets_unlocked(line, sizeof line, stdin); /* "rs\n" */
  char raw[3];
  size_t n = fread_unlocked(raw, 1, 3, stdin); /* "xyz" */
  say(stdout, "%c %s|%zu\n", c, argv[1], n);
  shout("%d-%d\n", argc, 7);
  char *j = joined("%s+%d", argv[1], 5);
  fputs_unlocked(j, stdout);
  putc_unlocked('\n', stdout);
  fwrite_unlocked(raw, 1, 3, stdout);
  fflush(stdout);
  free(j);
  errno = ENOENT;
  perror(argv[1]);
  warnx("count %d", 2);
  errno = EACCES;
  warn("open %s", "f.txt");
  error(0, EINVAL, "bad value '%s'", argv[1]);
  error_at_line(0, 0, "in.txt", 12, "line %s", "broken");
  fprintf(stderr, "count=%u\n", error_message_count);
  error(4, 0, "giving up after %d", 2);
  return 0;
}
)",
                        "qrs\nxyz", {"bob"});
  const std::string prog = "/bin/tool", base = "tool";
  CHECK(t.process.out == "q bob|3\n2-7\n<bob+5>\nxyz");
  CHECK(t.process.err == "bob: No such file or directory\n" + base + ": count 2\n" + base +
                             ": open f.txt: Permission denied\n" + prog +
                             ": bad value 'bob': Invalid argument\n" + prog +
                             ":in.txt:12: line broken\ncount=2\n" + prog + ": giving up after 2\n");
  CHECK(t.process.exitedWith(4));
  CHECK(t.replay.exitStatus == 4);
  // Every byte of both streams is in the trace, in order (traceProgram compared them with
  // the native run's).
  CHECK(t.replay.stdoutBytes == t.process.out);
  CHECK(t.replay.stderrBytes == t.process.err);
  CHECK(find(*t.calls.named("getc_unlocked")[0], Ev::INPUT_CHAR)->a == 0);
  const Event *in = find(*t.calls.named("fgets_unlocked")[0], Ev::INPUT);
  REQUIRE(in);
  CHECK((in->a == 1 && in->c == 3));
  const Event *fr = find(*t.calls.named("fread_unlocked")[0], Ev::INPUT);
  REQUIRE(fr);
  CHECK((fr->a == 4 && fr->c == 3));
  // error(): the message's argument 1 ("bob") is tied to it; the program name is the call's.
  auto e = t.calls.named("error"); // the second never returns: it exits
  REQUIRE_FALSE(e.empty());
  bool bobFromArg1 = false;
  for (size_t i = 0; i < e[0]->effects.size(); ++i)
    if (e[0]->effects[i].tag == Ev::OUTPUT && e[0]->payloads[i] == "bob")
      bobFromArg1 = e[0]->effects[i].c == 1 && e[0]->effects[i].a == 2;
  CHECK(bobFromArg1);
  // vsnprintf and asprintf wrote their buffers; asprintf's is a heap block.
  CHECK(find(*t.calls.named("vsnprintf")[0], Ev::MEM_WRITE)->b == 6); // "bob+5" + NUL
  const Event *alloc = find(*t.calls.named("asprintf")[0], Ev::HEAP_ALLOC);
  REQUIRE(alloc);
  CHECK(alloc->b == 8); // "<bob+5>" + NUL
}
