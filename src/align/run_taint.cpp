// Noise and change taint over a run's recorded dependences (include/rootline/run_taint.h).
#include "rootline/run_taint.h"
#include "rootline/alignment.h"

#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <set>
#include <string>

namespace rootline {

bool isEnvironmentSource(const llvm::Function &callee) {
  static const std::set<std::string> sources = {
      "time",      "clock",      "clock_gettime", "gettimeofday", "ftime",
      "times",     "getpid",     "getppid",       "gettid",       "rand",
      "random",    "rand_r",     "lrand48",       "drand48",      "mrand48",
      "nrand48",   "erand48",    "jrand48",       "arc4random",   "arc4random_uniform",
      "getrandom", "getentropy", "clock_getres"};
  return sources.count(callee.getName().str()) > 0;
}

RunTaint taintRun(const DynamicTrace &trace, const ModuleIndex &index,
                  const std::function<bool(const llvm::Instruction *)> &onChangedLine,
                  const Deadline &deadline) {
  constexpr uint8_t kData = RunTaint::Address | RunTaint::Environment;
  RunTaint out;
  const auto &records = trace.records;
  out.flags.assign(records.size(), 0);
  // Per instruction id: 0 unknown, 1 on a changed line, 2 not.
  std::vector<uint8_t> changedLine(index.instructionCount(), 0);
  // A noisy slot does not leave the function that loaded it (a lookup's result,
  // returned, is what it found). Asked only of defs that carry one, which are few.
  auto functionOf = [&](uint64_t d) -> const llvm::Function * {
    const llvm::Instruction *def = index.instruction(records.id(d));
    return def ? def->getFunction() : nullptr;
  };
  DeadlineCheck check(deadline);
  uint64_t i = 0;
  InstanceDeps r;
  for (; i < records.size(); ++i) {
    if (check.tick())
      break;
    const uint32_t id = records.id(i);
    const llvm::Instruction *inst = index.instruction(id);
    if (!inst)
      continue;
    records.decode(i, r);
    const llvm::Function *function = inst->getFunction();
    auto flagOf = [&](uint64_t d) -> uint8_t { return d < i ? out.flags[d] : 0; };
    const uint64_t *defs = r.defs.data();
    uint8_t noise = 0, change = 0;
    auto addAll = [&](unsigned from, unsigned to, bool data) {
      for (unsigned k = from; k < to; ++k) {
        uint8_t f = flagOf(defs[k]);
        if (data) {
          noise |= f & kData;
          if ((f & RunTaint::NoisySlot) && functionOf(defs[k]) == function)
            noise |= RunTaint::NoisySlot;
        }
        change |= f & RunTaint::FromChange;
      }
    };
    const unsigned ops = r.operandCount, all = static_cast<unsigned>(r.defs.size());
    if (llvm::isa<llvm::LoadInst>(inst)) {
      addAll(0, ops, false); // the address: which slot, not what is in it
      addAll(ops, all, true);
      // Read from a slot noise chose: what is there is the slot's (a chain's head, a
      // node's key), so a branch on it here is decided by noise.
      // So is what is read through it here (`ts->shrlen`, `ts->u.hnext`), and what a
      // store put where noise chose (a scan over a table's nodes finds it there).
      for (unsigned k = 0; k < ops; ++k)
        if (uint8_t f = flagOf(defs[k]);
            (f & kData) || ((f & RunTaint::NoisySlot) && functionOf(defs[k]) == function))
          noise |= RunTaint::NoisySlot;
      for (unsigned k = ops; k < all; ++k)
        if (flagOf(defs[k]) & RunTaint::NoisyPlace)
          noise |= RunTaint::NoisySlot;
    } else if (auto *store = llvm::dyn_cast<llvm::StoreInst>(inst)) {
      addAll(0, std::min(1u, ops), true); // the value stored
      addAll(std::min(1u, ops), all, false);
      // A noisy slot stays in the function's own variables (at -O0, its allocas); in
      // memory that outlives the call it is what the lookup found.
      if (!llvm::isa<llvm::AllocaInst>(store->getPointerOperand()->stripPointerCasts()))
        noise &= ~RunTaint::NoisySlot;
      for (unsigned k = std::min(1u, ops); k < ops; ++k)
        if (flagOf(defs[k]) & kData)
          noise |= RunTaint::NoisyPlace; // a slot noise chose (a hash table's node)
    } else if (llvm::isa<llvm::MemTransferInst>(inst)) {
      // A struct copy (`*io1 = *io2`): the bytes are what the source held, wherever it
      // was; which slots they go to and come from is not what they mean.
      addAll(0, ops, false);
      addAll(ops, all, true);
      if (ops > 0 && (flagOf(defs[0]) & kData))
        noise |= RunTaint::NoisyPlace;
    } else {
      addAll(0, all, true);
      if (llvm::isa<llvm::PtrToIntInst>(inst))
        noise |= RunTaint::Address;
      else if (auto *call = llvm::dyn_cast<llvm::CallBase>(inst)) {
        if (const llvm::Function *f = call->getCalledFunction(); f && isEnvironmentSource(*f))
          noise |= RunTaint::Environment;
      } else if (inst->getOpcode() == llvm::Instruction::Sub && ops == 2 &&
                 (flagOf(defs[0]) & RunTaint::Address) && (flagOf(defs[1]) & RunTaint::Address)) {
        noise &= ~RunTaint::Address; // the distance between two addresses
      }
    }
    uint8_t &known = changedLine[id];
    if (!known)
      known = onChangedLine(inst) ? 1 : 2;
    if (known == 1)
      change |= RunTaint::FromChange;
    if (r.parent != kNoDef && r.parent < i) {
      uint8_t p = out.flags[r.parent];
      change |= p & RunTaint::FromChange;
      // Under a branch that noise decided, or inside a call made under one. A call's
      // noisy arguments do not make its callee's control noisy. A branch on a noisy slot
      // (a lookup's walk) decides its own function's code only: what a call made there
      // does is the callee's (an interpreter's dispatch reads a value a lookup found).
      bool branch = records.isBranch(r.parent);
      if ((p & RunTaint::NoiseControl) || (branch && (p & kData)))
        noise |= RunTaint::NoiseControl;
      else if (((p & RunTaint::NoiseControlHere) || (branch && (p & RunTaint::NoisySlot))) &&
               functionOf(r.parent) == function)
        noise |= RunTaint::NoiseControlHere;
    }
    out.flags[i] = noise | change;
  }
  out.known = i;
  return out;
}

void markNoise(ExecutionLog &log, const RunTaint &taint, const DynamicTrace &trace) {
  for (LineExecution &e : log.executions)
    e.noise = taint.noisyControl(e.first);
  for (LineEffect &x : log.effects) {
    if (x.instance >= trace.records.size())
      continue;
    switch (x.kind) {
    case LineEffect::Store:
      x.noise = taint.noisyValue(trace.operandDef(x.instance, 0));
      x.noisyIndex = taint.noisyValue(trace.operandDef(x.instance, 1));
      break;
    case LineEffect::Branch:
      x.noise = taint.noisyDecision(x.instance);
      break;
    case LineEffect::Return:
      x.noise = taint.noisyValue(x.instance);
      break;
    case LineEffect::Argument:
      x.noise = taint.noisyValue(trace.operandDef(x.instance, x.ordinal));
      break;
    case LineEffect::Call: // made because a branch noise decided went its way (`&&`)
      x.noise = taint.noisyControl(x.instance);
      break;
    }
  }
}

} // namespace rootline
