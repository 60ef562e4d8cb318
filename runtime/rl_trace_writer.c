/* Buffered binary trace writer: header, varints, flush on exit and on fatal signals,
 * and the byte limit. Tracing is on only when ROOTLINE_TRACE names an output file.
 *
 * Full buffers are handed to a writer thread, so the write(2) cost (page cache, about
 * as much as the tracing itself on CPU-heavy programs) overlaps the program instead of
 * stopping it. The program thread fills one of RL_NBUF buffers; the writer writes the
 * others in order. Hand-off and waiting use futexes: async-signal-safe, so the final
 * drain (exit, _exit, fatal signal, byte limit) can wait for the writer anywhere. */
#define _GNU_SOURCE
#include "rl_runtime.h"
#include "rl_writer_state.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RL_TRACE_VERSION 5u
/* Exit status of a traced program stopped at the trace byte limit. */
#define RL_LIMIT_EXIT 86

#define RL_NBUF 4
static unsigned char rl_bufs[RL_NBUF][RL_BUF_SIZE];
static size_t rl_bufs_len[RL_NBUF];
/* Buffers handed off (written by the program thread) and buffers written (by the
 * writer thread); both only grow. rl_buf is rl_bufs[rl_queued % RL_NBUF]. */
static uint32_t rl_queued;
static uint32_t rl_done;
static int rl_writer_started; /* 0 = not yet, 1 = running, -1 = could not start */
unsigned char *rl_buf = rl_bufs[0];
size_t rl_len;
/* Buffer offset where the newest event starts; RL_UNKNOWN after a flush that may
 * have split an event. An asynchronous signal rolls the buffer back to it. */
#define RL_UNKNOWN ((size_t)-1)
static volatile size_t rl_committed;
static volatile sig_atomic_t rl_event_open; /* between rl_put_tag and rl_end */
static volatile sig_atomic_t rl_in_flush;
static int rl_fd = -1;
int rl_state;
size_t rl_cap;
/* Where the current buffer is handed off: its size, or (under a byte limit) soon after
 * the limit, so the limit is noticed within 4 KiB of it. Changes only when the buffer
 * is empty. */
static size_t rl_buf_end = RL_BUF_SIZE;

/* Tracing ends (closed, disabled, or never started): the fast paths stop too. */
static void rl_stop(void) {
  rl_state = 2;
  rl_cap = 0;
}
static uint64_t rl_written;
static uint64_t rl_limit;

static void rl_set_buffer_end(void) {
  rl_buf_end = RL_BUF_SIZE;
  if (rl_limit && rl_limit + 1 - rl_written < RL_BUF_SIZE)
    rl_buf_end = rl_limit + 1 - rl_written > 4096 ? (size_t)(rl_limit + 1 - rl_written) : 4096;
  rl_cap = rl_state == 1 ? rl_buf_end : 0;
}
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

static void rl_futex_wait(uint32_t *word, uint32_t seen) {
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, 0, 0, 0);
}

static void rl_futex_wake(uint32_t *word) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
}

/* The writer thread's errno is its own (thread-local), so the program never sees it. */
static void *rl_writer_main(void *arg) {
  (void)arg;
  for (;;) {
    uint32_t done = __atomic_load_n(&rl_done, __ATOMIC_RELAXED);
    uint32_t queued;
    while ((queued = __atomic_load_n(&rl_queued, __ATOMIC_ACQUIRE)) == done)
      rl_futex_wait(&rl_queued, queued);
    unsigned i = done % RL_NBUF;
    rl_write_all(rl_bufs[i], rl_bufs_len[i]);
    __atomic_store_n(&rl_done, done + 1, __ATOMIC_RELEASE);
    rl_futex_wake(&rl_done);
  }
  return 0;
}

/* The writer blocks every signal: they are the program's, handled on its thread. */
static int rl_start_writer(void) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t t;
  int ok = pthread_create(&t, 0, rl_writer_main, 0) == 0;
  pthread_sigmask(SIG_SETMASK, &old, 0);
  if (ok)
    pthread_detach(t);
  return ok;
}

