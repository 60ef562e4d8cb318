// Trace encoding: an 8-byte magic, version and module key, then tagged events whose
// fields are unsigned LEB128 varints (and raw bytes where a field says bytes[n]).
#include "rootline/error.h"
#include "rootline/trace.h"

#include <llvm/Support/MemoryBuffer.h>

#include <cstring>

namespace rootline {

namespace {

// Thrown inside the reader when the data ends in the middle of an event.
struct PartialEvent {};

constexpr char kMagic[8] = {'R', 'L', 'T', 'R', 'A', 'C', 'E', '\0'};

// How many integer fields each event has, and whether raw bytes follow (their count
// is the last integer field).
struct Shape {
  int ints;
  bool bytes;
};

Shape shapeOf(Ev tag) {
  switch (tag) {
  case Ev::BR_FALSE:
  case Ev::BR_TRUE:
  case Ev::END:
  case Ev::CONCRETIZED:
  case Ev::EXEC:
    return {0, false};
  case Ev::SWITCH:
  case Ev::STORE:
  case Ev::ENTER:
  case Ev::ARG:
  case Ev::RET:
  case Ev::INPUT_CHAR:
  case Ev::HEAP_FREE:
  case Ev::EXIT:
  case Ev::LIMIT:
  case Ev::SOURCE:
  case Ev::RESUME:
    return {1, false};
  case Ev::LOAD: // its value is sized by the tag: decodeLoad
  case Ev::ALLOCA:
  case Ev::EXT_RET:
  case Ev::MEM_READ:
  case Ev::MEM_WRITE:
  case Ev::HEAP_ALLOC:
  case Ev::FUNC:
  case Ev::SIGNAL:
  case Ev::ENTER_FRAME:
    return {2, false};
  case Ev::MEM_COPY:
  case Ev::MEM_SET:
  case Ev::INPUT:
  case Ev::GLOBAL:
    return {3, false};
  case Ev::LOAD_WIDE:
  case Ev::ALLOCA_LOCAL:
    return {2, true};
  case Ev::EXT_RET_WIDE:
    return {2, true};
  case Ev::TOKEN:
  case Ev::MEM_TOKEN:
    return {5, false};
  case Ev::OUTPUT:
    return {5, true};
  case Ev::ARGV:
    return {3, true};
  case Ev::OPEN:
  case Ev::LAYOUT:
    return {2, true};
  }
  return {-1, false};
}

// LOAD's value is sized by its tag (kLoadTag + bytes), not a varint.
constexpr unsigned kLoadTag = static_cast<unsigned>(Ev::LOAD);
unsigned valueBytes(uint64_t v) {
  unsigned n = 0;
  for (; v; v >>= 8)
    ++n;
  return n;
}

// LOAD, LOAD_WIDE, STORE, ALLOCA and ALLOCA_LOCAL log their address as a zigzag delta
// from the previous one; ENTER_FRAME its anchor as one from the previous anchor.
bool hasDeltaAddress(Ev tag) {
  return tag == Ev::LOAD || tag == Ev::LOAD_WIDE || tag == Ev::STORE || tag == Ev::ALLOCA ||
         tag == Ev::ALLOCA_LOCAL;
}
// ENTER_FRAME and RESUME log a frame's anchor as a delta from the previous anchor.
bool hasFrameDelta(Ev tag) { return tag == Ev::ENTER_FRAME || tag == Ev::RESUME; }
int64_t unzigzag(uint64_t z) { return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1); }
uint64_t zigzag(int64_t d) {
  return (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63);
}

} // namespace

std::vector<int64_t> layoutOffsets(const Event &layout) {
  std::vector<int64_t> out;
  uint64_t z = 0;
  int shift = 0;
  for (char c : layout.bytes) {
    auto byte = static_cast<unsigned char>(c);
    if (shift >= 64)
      return {};
    z |= static_cast<uint64_t>(byte & 0x7f) << shift;
    shift += 7;
    if (!(byte & 0x80)) {
      out.push_back(unzigzag(z));
      z = 0;
      shift = 0;
    }
  }
  if (shift != 0)
    return {}; // ends inside a varint
  return out;
}

const char *eventName(Ev tag) {
  switch (tag) {
#define RL_EVENT(name, value, fields)                                                              \
  case Ev::name:                                                                                   \
    return #name;
#include "rl_events.def"
#undef RL_EVENT
  }
  return "UNKNOWN";
}

