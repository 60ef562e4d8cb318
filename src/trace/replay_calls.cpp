// Calls: into instrumented functions (a new frame) and into uninstrumented code, whose
// events (callbacks, input, output, memory it read and wrote) are gathered until its
// EXT_RET and then applied to the writer shadow; longjmp back into a setjmp's frame.
#include "trace/replayer.h"

#include "rootline/error.h"

namespace rootline::replay {

void Replayer::stepCall(Frame &f, const llvm::CallInst *call) {
  const llvm::Function *callee = call->getCalledFunction();
  bool indirect = callee == nullptr;
  if (indirect && !call->isInlineAsm()) {
    uint64_t target = operand(f, call->getCalledOperand()).v.lo;
    auto it = funcAt_.find(target);
    callee = it == funcAt_.end() ? nullptr : it->second;
  }
  if (callee && callee->isIntrinsic())
    return stepIntrinsic(f, call, callee->getIntrinsicID());

  Instance &I = begin(f, call);
  for (const llvm::Use &arg : call->args())
    use(f, I, arg.get());
  if (indirect && !call->isInlineAsm())
    use(f, I, call->getCalledOperand());
  if (callee && !callee->isDeclaration()) {
    llvm::SmallVector<Operand, 4> args(I.operands.begin(), I.operands.begin() + call->arg_size());
    report(I);
    enterFromCall(callee, call, indirect, args);
    return;
  }
  // A call into uninstrumented code: its events follow until its EXT_RET. Its
  // instance is numbered when it completes, after any callbacks it made.
  --nextIndex_;
  f.pending = call;
  f.pendingArgs.assign(I.operands.begin(), I.operands.end());
  f.pendingEffects.clear();
  ++result_.externalCalls;
}

void Replayer::pendingEvent() {
  Frame &f = stack_.back();
  Event ev;
  if (!nextEvent(ev))
    throw RunEnd{RunOutcome::Incomplete};
  switch (ev.tag) {
  case Ev::ENTER:
  case Ev::ENTER_FRAME:
    enterFromOutside(ev);
    return;
  case Ev::EXT_RET:
  case Ev::EXT_RET_WIDE:
    if (ev.a != index_.idOf(f.pending))
      if (longjmpTo(f, ev))
        return;
    return finishExternal(f, ev);
  case Ev::SIGNAL:
    throw CrashStop{f.pending, static_cast<int>(ev.a), ev.b};
  case Ev::EXIT:
    result_.exitStatus = static_cast<int>(static_cast<uint32_t>(ev.a));
    sawExit_ = true;
    return;
  case Ev::END:
    throw RunEnd{sawExit_ ? RunOutcome::Exit : RunOutcome::Incomplete};
  case Ev::LIMIT:
    throw RunEnd{RunOutcome::Limit};
  case Ev::EXEC: { // the image is replaced, unless the exec failed and the call returns
    Event after;
    if (!trace_.peek(after))
      throw RunEnd{RunOutcome::Exec};
    return;
  }
  case Ev::INPUT:
  case Ev::INPUT_CHAR:
  case Ev::TOKEN:
  case Ev::MEM_TOKEN:
  case Ev::OUTPUT:
  case Ev::MEM_READ:
  case Ev::MEM_WRITE:
  case Ev::MEM_COPY:
  case Ev::MEM_SET:
  case Ev::HEAP_ALLOC:
  case Ev::HEAP_FREE:
  case Ev::CONCRETIZED:
  case Ev::SOURCE:
  case Ev::OPEN:
    noteEffect(ev);
    f.pendingEffects.push_back(ev);
    return;
  default:
    mismatch(f.pending,
             "unexpected " + describeEvent(ev) + " during a call into uninstrumented code");
  }
}

// A longjmp returns at a setjmp call: the pending longjmp becomes an instance of its
// own, the frames above the setjmp's are abandoned, and the setjmp call completes
// (a second time) with the value longjmp gave. False when `ret` is not that.
bool Replayer::longjmpTo(Frame &f, const Event &ret) {
  const llvm::Function *pendingCallee = f.pending->getCalledFunction();
  if (!pendingCallee || !isLongjmpLike(pendingCallee->getName()))
    return false;
  auto *target = llvm::dyn_cast_or_null<llvm::CallInst>(
      const_cast<llvm::Instruction *>(index_.instruction(static_cast<uint32_t>(ret.a))));
  if (!target || !target->getCalledFunction() ||
      !isSetjmpLike(target->getCalledFunction()->getName()))
    return false;
  // Of several frames of the setjmp's function (recursion), the one RESUME names;
  // a function without anchored locals logs none: its innermost frame.
  const llvm::Function *fn = target->getFunction();
  bool named = factsOf(fn).anchored();
  Event resume;
  if (named && !(trace_.peek(resume) && resume.tag == Ev::RESUME))
    mismatch(target, "no RESUME names the frame this longjmp returns in");
  size_t at = stack_.size();
  while (at > 0 && (stack_[at - 1].fn != fn || (named && stack_[at - 1].anchor != resume.a)))
    --at;
  if (at == 0)
    mismatch(f.pending, "longjmp to a setjmp in no active frame");
  // The longjmp call itself, as it was made.
  Instance &J = begin(f, f.pending);
  J.operands.assign(f.pendingArgs.begin(), f.pendingArgs.end());
  J.external = true;
  J.effects = std::move(f.pendingEffects);
  f.pending = nullptr;
  report(J);
  while (stack_.size() > at) {
    for (const auto &[al, slot] : stack_.back().locals)
      shadow_.set(slot.addr, slot.size, kNoDef);
    stack_.pop_back();
  }
  Frame &resumed = stack_.back();
  resumed.block = target->getParent();
  resumed.pc = target->getIterator();
  resumed.pending = target;
  resumed.pendingArgs.clear();
  resumed.pendingEffects.clear();
  finishExternal(resumed, ret);
  return true;
}

void Replayer::finishExternal(Frame &f, const Event &ret) {
  const llvm::CallBase *call = f.pending;
  expectId(ret, call);
  Instance &I = begin(f, call);
  I.operands.assign(f.pendingArgs.begin(), f.pendingArgs.end());
  I.external = true;
  I.effects = std::move(f.pendingEffects);
  f.pendingEffects.clear();
  if (ret.tag == Ev::EXT_RET) {
    I.result = call->getType()->isVoidTy()
                   ? Val{}
                   : ops::truncTo({ret.b, 0}, ops::scalarBits(call->getType(), dl_));
  } else {
    I.result = bytesToVal(ret.bytes);
  }
  externalWrites(I, call);
  f.pending = nullptr;
  finish(f, I);
  ++f.pc;
  const llvm::Function *callee = call->getCalledFunction();
  if (callee && isSetjmpLike(callee->getName()) && f.facts->anchored()) {
    Event ev = expect(Ev::RESUME, call);
    if (ev.a != f.anchor)
      mismatch(call, "setjmp returns in another frame than replay's");
  }
}

// A completed call into uninstrumented code in the writer shadow: the writers of what
// it read become its definitions, and what it wrote is its own.
void Replayer::externalWrites(Instance &I, const llvm::CallBase *call) {
  // Reads first (they see the memory before the call's writes), then writes.
  for (const Event &e : I.effects) {
    if (e.tag == Ev::MEM_READ)
      I.memUnwritten |= shadow_.writers(e.a, e.b, I.memDefs);
    else if (e.tag == Ev::MEM_COPY)
      I.memUnwritten |= shadow_.writers(e.b, e.c, I.memDefs);
  }
  for (const Event &e : I.effects) {
    switch (e.tag) {
    case Ev::MEM_WRITE:
      written(e.a, e.b, I.index);
      break;
    case Ev::MEM_COPY:
      written(e.a, e.c, I.index);
      break;
    case Ev::MEM_SET:
      written(e.a, e.c, I.index, nullptr, static_cast<int>(e.b & 0xff));
      break;
    case Ev::INPUT:
      written(e.b, e.c, I.index);
      break;
    case Ev::TOKEN:
      written(e.c, e.d, I.index);
      break;
    case Ev::MEM_TOKEN: // address 0: the parsed number is the call's result
      if (e.c)
        written(e.c, e.d, I.index);
      break;
    case Ev::HEAP_ALLOC:
      break;
    default:
      break;
    }
  }
  // Inline asm's memory outputs (`"=m"(x)`: an operand with an element type) are
  // written where replay cannot see it.
  if (call->isInlineAsm())
    for (unsigned a = 0; a < call->arg_size() && a < I.operands.size(); ++a)
      if (llvm::Type *t = call->getParamElementType(a); t && t->isSized())
        written(I.operands[a].value.lo, dl_.getTypeStoreSize(t), I.index);
}

} // namespace rootline::replay