/* Waits until at most `in_flight` handed-off buffers are still unwritten. */
static void rl_wait_written(uint32_t in_flight) {
  uint32_t done;
  while (rl_queued - (done = __atomic_load_n(&rl_done, __ATOMIC_ACQUIRE)) > in_flight)
    rl_futex_wait(&rl_done, done);
}

/* Hands the full buffer to the writer thread and continues in the next free one. */
static void rl_hand_off(void) {
  if (rl_fd < 0 || rl_len == 0)
    return;
  int saved_errno = errno; /* futex and write must not change the program's errno */
  if (!rl_writer_started)
    rl_writer_started = rl_start_writer() ? 1 : -1;
  rl_in_flush = 1;
  if (rl_writer_started < 0) { /* no thread: write in place */
    rl_write_all(rl_buf, rl_len);
  } else {
    rl_bufs_len[rl_queued % RL_NBUF] = rl_len;
    __atomic_store_n(&rl_queued, rl_queued + 1, __ATOMIC_RELEASE);
    rl_futex_wake(&rl_queued);
    rl_wait_written(RL_NBUF - 1);
    rl_buf = rl_bufs[rl_queued % RL_NBUF];
  }
  rl_written += rl_len;
  rl_len = 0;
  if (rl_written <= rl_limit || !rl_limit)
    rl_set_buffer_end();
  rl_committed = RL_UNKNOWN;
  rl_in_flush = 0;
  errno = saved_errno;
}

/* Everything logged so far reaches the file: the writer's queue first, then the
 * current buffer, written here. */
void rl_flush(void) {
  if (rl_fd < 0)
    return;
  int saved_errno = errno;
  rl_in_flush = 1;
  rl_wait_written(0);
  rl_write_all(rl_buf, rl_len);
  rl_written += rl_len;
  rl_len = 0;
  rl_committed = RL_UNKNOWN;
  rl_in_flush = 0;
  errno = saved_errno;
}

static void rl_limit_reached(void) {
  static const char msg[] = "rootline-runtime: trace byte limit reached; program stopped\n";
  rl_wait_written(0);
  rl_len = 0;
  rl_buf[rl_len++] = RL_EV_LIMIT; /* LIMIT bytes: what was written before it */
  rl_len = (size_t)(rl_fast_uv(rl_buf + rl_len, rl_written) - rl_buf);
  rl_write_all(rl_buf, rl_len);
  rl_len = 0;
  close(rl_fd);
  rl_fd = -1;
  rl_stop();
  if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */
  }
  _exit(RL_LIMIT_EXIT);
}

static void rl_reserve(size_t n) {
  if (rl_len + n > rl_buf_end) {
    rl_hand_off();
    if (rl_limit && rl_written > rl_limit)
      rl_limit_reached();
  }
}

void rl_finish(void) {
  if (rl_state != 1)
    return;
  if (rl_trace_seq()) {
    int saved = errno;
    rl_capture_written_files();
    errno = saved;
  }
  rl_reserve(1);
  rl_buf[rl_len++] = RL_EV_END;
  rl_flush();
  close(rl_fd);
  rl_fd = -1;
  rl_stop();
}

static void rl_on_signal(int signo, siginfo_t *info, void *ctx) {
  (void)ctx;
  /* Synchronous signals (faults) arrive between events of the faulting code; an
   * asynchronous one (SIGTERM at a timeout) may arrive inside an event, which is then
   * dropped. If that cannot be done safely the trace is left to end early. */
  int async = signo == SIGTERM;
  if (async && rl_state == 1 && (rl_in_flush || rl_event_open)) {
    if (rl_in_flush) {
      rl_stop();
    } else if (rl_committed != RL_UNKNOWN) {
      rl_len = rl_committed;
    } else if (rl_len != 0) {
      rl_stop();
    }
  }
  if (rl_state == 1) {
    if (rl_len + 32 > rl_buf_end)
      rl_flush();
    rl_put_tag(RL_EV_SIGNAL);
    rl_put_uv((uint64_t)signo);
    rl_put_uv((uint64_t)(uintptr_t)(info ? info->si_addr : 0));
    rl_end();
    rl_flush();
    close(rl_fd);
    rl_fd = -1;
    rl_stop();
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
  /* A write to a pipe whose reader has gone (`prog | head -n 1`) ends the process: its
   * trace says so rather than ending empty. Only where SIGPIPE would kill it: a
   * process that inherits it ignored must go on ignoring it. */
  struct sigaction pipe_now;
  if (sigaction(SIGPIPE, 0, &pipe_now) == 0 && !(pipe_now.sa_flags & SA_SIGINFO) &&
      pipe_now.sa_handler == SIG_DFL) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = rl_on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, 0);
  }
}

