/* Events logged by the libc wrappers (see rl_runtime.h for their meaning). */
#include "rl_runtime.h"

#include <string.h>

#define RL_ON()                                                                                    \
  if (!rl_tracing())                                                                               \
  return
#define ADDR(p) ((uint64_t)(uintptr_t)(p))

void rl_ev_input(uint64_t offset, const void *addr, uint64_t len) {
  RL_ON();
  rl_put_tag(RL_EV_INPUT);
  rl_put_uv(offset);
  rl_put_uv(ADDR(addr));
  rl_put_uv(len);
  rl_end();
}

void rl_ev_input_char(uint64_t offset) {
  RL_ON();
  rl_put_tag(RL_EV_INPUT_CHAR);
  rl_put_uv(offset);
  rl_end();
}

void rl_ev_token(uint64_t offset, uint64_t len, const void *addr, uint32_t size, char conv) {
  RL_ON();
  rl_put_tag(RL_EV_TOKEN);
  rl_put_uv(offset);
  rl_put_uv(len);
  rl_put_uv(ADDR(addr));
  rl_put_uv(size);
  rl_put_uv((uint8_t)conv);
  rl_end();
}

void rl_ev_mem_token(const void *src, uint64_t len, const void *addr, uint32_t size, char conv) {
  RL_ON();
  rl_put_tag(RL_EV_MEM_TOKEN);
  rl_put_uv(ADDR(src));
  rl_put_uv(len);
  rl_put_uv(ADDR(addr));
  rl_put_uv(size);
  rl_put_uv((uint8_t)conv);
  rl_end();
}

void rl_ev_output(int fd, uint64_t offset, int32_t arg, const void *src, const void *bytes,
                  uint64_t len) {
  RL_ON();
  rl_put_tag(RL_EV_OUTPUT);
  rl_put_uv((uint64_t)(uint32_t)fd);
  rl_put_uv(offset);
  rl_put_uv((uint64_t)(uint32_t)arg);
  rl_put_uv(ADDR(src));
  rl_put_uv(len);
  rl_put_bytes(bytes, len);
  rl_end(); /* else a SIGTERM later would roll the trace back to this event's start */
}

void rl_ev_mem_read(const void *addr, uint64_t len) {
  RL_ON();
  rl_put_tag(RL_EV_MEM_READ);
  rl_put_uv(ADDR(addr));
  rl_put_uv(len);
  rl_end();
}

void rl_ev_mem_write(const void *addr, uint64_t len) {
  RL_ON();
  rl_put_tag(RL_EV_MEM_WRITE);
  rl_put_uv(ADDR(addr));
  rl_put_uv(len);
  rl_end();
}

void rl_ev_mem_copy(const void *dst, const void *src, uint64_t len) {
  RL_ON();
  rl_put_tag(RL_EV_MEM_COPY);
  rl_put_uv(ADDR(dst));
  rl_put_uv(ADDR(src));
  rl_put_uv(len);
  rl_end();
}

void rl_ev_mem_set(const void *dst, int byte, uint64_t len) {
  RL_ON();
  rl_put_tag(RL_EV_MEM_SET);
  rl_put_uv(ADDR(dst));
  rl_put_uv((uint8_t)byte);
  rl_put_uv(len);
  rl_end();
}

void rl_ev_heap_alloc(const void *addr, uint64_t size) {
  RL_ON();
  rl_put_tag(RL_EV_HEAP_ALLOC);
  rl_put_uv(ADDR(addr));
  rl_put_uv(size);
  rl_end();
}

void rl_ev_heap_free(const void *addr) {
  RL_ON();
  rl_put_tag(RL_EV_HEAP_FREE);
  rl_put_uv(ADDR(addr));
  rl_end();
}

void rl_ev_concretized(void) {
  RL_ON();
  rl_put_tag(RL_EV_CONCRETIZED);
  rl_end();
}

void rl_ev_exit(int status) {
  RL_ON();
  rl_put_tag(RL_EV_EXIT);
  rl_put_uv((uint64_t)(uint32_t)status);
  rl_end();
}

void rl_ev_source(uint32_t id) {
  RL_ON();
  if (id == 0)
    return;
  rl_put_tag(RL_EV_SOURCE);
  rl_put_uv(id);
  rl_end();
}

void rl_ev_open(uint32_t id, const char *name) {
  RL_ON();
  size_t len = strlen(name);
  rl_put_tag(RL_EV_OPEN);
  rl_put_uv(id);
  rl_put_uv(len);
  rl_put_bytes(name, len);
  rl_end();
  if (id)
    rl_capture_input_file(id, name);
}
