// The unit driver's fixed part, the same in every driver: shape decisions, the objects it
// built, frees, and printing. Shape decisions are numbers read like any other input, into
// arrays whose names the conditions show (`pointer_choice[0] == 1`).
#include "driver_writer.h"

namespace rootline::unit_driver {

const char *const kDriverRuntime = R"(/* ---- driver runtime ---- */
#include <sys/resource.h>
static FILE *rl_out;

/* A 1 MiB stack: a lazily built structure may be cyclic, and a function recursing over
 * it should fail fast (a short run to replay), not after 8 MiB of frames. */
static void rl_limit_stack(void) {
  struct rlimit r;
  if (getrlimit(RLIMIT_STACK, &r) == 0 && (r.rlim_cur == RLIM_INFINITY || r.rlim_cur > (1u << 20))) {
    r.rlim_cur = 1u << 20;
    setrlimit(RLIMIT_STACK, &r);
  }
}

static int pointer_choice[64];
static int rl_pointer_choices;
static int rl_choose_pointer(void) {
  if (rl_pointer_choices >= 64)
    return 0;
  int n = rl_pointer_choices++;
  pointer_choice[n] = 0;
  RL_READ("%d", &pointer_choice[n]);
  return pointer_choice[n];
}

static int function_choice[16];
static int rl_function_choices;
static int rl_choose_function(void) {
  if (rl_function_choices >= 16)
    return 0;
  int n = rl_function_choices++;
  function_choice[n] = 0;
  RL_READ("%d", &function_choice[n]);
  return function_choice[n];
}

/* The function pointers the solver chose, printed with the state. */
static const char *rl_chosen_what[16], *rl_chosen_target[16];
static int rl_chosen;
static void rl_chose(const char *what, const char *target) {
  if (rl_chosen < 16) {
    rl_chosen_what[rl_chosen] = what;
    rl_chosen_target[rl_chosen++] = target;
  }
}
static void rl_print_targets(void) {
  for (int i = 0; i < rl_chosen; ++i)
    fprintf(rl_out, "target %s = %s\n", rl_chosen_what[i], rl_chosen_target[i]);
}

/* Every object the driver built, so pointers print by name. */
static const void *rl_objects[256];
static const char *rl_object_names[256];
static int rl_object_numbers[256];
static int rl_nobjects;
static void rl_object(const void *p, const char *name, int k) {
  if (rl_nobjects < 256) {
    rl_objects[rl_nobjects] = p;
    rl_object_names[rl_nobjects] = name;
    rl_object_numbers[rl_nobjects++] = k;
  }
}
static void rl_print_pointer(const char *prefix, const char *suffix, const void *p) {
  if (!p) {
    fprintf(rl_out, "%s%s = NULL\n", prefix, suffix);
    return;
  }
  for (int i = 0; i < rl_nobjects; ++i)
    if (rl_objects[i] == p) {
      fprintf(rl_out, "%s%s = &%s[%d]\n", prefix, suffix, rl_object_names[i], rl_object_numbers[i]);
      return;
    }
  fprintf(rl_out, "%s%s = (other pointer)\n", prefix, suffix);
}

static const void *rl_freed[256];
static int rl_nfreed;
static int rl_is_freed(const void *p) {
  for (int i = 0; i < rl_nfreed; ++i)
    if (rl_freed[i] == p)
      return 1;
  return 0;
}
static void rl_tracked_free(void *p) {
  if (p && rl_nfreed < 256)
    rl_freed[rl_nfreed++] = p;
  free(p);
}
static void *rl_tracked_realloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (p && q && q != p && rl_nfreed < 256)
    rl_freed[rl_nfreed++] = p;
  return q;
}

/* Strings: a length (negative: NULL; at most RL_MAX_STRING), then RL_MAX_STRING
 * characters (a 0 becomes 'a'), and the NUL stored at the length. The characters are
 * read without a branch on the length, so the NUL's position stays symbolic: a branch
 * of the function on where the string ends (strcmp with "if", strlen(s) > 3) is solved
 * together with the characters instead of waiting for a run of that length. */
static int string_length[RL_MAX_STRINGS];
static char string_text[RL_MAX_STRINGS][RL_MAX_STRING + 1];
static char *rl_string_heap[RL_MAX_STRINGS];
static int rl_strings;
static char *rl_string(int depth) {
  (void)depth;
  if (rl_strings >= RL_MAX_STRINGS)
    return 0;
  int n = rl_strings++;
  string_length[n] = 0;
  RL_READ("%d", &string_length[n]);
  if (string_length[n] < 0)
    return 0;
  if (string_length[n] > RL_MAX_STRING)
    string_length[n] = RL_MAX_STRING;
  for (int i = 0; i < RL_MAX_STRING; ++i) {
    RL_READ("%hhd", (signed char *)&string_text[n][i]);
    string_text[n][i] |= (string_text[n][i] == 0) * 'a';
  }
  string_text[n][string_length[n]] = 0;
  rl_string_heap[n] = (char *)malloc(RL_MAX_STRING + 1);
  memcpy(rl_string_heap[n], string_text[n], RL_MAX_STRING + 1);
  rl_object(rl_string_heap[n], "string_text", n);
  return rl_string_heap[n];
}
/* Text as a C string literal: bytes that are not printable as octal escapes. */
static void rl_print_text(const char *label, const char *suffix, const char *s, size_t max) {
  fprintf(rl_out, "%s%s = \"", label, suffix);
  for (size_t i = 0; i < max && s[i]; ++i) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\')
      fprintf(rl_out, "\\%c", c);
    else if (c >= 0x20 && c < 0x7f)
      fputc(c, rl_out);
    else
      fprintf(rl_out, "\\%03o", c);
  }
  fprintf(rl_out, "\"\n");
}

static void rl_print_strings(void) {
  for (int n = 0; n < rl_strings; ++n)
    if (rl_string_heap[n] && !rl_is_freed(rl_string_heap[n])) {
      char label[32];
      snprintf(label, sizeof label, "string_text[%d]", n);
      rl_print_text(label, "", rl_string_heap[n], RL_MAX_STRING + 1);
    }
}

/* A `void *` on a side of its tag where the code does not use it as a type: NULL or a
 * block of zero bytes on the heap (a function that only tests it, or frees it, gets a
 * real object). */
static int rl_opaque_blocks;
static void *rl_opaque(void) {
  if (rl_choose_pointer() <= 0 || rl_opaque_blocks >= 8)
    return 0;
  void *p = calloc(1, 64);
  rl_object(p, "opaque_block", rl_opaque_blocks++);
  return p;
}

static void rl_reset_common(void) {
  rl_reads = 0;
  rl_opaque_blocks = 0;
  rl_pointer_choices = rl_function_choices = rl_chosen = rl_nobjects = rl_nfreed = 0;
  rl_strings = 0;
  memset(rl_string_heap, 0, sizeof rl_string_heap);
  memset(string_text, 0, sizeof string_text);
}
)";

} // namespace rootline::unit_driver
