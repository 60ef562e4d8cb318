/* Input sources (docs/trace-format.md, "Input sources"): stdin as the process started
 * is source 0; every file opened for reading (fopen, or freopen, also of stdin) gets the
 * next number, logged by an OPEN event with the name the program used. Input events of
 * a source other than 0 are preceded by SOURCE, and their offsets count bytes of that
 * source. A failed open is logged too (source 0), so a missing file is an outcome the
 * report can name. */
#define _GNU_SOURCE
#include "rl_runtime.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define RL_MAX_SOURCES 64

struct rl_source {
  FILE *fp;
  uint32_t id;
  uint64_t pos;
};

static struct rl_source rl_sources[RL_MAX_SOURCES];
static uint32_t rl_next_source = 1;

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
    if (rl_sources[i].fp == stream)
      rl_sources[i].fp = NULL;
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
  if (strchr(mode, 'r') || strchr(mode, '+')) {
    for (int i = 0; i < RL_MAX_SOURCES; ++i)
      if (!rl_sources[i].fp) {
        rl_sources[i].fp = stream;
        rl_sources[i].id = rl_next_source++;
        rl_sources[i].pos = 0;
        rl_ev_open(rl_sources[i].id, name);
        break;
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
  return fclose(stream);
}
