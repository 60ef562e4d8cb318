/* Differential check of the stdio wrappers in runtime/rl_libc_io.c: every scenario runs
 * once with the real libc function and once with its __rl_wrap_ twin on the same input
 * (stdin from a regular file and from a pipe, temporary files, strings), and the return
 * values, stored values, bytes consumed, bytes produced and errno must be identical.
 * The events the wrappers log (recorded by rl_stub_events.c) are checked as well.
 *
 * Build and run: see tests/runtime/README.md. Prints "N passed, M failed" and exits
 * non-zero when a check fails. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include <wchar.h>

#include "rl_stub_events.h"

/* The checks deliberately truncate snprintf output and print NULL with %s. */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#pragma GCC diagnostic ignored "-Wformat-overflow"

/* --- the wrappers under test (declared by the instrumentation pass, not a header) -- */
int __rl_wrap_getchar(void);
int __rl_wrap_getc(FILE *stream);
int __rl_wrap_fgetc(FILE *stream);
int __rl_wrap_ungetc(int c, FILE *stream);
char *__rl_wrap_fgets(char *s, int n, FILE *stream);
size_t __rl_wrap_fread(void *ptr, size_t size, size_t nmemb, FILE *stream);
ssize_t __rl_wrap_read(int fd, void *buf, size_t count);
ssize_t __rl_wrap_getline(char **lineptr, size_t *n, FILE *stream);
int __rl_wrap_scanf(const char *fmt, ...);
int __rl_wrap_fscanf(FILE *stream, const char *fmt, ...);
int __rl_wrap_sscanf(const char *str, const char *fmt, ...);
int __rl_wrap___isoc99_scanf(const char *fmt, ...);
int __rl_wrap___isoc99_fscanf(FILE *stream, const char *fmt, ...);
int __rl_wrap___isoc99_sscanf(const char *str, const char *fmt, ...);
int __rl_wrap_printf(const char *fmt, ...);
int __rl_wrap_fprintf(FILE *stream, const char *fmt, ...);
int __rl_wrap_sprintf(char *str, const char *fmt, ...);
int __rl_wrap_snprintf(char *str, size_t size, const char *fmt, ...);
int __rl_wrap_puts(const char *s);
int __rl_wrap_putchar(int c);
int __rl_wrap_putc(int c, FILE *stream);
int __rl_wrap_fputc(int c, FILE *stream);
int __rl_wrap_fputs(const char *s, FILE *stream);
size_t __rl_wrap_fwrite(const void *ptr, size_t size, size_t nmemb, FILE *stream);
ssize_t __rl_wrap_write(int fd, const void *buf, size_t count);
FILE *__rl_wrap_fopen(const char *name, const char *mode);
FILE *__rl_wrap_freopen(const char *name, const char *mode, FILE *stream);
int __rl_wrap_fclose(FILE *stream);
int __rl_wrap_open(const char *name, int flags, ...);
int __rl_wrap_close(int fd);
int __rl_wrap_dup2(int old, int fd);

/* Real or wrapped, chosen by the scenario's `w` argument. */
#define GETCHAR() (w ? __rl_wrap_getchar() : getchar())
#define GETC(f) (w ? __rl_wrap_getc(f) : getc(f))
#define FGETC(f) (w ? __rl_wrap_fgetc(f) : fgetc(f))
#define UNGETC(c, f) (w ? __rl_wrap_ungetc(c, f) : ungetc(c, f))
#define FGETS(s, n, f) (w ? __rl_wrap_fgets(s, n, f) : fgets(s, n, f))
#define FREAD(p, s, n, f) (w ? __rl_wrap_fread(p, s, n, f) : fread(p, s, n, f))
#define READ(fd, b, n) (w ? __rl_wrap_read(fd, b, n) : read(fd, b, n))
#define GETLINE(l, n, f) (w ? __rl_wrap_getline(l, n, f) : getline(l, n, f))
#define SCANF(...) (w ? __rl_wrap___isoc99_scanf(__VA_ARGS__) : scanf(__VA_ARGS__))
#define SCANF_PLAIN(...) (w ? __rl_wrap_scanf(__VA_ARGS__) : scanf(__VA_ARGS__))
#define FSCANF(...) (w ? __rl_wrap___isoc99_fscanf(__VA_ARGS__) : fscanf(__VA_ARGS__))
#define FSCANF_PLAIN(...) (w ? __rl_wrap_fscanf(__VA_ARGS__) : fscanf(__VA_ARGS__))
#define PRINTF(...) (w ? __rl_wrap_printf(__VA_ARGS__) : printf(__VA_ARGS__))
#define FPRINTF(...) (w ? __rl_wrap_fprintf(__VA_ARGS__) : fprintf(__VA_ARGS__))
#define PUTS(s) (w ? __rl_wrap_puts(s) : puts(s))
#define PUTCHAR(c) (w ? __rl_wrap_putchar(c) : putchar(c))
#define PUTC(c, f) (w ? __rl_wrap_putc(c, f) : putc(c, f))
#define FPUTC(c, f) (w ? __rl_wrap_fputc(c, f) : fputc(c, f))
#define FPUTS(s, f) (w ? __rl_wrap_fputs(s, f) : fputs(s, f))
#define FWRITE(p, s, n, f) (w ? __rl_wrap_fwrite(p, s, n, f) : fwrite(p, s, n, f))
#define WRITE(fd, b, n) (w ? __rl_wrap_write(fd, b, n) : write(fd, b, n))

/* --- reporting ------------------------------------------------------------------- */
static FILE *rep; /* the original stdout: stdout and stderr get redirected */
static int n_pass, n_fail, n_limited;
static char cur[256] = "";

static void fail_at(int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(rep, "FAIL [%s] line %d: ", cur, line);
  vfprintf(rep, fmt, ap);
  fputc('\n', rep);
  fflush(rep);
  va_end(ap);
  ++n_fail;
}

