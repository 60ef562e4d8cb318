/* KLEE harness for stack_push (fixtures/unit/stack.c): rootline's default unit-mode
 * bounds. The file's non-const global `pushes` is symbolic; s is NULL or a fresh struct
 * stack (symbolic choice); s->items is NULL or an array of 0..4 ints (symbolic length
 * choice, symbolic elements); count, cap and v symbolic. */
#include "klee/klee.h"
#include <stdlib.h>

#define main fixture_main
#include "../../../fixtures/unit/stack.c"
#undef main

#define MAX_ARRAY 4

static int choose(int n, const char *name) {
  if (n <= 1)
    return 0;
  int c;
  klee_make_symbolic(&c, sizeof c, name);
  klee_assume((c >= 0) & (c < n));
  return c;
}

/* NULL (choice 0) or an array of choice - 1 symbolic ints. */
static int *make_array(void) {
  int c = choose(MAX_ARRAY + 2, "array_choice");
  if (c == 0)
    return NULL;
  int n = 0; /* concrete on each path: KLEE concretises a symbolic malloc size */
  for (int k = 1; k <= MAX_ARRAY; ++k)
    if (c == k + 1)
      n = k;
  int *a = malloc(sizeof(int) * n);
  if (n)
    klee_make_symbolic(a, sizeof(int) * n, "items");
  return a;
}

int main(void) {
  klee_make_symbolic(&pushes, sizeof pushes, "pushes");
  struct stack *s = NULL;
  if (choose(2, "stack_choice") == 1) {
    s = malloc(sizeof *s);
    klee_make_symbolic(s, sizeof *s, "stack"); /* count and cap symbolic; items set below */
    s->items = make_array();
  }
  int v;
  klee_make_symbolic(&v, sizeof v, "v");
  (void)stack_push(s, v);
  return 0; /* a replay's exit status says only whether it crashed */
}
