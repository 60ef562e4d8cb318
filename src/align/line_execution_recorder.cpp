// Cuts a replayed run into line executions and gives each its execution index
// (include/rootline/alignment.h). One pass, constant work per instance; only the lines
// asked for are logged, so memory follows the slice, not the run.
#include "rootline/alignment.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>

#include <memory>

namespace rootline {

namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  // splitmix64's finaliser over a running sum: cheap and well spread.
  uint64_t z = h + 0x9e3779b97f4a7c15ull + v;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int64_t signExtended(uint64_t v, unsigned bits) {
  if (bits == 0 || bits >= 64)
    return static_cast<int64_t>(v);
  unsigned shift = 64 - bits;
  return static_cast<int64_t>(v << shift) >> shift;
}

constexpr size_t kNone = ~size_t{0};

// The dynamic indices of an address computation, for the store that uses it.
struct ElementIndex {
  uint64_t digest = 0;
  int64_t shown = 0;
};

// A block as execution indexing sees it: how many loops hold it, and whether it is the
// header of the innermost (entering it starts an iteration).
struct BlockShape {
  unsigned loopDepth = 0;
  const llvm::Loop *header = nullptr; // the loop it heads, if any
  // The loop it heads, as both versions can name it: the header's first line and whether
  // the header decides (a `while`'s condition) or only jumps on (a `goto` label's block
  // that jumps into the `while` below it carries that `while`'s line). Iteration k of one
  // loop never meets iteration k of another loop on the same line.
  uint32_t signature = 0;
};

struct Activation {
  uint64_t frame = 0;
  uint32_t depth = 0;
  uint64_t context = 0;       // the execution index of the call that opened it
  uint64_t calleeContext = 0; // the caller's, its callee's name and that callee's calls
  llvm::DenseMap<uint64_t, uint32_t> calleeCalls; // calls made to each callee, by name digest
  const llvm::BasicBlock *block = nullptr;        // the block executing now
  const llvm::Instruction *last = nullptr;        // the activation's last instance
  unsigned loopDepth = 0;                         // of `block`
  std::vector<uint32_t> iteration{0};             // by loop depth: the current iteration
  std::vector<uint32_t> loop{0}; // by loop depth: the signature of the loop (BlockShape)
  // By loop depth: how often each line ran in the current iteration of its loop (the
  // activation, at depth 0).
  std::vector<llvm::DenseMap<AlignedLine, uint32_t>> runs{1};
  llvm::DenseMap<AlignedLine, uint32_t> activationRuns; // each line's runs in the activation
  AlignedLine line = 0;                                 // the line executing now
  uint64_t current = 0;                                 // its execution index
  uint64_t calleeCurrent = 0; // its index by callee (LineExecution::calleeIndex)
  uint32_t calls = 0;         // calls made so far by the current execution
  uint32_t opened = 0;        // activations it opened so far (callbacks of one call included)
  size_t record = kNone;      // its position in the log, when logged
  // Its effects so far: a callee's executions come between them, and each
  // execution's effects go into the log together when it ends.
  std::vector<LineEffect> effects;
  std::vector<LineInput> inputs;
  llvm::DenseMap<const llvm::Instruction *, ElementIndex> elements;
};

} // namespace

struct LineExecutionRecorder::Impl {
  const ModuleIndex &index;
  std::function<AlignedLine(const llvm::Instruction *)> lineOf;
  std::function<bool(AlignedLine)> wanted;
  const std::vector<bool> *slice;
  LineExecutionRecorder::FunctionName functionName;
  llvm::DenseMap<const llvm::Function *, uint64_t> functionDigests;
  // Per instruction id: its line, and whether that line is logged (0: not asked yet).
  std::vector<AlignedLine> lines;
  std::vector<uint8_t> state; // 0 unknown, 1 not logged, 2 logged
  llvm::DenseMap<const llvm::BasicBlock *, AlignedLine> blockLines;
  llvm::DenseMap<const llvm::BasicBlock *, BlockShape> shapes;
  // Loops per function, computed when the function first runs.
  struct FunctionLoops {
    llvm::DominatorTree dom;
    llvm::LoopInfo loops;
    explicit FunctionLoops(const llvm::Function &f)
        : dom(const_cast<llvm::Function &>(f)), loops(dom) {}
  };
  llvm::DenseMap<const llvm::Function *, std::unique_ptr<FunctionLoops>> functionLoops;
  std::vector<Activation> stack;
  ExecutionLog log;
  uint64_t byteCap;
  bool capped = false;

