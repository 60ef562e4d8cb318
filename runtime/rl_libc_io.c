/* Wrappers for libc stdio input and output: each behaves exactly like the real function
 * (it calls it, or the same stdio primitives in the same order) and logs which stdin
 * bytes were consumed and where they went, which output bytes each argument produced,
 * and the memory the call read and wrote.
 *
 * scanf on stdin is run one directive at a time through the real fscanf, each piece
 * followed by %n, so every conversion is tied to the stdin bytes of its token. printf is
 * run one conversion at a time through the real snprintf and written with fwrite to the
 * same FILE, so buffering and ordering are those of the real stdio. */
#define _GNU_SOURCE
#include "rl_runtime.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include <wchar.h>

/* glibc FILE flag bits that bits/types/struct_FILE.h does not publish (stable ABI). */
#ifndef _IO_UNBUFFERED
#define _IO_UNBUFFERED 0x0002
#endif
#ifndef _IO_ERR_SEEN
#define _IO_ERR_SEEN 0x0020
#endif
#ifndef _IO_IN_BACKUP
#define _IO_IN_BACKUP 0x0100
#endif

/* The C99 scanf entry points, whatever -std the runtime is compiled with: the wrappers
 * implement __isoc99_* semantics (%a is a float conversion, not an allocation flag). */
#ifdef __GLIBC__
extern int __isoc99_fscanf(FILE *stream, const char *format, ...);
extern int __isoc99_sscanf(const char *s, const char *format, ...);
extern int __isoc99_vfscanf(FILE *stream, const char *format, va_list ap);
extern int __isoc99_vsscanf(const char *s, const char *format, va_list ap);
#define RL_REAL_FSCANF __isoc99_fscanf
#define RL_REAL_SSCANF __isoc99_sscanf
#define RL_REAL_VFSCANF __isoc99_vfscanf
#define RL_REAL_VSSCANF __isoc99_vsscanf
#else
#define RL_REAL_FSCANF fscanf
#define RL_REAL_SSCANF sscanf
#define RL_REAL_VFSCANF vfscanf
#define RL_REAL_VSSCANF vsscanf
#endif

/* Logging must not disturb the errno the real call left behind. */
#define RL_KEEP_ERRNO(stmt)                                                                        \
  do {                                                                                             \
    int rl_saved_errno_ = errno;                                                                   \
    stmt;                                                                                          \
    errno = rl_saved_errno_;                                                                       \
  } while (0)

int rl_stream_fd(struct _IO_FILE *stream) {
  if (!stream)
    return -1;
  int e = errno;
  int fd = fileno(stream);
  errno = e;
  return fd;
}

/* --- shared helpers --------------------------------------------------------------- */

/* One OUTPUT event for `len` bytes written to `fd`; advances the fd 1/2 position. */
void rl_log_output(int fd, int32_t arg, const void *src, const void *bytes, size_t len) {
  if (len == 0)
    return;
  int e = errno;
  fd = rl_output_fd(fd);
  uint64_t off = (fd == 1 || fd == 2) ? rl_out_pos[fd] : 0;
  rl_ev_output(fd, off, arg, src, bytes, len);
  if (fd == 1 || fd == 2)
    rl_out_pos[fd] += len;
  errno = e;
}

/* `len` bytes read from `stream` were stored at `dst`. */
static void rl_log_stored(FILE *stream, const void *dst, size_t len) {
  if (len == 0)
    return;
  int e = errno;
  uint32_t id;
  uint64_t *pos = rl_source_pos(stream, &id);
  if (pos) {
    rl_ev_source(id);
    rl_ev_input(*pos, dst, len);
    *pos += len;
  } else {
    rl_ev_mem_write(dst, len);
  }
  errno = e;
}

static __attribute__((noinline)) void rl_log_format_read(const char *fmt) {
  if (fmt)
    RL_KEEP_ERRNO(rl_ev_mem_read(fmt, strlen(fmt) + 1));
}

/* Length modifiers, as glibc groups them (L, q and ll are the same modifier). */
enum { RL_LEN_NONE, RL_LEN_HH, RL_LEN_H, RL_LEN_L, RL_LEN_LL, RL_LEN_J, RL_LEN_Z, RL_LEN_T };

static int rl_len_is_long(int len) {
  return len == RL_LEN_L || len == RL_LEN_LL || len == RL_LEN_J || len == RL_LEN_Z ||
         len == RL_LEN_T;
}

/* Store a %n count through `p` with the type its length modifier names. */
static void rl_store_count(void *p, int len, long long value) {
  size_t size;
  switch (len) {
  case RL_LEN_HH:
    *(signed char *)p = (signed char)value;
    size = 1;
    break;
  case RL_LEN_H:
    *(short *)p = (short)value;
    size = sizeof(short);
    break;
  case RL_LEN_LL:
    *(long long *)p = value;
    size = sizeof(long long);
    break;
  case RL_LEN_L:
  case RL_LEN_J:
  case RL_LEN_Z:
  case RL_LEN_T:
    *(long *)p = (long)value;
    size = sizeof(long);
    break;
  default:
    *(int *)p = (int)value;
    size = sizeof(int);
    break;
  }
  RL_KEEP_ERRNO(rl_ev_mem_write(p, size));
}

/* A growable text buffer that starts on the caller's stack. */
struct rl_text {
  char *p;
  size_t len, cap;
  char *stack;
};

static void rl_text_init(struct rl_text *t, char *stack, size_t cap) {
  t->p = t->stack = stack;
  t->len = 0;
  t->cap = cap;
  t->p[0] = '\0';
}

static int rl_text_reserve(struct rl_text *t, size_t need) {
  if (need <= t->cap)
    return 0;
  size_t cap = t->cap * 2 > need ? t->cap * 2 : need;
  char *p = t->p == t->stack ? malloc(cap) : realloc(t->p, cap);
  if (!p)
    return -1;
  if (t->p == t->stack)
    memcpy(p, t->stack, t->len + 1);
  t->p = p;
  t->cap = cap;
  return 0;
}

static int rl_text_add(struct rl_text *t, const char *s, size_t n) {
  if (rl_text_reserve(t, t->len + n + 1) != 0)
    return -1;
  memcpy(t->p + t->len, s, n);
  t->len += n;
  t->p[t->len] = '\0';
  return 0;
}

static void rl_text_free(struct rl_text *t) {
  if (t->p != t->stack)
    free(t->p);
  t->p = t->stack;
}

/* --- character and line input ---------------------------------------------------- */

static int rl_after_getc(FILE *stream, int c) {
  uint32_t id;
  uint64_t *pos;
  if (c != EOF && (pos = rl_source_pos(stream, &id))) {
    int e = errno;
    rl_ev_source(id);
    rl_ev_input_char(*pos);
    ++*pos;
    errno = e;
  }
  return c;
}

int __rl_wrap_getchar(void) {
  FILE *in = stdin;
  int c = getchar();
  return rl_after_getc(in, c);
}

