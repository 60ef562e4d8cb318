/* In-memory stand-in for rl_trace_writer.c and rl_events.c (see rl_stub_events.h). */
#include "rl_stub_events.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

uint64_t rl_stdin_pos;
uint64_t rl_out_pos[3];

struct rl_stub_event *rl_stub_events;
size_t rl_stub_count;
static size_t rl_stub_cap;

void rl_stub_reset(void) {
  for (size_t i = 0; i < rl_stub_count; ++i)
    free(rl_stub_events[i].bytes);
  rl_stub_count = 0;
}

static struct rl_stub_event *rl_stub_add(int tag) {
  int e = errno; /* the stub must not be what keeps errno intact */
  if (rl_stub_count == rl_stub_cap) {
    rl_stub_cap = rl_stub_cap ? rl_stub_cap * 2 : 256;
    rl_stub_events = realloc(rl_stub_events, rl_stub_cap * sizeof *rl_stub_events);
    if (!rl_stub_events)
      abort();
  }
  struct rl_stub_event *ev = &rl_stub_events[rl_stub_count++];
  memset(ev, 0, sizeof *ev);
  ev->tag = tag;
  errno = e;
  return ev;
}

void rl_ensure_init(void) {}
void rl_put_tag(uint8_t tag) { (void)tag; }
void rl_put_uv(uint64_t v) { (void)v; }
void rl_put_bytes(const void *data, size_t n) {
  (void)data;
  (void)n;
}
void rl_flush(void) {}
int rl_tracing(void) { return 1; }

void rl_ev_input(uint64_t offset, const void *addr, uint64_t len) {
  struct rl_stub_event *ev = rl_stub_add(RL_EV_INPUT);
  ev->offset = offset;
  ev->addr = addr;
  ev->len = len;
}

void rl_ev_input_char(uint64_t offset) { rl_stub_add(RL_EV_INPUT_CHAR)->offset = offset; }

void rl_ev_token(uint64_t offset, uint64_t len, const void *addr, uint32_t size, char conv) {
  struct rl_stub_event *ev = rl_stub_add(RL_EV_TOKEN);
  ev->offset = offset;
  ev->len = len;
  ev->addr = addr;
  ev->size = size;
  ev->conv = conv;
}

void rl_ev_mem_token(const void *src, uint64_t len, const void *addr, uint32_t size, char conv) {
  struct rl_stub_event *ev = rl_stub_add(RL_EV_MEM_TOKEN);
  ev->src = src;
  ev->len = len;
  ev->addr = addr;
  ev->size = size;
  ev->conv = conv;
}

void rl_ev_output(int fd, uint64_t offset, int32_t arg, const void *src, const void *bytes,
                  uint64_t len) {
  int e = errno;
  struct rl_stub_event *ev = rl_stub_add(RL_EV_OUTPUT);
  ev->fd = fd;
  ev->offset = offset;
  ev->arg = arg;
  ev->src = src;
  ev->len = len;
  ev->bytes = malloc(len ? len : 1);
  if (!ev->bytes)
    abort();
  memcpy(ev->bytes, bytes, len);
  errno = e;
}

void rl_ev_mem_read(const void *addr, uint64_t len) {
  struct rl_stub_event *ev = rl_stub_add(RL_EV_MEM_READ);
  ev->addr = addr;
  ev->len = len;
}

void rl_ev_mem_write(const void *addr, uint64_t len) {
  struct rl_stub_event *ev = rl_stub_add(RL_EV_MEM_WRITE);
  ev->addr = addr;
  ev->len = len;
}

void rl_ev_mem_copy(const void *dst, const void *src, uint64_t len) {
  struct rl_stub_event *ev = rl_stub_add(RL_EV_MEM_COPY);
  ev->addr = dst;
  ev->src = src;
  ev->len = len;
}

void rl_ev_mem_set(const void *dst, int byte, uint64_t len) {
  struct rl_stub_event *ev = rl_stub_add(RL_EV_MEM_SET);
  ev->addr = dst;
  ev->byte = byte;
  ev->len = len;
}

void rl_ev_heap_alloc(const void *addr, uint64_t size) {
  struct rl_stub_event *ev = rl_stub_add(RL_EV_HEAP_ALLOC);
  ev->addr = addr;
  ev->len = size;
}

void rl_ev_heap_free(const void *addr) { rl_stub_add(RL_EV_HEAP_FREE)->addr = addr; }

void rl_ev_concretized(void) { rl_stub_add(RL_EV_CONCRETIZED); }

void rl_ev_exit(int status) { rl_stub_add(RL_EV_EXIT)->len = (uint64_t)(uint32_t)status; }

void rl_ev_source(uint32_t id) {
  if (id != 0)
    rl_stub_add(RL_EV_SOURCE)->offset = id;
}

void rl_ev_open(uint32_t id, const char *name) {
  struct rl_stub_event *ev = rl_stub_add(RL_EV_OPEN);
  ev->offset = id;
  ev->len = strlen(name);
  ev->bytes = (unsigned char *)strdup(name);
}

/* Single-file mode: no per-process captures. */
uint64_t rl_trace_seq(void) { return 0; }
void rl_capture_file(const char *name, long at, const char *suffix) {
  (void)name;
  (void)at;
  (void)suffix;
}
void rl_capture_text(const char *text, unsigned long len, const char *suffix) {
  (void)text;
  (void)len;
  (void)suffix;
}