#define CHECK(c)                                                                         \
  do {                                                                                   \
    if (c) ++n_pass;                                                                     \
    else fail_at(__LINE__, "%s", #c);                                                    \
  } while (0)
#define CHECK_EQ(a, b)                                                                   \
  do {                                                                                   \
    long long a_ = (long long)(a), b_ = (long long)(b);                                  \
    if (a_ == b_) ++n_pass;                                                              \
    else fail_at(__LINE__, "%s == %s: %lld != %lld", #a, #b, a_, b_);                    \
  } while (0)

static void set_test(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cur, sizeof cur, fmt, ap);
  va_end(ap);
}

static void die(const char *what) {
  fprintf(rep, "fatal: %s: %s\n", what, strerror(errno));
  exit(2);
}

/* --- recorded results -------------------------------------------------------------- */
typedef struct {
  unsigned char b[16384];
  size_t n;
} rec_t;

static void rec(rec_t *r, const void *p, size_t n) {
  if (r->n + sizeof n + n > sizeof r->b) return;
  memcpy(r->b + r->n, &n, sizeof n);
  r->n += sizeof n;
  memcpy(r->b + r->n, p, n);
  r->n += n;
}
static void rec_int(rec_t *r, long long v) { rec(r, &v, sizeof v); }
static void rec_str(rec_t *r, const char *s) { rec(r, s ? s : "(NULL)", s ? strlen(s) + 1 : 7); }
#define REC(r, x) rec(r, &(x), sizeof(x))

static void compare_recs(const rec_t *a, const rec_t *b, int line) {
  if (a->n == b->n && memcmp(a->b, b->b, a->n) == 0) {
    ++n_pass;
    return;
  }
  size_t i = 0;
  int item = 0;
  while (i < a->n && i < b->n) {
    size_t na, nb;
    memcpy(&na, a->b + i, sizeof na);
    memcpy(&nb, b->b + i, sizeof nb);
    if (na != nb || memcmp(a->b + i + sizeof na, b->b + i + sizeof nb, na) != 0) break;
    i += sizeof na + na;
    ++item;
  }
  long long va = 0, vb = 0;
  if (i + sizeof(size_t) + 8 <= a->n) memcpy(&va, a->b + i + sizeof(size_t), 8);
  if (i + sizeof(size_t) + 8 <= b->n) memcpy(&vb, b->b + i + sizeof(size_t), 8);
  fail_at(line, "real and wrapped results differ at recorded item %d (first 8 bytes: %lld vs %lld)",
          item, va, vb);
}

/* --- events ------------------------------------------------------------------------ */
static size_t count_tag(int tag) {
  size_t n = 0;
  for (size_t i = 0; i < rl_stub_count; ++i) n += rl_stub_events[i].tag == tag;
  return n;
}

static const struct rl_stub_event *nth_tag(int tag, size_t k) {
  for (size_t i = 0; i < rl_stub_count; ++i)
    if (rl_stub_events[i].tag == tag && k-- == 0) return &rl_stub_events[i];
  return NULL;
}

static const struct rl_stub_event *find_mem(int tag, const void *addr, uint64_t len) {
  for (size_t i = 0; i < rl_stub_count; ++i)
    if (rl_stub_events[i].tag == tag && rl_stub_events[i].addr == addr && rl_stub_events[i].len == len)
      return &rl_stub_events[i];
  return NULL;
}

static void expect_token_at(int line, size_t k, uint64_t off, uint64_t len, const void *addr,
                            uint32_t size, char conv) {
  const struct rl_stub_event *e = nth_tag(RL_EV_TOKEN, k);
  if (!e) {
    fail_at(line, "token %zu missing", k);
    return;
  }
  if (e->offset == off && e->len == len && e->addr == addr && e->size == size && e->conv == conv) {
    ++n_pass;
    return;
  }
  fail_at(line, "token %zu: got (off %llu, len %llu, addr %s, size %u, '%c'), want (%llu, %llu, %u, '%c')",
          k, (unsigned long long)e->offset, (unsigned long long)e->len,
          e->addr == addr ? "ok" : "WRONG", e->size, e->conv, (unsigned long long)off,
          (unsigned long long)len, size, conv);
}
#define EXPECT_TOKEN(...) expect_token_at(__LINE__, __VA_ARGS__)

static void expect_mem_at(int line, int tag, const void *addr, uint64_t len) {
  if (!find_mem(tag, addr, len))
    fail_at(line, "no %s event for %llu bytes at the expected address",
            tag == RL_EV_MEM_READ ? "MEM_READ" : "MEM_WRITE", (unsigned long long)len);
  else ++n_pass;
}
#define EXPECT_READ(a, n) expect_mem_at(__LINE__, RL_EV_MEM_READ, a, n)
#define EXPECT_WRITE(a, n) expect_mem_at(__LINE__, RL_EV_MEM_WRITE, a, n)

/* The NUL fgets and getline put after a line: a known byte (MEM_SET of 0). */
static void expect_nul_at(int line, const void *addr) {
  const struct rl_stub_event *e = find_mem(RL_EV_MEM_SET, addr, 1);
  if (!e || e->byte != 0)
    fail_at(line, "no MEM_SET of a NUL at the expected address");
  else ++n_pass;
}
#define EXPECT_NUL(a) expect_nul_at(__LINE__, a)

#define ANY_SRC ((const void *)-1)
struct exp_out {
  int32_t arg;
  const void *src;
  const char *bytes;
};

/* The OUTPUT events for fd must be exactly `exp`, in order. */
static void expect_outputs_at(int line, int fd, const struct exp_out *exp, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < rl_stub_count; ++i) {
    const struct rl_stub_event *e = &rl_stub_events[i];
    if (e->tag != RL_EV_OUTPUT || e->fd != fd) continue;
    if (k >= n) {
      fail_at(line, "extra output event %zu", k);
      return;
    }
    const struct exp_out *x = &exp[k];
    size_t xl = strlen(x->bytes);
    if (e->arg != x->arg || (x->src != ANY_SRC && e->src != x->src) || e->len != xl ||
        memcmp(e->bytes, x->bytes, xl) != 0) {
      fail_at(line, "output event %zu: arg %d src %p \"%.*s\"; want arg %d src %p \"%s\"", k, e->arg,
              e->src, (int)e->len, (const char *)e->bytes, x->arg, x->src, x->bytes);
      return;
    }
    ++k;
  }
  if (k != n) fail_at(line, "%zu output events, want %zu", k, n);
  else ++n_pass;
}
#define EXPECT_OUTPUTS(fd, ...)                                                          \
  do {                                                                                   \
    static const struct exp_out exp_[] = {__VA_ARGS__};                                  \
    expect_outputs_at(__LINE__, fd, exp_, sizeof exp_ / sizeof exp_[0]);                 \
  } while (0)

/* All OUTPUT events of fd, in order, must spell `bytes`, at contiguous offsets. */
static void check_output_stream(int line, int fd, const unsigned char *bytes, size_t len,
                                uint64_t start) {
  size_t at = 0;
  for (size_t i = 0; i < rl_stub_count; ++i) {
    const struct rl_stub_event *e = &rl_stub_events[i];
    if (e->tag != RL_EV_OUTPUT || e->fd != fd) continue;
    if ((fd == 1 || fd == 2) && e->offset != start + at) {
      fail_at(line, "output event offset %llu, want %llu", (unsigned long long)e->offset,
              (unsigned long long)(start + at));
      return;
    }
    if (e->len == 0 || at + e->len > len || memcmp(bytes + at, e->bytes, e->len) != 0) {
      fail_at(line, "output events do not spell the bytes written (at %zu)", at);
      return;
    }
    at += e->len;
  }
  if (at != len) fail_at(line, "output events cover %zu of %zu bytes", at, len);
  else ++n_pass;
}

/* --- files, stdin and stdout -------------------------------------------------------- */
static char in_path[64] = "/tmp/rl_io_inXXXXXX";
static char out_path[64] = "/tmp/rl_io_outXXXXXX";

static void write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) die("fopen");
  if (len && fwrite(data, 1, len, f) != len) die("fwrite");
  fclose(f);
}

static size_t read_file(const char *path, unsigned char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) die("fopen");
  size_t n = fread(buf, 1, cap, f);
  fclose(f);
  return n;
}

enum { SRC_FILE, SRC_PIPE };

static void set_stdin(int src, const void *data, size_t len) {
  if (src == SRC_FILE) {
    write_file(in_path, data, len);
    if (!freopen(in_path, "r", stdin)) die("freopen stdin");
    return;
  }
  int pfd[2];
  if (len > 60000) die("pipe input too long");
  if (pipe(pfd) != 0) die("pipe");
  if (len && write(pfd[1], data, len) != (ssize_t)len) die("write pipe");
  close(pfd[1]);
  if (!freopen("/dev/null", "r", stdin)) die("freopen /dev/null");
  if (dup2(pfd[0], 0) != 0) die("dup2");
  close(pfd[0]);
  clearerr(stdin);
}

static size_t read_rest(FILE *f, char *buf, size_t cap) {
  clearerr(f);
  return fread(buf, 1, cap, f);
}

/* Each test variable lives here so that event addresses can be checked afterwards. */
static struct {
  int a, b, c, n, n2, x, count, last, ret[16];
  char ch, s[128], s2[128], buf[512];
  float f;
  double d;
  long double ld;
  long l;
  long long ll;
  char *m, *lines[4];
  size_t caps[4];
} V;

typedef void (*scenario_fn)(int w, rec_t *r);
typedef void (*check_fn)(int src, const char *data, size_t len);

/* Run fn with the real functions and with the wrappers on the same stdin, both for a
 * regular file and a pipe; compare everything, then call check on the wrapped run. */
static void cmp_stdin(const char *name, const char *data, size_t len, scenario_fn fn,
                      check_fn check) {
  static rec_t real, wrapped;
  static char rest_r[70000], rest_w[70000];
  for (int src = 0; src < 2; ++src) {
    set_test("%s/%s", name, src == SRC_FILE ? "file" : "pipe");
    memset(&real, 0, sizeof real);
    set_stdin(src, data, len);
    errno = 0;
    fn(0, &real);
    int errno_real = errno;
    size_t nr = read_rest(stdin, rest_r, sizeof rest_r);

    memset(&wrapped, 0, sizeof wrapped);
    set_stdin(src, data, len);
    rl_stub_reset();
    rl_stdin_pos = 0;
    errno = 0;
    fn(1, &wrapped);
    int errno_wrapped = errno;
    uint64_t pos = rl_stdin_pos;
    int at_eof = feof(stdin);
    size_t nw = read_rest(stdin, rest_w, sizeof rest_w);

    compare_recs(&real, &wrapped, __LINE__);
    CHECK_EQ(errno_wrapped, errno_real);
    CHECK_EQ(nw, nr);
    CHECK(nw == nr && memcmp(rest_r, rest_w, nr) == 0);
    if (src == SRC_PIPE && at_eof && pos != len - nw) {
      /* Known limitation (see README): on a pipe, the bytes a failed conversion consumed
       * just before end-of-input are not measured; nothing can be read after that. */
      CHECK(pos < len - nw);
      ++n_limited;
    } else {
      CHECK_EQ(pos, len - nw);
    }
    /* Every stdin event lies inside the consumed bytes. */
    for (size_t i = 0; i < rl_stub_count; ++i) {
      const struct rl_stub_event *e = &rl_stub_events[i];
      uint64_t end = e->tag == RL_EV_INPUT_CHAR ? e->offset + 1
                   : (e->tag == RL_EV_INPUT || e->tag == RL_EV_TOKEN) ? e->offset + e->len : 0;
      if (end > pos) fail_at(__LINE__, "stdin event ends at %llu past the %llu consumed bytes",
                             (unsigned long long)end, (unsigned long long)pos);
    }
    if (check) check(src, data, len);
  }
}

/* Run fn real and wrapped with stdout (fd 1) or stderr (fd 2, unbuffered) redirected to
 * a file; compare results and bytes; the OUTPUT events must spell the bytes. */
static unsigned char out_r[1 << 16], out_w[1 << 16];
static size_t out_len;

static void redirect_out(int fd) {
  if (fd == 1) {
    if (!freopen(out_path, "w", stdout)) die("freopen stdout");
  } else {
    if (!freopen(out_path, "w", stderr)) die("freopen stderr");
    setvbuf(stderr, NULL, _IONBF, 0);
  }
}

