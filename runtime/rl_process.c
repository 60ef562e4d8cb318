/* Processes in traced programs: fork, vfork and the exec family. A traced process's
 * children are traced too, each into a trace of its own (docs/trace-format.md,
 * "Processes"): a forked child continues its parent's trace from the fork; an exec'd
 * image of an instrumented program starts a new one. */
#define _GNU_SOURCE
#include "rl_runtime.h"

#include <stdarg.h>
#include <stdint.h>
#include <unistd.h>

pid_t __rl_wrap_fork(void) {
  uint64_t seq = rl_tracing() ? rl_trace_seq() : 0;
  uint64_t at = rl_trace_position();
  pid_t pid = fork();
  if (pid == 0)
    rl_trace_forked_child(seq, at);
  return pid;
}

/* A vfork child borrows the parent's memory, trace buffer included, until it execs or
 * exits: everything it logged would land in the parent's trace. A fork keeps what a
 * correct vfork child may do (exec, _exit) and gives it its own memory. */
pid_t __rl_wrap_vfork(void) { return __rl_wrap_fork(); }

/* Everything logged so far reaches the file before the image is replaced; if the exec
 * fails, the trace goes on with the call's return. */
static void rl_before_exec(void) {
  if (!rl_tracing())
    return;
  rl_put_tag(RL_EV_EXEC);
  rl_end();
  rl_flush();
}

int __rl_wrap_execve(const char *path, char *const argv[], char *const envp[]) {
  rl_before_exec();
  return execve(path, argv, envp);
}

int __rl_wrap_execv(const char *path, char *const argv[]) {
  rl_before_exec();
  return execv(path, argv);
}

int __rl_wrap_execvp(const char *file, char *const argv[]) {
  rl_before_exec();
  return execvp(file, argv);
}

int __rl_wrap_execvpe(const char *file, char *const argv[], char *const envp[]) {
  rl_before_exec();
  return execvpe(file, argv, envp);
}

int __rl_wrap_fexecve(int fd, char *const argv[], char *const envp[]) {
  rl_before_exec();
  return fexecve(fd, argv, envp);
}

/* The list forms: the arguments up to the terminating NULL (and, for execle, the
 * environment after it) become an array for the vector form. */
enum rl_exec_form { RL_EXECV, RL_EXECVP, RL_EXECVE };

static int rl_exec_list(enum rl_exec_form form, const char *path, const char *arg0, va_list ap) {
  va_list count;
  va_copy(count, ap);
  size_t n = 1; /* arg0 */
  while (va_arg(count, char *))
    ++n;
  va_end(count);
  char *argv[n + 1];
  argv[0] = (char *)arg0;
  for (size_t i = 1; i <= n; ++i) /* argv[n] is the NULL */
    argv[i] = va_arg(ap, char *);
  if (form == RL_EXECVE)
    return __rl_wrap_execve(path, argv, va_arg(ap, char *const *));
  return form == RL_EXECVP ? __rl_wrap_execvp(path, argv) : __rl_wrap_execv(path, argv);
}

int __rl_wrap_execl(const char *path, const char *arg0, ...) {
  va_list ap;
  va_start(ap, arg0);
  int r = rl_exec_list(RL_EXECV, path, arg0, ap);
  va_end(ap);
  return r;
}

int __rl_wrap_execlp(const char *file, const char *arg0, ...) {
  va_list ap;
  va_start(ap, arg0);
  int r = rl_exec_list(RL_EXECVP, file, arg0, ap);
  va_end(ap);
  return r;
}

int __rl_wrap_execle(const char *path, const char *arg0, ...) {
  va_list ap;
  va_start(ap, arg0);
  int r = rl_exec_list(RL_EXECVE, path, arg0, ap);
  va_end(ap);
  return r;
}
