/* Wrappers for libc memory, string and heap functions, and process exit: each calls
 * the real function and logs exactly which bytes it read, wrote or copied. */
#define _GNU_SOURCE
#include "rl_runtime.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The heap table keys on addresses after realloc/free has run: only the address value
 * is used, never the memory, so GCC's use-after-free heuristics do not apply here. */
#pragma GCC diagnostic ignored "-Wuse-after-free"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

/* Bytes of a and b a string comparison may depend on: up to the shorter string's NUL,
 * at most n. Logged as read even past the first difference: the result would change
 * with those bytes if the earlier ones were equal, which is what symbolic replay's model
 * of the comparison needs to know (the bytes lie inside both strings). */
static size_t rl_compared_len(size_t la, size_t lb, size_t n) {
  size_t k = (la < lb ? la : lb) + 1;
  return k < n ? k : n;
}

void *__rl_wrap_memcpy(void *dst, const void *src, size_t n) {
  void *r = memcpy(dst, src, n);
  rl_ev_mem_copy(dst, src, n);
  return r;
}

void *__rl_wrap_memmove(void *dst, const void *src, size_t n) {
  void *r = memmove(dst, src, n);
  rl_ev_mem_copy(dst, src, n);
  return r;
}

void *__rl_wrap_memset(void *dst, int c, size_t n) {
  void *r = memset(dst, c, n);
  rl_ev_mem_set(dst, c, n);
  return r;
}

/* memcmp may read all n bytes of both (C11 7.24.4.1): all are logged. */
int __rl_wrap_memcmp(const void *a, const void *b, size_t n) {
  rl_ev_mem_read(a, n);
  rl_ev_mem_read(b, n);
  return memcmp(a, b, n);
}

void *__rl_wrap_memchr(const void *s, int c, size_t n) {
  void *r = memchr(s, c, n);
  rl_ev_mem_read(s, r ? (size_t)((const char *)r - (const char *)s) + 1 : n);
  return r;
}

char *__rl_wrap_strcpy(char *dst, const char *src) {
  size_t n = strlen(src) + 1;
  char *r = strcpy(dst, src);
  rl_ev_mem_copy(dst, src, n);
  return r;
}

char *__rl_wrap_strncpy(char *dst, const char *src, size_t n) {
  size_t len = strnlen(src, n);
  size_t copied = len < n ? len + 1 : n;
  char *r = strncpy(dst, src, n);
  rl_ev_mem_copy(dst, src, copied);
  if (copied < n)
    rl_ev_mem_set(dst + copied, 0, n - copied);
  return r;
}

char *__rl_wrap_strcat(char *dst, const char *src) {
  size_t dl = strlen(dst), sl = strlen(src);
  rl_ev_mem_read(dst, dl + 1);
  char *r = strcat(dst, src);
  rl_ev_mem_copy(dst + dl, src, sl + 1);
  return r;
}

char *__rl_wrap_strncat(char *dst, const char *src, size_t n) {
  size_t dl = strlen(dst), sl = strnlen(src, n);
  rl_ev_mem_read(dst, dl + 1);
  char *r = strncat(dst, src, n);
  rl_ev_mem_copy(dst + dl, src, sl);
  rl_ev_mem_set(dst + dl + sl, 0, 1);
  return r;
}

size_t __rl_wrap_strlen(const char *s) {
  size_t n = strlen(s);
  rl_ev_mem_read(s, n + 1);
  return n;
}

int __rl_wrap_strcmp(const char *a, const char *b) {
  size_t k = rl_compared_len(strlen(a), strlen(b), (size_t)-1);
  rl_ev_mem_read(a, k);
  rl_ev_mem_read(b, k);
  return strcmp(a, b);
}

int __rl_wrap_strncmp(const char *a, const char *b, size_t n) {
  size_t k = rl_compared_len(strnlen(a, n), strnlen(b, n), n);
  rl_ev_mem_read(a, k);
  rl_ev_mem_read(b, k);
  return strncmp(a, b, n);
}

/* The whole string: where c is found depends on every byte up to the NUL. */
char *__rl_wrap_strchr(const char *s, int c) {
  rl_ev_mem_read(s, strlen(s) + 1);
  return strchr(s, c);
}