static void cmp_out(const char *name, int fd, scenario_fn fn, void (*check)(void)) {
  static rec_t real, wrapped;
  FILE *stream = fd == 1 ? stdout : stderr;
  set_test("%s", name);
  memset(&real, 0, sizeof real);
  redirect_out(fd);
  stream = fd == 1 ? stdout : stderr;
  errno = 1234;
  fn(0, &real);
  int errno_real = errno;
  fflush(stream);
  size_t nr = read_file(out_path, out_r, sizeof out_r);

  memset(&wrapped, 0, sizeof wrapped);
  redirect_out(fd);
  stream = fd == 1 ? stdout : stderr;
  rl_stub_reset();
  rl_out_pos[fd] = 1000;
  errno = 1234;
  fn(1, &wrapped);
  int errno_wrapped = errno;
  fflush(stream);
  size_t nw = read_file(out_path, out_w, sizeof out_w);
  out_len = nw;

  compare_recs(&real, &wrapped, __LINE__);
  CHECK_EQ(errno_wrapped, errno_real);
  CHECK_EQ(nw, nr);
  CHECK(nw == nr && memcmp(out_r, out_w, nr) == 0);
  check_output_stream(__LINE__, fd, out_w, nw, 1000);
  CHECK_EQ(rl_out_pos[fd], 1000 + nw);
  if (check) check();
}

/* ===================================================================================== */
/* character and line input on stdin                                                      */
/* ===================================================================================== */

static void s_chars(int w, rec_t *r) {
  memset(&V, 0, sizeof V);
  rec_int(r, GETCHAR());
  int c2 = GETC(stdin);
  rec_int(r, c2);
  rec_int(r, UNGETC(c2, stdin));
  rec_int(r, FGETC(stdin));
  rec_int(r, FGETC(stdin));
  rec_int(r, GETCHAR());
  rec_int(r, UNGETC(EOF, stdin));
}
static void c_chars(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  CHECK_EQ(count_tag(RL_EV_INPUT_CHAR), 3);
  CHECK_EQ(nth_tag(RL_EV_INPUT_CHAR, 0)->offset, 0);
  CHECK_EQ(nth_tag(RL_EV_INPUT_CHAR, 1)->offset, 1);
  CHECK_EQ(nth_tag(RL_EV_INPUT_CHAR, 2)->offset, 1); /* after ungetc */
}

static void s_fgets(int w, rec_t *r) {
  memset(&V, 0, sizeof V);
  memset(V.buf, 'Z', sizeof V.buf);
  rec_str(r, FGETS(V.buf, 4, stdin)); /* "hel" */
  rec(r, V.buf, 8);
  rec_str(r, FGETS(V.buf, 100, stdin)); /* "lo\n" */
  rec(r, V.buf, 8);
  rec_int(r, FGETS(V.buf, 1, stdin) == V.buf);
  rec_int(r, FGETS(V.buf, 0, stdin) == NULL);
  rec_str(r, FGETS(V.s, 100, stdin)); /* "a\0b\n" */
  rec(r, V.s, 8);
  rec_str(r, FGETS(V.s2, 100, stdin)); /* "end" at EOF */
  rec_int(r, FGETS(V.s2, 100, stdin) == NULL);
  rec(r, V.s2, 8);
  rec_int(r, feof(stdin));
  rec_int(r, ferror(stdin));
}
static void c_fgets(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  CHECK_EQ(count_tag(RL_EV_INPUT), 4);
  const struct rl_stub_event *e = nth_tag(RL_EV_INPUT, 0);
  CHECK(e->offset == 0 && e->addr == V.buf && e->len == 3);
  e = nth_tag(RL_EV_INPUT, 1);
  CHECK(e->offset == 3 && e->addr == V.buf && e->len == 3);
  e = nth_tag(RL_EV_INPUT, 2);
  CHECK(e->offset == 6 && e->addr == V.s && e->len == 4); /* embedded NUL counted */
  e = nth_tag(RL_EV_INPUT, 3);
  CHECK(e->offset == 10 && e->addr == V.s2 && e->len == 3);
  EXPECT_NUL(V.s + 4);
  EXPECT_NUL(V.s2 + 3);
}

static void s_fread(int w, rec_t *r) {
  memset(&V, 0, sizeof V);
  rec_int(r, FREAD(V.buf, 4, 3, stdin)); /* 7 bytes: one whole item */
  rec(r, V.buf, 12);
  rec_int(r, FREAD(V.buf, 4, 0, stdin));
  rec_int(r, FREAD(V.buf, 1, 10, stdin));
  rec_int(r, feof(stdin));
}
static void c_fread(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  CHECK_EQ(count_tag(RL_EV_INPUT), 1);
  const struct rl_stub_event *e = nth_tag(RL_EV_INPUT, 0);
  CHECK(e->offset == 0 && e->addr == V.buf && e->len == 7);
}

static void s_read(int w, rec_t *r) {
  memset(&V, 0, sizeof V);
  rec_int(r, READ(0, V.buf, 5));
  rec(r, V.buf, 5);
  rec_int(r, READ(0, V.s, 2));
  rec(r, V.s, 2);
  rec_int(r, READ(-1, V.s, 2));
  rec_int(r, errno);
}
static void c_read(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  CHECK_EQ(count_tag(RL_EV_INPUT), 2);
  CHECK(nth_tag(RL_EV_INPUT, 0)->offset == 0 && nth_tag(RL_EV_INPUT, 0)->len == 5);
  CHECK(nth_tag(RL_EV_INPUT, 1)->offset == 5 && nth_tag(RL_EV_INPUT, 1)->addr == V.s);
}

static void s_getline(int w, rec_t *r) {
  memset(&V, 0, sizeof V);
  char *line = NULL;
  size_t cap = 0;
  for (int i = 0; i < 3; ++i) {
    ssize_t got = GETLINE(&line, &cap, stdin);
    rec_int(r, got);
    if (got > 0) rec(r, line, (size_t)got + 1);
    V.lines[i] = line;
    V.caps[i] = cap;
  }
  free(line);
  rec_int(r, GETLINE(NULL, &cap, stdin));
  rec_int(r, errno);
}
static void c_getline(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  const struct rl_stub_event *a = nth_tag(RL_EV_HEAP_ALLOC, 0);
  CHECK(a && a->addr == V.lines[0] && a->len == V.caps[0]);
  const struct rl_stub_event *e = nth_tag(RL_EV_INPUT, 0);
  CHECK(e && e->offset == 0 && e->addr == V.lines[0] && e->len == 11);
  /* the 301-byte line needed a bigger buffer */
  const struct rl_stub_event *a2 = nth_tag(RL_EV_HEAP_ALLOC, 1);
  CHECK(a2 && a2->addr == V.lines[1] && a2->len == V.caps[1]);
  if (V.lines[1] != V.lines[0]) CHECK(nth_tag(RL_EV_HEAP_FREE, 0) && nth_tag(RL_EV_HEAP_FREE, 0)->addr == V.lines[0]);
  e = nth_tag(RL_EV_INPUT, 1);
  CHECK(e && e->offset == 11 && e->addr == V.lines[1] && e->len == 301);
  EXPECT_NUL(V.lines[1] + 301);
  CHECK_EQ(count_tag(RL_EV_INPUT), 2);
}

static char longline[6000];
static void s_fgets_long(int w, rec_t *r) {
  memset(longline, 'Z', sizeof longline);
  rec_str(r, FGETS(longline, sizeof longline, stdin)); /* 5000 bytes + '\n': crosses refills */
  rec_int(r, GETCHAR());
  rec_int(r, UNGETC('Q', stdin)); /* a different byte: glibc's pushback area */
  memset(&V, 0, sizeof V);
  rec_int(r, SCANF("%s%n", V.s, &V.n));
  rec_str(r, V.s);
  REC(r, V.n);
  rec_int(r, SCANF("%d", &V.a));
}
static void c_fgets_long(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  const struct rl_stub_event *e = nth_tag(RL_EV_INPUT, 0);
  CHECK(e && e->offset == 0 && e->addr == longline && e->len == 5001);
  CHECK_EQ(nth_tag(RL_EV_INPUT_CHAR, 0)->offset, 5001);
  EXPECT_TOKEN(0, 5001, 3, V.s, 4, 's'); /* "Qcd": the pushed-back byte stands for 'b' */
  CHECK_EQ(V.n, 3);
}

/* ===================================================================================== */
/* scanf on stdin                                                                          */
/* ===================================================================================== */

static void s_dd(int w, rec_t *r) {
  memset(&V, 0, sizeof V);
  rec_int(r, SCANF("%d %d", &V.a, &V.b));
  REC(r, V.a);
  REC(r, V.b);
}
static void c_dd(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  CHECK_EQ(V.a, 12);
  CHECK_EQ(V.b, -7);
  CHECK_EQ(count_tag(RL_EV_TOKEN), 2);
  EXPECT_TOKEN(0, 2, 2, &V.a, 4, 'd');
  EXPECT_TOKEN(1, 5, 2, &V.b, 4, 'd');
  CHECK_EQ(rl_stdin_pos, 7);
}

