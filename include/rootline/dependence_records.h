// The dependence records of one run, compact (docs/trace-format.md, "Memory"): per
// instance an 8-byte head (its instruction and where its dependences start) and a few
// bytes of dependences, each definition a variable-length distance back from the
// instance. Written forward by the DependenceRecorder, read by index.
#pragma once

#include "rootline/analysis.h"
#include "rootline/replay.h"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace rootline {

// One instance's dependences, decoded. Readers keep one and decode into it again, so
// a pass over a run allocates nothing per instance.
struct InstanceDeps {
  uint64_t parent = kNoDef;    // dynamic control parent: innermost open branch, else the call
  uint32_t successor = 0;      // the successor a branch took
  bool readsUnwritten = false; // some byte it read has no writer in the trace
  bool isBranch = false;       // conditional branch or multi-way switch
  bool isOutput = false;       // wrote to stdout/stderr (DynamicTrace::previousOutput)
  unsigned operandCount = 0;
  std::vector<uint64_t> defs; // operand defs (LLVM operand order, kNoDef kept), then writers
  std::vector<AbsLoc> locs;   // abstract locations the instance reads from memory

  std::span<const uint64_t> operands() const { return {defs.data(), operandCount}; }
  std::span<const uint64_t> writers() const {
    return {defs.data() + operandCount, defs.size() - operandCount};
  }
  void clear();
};

// Stored in fixed-size pieces that never move: no copy when they grow, and at most one
// piece of each kind allocated and not yet used.
class DependenceRecords {
public:
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  uint32_t id(uint64_t instance) const { return head(instance).id; }
  bool isBranch(uint64_t instance) const { return *bytesOf(instance) & kBranch; }
  bool isOutput(uint64_t instance) const { return *bytesOf(instance) & kOutput; }
  uint64_t parent(uint64_t instance) const;
  uint32_t successor(uint64_t instance) const;
  uint64_t operandDef(uint64_t instance, unsigned operand) const;
  void decode(uint64_t instance, InstanceDeps &out) const;

  // Appends the record of instance size().
  void append(uint32_t id, const InstanceDeps &deps);
  void truncate(uint64_t instances);
  // Bytes held, allocated and not yet used included; and bytes in use.
  uint64_t capacityBytes() const;
  uint64_t usedBytes() const;
  // The byte stream is addressed with 32 bits: past this, no record may be appended.
  bool full() const { return streamSize_ > kStreamLimit; }

private:
  struct Head {
    uint32_t id;
    uint32_t at; // first byte of its dependences in the stream
  };
  static constexpr uint8_t kUnwritten = 1, kBranch = 2, kOutput = 4, kMemory = 8;
  static constexpr uint64_t kStreamLimit = 0xF0000000u;
  static constexpr unsigned kHeadBits = 16;   // heads per piece: 64 Ki (512 KiB)
  static constexpr unsigned kWindowBits = 20; // stream bytes per window: 1 MiB
  static constexpr uint64_t kWindow = uint64_t{1} << kWindowBits;

  const Head &head(uint64_t i) const {
    return headPieces_[i >> kHeadBits][i & ((1u << kHeadBits) - 1)];
  }
  const uint8_t *bytesOf(uint64_t i) const {
    uint32_t at = head(i).at;
    return windows_[at >> kWindowBits] + (at & (kWindow - 1));
  }
  template <class Put> static void encode(uint64_t instance, const InstanceDeps &, Put &&put);
  // Room for at most `bytes` of the next record, in one buffer; sets its offset. The
  // caller sets streamSize_ past what it wrote.
  uint8_t *reserve(size_t bytes);

  uint64_t size_ = 0;
  std::vector<std::unique_ptr<Head[]>> headPieces_;
  // The stream: window k is bytes [k MiB, k+1 MiB). A record never straddles two
  // buffers; one longer than a window gets a buffer of several windows of its own.
  std::vector<std::unique_ptr<uint8_t[]>> buffers_;
  std::vector<uint32_t> bufferFirstWindow_;
  std::vector<uint8_t *> windows_;
  uint64_t streamSize_ = 0;
  uint32_t nextAt_ = 0;
};

} // namespace rootline