char *__rl_wrap_strrchr(const char *s, int c) {
  rl_ev_mem_read(s, strlen(s) + 1);
  return strrchr(s, c);
}

char *__rl_wrap_strstr(const char *h, const char *n) {
  rl_ev_mem_read(h, strlen(h) + 1);
  rl_ev_mem_read(n, strlen(n) + 1);
  return strstr(h, n);
}

/* --- heap: live objects are remembered so realloc can log what it copies --------- */

#define RL_HEAP_SLOTS (1u << 16)
struct rl_heap_slot {
  const void *addr;
  size_t size;
};
static struct rl_heap_slot *rl_heap;
static size_t rl_heap_count, rl_heap_cap;

static size_t rl_hash(const void *p, size_t cap) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x & (cap - 1);
}

static void rl_heap_put(const void *addr, size_t size);

static void rl_heap_grow(void) {
  struct rl_heap_slot *old = rl_heap;
  size_t oldCap = rl_heap_cap;
  rl_heap_cap = oldCap ? oldCap * 2 : RL_HEAP_SLOTS;
  rl_heap = calloc(rl_heap_cap, sizeof *rl_heap);
  rl_heap_count = 0;
  for (size_t i = 0; i < oldCap; ++i)
    if (old[i].addr && old[i].addr != (const void *)1)
      rl_heap_put(old[i].addr, old[i].size);
  free(old);
}

/* Open addressing; (void*)1 marks a deleted slot. */
static void rl_heap_put(const void *addr, size_t size) {
  if (!addr)
    return;
  if ((rl_heap_count + 1) * 2 > rl_heap_cap)
    rl_heap_grow();
  if (!rl_heap)
    return;
  size_t i = rl_hash(addr, rl_heap_cap);
  while (rl_heap[i].addr && rl_heap[i].addr != (const void *)1 && rl_heap[i].addr != addr)
    i = (i + 1) & (rl_heap_cap - 1);
  if (rl_heap[i].addr != addr)
    ++rl_heap_count;
  rl_heap[i].addr = addr;
  rl_heap[i].size = size;
}

static struct rl_heap_slot *rl_heap_find(const void *addr) {
  if (!addr || !rl_heap)
    return 0;
  size_t i = rl_hash(addr, rl_heap_cap);
  while (rl_heap[i].addr) {
    if (rl_heap[i].addr == addr)
      return &rl_heap[i];
    i = (i + 1) & (rl_heap_cap - 1);
  }
  return 0;
}

static void rl_heap_remove(const void *addr) {
  struct rl_heap_slot *s = rl_heap_find(addr);
  if (s)
    s->addr = (const void *)1;
}

void *__rl_wrap_malloc(size_t size) {
  void *p = malloc(size);
  if (p) {
    rl_heap_put(p, size);
    rl_ev_heap_alloc(p, size);
  }
  return p;
}

void *__rl_wrap_calloc(size_t n, size_t size) {
  void *p = calloc(n, size);
  if (p) {
    rl_heap_put(p, n * size);
    rl_ev_heap_alloc(p, n * size);
    rl_ev_mem_set(p, 0, n * size);
  }
  return p;
}

void *__rl_wrap_realloc(void *old, size_t size) {
  struct rl_heap_slot *s = rl_heap_find(old);
  size_t oldSize = s ? s->size : 0;
  /* Only the address value of `old` is used after realloc, never its memory. */
  const void *oldAddr = (const void *)(uintptr_t)old;
  void *p = realloc(old, size);
  if (!p)
    return p;
  if ((uintptr_t)p != (uintptr_t)oldAddr) {
    rl_heap_put(p, size);
    rl_ev_heap_alloc(p, size);
    if (oldAddr) {
      rl_ev_mem_copy(p, oldAddr, oldSize < size ? oldSize : size);
      rl_heap_remove(oldAddr);
      rl_ev_heap_free(oldAddr);
    }
  } else {
    /* Resized in place: a HEAP_ALLOC at a live address means "resize". */
    rl_heap_put(p, size);
    rl_ev_heap_alloc(p, size);
  }
  return p;
}

