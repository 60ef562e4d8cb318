// Names of memory as the program's source spells them (docs/symbolic.md, "Input
// variables"): which variable an address belongs to, down to the array element and the
// struct member, from the debug info of allocas and globals.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace llvm {
class AllocaInst;
class DIType;
class GlobalVariable;
} // namespace llvm

namespace rootline {

class SourceNames {
public:
  // A local's storage (it replaces whatever lived there before: a new frame).
  void onAlloca(const llvm::AllocaInst *alloca, uint64_t addr, uint64_t size);
  void onGlobal(const llvm::GlobalVariable *gv, uint64_t addr, uint64_t size);
  // "qty", "a[3]", "grid[1][2]", "s.len", "recs[2].name[0]"; "" when the address is in
  // no named variable (heap, a temporary).
  std::string nameAt(uint64_t addr) const;
  // `base` the first time it is asked for, then `base#2`, `base#3`, ...: a variable that
  // receives several inputs in one run gets one name per input, in read order.
  std::string fresh(const std::string &base);

private:
  struct Named {
    uint64_t size = 0;
    std::string name;
    const llvm::DIType *type = nullptr;
  };
  void add(uint64_t addr, uint64_t size, Named named);
  std::map<uint64_t, Named> named_; // by start address
  // Each alloca's variable, looked up in the debug info once (allocas run on every call).
  std::map<const llvm::AllocaInst *, std::pair<std::string, const llvm::DIType *>> locals_;
  std::map<std::string, unsigned> used_;
};

} // namespace rootline
