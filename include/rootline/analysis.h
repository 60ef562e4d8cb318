// Static analysis of a module, computed once and queried by slicing: post-dominators,
// immediate post-dominators of branches, static control dependence, and for every
// conditional branch direction the abstract locations it may define before the
// branch's immediate post-dominator (including through calls).
#pragma once

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace rootline {

class ModuleIndex;

// Abstract memory locations: a local (its alloca), a global, a heap allocation site
// (the allocating call), or unknown (a store whose target is not known statically).
using AbsLoc = uint32_t;
// Tags in the top two bits: 00 locals, 01 heap sites, 10 globals, 11 special. Never
// ~0u or ~0u - 1 inside a set: those are DenseSet's empty and tombstone keys.
inline constexpr AbsLoc kUnknownLoc =
    0xffffffffu; // only as a return value, never stored in a LocSet
// The program's output streams (stdout/stderr): every output call defines them. Had a
// branch whose other side prints gone the other way, later output would differ.
inline constexpr AbsLoc kOutputLoc = 0xc0000000u;
bool isOutputFunction(llvm::StringRef name);
AbsLoc allocaLoc(uint32_t allocaInstId);
AbsLoc globalLoc(uint32_t globalIndex);
AbsLoc heapLoc(uint32_t callInstId);

// A set of abstract locations; `any` means it may contain every location.
struct LocSet {
  bool any = false;
  llvm::DenseSet<AbsLoc> locs;
  bool mayContain(AbsLoc l) const { return any || locs.contains(l); }
  void add(const LocSet &o) {
    any |= o.any;
    if (!any)
      locs.insert(o.locs.begin(), o.locs.end());
  }
};

class StaticAnalysis {
public:
  StaticAnalysis(const llvm::Module &module, const ModuleIndex &index);
  ~StaticAnalysis();

  // The block where the paths from a branch's successors meet again (its immediate
  // post-dominator); nullptr when they only meet at function exit.
  const llvm::BasicBlock *joinOf(const llvm::Instruction *branch) const;
  // Locations the given successor direction may define before the join.
  const LocSet &mayDef(const llvm::Instruction *branch, unsigned successor) const;
  // Locations a function may write, transitively through its callees.
  const LocSet &modSet(const llvm::Function *fn) const;
  // The abstract location a pointer refers to, statically (kUnknownLoc if not known).
  AbsLoc locationOf(const llvm::Value *pointer) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace rootline
