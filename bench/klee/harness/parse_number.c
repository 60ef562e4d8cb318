/* KLEE harness for parse_number (fixtures/unit/buf_parse.c): rootline's default unit-mode
 * bounds. b is NULL or a fresh struct buf (symbolic choice); b->data is NULL or a string
 * of at most 4 characters (a 5-byte buffer, symbolic bytes, the last one NUL); len, pos
 * and flags are symbolic ints. */
#include "klee/klee.h"
#include <stdlib.h>

#define main fixture_main
#include "../../../fixtures/unit/buf_parse.c"
#undef main

#define MAX_STRING 4

static int choose(int n, const char *name) {
  if (n <= 1)
    return 0;
  int c;
  klee_make_symbolic(&c, sizeof c, name);
  klee_assume((c >= 0) & (c < n));
  return c;
}

/* NULL or a string of at most MAX_STRING characters. */
static char *make_string(void) {
  if (choose(2, "string_choice") == 0)
    return NULL;
  char *s = malloc(MAX_STRING + 1);
  klee_make_symbolic(s, MAX_STRING + 1, "string");
  klee_assume(s[MAX_STRING] == 0);
  return s;
}

int main(void) {
  struct buf *b = NULL;
  if (choose(2, "buf_choice") == 1) {
    b = malloc(sizeof *b);
    klee_make_symbolic(b, sizeof *b, "buf"); /* len and pos symbolic; data set below */
    b->data = make_string();
  }
  int flags;
  klee_make_symbolic(&flags, sizeof flags, "flags");
  (void)parse_number(b, flags);
  return 0; /* a replay's exit status says only whether it crashed */
}
