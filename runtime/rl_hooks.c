/* Entry points called by instrumented code (inserted by src/instrument). Each logs
 * one event; ids are the stable instruction ids of docs/trace-format.md. */
#include "rl_runtime.h"
#include "rl_writer_state.h"

#include <stdarg.h>
#include <string.h>

#define RL_ON()                                                                                    \
  if (!rl_tracing())                                                                               \
  return

static inline uint64_t rl_zigzag(int64_t d) { return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63); }

/* `addr` as the zigzag difference from *last, which becomes addr. */
static inline uint64_t rl_delta(uint64_t *last, const void *addr) {
  uint64_t a = (uint64_t)(uintptr_t)addr;
  int64_t d = (int64_t)(a - *last);
  *last = a;
  return rl_zigzag(d);
}

/* Previous address of a LOAD/LOAD_WIDE/STORE/ALLOCA: addresses are logged as deltas.
 * ENTER_FRAME anchors have a chain of their own: frames are a few bytes apart on the
 * stack, data is elsewhere. */
static uint64_t rl_last_addr, rl_last_frame;

static inline uint64_t rl_daddr(const void *addr) { return rl_delta(&rl_last_addr, addr); }
static inline uint64_t rl_fdaddr(const void *anchor) { return rl_delta(&rl_last_frame, anchor); }

static void rl_put_daddr(const void *addr) { rl_put_uv(rl_daddr(addr)); }

/* The hot events below have a fast path that writes straight into the buffer when it
 * has room (rl_writer_state.h), and fall back to the writer's calls otherwise. */

void __rl_br(uint8_t cond) {
  uint8_t tag = cond ? RL_EV_BR_TRUE : RL_EV_BR_FALSE;
  if (rl_fast_room(1)) {
    unsigned char *p = rl_buf + rl_len;
    *p++ = tag;
    rl_fast_publish(p);
    return;
  }
  RL_ON();
  rl_put_tag(tag);
  rl_end();
}

void __rl_switch(uint64_t value) {
  RL_ON();
  rl_put_tag(RL_EV_SWITCH);
  rl_put_uv(value);
  rl_end();
}

void __rl_enter(uint32_t fn) {
  if (rl_fast_room(16)) {
    unsigned char *p = rl_buf + rl_len;
    *p++ = RL_EV_ENTER;
    rl_fast_publish(rl_fast_uv(p, fn));
    return;
  }
  RL_ON();
  rl_put_tag(RL_EV_ENTER);
  rl_put_uv(fn);
  rl_end();
}

/* Functions whose LAYOUT is in the trace, a bit each. A function beyond the map logs
 * its layout at every entry, which replay accepts. */
#define RL_LAYOUT_FNS (1u << 20)
static unsigned char rl_layout_logged[RL_LAYOUT_FNS / 8];

static int rl_layout_needed(uint32_t fn) {
  return fn >= RL_LAYOUT_FNS || !(rl_layout_logged[fn >> 3] & (1u << (fn & 7)));
}

/* ENTER of a function with anchored locals (src/instrument/frame_layout.cpp): the
 * first one's address stands for all of them, so they log no ALLOCA_LOCAL. Returns
 * whether the function's LAYOUT must follow (__rl_layout): once per trace. */
int __rl_enter_frame(uint32_t fn, const void *anchor) {
  if (rl_fast_room(32)) {
    unsigned char *p = rl_buf + rl_len;
    *p++ = RL_EV_ENTER_FRAME;
    p = rl_fast_uv(p, rl_fdaddr(anchor));
    rl_fast_publish(rl_fast_uv(p, fn));
    return rl_layout_needed(fn);
  }
  if (!rl_tracing())
    return 0;
  rl_put_tag(RL_EV_ENTER_FRAME);
  rl_put_uv(rl_fdaddr(anchor));
  rl_put_uv(fn);
  rl_end();
  return rl_layout_needed(fn);
}