static void s_dcs(int w, rec_t *r) {
  memset(&V, 0, sizeof V);
  rec_int(r, SCANF_PLAIN("%d%c%s", &V.a, &V.ch, V.s));
  REC(r, V.a);
  REC(r, V.ch);
  rec_str(r, V.s);
}
static void c_dcs(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  EXPECT_TOKEN(0, 0, 2, &V.a, 4, 'd');
  EXPECT_TOKEN(1, 2, 1, &V.ch, 1, 'c');
  EXPECT_TOKEN(2, 4, 5, V.s, 6, 's');
  CHECK_EQ(rl_stdin_pos, 9);
}

static void s_set(int w, rec_t *r) {
  memset(&V, 0, sizeof V);
  rec_int(r, SCANF("%[a-z]%5s%*d %d", V.s, V.s2, &V.a));
  rec_str(r, V.s);
  rec_str(r, V.s2);
  REC(r, V.a);
}
static void c_set(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  CHECK_EQ(count_tag(RL_EV_TOKEN), 3); /* %*d has none */
  EXPECT_TOKEN(0, 0, 3, V.s, 4, '[');
  EXPECT_TOKEN(1, 3, 5, V.s2, 6, 's'); /* "12345" of "1234567" */
  EXPECT_TOKEN(2, 11, 2, &V.a, 4, 'd'); /* "67" skipped by %*d, then " 42" */
}

static void s_n(int w, rec_t *r) {
  memset(&V, 0, sizeof V);
  rec_int(r, SCANF("%d%n", &V.a, &V.n));
  REC(r, V.a);
  REC(r, V.n);
}
static void c_n(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  CHECK_EQ(V.n, 4);
  CHECK_EQ(count_tag(RL_EV_TOKEN), 1);
  EXPECT_TOKEN(0, 1, 3, &V.a, 4, 'd');
  EXPECT_WRITE(&V.n, sizeof(int));
}

static void s_d(int w, rec_t *r) {
  memset(&V, 0, sizeof V);
  V.a = 99;
  rec_int(r, SCANF("%d", &V.a));
  REC(r, V.a);
}
static void c_no_tokens(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  CHECK_EQ(count_tag(RL_EV_TOKEN), 0);
}

static void s_loop(int w, rec_t *r) {
  memset(&V, 0, sizeof V);
  int ret;
  while ((ret = SCANF("%d", &V.x)) == 1) {
    V.ret[V.count % 16] = V.x;
    ++V.count;
  }
  V.last = ret;
  REC(r, V.count);
  REC(r, V.last);
  REC(r, V.ret);
}
static void c_loop(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  CHECK_EQ(V.count, 3);
  CHECK_EQ(V.last, EOF);
  CHECK_EQ(count_tag(RL_EV_TOKEN), 3);
  EXPECT_TOKEN(0, 0, 1, &V.x, 4, 'd');
  EXPECT_TOKEN(1, 2, 1, &V.x, 4, 'd');
  EXPECT_TOKEN(2, 4, 1, &V.x, 4, 'd');
  CHECK_EQ(rl_stdin_pos, 6);
}
/* The loop over 2047 numbers ends at "-x" whose '-' is the last byte of the first
 * 4096-byte pipe read: measuring the failed conversion must see the refill. */
static void c_loop_long(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  CHECK_EQ(V.count, 2047);
  CHECK_EQ(V.last, 0);
  CHECK_EQ(count_tag(RL_EV_TOKEN), 2047);
  EXPECT_TOKEN(2046, 4092, 1, &V.x, 4, 'd');
  CHECK_EQ(rl_stdin_pos, 4096);
}

static void s_fscanf_stdin(int w, rec_t *r) {
  memset(&V, 0, sizeof V);
  rec_int(r, FSCANF(stdin, "%f %lf %Lf", &V.f, &V.d, &V.ld));
  REC(r, V.f);
  REC(r, V.d);
  rec(r, &V.ld, 10);
  rec_int(r, FSCANF_PLAIN(stdin, " (%ld,%lld)", &V.l, &V.ll));
  REC(r, V.l);
  REC(r, V.ll);
}
static void c_fscanf_stdin(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  EXPECT_TOKEN(0, 0, 3, &V.f, sizeof(float), 'f');
  EXPECT_TOKEN(1, 4, 4, &V.d, sizeof(double), 'f');
  EXPECT_TOKEN(2, 9, 5, &V.ld, sizeof(long double), 'f');
  EXPECT_TOKEN(3, 16, 2, &V.l, sizeof(long), 'd');
  EXPECT_TOKEN(4, 19, 3, &V.ll, sizeof(long long), 'd');
}

static void s_ms(int w, rec_t *r) {
  memset(&V, 0, sizeof V);
  rec_int(r, SCANF("%ms %c", &V.m, &V.ch));
  rec_str(r, V.m);
  REC(r, V.ch);
  free(V.m);
}
static void c_ms(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  const struct rl_stub_event *a = nth_tag(RL_EV_HEAP_ALLOC, 0);
  CHECK(a && a->addr == V.m && a->len == 5);
  EXPECT_WRITE(&V.m, sizeof(char *));
  EXPECT_TOKEN(0, 2, 4, V.m, 5, 's');
  EXPECT_TOKEN(1, 7, 1, &V.ch, 1, (char)('c' | 0x80)); /* white space skipped before it */
}

static void s_mixed(int w, rec_t *r) {
  /* scanf, then getchar/fgets on the same stream: positions must line up. */
  memset(&V, 0, sizeof V);
  rec_int(r, SCANF("%d", &V.a));
  rec_int(r, GETCHAR());
  rec_str(r, FGETS(V.buf, 64, stdin));
  rec_int(r, SCANF("%s", V.s));
  rec_str(r, V.s);
}
static void c_mixed(int src, const char *d, size_t n) {
  (void)src, (void)d, (void)n;
  EXPECT_TOKEN(0, 0, 2, &V.a, 4, 'd');
  CHECK_EQ(nth_tag(RL_EV_INPUT_CHAR, 0)->offset, 2);
  CHECK(nth_tag(RL_EV_INPUT, 0)->offset == 3 && nth_tag(RL_EV_INPUT, 0)->len == 5);
  EXPECT_TOKEN(1, 8, 3, V.s, 4, 's');
}

/* --- a battery of formats through stdin (file, pipe), a FILE and a string ----------- */
struct bcase {
  const char *fmt, *in;
};
static const struct bcase battery[] = {
  {"%d", "42"}, {"%d", "  -17 rest"}, {"%d", "+"}, {"%d", "-"}, {"%d", "-x"}, {"%d", "abc"},
  {"%d", ""}, {"%d", "   "}, {"%d%d", "1"}, {"%d %d", "1 2"}, {"%d,%d", "1,2"},
  {"%d,%d", "1;2"}, {"%d ,%d", "1   ,  2"}, {"%i %i %i", "0x1f 017 -9"},
  {"%x %X %o", "ff FF 777"}, {"%x", "0x"}, {"%x", "0xg"}, {"%i", "0x"}, {"%i", "08"},
  {"%u", "-1"}, {"%hhd %hd %ld %lld %jd %zd %td", "1 2 3 4 5 6 7"},
  {"%hhu %hu %lu %llu %ju %zu %tu", "255 65535 1 2 3 4 5"}, {"%hhn%d", "3"},
  {"%f %lf %Lf", "1.5 2.25 3.125"}, {"%e %g %a", "1e3 -2.5E-2 0x1.8p1"}, {"%f", "-.x"},
  {"%f", "1e+x"}, {"%f", "12345678e"}, {"%f", "inf nan"}, {"%f %f", "infinity nan(abc)"},
  {"%f", "in"}, {"%f", "."}, {"%f", "0x"}, {"%3f", "1.2345"}, {"%f", "nan(ab"},
  {"%c", "x"}, {"%c%c", " a"}, {" %c", "   z"}, {"%3c", "abcd"}, {"%3c", "ab"}, {"%c", ""},
  {"%s", "  hello world"}, {"%5s%s", "abcdefgh ij"}, {"%s", "   "}, {"%s %s", "a"},
  {"%[a-z]", "abc123"}, {"%[^\n]", "line one\nline two"}, {"%[]a]", "]a]ab"},
  {"%[^]]", "xy]z"}, {"%[-a]", "a-a-b"}, {"%2[a-z]", "abc"}, {"%[a-z]", "123"},
  {"%[a-z", "abc"}, {" %[a-z", "  abc"}, {"%*d %d", "1 2"}, {"%*s%n", "word rest"},
  {"%d%n", " 123 "}, {"%n%d%n", "  5"}, {"%d %n", "5  x"}, {"%d %n%d", "5  "}, {"%%", "%"},
  {"%d%%", "5 %x"}, {"%%%d", "  %  7"}, {"%d%%", "5x"}, {"%*%", " %"}, {"%d ", "5   \n7"},
  {" x", "   y"}, {" x", "   x"}, {"abc", "ab"}, {"abc", "abd"}, {"a%d", "a5"},
  {"%d %", "5   x"}, {"%d %5", "5   x"}, {"%d %y", "5   x"}, {"%d%y", "5  x"}, {"", "abc"},
  {" ", "  x"}, {"%n", ""}, {"%d\t%d", "1\n\n2"}, {"%p", "0x1234"}, {"%p", "(nil)"},
  {"%p", "(ni"}, {"%lc", "A"}, {"%3lc", "ABCD"}, {"%ls", "wide str"}, {"%l[a-z]", "abc1"},
  {"%2$d %1$d", "1 2"}, {"%d %d %d", "10 20 x"}, {"x%dy", "x5z"}, {"%5d", "1234567"},
  {"%0d", "12"}, {"%'d", "1234"}, {"%Id", "77"}, {"%5*d", "1"}, {"%*5d%d", "123456789"},
  {"\xc3\xa9%d", "\xc3\xa9" "5"}, {" \xc3\xa9%d", "  \xc3\xa9" "5"},
  {"%d\xc3\xa9", "5\xc3\xa8"}, {"%d \xc3\xa9", "5  \xc3\xa9"}, {"%s%n", "\xc3\xa9t\xc3\xa9 x"},
  {"%d%d%d%d%d%d", "1 2 3 4 5 6"}, {"%4c%3[0-9]%2s%d", "ab c12345678 9"},
};