int __rl_wrap_getc(FILE *stream) {
  int c = getc(stream);
  return rl_after_getc(stream, c);
}

int __rl_wrap_fgetc(FILE *stream) {
  int c = fgetc(stream);
  return rl_after_getc(stream, c);
}

int __rl_wrap_ungetc(int c, FILE *stream) {
  int r = ungetc(c, stream);
  uint32_t id;
  uint64_t *pos = rl_source_pos(stream, &id);
  if (r != EOF && pos && *pos > 0)
    --*pos;
  return r;
}

/* glibc's fgets (libio/iofgets.c) with _IO_getline spelled as a getc_unlocked loop, so
 * the number of bytes stored is known even when the input contains NUL bytes. */
char *__rl_wrap_fgets(char *s, int n, FILE *stream) {
  if (n <= 0)
    return NULL;
  if (n == 1) {
    s[0] = '\0';
    RL_KEEP_ERRNO(rl_ev_mem_write(s, 1));
    return s;
  }
  flockfile(stream);
  int old_error = stream->_flags & _IO_ERR_SEEN;
  stream->_flags &= ~_IO_ERR_SEEN;
  size_t count = 0, max = (size_t)n - 1;
  while (count < max) {
    int c = getc_unlocked(stream);
    if (c == EOF)
      break;
    s[count++] = (char)c;
    if (c == '\n')
      break;
  }
  char *result;
  if (count == 0 || ((stream->_flags & _IO_ERR_SEEN) && errno != EAGAIN)) {
    result = NULL;
  } else {
    s[count] = '\0';
    result = s;
  }
  stream->_flags |= old_error;
  funlockfile(stream);
  rl_log_stored(stream, s, count);
  if (result) /* the NUL: a known byte, so models of strlen and strcmp see the line end */
    RL_KEEP_ERRNO(rl_ev_mem_set(s + count, 0, 1));
  return result;
}

/* fread of size*nmemb single bytes returns the exact byte count (glibc's fread is
 * _IO_sgetn of size*nmemb bytes); the item count is then derived as glibc does. */
size_t __rl_wrap_fread(void *ptr, size_t size, size_t nmemb, FILE *stream) {
  size_t request = size * nmemb;
  if (request == 0)
    return 0;
  size_t got = fread(ptr, 1, request, stream);
  rl_log_stored(stream, ptr, got);
  return got == request ? nmemb : got / size;
}

ssize_t __rl_wrap_read(int fd, void *buf, size_t count) {
  ssize_t r = read(fd, buf, count);
  if (r > 0) {
    int e = errno;
    uint32_t id;
    uint64_t *pos = rl_source_fd_pos(fd, &id);
    if (pos) {
      rl_ev_source(id);
      rl_ev_input(*pos, buf, (uint64_t)r);
      *pos += (uint64_t)r;
    } else {
      rl_ev_mem_write(buf, (uint64_t)r);
    }
    errno = e;
  }
  return r;
}

ssize_t __rl_wrap_getline(char **lineptr, size_t *n, FILE *stream) {
  char *old = lineptr ? *lineptr : NULL;
  size_t old_n = n ? *n : 0;
  ssize_t r = getline(lineptr, n, stream);
  if (!lineptr || !n)
    return r;
  int e = errno;
  char *buf = *lineptr;
  /* Same convention as the realloc wrapper: a HEAP_ALLOC at a live address is a
   * resize; a moved block is a new allocation followed by the old one's free. */
  if (buf != old) {
    if (buf)
      rl_ev_heap_alloc(buf, *n);
    if (old)
      rl_ev_heap_free(old);
  } else if (buf && *n != old_n) {
    rl_ev_heap_alloc(buf, *n);
  }
  errno = e;
  if (r > 0) {
    rl_log_stored(stream, buf, (size_t)r);
    RL_KEEP_ERRNO(rl_ev_mem_set(buf + r, 0, 1));
  }
  return r;
}

int __rl_wrap_getc_unlocked(FILE *stream) { return __rl_wrap_getc(stream); }
int __rl_wrap_getchar_unlocked(void) { return __rl_wrap_getchar(); }
int __rl_wrap_fgetc_unlocked(FILE *stream) { return __rl_wrap_fgetc(stream); }
char *__rl_wrap_fgets_unlocked(char *s, int n, FILE *stream) {
  return __rl_wrap_fgets(s, n, stream);
}
size_t __rl_wrap_fread_unlocked(void *ptr, size_t size, size_t nmemb, FILE *stream) {
  return __rl_wrap_fread(ptr, size, nmemb, stream);
}

/* --- scanf family ------------------------------------------------------------------ */

/* One conversion specification of a scanf format, parsed as glibc's vfscanf does. */
struct rl_sspec {
  const char *end; /* one past the specification (past the ']' of a scanset) */
  int suppress;    /* '*' */
  int mflag;       /* 'm': the argument is a char ** that receives a malloc'd buffer */
  int width;       /* -1: none */
  int len;         /* RL_LEN_* */
  int positional;  /* %N$ */
  int bad_set;     /* '[' without its closing ']' */
  char conv;       /* 0: the format ends inside the specification */
};

static void rl_scan_parse(const char *f, struct rl_sspec *s) {
  memset(s, 0, sizeof *s);
  s->width = -1;
  const char *p = f + 1;
  int width = 0;
  if (isdigit((unsigned char)*p)) {
    const char *q = p;
    long v = 0;
    while (isdigit((unsigned char)*q)) {
      if (v < INT_MAX / 10)
        v = v * 10 + (*q - '0');
      ++q;
    }
    if (*q == '$') {
      s->positional = 1;
      p = q + 1;
    } else {
      width = (int)v; /* no flags may follow a width */
      p = q;
      goto got_width;
    }
  }
  while (*p == '*' || *p == '\'' || *p == 'I') {
    if (*p == '*')
      s->suppress = 1;
    ++p;
  }
  while (isdigit((unsigned char)*p)) {
    if (width < INT_MAX / 10)
      width = width * 10 + (*p - '0');
    ++p;
  }
got_width:
  s->width = width == 0 ? -1 : width;
  switch (*p) {
  case 'h':
    ++p;
    if (*p == 'h') {
      ++p;
      s->len = RL_LEN_HH;
    } else {
      s->len = RL_LEN_H;
    }
    break;
  case 'l':
    ++p;
    if (*p == 'l') {
      ++p;
      s->len = RL_LEN_LL;
    } else {
      s->len = RL_LEN_L;
    }
    break;
  case 'q':
  case 'L':
    ++p;
    s->len = RL_LEN_LL;
    break;
  case 'm':
    ++p;
    s->mflag = 1;
    if (*p == 'l') {
      ++p;
      s->len = RL_LEN_L;
    }
    break;
  case 'z':
    ++p;
    s->len = RL_LEN_Z;
    break;
  case 'j':
    ++p;
    s->len = RL_LEN_J;
    break;
  case 't':
    ++p;
    s->len = RL_LEN_T;
    break;
  default:
    break;
  }
  if (*p == '\0') {
    s->end = p;
    return;
  }
  s->conv = *p++;
  if (s->conv == '[') {
    if (*p == '^')
      ++p;
    if (*p == ']' || *p == '-')
      ++p;
    while (*p != '\0' && *p != ']')
      ++p;
    if (*p == '\0')
      s->bad_set = 1;
    else
      ++p;
  }
  s->end = p;
}

