/* KLEE harness for eval (fixtures/unit/expr_eval.c): rootline's default unit-mode bounds.
 * A `struct expr *` is NULL, a fresh expr or an alias of an existing one (symbolic
 * choice; at most 3 fresh, none 2 links from the argument). The tag is symbolic (any int,
 * so the fall-through `return -1` is reachable); the union member filled is the one the
 * tag names (NUM: num, NEG: neg, ADD/MUL: bin), and num for a tag outside the enum. */
#include "klee/klee.h"
#include <stdlib.h>

#define main fixture_main
#include "../../../fixtures/unit/expr_eval.c"
#undef main

#define MAX_DEPTH 2
#define MAX_OBJECTS 3

static int choose(int n, const char *name) {
  if (n <= 1)
    return 0;
  int c;
  klee_make_symbolic(&c, sizeof c, name);
  klee_assume((c >= 0) & (c < n));
  return c;
}

static struct expr *exprs[MAX_OBJECTS];
static int nexprs;

static struct expr *make_expr(int depth) {
  int fresh = depth < MAX_DEPTH && nexprs < MAX_OBJECTS;
  int c = choose(1 + fresh + nexprs, "expr_choice");
  if (c == 0)
    return NULL;
  if (!(fresh && c == 1)) {
    /* An alias: one branch per existing expr, so the pointer stays concrete. */
    for (int k = 0; k < nexprs; ++k)
      if (c == 1 + fresh + k)
        return exprs[k];
    return NULL;
  }
  struct expr *e = malloc(sizeof *e);
  exprs[nexprs++] = e;
  klee_make_symbolic(e, sizeof *e, "expr"); /* kind and num symbolic; pointers set below */
  switch (e->kind) {
  case NEG:
    e->u.neg = make_expr(depth + 1);
    break;
  case ADD:
  case MUL:
    e->u.bin.l = make_expr(depth + 1);
    e->u.bin.r = make_expr(depth + 1);
    break;
  case NUM:
  default: /* u.num keeps its symbolic value */
    break;
  }
  return e;
}

int main(void) {
  (void)eval(make_expr(0));
  return 0; /* a replay's exit status says only whether it crashed */
}