  Impl(const ModuleIndex &i, std::function<AlignedLine(const llvm::Instruction *)> l,
       std::function<bool(AlignedLine)> w, const std::vector<bool> *s,
       LineExecutionRecorder::FunctionName f, uint64_t cap)
      : index(i), lineOf(std::move(l)), wanted(std::move(w)), slice(s), functionName(std::move(f)),
        lines(i.instructionCount(), 0), state(i.instructionCount(), 0), byteCap(cap) {}

  // What the log fills (its arrays' room beyond is address space until used).
  uint64_t bytes() const {
    return log.executions.size() * sizeof(LineExecution) + log.effects.size() * sizeof(LineEffect) +
           log.inputs.size() * sizeof(LineInput);
  }

  uint64_t functionDigest(const llvm::Function *f) {
    auto [it, fresh] = functionDigests.try_emplace(f, 0);
    if (fresh)
      it->second = std::hash<std::string>{}(functionName ? functionName(f) : f->getName().str());
    return it->second;
  }

  // The activation's current execution is over: its effects join the log.
  void close(Activation &a) {
    if (a.record != kNone) {
      LineExecution &e = log.executions[a.record];
      e.effectBegin = static_cast<uint32_t>(log.effects.size());
      e.effectCount = static_cast<uint32_t>(a.effects.size());
      log.effects.append(a.effects.begin(), a.effects.end());
      e.inputBegin = static_cast<uint32_t>(log.inputs.size());
      e.inputCount = static_cast<uint32_t>(a.inputs.size());
      log.inputs.append(a.inputs.begin(), a.inputs.end());
    }
    a.effects.clear();
    a.inputs.clear();
    a.record = kNone;
  }

  void pop() {
    close(stack.back());
    stack.pop_back();
  }

  Activation &activationOf(const Instance &I) {
    while (!stack.empty() && stack.back().depth > I.depth)
      pop();
    if (!stack.empty() && stack.back().frame != I.frame && stack.back().depth == I.depth)
      pop();
    if (stack.empty() || stack.back().frame != I.frame) {
      uint64_t context = 0, calleeContext = 0;
      if (!stack.empty()) {
        Activation &caller = stack.back();
        // `opened` tells apart the activations one call opens: a comparator that
        // bsearch or qsort calls again and again is a new context each time.
        context = mix(mix(caller.current, caller.calls), caller.opened++);
        uint64_t callee = functionDigest(I.inst->getFunction());
        calleeContext = mix(mix(caller.calleeContext, callee), ++caller.calleeCalls[callee]);
      }
      stack.emplace_back();
      stack.back().frame = I.frame;
      stack.back().depth = I.depth;
      stack.back().context = context;
      stack.back().calleeContext = calleeContext;
    }
    return stack.back();
  }

  // Replay gives each instance its instruction's id: no lookup by pointer per instance.
  bool logged(const Instance &I, AlignedLine &line) {
    if (I.id >= state.size())
      return false;
    line = lineAt(I.id, I.inst);
    return state[I.id] == 2;
  }

  AlignedLine lineAt(const llvm::Instruction *inst) { return lineAt(index.idOf(inst), inst); }

  AlignedLine lineAt(uint32_t id, const llvm::Instruction *inst) {
    if (id >= state.size())
      return 0;
    if (state[id] == 0) {
      lines[id] = lineOf(inst);
      state[id] = lines[id] != 0 && wanted(lines[id]) ? 2 : 1;
    }
    return lines[id];
  }