TraceReader::TraceReader(const fs::path &path, const std::string &expectedKey) {
  auto buf = llvm::MemoryBuffer::getFile(path.string(), /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    throw Error("cannot read trace '" + path.string() + "': " + buf.getError().message());
  buffer_ = std::move(*buf);
  data_ = reinterpret_cast<const unsigned char *>(buffer_->getBufferStart());
  size_ = buffer_->getBufferSize();
  parseHeader(path.string(), expectedKey);
  if (header_.process.parentSeq)
    prependParent(path);
}

void TraceReader::prependParent(const fs::path &path) {
  fs::path parentPath =
      path.parent_path() / ("p" + std::to_string(header_.process.parentSeq - 1) + ".trace");
  std::error_code ec;
  if (!fs::exists(parentPath, ec))
    throw Error("trace '" + path.string() + "' continues '" + parentPath.string() +
                "', which is missing");
  TraceReader parent(parentPath);
  uint64_t forkAt = header_.process.forkOffset;
  if (forkAt < parent.headerEnd_ || forkAt - parent.headerEnd_ > parent.size_ - parent.eventsStart_)
    throw Error("trace '" + path.string() + "' continues '" + parentPath.string() +
                "' from byte " + std::to_string(forkAt) + ", past its end");
  uint64_t prefixEnd = parent.eventsStart_ + (forkAt - parent.headerEnd_);
  std::string joined(reinterpret_cast<const char *>(parent.data_ + parent.eventsStart_),
                     prefixEnd - parent.eventsStart_);
  uint64_t prefix = joined.size();
  joined.append(reinterpret_cast<const char *>(data_ + pos_), size_ - pos_);
  buffer_.reset();
  owned_ = std::move(joined);
  data_ = reinterpret_cast<const unsigned char *>(owned_.data());
  size_ = owned_.size();
  pos_ = 0;
  eventsStart_ = prefix;
}

TraceReader TraceReader::fromBytes(std::string bytes, const std::string &expectedKey) {
  TraceReader r;
  r.owned_ = std::move(bytes);
  r.data_ = reinterpret_cast<const unsigned char *>(r.owned_.data());
  r.size_ = r.owned_.size();
  r.parseHeader("<memory>", expectedKey);
  return r;
}

TraceReader::~TraceReader() = default;

TraceReader::TraceReader(TraceReader &&o) noexcept
    : buffer_(std::move(o.buffer_)), owned_(std::move(o.owned_)), size_(o.size_), pos_(o.pos_),
      truncated_(o.truncated_), lastAddr_(o.lastAddr_), lastFrame_(o.lastFrame_),
      eventsStart_(o.eventsStart_), headerEnd_(o.headerEnd_), header_(std::move(o.header_)),
      name_(std::move(o.name_)) {
  data_ = buffer_ ? reinterpret_cast<const unsigned char *>(buffer_->getBufferStart())
                  : reinterpret_cast<const unsigned char *>(owned_.data());
}

uint64_t TraceReader::uv() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= size_) {
      if (inHeader_)
        throw Error("trace '" + name_ + "' is truncated in its header");
      throw PartialEvent{};
    }
    unsigned char byte = data_[pos_++];
    v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80))
      return v;
  }
  throw Error("trace '" + name_ + "' is corrupt at byte " + std::to_string(pos_) +
              " (varint too long)");
}

void TraceReader::parseHeader(const std::string &name, const std::string &expectedKey) {
  name_ = name;
  if (size_ < sizeof kMagic || std::memcmp(data_, kMagic, sizeof kMagic) != 0)
    throw Error("'" + name + "' is not a rootline trace (bad magic)");
  pos_ = sizeof kMagic;
  inHeader_ = true;
  header_.version = static_cast<uint32_t>(uv());
  if (header_.version != kTraceVersion)
    throw Error("trace '" + name + "' has format version " + std::to_string(header_.version) +
                "; this rootline reads version " + std::to_string(kTraceVersion));
  uint64_t klen = uv();
  if (klen > size_ - pos_)
    throw Error("trace '" + name + "' is truncated in its header");
  header_.moduleKey.assign(reinterpret_cast<const char *>(data_ + pos_), klen);
  pos_ += klen;
  auto text = [&] {
    uint64_t n = uv();
    if (n > size_ - pos_)
      throw Error("trace '" + name + "' is truncated in its header");
    std::string out(reinterpret_cast<const char *>(data_ + pos_), n);
    pos_ += n;
    return out;
  };
  TraceProcess &p = header_.process;
  p.seq = uv();
  p.pid = uv();
  p.ppid = uv();
  p.parentSeq = uv();
  p.forkOffset = uv();
  p.cwd = text();
  p.exe = text();
  uint64_t argc = uv();
  if (argc > size_ - pos_)
    throw Error("trace '" + name + "' is truncated in its header");
  for (uint64_t i = 0; i < argc; ++i)
    p.argv.push_back(text());
  inHeader_ = false;
  headerEnd_ = eventsStart_ = pos_;
  if (!expectedKey.empty() && header_.moduleKey != expectedKey)
    throw Error("trace '" + name + "' belongs to another program (module " +
                header_.moduleKey.substr(0, 12) + ", expected " + expectedKey.substr(0, 12) + ")");
}