/* A child forked from uninstrumented code (daemon(), a library) has no writer thread
 * and shares the file: it runs untraced. A fork the program itself makes goes through
 * __rl_wrap_fork, which then starts the child's own trace (rl_trace_forked_child). */
static void rl_in_forked_child(void) {
  if (rl_fd >= 0)
    close(rl_fd);
  rl_fd = -1;
  rl_stop();
}

/* Per-process traces (ROOTLINE_TRACE_DIR): every traced process of a test, forked
 * children and exec'd images included, writes <dir>/p<seq>.trace, seq counting
 * processes in the order they start (docs/trace-format.md, "Processes"). */
static char rl_trace_dir[4096];
static uint64_t rl_seq; /* this trace's number + 1; 0 in single-file mode */

/* The next process number, from a counter file under a lock (processes of one test
 * start concurrently: a pipeline, make -j). */
static uint64_t rl_next_seq(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s/.seq", rl_trace_dir);
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return 0;
  uint64_t n = 0;
  if (flock(fd, LOCK_EX) == 0) {
    char buf[32] = {0};
    if (pread(fd, buf, sizeof buf - 1, 0) > 0)
      n = strtoull(buf, 0, 10);
    int len = snprintf(buf, sizeof buf, "%020llu\n", (unsigned long long)(n + 1));
    if (pwrite(fd, buf, (size_t)len, 0) != len)
      n = 0;
    flock(fd, LOCK_UN);
  }
  close(fd);
  return n + 1;
}

static void rl_put_string(const char *s, size_t n) {
  rl_put_uv(n);
  rl_put_bytes(s, n);
}

