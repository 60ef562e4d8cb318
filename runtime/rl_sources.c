/* Input sources (docs/trace-format.md, "Input sources"): stdin as the process started
 * is source 0; every file opened for reading (fopen, or freopen, also of stdin) gets the
 * next number, logged by an OPEN event with the name the program used. Input events of
 * a source other than 0 are preceded by SOURCE, and their offsets count bytes of that
 * source. A failed open is logged too (source 0), so a missing file is an outcome the
 * report can name. */
#define _GNU_SOURCE
#include "rl_runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RL_MAX_SOURCES 64

struct rl_source {
  FILE *fp; /* a stream, or NULL for a file descriptor from open() */
  int fd;   /* that descriptor, or -1 */
  uint32_t id;
  uint64_t pos;
};

static struct rl_source rl_sources[RL_MAX_SOURCES];
static uint32_t rl_next_source = 1;

uint64_t *rl_source_fd_pos(int fd, uint32_t *id) {
  for (int i = 0; i < RL_MAX_SOURCES; ++i)
    if (rl_sources[i].id && !rl_sources[i].fp && rl_sources[i].fd == fd) {
      *id = rl_sources[i].id;
      return &rl_sources[i].pos;
    }
  if (fd == 0) {
    *id = 0;
    return &rl_stdin_pos;
  }
  return NULL;
}

uint64_t *rl_source_pos(FILE *stream, uint32_t *id) {
  for (int i = 0; i < RL_MAX_SOURCES; ++i)
    if (rl_sources[i].fp && rl_sources[i].fp == stream) {
      *id = rl_sources[i].id;
      return &rl_sources[i].pos;
    }
  if (stream == stdin) {
    *id = 0;
    return &rl_stdin_pos;
  }
  return NULL;
}

static void rl_forget(FILE *stream) {
  for (int i = 0; i < RL_MAX_SOURCES; ++i)
    if (rl_sources[i].fp && rl_sources[i].fp == stream) {
      rl_sources[i].fp = NULL;
      rl_sources[i].id = 0;
    }
}

static void rl_forget_fd(int fd) {
  for (int i = 0; i < RL_MAX_SOURCES; ++i)
    if (rl_sources[i].id && !rl_sources[i].fp && rl_sources[i].fd == fd)
      rl_sources[i].id = 0;
}

/* A slot for a new source, or NULL when the table is full. */
static struct rl_source *rl_new_source(void) {
  for (int i = 0; i < RL_MAX_SOURCES; ++i)
    if (!rl_sources[i].id) {
      rl_sources[i].id = rl_next_source++;
      rl_sources[i].pos = 0;
      rl_sources[i].fp = NULL;
      rl_sources[i].fd = -1;
      return &rl_sources[i];
    }
  return NULL;
}

/* --- files opened for writing ------------------------------------------------------ */

#define RL_MAX_WRITTEN 16

static char rl_written_names[RL_MAX_WRITTEN][512];  /* as the program named them */
static char rl_written_paths[RL_MAX_WRITTEN][4096]; /* where they are */
static int rl_written_count;
static int rl_stdout_file_fd = -1;
/* stdout (1) and stderr (2) pointed by the program itself at a file it opened
 * (`freopen (name, "w", stdout)`: diffstat -o FILE, -e FILE): their writes are that file's,
 * not the process's stdout or stderr. The index into rl_written_* (RL_MAX_WRITTEN: a file
 * not listed), else -1. */
static int rl_std_into_file[3] = {-1, -1, -1};

/* ROOTLINE_STDOUT_FILE, read once (every stdout write asks). */
static const char *rl_stdout_file_name;
static int rl_stdout_file_known;

static const char *rl_stdout_file(void) {
  if (!rl_stdout_file_known) {
    const char *name = getenv("ROOTLINE_STDOUT_FILE");
    rl_stdout_file_name = name && *name ? name : NULL;
    rl_stdout_file_known = 1;
  }
  return rl_stdout_file_name;
}

void rl_forget_stdout_file(void) { rl_stdout_file_known = 0; }