  // The first line a block leads to: its first instruction with a source line, through
  // blocks that only jump on (a few), cached per block. A block that is one jump goes
  // on whatever line the jump carries: the fall-through into a `goto` label's block has
  // the line of the statement before the label, which is where it leads in neither run.
  AlignedLine firstLineOf(const llvm::BasicBlock *bb) {
    auto [it, fresh] = blockLines.try_emplace(bb, 0);
    if (!fresh)
      return it->second;
    AlignedLine found = 0;
    for (int hops = 0; bb && hops < 4 && !found; ++hops) {
      const llvm::BasicBlock *next = nullptr;
      if (auto *br = llvm::dyn_cast<llvm::BranchInst>(bb->getFirstNonPHIOrDbg());
          br && br->isUnconditional() && br->getSuccessor(0) != bb) {
        bb = br->getSuccessor(0);
        continue;
      }
      for (const llvm::Instruction &inst : *bb) {
        if ((found = lineAt(&inst)))
          break;
        if (auto *br = llvm::dyn_cast<llvm::BranchInst>(&inst); br && br->isUnconditional())
          next = br->getSuccessor(0);
      }
      bb = next;
    }
    return blockLines[it->first] = found;
  }

  void addEffect(Activation &a, const LineEffect &effect) { a.effects.push_back(effect); }

  void effectsOf(const Instance &I, uint64_t first, Activation &a) {
    const llvm::Instruction *inst = I.inst;
    if (auto *gep = llvm::dyn_cast<llvm::GetElementPtrInst>(inst)) {
      ElementIndex ei;
      bool dynamic = false;
      for (unsigned k = 1; k < I.operands.size() && k < gep->getNumOperands(); ++k) {
        ei.digest = mix(ei.digest, I.operands[k].value.lo);
        if (!dynamic && !llvm::isa<llvm::Constant>(gep->getOperand(k))) {
          dynamic = true;
          ei.shown = signExtended(I.operands[k].value.lo,
                                  gep->getOperand(k)->getType()->getScalarSizeInBits());
        }
      }
      if (dynamic)
        a.elements[inst] = ei;
      return;
    }
    if (auto *load = llvm::dyn_cast<llvm::LoadInst>(inst)) {
      if (a.inputs.size() < kMaxLineInputs)
        a.inputs.push_back({I.result, load->getType()->isPointerTy(), inst});
      return;
    }
    // Values this execution did not compute: code before it did (an earlier line of the
    // statement, a call's result). Addresses and phis say nothing here.
    if (!llvm::isa<llvm::PHINode>(inst))
      for (unsigned k = 0; k < I.operands.size() && k < inst->getNumOperands(); ++k) {
        const Operand &op = I.operands[k];
        if (op.def == kNoDef || op.def >= first || inst->getOperand(k)->getType()->isPointerTy() ||
            !llvm::isa<llvm::Instruction>(inst->getOperand(k)))
          continue;
        if (a.inputs.size() < kMaxLineInputs)
          a.inputs.push_back({op.value, false, nullptr});
      }
    LineEffect effect;
    effect.inst = inst;
    effect.instance = I.index;
    if (auto *store = llvm::dyn_cast<llvm::StoreInst>(inst)) {
      if (I.operands.empty())
        return;
      effect.kind = LineEffect::Store;
      effect.value = I.operands[0].value;
      effect.pointer = store->getValueOperand()->getType()->isPointerTy();
      // Every dynamic index along the address (`acc[i].id`, `m[r][c]`); the one
      // nearest the variable is shown.
      const llvm::Value *p = store->getPointerOperand()->stripPointerCasts();
      for (int hops = 0; hops < 8; ++hops) {
        auto *g = llvm::dyn_cast<llvm::GetElementPtrInst>(p);
        if (!g)
          break;
        auto it = a.elements.find(g);
        if (it != a.elements.end()) {
          effect.indexed = true;
          effect.element = mix(effect.element, it->second.digest);
          effect.shownIndex = it->second.shown;
        }
        p = g->getPointerOperand()->stripPointerCasts();
      }
      addEffect(a, effect);
    } else if (auto *br = llvm::dyn_cast<llvm::BranchInst>(inst)) {
      if (br->isUnconditional())
        return;
      effect.kind = LineEffect::Branch;
      effect.value.lo = I.successor;
      effect.taken = firstLineOf(br->getSuccessor(I.successor));
      effect.other = firstLineOf(br->getSuccessor(1 - I.successor));
      addEffect(a, effect);
    } else if (auto *sw = llvm::dyn_cast<llvm::SwitchInst>(inst)) {
      effect.kind = LineEffect::Branch;
      effect.value.lo = I.successor;
      if (I.successor < sw->getNumSuccessors())
        effect.taken = firstLineOf(sw->getSuccessor(I.successor));
      addEffect(a, effect);
    } else if (auto *ret = llvm::dyn_cast<llvm::ReturnInst>(inst)) {
      if (!ret->getReturnValue() || I.operands.empty())
        return;
      effect.kind = LineEffect::Return;
      effect.value = I.operands[0].value;
      effect.pointer = ret->getReturnValue()->getType()->isPointerTy();
      addEffect(a, effect);
    } else if (auto *call = llvm::dyn_cast<llvm::CallBase>(inst)) {
      // An intrinsic computes (fmuladd for `a * b + c`) or copies; what it computes
      // shows where the result is stored.
      if (const llvm::Function *f = call->getCalledFunction(); f && f->isIntrinsic())
        return;
      effect.kind = LineEffect::Call;
      addEffect(a, effect);
      effect.kind = LineEffect::Argument;
      for (unsigned k = 0; k < call->arg_size() && k < I.operands.size(); ++k) {
        effect.ordinal = k;
        effect.value = I.operands[k].value;
        effect.pointer = call->getArgOperand(k)->getType()->isPointerTy();
        effect.constantString = false;
        if (auto text = constantStringOf(call->getArgOperand(k))) {
          effect.pointer = false;
          effect.constantString = true;
          effect.value = {std::hash<std::string>{}(*text), 0};
        }
        addEffect(a, effect);
      }
    }
  }

