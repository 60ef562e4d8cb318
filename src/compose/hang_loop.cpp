// A hang's criterion (docs/debug.md, "Failure kinds"): the loop the stopped run is
// caught in. Its exiting branches (one successor inside the loop, one outside) ran in
// the second half of the trace and never took the way out there; loops that run to an
// end inside it (an inner loop, a callee's) did. The trace is several times the old
// run's length, so its second half lies inside the loop that does not exit.
#include "compose/debug_stages.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>

#include <map>

namespace rootline::debug {

namespace {

// Loop structure per function, computed for the few functions a hang's tail runs in.
class LoopsOf {
public:
  const llvm::Loop *loopOf(const llvm::BasicBlock *block) {
    auto *fn = const_cast<llvm::Function *>(block->getParent());
    auto it = loops_.find(fn);
    if (it == loops_.end()) {
      auto entry = std::make_unique<Entry>(*fn);
      it = loops_.emplace(fn, std::move(entry)).first;
    }
    return it->second->info.getLoopFor(block);
  }

private:
  struct Entry {
    explicit Entry(llvm::Function &fn) : dom(fn), info(dom) {}
    llvm::DominatorTree dom;
    llvm::LoopInfo info;
  };
  std::map<const llvm::Function *, std::unique_ptr<Entry>> loops_;
};

struct BranchTail {
  const llvm::Loop *loop = nullptr; // the loop it exits, when it is an exiting branch
  uint64_t executions = 0, last = 0;
  bool exited = false;
};

} // namespace

HangingLoop findHangingLoop(const Version &v) {
  const auto &records = v.trace.dynamic.records;
  HangingLoop out;
  LoopsOf loops;
  std::map<uint32_t, BranchTail> tail; // by instruction id
  for (uint64_t i = records.size() / 2; i < records.size(); ++i) {
    if (!records.isBranch(i))
      continue;
    auto [it, fresh] = tail.try_emplace(records.id(i));
    BranchTail &t = it->second;
    const llvm::Instruction *inst = v.index->instruction(records.id(i));
    if (fresh) {
      const llvm::Loop *loop = loops.loopOf(inst->getParent());
      for (unsigned s = 0; loop && s < inst->getNumSuccessors(); ++s)
        if (!loop->contains(inst->getSuccessor(s)))
          t.loop = loop;
    }
    ++t.executions;
    t.last = i;
    uint32_t s = records.successor(i);
    if (t.loop && s < inst->getNumSuccessors() && !t.loop->contains(inst->getSuccessor(s)))
      t.exited = true;
  }
  std::vector<std::pair<uint64_t, uint32_t>> stuck; // (last instance, id), latest first
  for (auto &[id, t] : tail)
    if (t.loop && !t.exited && t.executions >= 2)
      stuck.push_back({t.last, id});
  std::sort(stuck.begin(), stuck.end(), std::greater<>());
  for (auto &[last, id] : stuck)
    out.seeds.push_back({last, true, {}, false});
  if (!stuck.empty()) {
    uint32_t id = stuck.front().second;
    out.exitBranch = v.index->instruction(id);
    for (uint64_t i = 0; i < records.size(); ++i)
      out.iterations += records.id(i) == id;
  }
  return out;
}

} // namespace rootline::debug
