// Frames: entering a function from a call or from uninstrumented code (its logged
// arguments, argv), the anchored locals placed from the frame's anchor by the function's
// LAYOUT, the locals replay models itself, and returning to the caller.
#include "trace/replayer.h"

#include "rootline/error.h"

namespace rootline::replay {

Frame &Replayer::pushFrame(const llvm::Function *fn) {
  if (stack_.size() > 1000000)
    throw Error("replay: call depth exceeds one million frames", ExitInternal);
  stack_.emplace_back();
  Frame &f = stack_.back();
  f.fn = fn;
  f.facts = &factsOf(fn);
  f.block = &fn->getEntryBlock();
  f.pc = f.block->begin();
  f.id = ++frameCounter_;
  return f;
}

// Arguments of a function that may be called from uninstrumented code are logged
// after its ENTER; main's argv strings follow as ARGV events.
void Replayer::consumeEntryEvents(const llvm::Function *fn, llvm::SmallVectorImpl<Val> *args) {
  bool logsArgs = factsOf(fn).logsArguments;
  if (logsArgs)
    for (size_t i = 0; i < fn->arg_size(); ++i) {
      Event ev = expect(Ev::ARG, &*fn->getEntryBlock().begin());
      if (args)
        args->push_back(ops::truncTo({ev.a, 0}, ops::scalarBits(fn->getArg(i)->getType(), dl_)));
    }
  Event ev;
  while (trace_.peek(ev) && ev.tag == Ev::ARGV) {
    nextEvent(ev);
    result_.argv.push_back({ev.a, ev.b, std::string(ev.bytes)});
    if (observer_)
      observer_->onArgv(result_.argv.back());
  }
}

// ENTER logs the function; ENTER_FRAME also its anchored locals' first address.
uint64_t Replayer::enteredFunction(const Event &enter) {
  return enter.tag == Ev::ENTER_FRAME ? enter.b : enter.a;
}

FunctionFacts &Replayer::factsOf(const llvm::Function *fn) {
  auto [it, fresh] = facts_.try_emplace(fn);
  if (fresh) {
    std::vector<const llvm::AllocaInst *> anchored = anchoredLocals(*fn);
    for (unsigned i = 0; i < anchored.size(); ++i)
      it->second.position[anchored[i]] = i;
    it->second.silent = silentBranches(*fn, anchored);
    it->second.logsArguments = logsArguments(*fn);
  }
  return it->second;
}

// The anchor of `fn`'s new frame from its ENTER/ENTER_FRAME, reading the LAYOUT that
// follows the function's first ENTER_FRAME of the trace.
uint64_t Replayer::frameAnchor(const llvm::Function *fn, const Event &enter,
                               const llvm::Instruction *at) {
  FunctionFacts &facts = factsOf(fn);
  bool framed = enter.tag == Ev::ENTER_FRAME;
  if (framed != facts.anchored())
    mismatch(at, describeEvent(enter) + (framed ? " places locals " : " places no locals ") +
                     "of " + fn->getName().str() + ", replay expected otherwise");
  Event ev;
  if (!framed || !trace_.peek(ev) || ev.tag != Ev::LAYOUT || ev.a != enteredFunction(enter))
    return enter.a;
  nextEvent(ev);
  std::vector<int64_t> offsets = layoutOffsets(ev);
  if (offsets.size() != facts.position.size())
    mismatch(at, describeEvent(ev) + " places " + std::to_string(offsets.size()) +
                     " locals, replay expected " + std::to_string(facts.position.size()));
  facts.offsets = std::move(offsets);
  return enter.a;
}

void Replayer::enterFromOutside(const Event &enter) {
  uint64_t fnId = enteredFunction(enter);
  const llvm::Function *fn = index_.function(static_cast<uint32_t>(fnId));
  if (!fn || fn->isDeclaration())
    throw Error("replay: trace enters unknown function #" + std::to_string(fnId), ExitInternal);
  uint64_t anchor = frameAnchor(fn, enter, &*fn->getEntryBlock().begin());
  llvm::SmallVector<Val, 4> args;
  consumeEntryEvents(fn, &args);
  if (args.size() != fn->arg_size())
    throw Error("replay: function " + fn->getName().str() +
                    " entered from uninstrumented code without "
                    "its arguments logged",
                ExitInternal);
  Frame &f = pushFrame(fn);
  f.anchor = anchor;
  for (size_t i = 0; i < args.size(); ++i)
    f.slots[fn->getArg(i)] = {args[i], kNoDef};
}

void Replayer::enterFromCall(const llvm::Function *fn, const llvm::CallBase *call, bool indirect,
                             const llvm::SmallVectorImpl<Operand> &args) {
  Event ev = expect(Ev::ENTER, call, Ev::ENTER_FRAME);
  if (enteredFunction(ev) != index_.indexOf(fn)) {
    const llvm::Function *other = index_.function(static_cast<uint32_t>(enteredFunction(ev)));
    mismatch(call, "trace enters " + (other ? other->getName().str() : "an unknown function") +
                       ", replay calls " + fn->getName().str());
  }
  uint64_t anchor = frameAnchor(fn, ev, call);
  llvm::SmallVector<Val, 4> logged;
  consumeEntryEvents(fn, &logged);
  Frame &f = pushFrame(fn);
  f.anchor = anchor;
  f.callSite = call;
  f.indirect = indirect;
  for (size_t i = fn->arg_size(); fn->isVarArg() && i < args.size(); ++i)
    if (args[i].def != kNoDef && !llvm::is_contained(f.varargDefs, args[i].def))
      f.varargDefs.push_back(args[i].def);
  for (size_t i = 0; i < fn->arg_size() && i < args.size(); ++i) {
    f.slots[fn->getArg(i)] = {args[i].value, args[i].def};
    // A struct passed by value: the callee reads the copy the native call made, at an
    // address only the trace knows; its bytes are the caller's.
    if (fn->getArg(i)->hasByValAttr() && i < logged.size()) {
      uint64_t size = dl_.getTypeAllocSize(fn->getArg(i)->getParamByValType());
      shadow_.copy(logged[i].lo, args[i].value.lo, size);
      f.slots[fn->getArg(i)] = {logged[i], kNoDef}; // not the caller's pointer
    }
  }
}

void Replayer::stepAlloca(Frame &f, const llvm::AllocaInst *al) {
  Instance &I = begin(f, al);
  if (al->isArrayAllocation())
    use(f, I, al->getArraySize());
  const FunctionFacts &layout = *f.facts;
  if (auto it = layout.position.find(al); it != layout.position.end()) {
    // Placed from the frame's anchor; stored before it is first read, so its
    // initial bytes do not matter.
    if (layout.offsets.size() <= it->second) {
      expect(Ev::LAYOUT, al); // ends replay if the trace ended or a signal came first
      mismatch(al, "no LAYOUT placed this local at its function's entry");
    }
    I.addr = f.anchor + static_cast<uint64_t>(layout.offsets[it->second]);
    I.size = dl_.getTypeAllocSize(al->getAllocatedType()).getFixedValue();
    I.result = {I.addr, 0};
    f.locals[al] = {Val{}, kNoDef, I.addr, I.size};
    shadow_.set(I.addr, I.size, kModelledLocalMark);
    finish(f, I);
    ++f.pc;
    return;
  }
  bool local = index_.modelledLocal(al);
  Event ev = expect(local ? Ev::ALLOCA_LOCAL : Ev::ALLOCA, al);
  I.addr = ev.a;
  I.size = ev.b;
  I.result = {ev.a, 0};
  if (local) {
    f.locals[al] = {bytesToVal(ev.bytes), kNoDef, ev.a, ev.b}; // possibly uninitialised
    shadow_.set(ev.a, ev.b, kModelledLocalMark);
  } else {
    shadow_.set(ev.a, ev.b, kNoDef); // fresh storage, no definition yet
  }
  finish(f, I);
  ++f.pc;
}

void Replayer::stepReturn(Frame &f, const llvm::ReturnInst *ret) {
  Instance &I = begin(f, ret);
  if (ret->getReturnValue())
    I.result = use(f, I, ret->getReturnValue()).value;
  Event ev = expect(Ev::RET, ret);
  if (ev.a != index_.indexOf(f.fn))
    mismatch(ret, "trace returns from another function");
  report(I);
  const llvm::CallBase *site = f.callSite;
  bool indirect = f.indirect;
  Val value = I.result;
  uint64_t def = I.index;
  for (const auto &[al, slot] : f.locals)
    shadow_.set(slot.addr, slot.size, kNoDef);
  stack_.pop_back();
  if (!site)
    return; // back to uninstrumented code (a callback) or the top level
  Frame &caller = stack_.back();
  if (!site->getType()->isVoidTy())
    caller.slots[site] = {value, def};
  if (indirect) {
    Event done = expect(Ev::EXT_RET, site, Ev::EXT_RET_WIDE);
    expectId(done, site);
  }
  ++caller.pc;
}

} // namespace rootline::replay