static int rl_scan_known_conv(char c) {
  if (c == 0)
    return 0;
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 38)
  if (c == 'b')
    return 1;
#endif
  return strchr("diouxXpeEfFgGaAcCsS[%n", c) != NULL;
}

static int rl_scan_has_positional(const char *f) {
  while (*f) {
    if (*f != '%') {
      ++f;
      continue;
    }
    struct rl_sspec s;
    rl_scan_parse(f, &s);
    if (s.positional)
      return 1;
    if (s.conv == 0 || s.bad_set)
      return 0; /* the scan stops there anyway */
    f = s.end;
  }
  return 0;
}

/* Where the stdin FILE's read pointers are; used to measure how much a failed
 * conversion consumed when stdin cannot ftell (pipes, terminals). */
struct rl_snap {
  const char *base, *ptr, *end;
  int backup;
};

static void rl_snap_take(FILE *fp, struct rl_snap *s) {
#ifdef __GLIBC__
  s->base = fp->_IO_read_base;
  s->ptr = fp->_IO_read_ptr;
  s->end = fp->_IO_read_end;
  s->backup = (fp->_flags & _IO_IN_BACKUP) != 0;
#else
  (void)fp;
  memset(s, 0, sizeof *s);
  s->backup = 1;
#endif
}

/* Bytes consumed between two snapshots, assuming at most one buffer refill; 0 when
 * that cannot be told (pushback buffers in use). */
static size_t rl_snap_consumed(const struct rl_snap *a, const struct rl_snap *b) {
  if (a->backup || b->backup || !b->base)
    return 0;
  if (a->ptr == b->ptr && a->end == b->end)
    return 0;
  /* Empty (or not yet allocated) buffer before: the call refilled it. */
  if (a->ptr == a->end)
    return b->ptr >= b->base ? (size_t)(b->ptr - b->base) : 0;
  if (a->base != b->base || !a->ptr)
    return 0;
  if (a->end == b->end && b->ptr >= a->ptr)
    return (size_t)(b->ptr - a->ptr);
  return (size_t)(a->end - a->ptr) + (size_t)(b->ptr - b->base); /* one refill */
}

struct rl_scan {
  FILE *fp;        /* the stream, or NULL for sscanf */
  const char *str; /* sscanf's input */
  int is_stdin;    /* an input source (stdin or a file): log tokens, advance its position */
  uint32_t source; /* its number (0: stdin as the process started) */
  uint64_t *source_pos;
  size_t pos;    /* bytes consumed so far by this call */
  uint64_t base; /* the source's position at entry */
  off_t tell0;   /* ftello(stream) at entry, -1 when it cannot seek */
  int ran;       /* a real scanf call was made */
  struct rl_text piece;
};

static int rl_scan_call(struct rl_scan *sc, const char *piece, void *a, void *b, void *c) {
  sc->ran = 1;
  if (sc->fp)
    return RL_REAL_FSCANF(sc->fp, piece, a, b, c);
  return RL_REAL_SSCANF(sc->str + sc->pos, piece, a, b, c);
}

/* piece = [" "] "%n" body "%n"; returns -1 when out of memory. */
static int rl_scan_build(struct rl_scan *sc, int space, const char *body, size_t n) {
  sc->piece.len = 0;
  sc->piece.p[0] = '\0';
  if (space && rl_text_add(&sc->piece, " ", 1) != 0)
    return -1;
  if (rl_text_add(&sc->piece, "%n", 2) != 0)
    return -1;
  if (rl_text_add(&sc->piece, body, n) != 0)
    return -1;
  return rl_text_add(&sc->piece, "%n", 2);
}

/* Skip white space as a format white-space directive does. */
static void rl_scan_skip_space(struct rl_scan *sc) {
  int n = -1;
  rl_scan_call(sc, " %n", &n, NULL, NULL);
  if (n > 0)
    sc->pos += (size_t)n;
}

/* Bytes a failed piece consumed: at least the white space its leading %n counted; on
 * stdin what ftell or the FILE's read pointers say. */
static size_t rl_scan_failed_used(struct rl_scan *sc, int n1, const struct rl_snap *before) {
  size_t used = n1 > 0 ? (size_t)n1 : 0;
  if (!sc->is_stdin)
    return used;
  int e = errno;
  if (sc->tell0 >= 0) {
    off_t t = ftello(sc->fp);
    if (t >= 0 && (uint64_t)t >= (uint64_t)sc->tell0 + sc->pos) {
      size_t m = (size_t)((uint64_t)t - (uint64_t)sc->tell0 - sc->pos);
      if (m > used)
        used = m;
    }
  } else {
    struct rl_snap after;
    rl_snap_take(sc->fp, &after);
    size_t m = rl_snap_consumed(before, &after);
    if (m > used)
      used = m;
  }
  errno = e;
  return used;
}

/* Size in bytes of what an assigning conversion stored at addr. */
static uint32_t rl_scan_size(const struct rl_sspec *s, const void *addr, size_t toklen) {
  char c = s->conv;
  int wide = c == 'C' || c == 'S' || rl_len_is_long(s->len);
  switch (c) {
  case 'c':
  case 'C':
    if (wide) {
      size_t w = s->width > 0 ? (size_t)s->width : 1;
      return (uint32_t)((w < toklen ? w : toklen) * sizeof(wchar_t));
    }
    return (uint32_t)toklen;
  case 's':
  case 'S':
  case '[':
    if (wide)
      return (uint32_t)((wcslen((const wchar_t *)addr) + 1) * sizeof(wchar_t));
    return (uint32_t)(strlen((const char *)addr) + 1);
  case 'p':
    return sizeof(void *);
  case 'e':
  case 'E':
  case 'f':
  case 'F':
  case 'g':
  case 'G':
  case 'a':
  case 'A':
    if (s->len == RL_LEN_LL)
      return sizeof(long double);
    if (rl_len_is_long(s->len))
      return sizeof(double);
    return sizeof(float);
  default:
    switch (s->len) {
    case RL_LEN_HH:
      return 1;
    case RL_LEN_H:
      return sizeof(short);
    case RL_LEN_L:
      return sizeof(long);
    case RL_LEN_LL:
      return sizeof(long long);
    case RL_LEN_J:
      return sizeof(intmax_t);
    case RL_LEN_Z:
      return sizeof(size_t);
    case RL_LEN_T:
      return sizeof(ptrdiff_t);
    default:
      return sizeof(int);
    }
  }
}

/* `skipped_space`: white space was skipped right before this %c or %[ token, so its
 * first byte cannot be white space (bit 7 of the logged conversion). */
