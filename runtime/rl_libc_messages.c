/* Wrappers for the libc functions that print a diagnostic: perror, glibc's error and
 * error_at_line, and the BSD err/warn family. GNU tools report most failures through
 * them, so a test that fails on a message needs those bytes in the trace.
 *
 * Each wrapper prints exactly what glibc prints (same text, same stream, same order,
 * same exit), through the logging printf, so every byte is tied to the argument that
 * produced it: for error(), argument k of the message is operand k + 2 of the call. */
#define _GNU_SOURCE
#include "rl_runtime.h"

#include <err.h>
#include <errno.h>
#include <error.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text the call made itself (program name, strerror, separators): argument 0. */
static void rl_put_own(FILE *stream, const char *s) {
  size_t len = strlen(s);
  size_t put = fwrite(s, 1, len, stream);
  rl_log_output(rl_stream_fd(stream), 0, NULL, s, put);
}

/* The caller's message: its bytes are logged per argument by the logging printf. */
static void rl_put_message(FILE *stream, const char *fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  rl_vfprintf_logged(stream, fmt, &copy);
  va_end(copy);
}

static void rl_end_process(int status) {
  rl_ev_exit(status);
  exit(status);
}

void __rl_wrap_perror(const char *s) {
  const char *text = strerror(errno); /* before anything can change errno */
  int e = errno;
  FILE *out = stderr;
  if (s && *s) {
    size_t len = strlen(s);
    rl_ev_mem_read(s, len + 1);
    size_t put = fwrite(s, 1, len, out);
    rl_log_output(rl_stream_fd(out), 1, s, s, put);
    rl_put_own(out, ": ");
  }
  rl_put_own(out, text);
  rl_put_own(out, "\n");
  errno = e;
}

/* glibc's error_tail: the message, the errno text, a newline, then exit on a status. */
static void rl_error_tail(int status, int errnum, const char *fmt, va_list ap) {
  rl_put_message(stderr, fmt, ap);
  ++error_message_count; /* a libc variable the program may read: logged as written */
  rl_ev_mem_write(&error_message_count, sizeof error_message_count);
  if (errnum) {
    rl_put_own(stderr, ": ");
    rl_put_own(stderr, strerror(errnum));
  }
  rl_put_own(stderr, "\n");
  fflush(stderr);
  if (status)
    rl_end_process(status);
}

static void rl_error_prefix(void) {
  fflush(stdout);
  if (error_print_progname) {
    error_print_progname();
  } else {
    rl_put_own(stderr, program_invocation_name);
    rl_put_own(stderr, ": ");
  }
}

void __rl_wrap_error(int status, int errnum, const char *fmt, ...) {
  int e = errno;
  rl_error_prefix();
  va_list ap;
  va_start(ap, fmt);
  rl_error_tail(status, errnum, fmt, ap);
  va_end(ap);
  errno = e;
}

void __rl_wrap_error_at_line(int status, int errnum, const char *file, unsigned int line,
                             const char *fmt, ...) {
  int e = errno;
  if (error_one_per_line) {
    /* glibc prints one message per file and line in a row */
    static const char *old_file;
    static unsigned int old_line;
    if (old_line == line && (file == old_file || (old_file && file && strcmp(old_file, file) == 0)))
      return;
    old_file = file;
    old_line = line;
  }
  fflush(stdout);
  if (error_print_progname) {
    error_print_progname();
  } else {
    rl_put_own(stderr, program_invocation_name);
    rl_put_own(stderr, ":");
  }
  if (file) {
    char where[32];
    snprintf(where, sizeof where, ":%u: ", line);
    size_t len = strlen(file);
    rl_ev_mem_read(file, len + 1);
    size_t put = fwrite(file, 1, len, stderr);
    rl_log_output(rl_stream_fd(stderr), 3, file, file, put);
    rl_put_own(stderr, where);
  } else {
    rl_put_own(stderr, " ");
  }
  va_list ap;
  va_start(ap, fmt);
  rl_error_tail(status, errnum, fmt, ap);
  va_end(ap);
  errno = e;
}

/* glibc's vwarn and vwarnx: "name: message: strerror\n" and "name: message\n". */
static void rl_warn(const char *fmt, va_list ap, int with_errno) {
  int code = errno;
  rl_put_own(stderr, program_invocation_short_name);
  rl_put_own(stderr, ": ");
  if (fmt) {
    rl_put_message(stderr, fmt, ap);
    if (with_errno)
      rl_put_own(stderr, ": ");
  }
  if (with_errno)
    rl_put_own(stderr, strerror(code));
  rl_put_own(stderr, "\n");
  errno = code;
}

void __rl_wrap_vwarn(const char *fmt, va_list ap) { rl_warn(fmt, ap, 1); }
void __rl_wrap_vwarnx(const char *fmt, va_list ap) { rl_warn(fmt, ap, 0); }

void __rl_wrap_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rl_warn(fmt, ap, 1);
  va_end(ap);
}

void __rl_wrap_warnx(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rl_warn(fmt, ap, 0);
  va_end(ap);
}

void __rl_wrap_err(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rl_warn(fmt, ap, 1);
  va_end(ap);
  rl_end_process(status);
}

void __rl_wrap_errx(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rl_warn(fmt, ap, 0);
  va_end(ap);
  rl_end_process(status);
}