/* Up to `cap` bytes of a /proc file (or a symlink's target when `link`). */
static size_t rl_read_proc(const char *path, char *out, size_t cap, int link) {
  if (link) {
    ssize_t n = readlink(path, out, cap);
    return n > 0 ? (size_t)n : 0;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  size_t got = 0;
  ssize_t n;
  while (got < cap && (n = read(fd, out + got, cap - got)) > 0)
    got += (size_t)n;
  close(fd);
  return got;
}

/* Header: magic, version, module key, then the process: its number, pid, parent pid,
 * the trace it was forked from (number + 1, 0: none) and where in that trace, its
 * working directory, executable and arguments. */
static void rl_write_header(uint64_t parent_seq, uint64_t fork_offset) {
  static char text[64 * 1024];
  memcpy(rl_buf, "RLTRACE\0", 8);
  rl_len = 8;
  rl_put_uv(RL_TRACE_VERSION);
  rl_put_string(rl_module_key, strlen(rl_module_key));
  rl_put_uv(rl_seq);
  rl_put_uv((uint64_t)getpid());
  rl_put_uv((uint64_t)getppid());
  rl_put_uv(parent_seq);
  rl_put_uv(fork_offset);
  const char *cwd = getcwd(text, sizeof text);
  rl_put_string(text, cwd ? strlen(text) : 0);
  rl_put_string(text, rl_read_proc("/proc/self/exe", text, sizeof text, 1));
  size_t n = rl_read_proc("/proc/self/cmdline", text, sizeof text, 0);
  uint64_t argc = 0;
  for (size_t i = 0; i < n; ++i)
    argc += text[i] == 0;
  rl_put_uv(argc);
  for (size_t i = 0, start = 0; i < n; ++i)
    if (text[i] == 0) {
      rl_put_string(text + start, i - start);
      start = i + 1;
    }
}

/* Opens this process's trace file: the given path, or the next p<seq>.trace. */
static int rl_open_trace(const char *path) {
  if (path)
    return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  rl_seq = rl_next_seq();
  if (!rl_seq)
    return -1;
  char name[4200];
  snprintf(name, sizeof name, "%s/p%llu.trace", rl_trace_dir, (unsigned long long)(rl_seq - 1));
  return open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

/* At most this much of one input is copied (docs/project.md, "Inputs of a process"). */
#define RL_CAPTURE_CAP (64u << 20)

/* Copies from `in` (from its offset `at`, or its current position if at < 0) to a new
 * file `name` under the trace directory; returns that file's descriptor (at offset 0),
 * or -1. */
static int rl_copy_to_capture(int in, off_t at, const char *suffix) {
  char path[4300];
  snprintf(path, sizeof path, "%s/p%llu.%s", rl_trace_dir, (unsigned long long)(rl_seq - 1),
           suffix);
  int out = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0)
    return -1;
  static char buf[1 << 16];
  size_t total = 0;
  for (;;) {
    ssize_t n = at >= 0 ? pread(in, buf, sizeof buf, at + (off_t)total) : read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    if (write(out, buf, (size_t)n) != n)
      break;
    total += (size_t)n;
    if (total >= RL_CAPTURE_CAP)
      break;
  }
  lseek(out, 0, SEEK_SET);
  return out;
}

void rl_capture_file(const char *name, long at, const char *suffix) {
  int in = open(name, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return;
  int out = rl_copy_to_capture(in, (off_t)at, suffix);
  if (out >= 0)
    close(out);
  close(in);
}

void rl_capture_text(const char *text, unsigned long len, const char *suffix) {
  char path[4300];
  snprintf(path, sizeof path, "%s/p%llu.%s", rl_trace_dir, (unsigned long long)(rl_seq - 1),
           suffix);
  int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0)
    return;
  if (write(out, text, len) != (ssize_t)len) { /* a short copy: nothing more to do */
  }
  close(out);
}

void rl_capture_input_file(uint32_t id, const char *name) {
  if (!rl_seq || rl_state != 1)
    return;
  int saved = errno;
  char suffix[32];
  snprintf(suffix, sizeof suffix, "in%u", id);
  rl_capture_file(name, 0, suffix);
  errno = saved;
}

/* A copy of what the process gets on stdin (p<N>.stdin): a file is copied from its
 * current offset without moving it (a shell reading the same file keeps its place); a
 * pipe is read to its end and the process reads the copy instead; /dev/null gives an
 * empty copy; a terminal none. */
static void rl_capture_stdin(void) {
  struct stat st;
  if (fstat(0, &st) != 0)
    return;
  if (S_ISREG(st.st_mode)) {
    off_t at = lseek(0, 0, SEEK_CUR);
    int out = rl_copy_to_capture(0, at < 0 ? 0 : at, "stdin");
    if (out >= 0)
      close(out);
  } else if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
    int out = rl_copy_to_capture(0, -1, "stdin");
    if (out >= 0) {
      dup2(out, 0);
      close(out);
    }
  } else if (S_ISCHR(st.st_mode)) {
    struct stat null;
    if (stat("/dev/null", &null) == 0 && null.st_rdev == st.st_rdev) {
      int out = rl_copy_to_capture(0, 0, "stdin");
      if (out >= 0)
        close(out);
    }
  }
}

/* A path in a temporary directory (/tmp, /var/tmp, $TMPDIR): a test's scratch file,
 * gone when the process is run alone later. */
static int rl_in_temp_dir(const char *path) {
  const char *tmp = getenv("TMPDIR");
  size_t n = tmp ? strlen(tmp) : 0;
  return strncmp(path, "/tmp/", 5) == 0 || strncmp(path, "/var/tmp/", 9) == 0 ||
         (n > 1 && strncmp(path, tmp, n) == 0 && path[n] == '/');
}

/* A copy of each argument that names a file by a relative path, or by an absolute one in
 * a temporary directory (p<N>.arg<i>), as it is
 * when the process starts: the process may hand it to a program it runs (`gzip -dc
 * FILE` through popen) rather than open it, and the test may delete it before it ends.
 * Debugged alone, the process finds it again. */