static _Alignas(16) unsigned char B[8][64];
#define BARGS B[0], B[1], B[2], B[3], B[4], B[5], B[6], B[7]

static const struct bcase *bcur;
static void s_battery(int w, rec_t *r) {
  memset(B, 0, sizeof B);
  int ret = (strlen(bcur->in) & 1) ? SCANF_PLAIN(bcur->fmt, BARGS) : SCANF(bcur->fmt, BARGS);
  rec_int(r, ret);
  rec(r, B, sizeof B);
  V.ret[0] = ret;
}
static void c_battery(int src, const char *d, size_t n) {
  (void)src, (void)n;
  int ret = V.ret[0];
  if (!strchr(bcur->fmt, '$')) CHECK_EQ(count_tag(RL_EV_TOKEN), ret > 0 ? ret : 0);
  for (size_t k = 0; k < count_tag(RL_EV_TOKEN); ++k) {
    const struct rl_stub_event *e = nth_tag(RL_EV_TOKEN, k);
    const unsigned char *a = e->addr;
    CHECK(a >= &B[0][0] && a < &B[7][0] + 64 && a + e->size <= &B[7][0] + 64);
    if (e->conv != 'c' && e->conv != '[' && e->len > 0) CHECK(!isspace((unsigned char)d[e->offset]));
  }
}

/* fscanf on a FILE that is not stdin, and sscanf: real and wrapped compared directly. */
static void battery_other(const struct bcase *bc, const char *locale) {
  static unsigned char real[8][64];
  static char rest_r[256], rest_w[256];
  size_t len = strlen(bc->in);
  for (int kind = 0; kind < 2; ++kind) {
    set_test("battery %s \"%s\" on \"%s\" via %s", locale, bc->fmt, bc->in, kind ? "sscanf" : "fscanf(FILE)");
    FILE *f = NULL;
    if (kind == 0) {
      f = tmpfile();
      if (!f) die("tmpfile");
      fwrite(bc->in, 1, len, f);
      rewind(f);
    }
    memset(B, 0, sizeof B);
    int r1 = kind ? sscanf(bc->in, bc->fmt, BARGS) : fscanf(f, bc->fmt, BARGS);
    memcpy(real, B, sizeof B);
    size_t nr = kind ? 0 : read_rest(f, rest_r, sizeof rest_r);
    if (f) {
      rewind(f);
      clearerr(f);
    }
    memset(B, 0, sizeof B);
    rl_stub_reset();
    rl_stdin_pos = 77;
    int r2 = kind ? (len & 1 ? __rl_wrap_sscanf(bc->in, bc->fmt, BARGS)
                             : __rl_wrap___isoc99_sscanf(bc->in, bc->fmt, BARGS))
                  : (len & 1 ? __rl_wrap_fscanf(f, bc->fmt, BARGS)
                             : __rl_wrap___isoc99_fscanf(f, bc->fmt, BARGS));
    size_t nw = kind ? 0 : read_rest(f, rest_w, sizeof rest_w);
    CHECK_EQ(r2, r1);
    CHECK(memcmp(real, B, sizeof B) == 0);
    CHECK_EQ(nw, nr);
    CHECK(nw == nr && memcmp(rest_r, rest_w, nr) == 0);
    CHECK_EQ(rl_stdin_pos, 77);
    CHECK_EQ(count_tag(RL_EV_TOKEN) + count_tag(RL_EV_INPUT), 0);
    CHECK(rl_stub_count > 0 && rl_stub_events[rl_stub_count - 1].tag == RL_EV_CONCRETIZED);
    if (kind == 1) {
      CHECK(rl_stub_events[0].tag == RL_EV_MEM_READ && rl_stub_events[0].addr == bc->in &&
            rl_stub_events[0].len == len + 1);
    }
    /* one MEM_WRITE (fscanf of a FILE) or MEM_TOKEN (sscanf: the string bytes it
     * parsed) per assigned destination, inside the argument buffers */
    int per_dest = kind ? RL_EV_MEM_TOKEN : RL_EV_MEM_WRITE;
    if (!strchr(bc->fmt, '$') && !strstr(bc->fmt, "%n") && !strstr(bc->fmt, "%hhn"))
      CHECK_EQ(count_tag(per_dest), r1 > 0 ? r1 : 0);
    for (size_t i = 0; i < rl_stub_count; ++i) {
      const struct rl_stub_event *e = &rl_stub_events[i];
      if (e->tag == RL_EV_MEM_TOKEN) {
        const char *src = e->src;
        CHECK(kind == 1 && src >= bc->in && src + e->len <= bc->in + len);
      }
      if (e->tag != RL_EV_MEM_WRITE && e->tag != RL_EV_MEM_TOKEN) continue;
      const unsigned char *a = e->addr;
      size_t n = e->tag == RL_EV_MEM_TOKEN ? e->size : e->len;
      CHECK(a >= &B[0][0] && a + n <= &B[7][0] + 64);
    }
    if (f) fclose(f);
  }
}

static void run_battery(const char *locale) {
  if (!setlocale(LC_ALL, locale)) {
    fprintf(rep, "note: locale %s unavailable, battery skipped for it\n", locale);
    return;
  }
  for (size_t i = 0; i < sizeof battery / sizeof battery[0]; ++i) {
    bcur = &battery[i];
    char name[200];
    snprintf(name, sizeof name, "battery %s \"%s\" on \"%s\"", locale, bcur->fmt, bcur->in);
    cmp_stdin(name, bcur->in, strlen(bcur->in), s_battery, c_battery);
    battery_other(bcur, locale);
  }
  setlocale(LC_ALL, "C");
}

/* ===================================================================================== */
/* input from other streams                                                                */
/* ===================================================================================== */

static void s_other_input(int w, rec_t *r) {
  FILE *f = tmpfile();
  if (!f) die("tmpfile");
  fputs("hello\nworld 42\nrest of it\nmore", f);
  rewind(f);
  memset(&V, 0, sizeof V);
  rec_str(r, FGETS(V.buf, 100, f));
  rec_int(r, GETC(f));
  rec_int(r, FGETC(f));
  rec_int(r, UNGETC('W', f));
  rec_int(r, FREAD(V.s, 1, 5, f));
  rec(r, V.s, 5);
  rec_int(r, FSCANF(f, "%d", &V.a));
  REC(r, V.a);
  char *line = NULL;
  size_t cap = 0;
  ssize_t got = GETLINE(&line, &cap, f);
  rec_int(r, got);
  rec_str(r, line);
  V.lines[0] = line;
  got = GETLINE(&line, &cap, f);
  rec_int(r, got);
  rec_str(r, line);
  V.lines[1] = line;
  got = GETLINE(&line, &cap, f);
  rec_int(r, got);
  rec_str(r, line);
  V.lines[2] = line;
  free(line);
  fclose(f);
}

static void test_other_input(void) {
  static rec_t real, wrapped;
  set_test("input from a FILE that is not stdin");
  memset(&real, 0, sizeof real);
  s_other_input(0, &real);
  memset(&wrapped, 0, sizeof wrapped);
  rl_stub_reset();
  rl_stdin_pos = 5;
  s_other_input(1, &wrapped);
  compare_recs(&real, &wrapped, __LINE__);
  CHECK_EQ(rl_stdin_pos, 5);
  CHECK_EQ(count_tag(RL_EV_INPUT) + count_tag(RL_EV_INPUT_CHAR) + count_tag(RL_EV_TOKEN), 0);
  EXPECT_WRITE(V.buf, 6);
  EXPECT_NUL(V.buf + 6);
  EXPECT_WRITE(V.s, 5);
  EXPECT_WRITE(&V.a, sizeof(int));
  EXPECT_WRITE(V.lines[0], 1); /* "\n": the rest of "world 42\n" */
  EXPECT_WRITE(V.lines[1], 11);
  EXPECT_WRITE(V.lines[2], 4);
  EXPECT_NUL(V.lines[2] + 4);
}

/* A file opened through the wrapped fopen is an input source of its own: OPEN names it,
 * and each input event from it follows a SOURCE and counts the file's bytes. */
