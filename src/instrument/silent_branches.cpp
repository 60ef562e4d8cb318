// Conditional branches that log no BR event (module_index.h: silentBranches). Replay
// computes every branch condition itself; the BR event only checks it. A branch whose
// two successors begin with events of different kinds needs no check of its own: had
// replay gone the wrong way, the very next event would not be the one it expects.
#include "rootline/module_index.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/IntrinsicInst.h>

#include <algorithm>

namespace rootline {

namespace {

// Kinds of the first event a block can log, as bits. Events of one kind cannot tell
// two paths apart (two LOADs differ only in data), so a kind is all replay can rely on.
namespace kind {
enum : unsigned {
  kLoad = 1u << 0,
  kStore = 1u << 1,
  kAlloca = 1u << 2,
  kBranch = 1u << 3,
  kSwitch = 1u << 4,
  kReturn = 1u << 5,
  kEnter = 1u << 6,
  kCopy = 1u << 7,
  kSet = 1u << 8,
  kAny = 1u << 9, // a call into uninstrumented code: it may log anything first
};
} // namespace kind
using namespace kind;

// What the instrumentation logs for `inst` first (instrument_module.cpp), 0 for
// nothing; conditional branches are decided by the caller.
unsigned eventKind(const llvm::Instruction &inst,
                   const llvm::DenseSet<const llvm::AllocaInst *> &anchored) {
  if (auto *ld = llvm::dyn_cast<llvm::LoadInst>(&inst))
    return isReplayModelledLocal(ld->getPointerOperand()) ? 0u : kLoad;
  if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&inst))
    return isReplayModelledLocal(st->getPointerOperand()) ? 0u : kStore;
  if (auto *al = llvm::dyn_cast<llvm::AllocaInst>(&inst))
    return anchored.contains(al) ? 0u : kAlloca;
  if (llvm::isa<llvm::AtomicRMWInst>(inst) || llvm::isa<llvm::AtomicCmpXchgInst>(inst))
    return kStore;
  if (llvm::isa<llvm::SwitchInst>(inst) || llvm::isa<llvm::IndirectBrInst>(inst))
    return kSwitch;
  if (llvm::isa<llvm::ReturnInst>(inst))
    return kReturn; // main's EXIT before it is skipped by replay's expect
  if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
    const llvm::Function *callee = call->getCalledFunction();
    if (callee && callee->isIntrinsic()) {
      if (llvm::isa<llvm::MemTransferInst>(call))
        return kCopy;
      if (llvm::isa<llvm::MemSetInst>(call))
        return kSet;
      return 0; // other intrinsics log nothing
    }
    if (callee && !callee->isDeclaration())
      return kEnter;
    return kAny;
  }
  if (inst.isTerminator() && !llvm::isa<llvm::BranchInst>(inst))
    return kAny; // unreachable, resume, ...: nothing to rely on
  return 0;
}

struct BlockSummary {
  unsigned own = 0; // kind of the block's first event before its terminator, or 0
  const llvm::BranchInst *branch = nullptr; // the terminator, when a branch
};

} // namespace

llvm::DenseSet<const llvm::BranchInst *>
silentBranches(const llvm::Function &fn, llvm::ArrayRef<const llvm::AllocaInst *> anchoredList) {
  llvm::DenseSet<const llvm::BranchInst *> silent;
  if (fn.isDeclaration())
    return silent;
  llvm::DenseSet<const llvm::AllocaInst *> anchored(anchoredList.begin(), anchoredList.end());

  // Reachable blocks, successors before predecessors (so one pass settles all but
  // cycles), and every conditional branch in a fixed order: instrumentation and
  // replay must reach one answer.
  std::vector<const llvm::BasicBlock *> order(llvm::po_begin(&fn.getEntryBlock()),
                                              llvm::po_end(&fn.getEntryBlock()));
  llvm::DenseMap<const llvm::BasicBlock *, BlockSummary> blocks;
  std::vector<const llvm::BranchInst *> conditional;
  for (const llvm::BasicBlock *bb : order) {
    BlockSummary s;
    for (const llvm::Instruction &inst : *bb) {
      if (auto *br = llvm::dyn_cast<llvm::BranchInst>(&inst)) {
        s.branch = br;
        if (br->isConditional())
          conditional.push_back(br);
        break;
      }
      if ((s.own = eventKind(inst, anchored)))
        break;
    }
    blocks[bb] = s;
  }
  // Branches with an event before them in their block can be silent as well; only
  // what their own block starts with does not depend on them.
  for (const llvm::BasicBlock *bb : order)
    if (auto *br = llvm::dyn_cast<llvm::BranchInst>(bb->getTerminator());
        br && br->isConditional() && blocks[bb].own)
      conditional.push_back(br);

  // first[B]: the kinds B's first event can have, given the branches now silent. The
  // least fixpoint: a cycle that logs nothing adds nothing. Only blocks that log
  // nothing before their branch depend on which branches are silent.
  llvm::DenseMap<const llvm::BasicBlock *, unsigned> first;
  std::vector<const llvm::BasicBlock *> open;
  for (const llvm::BasicBlock *bb : order) {
    first[bb] = blocks[bb].own;
    if (!blocks[bb].own)
      open.push_back(bb);
  }
  // Block visits left: a function too big to settle keeps the branches decided so far.
  uint64_t budget = 4000000;
  auto computeFirst = [&]() {
    for (const llvm::BasicBlock *bb : open)
      first[bb] = 0;
    for (bool changed = true; changed;) {
      changed = false;
      for (const llvm::BasicBlock *bb : open) {
        const llvm::BranchInst *br = blocks[bb].branch;
        unsigned k = 0;
        if (!br)
          k = kAny; // cannot happen: every terminator logs or branches
        else if (br->isUnconditional())
          k = first[br->getSuccessor(0)];
        else if (silent.contains(br))
          k = first[br->getSuccessor(0)] | first[br->getSuccessor(1)];
        else
          k = kBranch;
        if ((k | first[bb]) != first[bb]) {
          first[bb] |= k;
          changed = true;
        }
      }
      budget -= std::min<uint64_t>(budget, open.size() + 1);
    }
  };
  auto distinguishable = [&](const llvm::BranchInst *br) {
    unsigned a = first[br->getSuccessor(0)], b = first[br->getSuccessor(1)];
    return a && b && !(a & kAny) && !(b & kAny) && !(a & b);
  };

  // One branch at a time (innermost blocks first, in post-order): silence it if its
  // successors differ and silencing it spoils no branch silenced before (a silent
  // branch's block begins with its successors' kinds, no longer with a BR).
  computeFirst();
  for (const llvm::BranchInst *br : conditional) {
    if (budget == 0)
      break;
    if (!distinguishable(br))
      continue;
    silent.insert(br);
    computeFirst();
    bool spoiled = false;
    for (const llvm::BranchInst *other : silent)
      spoiled = spoiled || !distinguishable(other);
    if (spoiled) {
      silent.erase(br);
      computeFirst();
    }
  }
  return silent;
}

} // namespace rootline