void rl_opened_for_writing(int fd, const char *name) {
  if (fd < 0 || !name)
    return;
  int e = errno;
  const char *as_stdout = rl_stdout_file();
  int is_stdout_file = as_stdout && strcmp(as_stdout, name) == 0;
  if (is_stdout_file)
    rl_stdout_file_fd = fd;
  /* Only regular files are copied at the end: a FIFO or a terminal would block the copy. */
  struct stat st;
  int into = RL_MAX_WRITTEN; /* a file not in the list (not traced as a test's process) */
  if (rl_trace_seq() && strlen(name) < sizeof rl_written_names[0] && fstat(fd, &st) == 0 &&
      S_ISREG(st.st_mode)) {
    int known = -1;
    for (int i = 0; i < rl_written_count && known < 0; ++i)
      if (strcmp(rl_written_names[i], name) == 0)
        known = i;
    if (known < 0 && rl_written_count < RL_MAX_WRITTEN &&
        realpath(name, rl_written_paths[rl_written_count])) {
      strcpy(rl_written_names[rl_written_count], name);
      known = rl_written_count++;
    }
    into = known >= 0 ? known : RL_MAX_WRITTEN;
  }
  /* "/dev/stdout" and "/dev/fd/1" are the stream itself again. */
  if ((fd == 1 || fd == 2) && !is_stdout_file && strncmp(name, "/dev/std", 8) != 0 &&
      strncmp(name, "/dev/fd/", 8) != 0 && strncmp(name, "/proc/self/fd/", 14) != 0)
    rl_std_into_file[fd] = into;
  errno = e;
}

/* Where stdout and stderr led when the process started (device and inode): a `dup2` that
 * puts one back (a saved copy restored) makes it the stream again. */
static struct {
  int known;
  dev_t dev;
  ino_t ino;
} rl_std_origin[3];

void rl_note_std_origins(void) {
  for (int fd = 1; fd <= 2; ++fd) {
    struct stat st;
    rl_std_origin[fd].known = fstat(fd, &st) == 0;
    rl_std_origin[fd].dev = st.st_dev;
    rl_std_origin[fd].ino = st.st_ino;
  }
}

/* `fd` now leads where `old` does (dup2, dup3: gnulib's fd_reopen, a shell-like tool). */
static void rl_duplicated(int old, int fd) {
  if (fd < 0 || old < 0 || old == fd)
    return;
  if (fd == rl_stdout_file_fd)
    rl_stdout_file_fd = -1;
  if (old == rl_stdout_file_fd) { /* the run's output file, on a descriptor of its own */
    rl_stdout_file_fd = fd;
    if (fd == 1 || fd == 2)
      rl_std_into_file[fd] = -1;
    return;
  }
  if (fd != 1 && fd != 2)
    return;
  struct stat st;
  if (fstat(fd, &st) != 0)
    return;
  if (rl_std_origin[fd].known && st.st_dev == rl_std_origin[fd].dev &&
      st.st_ino == rl_std_origin[fd].ino) {
    rl_std_into_file[fd] = -1; /* the stream itself again */
    return;
  }
  int into = RL_MAX_WRITTEN;
  for (int i = 0; i < rl_written_count && into == RL_MAX_WRITTEN; ++i) {
    struct stat w;
    if (stat(rl_written_paths[i], &w) == 0 && w.st_dev == st.st_dev && w.st_ino == st.st_ino)
      into = i;
  }
  rl_std_into_file[fd] = into;
}

int __rl_wrap_dup2(int old, int fd) {
  int r = dup2(old, fd);
  if (r >= 0) {
    int e = errno;
    rl_duplicated(old, r);
    errno = e;
  }
  return r;
}

int __rl_wrap_dup3(int old, int fd, int flags) {
  int r = dup3(old, fd, flags);
  if (r >= 0) {
    int e = errno;
    rl_duplicated(old, r);
    errno = e;
  }
  return r;
}

void rl_closed_for_writing(int fd) {
  if (fd >= 0 && fd == rl_stdout_file_fd)
    rl_stdout_file_fd = -1;
  if (fd == 1 || fd == 2)
    rl_std_into_file[fd] = -1;
}

/* The real stdout is never the run's stdout while a file stands for it, also before the
 * file is opened (a banner printed first) and after it is closed. */