  const BlockShape &shapeOf(const llvm::BasicBlock *bb) {
    auto [it, fresh] = shapes.try_emplace(bb);
    if (fresh) {
      auto &fl = functionLoops[bb->getParent()];
      if (!fl)
        fl = std::make_unique<FunctionLoops>(*bb->getParent());
      BlockShape shape;
      shape.loopDepth = fl->loops.getLoopDepth(bb);
      if (fl->loops.isLoopHeader(bb)) {
        shape.header = fl->loops.getLoopFor(bb);
        AlignedLine first = 0;
        for (const llvm::Instruction &inst : *bb)
          if ((first = lineAt(&inst)) != 0)
            break;
        const llvm::Instruction *end = bb->getTerminator();
        auto *br = llvm::dyn_cast_or_null<llvm::BranchInst>(end);
        bool decides = (br && br->isConditional()) || llvm::isa_and_nonnull<llvm::SwitchInst>(end);
        shape.signature = static_cast<uint32_t>(mix(first, decides ? 1 : 2));
      }
      shapes[bb] = shape;
      return shapes[bb];
    }
    return it->second;
  }

  // Entering a block (from another, or from its own end): a loop header starts an
  // iteration, the first when control came from outside the loop; the lines of that
  // loop count their runs afresh.
  void enter(Activation &a, const llvm::BasicBlock *bb) {
    const BlockShape &shape = shapeOf(bb);
    if (shape.header) {
      unsigned d = shape.loopDepth;
      if (a.iteration.size() <= d) {
        a.iteration.resize(d + 1, 0);
        a.loop.resize(d + 1, 0);
        a.runs.resize(d + 1);
      }
      bool again = a.block && shape.header->contains(a.block);
      a.iteration[d] = again ? a.iteration[d] + 1 : 1;
      a.loop[d] = shape.signature;
      for (size_t k = d; k < a.runs.size(); ++k)
        a.runs[k].clear();
      for (size_t k = d + 1; k < a.iteration.size(); ++k)
        a.iteration[k] = 0;
    }
    a.block = bb;
    a.loopDepth = shape.loopDepth;
    if (a.runs.size() <= a.loopDepth) {
      a.runs.resize(a.loopDepth + 1);
      a.iteration.resize(a.loopDepth + 1, 0);
      a.loop.resize(a.loopDepth + 1, 0);
    }
  }

