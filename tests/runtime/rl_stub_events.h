/* In-memory stand-in for the rootline runtime's event writer, for testing the libc
 * wrappers without a trace file: every rl_ev_* call is appended to a list. */
#ifndef RL_STUB_EVENTS_H
#define RL_STUB_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "rl_runtime.h"

struct rl_stub_event {
  int tag;              /* RL_EV_* */
  int fd;               /* OUTPUT */
  int32_t arg;          /* OUTPUT */
  char conv;            /* TOKEN */
  int byte;             /* MEM_SET */
  uint64_t offset;      /* INPUT, INPUT_CHAR, TOKEN, OUTPUT; SOURCE and OPEN: the source */
  uint64_t len;         /* INPUT, TOKEN, OUTPUT, MEM_*; HEAP_ALLOC size; EXIT status */
  uint32_t size;        /* TOKEN */
  const void *addr;     /* INPUT, TOKEN, MEM_*, HEAP_* (MEM_COPY: dst) */
  const void *src;      /* OUTPUT, MEM_COPY */
  unsigned char *bytes; /* OUTPUT: a copy of the bytes; OPEN: the name */
};

extern struct rl_stub_event *rl_stub_events;
extern size_t rl_stub_count;

/* Forget all recorded events. */
void rl_stub_reset(void);

#endif