int rl_output_fd(int fd) {
  if (fd >= 0 && fd == rl_stdout_file_fd)
    return 1;
  if ((fd == 1 || fd == 2) && rl_std_into_file[fd] >= 0)
    return RL_INTO_FILE_FD + fd;
  return fd == 1 && rl_stdout_file() ? RL_REAL_STDOUT_FD : fd;
}

/* p<N>.out<i> for each file, and p<N>.written naming them: "<i> <name>" per line. */
void rl_capture_written_files(void) {
  static char index[RL_MAX_WRITTEN * 600];
  size_t len = 0;
  for (int i = 0; i < rl_written_count; ++i) {
    struct stat st; /* still a regular file (not replaced by a FIFO since) */
    if (stat(rl_written_paths[i], &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    char suffix[32];
    snprintf(suffix, sizeof suffix, "out%d", i);
    rl_capture_file(rl_written_paths[i], 0, suffix);
    len += (size_t)snprintf(index + len, sizeof index - len, "%d %s\n", i, rl_written_names[i]);
  }
  if (rl_written_count)
    rl_capture_text(index, len, "written");
  /* p<N>.into: "<fd> <i>" for stdout and stderr pointed at written file i when it ended. */
  char into[32];
  size_t n = 0;
  for (int fd = 1; fd <= 2; ++fd)
    if (rl_std_into_file[fd] >= 0 && rl_std_into_file[fd] < rl_written_count)
      n += (size_t)snprintf(into + n, sizeof into - n, "%d %d\n", fd, rl_std_into_file[fd]);
  if (n)
    rl_capture_text(into, n, "into");
}

/* A stream opened for reading from `name`: a new source (none when the table is full:
 * its reads then stay opaque memory writes). */
static void rl_opened(FILE *stream, const char *name, const char *mode) {
  int e = errno;
  if (!stream) {
    rl_ev_open(0, name);
    errno = e;
    return;
  }
  rl_forget(stream);
  if (strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+'))
    rl_opened_for_writing(fileno(stream), name);
  if (strchr(mode, 'r') || strchr(mode, '+')) {
    struct rl_source *s = rl_new_source();
    if (s) {
      s->fp = stream;
      rl_ev_open(s->id, name);
    }
  }
  errno = e;
}

FILE *__rl_wrap_fopen(const char *name, const char *mode) {
  FILE *f = fopen(name, mode);
  if (name && mode)
    rl_opened(f, name, mode);
  return f;
}

FILE *__rl_wrap_fopen64(const char *name, const char *mode) {
  FILE *f = fopen64(name, mode);
  if (name && mode)
    rl_opened(f, name, mode);
  return f;
}

FILE *__rl_wrap_freopen(const char *name, const char *mode, FILE *stream) {
  FILE *f = freopen(name, mode, stream);
  if (name && mode) {
    if (!f)
      rl_forget(stream);
    rl_opened(f, name, mode);
  }
  return f;
}

int __rl_wrap_fclose(FILE *stream) {
  rl_forget(stream);
  rl_closed_for_writing(rl_stream_fd(stream));
  return fclose(stream);
}

/* open(2): a descriptor opened for reading is a source too (read() logs its bytes). */
static int rl_opened_fd(int fd, const char *name, int flags) {
  int e = errno;
  if (fd >= 0 && (flags & O_ACCMODE) != O_RDONLY)
    rl_opened_for_writing(fd, name);
  if (fd < 0) {
    rl_ev_open(0, name);
  } else if ((flags & O_ACCMODE) != O_WRONLY) {
    rl_forget_fd(fd);
    struct rl_source *s = rl_new_source();
    if (s) {
      s->fd = fd;
      rl_ev_open(s->id, name);
    }
  }
  errno = e;
  return fd;
}

int __rl_wrap_open(const char *name, int flags, ...) {
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = (mode_t)va_arg(ap, int);
    va_end(ap);
  }
  int fd = open(name, flags, mode);
  return name ? rl_opened_fd(fd, name, flags) : fd;
}

int __rl_wrap_open64(const char *name, int flags, ...) {
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = (mode_t)va_arg(ap, int);
    va_end(ap);
  }
  int fd = open64(name, flags, mode);
  return name ? rl_opened_fd(fd, name, flags) : fd;
}

int __rl_wrap_close(int fd) {
  rl_forget_fd(fd);
  rl_closed_for_writing(fd);
  return close(fd);
}
