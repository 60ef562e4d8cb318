// Forward pass over replay: compact per-instance dependence records, dynamic control
// parents (per-frame stacks of open branches, popped at their join) and the abstract
// location of every memory read.
#include "rootline/slice.h"

#include "rootline/module_index.h"

#include <llvm/IR/Instructions.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <unordered_map>

namespace rootline {

uint64_t DynamicTrace::previousOutput(uint64_t instance) const {
  auto it = previousOutputs.find(instance);
  return it == previousOutputs.end() ? kNoDef : it->second;
}

uint64_t DynamicTrace::operandDef(uint64_t instance, unsigned operand) const {
  return records.operandDef(instance, operand);
}

namespace {

struct OpenBranch {
  uint64_t instance;
  const llvm::Instruction *branch;
  const llvm::BasicBlock *join;
};

struct FrameState {
  std::vector<OpenBranch> open;
  const llvm::BasicBlock *block = nullptr;
  uint64_t callInstance = kNoDef;
  // The latest conditional branch or switch instance: the decision that led to the
  // edge a phi is entered through, possibly via unconditional jumps.
  uint64_t lastBranch = kNoDef;
  bool calledFromOutside = false; // a callback of uninstrumented code (qsort's comparator)
};

struct ObjectEntry {
  uint64_t size;
  AbsLoc loc;
};

} // namespace

struct DependenceRecorder::Impl {
  const ModuleIndex &index;
  const StaticAnalysis &analysis;
  uint64_t byteCap;
  bool capped = false;
  DynamicTrace trace;
  std::unordered_map<uint64_t, FrameState> frames;
  std::map<uint64_t, ObjectEntry> objects; // base -> object, for the location of a read
  std::map<uint64_t, ObjectEntry>::const_iterator lastObject = objects.end(); // locationAt's
  uint64_t lastCall = kNoDef;   // the latest call into a function with a body
  uint64_t lastOutput = kNoDef; // the latest call that wrote to stdout/stderr
  uint32_t lastDepth = 0;
  uint64_t cachedFrameId = 0;
  FrameState *cachedFrame = nullptr; // frames[cachedFrameId]
  bool lastWasDirectCall = false;    // the previous instance called an instrumented function
  // Return instances of callbacks, with their depth, until the uninstrumented call that
  // made them completes: what it does (qsort's order) depends on what they returned.
  std::vector<std::pair<uint32_t, uint64_t>> callbackReturns;
  InstanceDeps r; // the instance being recorded, reused

  Impl(const ModuleIndex &i, const StaticAnalysis &a, uint64_t cap)
      : index(i), analysis(a), byteCap(cap) {}

  uint64_t bytes() const { return trace.records.capacityBytes(); }

  void addObject(uint64_t base, uint64_t size, AbsLoc loc) {
    lastObject = objects.end();
    auto it = objects.lower_bound(base);
    while (it != objects.end() && it->first < base + std::max<uint64_t>(size, 1))
      it = objects.erase(it);
    objects[base] = {size, loc};
  }

  static bool holds(std::map<uint64_t, ObjectEntry>::const_iterator it, uint64_t addr) {
    return addr >= it->first && addr < it->first + std::max<uint64_t>(it->second.size, 1);
  }

  // Loads in a row mostly read the same object (a loop over an array): the last object
  // found is tried before the map. It answers only if it is still the object with the
  // greatest base at or below `addr` (an object placed inside it would be that one).
  AbsLoc locationAt(uint64_t addr) {
    if (lastObject != objects.end() && holds(lastObject, addr)) {
      auto next = std::next(lastObject);
      if (next == objects.end() || next->first > addr)
        return lastObject->second.loc;
    }
    auto it = objects.upper_bound(addr);
    if (it == objects.begin())
      return kUnknownLoc;
    --it;
    if (!holds(it, addr))
      return kUnknownLoc;
    lastObject = it;
    return it->second.loc;
  }

  void addLoc(AbsLoc l) {
    if (l != kUnknownLoc && std::find(r.locs.begin(), r.locs.end(), l) == r.locs.end())
      r.locs.push_back(l);
  }

  // The state of `I`'s frame. Runs of instances stay in one frame, so the last one
  // found is kept (unordered_map entries do not move).
  FrameState &frameOf(const Instance &I, bool &fresh) {
    fresh = false;
    if (I.frame == cachedFrameId && cachedFrame)
      return *cachedFrame;
    auto [it, made] = frames.try_emplace(I.frame);
    fresh = made;
    cachedFrameId = I.frame;
    cachedFrame = &it->second;
    return it->second;
  }

  uint64_t controlParent(const Instance &I) {
    bool fresh = false;
    FrameState &fs = frameOf(I, fresh);
    if (fresh) {
      fs.calledFromOutside = I.depth > 0 && !lastWasDirectCall;
      fs.callInstance = I.depth > 0 && lastDepth + 1 == I.depth ? lastCall : kNoDef;
    }
    const llvm::BasicBlock *block = I.inst->getParent();
    if (block != fs.block) { // entering a block: branches whose join this is are closed
      while (!fs.open.empty() && fs.open.back().join == block)
        fs.open.pop_back();
      fs.block = block;
    }
    uint64_t parent = fs.open.empty() ? fs.callInstance : fs.open.back().instance;
    return parent;
  }