static void rl_scan_log(struct rl_scan *sc, const struct rl_sspec *s, void *dst, size_t start,
                        size_t toklen, int skipped_space) {
  int e = errno;
  void *addr = dst;
  int is_string = strchr("cCsS[", s->conv) != NULL;
  if (s->mflag && is_string) {
    addr = *(void **)dst;
    uint32_t size = rl_scan_size(s, addr, toklen);
    rl_ev_heap_alloc(addr, size);
    rl_ev_mem_write(dst, sizeof(void *));
  }
  uint32_t size = rl_scan_size(s, addr, toklen);
  char conv = (char)(s->conv | (skipped_space ? 0x80 : 0));
  if (sc->is_stdin) {
    rl_ev_source(sc->source);
    rl_ev_token(sc->base + start, toklen, addr, size, conv);
  } else if (sc->str)
    rl_ev_mem_token(sc->str + start, toklen, addr, size, conv);
  else
    rl_ev_mem_write(addr, size);
  errno = e;
}

/* Run `fmt` one directive at a time; returns what one real scanf call would. */
static int rl_scan_engine(struct rl_scan *sc, const char *fmt, va_list *ap) {
  int done = 0, pending_space = 0, result;
  mbstate_t mbs;
  memset(&mbs, 0, sizeof mbs);
  const char *f = fmt;
  while (*f) {
    unsigned char ch = (unsigned char)*f;
    if (!isascii(ch)) {
      /* glibc matches a multibyte format character byte by byte, without first
       * skipping pending white space. */
      int mlen = (int)mbrlen(f, strlen(f), &mbs);
      if (mlen > 0) {
        for (int i = 0; i < mlen; ++i) {
          int n1 = -1, n2 = -1;
          if (rl_scan_build(sc, 0, f + i, 1) != 0)
            goto oom;
          /* A lone byte of the character makes the piece's own mbrlen fail with
           * EILSEQ, which the whole-format call would not have set. */
          int e = errno;
          int r = rl_scan_call(sc, sc->piece.p, &n1, &n2, NULL);
          if (!(r == EOF && sc->fp && ferror(sc->fp)))
            errno = e;
          if (n2 < 0) {
            sc->pos += n1 > 0 ? (size_t)n1 : 0;
            result = r == EOF ? (done ? done : EOF) : done;
            goto out;
          }
          sc->pos += (size_t)n2;
        }
        f += mlen;
        continue;
      }
    }
    if (ch != '%') {
      if (isspace(ch)) {
        pending_space = 1;
        ++f;
        continue;
      }
      int n1 = -1, n2 = -1;
      if (rl_scan_build(sc, pending_space, f, 1) != 0)
        goto oom;
      pending_space = 0;
      int r = rl_scan_call(sc, sc->piece.p, &n1, &n2, NULL);
      if (n2 < 0) {
        sc->pos += n1 > 0 ? (size_t)n1 : 0; /* the mismatching byte is pushed back */
        result = r == EOF ? (done ? done : EOF) : done;
        goto out;
      }
      sc->pos += (size_t)n2;
      ++f;
      continue;
    }

    struct rl_sspec s;
    rl_scan_parse(f, &s);
    if (s.conv == 0) { /* glibc fails before skipping any white space */
      result = done;
      goto out;
    }
    if (s.bad_set) {
      if (pending_space)
        rl_scan_skip_space(sc);
      result = done;
      goto out;
    }
    if (!rl_scan_known_conv(s.conv)) { /* skipped white space, then a matching failure */
      rl_scan_skip_space(sc);
      result = done;
      goto out;
    }
    if (s.conv == 'n') {
      if (pending_space)
        rl_scan_skip_space(sc);
      pending_space = 0;
      if (!s.suppress)
        rl_store_count(va_arg(*ap, void *), s.len, (long long)sc->pos);
      f = s.end;
      continue;
    }
    int assign = !s.suppress && s.conv != '%';
    int skips = !(s.conv == '[' || s.conv == 'c' || s.conv == 'C');
    int skipped_space = !skips && pending_space;
    if (rl_scan_build(sc, skips || pending_space, f, (size_t)(s.end - f)) != 0)
      goto oom;
    pending_space = 0;
    void *dst = assign ? va_arg(*ap, void *) : NULL;
    struct rl_snap before;
    memset(&before, 0, sizeof before);
    if (sc->is_stdin && sc->tell0 < 0)
      rl_snap_take(sc->fp, &before);
    int n1 = -1, n2 = -1;
    int r = assign ? rl_scan_call(sc, sc->piece.p, &n1, dst, &n2)
                   : rl_scan_call(sc, sc->piece.p, &n1, &n2, NULL);
    if (n2 < 0) {
      sc->pos += rl_scan_failed_used(sc, n1, &before);
      result = r == EOF ? (done ? done : EOF) : done;
      goto out;
    }
    size_t start = sc->pos + (size_t)n1, toklen = (size_t)(n2 - n1);
    sc->pos += (size_t)n2;
    if (assign) {
      ++done;
      rl_scan_log(sc, &s, dst, start, toklen, skipped_space);
    }
    f = s.end;
  }
  if (pending_space)
    rl_scan_skip_space(sc);
  result = done;
out:
  /* A format that ran no piece still gets the real call's stream checks (orientation,
   * read permission), which make it return EOF. */
  if (!sc->ran && rl_scan_call(sc, "", NULL, NULL, NULL) == EOF)
    result = EOF;
  return result;
oom:
  errno = ENOMEM;
  result = done ? done : EOF;
  goto out;
}

static int rl_vfscanf_impl(FILE *stream, const char *fmt, va_list *ap) {
  if (!stream || !fmt)
    return RL_REAL_VFSCANF(stream, fmt, *ap);
  rl_log_format_read(fmt);
  char stackbuf[96];
  struct rl_scan sc;
  memset(&sc, 0, sizeof sc);
  sc.fp = stream;
  sc.source_pos = rl_source_pos(stream, &sc.source);
  sc.is_stdin = sc.source_pos != NULL;
  sc.base = sc.is_stdin ? *sc.source_pos : 0;
  sc.tell0 = -1;
  rl_text_init(&sc.piece, stackbuf, sizeof stackbuf);
  flockfile(stream);
  if (sc.is_stdin) {
    int e = errno;
    sc.tell0 = ftello(stream);
    errno = e;
  }
  int r;
  if (rl_scan_has_positional(fmt)) {
    /* %N$ conversions: one real call; only the consumed byte count is tracked. */
    struct rl_snap before, after;
    if (sc.is_stdin)
      rl_snap_take(stream, &before);
    r = RL_REAL_VFSCANF(stream, fmt, *ap);
    if (sc.is_stdin) {
      int e = errno;
      if (sc.tell0 >= 0) {
        off_t t = ftello(stream);
        if (t >= sc.tell0)
          sc.pos = (size_t)(t - sc.tell0);
      } else {
        rl_snap_take(stream, &after);
        sc.pos = rl_snap_consumed(&before, &after);
      }
      errno = e;
    }
  } else {
    r = rl_scan_engine(&sc, fmt, ap);
  }
  if (sc.is_stdin)
    *sc.source_pos = sc.base + sc.pos;
  funlockfile(stream);
  rl_text_free(&sc.piece);
  if (!sc.is_stdin)
    RL_KEEP_ERRNO(rl_ev_concretized());
  return r;
}

