// Memory errors found during replay (docs/debug.md, "Memory errors"): every load and
// store, and every range a libc call read or wrote, checked against the bounds and the
// lifetime of the object its pointer was derived from (its provenance): stack objects
// (allocas, alive until their frame returns), globals, heap blocks (alive until freed).
// Like a sanitizer, but on the recorded run, so the finding points at instances the
// slicer and the report can use.
#pragma once

#include "rootline/replay.h"

#include <memory>
#include <string>
#include <vector>

namespace rootline {

struct MemoryFinding {
  // "stack-buffer-overflow", "global-buffer-overflow", "heap-buffer-overflow",
  // "heap-use-after-free", "uninitialized-read"
  std::string kind;
  uint64_t instance = 0; // the access (a load, store, memcpy/memset, or libc call)
  const llvm::Instruction *access = nullptr;
  bool write = false;
  uint64_t accessSize = 0;
  int64_t offset = 0;      // of the access from the object's start
  uint64_t objectSize = 0; // bytes
  // The object: an alloca, a global variable, or the allocating call; and the instance
  // that created it (none for globals) and, for a use after free, the one that freed it.
  const llvm::Value *object = nullptr;
  uint64_t objectInstance = kNoDef, freeInstance = kNoDef;
};

class MemoryChecker : public ReplayObserver {
public:
  MemoryChecker();
  ~MemoryChecker() override;
  void onInstance(const Instance &) override;
  void onGlobal(const llvm::GlobalVariable *, uint64_t addr, uint64_t size) override;
  // At most this many findings are kept (the first ones of the run).
  static constexpr size_t kMaxFindings = 64;
  std::vector<MemoryFinding> take();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace rootline