static void rl_capture_argument_files(void) {
  static char text[64 * 1024];
  size_t n = rl_read_proc("/proc/self/cmdline", text, sizeof text - 1, 0);
  text[n] = 0;
  unsigned index = 0;
  for (size_t start = 0; start < n; ++index) {
    const char *arg = text + start;
    size_t len = strlen(arg);
    start += len + 1;
    struct stat st;
    if (index == 0 || len == 0 || arg[0] == '-' || (arg[0] == '/' && !rl_in_temp_dir(arg)) ||
        stat(arg, &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    char suffix[32];
    snprintf(suffix, sizeof suffix, "arg%u", index);
    rl_capture_file(arg, 0, suffix);
  }
}

/* Where stdout and stderr go when the process starts (p<N>.fds: "1 /dev/full" lines,
 * readlink's text): what a test sends to /dev/null or /dev/full it never sees. */
static void rl_capture_output_sinks(void) {
  char text[2 * 4200];
  size_t len = 0;
  for (int fd = 1; fd <= 2; ++fd) {
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0)
      continue;
    target[n] = 0;
    len += (size_t)snprintf(text + len, sizeof text - len, "%d %s\n", fd, target);
  }
  rl_capture_text(text, len, "fds");
}

/* A copy of the environment the process starts with (p<N>.env): a test may set
 * variables (LC_ALL, TZ, a tool's own) that the process alone needs again. */
static void rl_capture_environment(void) { rl_capture_file("/proc/self/environ", -1, "env"); }

/* At exit, after the program's own handlers: its streams are flushed first (exit would
 * do it next), so the copies of the files it wrote are whole. */
static void rl_at_exit(void) {
  if (rl_state == 1 && rl_seq) {
    int saved = errno;
    fflush(NULL);
    errno = saved;
  }
  rl_finish();
}

static void rl_start(uint64_t parent_seq, uint64_t fork_offset) {
  rl_state = 1;
  rl_set_buffer_end();
  rl_write_header(parent_seq, fork_offset);
}

void rl_ensure_init(void) {
  if (rl_state != 0)
    return;
  rl_stop();
  const char *path = getenv("ROOTLINE_TRACE");
  const char *dir = getenv("ROOTLINE_TRACE_DIR");
  if (path && *path) {
    dir = 0;
  } else if (dir && *dir && strlen(dir) < sizeof rl_trace_dir) {
    strcpy(rl_trace_dir, dir);
    path = 0;
  } else {
    return;
  }
  rl_fd = rl_open_trace(path);
  const char *limit = getenv("ROOTLINE_MAX_TRACE_BYTES");
  rl_limit = limit ? strtoull(limit, 0, 10) : 0;
  /* One file is this process's alone: programs it runs must not write over it. */
  if (path) {
    unsetenv("ROOTLINE_TRACE");
    unsetenv("ROOTLINE_MAX_TRACE_BYTES");
  }
  if (rl_fd < 0)
    return;
  rl_start(0, 0);
  if (rl_seq) {
    int saved = errno;
    rl_capture_stdin();
    rl_capture_argument_files();
    rl_capture_environment();
    rl_capture_output_sinks();
    errno = saved;
  }
  atexit(rl_at_exit);
  pthread_atfork(0, 0, rl_in_forked_child);
  rl_install_signal_handlers();
}

uint64_t rl_trace_position(void) { return rl_written + rl_len; }
uint64_t rl_trace_seq(void) { return rl_seq; }

/* The child of a fork the program made: the parent's unwritten buffers are the
 * parent's to write, the writer thread did not survive the fork. With per-process
 * traces the child continues in a trace of its own, which names the parent's trace
 * and the offset it continues from. */
void rl_trace_forked_child(uint64_t parent_seq, uint64_t fork_offset) {
  rl_in_forked_child();
  rl_writer_started = 0;
  rl_queued = rl_done = 0;
  rl_buf = rl_bufs[0];
  rl_len = 0;
  rl_written = 0;
  rl_committed = RL_UNKNOWN;
  if (!parent_seq || !rl_trace_dir[0])
    return;
  rl_fd = rl_open_trace(0);
  if (rl_fd >= 0)
    rl_start(parent_seq, fork_offset);
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
    size_t room = rl_buf_end - rl_len;
    size_t chunk = n < room ? n : room;
    memcpy(rl_buf + rl_len, p, chunk);
    rl_len += chunk;
    p += chunk;
    n -= chunk;
  }
}
