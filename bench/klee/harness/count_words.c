/* KLEE harness for count_words (fixtures/unit/word_stats.c): rootline's default unit-mode
 * bounds. s is NULL or a string of at most 4 characters (a 5-byte buffer, symbolic
 * bytes, the last one NUL). strlen comes from KLEE's klee-libc (--libc=klee); isspace,
 * isalpha and isdigit are glibc's table look-ups (__ctype_b_loc), which KLEE models. */
#include "klee/klee.h"
#include <stdlib.h>

#define main fixture_main
#include "../../../fixtures/unit/word_stats.c"
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

int main(void) {
  char *s = NULL;
  if (choose(2, "string_choice") == 1) {
    s = malloc(MAX_STRING + 1);
    klee_make_symbolic(s, MAX_STRING + 1, "string");
    klee_assume(s[MAX_STRING] == 0);
  }
  (void)count_words(s);
  return 0; /* a replay's exit status says only whether it crashed */
}
