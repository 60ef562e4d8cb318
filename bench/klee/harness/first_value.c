/* KLEE harness for first_value (fixtures/unit/list_sum.c): rootline's default unit-mode
 * bounds (see list_sum.c beside this file). */
#include "klee/klee.h"
#include <stdlib.h>

#define main fixture_main
#include "../../../fixtures/unit/list_sum.c"
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

static struct node *nodes[MAX_OBJECTS];
static int nnodes;

static struct node *make_node(int depth) {
  int fresh = depth < MAX_DEPTH && nnodes < MAX_OBJECTS;
  int c = choose(1 + fresh + nnodes, "node_choice");
  if (c == 0)
    return NULL;
  if (fresh && c == 1) {
    struct node *n = malloc(sizeof *n);
    nodes[nnodes++] = n;
    klee_make_symbolic(n, sizeof *n, "node"); /* value symbolic; next set below */
    n->next = make_node(depth + 1);
    return n;
  }
  /* An alias: one branch per existing node, so the pointer stays concrete (a symbolic
   * index into nodes[] would give KLEE a symbolic pointer to resolve on every access). */
  for (int k = 0; k < nnodes; ++k)
    if (c == 1 + fresh + k)
      return nodes[k];
  return NULL;
}

int main(void) {
  struct node *head = make_node(0);
  (void)first_value(head);
  return 0; /* a replay's exit status says only whether it crashed */
}