static void s_file_source(int w, rec_t *r) {
  FILE *f = w ? __rl_wrap_fopen(in_path, "r") : fopen(in_path, "r");
  if (!f) die("fopen");
  memset(&V, 0, sizeof V);
  rec_int(r, FSCANF(f, "%d %d", &V.a, &V.b));
  REC(r, V.a);
  REC(r, V.b);
  rec_int(r, FGETC(f));
  rec_str(r, FGETS(V.buf, 100, f));
  rec_int(r, w ? __rl_wrap_fclose(f) : fclose(f));
  FILE *missing = w ? __rl_wrap_fopen("/nonexistent/rootline-input", "r")
                    : fopen("/nonexistent/rootline-input", "r");
  rec_int(r, missing == NULL);
  int fd = w ? __rl_wrap_open(in_path, O_RDONLY) : open(in_path, O_RDONLY);
  if (fd < 0) die("open");
  rec_int(r, READ(fd, V.s2, 4));
  rec(r, V.s2, 4);
  rec_int(r, w ? __rl_wrap_close(fd) : close(fd));
}

static void test_file_source(void) {
  static rec_t real, wrapped;
  set_test("input from a file opened with fopen");
  FILE *f = fopen(in_path, "w");
  if (!f) die("fopen");
  fputs("12 34\nab\n", f);
  fclose(f);
  memset(&real, 0, sizeof real);
  s_file_source(0, &real);
  memset(&wrapped, 0, sizeof wrapped);
  rl_stub_reset();
  rl_stdin_pos = 5;
  s_file_source(1, &wrapped);
  compare_recs(&real, &wrapped, __LINE__);
  CHECK_EQ(rl_stdin_pos, 5); /* stdin's position is not the file's */
  CHECK_EQ(count_tag(RL_EV_OPEN), 3);
  const struct rl_stub_event *open = nth_tag(RL_EV_OPEN, 0);
  CHECK(open && open->offset >= 1 && strcmp((const char *)open->bytes, in_path) == 0);
  const struct rl_stub_event *failed = nth_tag(RL_EV_OPEN, 1);
  CHECK(failed && failed->offset == 0);
  /* two tokens, one character, one line: each from the file, each after a SOURCE; then
   * read() from a descriptor open() gave: a source of its own, from byte 0 */
  CHECK_EQ(count_tag(RL_EV_TOKEN), 2);
  CHECK_EQ(count_tag(RL_EV_INPUT_CHAR), 1);
  CHECK_EQ(count_tag(RL_EV_INPUT), 2);
  CHECK_EQ(count_tag(RL_EV_SOURCE), 5);
  const struct rl_stub_event *byFd = nth_tag(RL_EV_OPEN, 2);
  CHECK(byFd && byFd->offset > open->offset);
  const struct rl_stub_event *readIn = nth_tag(RL_EV_INPUT, 1);
  CHECK(readIn && readIn->offset == 0 && readIn->len == 4 && readIn->addr == V.s2);
  const struct rl_stub_event *t0 = nth_tag(RL_EV_TOKEN, 0), *t1 = nth_tag(RL_EV_TOKEN, 1);
  CHECK(t0 && t0->offset == 0 && t0->len == 2);
  CHECK(t1 && t1->offset == 3 && t1->len == 2);
  const struct rl_stub_event *c = nth_tag(RL_EV_INPUT_CHAR, 0);
  CHECK(c && c->offset == 5);
  const struct rl_stub_event *line = nth_tag(RL_EV_INPUT, 0);
  CHECK(line && line->offset == 6 && line->len == 3);
  for (size_t i = 0; i + 1 < rl_stub_count; ++i)
    if (rl_stub_events[i].tag == RL_EV_SOURCE)
      CHECK(open && byFd &&
            rl_stub_events[i].offset ==
                (rl_stub_events[i + 1].addr == V.s2 ? byFd->offset : open->offset));
}

static const char *volatile fmt_var; /* formats gcc should not check */

/* ===================================================================================== */
/* printf family                                                                           */
/* ===================================================================================== */

static const char fmt_attr[] = "x=%d y=%s %5.2f%%\n";
static const char str_ab[] = "ab";
static void s_printf_attr(int w, rec_t *r) { rec_int(r, PRINTF(fmt_attr, 7, str_ab, 3.14159)); }
static void c_printf_attr(void) {
  EXPECT_OUTPUTS(1, {0, fmt_attr, "x="}, {1, NULL, "7"}, {0, fmt_attr + 4, " y="},
                 {2, str_ab, "ab"}, {0, fmt_attr + 9, " "}, {3, NULL, " 3.14"}, {0, NULL, "%"},
                 {0, fmt_attr + 17, "\n"});
  EXPECT_READ(str_ab, 3);
  EXPECT_READ(fmt_attr, sizeof fmt_attr);
}

static void s_printf_star(int w, rec_t *r) {
  rec_int(r, PRINTF("[%*d|%-*d|%.*f]\n", 5, 42, 4, 7, 2, 3.14159));
}
static void c_printf_star(void) {
  EXPECT_OUTPUTS(1, {0, ANY_SRC, "["}, {2, NULL, "   42"}, {0, ANY_SRC, "|"}, {4, NULL, "7   "},
                 {0, ANY_SRC, "|"}, {6, NULL, "3.14"}, {0, ANY_SRC, "]\n"});
}

static void s_printf_types(int w, rec_t *r) {
  rec_int(r, PRINTF("%ld|%lld|%c|%p|%Lf|%hhd|%zu|%jd|%td|%hd\n", 123456789012L, -5LL, 'Z',
                    (void *)0x1234, 2.5L, 300, (size_t)77, (intmax_t)-9, (ptrdiff_t)12, 70000));
}
static void c_printf_types(void) {
  EXPECT_OUTPUTS(1, {1, NULL, "123456789012"}, {0, ANY_SRC, "|"}, {2, NULL, "-5"},
                 {0, ANY_SRC, "|"}, {3, NULL, "Z"}, {0, ANY_SRC, "|"}, {4, NULL, "0x1234"},
                 {0, ANY_SRC, "|"}, {5, NULL, "2.500000"}, {0, ANY_SRC, "|"}, {6, NULL, "44"},
                 {0, ANY_SRC, "|"}, {7, NULL, "77"}, {0, ANY_SRC, "|"}, {8, NULL, "-9"},
                 {0, ANY_SRC, "|"}, {9, NULL, "12"}, {0, ANY_SRC, "|"}, {10, NULL, "4464"},
                 {0, ANY_SRC, "\n"});
}

static void s_printf_n(int w, rec_t *r) {
  memset(&V, 0, sizeof V);
  signed char hh = 0;
  rec_int(r, PRINTF("ab%ncd%hhn|%ln\n", &V.n, &hh, &V.l));
  REC(r, V.n);
  REC(r, hh);
  REC(r, V.l);
}
static void c_printf_n(void) {
  CHECK_EQ(V.n, 2);
  CHECK_EQ(V.l, 5);
  EXPECT_WRITE(&V.n, sizeof(int));
  EXPECT_WRITE(&V.l, sizeof(long));
  EXPECT_OUTPUTS(1, {0, ANY_SRC, "ab"}, {0, ANY_SRC, "cd"}, {0, ANY_SRC, "|"}, {0, ANY_SRC, "\n"});
}

static const char s_right[] = "ab", s_left[] = "c", s_cut[] = "xyz";
static void s_printf_pad(int w, rec_t *r) {
  rec_int(r, PRINTF("[%5s|%-4s|%.1s|%*s]", s_right, s_left, s_cut, -3, s_left));
}
static void c_printf_pad(void) {
  EXPECT_OUTPUTS(1, {0, ANY_SRC, "["}, {1, NULL, "   "}, {1, s_right, "ab"}, {0, ANY_SRC, "|"},
                 {2, s_left, "c"}, {2, NULL, "   "}, {0, ANY_SRC, "|"}, {3, s_cut, "x"},
                 {0, ANY_SRC, "|"}, {5, s_left, "c"}, {5, NULL, "  "}, {0, ANY_SRC, "]"});
  EXPECT_READ(s_right, 3);
  EXPECT_READ(s_left, 2);
  EXPECT_READ(s_cut, 1);
}

