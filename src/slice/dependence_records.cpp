// The compact encoding of dependence records (docs/trace-format.md, "Memory"). Per
// instance, at its head's offset:
//   a flags byte: bit 0 reads unwritten, 1 branch, 2 output, 3 has memory reads;
//     bits 4-7 the operand count, 15 meaning "a varint follows";
//   [varint successor, branches only]
//   varint parent distance (instance - parent; 0 none)
//   [varint writer count, varint location count, when it reads memory]
//   varint distance of each operand definition, then of each writer (0 none)
//   varint of each location, its two tag bits rotated to the bottom (small ids, one byte)
// Definitions are always earlier instances, mostly a few back: one byte each.
#include "rootline/dependence_records.h"

#include <algorithm>

namespace rootline {

namespace {

void putVarint(uint8_t *&p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v) | 0x80;
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
}

size_t varintSize(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7)
    ++n;
  return n;
}

uint64_t getVarint(const uint8_t *&p) {
  uint64_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80))
      return v;
  }
}

void skipVarint(const uint8_t *&p) {
  while (*p++ & 0x80) {
  }
}

uint64_t distanceOf(uint64_t instance, uint64_t def) {
  return def != kNoDef && def < instance ? instance - def : 0;
}

uint64_t defAt(uint64_t instance, uint64_t distance) {
  return distance == 0 ? kNoDef : instance - distance;
}

uint32_t rotated(AbsLoc l) { return (l << 2) | (l >> 30); }
AbsLoc unrotated(uint32_t v) { return (v >> 2) | (v << 30); }

} // namespace

void InstanceDeps::clear() {
  parent = kNoDef;
  successor = 0;
  readsUnwritten = isBranch = isOutput = false;
  operandCount = 0;
  defs.clear();
  locs.clear();
}

// The record of instance `i`, as a flags byte then varints, each handed to `put(value,
// isByte)`: one encoder for writing and for measuring a long record.
template <class Put> void DependenceRecords::encode(uint64_t i, const InstanceDeps &d, Put &&put) {
  size_t writers = 0;
  for (size_t k = d.operandCount; k < d.defs.size(); ++k)
    writers += d.defs[k] != kNoDef && d.defs[k] < i;
  const bool memory = writers > 0 || !d.locs.empty();
  uint8_t flags = (d.readsUnwritten ? kUnwritten : 0) | (d.isBranch ? kBranch : 0) |
                  (d.isOutput ? kOutput : 0) | (memory ? kMemory : 0);
  unsigned ops = d.operandCount;
  put(flags | (std::min(ops, 15u) << 4), true);
  if (ops >= 15)
    put(ops, false);
  if (d.isBranch)
    put(d.successor, false);
  put(distanceOf(i, d.parent), false);
  if (memory) {
    put(writers, false);
    put(d.locs.size(), false);
  }
  for (unsigned k = 0; k < ops; ++k)
    put(distanceOf(i, d.defs[k]), false);
  // A writer is an earlier instance; anything else carries no dependence.
  for (size_t k = ops; k < d.defs.size(); ++k)
    if (uint64_t distance = distanceOf(i, d.defs[k]))
      put(distance, false);
  for (AbsLoc l : d.locs)
    put(rotated(l), false);
}

void DependenceRecords::append(uint32_t id, const InstanceDeps &d) {
  const uint64_t i = size_;
  // Written in place: room for the longest encoding (measured exactly when that bound is
  // long), then only what was written is kept.
  constexpr size_t kMaxVarint = 10, kMeasureAbove = 4096;
  size_t most = 1 + kMaxVarint * (5 + d.defs.size() + d.locs.size());
  if (most > kMeasureAbove) {
    most = 0;
    encode(i, d, [&](uint64_t v, bool isByte) { most += isByte ? 1 : varintSize(v); });
  }
  uint8_t *const start = reserve(most);
  uint8_t *p = start;
  encode(i, d, [&](uint64_t v, bool isByte) {
    if (isByte)
      *p++ = static_cast<uint8_t>(v);
    else
      putVarint(p, v);
  });
  streamSize_ = nextAt_ + static_cast<uint64_t>(p - start);
  if ((size_ >> kHeadBits) >= headPieces_.size())
    headPieces_.push_back(std::make_unique_for_overwrite<Head[]>(size_t{1} << kHeadBits));
  headPieces_[size_ >> kHeadBits][size_ & ((1u << kHeadBits) - 1)] = {id, nextAt_};
  ++size_;
}