  void onInstance(const Instance &I) {
    Activation &a = activationOf(I);
    const llvm::BasicBlock *bb = I.inst->getParent();
    if (bb != a.block || (a.last && a.last == bb->getTerminator()))
      enter(a, bb);
    a.last = I.inst;
    AlignedLine line = 0;
    bool log_ = logged(I, line);
    if (line != 0 && line != a.line) {
      close(a);
      a.line = line;
      // The execution index: the activation, the iteration of each loop around the
      // line, the line, and its runs in the innermost iteration.
      // The loops' signatures key the execution itself, not the context its calls pass
      // on: a call inside a loop the change reshaped still opens the callee's
      // activation that the other run's k-th iteration opened.
      uint64_t where = a.context, calleeWhere = a.calleeContext;
      for (unsigned d = 1; d <= a.loopDepth; ++d) {
        where = mix(where, a.iteration[d]);
        calleeWhere = mix(calleeWhere, a.iteration[d]);
      }
      uint32_t run = ++a.runs[a.loopDepth][line];
      uint32_t inActivation = ++a.activationRuns[line];
      a.current = mix(mix(where, line), run);
      a.calleeCurrent = mix(mix(calleeWhere, line), run);
      a.calls = 0;
      a.opened = 0;
      if (log_) {
        uint64_t nest = a.loopDepth;
        for (unsigned d = 1; d <= a.loopDepth; ++d)
          nest = mix(nest, a.loop[d]);
        LineExecution e;
        e.index = mix(a.current, nest);
        e.calleeIndex = mix(a.calleeCurrent, nest);
        e.activationIndex = mix(mix(a.context, line), inActivation);
        e.loopNest = static_cast<uint32_t>(nest);
        e.line = line;
        e.occurrence = run;
        e.iteration = a.loopDepth ? a.iteration[a.loopDepth] : 0;
        e.first = I.index;
        a.record = log.executions.size();
        log.executions.push_back(e);
      }
    }
    if (a.record != kNone) {
      LineExecution &e = log.executions[a.record];
      e.last = I.index;
      if (slice && I.index < slice->size() && (*slice)[I.index])
        e.inSlice = true;
      effectsOf(I, e.first, a);
    }
    // A call into instrumented code opens an activation whose context is this one.
    if (!I.external && llvm::isa<llvm::CallBase>(I.inst))
      ++a.calls;
  }
};

LineExecutionRecorder::LineExecutionRecorder(
    const ModuleIndex &index, std::function<AlignedLine(const llvm::Instruction *)> lineOf,
    std::function<bool(AlignedLine)> wanted, const std::vector<bool> *slice,
    FunctionName functionName, uint64_t byteCap)
    : impl_(std::make_unique<Impl>(index, std::move(lineOf), std::move(wanted), slice,
                                   std::move(functionName), byteCap)) {}

uint64_t executionLogByteCap() { return memoryCap("ROOTLINE_ALIGN_CAP_MB", 8); }

bool LineExecutionRecorder::mustStop() const {
  if (!impl_->capped && impl_->bytes() > impl_->byteCap)
    impl_->capped = true;
  return impl_->capped;
}

bool LineExecutionRecorder::reachedCap() const { return impl_->capped; }

std::string LineExecutionRecorder::capText() const {
  return "its execution log reached its memory cap of " + std::to_string(impl_->byteCap >> 20) +
         " MiB (ROOTLINE_ALIGN_CAP_MB)";
}

LineExecutionRecorder::~LineExecutionRecorder() = default;

void LineExecutionRecorder::onInstance(const Instance &I) { impl_->onInstance(I); }

ExecutionLog LineExecutionRecorder::take() {
  // Every activation below the innermost waits for a call that never returned.
  for (size_t k = 0; k + 1 < impl_->stack.size(); ++k)
    if (size_t r = impl_->stack[k].record; r != kNone)
      impl_->log.executions[r].unfinished = true;
  while (!impl_->stack.empty())
    impl_->pop();
  return std::move(impl_->log);
}

} // namespace rootline
