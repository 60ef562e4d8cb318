// Byte-granular shadow memory: for every byte address, the last instance that wrote it.
#pragma once

#include "rootline/replay.h"

#include <llvm/ADT/DenseMap.h>

#include <memory>

namespace rootline {

// Bytes of a local that replay models itself carry this mark instead of a writer (its
// stores are not logged): a logged write that lands on one is an overflow from a
// neighbouring object, which replay must apply to the local by hand.
inline constexpr uint64_t kModelledLocalMark = kNoDef - 1;

class WriterShadow {
public:
  // Returns whether some byte was a modelled local's.
  bool set(uint64_t addr, uint64_t len, uint64_t writer) {
    bool local = false;
    for (uint64_t i = 0; i < len; ++i) {
      uint64_t &s = slot(addr + i);
      local |= s == kModelledLocalMark;
      s = writer;
    }
    return local;
  }
  uint64_t get(uint64_t addr) {
    uint64_t *page = findPage(addr >> kPageBits, false);
    return page ? page[addr & kPageMask] : kNoDef;
  }
  // Copies writers of [src, src+len) to [dst, dst+len) as memmove would.
  void copy(uint64_t dst, uint64_t src, uint64_t len) {
    std::vector<uint64_t> tmp(len);
    for (uint64_t i = 0; i < len; ++i)
      tmp[i] = get(src + i);
    for (uint64_t i = 0; i < len; ++i)
      slot(dst + i) = tmp[i];
  }
  // Distinct writers of [addr, addr+len), in first-seen order. Returns whether some
  // byte has no writer; `local` (when given) says whether some byte is a modelled
  // local's (its writer is in replay's own records, not here).
  bool writers(uint64_t addr, uint64_t len, llvm::SmallVectorImpl<uint64_t> &out,
               bool *local = nullptr) {
    uint64_t last = kNoDef - 1;
    bool unwritten = false;
    for (uint64_t i = 0; i < len; ++i) {
      uint64_t w = get(addr + i);
      if (w == kNoDef)
        unwritten = true;
      if (w == kModelledLocalMark && local)
        *local = true;
      if (w == kNoDef || w == last || w == kModelledLocalMark)
        continue;
      last = w;
      if (std::find(out.begin(), out.end(), w) == out.end())
        out.push_back(w);
    }
    return unwritten;
  }

private:
  static constexpr unsigned kPageBits = 12;
  static constexpr uint64_t kPageMask = (1u << kPageBits) - 1;

  uint64_t &slot(uint64_t addr) { return findPage(addr >> kPageBits, true)[addr & kPageMask]; }

  uint64_t *findPage(uint64_t page, bool create) {
    if (page == cachedPage_ && cached_)
      return cached_;
    auto it = pages_.find(page);
    if (it == pages_.end()) {
      if (!create)
        return nullptr;
      auto mem = std::make_unique<uint64_t[]>(1u << kPageBits);
      std::fill_n(mem.get(), 1u << kPageBits, kNoDef);
      it = pages_.try_emplace(page, std::move(mem)).first;
    }
    cachedPage_ = page;
    cached_ = it->second.get();
    return cached_;
  }

  llvm::DenseMap<uint64_t, std::unique_ptr<uint64_t[]>> pages_;
  uint64_t cachedPage_ = ~0ull;
  uint64_t *cached_ = nullptr;
};

} // namespace rootline