  void onInstance(const Instance &I) {
    r.clear();
    r.successor = I.successor;
    r.parent = controlParent(I);
    for (const auto &op : I.operands)
      r.defs.push_back(op.def);
    r.operandCount = static_cast<unsigned>(I.operands.size());
    r.defs.insert(r.defs.end(), I.memDefs.begin(), I.memDefs.end());
    if (I.external)
      std::erase_if(callbackReturns, [&](const std::pair<uint32_t, uint64_t> &cb) {
        if (cb.first != I.depth + 1)
          return false;
        r.defs.push_back(cb.second);
        return true;
      });
    // A phi's value depends on which edge entered its block: on the branch that ended
    // the predecessor (`a && b` in a value context at -O0 is branches and a phi).
    bool fresh = false;
    FrameState &fs = frameOf(I, fresh); // controlParent made it
    if (llvm::isa<llvm::PHINode>(I.inst) && fs.lastBranch != kNoDef)
      r.defs.push_back(fs.lastBranch);
    r.readsUnwritten = I.memUnwritten;
    const llvm::Instruction *inst = I.inst;
    r.isBranch = (llvm::isa<llvm::BranchInst>(inst) || llvm::isa<llvm::SwitchInst>(inst)) &&
                 inst->getNumSuccessors() > 1;

    if (llvm::isa<llvm::LoadInst>(inst))
      addLoc(locationAt(I.addr));
    if (auto *al = llvm::dyn_cast<llvm::AllocaInst>(inst))
      addObject(I.addr, I.size, allocaLoc(index.idOf(al)));
    if (I.external) {
      for (const Event &e : I.effects) {
        switch (e.tag) {
        case Ev::MEM_READ:
          addLoc(locationAt(e.a));
          break;
        case Ev::MEM_COPY:
          addLoc(locationAt(e.b));
          break;
        case Ev::HEAP_ALLOC:
          addObject(e.a, e.b, heapLoc(I.id));
          break;
        case Ev::OUTPUT:
          trace.outputs.push_back({I.index, e.a, e.b, e.c, e.d != 0, std::string(e.bytes)});
          if (e.a == 1 || e.a == 2)
            r.isOutput = true;
          break;
        default:
          break;
        }
      }
    }
    if (r.isOutput) {
      trace.previousOutputs[I.index] = lastOutput;
      lastOutput = I.index;
    }
    if (I.crashed)
      trace.crashInstance = I.index;

    if (r.isBranch) {
      // A branch met again (a loop header) restarts its region: close the old one.
      for (size_t k = fs.open.size(); k-- > 0;)
        if (fs.open[k].branch == inst) {
          fs.open.resize(k);
          break;
        }
      fs.open.push_back({I.index, inst, analysis.joinOf(inst)});
    }
    if (r.isBranch)
      fs.lastBranch = I.index;
    // A call into an instrumented function (not an intrinsic, not uninstrumented code).
    lastWasDirectCall = false;
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(inst); call && !I.external) {
      const llvm::Function *f = call->getCalledFunction();
      lastWasDirectCall = !f || !f->isIntrinsic();
    }
    if (lastWasDirectCall)
      lastCall = I.index;
    lastDepth = I.depth;
    if (llvm::isa<llvm::ReturnInst>(inst)) {
      if (fs.calledFromOutside)
        callbackReturns.push_back({I.depth, I.index});
      frames.erase(I.frame);
      cachedFrame = nullptr;
    }
    trace.records.truncate(I.index); // defensive: keep index == position
    if (trace.records.size() < I.index) {
      InstanceDeps none;
      while (trace.records.size() < I.index)
        trace.records.append(0, none);
    }
    trace.records.append(I.id, r);
  }
};

uint64_t dependenceByteCap() { return memoryCap("ROOTLINE_DEPENDENCE_CAP_MB", 4); }

DependenceRecorder::DependenceRecorder(const ModuleIndex &index, const StaticAnalysis &analysis,
                                       uint64_t byteCap)
    : impl_(std::make_unique<Impl>(index, analysis, byteCap)) {}
bool DependenceRecorder::mustStop() const {
  if (!impl_->capped && (impl_->bytes() > impl_->byteCap || impl_->trace.records.full()))
    impl_->capped = true;
  return impl_->capped;
}
bool DependenceRecorder::reachedCap() const { return impl_->capped; }
uint64_t DependenceRecorder::byteCap() const { return impl_->byteCap; }
uint64_t DependenceRecorder::bytes() const { return impl_->bytes(); }
uint64_t DependenceRecorder::usedBytes() const { return impl_->trace.records.usedBytes(); }
std::string DependenceRecorder::capText() const {
  return "its dependence records reached their memory cap of " +
         std::to_string(impl_->byteCap >> 20) + " MiB (ROOTLINE_DEPENDENCE_CAP_MB)";
}
DependenceRecorder::~DependenceRecorder() = default;
void DependenceRecorder::onInstance(const Instance &I) { impl_->onInstance(I); }
void DependenceRecorder::onGlobal(const llvm::GlobalVariable *gv, uint64_t addr, uint64_t size) {
  impl_->addObject(addr, size, gv ? globalLoc(impl_->index.indexOf(gv)) : kUnknownLoc);
}
void DependenceRecorder::onArgv(const ArgvString &a) {
  impl_->addObject(a.addr, a.bytes.size(), kUnknownLoc);
}
DynamicTrace DependenceRecorder::take() { return std::move(impl_->trace); }

} // namespace rootline
