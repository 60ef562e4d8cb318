/* Internal API of the rootline runtime, linked into traced programs. Not for subject
 * programs: they never call it directly; the instrumentation pass inserts the calls.
 * The trace layout is specified in docs/trace-format.md. */
#ifndef ROOTLINE_RUNTIME_H
#define ROOTLINE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

enum rl_event_tag {
#define RL_EVENT(name, value, fields) RL_EV_##name = value,
#include "rl_events.def"
#undef RL_EVENT
};

/* --- low-level writer (rl_trace_writer.c) ------------------------------------- */
void rl_ensure_init(void);
void rl_put_tag(uint8_t tag); /* starts an event */
void rl_end(void);            /* ends it (events are then whole) */
void rl_put_uv(uint64_t v);   /* unsigned LEB128 */
void rl_put_bytes(const void *data, size_t n);
void rl_flush(void);  /* async-signal-safe */
void rl_finish(void); /* appends END, flushes and closes the trace (at exit, _exit) */
int rl_tracing(void); /* 0 once the trace is closed/disabled */
/* Bytes of the trace so far, counting those not yet written (the offset of the next
 * event), and this process's trace number + 1 under ROOTLINE_TRACE_DIR (else 0). */
uint64_t rl_trace_position(void);
uint64_t rl_trace_seq(void);
/* In the child of a fork made by the program: a trace of its own that continues the
 * parent's (number parent_seq - 1) from `fork_offset`; untraced in single-file mode. */
void rl_trace_forked_child(uint64_t parent_seq, uint64_t fork_offset);
/* Under ROOTLINE_TRACE_DIR, a copy of a file opened for reading as source `id`, taken
 * when it is opened (p<N>.in<id>): a test may delete its files before it ends, and the
 * process is re-run alone from them. */
void rl_capture_input_file(uint32_t id, const char *name);
/* A copy of the file `name` (from offset `at`, or read to its end if at < 0) under the
 * trace directory as p<N>.<suffix>; nothing when it cannot be opened. */
void rl_capture_file(const char *name, long at, const char *suffix);
/* Text written under the trace directory as p<N>.<suffix>. */
void rl_capture_text(const char *text, unsigned long len, const char *suffix);
/* Files the process opened for writing (docs/project.md, "Files a process writes"): a
 * file named by ROOTLINE_STDOUT_FILE is logged as its stdout (OUTPUT events on fd 1;
 * the real stdout's on fd RL_REAL_STDOUT_FD); under ROOTLINE_TRACE_DIR each such file
 * is copied as it is when the process ends (p<N>.out<i>, named in p<N>.written). */
#define RL_REAL_STDOUT_FD 1000
/* Writes on stdout or stderr after the program pointed it at a file of its own (freopen,
 * or an open that got descriptor 1 or 2) are that file's: logged on descriptor
 * RL_INTO_FILE_FD + 1 or + 2, never as stdout or stderr; p<N>.into names the file. */
#define RL_INTO_FILE_FD 1000
void rl_opened_for_writing(int fd, const char *name);
void rl_closed_for_writing(int fd);
int rl_output_fd(int fd);
void rl_forget_stdout_file(void); /* ROOTLINE_STDOUT_FILE changed (a test of the wrappers) */
void rl_capture_written_files(void);
void rl_note_std_origins(void); /* at start: where stdout and stderr lead (dup2 restoring) */

/* --- events used by the libc wrappers --------------------------------------- */
/* Bytes consumed from stdin so far, and bytes written to fds 1 and 2 so far. */
extern uint64_t rl_stdin_pos;
extern uint64_t rl_out_pos[3];

/* `len` stdin bytes starting at stdin offset `offset` were stored at `addr`. */
void rl_ev_input(uint64_t offset, const void *addr, uint64_t len);
/* The call's return value (logged next as EXT_RET) is the stdin byte at `offset`. */
void rl_ev_input_char(uint64_t offset);
/* A scanf conversion parsed stdin bytes [offset, offset+len) and stored a value of
 * `size` bytes at `addr`; `conv` is the conversion character ('d','u','x','c','s','f',...). */
void rl_ev_token(uint64_t offset, uint64_t len, const void *addr, uint32_t size, char conv);
/* An sscanf conversion parsed the string bytes [src, src+len) and stored `size` bytes
 * at `addr` (like rl_ev_token, for a string in memory). */
void rl_ev_mem_token(const void *src, uint64_t len, const void *addr, uint32_t size, char conv);
/* Output bytes on file descriptor `fd` at stream offset `offset`, produced by argument
 * `arg` of the current call (0 = the format/literal text, k = k-th argument after the
 * format for printf-family; for puts/fputs/fwrite/write the buffer argument). `src`
 * is the memory the bytes were copied from (%s, puts, fwrite), or NULL. */
void rl_ev_output(int fd, uint64_t offset, int32_t arg, const void *src, const void *bytes,
                  uint64_t len);
/* Memory effects of a libc call. */
void rl_ev_mem_read(const void *addr, uint64_t len);
void rl_ev_mem_write(const void *addr, uint64_t len);
void rl_ev_mem_copy(const void *dst, const void *src, uint64_t len);
void rl_ev_mem_set(const void *dst, int byte, uint64_t len);
void rl_ev_heap_alloc(const void *addr, uint64_t size);
void rl_ev_heap_free(const void *addr);
/* A value produced by libc that depends on memory in a way the trace does not model
 * (e.g. strtol inside scanf of a non-stdin stream); marks the next EXT_RET. */
void rl_ev_concretized(void);
/* The process is about to end with `status` (exit, _exit, return from main). */
void rl_ev_exit(int status);

/* Input sources (rl_sources.c): the read position of a stream that is one (stdin or a
 * file opened for reading), with its number in *id; NULL for any other stream. */
struct _IO_FILE;
uint64_t *rl_source_pos(struct _IO_FILE *stream, uint32_t *id);
/* The same for a file descriptor (stdin's 0, or one open() gave for reading). */
uint64_t *rl_source_fd_pos(int fd, uint32_t *id);
/* The input events that follow come from source `id` (nothing is logged for 0). */
void rl_ev_source(uint32_t id);
/* A file was opened for reading as source `id` under `name` (id 0: the open failed). */
void rl_ev_open(uint32_t id, const char *name);

/* Wrapped stream helpers: the fd that a FILE* writes to, or -1. */
struct _IO_FILE;
int rl_stream_fd(struct _IO_FILE *stream);
/* One OUTPUT event for `len` bytes written to `fd` by argument `arg` (see rl_ev_output),
 * advancing the fd 1/2 position. */
void rl_log_output(int fd, int32_t arg, const void *src, const void *bytes, size_t len);
/* vfprintf that logs each conversion's bytes (argument k = the k-th after the format);
 * `ap` is consumed. */
#include <stdarg.h>
int rl_vfprintf_logged(struct _IO_FILE *stream, const char *fmt, va_list *ap);

#endif