static int rl_vsscanf_impl(const char *str, const char *fmt, va_list *ap) {
  if (!str || !fmt)
    return RL_REAL_VSSCANF(str, fmt, *ap);
  RL_KEEP_ERRNO(rl_ev_mem_read(str, strlen(str) + 1));
  rl_log_format_read(fmt);
  int r;
  if (rl_scan_has_positional(fmt)) {
    r = RL_REAL_VSSCANF(str, fmt, *ap);
  } else {
    char stackbuf[96];
    struct rl_scan sc;
    memset(&sc, 0, sizeof sc);
    sc.str = str;
    sc.tell0 = -1;
    rl_text_init(&sc.piece, stackbuf, sizeof stackbuf);
    r = rl_scan_engine(&sc, fmt, ap);
    rl_text_free(&sc.piece);
  }
  RL_KEEP_ERRNO(rl_ev_concretized());
  return r;
}

int __rl_wrap_scanf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = rl_vfscanf_impl(stdin, fmt, &ap);
  va_end(ap);
  return r;
}

int __rl_wrap___isoc99_scanf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = rl_vfscanf_impl(stdin, fmt, &ap);
  va_end(ap);
  return r;
}

int __rl_wrap_fscanf(FILE *stream, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = rl_vfscanf_impl(stream, fmt, &ap);
  va_end(ap);
  return r;
}

int __rl_wrap___isoc99_fscanf(FILE *stream, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = rl_vfscanf_impl(stream, fmt, &ap);
  va_end(ap);
  return r;
}

int __rl_wrap_sscanf(const char *str, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = rl_vsscanf_impl(str, fmt, &ap);
  va_end(ap);
  return r;
}

int __rl_wrap___isoc99_sscanf(const char *str, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = rl_vsscanf_impl(str, fmt, &ap);
  va_end(ap);
  return r;
}

/* --- printf family ----------------------------------------------------------------- */

/* One conversion specification of a printf format, parsed as glibc's vfprintf does. */
struct rl_pspec {
  const char *end;
  int positional; /* %N$ or *N$ */
  int bad;        /* unknown conversion, or the format ends inside the spec */
  int wstar, pstar, has_prec, minus;
  int len;
  char conv;
};

static int rl_print_known_conv(char c) {
  return c != 0 && strchr("diouxXeEfFgGaAcCsSpnm%", c) != NULL;
}

static const char *rl_print_star(const char *p, struct rl_pspec *s) {
  const char *q = p;
  while (isdigit((unsigned char)*q))
    ++q;
  if (q != p && *q == '$') {
    s->positional = 1;
    return q + 1;
  }
  return p;
}

static void rl_print_parse(const char *f, struct rl_pspec *s) {
  memset(s, 0, sizeof *s);
  const char *p = f + 1;
  p = rl_print_star(p, s);
  while (*p && strchr("-+ #0'I", *p)) {
    if (*p == '-')
      s->minus = 1;
    ++p;
  }
  if (*p == '*') {
    s->wstar = 1;
    p = rl_print_star(p + 1, s);
  } else {
    while (isdigit((unsigned char)*p))
      ++p;
  }
  if (*p == '.') {
    ++p;
    s->has_prec = 1;
    if (*p == '*') {
      s->pstar = 1;
      p = rl_print_star(p + 1, s);
    } else {
      while (isdigit((unsigned char)*p))
        ++p;
    }
  }
  switch (*p) {
  case 'h':
    ++p;
    if (*p == 'h') {
      ++p;
      s->len = RL_LEN_HH;
    } else {
      s->len = RL_LEN_H;
    }
    break;
  case 'l':
    ++p;
    if (*p == 'l') {
      ++p;
      s->len = RL_LEN_LL;
    } else {
      s->len = RL_LEN_L;
    }
    break;
  case 'L':
  case 'q':
    ++p;
    s->len = RL_LEN_LL;
    break;
  case 'j':
    ++p;
    s->len = RL_LEN_J;
    break;
  case 'z':
  case 'Z':
    ++p;
    s->len = RL_LEN_Z;
    break;
  case 't':
    ++p;
    s->len = RL_LEN_T;
    break;
  default:
    break;
  }
  s->conv = *p;
  if (*p)
    ++p;
  s->end = p;
  if (!rl_print_known_conv(s->conv))
    s->bad = 1;
}

/* 1 when the format needs the whole-format fallback (positional arguments, unknown
 * conversions). A spec cut off by the end of the format is handled piecewise. */
static int rl_print_needs_fallback(const char *f) {
  while (*f) {
    if (*f != '%') {
      ++f;
      continue;
    }
    struct rl_pspec s;
    rl_print_parse(f, &s);
    if (s.positional || (s.bad && s.conv != 0))
      return 1;
    f = s.end;
  }
  return 0;
}

enum {
  RL_PK_NONE,
  RL_PK_INT,
  RL_PK_UINT,
  RL_PK_LONG,
  RL_PK_ULONG,
  RL_PK_LLONG,
  RL_PK_ULLONG,
  RL_PK_DBL,
  RL_PK_LDBL,
  RL_PK_PTR,
  RL_PK_WINT
};

union rl_pval {
  int i;
  unsigned u;
  long l;
  unsigned long ul;
  long long ll;
  unsigned long long ull;
  double d;
  long double ld;
  void *p;
  wint_t wi;
};

static int rl_print_kind(const struct rl_pspec *s) {
  switch (s->conv) {
  case 'd':
  case 'i':
    if (s->len == RL_LEN_LL)
      return RL_PK_LLONG;
    return rl_len_is_long(s->len) ? RL_PK_LONG : RL_PK_INT;
  case 'o':
  case 'u':
  case 'x':
  case 'X':
    if (s->len == RL_LEN_LL)
      return RL_PK_ULLONG;
    return rl_len_is_long(s->len) ? RL_PK_ULONG : RL_PK_UINT;
  case 'e':
  case 'E':
  case 'f':
  case 'F':
  case 'g':
  case 'G':
  case 'a':
  case 'A':
    return s->len == RL_LEN_LL ? RL_PK_LDBL : RL_PK_DBL;
  case 'c':
    return rl_len_is_long(s->len) ? RL_PK_WINT : RL_PK_INT;
  case 'C':
    return RL_PK_WINT;
  case 's':
  case 'S':
  case 'p':
  case 'n':
    return RL_PK_PTR;
  default:
    return RL_PK_NONE;
  }
}

