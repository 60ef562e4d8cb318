// Locals placed from their frame's anchor (module_index.h: anchoredLocals): a forward
// "definitely stored" analysis over the CFG, one bit per candidate local.
#include "rootline/module_index.h"

#include <llvm/ADT/BitVector.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Instructions.h>

namespace rootline {

namespace {

// The replay-modelled locals among the entry block's leading allocas: static frame
// objects, so their distance from each other is fixed for every call.
std::vector<const llvm::AllocaInst *> candidates(const llvm::Function &fn) {
  std::vector<const llvm::AllocaInst *> out;
  if (fn.isDeclaration())
    return out;
  for (const llvm::Instruction &inst : fn.getEntryBlock()) {
    auto *al = llvm::dyn_cast<llvm::AllocaInst>(&inst);
    if (!al)
      break;
    if (al->isStaticAlloca() && isReplayModelledLocal(al))
      out.push_back(al);
  }
  return out;
}

} // namespace

std::vector<const llvm::AllocaInst *> anchoredLocals(const llvm::Function &fn) {
  std::vector<const llvm::AllocaInst *> cands = candidates(fn);
  if (cands.empty())
    return cands;
  llvm::DenseMap<const llvm::Value *, unsigned> bit;
  for (unsigned i = 0; i < cands.size(); ++i)
    bit[cands[i]] = i;
  const unsigned n = static_cast<unsigned>(cands.size());
  auto slotOf = [&](const llvm::Instruction &inst, bool wantStore) -> int {
    const llvm::Value *ptr = nullptr;
    if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&inst); st && wantStore)
      ptr = st->getPointerOperand();
    else if (auto *ld = llvm::dyn_cast<llvm::LoadInst>(&inst); ld && !wantStore)
      ptr = ld->getPointerOperand();
    auto it = ptr ? bit.find(ptr) : bit.end();
    return it == bit.end() ? -1 : static_cast<int>(it->second);
  };

  // in[B]: locals stored on every path from the entry to B. Starts full (top) except
  // at the entry, and only shrinks, so the loop ends after at most n rounds per block.
  llvm::DenseMap<const llvm::BasicBlock *, llvm::BitVector> in, out;
  for (const llvm::BasicBlock &bb : fn) {
    in[&bb] = llvm::BitVector(n, &bb != &fn.getEntryBlock());
    out[&bb] = llvm::BitVector(n, true);
  }
  bool changed = true;
  while (changed) {
    changed = false;
    for (const llvm::BasicBlock &bb : fn) {
      llvm::BitVector cur(n, &bb != &fn.getEntryBlock());
      if (&bb != &fn.getEntryBlock())
        for (const llvm::BasicBlock *pred : llvm::predecessors(&bb))
          cur &= out[pred];
      in[&bb] = cur;
      for (const llvm::Instruction &inst : bb)
        if (int s = slotOf(inst, true); s >= 0)
          cur.set(static_cast<unsigned>(s));
      if (cur != out[&bb]) {
        out[&bb] = cur;
        changed = true;
      }
    }
  }

  // A load that may run before any store reads the local's initial bytes: such a
  // local keeps its ALLOCA_LOCAL event.
  llvm::BitVector readUninit(n, false);
  for (const llvm::BasicBlock &bb : fn) {
    llvm::BitVector cur = in[&bb];
    for (const llvm::Instruction &inst : bb) {
      if (int s = slotOf(inst, false); s >= 0 && !cur.test(static_cast<unsigned>(s)))
        readUninit.set(static_cast<unsigned>(s));
      if (int s = slotOf(inst, true); s >= 0)
        cur.set(static_cast<unsigned>(s));
    }
  }
  std::vector<const llvm::AllocaInst *> anchored;
  for (unsigned i = 0; i < n; ++i)
    if (!readUninit.test(i))
      anchored.push_back(cands[i]);
  return anchored;
}

} // namespace rootline
