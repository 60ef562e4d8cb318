/* Buffered binary trace writer: header, varints, flush on exit and on fatal signals,
 * and the byte limit. Tracing is on only when ROOTLINE_TRACE names an output file. */
#define _GNU_SOURCE
#include "rl_runtime.h"
#include "rl_writer_state.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RL_TRACE_VERSION 1u
/* Exit status of a traced program stopped at the trace byte limit. */
#define RL_LIMIT_EXIT 86

unsigned char rl_buf[RL_BUF_SIZE];
size_t rl_len;
/* Buffer offset where the newest event starts; RL_UNKNOWN after a flush that may
 * have split an event. An asynchronous signal rolls the buffer back to it. */
#define RL_UNKNOWN ((size_t)-1)
static volatile size_t rl_committed;
static volatile sig_atomic_t rl_event_open; /* between rl_put_tag and rl_end */
static volatile sig_atomic_t rl_in_flush;
static int rl_fd = -1;
int rl_state;
static uint64_t rl_written;
static uint64_t rl_limit;
static const char *rl_module_key = "";

uint64_t rl_stdin_pos;
uint64_t rl_out_pos[3];

void __rl_set_module_key(const char *key) { rl_module_key = key; }

static void rl_write_all(const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(rl_fd, p, n);
    if (w <= 0)
      return;
    p += w;
    n -= (size_t)w;
  }
}

void rl_flush(void) {
  if (rl_fd < 0 || rl_len == 0)
    return;
  rl_in_flush = 1;
  rl_write_all(rl_buf, rl_len);
  rl_written += rl_len;
  rl_len = 0;
  rl_committed = RL_UNKNOWN;
  rl_in_flush = 0;
}

static void rl_limit_reached(void) {
  static const char msg[] = "rootline-runtime: trace byte limit reached; program stopped\n";
  rl_len = 0;
  rl_buf[rl_len++] = RL_EV_LIMIT;
  rl_write_all(rl_buf, rl_len);
  rl_len = 0;
  close(rl_fd);
  rl_fd = -1;
  rl_state = 2;
  if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */
  }
  _exit(RL_LIMIT_EXIT);
}

static void rl_reserve(size_t n) {
  if (rl_len + n > RL_BUF_SIZE) {
    rl_flush();
    if (rl_limit && rl_written > rl_limit)
      rl_limit_reached();
  }
}

static void rl_at_exit(void) {
  if (rl_state != 1)
    return;
  rl_reserve(1);
  rl_buf[rl_len++] = RL_EV_END;
  rl_flush();
  close(rl_fd);
  rl_fd = -1;
  rl_state = 2;
}

static void rl_on_signal(int signo, siginfo_t *info, void *ctx) {
  (void)ctx;
  /* Synchronous signals (faults) arrive between events of the faulting code; an
   * asynchronous one (SIGTERM at a timeout) may arrive inside an event, which is then
   * dropped. If that cannot be done safely the trace is left to end early. */
  int async = signo == SIGTERM;
  if (async && rl_state == 1 && (rl_in_flush || rl_event_open)) {
    if (rl_in_flush) {
      rl_state = 2;
    } else if (rl_committed != RL_UNKNOWN) {
      rl_len = rl_committed;
    } else if (rl_len != 0) {
      rl_state = 2;
    }
  }
  if (rl_state == 1) {
    if (rl_len + 32 > RL_BUF_SIZE)
      rl_flush();
    rl_put_tag(RL_EV_SIGNAL);
    rl_put_uv((uint64_t)signo);
    rl_put_uv((uint64_t)(uintptr_t)(info ? info->si_addr : 0));
    rl_end();
    rl_flush();
    close(rl_fd);
    rl_fd = -1;
    rl_state = 2;
  }
  signal(signo, SIG_DFL);
  raise(signo);
}

static void rl_install_signal_handlers(void) {
  static char altstack[64 * 1024];
  stack_t ss;
  ss.ss_sp = altstack;
  ss.ss_size = sizeof altstack;
  ss.ss_flags = 0;
  sigaltstack(&ss, 0);
  const int sigs[] = {SIGSEGV, SIGFPE, SIGABRT, SIGBUS, SIGILL, SIGTERM, SIGTRAP};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = rl_on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, 0);
  }
}

void rl_ensure_init(void) {
  if (rl_state != 0)
    return;
  rl_state = 2;
  const char *path = getenv("ROOTLINE_TRACE");
  if (!path || !*path)
    return;
  rl_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (rl_fd < 0)
    return;
  const char *limit = getenv("ROOTLINE_MAX_TRACE_BYTES");
  rl_limit = limit ? strtoull(limit, 0, 10) : 0;
  rl_state = 1;
  /* Header: magic, version, module key. */
  memcpy(rl_buf, "RLTRACE\0", 8);
  rl_len = 8;
  rl_put_uv(RL_TRACE_VERSION);
  size_t klen = strlen(rl_module_key);
  rl_put_uv(klen);
  rl_put_bytes(rl_module_key, klen);
  atexit(rl_at_exit);
  rl_install_signal_handlers();
}

int rl_tracing(void) { return rl_state == 1; }

void rl_put_tag(uint8_t tag) {
  rl_reserve(64); /* every fixed-size event fits, so only byte payloads may split */
  rl_committed = rl_len;
  rl_event_open = 1;
  rl_buf[rl_len++] = tag;
}

void rl_end(void) { rl_event_open = 0; }

void rl_put_uv(uint64_t v) {
  rl_reserve(10);
  unsigned char *p = rl_buf + rl_len;
  while (v >= 0x80) {
    *p++ = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  *p++ = (unsigned char)v;
  rl_len = (size_t)(p - rl_buf);
}

void rl_put_bytes(const void *data, size_t n) {
  const unsigned char *p = data;
  while (n > 0) {
    rl_reserve(1);
    size_t room = RL_BUF_SIZE - rl_len;
    size_t chunk = n < room ? n : room;
    memcpy(rl_buf + rl_len, p, chunk);
    rl_len += chunk;
    p += chunk;
    n -= chunk;
  }
}