static void rl_print_fetch(va_list *ap, int kind, union rl_pval *v) {
  switch (kind) {
  case RL_PK_INT:
    v->i = va_arg(*ap, int);
    break;
  case RL_PK_UINT:
    v->u = va_arg(*ap, unsigned);
    break;
  case RL_PK_LONG:
    v->l = va_arg(*ap, long);
    break;
  case RL_PK_ULONG:
    v->ul = va_arg(*ap, unsigned long);
    break;
  case RL_PK_LLONG:
    v->ll = va_arg(*ap, long long);
    break;
  case RL_PK_ULLONG:
    v->ull = va_arg(*ap, unsigned long long);
    break;
  case RL_PK_DBL:
    v->d = va_arg(*ap, double);
    break;
  case RL_PK_LDBL:
    v->ld = va_arg(*ap, long double);
    break;
  case RL_PK_PTR:
    v->p = va_arg(*ap, void *);
    break;
  case RL_PK_WINT:
    v->wi = va_arg(*ap, wint_t);
    break;
  default:
    break;
  }
}

#define RL_FMT_CALL(...)                                                                           \
  (nstar == 0   ? snprintf(buf, cap, spec, __VA_ARGS__)                                            \
   : nstar == 1 ? snprintf(buf, cap, spec, s1, __VA_ARGS__)                                        \
                : snprintf(buf, cap, spec, s1, s2, __VA_ARGS__))

/* Format one conversion with the real snprintf. */
static int rl_fmt_once(char *buf, size_t cap, const char *spec, int nstar, int s1, int s2, int kind,
                       const union rl_pval *v) {
  switch (kind) {
  case RL_PK_INT:
    return RL_FMT_CALL(v->i);
  case RL_PK_UINT:
    return RL_FMT_CALL(v->u);
  case RL_PK_LONG:
    return RL_FMT_CALL(v->l);
  case RL_PK_ULONG:
    return RL_FMT_CALL(v->ul);
  case RL_PK_LLONG:
    return RL_FMT_CALL(v->ll);
  case RL_PK_ULLONG:
    return RL_FMT_CALL(v->ull);
  case RL_PK_DBL:
    return RL_FMT_CALL(v->d);
  case RL_PK_LDBL:
    return RL_FMT_CALL(v->ld);
  case RL_PK_PTR:
    return RL_FMT_CALL(v->p);
  case RL_PK_WINT:
    return RL_FMT_CALL(v->wi);
  default:
    return RL_FMT_CALL(0);
  }
}

/* Memory a %s / %ls argument reads. */
static void rl_print_string_read(const struct rl_pspec *s, const void *p, int prec) {
  if (!p)
    return;
  int e = errno;
  int wide = s->conv == 'S' || rl_len_is_long(s->len);
  if (wide) {
    const wchar_t *w = p;
    size_t n = prec >= 0 ? wcsnlen(w, (size_t)prec) : wcslen(w);
    if (prec < 0 || n < (size_t)prec)
      ++n;
    rl_ev_mem_read(w, n * sizeof(wchar_t));
  } else {
    const char *c = p;
    size_t n = prec >= 0 ? strnlen(c, (size_t)prec) : strlen(c);
    if (prec < 0 || n < (size_t)prec)
      ++n;
    rl_ev_mem_read(c, n);
  }
  errno = e;
}

/* Where formatted output goes: written through the FILE piece by piece (as glibc's
 * vfprintf does), or for an unbuffered stream gathered and written once (as glibc's
 * buffered_vfprintf does). OUTPUT events are logged for the bytes the stream took. */
struct rl_pend {
  size_t off, len;
  int32_t arg;
  const void *src;
};

struct rl_sink {
  FILE *fp;
  int fd;
  int gather;
  int failed;
  size_t done; /* bytes produced so far (what %n stores) */
  char *acc;
  size_t acc_len, acc_cap;
  struct rl_pend *pend;
  size_t npend, pend_cap;
};

static void rl_sink_flush(struct rl_sink *k) {
  if (!k->gather)
    return;
  size_t w = k->acc_len ? fwrite(k->acc, 1, k->acc_len, k->fp) : 0;
  for (size_t i = 0; i < k->npend; ++i) {
    const struct rl_pend *p = &k->pend[i];
    if (p->off >= w)
      break;
    size_t n = p->off + p->len <= w ? p->len : w - p->off;
    rl_log_output(k->fd, p->arg, p->src, k->acc + p->off, n);
  }
  if (w < k->acc_len)
    k->failed = 1;
  free(k->acc);
  free(k->pend);
  k->acc = NULL;
  k->pend = NULL;
  k->acc_len = k->acc_cap = k->npend = k->pend_cap = 0;
  k->gather = 0;
}

static int rl_sink_put(struct rl_sink *k, const void *bytes, size_t len, int32_t arg,
                       const void *src) {
  if (len == 0 || k->failed)
    return k->failed ? -1 : 0;
  if (k->gather) {
    int ok = 1;
    if (k->acc_len + len > k->acc_cap) {
      size_t cap = k->acc_cap ? k->acc_cap * 2 : 256;
      while (cap < k->acc_len + len)
        cap *= 2;
      char *p = realloc(k->acc, cap);
      if (p) {
        k->acc = p;
        k->acc_cap = cap;
      } else {
        ok = 0;
      }
    }
    if (ok && k->npend == k->pend_cap) {
      size_t cap = k->pend_cap ? k->pend_cap * 2 : 16;
      struct rl_pend *p = realloc(k->pend, cap * sizeof *p);
      if (p) {
        k->pend = p;
        k->pend_cap = cap;
      } else {
        ok = 0;
      }
    }
    if (ok) {
      memcpy(k->acc + k->acc_len, bytes, len);
      k->pend[k->npend].off = k->acc_len;
      k->pend[k->npend].len = len;
      k->pend[k->npend].arg = arg;
      k->pend[k->npend].src = src;
      ++k->npend;
      k->acc_len += len;
      k->done += len;
      return 0;
    }
    rl_sink_flush(k); /* out of memory: write what we have and go on unbuffered */
    if (k->failed)
      return -1;
  }
  size_t w = fwrite(bytes, 1, len, k->fp);
  rl_log_output(k->fd, arg, src, bytes, w);
  if (w < len) {
    k->failed = 1;
    return -1;
  }
  k->done += len;
  return 0;
}

/* Positional or unusual formats: format the whole output with the real vsnprintf and
 * attribute it to the format (arg 0). When vsnprintf fails, the real vfprintf runs
 * instead (it reports the error and writes what it writes); *real gets its result. */
static void rl_print_fallback(struct rl_sink *k, const char *fmt, va_list *ap, int saved_errno,
                              int *ran_real, int *real) {
  char small[256];
  va_list cp;
  va_copy(cp, *ap);
  errno = saved_errno;
  int n = vsnprintf(small, sizeof small, fmt, cp);
  va_end(cp);
  char *buf = small;
  if (n >= 0 && (size_t)n >= sizeof small) {
    buf = malloc((size_t)n + 1);
    if (buf) {
      va_copy(cp, *ap);
      errno = saved_errno;
      n = vsnprintf(buf, (size_t)n + 1, fmt, cp);
      va_end(cp);
    }
  }
  if (n < 0 || !buf) {
    errno = saved_errno;
    *ran_real = 1;
    *real = vfprintf(k->fp, fmt, *ap);
    return;
  }
  errno = saved_errno;
  rl_sink_put(k, buf, (size_t)n, 0, NULL);
  if (buf != small)
    free(buf);
}