bool TraceReader::next(Event &ev) {
  if (pos_ >= size_)
    return false;
  try {
    return decode(ev);
  } catch (const PartialEvent &) {
    truncated_ = true;
    pos_ = size_;
    return false;
  }
}

bool TraceReader::decode(Event &ev) {
  ev = Event{};
  ev.offset = pos_;
  unsigned raw = data_[pos_++];
  if (raw >= kLoadTag && raw <= kLoadTag + 8)
    return decodeLoad(ev, raw - kLoadTag);
  ev.tag = static_cast<Ev>(raw);
  Shape shape = shapeOf(ev.tag);
  if (shape.ints < 0)
    throw Error("trace '" + name_ + "' is corrupt at byte " + std::to_string(ev.offset) +
                " (unknown event " + std::to_string(static_cast<int>(ev.tag)) + ")");
  uint64_t *fields[5] = {&ev.a, &ev.b, &ev.c, &ev.d, &ev.e};
  for (int i = 0; i < shape.ints; ++i)
    *fields[i] = uv();
  if (hasDeltaAddress(ev.tag)) {
    lastAddr_ += static_cast<uint64_t>(unzigzag(ev.a));
    ev.a = lastAddr_;
  } else if (hasFrameDelta(ev.tag)) {
    lastFrame_ += static_cast<uint64_t>(unzigzag(ev.a));
    ev.a = lastFrame_;
  }
  if (shape.bytes) {
    uint64_t n = *fields[shape.ints - 1];
    if (n > size_ - pos_)
      throw PartialEvent{};
    ev.bytes = std::string_view(reinterpret_cast<const char *>(data_ + pos_), n);
    pos_ += n;
  }
  return true;
}

bool TraceReader::decodeLoad(Event &ev, unsigned valueBytes) {
  ev.tag = Ev::LOAD;
  lastAddr_ += static_cast<uint64_t>(unzigzag(uv()));
  ev.a = lastAddr_;
  if (valueBytes > size_ - pos_)
    throw PartialEvent{};
  for (unsigned i = 0; i < valueBytes; ++i)
    ev.b |= static_cast<uint64_t>(data_[pos_ + i]) << (8 * i);
  pos_ += valueBytes;
  return true;
}

bool TraceReader::peek(Event &ev) {
  uint64_t savedPos = pos_, savedAddr = lastAddr_, savedFrame = lastFrame_;
  bool savedTruncated = truncated_;
  bool ok = next(ev);
  pos_ = savedPos;
  lastAddr_ = savedAddr;
  lastFrame_ = savedFrame;
  truncated_ = savedTruncated;
  return ok;
}

TraceWriter::TraceWriter(const std::string &moduleKey, uint32_t version) {
  out_.assign(kMagic, sizeof kMagic);
  uv(version);
  uv(moduleKey.size());
  out_ += moduleKey;
  if (version == kTraceVersion)
    out_.append(8, '\0'); // no process: seq, pid, ppid, parent, offset, cwd, exe, argc
}

void TraceWriter::uv(uint64_t v) {
  while (v >= 0x80) {
    out_ += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out_ += static_cast<char>(v);
}

void TraceWriter::put(const Event &ev) {
  if (ev.tag == Ev::LOAD) {
    unsigned n = valueBytes(ev.b);
    out_ += static_cast<char>(kLoadTag + n);
    uv(zigzag(static_cast<int64_t>(ev.a - lastAddr_)));
    lastAddr_ = ev.a;
    for (unsigned i = 0; i < n; ++i)
      out_ += static_cast<char>(ev.b >> (8 * i));
    return;
  }
  Shape shape = shapeOf(ev.tag);
  out_ += static_cast<char>(ev.tag);
  const uint64_t fields[5] = {ev.a, ev.b, ev.c, ev.d, ev.e};
  for (int i = 0; i < shape.ints; ++i) {
    if (i == 0 && hasDeltaAddress(ev.tag)) {
      uv(zigzag(static_cast<int64_t>(ev.a - lastAddr_)));
      lastAddr_ = ev.a;
    } else if (i == 0 && hasFrameDelta(ev.tag)) {
      uv(zigzag(static_cast<int64_t>(ev.a - lastFrame_)));
      lastFrame_ = ev.a;
    } else {
      uv(fields[i]);
    }
  }
  if (shape.bytes)
    out_.append(ev.bytes.data(), ev.bytes.size());
}

} // namespace rootline