uint8_t *DependenceRecords::reserve(size_t bytes) {
  uint64_t at = streamSize_;
  auto windowOf = [](uint64_t offset) { return offset >> kWindowBits; };
  if (bytes > kWindow) { // a buffer of its own, after every window there is
    at = windows_.size() << kWindowBits;
    size_t count = (bytes + kWindow - 1) >> kWindowBits;
    buffers_.push_back(std::make_unique_for_overwrite<uint8_t[]>(count << kWindowBits));
    bufferFirstWindow_.push_back(static_cast<uint32_t>(windows_.size()));
    for (size_t k = 0; k < count; ++k)
      windows_.push_back(buffers_.back().get() + (k << kWindowBits));
  } else {
    if ((at & (kWindow - 1)) + bytes > kWindow) // it would straddle: the next window
      at = (windowOf(at) + 1) << kWindowBits;
    if (windowOf(at) >= windows_.size()) {
      buffers_.push_back(std::make_unique_for_overwrite<uint8_t[]>(kWindow));
      bufferFirstWindow_.push_back(static_cast<uint32_t>(windows_.size()));
      windows_.push_back(buffers_.back().get());
    }
  }
  nextAt_ = static_cast<uint32_t>(at);
  return windows_[windowOf(at)] + (at & (kWindow - 1));
}

void DependenceRecords::truncate(uint64_t n) {
  if (n >= size_)
    return;
  streamSize_ = head(n).at;
  size_ = n;
  // Buffers that start past the kept stream go, with their windows.
  uint64_t keptWindows = (streamSize_ + kWindow - 1) >> kWindowBits;
  while (!buffers_.empty() && bufferFirstWindow_.back() >= keptWindows) {
    windows_.resize(bufferFirstWindow_.back());
    buffers_.pop_back();
    bufferFirstWindow_.pop_back();
  }
  headPieces_.resize((size_ + (1u << kHeadBits) - 1) >> kHeadBits);
}

void DependenceRecords::decode(uint64_t i, InstanceDeps &out) const {
  out.defs.clear();
  out.locs.clear();
  const uint8_t *p = bytesOf(i);
  const uint8_t flags = *p++;
  out.readsUnwritten = flags & kUnwritten;
  out.isBranch = flags & kBranch;
  out.isOutput = flags & kOutput;
  out.operandCount = flags >> 4;
  if (out.operandCount == 15)
    out.operandCount = static_cast<unsigned>(getVarint(p));
  out.successor = out.isBranch ? static_cast<uint32_t>(getVarint(p)) : 0;
  out.parent = defAt(i, getVarint(p));
  uint64_t writers = 0, locs = 0;
  if (flags & kMemory) {
    writers = getVarint(p);
    locs = getVarint(p);
  }
  for (uint64_t k = 0; k < out.operandCount + writers; ++k)
    out.defs.push_back(defAt(i, getVarint(p)));
  for (uint64_t k = 0; k < locs; ++k)
    out.locs.push_back(unrotated(static_cast<uint32_t>(getVarint(p))));
}

uint64_t DependenceRecords::parent(uint64_t i) const {
  const uint8_t *p = bytesOf(i);
  const uint8_t flags = *p++;
  if ((flags >> 4) == 15)
    skipVarint(p);
  if (flags & kBranch)
    skipVarint(p);
  return defAt(i, getVarint(p));
}

uint32_t DependenceRecords::successor(uint64_t i) const {
  const uint8_t *p = bytesOf(i);
  const uint8_t flags = *p++;
  if (!(flags & kBranch))
    return 0;
  if ((flags >> 4) == 15)
    skipVarint(p);
  return static_cast<uint32_t>(getVarint(p));
}

uint64_t DependenceRecords::operandDef(uint64_t i, unsigned operand) const {
  const uint8_t *p = bytesOf(i);
  const uint8_t flags = *p++;
  uint64_t ops = flags >> 4;
  if (ops == 15)
    ops = getVarint(p);
  if (operand >= ops)
    return kNoDef;
  if (flags & kBranch)
    skipVarint(p);
  skipVarint(p); // parent
  if (flags & kMemory) {
    skipVarint(p);
    skipVarint(p);
  }
  for (unsigned k = 0; k < operand; ++k)
    skipVarint(p);
  return defAt(i, getVarint(p));
}

uint64_t DependenceRecords::capacityBytes() const {
  return (headPieces_.size() << kHeadBits) * sizeof(Head) + (windows_.size() << kWindowBits);
}

uint64_t DependenceRecords::usedBytes() const { return size_ * sizeof(Head) + streamSize_; }

} // namespace rootline