/* Precision written as digits in a spec (has_prec, no '*'). */
static int rl_print_digits_prec(const char *spec_start) {
  const char *d = strchr(spec_start, '.') + 1;
  long v = 0;
  while (isdigit((unsigned char)*d)) {
    if (v < INT_MAX / 10)
      v = v * 10 + (*d - '0');
    ++d;
  }
  return (int)v;
}

/* Format and write `fmt` one literal run / conversion at a time. */
static void rl_print_run(struct rl_sink *k, const char *fmt, va_list *ap, int saved_errno) {
  char spec_stack[64], out_stack[128];
  int argi = 0;
  const char *f = fmt;
  while (*f && !k->failed) {
    if (*f != '%') {
      const char *lit = f;
      while (*f && *f != '%')
        ++f;
      rl_sink_put(k, lit, (size_t)(f - lit), 0, lit);
      continue;
    }
    struct rl_pspec s;
    rl_print_parse(f, &s);
    if (s.conv == 0) {
      /* The format ends inside a spec: glibc has written everything before it and
       * fails with EINVAL. */
      errno = EINVAL;
      k->failed = 1;
      return;
    }
    const char *spec_start = f;
    f = s.end;
    int nstar = 0, s1 = 0, s2 = 0;
    if (s.wstar) {
      s1 = va_arg(*ap, int);
      ++argi;
      ++nstar;
    }
    int prec = s.has_prec ? rl_print_digits_prec(spec_start) : -1;
    if (s.pstar) {
      int pv = va_arg(*ap, int);
      ++argi;
      if (nstar == 1)
        s2 = pv;
      else
        s1 = pv;
      ++nstar;
      prec = pv < 0 ? -1 : pv;
    }
    int kind = rl_print_kind(&s);
    union rl_pval v;
    memset(&v, 0, sizeof v);
    if (kind != RL_PK_NONE) {
      rl_print_fetch(ap, kind, &v);
      ++argi;
    }
    if (s.conv == 'n') {
      rl_store_count(v.p, s.len, (long long)k->done);
      continue;
    }
    /* NUL-terminated copy of the spec for snprintf. */
    size_t speclen = (size_t)(s.end - spec_start);
    char *spec = speclen < sizeof spec_stack ? spec_stack : malloc(speclen + 1);
    if (!spec) {
      errno = ENOMEM;
      k->failed = 1;
      return;
    }
    memcpy(spec, spec_start, speclen);
    spec[speclen] = '\0';
    if (s.conv == 's' || s.conv == 'S')
      rl_print_string_read(&s, v.p, prec);
    errno = saved_errno; /* %m prints strerror(errno) of the caller */
    int n = rl_fmt_once(out_stack, sizeof out_stack, spec, nstar, s1, s2, kind, &v);
    char *out = out_stack;
    if (n >= 0 && (size_t)n >= sizeof out_stack) {
      out = malloc((size_t)n + 1);
      if (out) {
        n = rl_fmt_once(out, (size_t)n + 1, spec, nstar, s1, s2, kind, &v);
      } else {
        out = out_stack;
        errno = ENOMEM;
        n = -1;
      }
    }
    if (spec != spec_stack)
      free(spec);
    if (n < 0) { /* e.g. an invalid wide character: the real printf fails too */
      k->failed = 1;
      if (out != out_stack)
        free(out);
      return;
    }
    errno = saved_errno;
    int32_t arg = (s.conv == '%' || s.conv == 'm') ? 0 : argi;
    if (s.conv == 's' && !rl_len_is_long(s.len) && v.p) {
      /* Padding and string bytes as separate events: only the latter come from src. */
      const char *str = v.p;
      size_t total = (size_t)n;
      size_t sl = prec >= 0 ? strnlen(str, (size_t)prec) : strlen(str);
      if (sl > total)
        sl = total;
      int left = s.minus || (s.wstar && s1 < 0);
      if (left) {
        rl_sink_put(k, out, sl, arg, str);
        rl_sink_put(k, out + sl, total - sl, arg, NULL);
      } else {
        rl_sink_put(k, out, total - sl, arg, NULL);
        rl_sink_put(k, out + total - sl, sl, arg, str);
      }
    } else {
      rl_sink_put(k, out, (size_t)n, arg, NULL);
    }
    if (out != out_stack)
      free(out);
  }
}

int rl_vfprintf_logged(FILE *stream, const char *fmt, va_list *ap) {
  if (!stream || !fmt)
    return vfprintf(stream, fmt, *ap);
  int saved_errno = errno;
  struct rl_sink k;
  memset(&k, 0, sizeof k);
  k.fp = stream;
  k.fd = rl_stream_fd(stream);
  flockfile(stream);
#ifdef __GLIBC__
  k.gather = (stream->_flags & _IO_UNBUFFERED) != 0;
#endif
  int ran_real = 0, real = 0;
  if (rl_print_needs_fallback(fmt))
    rl_print_fallback(&k, fmt, ap, saved_errno, &ran_real, &real);
  else
    rl_print_run(&k, fmt, ap, saved_errno);
  int e = errno, failed_before = k.failed;
  rl_sink_flush(&k);
  if (!k.failed || failed_before)
    errno = e;
  int result;
  if (ran_real) {
    result = real;
  } else if (k.failed) {
    result = -1;
  } else if (k.done > INT_MAX) {
    errno = EOVERFLOW;
    result = -1;
  } else {
    result = (int)k.done;
    if (k.done == 0) {
      /* Nothing was written: the real call applies its stream checks (orientation,
       * write permission) exactly as the real printf would. */
      int r = fprintf(stream, "%s", "");
      if (r < 0)
        result = r;
    }
  }
  funlockfile(stream);
  rl_log_format_read(fmt); /* after the arguments' reads: they are the interesting ones */
  return result;
}

int __rl_wrap_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = rl_vfprintf_logged(stdout, fmt, &ap);
  va_end(ap);
  return r;
}

int __rl_wrap_fprintf(FILE *stream, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = rl_vfprintf_logged(stream, fmt, &ap);
  va_end(ap);
  return r;
}

/* The va_list variants: the same printing on a copy of the caller's list. Their output
 * pieces name no operand (the values sit in the list), see outputOperand. */
int __rl_wrap_vprintf(const char *fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int r = rl_vfprintf_logged(stdout, fmt, &copy);
  va_end(copy);
  return r;
}

int __rl_wrap_vfprintf(FILE *stream, const char *fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int r = rl_vfprintf_logged(stream, fmt, &copy);
  va_end(copy);
  return r;
}

/* Memory effects of a formatted print into memory, found by walking the format with a
 * copy of the arguments: the %s strings it read and, when it succeeded, the %n counts
 * it stored. Stops at anything the walk cannot follow (positional arguments). */
