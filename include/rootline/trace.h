// Reading and writing trace files (format: docs/trace-format.md). The runtime in
// runtime/ is the producer in practice; TraceWriter exists for tests and tools.
#pragma once

#include "rootline/fs.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class MemoryBuffer;
}

namespace rootline {

inline constexpr uint32_t kTraceVersion = 5;
inline constexpr int kTraceLimitExitCode = 86; // runtime exit status at the byte limit

enum class Ev : uint8_t {
#define RL_EVENT(name, value, fields) name = value,
#include "rl_events.def"
#undef RL_EVENT
};

const char *eventName(Ev tag);

struct Event;
// A LAYOUT event's distances (its bytes: zigzag varints); empty if they are malformed.
std::vector<int64_t> layoutOffsets(const Event &layout);

// One decoded event. Integer fields a..e follow the order of the event's fields in
// rl_events.def (delta-encoded addresses are already made absolute); `bytes` views
// into the reader's buffer.
struct Event {
  Ev tag{};
  uint64_t a = 0, b = 0, c = 0, d = 0, e = 0;
  std::string_view bytes;
  uint64_t offset = 0; // byte offset of the event in the file
};

// The process a trace belongs to (docs/trace-format.md, "Processes"). `seq` is the
// trace's number + 1 among a test's per-process traces (0: a single-file trace); a
// forked child's trace names the trace it continues (`parentSeq`, its number + 1) and
// the byte offset in it where the fork happened.
struct TraceProcess {
  uint64_t seq = 0, pid = 0, ppid = 0, parentSeq = 0, forkOffset = 0;
  std::string cwd, exe;
  std::vector<std::string> argv;
};

struct TraceHeader {
  uint32_t version = 0;
  std::string moduleKey;
  TraceProcess process;
};

class TraceReader {
public:
  // Throws Error naming the file when it cannot be read, is not a trace, has another
  // version, or (if expectedKey is given) belongs to another module.
  // A forked child's trace reads as its parent's events up to the fork, then its own
  // (the parent's file, p<N>.trace, is looked for beside it).
  explicit TraceReader(const fs::path &path, const std::string &expectedKey = {});
  static TraceReader fromBytes(std::string bytes, const std::string &expectedKey = {});
  ~TraceReader();
  TraceReader(TraceReader &&) noexcept;

  const TraceHeader &header() const { return header_; }
  // The next event; false at the end of the data. A partial last event (a process
  // killed while writing) also ends the data and sets truncated().
  bool next(Event &ev);
  bool truncated() const { return truncated_; }
  bool peek(Event &ev);
  uint64_t position() const { return pos_; }
  uint64_t size() const { return size_; }

private:
  TraceReader() = default;
  void parseHeader(const std::string &name, const std::string &expectedKey);
  void prependParent(const fs::path &path);
  uint64_t uv();
  bool decode(Event &ev);
  bool decodeLoad(Event &ev, unsigned valueBytes);
  bool inHeader_ = false;
  std::unique_ptr<llvm::MemoryBuffer> buffer_;
  std::string owned_;
  const unsigned char *data_ = nullptr;
  uint64_t size_ = 0, pos_ = 0;
  bool truncated_ = false;
  uint64_t lastAddr_ = 0;  // addresses of LOAD/STORE are deltas from the previous one
  uint64_t lastFrame_ = 0; // ENTER_FRAME anchors are deltas from the previous anchor
  // Where the file's events start in data_ (its header's end in the file, or after a
  // parent's prefix), and that header's end: file offsets map to data_ through them.
  uint64_t eventsStart_ = 0, headerEnd_ = 0;
  TraceHeader header_;
  std::string name_;
};

// Encodes events exactly as the runtime does.
class TraceWriter {
public:
  TraceWriter(const std::string &moduleKey, uint32_t version = kTraceVersion);
  void put(const Event &ev);
  const std::string &bytes() const { return out_; }

private:
  void uv(uint64_t v);
  std::string out_;
  uint64_t lastAddr_ = 0, lastFrame_ = 0;
};

} // namespace rootline
