/* Linked into the native (coverage-instrumented) replay binaries of run_klee.sh: writes
 * the LLVM profile when a replayed test crashes (SIGSEGV, SIGFPE, SIGBUS, SIGABRT,
 * SIGILL) or is stopped by `timeout` (SIGTERM), so a crashing or hanging test still
 * counts for coverage. The handler runs on its own stack (a test that recurses until the
 * stack overflows still gets here), then exits with 128 + the signal number. */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

int __llvm_profile_write_file(void);

static void on_signal(int sig) {
  __llvm_profile_write_file();
  _exit(128 + sig);
}

__attribute__((constructor)) static void install_handlers(void) {
  static char altstack[1 << 16];
  stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  int sigs[] = {SIGSEGV, SIGFPE, SIGBUS, SIGABRT, SIGILL, SIGTERM};
  for (unsigned i = 0; i < sizeof sigs / sizeof *sigs; ++i)
    sigaction(sigs[i], &sa, NULL);
}