static __attribute__((noinline)) void rl_print_effects(const char *fmt, va_list *ap,
                                                       int succeeded) {
  if (!fmt || rl_print_needs_fallback(fmt))
    return;
  const char *f = fmt;
  while (*f) {
    if (*f != '%') {
      ++f;
      continue;
    }
    struct rl_pspec s;
    rl_print_parse(f, &s);
    const char *spec_start = f;
    f = s.end;
    int prec = s.has_prec ? rl_print_digits_prec(spec_start) : -1;
    if (s.wstar)
      (void)va_arg(*ap, int);
    if (s.pstar) {
      int pv = va_arg(*ap, int);
      prec = pv < 0 ? -1 : pv;
    }
    int kind = rl_print_kind(&s);
    union rl_pval v;
    memset(&v, 0, sizeof v);
    if (kind != RL_PK_NONE)
      rl_print_fetch(ap, kind, &v);
    if (s.conv == 's' || s.conv == 'S') {
      rl_print_string_read(&s, v.p, prec);
    } else if (s.conv == 'n' && succeeded && v.p) {
      size_t size;
      switch (s.len) {
      case RL_LEN_HH:
        size = 1;
        break;
      case RL_LEN_H:
        size = sizeof(short);
        break;
      case RL_LEN_LL:
        size = sizeof(long long);
        break;
      case RL_LEN_NONE:
        size = sizeof(int);
        break;
      default:
        size = sizeof(long);
        break;
      }
      RL_KEEP_ERRNO(rl_ev_mem_write(v.p, size));
    }
  }
}

int __rl_wrap_vsprintf(char *str, const char *fmt, va_list ap) {
  va_list walk;
  va_copy(walk, ap);
  int r = vsprintf(str, fmt, ap);
  int e = errno;
  rl_print_effects(fmt, &walk, r >= 0);
  rl_log_format_read(fmt);
  if (r >= 0)
    rl_ev_mem_write(str, (uint64_t)r + 1);
  va_end(walk);
  errno = e;
  return r;
}

int __rl_wrap_vsnprintf(char *str, size_t size, const char *fmt, va_list ap) {
  va_list walk;
  va_copy(walk, ap);
  int r = vsnprintf(str, size, fmt, ap);
  int e = errno;
  rl_print_effects(fmt, &walk, r >= 0);
  rl_log_format_read(fmt);
  if (r >= 0 && size > 0) {
    size_t stored = (size_t)r < size - 1 ? (size_t)r : size - 1;
    rl_ev_mem_write(str, stored + 1);
  }
  va_end(walk);
  errno = e;
  return r;
}

int __rl_wrap_sprintf(char *str, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = __rl_wrap_vsprintf(str, fmt, ap);
  va_end(ap);
  return r;
}

int __rl_wrap_snprintf(char *str, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = __rl_wrap_vsnprintf(str, size, fmt, ap);
  va_end(ap);
  return r;
}

/* asprintf's buffer is a heap block the program frees: logged as an allocation whose
 * bytes the call wrote. */
int __rl_wrap_vasprintf(char **strp, const char *fmt, va_list ap) {
  va_list walk;
  va_copy(walk, ap);
  int r = vasprintf(strp, fmt, ap);
  int e = errno;
  rl_print_effects(fmt, &walk, r >= 0);
  rl_log_format_read(fmt);
  if (r >= 0) {
    rl_ev_heap_alloc(*strp, (uint64_t)r + 1);
    rl_ev_mem_write(*strp, (uint64_t)r + 1);
  }
  rl_ev_mem_write(strp, sizeof *strp);
  va_end(walk);
  errno = e;
  return r;
}

int __rl_wrap_asprintf(char **strp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = __rl_wrap_vasprintf(strp, fmt, ap);
  va_end(ap);
  return r;
}

/* --- unformatted output ------------------------------------------------------------ */

int __rl_wrap_puts(const char *s) {
  FILE *out = stdout;
  int r = puts(s);
  int e = errno;
  size_t len = strlen(s);
  rl_ev_mem_read(s, len + 1);
  if (r != EOF) {
    int fd = rl_stream_fd(out);
    rl_log_output(fd, 1, s, s, len);
    rl_log_output(fd, 0, NULL, "\n", 1);
  }
  errno = e;
  return r;
}

static int rl_after_putc(FILE *stream, int r) {
  if (r != EOF) {
    unsigned char byte = (unsigned char)r;
    rl_log_output(rl_stream_fd(stream), 1, NULL, &byte, 1);
  }
  return r;
}

int __rl_wrap_putchar(int c) {
  FILE *out = stdout;
  int r = putchar(c);
  return rl_after_putc(out, r);
}

int __rl_wrap_putc(int c, FILE *stream) {
  int r = putc(c, stream);
  return rl_after_putc(stream, r);
}

int __rl_wrap_fputc(int c, FILE *stream) {
  int r = fputc(c, stream);
  return rl_after_putc(stream, r);
}

int __rl_wrap_fputs(const char *s, FILE *stream) {
  int r = fputs(s, stream);
  int e = errno;
  size_t len = strlen(s);
  rl_ev_mem_read(s, len + 1);
  if (r != EOF)
    rl_log_output(rl_stream_fd(stream), 1, s, s, len);
  errno = e;
  return r;
}

/* As fread: writing size*nmemb single bytes gives the exact byte count. */
size_t __rl_wrap_fwrite(const void *ptr, size_t size, size_t nmemb, FILE *stream) {
  size_t request = size * nmemb;
  if (request == 0)
    return 0;
  size_t put = fwrite(ptr, 1, request, stream);
  if (put > 0) {
    int e = errno;
    rl_ev_mem_read(ptr, put);
    rl_log_output(rl_stream_fd(stream), 1, ptr, ptr, put);
    errno = e;
  }
  return put == request ? nmemb : put / size;
}

/* The *_unlocked forms (gnulib's unlocked-io.h renames every stdio call to them): the
 * same bytes as the locking forms, which a single-threaded program cannot tell apart. */
int __rl_wrap_putc_unlocked(int c, FILE *stream) { return __rl_wrap_putc(c, stream); }
int __rl_wrap_putchar_unlocked(int c) { return __rl_wrap_putchar(c); }
int __rl_wrap_fputc_unlocked(int c, FILE *stream) { return __rl_wrap_fputc(c, stream); }
int __rl_wrap_fputs_unlocked(const char *s, FILE *stream) { return __rl_wrap_fputs(s, stream); }
size_t __rl_wrap_fwrite_unlocked(const void *ptr, size_t size, size_t nmemb, FILE *stream) {
  return __rl_wrap_fwrite(ptr, size, nmemb, stream);
}

ssize_t __rl_wrap_write(int fd, const void *buf, size_t count) {
  ssize_t r = write(fd, buf, count);
  if (r > 0) {
    int e = errno;
    rl_ev_mem_read(buf, (uint64_t)r);
    rl_log_output(fd, 2, buf, buf, (size_t)r);
    errno = e;
  }
  return r;
}