static void s_printf_misc(int w, rec_t *r) {
  static char longs[600];
  memset(longs, 'q', sizeof longs - 1);
  rec_int(r, PRINTF("%#x %#o %+d % d %05d %-5d| %X %u\n", 255, 8, 5, 5, 42, 42, 0xabcU, 4000000000U));
  rec_int(r, PRINTF("%e %g %a %E %G %A %F %.0f %#.3g\n", 1234.5, 0.0001, 1.5, 1e-10, 1e20, 2.0, 3.5, 2.5, 1.0));
  rec_int(r, PRINTF("%s|%10s|%-10s|%.2s|%5.1s|%s|%.3s\n", "abc", "right", "left", "truncate", "xy",
                    (char *)NULL, (char *)NULL));
  rec_int(r, PRINTF("%lc|%ls|%5ls|%C|%S\n", (wint_t)L'A', L"wide", L"w", (wint_t)L'B', L"S"));
  rec_int(r, PRINTF("%Lg %Le %La %LF\n", 1.0L / 3, 2.5L, 1.0L, 7.25L));
  rec_int(r, PRINTF("%hhx %hx %lx %llx %jx %zx %tx %qd\n", 0x1ff, 0x1ffff, 0x123456789aL,
                    0x12345678abcdLL, (uintmax_t)5, (size_t)6, (ptrdiff_t)7, 8LL));
  rec_int(r, PRINTF("%'d %'.2f %Id\n", 1234567, 1234567.891, 5));
  rec_int(r, PRINTF("%300d|%s\n", 1, longs));
  fmt_var = "";
  rec_int(r, PRINTF(fmt_var));
  rec_int(r, PRINTF("plain text only\n"));
  errno = ENOENT;
  rec_int(r, PRINTF("%m|%d|%-20m|\n", 5));
  rec_int(r, errno);
  rec_int(r, PRINTF("%2$s-%1$d\n", 5, "x"));
  fmt_var = "%5%|%y|%d\n";
  rec_int(r, PRINTF(fmt_var, 3));
  fmt_var = "%*%|%c%c\n";
  rec_int(r, PRINTF(fmt_var, 4, 'a', 'b'));
  fmt_var = "abc%";
  rec_int(r, PRINTF(fmt_var));
  rec_int(r, errno);
  fmt_var = "abc%l";
  rec_int(r, PRINTF(fmt_var));
  fmt_var = "%.-5d|%-.3d\n";
  rec_int(r, PRINTF(fmt_var, 5, 6));
}

static void s_puts_etc(int w, rec_t *r) {
  static const char hello[] = "hello", abc[] = "abc", arr[] = "123456";
  rec_int(r, PUTS(hello));
  rec_int(r, PUTCHAR('x'));
  rec_int(r, PUTC('y', stdout));
  rec_int(r, FPUTC(0x17a, stdout)); /* written as (unsigned char) 0x7a */
  rec_int(r, FPUTS(abc, stdout));
  rec_int(r, FPUTS("", stdout));
  rec_int(r, FWRITE(arr, 2, 3, stdout));
  rec_int(r, FWRITE(arr, 2, 0, stdout));
  fflush(stdout);
  rec_int(r, WRITE(1, "hi\n", 3));
  rec_int(r, WRITE(1, arr, 0));
  rec_int(r, PRINTF("%d\n", 5));
}
static void c_puts_etc(void) {
  EXPECT_OUTPUTS(1, {1, ANY_SRC, "hello"}, {0, NULL, "\n"}, {1, NULL, "x"}, {1, NULL, "y"},
                 {1, NULL, "z"}, {1, ANY_SRC, "abc"}, {1, ANY_SRC, "123456"}, {2, ANY_SRC, "hi\n"},
                 {1, NULL, "5"}, {0, ANY_SRC, "\n"});
  CHECK(nth_tag(RL_EV_OUTPUT, 0)->src != NULL);
  CHECK_EQ(nth_tag(RL_EV_MEM_READ, 0)->len, 6); /* puts read "hello\0" */
}

static void s_stderr(int w, rec_t *r) {
  rec_int(r, FPRINTF(stderr, "a%db%s\n", 5, "xy"));
  rec_int(r, FPUTS("line\n", stderr));
  rec_int(r, FPRINTF(stderr, "%2$d%1$d\n", 1, 2));
  fmt_var = "";
  rec_int(r, FPRINTF(stderr, fmt_var));
}
static void c_stderr(void) {
  EXPECT_OUTPUTS(2, {0, ANY_SRC, "a"}, {1, NULL, "5"}, {0, ANY_SRC, "b"}, {2, ANY_SRC, "xy"},
                 {0, ANY_SRC, "\n"}, {1, ANY_SRC, "line\n"}, {0, NULL, "21\n"});
}

/* A file named by ROOTLINE_STDOUT_FILE: its writes are logged as stdout (fd 1, stdout's
 * offsets) while it is open; the real stdout's as RL_REAL_STDOUT_FD, always. */
static void test_output_file_as_stdout(void) {
  set_test("the file ROOTLINE_STDOUT_FILE names is logged as stdout");
  const char *name = "rl-output-file-check.txt";
  setenv("ROOTLINE_STDOUT_FILE", name, 1);
  rl_forget_stdout_file();
  rl_stub_reset();
  rl_out_pos[1] = rl_out_pos[2] = 0;
  int w = 1;
  FILE *other = __rl_wrap_fopen(out_path, "w");
  FILE *f = __rl_wrap_fopen(name, "w");
  if (!f || !other) die("fopen");
  int fd = fileno(f);
  CHECK_EQ(rl_output_fd(fd), 1);
  CHECK_EQ(rl_output_fd(1), RL_REAL_STDOUT_FD);
  CHECK_EQ(rl_output_fd(fileno(other)), fileno(other));
  FWRITE("abc", 1, 3, f);
  FWRITE("zz", 1, 2, other);
  FPUTS("de", f);
  __rl_wrap_fclose(f);
  __rl_wrap_fclose(other);
  CHECK_EQ(rl_output_fd(fd), fd);
  CHECK_EQ(rl_output_fd(1), RL_REAL_STDOUT_FD); /* also once the file is closed */
  const struct rl_stub_event *a = nth_tag(RL_EV_OUTPUT, 0), *b = nth_tag(RL_EV_OUTPUT, 1),
                             *c = nth_tag(RL_EV_OUTPUT, 2);
  CHECK(a && a->fd == 1 && a->offset == 0 && a->len == 3 && memcmp(a->bytes, "abc", 3) == 0);
  CHECK(b && b->fd != 1 && b->len == 2);
  CHECK(c && c->fd == 1 && c->offset == 3 && c->len == 2 && memcmp(c->bytes, "de", 2) == 0);
  CHECK_EQ(rl_out_pos[1], 5);
  unsetenv("ROOTLINE_STDOUT_FILE");
  rl_forget_stdout_file();
  CHECK_EQ(rl_output_fd(1), 1);
  unlink(name);
  rl_out_pos[1] = rl_out_pos[2] = 0;
}

/* stdout or stderr pointed by the program at a file of its own (freopen, diffstat -o and
 * -e): their writes are that file's, logged on RL_INTO_FILE_FD + 1 or + 2, until closed;
 * "/dev/stdout" is the stream itself again. */
static void test_std_stream_into_file(void) {
  set_test("stdout and stderr pointed at a file of the program's own are logged apart");
  CHECK_EQ(rl_output_fd(1), 1);
  CHECK_EQ(rl_output_fd(2), 2);
  rl_opened_for_writing(2, "diagnostics.txt");
  CHECK_EQ(rl_output_fd(2), RL_INTO_FILE_FD + 2);
  CHECK_EQ(rl_output_fd(1), 1);
  rl_opened_for_writing(1, "/dev/stdout");
  CHECK_EQ(rl_output_fd(1), 1);
  rl_opened_for_writing(1, "result.txt");
  CHECK_EQ(rl_output_fd(1), RL_INTO_FILE_FD + 1);
  rl_closed_for_writing(1);
  rl_closed_for_writing(2);
  CHECK_EQ(rl_output_fd(1), 1);
  CHECK_EQ(rl_output_fd(2), 2);
}

/* dup2 of a file onto stdout (gnulib's fd_reopen) is that file's; putting the saved
 * stdout back makes it stdout again. Nothing is printed between the two. */
static void test_dup2_onto_stdout(void) {
  set_test("dup2 of a file onto stdout is logged apart until the saved stdout is back");
  fflush(stdout);
  rl_note_std_origins();
  int saved = dup(1);
  char name[] = "/tmp/rl_io_dup2XXXXXX"; /* not what stdout leads to now */
  int f = mkstemp(name);
  if (saved < 0 || f < 0) die("dup");
  unlink(name);
  int ok = __rl_wrap_dup2(f, 1) == 1;
  int into = rl_output_fd(1);
  ok = ok && __rl_wrap_dup2(saved, 1) == 1;
  int back = rl_output_fd(1);
  close(f);
  close(saved);
  CHECK(ok);
  CHECK_EQ(into, RL_INTO_FILE_FD + 1);
  CHECK_EQ(back, 1);
}

