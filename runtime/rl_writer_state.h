/* Private to the runtime: the trace buffer, shared by the writer and the hooks so the
 * hottest events (branches, loads, stores, enter/ret) are written without calls. */
#ifndef ROOTLINE_WRITER_STATE_H
#define ROOTLINE_WRITER_STATE_H

#include <stddef.h>
#include <stdint.h>

#define RL_BUF_SIZE (1u << 20)
#define RL_HIDDEN __attribute__((visibility("hidden")))

extern RL_HIDDEN unsigned char *rl_buf; /* the buffer being filled (rl_trace_writer.c) */
extern RL_HIDDEN size_t rl_len;
extern RL_HIDDEN int rl_state; /* 0 = not initialised, 1 = tracing, 2 = disabled/closed */
/* How far the fast paths may fill rl_buf: 0 unless tracing; the buffer size, or less
 * under a small byte limit (so the limit is checked before the buffer is full). */
extern RL_HIDDEN size_t rl_cap;

/* True when tracing and an event of at most n bytes fits without a flush. */
static inline int rl_fast_room(size_t n) { return __builtin_expect(rl_len + n <= rl_cap, 1); }

static inline unsigned char *rl_fast_uv(unsigned char *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  *p++ = (unsigned char)v;
  return p;
}

/* Bytes needed for v (0..8): a LOAD's value is stored as that many little-endian
 * bytes, their count in the tag (RL_EV_LOAD + n), without a varint loop. */
static inline unsigned rl_value_bytes(uint64_t v) {
  return v ? (unsigned)(71 - __builtin_clzll(v)) >> 3 : 0;
}

/* Makes the bytes written up to p part of the trace. The event's bytes are stored
 * before the length, so a signal handler sees either no event or the whole event. */
static inline void rl_fast_publish(unsigned char *p) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  rl_len = (size_t)(p - rl_buf);
}

#endif