void __rl_wrap_free(void *p) {
  if (p) {
    rl_heap_remove(p);
    rl_ev_heap_free(p);
  }
  free(p);
}

char *__rl_wrap_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (!p)
    return p;
  memcpy(p, s, n);
  rl_heap_put(p, n);
  rl_ev_heap_alloc(p, n);
  rl_ev_mem_copy(p, s, n);
  return p;
}

/* --- numbers parsed from strings ------------------------------------------------- */

/* The parse read [s, end] (the byte at end stopped it); the number's own bytes, white
 * space skipped, are logged like an sscanf conversion whose value is the call's result
 * (MEM_TOKEN at address 0), so a number read from a line of stdin stays an input. */
/* Bytes after the parse's end that are logged as read: had they been digits, the number
 * would have gone on (symbolic replay's model of atoi needs them). */
#define RL_NUMBER_LOOKAHEAD 20

static void rl_number_parsed(const char *s, const char *end, uint32_t size, int base, int sign) {
  int saved_errno = errno;
  size_t tail = strnlen(end, RL_NUMBER_LOOKAHEAD);
  rl_ev_mem_read(s, (uint64_t)(end - s) + tail + (tail < RL_NUMBER_LOOKAHEAD));
  const char *start = s;
  while (start < end && isspace((unsigned char)*start))
    ++start;
  char conv = base == 16   ? 'x'
              : base == 8  ? 'o'
              : base == 0  ? 'i'
              : base == 10 ? (sign ? 'd' : 'u')
                           : 0;
  if (end > start && conv)
    rl_ev_mem_token(start, (uint64_t)(end - start), 0, size, conv);
  errno = saved_errno;
}

/* Where strtol stops on s (for atoi and friends, which do not say), errno untouched. */
static const char *rl_number_end(const char *s, int base) {
  int saved_errno = errno;
  char *end = (char *)s;
  (void)strtoll(s, &end, base);
  errno = saved_errno;
  return end;
}

int __rl_wrap_atoi(const char *s) {
  const char *end = rl_number_end(s, 10);
  int r = atoi(s);
  rl_number_parsed(s, end, sizeof r, 10, 1);
  return r;
}

long __rl_wrap_atol(const char *s) {
  const char *end = rl_number_end(s, 10);
  long r = atol(s);
  rl_number_parsed(s, end, sizeof r, 10, 1);
  return r;
}

long long __rl_wrap_atoll(const char *s) {
  const char *end = rl_number_end(s, 10);
  long long r = atoll(s);
  rl_number_parsed(s, end, sizeof r, 10, 1);
  return r;
}

#define RL_WRAP_STRTO(name, type, sign)                                                            \
  type __rl_wrap_##name(const char *s, char **endp, int base) {                                    \
    char *end = (char *)s;                                                                         \
    type r = name(s, &end, base);                                                                  \
    if (endp) {                                                                                    \
      *endp = end;                                                                                 \
      rl_ev_mem_write(endp, sizeof *endp);                                                         \
    }                                                                                              \
    rl_number_parsed(s, end, sizeof r, base, sign);                                                \
    return r;                                                                                      \
  }
RL_WRAP_STRTO(strtol, long, 1)
RL_WRAP_STRTO(strtoll, long long, 1)
RL_WRAP_STRTO(strtoul, unsigned long, 0)
RL_WRAP_STRTO(strtoull, unsigned long long, 0)

/* --- sorting ---------------------------------------------------------------------- */

/* qsort reads and rewrites the whole array; which element lands where is decided by
 * the comparator's results (the callbacks are instrumented; replay makes this call
 * depend on what they returned). */
void __rl_wrap_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
  qsort(base, n, size, cmp);
  if (n && size) {
    rl_ev_mem_read(base, n * size);
    rl_ev_mem_write(base, n * size);
  }
}

/* --- process end ----------------------------------------------------------------- */

void __rl_wrap_exit(int status) {
  rl_ev_exit(status);
  exit(status);
}

/* _exit skips atexit handlers, so the trace is ended here. */
void __rl_wrap__exit(int status) {
  rl_ev_exit(status);
  rl_finish();
  _exit(status);
}