static void test_fprintf_file(void) {
  static rec_t real, wrapped;
  static unsigned char a[256], b[256];
  set_test("fprintf/fputs/fwrite to a FILE that is not stdout");
  for (int w = 0; w < 2; ++w) {
    rec_t *r = w ? &wrapped : &real;
    memset(r, 0, sizeof *r);
    FILE *f = tmpfile();
    if (!f) die("tmpfile");
    rl_stub_reset();
    rl_out_pos[1] = rl_out_pos[2] = 0;
    rec_int(r, FPRINTF(f, "n=%d s=%s\n", 42, "str"));
    rec_int(r, FPUTS("tail", f));
    rec_int(r, FPUTC('!', f));
    rec_int(r, FWRITE("xyz", 1, 3, f));
    rewind(f);
    size_t n = fread(w ? b : a, 1, 256, f);
    rec_int(r, (long long)n);
    if (w) {
      check_output_stream(__LINE__, fileno(f), b, n, 0);
      CHECK_EQ(rl_out_pos[1] + rl_out_pos[2], 0);
    }
    fclose(f);
  }
  compare_recs(&real, &wrapped, __LINE__);
  CHECK(memcmp(a, b, sizeof a) == 0);

  /* a read-only stream: both fail with EBADF, with or without output */
  set_test("fprintf to a read-only stream");
  write_file(in_path, "x", 1);
  for (int k = 0; k < 3; ++k) {
    FILE *f1 = fopen(in_path, "r"), *f2 = fopen(in_path, "r");
    if (!f1 || !f2) die("fopen");
    const char *fm = k == 0 ? "abc%d" : k == 1 ? "" : "%2$d";
    errno = 0;
    int r1 = fprintf(f1, fm, 1, 2);
    int e1 = errno, fe1 = ferror(f1);
    errno = 0;
    int r2 = __rl_wrap_fprintf(f2, fm, 1, 2);
    int e2 = errno, fe2 = ferror(f2);
    CHECK_EQ(r2, r1);
    CHECK_EQ(e2, e1);
    CHECK_EQ(fe2, fe1);
    errno = 0;
    r1 = fputs("q", f1);
    e1 = errno;
    errno = 0;
    r2 = __rl_wrap_fputs("q", f2);
    e2 = errno;
    CHECK_EQ(r2, r1);
    CHECK_EQ(e2, e1);
    fclose(f1);
    fclose(f2);
  }
}

/* sprintf / snprintf against the real ones */
static char sbuf_r[512], sbuf_w[512];
#define SCMP(...)                                                                        \
  do {                                                                                   \
    memset(sbuf_r, 0x5a, sizeof sbuf_r);                                                 \
    memset(sbuf_w, 0x5a, sizeof sbuf_w);                                                 \
    int r1_ = sprintf(sbuf_r, __VA_ARGS__);                                              \
    rl_stub_reset();                                                                     \
    int r2_ = __rl_wrap_sprintf(sbuf_w, __VA_ARGS__);                                    \
    CHECK_EQ(r2_, r1_);                                                                  \
    CHECK(memcmp(sbuf_r, sbuf_w, sizeof sbuf_r) == 0);                                   \
    if (r1_ >= 0) EXPECT_WRITE(sbuf_w, (uint64_t)r1_ + 1);                               \
  } while (0)
#define SNCMP(size, ...)                                                                 \
  do {                                                                                   \
    memset(sbuf_r, 0x5a, sizeof sbuf_r);                                                 \
    memset(sbuf_w, 0x5a, sizeof sbuf_w);                                                 \
    int r1_ = snprintf(size ? sbuf_r : NULL, size, __VA_ARGS__);                         \
    rl_stub_reset();                                                                     \
    int r2_ = __rl_wrap_snprintf(size ? sbuf_w : NULL, size, __VA_ARGS__);               \
    CHECK_EQ(r2_, r1_);                                                                  \
    CHECK(memcmp(sbuf_r, sbuf_w, sizeof sbuf_r) == 0);                                   \
    if (size > 0) EXPECT_WRITE(sbuf_w, (size_t)r1_ < (size_t)(size) ? (size_t)r1_ + 1 : (size_t)(size)); \
    else CHECK_EQ(count_tag(RL_EV_MEM_WRITE), 0);                                        \
  } while (0)

static void test_sprintf(void) {
  static const char ab[] = "ab", cd[] = "cdef";
  set_test("sprintf");
  int n1 = 0, n2 = 0;
  memset(sbuf_r, 0, sizeof sbuf_r);
  int r1 = sprintf(sbuf_r, "%s-%d-%n%.2s|%*d", ab, 5, &n1, cd, 4, 9);
  rl_stub_reset();
  int r2 = __rl_wrap_sprintf(sbuf_w, "%s-%d-%n%.2s|%*d", ab, 5, &n2, cd, 4, 9);
  CHECK_EQ(r2, r1);
  CHECK_EQ(n2, n1);
  CHECK(strcmp(sbuf_r, sbuf_w) == 0);
  CHECK(nth_tag(RL_EV_MEM_READ, 0)->addr == ab); /* argument reads before the format's */
  EXPECT_READ(ab, 3);
  EXPECT_READ(cd, 2);
  EXPECT_WRITE(&n2, sizeof(int));
  EXPECT_WRITE(sbuf_w, (uint64_t)r1 + 1);
  SCMP("x=%d y=%s %5.2f%%\n", 7, "ab", 3.14159);
  SCMP("%ld|%lld|%c|%p|%Lf|%hhd|%zu", 123456789012L, -5LL, 'Z', (void *)0x1234, 2.5L, 300, (size_t)77);
  SCMP("%2$s %1$s", "a", "b");
  SCMP("%s", "");
  SCMP("%ls", L"wide");
  set_test("snprintf");
  SNCMP(5, "%s", "hello world");
  SNCMP(0, "%d", 12345);
  SNCMP(100, "%d-%s", 12345, "x");
  SNCMP(6, "%d-%s", 12345, "x");
  SNCMP(1, "%d", 7);
}

/* ===================================================================================== */

int main(void) {
  int rep_fd = dup(1);
  rep = rep_fd >= 0 ? fdopen(rep_fd, "w") : NULL;
  if (!rep) return 2;
  setvbuf(rep, NULL, _IOLBF, 0);
  int fd = mkstemp(in_path);
  if (fd < 0) die("mkstemp");
  close(fd);
  fd = mkstemp(out_path);
  if (fd < 0) die("mkstemp");
  close(fd);

  cmp_stdin("getchar/getc/fgetc/ungetc", "ab", 2, s_chars, c_chars);
  cmp_stdin("fgets", "hello\na\0b\nend", 13, s_fgets, c_fgets);
  cmp_stdin("fread partial item", "1234567", 7, s_fread, c_fread);
  cmp_stdin("read fd 0", "abcdefgh", 8, s_read, c_read);
  {
    static char gl[400];
    strcpy(gl, "first line\n");
    memset(gl + 11, 'L', 300);
    strcpy(gl + 311, "\n");
    cmp_stdin("getline", gl, strlen(gl), s_getline, c_getline);
  }
  {
    static char ll[5010];
    memset(ll, 'a', 5000);
    strcpy(ll + 5000, "\nbcd x");
    cmp_stdin("fgets long line, ungetc of another byte, scanf", ll, strlen(ll), s_fgets_long,
              c_fgets_long);
  }
  cmp_stdin("scanf %d %d", "  12 -7\n", 8, s_dd, c_dd);
  cmp_stdin("scanf %d%c%s", "42x hello\n", 10, s_dcs, c_dcs);
  cmp_stdin("scanf %[a-z]%5s%*d %d", "abc1234567 42", 13, s_set, c_set);
  cmp_stdin("scanf %d%n", " 123 ", 5, s_n, c_n);
  cmp_stdin("scanf matching failure", "abc", 3, s_d, c_no_tokens);
  cmp_stdin("scanf EOF at start", "", 0, s_d, c_no_tokens);
  cmp_stdin("scanf EOF after space", "   ", 3, s_d, c_no_tokens);
  cmp_stdin("scanf sign then failure", "-x", 2, s_d, c_no_tokens);
  cmp_stdin("scanf loop", "1 2 3\n", 6, s_loop, c_loop);
  {
    static char big[5000];
    size_t n = 0;
    for (int i = 0; i < 2047; ++i) {
      big[n++] = '1';
      big[n++] = ' ';
    }
    memcpy(big + n, " -x", 3);
    n += 3;
    cmp_stdin("scanf loop across a pipe refill", big, n, s_loop, c_loop_long);
  }
  cmp_stdin("fscanf(stdin) floats and literals", "3.5 2.25 1.125 (42,-77)", 23, s_fscanf_stdin,
            c_fscanf_stdin);
  cmp_stdin("scanf %ms", "  word z", 8, s_ms, c_ms);
  cmp_stdin("scanf mixed with getchar and fgets", "12\nline\nabc", 11, s_mixed, c_mixed);
  run_battery("C");
  run_battery("C.UTF-8");
  test_other_input();
  test_file_source();

  cmp_out("printf argument attribution", 1, s_printf_attr, c_printf_attr);
  cmp_out("printf %*d", 1, s_printf_star, c_printf_star);
  cmp_out("printf length modifiers", 1, s_printf_types, c_printf_types);
  cmp_out("printf %n", 1, s_printf_n, c_printf_n);
  cmp_out("printf %s padding", 1, s_printf_pad, c_printf_pad);
  cmp_out("printf miscellany", 1, s_printf_misc, NULL);
  cmp_out("puts putchar putc fputc fputs fwrite write", 1, s_puts_etc, c_puts_etc);
  cmp_out("fprintf to unbuffered stderr", 2, s_stderr, c_stderr);
  test_fprintf_file();
  test_output_file_as_stdout();
  test_std_stream_into_file();
  test_dup2_onto_stdout();
  test_sprintf();

  unlink(in_path);
  unlink(out_path);
  if (n_limited)
    fprintf(rep, "note: %d pipe scenarios hit the documented end-of-input limitation\n", n_limited);
  fprintf(rep, "%d passed, %d failed\n", n_pass, n_fail);
  return n_fail ? 1 : 0;
}
