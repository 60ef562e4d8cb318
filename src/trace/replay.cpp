// The replay machine: an LLVM IR interpreter driven by the trace. Control never
// diverges silently: every branch, switch, call target and memory address that the
// trace logged is checked against the recomputation, and a branch that logs nothing
// (silentBranches) by the next event, which its other side could not log.
//
// This file holds the replay loop: numbering and reporting instances, stepping through
// instructions and control flow. replayer.h lists the other parts.
#include "trace/replayer.h"

#include "rootline/error.h"

#include <llvm/IR/IntrinsicInst.h>

namespace rootline::replay {

ReplayResult Replayer::run() {
  try {
    while (true) {
      if (stack_.empty()) {
        if (!topLevelEvent())
          break;
      } else if (stack_.back().pending) {
        pendingEvent();
      } else {
        step();
      }
    }
  } catch (const CrashStop &c) {
    reportCrash(c.inst);
    result_.outcome = RunOutcome::Signal;
    result_.signal = c.signo;
    result_.crashInst = c.inst;
    result_.faultAddress = c.addr;
  } catch (const RunEnd &e) {
    result_.outcome = e.outcome;
  } catch (const Error &e) {
    if (!limits_.stopAtMismatch)
      throw;
    result_.outcome = RunOutcome::Diverged;
    result_.divergence = e.what();
    if (reported_)
      result_.divergence += "; trace and replay agree up to instance " +
                            std::to_string(lastReported_) + " (" +
                            ModuleIndex::describe(lastInst_) + ")";
  }
  return result_;
}

Instance &Replayer::begin(Frame &f, const llvm::Instruction *inst) {
  cur_.index = nextIndex_++;
  cur_.id = index_.idOf(inst);
  cur_.inst = inst;
  cur_.depth = static_cast<uint32_t>(stack_.size() - 1);
  cur_.frame = f.id;
  cur_.operands.clear();
  cur_.result = {};
  cur_.successor = 0;
  cur_.addr = cur_.size = 0;
  cur_.memDefs.clear();
  cur_.external = false;
  cur_.memUnwritten = false;
  cur_.crashed = false;
  cur_.effects.clear();
  return cur_;
}

void Replayer::finish(Frame &f, Instance &I, bool defines) {
  if (defines && !I.inst->getType()->isVoidTy())
    f.slots[I.inst] = {I.result, I.index};
  report(I);
}

// The faulting instruction becomes the last instance, marked `crashed`, with the
// operands it had when it faulted (a call into libc: its arguments).
void Replayer::reportCrash(const llvm::Instruction *inst) {
  if (!inst || stack_.empty())
    return;
  Frame &f = stack_.back();
  if (f.pending == inst) {
    Instance &I = begin(f, inst);
    I.operands.assign(f.pendingArgs.begin(), f.pendingArgs.end());
    I.external = true;
    I.effects = std::move(f.pendingEffects);
  } else if (cur_.inst != inst || cur_.index + 1 != nextIndex_) {
    Instance &I = begin(f, inst);
    for (const llvm::Use &u : inst->operands())
      if (!llvm::isa<llvm::BasicBlock>(u.get()) && !llvm::isa<llvm::Function>(u.get())) {
        auto it = f.slots.find(u.get());
        if (llvm::isa<llvm::Constant>(u.get()))
          I.operands.push_back({constant(llvm::cast<llvm::Constant>(u.get())), kNoDef});
        else if (it != f.slots.end())
          I.operands.push_back({it->second.v, it->second.def});
      }
  }
  if (reported_ && lastReported_ == cur_.index)
    return; // a call whose callee never started
  cur_.crashed = true;
  report(cur_);
}

void Replayer::report(const Instance &I) {
  reported_ = true;
  lastReported_ = I.index;
  lastInst_ = I.inst;
  ++result_.instances;
  if (observer_)
    observer_->onInstance(I);
  if (limits_.progress && result_.instances % limits_.progressPeriod == 0)
    limits_.progress(result_.instances);
  if (check_.tick() ||
      (check_.due() && observer_ && (!observer_->wantsMore() || observer_->mustStop())))
    if (!I.crashed)
      throw RunEnd{RunOutcome::Stopped};
}

void Replayer::step() {
  Frame &f = stack_.back();
  const llvm::Instruction *inst = &*f.pc;
  if (llvm::isa<llvm::DbgInfoIntrinsic>(inst)) {
    ++f.pc;
    return;
  }
  switch (inst->getOpcode()) {
  case llvm::Instruction::Alloca:
    return stepAlloca(f, llvm::cast<llvm::AllocaInst>(inst));
  case llvm::Instruction::Load:
    return stepLoad(f, llvm::cast<llvm::LoadInst>(inst));
  case llvm::Instruction::Store:
    return stepStore(f, llvm::cast<llvm::StoreInst>(inst));
  case llvm::Instruction::Br:
    return stepBranch(f, llvm::cast<llvm::BranchInst>(inst));
  case llvm::Instruction::Switch:
    return stepSwitch(f, llvm::cast<llvm::SwitchInst>(inst));
  case llvm::Instruction::IndirectBr:
    return stepIndirectBr(f, llvm::cast<llvm::IndirectBrInst>(inst));
  case llvm::Instruction::Ret:
    return stepReturn(f, llvm::cast<llvm::ReturnInst>(inst));
  case llvm::Instruction::Call:
    return stepCall(f, llvm::cast<llvm::CallInst>(inst));
  case llvm::Instruction::AtomicRMW:
  case llvm::Instruction::AtomicCmpXchg:
    return stepAtomic(f, inst);
  case llvm::Instruction::Fence:
    ++f.pc;
    return;
  case llvm::Instruction::Unreachable:
    mismatch(
        inst,
        "replay reached `unreachable` (the trace continues past a call that should not return)");
  default:
    if (inst->isBinaryOp())
      return stepBinary(f, inst);
    return stepValue(f, inst); // comparisons, casts, addresses, selects, aggregates
  }
}

void Replayer::jump(Frame &f, const llvm::BasicBlock *target) {
  const llvm::BasicBlock *from = f.block;
  f.block = target;
  f.pc = target->begin();
  // Phis read their incoming values all at once, before any of them is assigned.
  llvm::SmallVector<std::pair<const llvm::PHINode *, Slot>, 4> phis;
  for (const llvm::PHINode &phi : target->phis()) {
    const llvm::Value *in = phi.getIncomingValueForBlock(from);
    phis.push_back({&phi, operand(f, in)});
  }
  for (auto &[phi, slot] : phis) {
    Instance &I = begin(f, phi);
    I.operands.push_back({slot.v, slot.def});
    I.result = slot.v;
    finish(f, I);
    ++f.pc;
  }
}

void Replayer::stepBranch(Frame &f, const llvm::BranchInst *br) {
  Instance &I = begin(f, br);
  if (br->isUnconditional()) {
    finish(f, I);
    jump(f, br->getSuccessor(0));
    return;
  }
  bool cond = use(f, I, br->getCondition()).value.lo & 1;
  if (f.facts->silent.contains(br)) { // checked by the next event instead
    I.successor = cond ? 0 : 1;
    finish(f, I);
    jump(f, br->getSuccessor(I.successor));
    return;
  }
  Event ev = expect(Ev::BR_TRUE, br, Ev::BR_FALSE);
  if ((ev.tag == Ev::BR_TRUE) != cond)
    mismatch(br, std::string("native run took the ") + (ev.tag == Ev::BR_TRUE ? "true" : "false") +
                     " branch, replay computed " + (cond ? "true" : "false"));
  I.successor = cond ? 0 : 1;
  finish(f, I);
  jump(f, br->getSuccessor(I.successor));
}

void Replayer::stepSwitch(Frame &f, const llvm::SwitchInst *sw) {
  Instance &I = begin(f, sw);
  unsigned bits = ops::scalarBits(sw->getCondition()->getType(), dl_);
  Val v = ops::truncTo(use(f, I, sw->getCondition()).value, bits);
  Event ev = expect(Ev::SWITCH, sw);
  if (ops::truncTo({ev.a, 0}, std::min(64u, bits)).lo != v.lo)
    mismatch(sw, "native switch value " + std::to_string(ev.a) + ", replay computed " +
                     std::to_string(v.lo));
  auto it = sw->findCaseValue(llvm::ConstantInt::get(
      llvm::cast<llvm::IntegerType>(sw->getCondition()->getType()), static_cast<uint64_t>(v.lo)));
  I.successor = it == sw->case_default() ? 0 : it->getSuccessorIndex();
  finish(f, I);
  jump(f, sw->getSuccessor(I.successor));
}

// A computed goto: the trace names the destination it took (SWITCH).
void Replayer::stepIndirectBr(Frame &f, const llvm::IndirectBrInst *ib) {
  Instance &I = begin(f, ib);
  use(f, I, ib->getAddress());
  Event ev = expect(Ev::SWITCH, ib);
  if (ev.a >= ib->getNumDestinations())
    mismatch(ib, "the computed goto's target is none of its destinations");
  I.successor = static_cast<uint32_t>(ev.a);
  finish(f, I);
  jump(f, ib->getDestination(I.successor));
}

} // namespace rootline::replay

namespace rootline {

ReplayResult replayTrace(const llvm::Module &module, const ModuleIndex &index, TraceReader &trace,
                         ReplayObserver *observer, const ReplayLimits &limits) {
  return replay::Replayer(module, index, trace, observer, limits).run();
}

} // namespace rootline
