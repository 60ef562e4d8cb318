/* KLEE harness for run_op (fixtures/unit/dispatch.c): rootline's default unit-mode
 * bounds. o is NULL or a fresh struct op (symbolic choice); o->sym symbolic; o->apply is
 * NULL or one of the file's functions of type int (*)(int, int) whose address is taken
 * (add, sub, divide), chosen by a symbolic index through a switch (KLEE cannot make a
 * function pointer symbolic itself). a and b symbolic. The global `table` is const. */
#include "klee/klee.h"
#include <stdlib.h>

#define main fixture_main
#include "../../../fixtures/unit/dispatch.c"
#undef main

static int choose(int n, const char *name) {
  if (n <= 1)
    return 0;
  int c;
  klee_make_symbolic(&c, sizeof c, name);
  klee_assume((c >= 0) & (c < n));
  return c;
}

int main(void) {
  struct op *o = NULL;
  if (choose(2, "op_choice") == 1) {
    o = malloc(sizeof *o);
    klee_make_symbolic(o, sizeof *o, "op"); /* sym symbolic; apply set below */
    switch (choose(4, "apply_choice")) {
    case 0:
      o->apply = NULL;
      break;
    case 1:
      o->apply = add;
      break;
    case 2:
      o->apply = sub;
      break;
    default:
      o->apply = divide;
      break;
    }
  }
  int a, b;
  klee_make_symbolic(&a, sizeof a, "a");
  klee_make_symbolic(&b, sizeof b, "b");
  (void)run_op(o, a, b);
  return 0; /* a replay's exit status says only whether it crashed */
}