static unsigned rl_uv_size(uint64_t v) {
  unsigned n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

/* The distances (int64) of a function's `n` anchored locals from the first one. */
void __rl_layout(uint32_t fn, uint32_t n, ...) {
  RL_ON();
  va_list ap, again;
  va_start(ap, n);
  va_copy(again, ap);
  uint64_t len = 0;
  for (uint32_t i = 0; i < n; ++i)
    len += rl_uv_size(rl_zigzag(va_arg(ap, int64_t)));
  va_end(ap);
  rl_put_tag(RL_EV_LAYOUT);
  rl_put_uv(fn);
  rl_put_uv(len);
  for (uint32_t i = 0; i < n; ++i) /* the bytes are the offsets' varints */
    rl_put_uv(rl_zigzag(va_arg(again, int64_t)));
  va_end(again);
  rl_end();
  if (fn < RL_LAYOUT_FNS)
    rl_layout_logged[fn >> 3] |= (unsigned char)(1u << (fn & 7));
}

/* After a setjmp-like call returns, first or through longjmp: the frame it returns
 * in, so replay resumes the right one of several frames of a recursive function. */
void __rl_resume(const void *anchor) {
  RL_ON();
  rl_put_tag(RL_EV_RESUME);
  rl_put_uv(rl_fdaddr(anchor));
  rl_end();
}

void __rl_arg(uint64_t value) {
  if (rl_fast_room(16)) {
    unsigned char *p = rl_buf + rl_len;
    *p++ = RL_EV_ARG;
    rl_fast_publish(rl_fast_uv(p, value));
    return;
  }
  RL_ON();
  rl_put_tag(RL_EV_ARG);
  rl_put_uv(value);
  rl_end();
}

void __rl_ret(uint32_t fn) {
  if (rl_fast_room(16)) {
    unsigned char *p = rl_buf + rl_len;
    *p++ = RL_EV_RET;
    rl_fast_publish(rl_fast_uv(p, fn));
    return;
  }
  RL_ON();
  rl_put_tag(RL_EV_RET);
  rl_put_uv(fn);
  rl_end();
}

void __rl_load(const void *addr, uint64_t value) {
  if (rl_fast_room(32)) {
    unsigned n = rl_value_bytes(value);
    unsigned char *p = rl_buf + rl_len;
    *p++ = (unsigned char)(RL_EV_LOAD + n);
    p = rl_fast_uv(p, rl_daddr(addr));
    __builtin_memcpy(p, &value, 8); /* the room check covers all eight */
    rl_fast_publish(p + n);
    return;
  }
  RL_ON();
  rl_put_tag((uint8_t)(RL_EV_LOAD + rl_value_bytes(value)));
  rl_put_daddr(addr);
  rl_put_bytes(&value, rl_value_bytes(value));
  rl_end();
}

void __rl_load_wide(const void *addr, uint64_t size) {
  RL_ON();
  rl_put_tag(RL_EV_LOAD_WIDE);
  rl_put_daddr(addr);
  rl_put_uv(size);
  rl_put_bytes(addr, size);
  rl_end();
}

void __rl_store(const void *addr) {
  if (rl_fast_room(16)) {
    unsigned char *p = rl_buf + rl_len;
    *p++ = RL_EV_STORE;
    rl_fast_publish(rl_fast_uv(p, rl_daddr(addr)));
    return;
  }
  RL_ON();
  rl_put_tag(RL_EV_STORE);
  rl_put_daddr(addr);
  rl_end();
}

void __rl_alloca(const void *addr, uint64_t size) {
  if (rl_fast_room(32)) {
    unsigned char *p = rl_buf + rl_len;
    *p++ = RL_EV_ALLOCA;
    p = rl_fast_uv(p, rl_daddr(addr));
    rl_fast_publish(rl_fast_uv(p, size));
    return;
  }
  RL_ON();
  rl_put_tag(RL_EV_ALLOCA);
  rl_put_daddr(addr);
  rl_put_uv(size);
  rl_end();
}

/* A local whose address never escapes: replay models its loads and stores itself, so
 * only its initial (possibly uninitialised) bytes are logged. */
void __rl_alloca_local(const void *addr, uint64_t size) {
  if (size <= 16 && rl_fast_room(48)) { /* scalars: called on every function entry */
    unsigned char *p = rl_buf + rl_len;
    *p++ = RL_EV_ALLOCA_LOCAL;
    p = rl_fast_uv(p, rl_daddr(addr));
    *p++ = (unsigned char)size;
    switch (size) { /* fixed-size copies compile to single moves */
    case 4:
      __builtin_memcpy(p, addr, 4);
      break;
    case 8:
      __builtin_memcpy(p, addr, 8);
      break;
    case 1:
      *p = *(const unsigned char *)addr;
      break;
    default:
      __builtin_memcpy(p, addr, size);
    }
    rl_fast_publish(p + size);
    return;
  }
  RL_ON();
  rl_put_tag(RL_EV_ALLOCA_LOCAL);
  rl_put_daddr(addr);
  rl_put_uv(size);
  rl_put_bytes(addr, size);
  rl_end();
}

void __rl_ext_ret(uint32_t id, uint64_t value) {
  RL_ON();
  rl_put_tag(RL_EV_EXT_RET);
  rl_put_uv(id);
  rl_put_uv(value);
  rl_end();
}

/* Wide return values (long double, small aggregates) are passed through memory. */
void __rl_ext_ret_wide(uint32_t id, const void *value, uint64_t size) {
  RL_ON();
  rl_put_tag(RL_EV_EXT_RET_WIDE);
  rl_put_uv(id);
  rl_put_uv(size);
  rl_put_bytes(value, size);
  rl_end();
}

/* Called at the start of main: argv strings are program input. */
void __rl_main(int argc, char **argv) {
  RL_ON();
  for (int i = 0; i < argc; ++i) {
    size_t len = strlen(argv[i]) + 1;
    rl_put_tag(RL_EV_ARGV);
    rl_put_uv((uint64_t)i);
    rl_put_uv((uint64_t)(uintptr_t)argv[i]);
    rl_put_uv(len);
    rl_put_bytes(argv[i], len);
  }
  rl_end();
}

void __rl_main_return(int status) { rl_ev_exit(status); }

/* Called once from the module constructor the pass adds: the trace opens here, then
 * the addresses of every function and global the module uses. */
void __rl_init(const char *module_key, void *const *funcs, const uint32_t *func_index,
               uint32_t nfuncs, void *const *globals, const uint64_t *global_size,
               const uint32_t *global_index, uint32_t nglobals) {
  extern void __rl_set_module_key(const char *);
  __rl_set_module_key(module_key);
  rl_note_std_origins();
  rl_ensure_init();
  RL_ON();
  for (uint32_t i = 0; i < nfuncs; ++i) {
    rl_put_tag(RL_EV_FUNC);
    rl_put_uv(func_index[i]);
    rl_put_uv((uint64_t)(uintptr_t)funcs[i]);
  }
  for (uint32_t i = 0; i < nglobals; ++i) {
    rl_put_tag(RL_EV_GLOBAL);
    rl_put_uv(global_index[i]);
    rl_put_uv((uint64_t)(uintptr_t)globals[i]);
    rl_put_uv(global_size[i]);
  }
  rl_end();
}

/* llvm.memcpy / llvm.memmove / llvm.memset intrinsics (struct copies, initialisers). */
void __rl_intrinsic_copy(const void *dst, const void *src, uint64_t len) {
  rl_ev_mem_copy(dst, src, len);
}
void __rl_intrinsic_set(const void *dst, uint8_t byte, uint64_t len) {
  rl_ev_mem_set(dst, byte, len);
}
