// The replay machine: an LLVM IR interpreter driven by the trace. Control never
// diverges silently: every branch, switch, call target and memory address that the
// trace logged is checked against the recomputation, and a branch that logs nothing
// (silentBranches) by the next event, which its other side could not log.
#include "rootline/replay.h"

#include "rootline/error.h"
#include "trace/shadow.h"
#include "trace/value_ops.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/GetElementPtrTypeIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Operator.h>

#include <csignal>
#include <cstring>
#include <unordered_map>

namespace rootline {

namespace {

struct Slot {
  Val v;
  uint64_t def = kNoDef;
};

// A local replay models itself: its content, the store that wrote it, and where it
// lives (an overflow from a neighbouring object can still write it natively).
struct LocalSlot {
  Val v;
  uint64_t def = kNoDef;
  uint64_t addr = 0;
  uint64_t size = 0;
};

// What replay knows of a function's trace shape, computed once: where its anchored
// locals (anchoredLocals) lie from the first one, once its LAYOUT event has been read,
// and which of its branches log nothing (silentBranches).
struct FunctionFacts {
  llvm::DenseMap<const llvm::AllocaInst *, unsigned> position;
  std::vector<int64_t> offsets; // empty until LAYOUT
  llvm::DenseSet<const llvm::BranchInst *> silent;
  bool anchored() const { return !position.empty(); }
};

// x86-64's va_list: {gp_offset, fp_offset, overflow_arg_area, reg_save_area}.
constexpr uint64_t kVaListBytes = 24;

struct Frame {
  const llvm::Function *fn = nullptr;
  const llvm::BasicBlock *block = nullptr;
  llvm::BasicBlock::const_iterator pc;
  llvm::DenseMap<const llvm::Value *, Slot> slots;
  // Contents of locals that replay models itself (isReplayModelledLocal).
  llvm::DenseMap<const llvm::AllocaInst *, LocalSlot> locals;
  const llvm::CallBase *callSite = nullptr; // null: entered from uninstrumented code
  // A variadic function's extra arguments: where the caller computed them. va_start
  // writes the list natively, so its instance stands for them (va_arg, vprintf).
  llvm::SmallVector<uint64_t, 2> varargDefs;
  uint64_t anchor = 0;            // address of the first anchored local (ENTER_FRAME)
  FunctionFacts *facts = nullptr; // factsOf(fn)
  bool indirect = false;          // the caller logs EXT_RET after we return
  uint64_t id = 0;
  // A call into uninstrumented code in progress, and what it logged so far.
  const llvm::CallBase *pending = nullptr;
  llvm::SmallVector<Operand, 4> pendingArgs;
  std::vector<Event> pendingEffects;
};

// Ends replay at a fatal signal, attributing it to an instruction.
struct CrashStop {
  const llvm::Instruction *inst;
  int signo;
  uint64_t addr = 0;
};
struct RunEnd {
  RunOutcome outcome;
};

class Replayer {
public:
  Replayer(const llvm::Module &m, const ModuleIndex &index, TraceReader &trace,
           ReplayObserver *observer, const ReplayLimits &limits)
      : m_(m), index_(index), dl_(m.getDataLayout()), trace_(trace), observer_(observer),
        limits_(limits), check_(limits_.deadline), globalAddr_(index.globalCount(), 0),
        globalKnown_(index.globalCount(), false) {}

  ReplayResult run() {
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

private:
  // ---- events ---------------------------------------------------------------------

  bool nextEvent(Event &ev) {
    if (!trace_.next(ev))
      return false;
    ++result_.events;
    return true;
  }

  [[noreturn]] void mismatch(const llvm::Instruction *inst, const std::string &what) {
    throw Error("replay mismatch at " + ModuleIndex::describe(inst) + ": " + what, ExitInternal);
  }

  std::string describeEvent(const Event &ev) {
    return std::string(eventName(ev.tag)) + " at trace byte " + std::to_string(ev.offset);
  }

  // The next event, which must be `tag` for instruction `inst`.
  Event expect(Ev tag, const llvm::Instruction *inst, Ev alt = Ev::END) {
    Event ev;
    if (!nextEvent(ev))
      throw RunEnd{RunOutcome::Incomplete};
    while (ev.tag == Ev::EXIT) { // main's return logs the exit status before RET
      result_.exitStatus = static_cast<int>(static_cast<uint32_t>(ev.a));
      sawExit_ = true;
      if (!nextEvent(ev))
        throw RunEnd{RunOutcome::Incomplete};
    }
    if (ev.tag == Ev::SIGNAL)
      throw CrashStop{inst, static_cast<int>(ev.a), ev.b};
    if (ev.tag == Ev::LIMIT)
      throw RunEnd{RunOutcome::Limit};
    if (ev.tag != tag && (alt == Ev::END || ev.tag != alt))
      mismatch(inst, std::string("trace has ") + describeEvent(ev) + ", replay expected " +
                         eventName(tag));
    return ev;
  }

  void expectId(const Event &ev, const llvm::Instruction *inst) {
    if (ev.a != index_.idOf(inst))
      mismatch(inst, describeEvent(ev) + " belongs to instruction " + std::to_string(ev.a) + " (" +
                         ModuleIndex::describe(index_.instruction(static_cast<uint32_t>(ev.a))) +
                         ")");
  }

  // A fatal signal logged right after this instruction is attributed to it (stores
  // and calls log before they act).
  void crashIfSignalNext(const llvm::Instruction *inst) {
    Event ev;
    if (trace_.peek(ev) && ev.tag == Ev::SIGNAL) {
      nextEvent(ev);
      throw CrashStop{inst, static_cast<int>(ev.a), ev.b};
    }
  }

  bool topLevelEvent() {
    Event ev;
    if (!nextEvent(ev)) {
      result_.outcome = RunOutcome::Incomplete;
      return false;
    }
    switch (ev.tag) {
    case Ev::FUNC:
      funcAt_[ev.b] = index_.function(static_cast<uint32_t>(ev.a));
      return true;
    case Ev::GLOBAL:
      if (ev.a < globalAddr_.size()) {
        globalAddr_[ev.a] = ev.b;
        globalKnown_[ev.a] = true;
        if (observer_)
          observer_->onGlobal(index_.global(static_cast<uint32_t>(ev.a)), ev.b, ev.c);
      }
      return true;
    case Ev::ENTER:
    case Ev::ENTER_FRAME:
      enterFromOutside(ev);
      return true;
    case Ev::EXIT:
      result_.exitStatus = static_cast<int>(static_cast<uint32_t>(ev.a));
      sawExit_ = true;
      return true;
    case Ev::END:
      result_.outcome = sawExit_ ? RunOutcome::Exit : RunOutcome::Incomplete;
      return false;
    case Ev::SIGNAL:
      result_.outcome = RunOutcome::Signal;
      result_.signal = static_cast<int>(ev.a);
      result_.faultAddress = ev.b;
      return false;
    case Ev::LIMIT:
      result_.outcome = RunOutcome::Limit;
      return false;
    default:
      noteEffect(ev); // e.g. output from a destructor outside instrumented code
      return true;
    }
  }

  void noteEffect(const Event &ev) {
    // SOURCE names the input source of the next input event; only stdin's count here.
    bool fromStdin = source_ == 0;
    if (ev.tag == Ev::INPUT || ev.tag == Ev::INPUT_CHAR || ev.tag == Ev::TOKEN)
      source_ = 0;
    switch (ev.tag) {
    case Ev::SOURCE:
      source_ = ev.a;
      break;
    case Ev::OPEN:
      result_.opened.push_back({ev.a, std::string(ev.bytes)});
      break;
    case Ev::OUTPUT:
      ++result_.outputEvents;
      if (ev.a == 1)
        result_.stdoutBytes.append(ev.bytes);
      else if (ev.a == 2)
        result_.stderrBytes.append(ev.bytes);
      break;
    case Ev::INPUT:
      if (fromStdin)
        result_.stdinBytes = std::max(result_.stdinBytes, ev.a + ev.c);
      break;
    case Ev::INPUT_CHAR:
      if (fromStdin)
        result_.stdinBytes = std::max(result_.stdinBytes, ev.a + 1);
      break;
    case Ev::TOKEN:
      ++result_.tokens;
      if (fromStdin)
        result_.stdinBytes = std::max(result_.stdinBytes, ev.a + ev.b);
      break;
    default:
      break;
    }
  }

  // ---- frames -----------------------------------------------------------------------

  Frame &pushFrame(const llvm::Function *fn) {
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
  void consumeEntryEvents(const llvm::Function *fn, llvm::SmallVectorImpl<Val> *args) {
    bool logsArgs = logsArguments(*fn);
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
  static uint64_t enteredFunction(const Event &enter) {
    return enter.tag == Ev::ENTER_FRAME ? enter.b : enter.a;
  }

  FunctionFacts &factsOf(const llvm::Function *fn) {
    auto [it, fresh] = facts_.try_emplace(fn);
    if (fresh) {
      std::vector<const llvm::AllocaInst *> anchored = anchoredLocals(*fn);
      for (unsigned i = 0; i < anchored.size(); ++i)
        it->second.position[anchored[i]] = i;
      it->second.silent = silentBranches(*fn, anchored);
    }
    return it->second;
  }

  // The anchor of `fn`'s new frame from its ENTER/ENTER_FRAME, reading the LAYOUT that
  // follows the function's first ENTER_FRAME of the trace.
  uint64_t frameAnchor(const llvm::Function *fn, const Event &enter, const llvm::Instruction *at) {
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

  void enterFromOutside(const Event &enter) {
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

  void enterFromCall(const llvm::Function *fn, const llvm::CallBase *call, bool indirect,
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

  // ---- values -----------------------------------------------------------------------

  Slot operand(Frame &f, const llvm::Value *v) {
    if (auto *c = llvm::dyn_cast<llvm::Constant>(v))
      return {constant(c), kNoDef};
    auto it = f.slots.find(v);
    if (it == f.slots.end()) {
      if (llvm::isa<llvm::MetadataAsValue>(v) || llvm::isa<llvm::BasicBlock>(v) ||
          llvm::isa<llvm::InlineAsm>(v))
        return {};
      throw Error("replay: value used before it was computed in " + f.fn->getName().str(),
                  ExitInternal);
    }
    return it->second;
  }

  uint64_t globalAddress(const llvm::GlobalValue *gv) {
    if (auto *fn = llvm::dyn_cast<llvm::Function>(gv)) {
      for (const auto &[addr, f] : funcAt_)
        if (f == fn)
          return addr;
      throw Error("replay: no address logged for function " + fn->getName().str(), ExitInternal);
    }
    if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(gv)) {
      uint32_t i = index_.indexOf(var);
      if (i < globalKnown_.size() && globalKnown_[i])
        return globalAddr_[i];
      throw Error("replay: no address logged for global " + var->getName().str(), ExitInternal);
    }
    if (auto *alias = llvm::dyn_cast<llvm::GlobalAlias>(gv))
      return constant(alias->getAliasee()).lo;
    throw Error("replay: unsupported global " + gv->getName().str(), ExitInternal);
  }

  Val constant(const llvm::Constant *c) {
    auto it = constants_.find(c);
    if (it != constants_.end())
      return it->second;
    Val v = computeConstant(c);
    constants_[c] = v;
    return v;
  }

  Val computeConstant(const llvm::Constant *c) {
    if (auto *ci = llvm::dyn_cast<llvm::ConstantInt>(c)) {
      const llvm::APInt &ap = ci->getValue();
      Val v;
      v.lo = ap.extractBitsAsZExtValue(std::min(64u, ap.getBitWidth()), 0);
      if (ap.getBitWidth() > 64)
        v.hi = ap.extractBitsAsZExtValue(std::min(64u, ap.getBitWidth() - 64), 64);
      return v;
    }
    if (auto *cf = llvm::dyn_cast<llvm::ConstantFP>(c)) {
      llvm::APInt bits = cf->getValueAPF().bitcastToAPInt();
      Val v;
      v.lo = bits.extractBitsAsZExtValue(std::min(64u, bits.getBitWidth()), 0);
      if (bits.getBitWidth() > 64)
        v.hi = bits.extractBitsAsZExtValue(std::min(64u, bits.getBitWidth() - 64), 64);
      return v;
    }
    if (llvm::isa<llvm::ConstantPointerNull>(c) || llvm::isa<llvm::UndefValue>(c) ||
        llvm::isa<llvm::ConstantAggregateZero>(c) || llvm::isa<llvm::ConstantTokenNone>(c))
      return {};
    if (auto *gv = llvm::dyn_cast<llvm::GlobalValue>(c))
      return {globalAddress(gv), 0};
    if (auto *ce = llvm::dyn_cast<llvm::ConstantExpr>(c))
      return constantExpr(ce);
    if (llvm::isa<llvm::ConstantStruct>(c) || llvm::isa<llvm::ConstantArray>(c) ||
        llvm::isa<llvm::ConstantDataSequential>(c) || llvm::isa<llvm::ConstantVector>(c)) {
      Val image;
      fillImage(c, 0, image);
      return image;
    }
    if (auto *ba = llvm::dyn_cast<llvm::BlockAddress>(c))
      // A label's address (`&&label`): its native value is a code address replay does
      // not know; only computed gotos use it, and they log which label they took.
      return {0xb10c000000000000ull | reinterpret_cast<uintptr_t>(ba->getBasicBlock()), 0};
    throw Error("replay: unsupported constant in the program", ExitInternal);
  }

  void fillImage(const llvm::Constant *c, uint64_t offset, Val &image) {
    llvm::Type *t = c->getType();
    if (t->isStructTy()) {
      const llvm::StructLayout *layout = dl_.getStructLayout(llvm::cast<llvm::StructType>(t));
      for (unsigned i = 0; i < t->getStructNumElements(); ++i)
        fillImage(c->getAggregateElement(i), offset + layout->getElementOffset(i), image);
    } else if (t->isArrayTy() || t->isVectorTy()) {
      llvm::Type *elem = t->isArrayTy() ? t->getArrayElementType()
                                        : llvm::cast<llvm::VectorType>(t)->getElementType();
      uint64_t n = t->isArrayTy() ? t->getArrayNumElements()
                                  : llvm::cast<llvm::FixedVectorType>(t)->getNumElements();
      uint64_t stride = dl_.getTypeAllocSize(elem);
      for (uint64_t i = 0; i < n; ++i)
        fillImage(c->getAggregateElement(static_cast<unsigned>(i)), offset + i * stride, image);
    } else {
      image = ops::insertBytes(image, offset, dl_.getTypeStoreSize(t), constant(c));
    }
  }

  Val constantExpr(const llvm::ConstantExpr *ce) {
    unsigned op = ce->getOpcode();
    if (op == llvm::Instruction::GetElementPtr)
      return {
          gepAddress(llvm::cast<llvm::GEPOperator>(ce),
                     [&](const llvm::Value *v) { return constant(llvm::cast<llvm::Constant>(v)); }),
          0};
    if (ce->isCast())
      return ops::cast(op, ce->getOperand(0)->getType(), ce->getType(), constant(ce->getOperand(0)),
                       dl_);
    if (llvm::Instruction::isBinaryOp(op)) {
      ops::Fault fault;
      return ops::intBinary(op, ops::scalarBits(ce->getType(), dl_), constant(ce->getOperand(0)),
                            constant(ce->getOperand(1)), fault);
    }
    throw Error(std::string("replay: unsupported constant expression ") + ce->getOpcodeName(),
                ExitInternal);
  }

  template <typename ValueOf> uint64_t gepAddress(const llvm::GEPOperator *gep, ValueOf valueOf) {
    uint64_t addr = valueOf(gep->getPointerOperand()).lo;
    for (auto gti = llvm::gep_type_begin(gep), e = llvm::gep_type_end(gep); gti != e; ++gti) {
      const llvm::Value *idxV = gti.getOperand();
      unsigned bits = ops::scalarBits(idxV->getType(), dl_);
      int64_t idx = static_cast<int64_t>(ops::signedOf(valueOf(idxV), bits));
      if (llvm::StructType *st = gti.getStructTypeOrNull()) {
        addr += dl_.getStructLayout(st)->getElementOffset(static_cast<unsigned>(idx));
      } else {
        addr += static_cast<uint64_t>(idx) * gti.getSequentialElementStride(dl_).getFixedValue();
      }
    }
    return addr;
  }

  // ---- instances --------------------------------------------------------------------

  Instance &begin(Frame &f, const llvm::Instruction *inst) {
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

  Operand use(Frame &f, Instance &I, const llvm::Value *v) {
    Slot s = operand(f, v);
    I.operands.push_back({s.v, s.def});
    return I.operands.back();
  }

  void finish(Frame &f, Instance &I, bool defines = true) {
    if (defines && !I.inst->getType()->isVoidTy())
      f.slots[I.inst] = {I.result, I.index};
    report(I);
  }

  // The faulting instruction becomes the last instance, marked `crashed`, with the
  // operands it had when it faulted (a call into libc: its arguments).
  void reportCrash(const llvm::Instruction *inst) {
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

  void report(const Instance &I) {
    reported_ = true;
    lastReported_ = I.index;
    lastInst_ = I.inst;
    ++result_.instances;
    if (observer_)
      observer_->onInstance(I);
    if (limits_.progress && result_.instances % limits_.progressPeriod == 0)
      limits_.progress(result_.instances);
    if (check_.tick() || (check_.due() && observer_ && !observer_->wantsMore()))
      if (!I.crashed)
        throw RunEnd{RunOutcome::Stopped};
  }

  // ---- stepping ---------------------------------------------------------------------

  void jump(Frame &f, const llvm::BasicBlock *target) {
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

  void step() {
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
    case llvm::Instruction::Ret:
      return stepReturn(f, llvm::cast<llvm::ReturnInst>(inst));
    case llvm::Instruction::Call:
      return stepCall(f, llvm::cast<llvm::CallInst>(inst));
    case llvm::Instruction::GetElementPtr: {
      Instance &I = begin(f, inst);
      for (const llvm::Use &u : inst->operands())
        use(f, I, u.get());
      I.result = {gepAddress(llvm::cast<llvm::GEPOperator>(inst),
                             [&](const llvm::Value *v) { return operand(f, v).v; }),
                  0};
      break;
    }
    case llvm::Instruction::ICmp: {
      Instance &I = begin(f, inst);
      auto *cmp = llvm::cast<llvm::ICmpInst>(inst);
      requireScalar(inst, cmp->getOperand(0)->getType());
      Val a = use(f, I, cmp->getOperand(0)).value, b = use(f, I, cmp->getOperand(1)).value;
      I.result = {ops::intCompare(cmp->getPredicate(),
                                  ops::scalarBits(cmp->getOperand(0)->getType(), dl_), a, b),
                  0};
      break;
    }
    case llvm::Instruction::FCmp: {
      Instance &I = begin(f, inst);
      auto *cmp = llvm::cast<llvm::FCmpInst>(inst);
      requireFloat(inst, cmp->getOperand(0)->getType());
      Val a = use(f, I, cmp->getOperand(0)).value, b = use(f, I, cmp->getOperand(1)).value;
      I.result = {ops::floatCompare(cmp->getPredicate(), cmp->getOperand(0)->getType(), a, b), 0};
      break;
    }
    case llvm::Instruction::Select: {
      Instance &I = begin(f, inst);
      requireScalar(inst, inst->getOperand(0)->getType());
      Val c = use(f, I, inst->getOperand(0)).value;
      Val t = use(f, I, inst->getOperand(1)).value, e = use(f, I, inst->getOperand(2)).value;
      I.result = (c.lo & 1) ? t : e;
      break;
    }
    case llvm::Instruction::Freeze: {
      Instance &I = begin(f, inst);
      I.result = use(f, I, inst->getOperand(0)).value;
      break;
    }
    case llvm::Instruction::FNeg: {
      Instance &I = begin(f, inst);
      requireFloat(inst, inst->getType());
      I.result = ops::floatNeg(inst->getType(), use(f, I, inst->getOperand(0)).value);
      break;
    }
    case llvm::Instruction::ExtractValue: {
      Instance &I = begin(f, inst);
      auto *ev = llvm::cast<llvm::ExtractValueInst>(inst);
      Val agg = use(f, I, ev->getAggregateOperand()).value;
      uint64_t off = aggregateOffset(ev->getAggregateOperand()->getType(), ev->getIndices());
      I.result = ops::extractBytes(agg, off, dl_.getTypeStoreSize(ev->getType()));
      break;
    }
    case llvm::Instruction::InsertValue: {
      Instance &I = begin(f, inst);
      auto *iv = llvm::cast<llvm::InsertValueInst>(inst);
      Val agg = use(f, I, iv->getAggregateOperand()).value;
      Val part = use(f, I, iv->getInsertedValueOperand()).value;
      uint64_t off = aggregateOffset(iv->getType(), iv->getIndices());
      I.result = ops::insertBytes(
          agg, off, dl_.getTypeStoreSize(iv->getInsertedValueOperand()->getType()), part);
      break;
    }
    case llvm::Instruction::IndirectBr: {
      auto *ib = llvm::cast<llvm::IndirectBrInst>(inst);
      Instance &I = begin(f, ib);
      use(f, I, ib->getAddress());
      Event ev = expect(Ev::SWITCH, ib);
      if (ev.a >= ib->getNumDestinations())
        mismatch(ib, "the computed goto's target is none of its destinations");
      I.successor = static_cast<uint32_t>(ev.a);
      finish(f, I);
      jump(f, ib->getDestination(I.successor));
      return;
    }
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
      if (inst->isCast()) {
        Instance &I = begin(f, inst);
        requireScalar(inst, inst->getType());
        Val v = use(f, I, inst->getOperand(0)).value;
        I.result =
            ops::cast(inst->getOpcode(), inst->getOperand(0)->getType(), inst->getType(), v, dl_);
        break;
      }
      throw Error(std::string("replay: unsupported instruction `") + inst->getOpcodeName() +
                      "` at " + ModuleIndex::describe(inst),
                  ExitInternal);
    }
    finish(f, cur_);
    ++f.pc;
  }

  void requireScalar(const llvm::Instruction *inst, const llvm::Type *t) {
    if (t->isVectorTy() || t->isStructTy() || t->isArrayTy() ||
        (t->isIntegerTy() && t->getIntegerBitWidth() > 128))
      throw Error("replay: unsupported vector or aggregate operation at " +
                      ModuleIndex::describe(inst),
                  ExitInternal);
  }
  void requireFloat(const llvm::Instruction *inst, const llvm::Type *t) {
    if (!ops::isSupportedFloat(t))
      throw Error("replay: unsupported floating-point type at " + ModuleIndex::describe(inst),
                  ExitInternal);
  }

  uint64_t aggregateOffset(llvm::Type *t, llvm::ArrayRef<unsigned> indices) {
    uint64_t off = 0;
    for (unsigned i : indices) {
      if (auto *st = llvm::dyn_cast<llvm::StructType>(t)) {
        off += dl_.getStructLayout(st)->getElementOffset(i);
        t = st->getElementType(i);
      } else {
        llvm::Type *elem = t->isArrayTy() ? t->getArrayElementType()
                                          : llvm::cast<llvm::VectorType>(t)->getElementType();
        off += i * dl_.getTypeAllocSize(elem);
        t = elem;
      }
    }
    if (off + dl_.getTypeStoreSize(t) > 16)
      throw Error("replay: aggregate value wider than 16 bytes is not supported", ExitInternal);
    return off;
  }

  void stepBinary(Frame &f, const llvm::Instruction *inst) {
    Instance &I = begin(f, inst);
    llvm::Type *t = inst->getType();
    Val a = use(f, I, inst->getOperand(0)).value, b = use(f, I, inst->getOperand(1)).value;
    if (t->isFloatingPointTy()) {
      requireFloat(inst, t);
      I.result = ops::floatBinary(inst->getOpcode(), t, a, b);
    } else {
      requireScalar(inst, t);
      ops::Fault fault;
      I.result = ops::intBinary(inst->getOpcode(), ops::scalarBits(t, dl_), a, b, fault);
      if (fault != ops::Fault::None) {
        Event ev;
        if (nextEvent(ev) && ev.tag == Ev::SIGNAL)
          throw CrashStop{inst, static_cast<int>(ev.a), ev.b};
        mismatch(inst, "replay computed a division trap but the native run did not stop here");
      }
    }
    finish(f, I);
    ++f.pc;
  }

  void stepAlloca(Frame &f, const llvm::AllocaInst *al) {
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
    bool local = isReplayModelledLocal(al);
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

  // A logged write of [addr, addr+len) by instance `writer`. Where it lands on a local
  // replay models itself (an overflow from a neighbouring object: such locals are never
  // addressed otherwise), the local takes the bytes: `value` (a store's value),
  // `fill` (a memset's byte), or, when replay cannot know them (a libc call's write),
  // it keeps its old bytes and the run is named in clobberedLocals; a later branch
  // that depends on them then ends replay as a mismatch.
  void written(uint64_t addr, uint64_t len, uint64_t writer, const Val *value = nullptr,
               int fill = -1) {
    if (!shadow_.set(addr, len, writer))
      return;
    for (Frame &frame : stack_)
      for (auto &[al, slot] : frame.locals) {
        uint64_t lo = std::max(addr, slot.addr), hi = std::min(addr + len, slot.addr + slot.size);
        if (lo >= hi)
          continue;
        unsigned char bytes[16] = {}, in[16] = {};
        std::memcpy(bytes, &slot.v.lo, 8);
        std::memcpy(bytes + 8, &slot.v.hi, 8);
        if (value) {
          std::memcpy(in, &value->lo, 8);
          std::memcpy(in + 8, &value->hi, 8);
        }
        bool known = value || fill >= 0;
        for (uint64_t b = lo; b < hi && b - slot.addr < 16; ++b)
          if (known)
            bytes[b - slot.addr] =
                value && b - addr < 16 ? in[b - addr] : static_cast<unsigned char>(fill);
        if (known) {
          std::memcpy(&slot.v.lo, bytes, 8);
          std::memcpy(&slot.v.hi, bytes + 8, 8);
        }
        slot.def = writer;
        shadow_.set(slot.addr, slot.size, kModelledLocalMark);
        std::string name = ModuleIndex::describe(al);
        result_.clobberedLocals.push_back(
            name +
            (known ? " overwritten by instance " : " overwritten (bytes unknown) by instance ") +
            std::to_string(writer));
      }
  }

  // The stores of the modelled locals that [addr, addr+len) overlaps.
  void localWriters(uint64_t addr, uint64_t len, llvm::SmallVectorImpl<uint64_t> &out) {
    for (const Frame &frame : stack_)
      for (const auto &[al, slot] : frame.locals)
        if (std::max(addr, slot.addr) < std::min(addr + len, slot.addr + slot.size) &&
            slot.def != kNoDef && std::find(out.begin(), out.end(), slot.def) == out.end())
          out.push_back(slot.def);
  }

  static Val bytesToVal(std::string_view bytes) {
    unsigned char buf[16] = {};
    std::memcpy(buf, bytes.data(), std::min<size_t>(16, bytes.size()));
    Val v;
    std::memcpy(&v.lo, buf, 8);
    std::memcpy(&v.hi, buf + 8, 8);
    return v;
  }

  void stepLoad(Frame &f, const llvm::LoadInst *ld) {
    Instance &I = begin(f, ld);
    uint64_t addr = use(f, I, ld->getPointerOperand()).value.lo;
    I.addr = addr;
    I.size = dl_.getTypeStoreSize(ld->getType());
    if (auto *al = llvm::dyn_cast<llvm::AllocaInst>(ld->getPointerOperand());
        al && isReplayModelledLocal(al)) {
      const LocalSlot &content = f.locals[al];
      I.result =
          ops::truncTo(content.v, static_cast<unsigned>(std::min<uint64_t>(128, I.size * 8)));
      if (content.def != kNoDef)
        I.memDefs.push_back(content.def);
      else
        I.memUnwritten = true;
    } else {
      Event ev = expect(Ev::LOAD, ld, Ev::LOAD_WIDE);
      if (ev.a != addr)
        mismatch(ld, "trace loads from 0x" + llvm::utohexstr(ev.a) + ", replay computed 0x" +
                         llvm::utohexstr(addr));
      I.result =
          ev.tag == Ev::LOAD
              ? ops::truncTo({ev.b, 0}, static_cast<unsigned>(std::min<uint64_t>(64, I.size * 8)))
              : bytesToVal(ev.bytes);
      bool local = false;
      I.memUnwritten = shadow_.writers(addr, I.size, I.memDefs, &local);
      if (local) // read past a neighbour into a modelled local: its store is the writer
        localWriters(addr, I.size, I.memDefs);
    }
    finish(f, I);
    ++f.pc;
  }

  void stepStore(Frame &f, const llvm::StoreInst *st) {
    Instance &I = begin(f, st);
    Val value = use(f, I, st->getValueOperand()).value;
    uint64_t addr = use(f, I, st->getPointerOperand()).value.lo;
    I.addr = addr;
    I.size = dl_.getTypeStoreSize(st->getValueOperand()->getType());
    if (auto *al = llvm::dyn_cast<llvm::AllocaInst>(st->getPointerOperand());
        al && isReplayModelledLocal(al)) {
      LocalSlot &slot = f.locals[al];
      slot.v = value;
      slot.def = I.index;
    } else {
      Event ev = expect(Ev::STORE, st);
      if (ev.a != addr)
        mismatch(st, "trace stores to 0x" + llvm::utohexstr(ev.a) + ", replay computed 0x" +
                         llvm::utohexstr(addr));
      crashIfSignalNext(st);
      written(addr, I.size, I.index, &value);
    }
    finish(f, I);
    ++f.pc;
  }

  // atomicrmw and cmpxchg: the write is logged before (STORE), the old value after
  // (LOAD); the new value is recomputed.
  void stepAtomic(Frame &f, const llvm::Instruction *inst) {
    Instance &I = begin(f, inst);
    auto *rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(inst);
    auto *cx = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(inst);
    const llvm::Value *ptr = rmw ? rmw->getPointerOperand() : cx->getPointerOperand();
    llvm::Type *type = rmw ? rmw->getType() : cx->getNewValOperand()->getType();
    requireScalar(inst, type);
    uint64_t addr = use(f, I, ptr).value.lo;
    Val operand = use(f, I, rmw ? rmw->getValOperand() : cx->getCompareOperand()).value;
    Val replacement = cx ? use(f, I, cx->getNewValOperand()).value : Val{};
    I.addr = addr;
    I.size = dl_.getTypeStoreSize(type);
    Event st = expect(Ev::STORE, inst);
    if (st.a != addr)
      mismatch(inst, "trace writes 0x" + llvm::utohexstr(st.a) + ", replay computed 0x" +
                         llvm::utohexstr(addr));
    crashIfSignalNext(inst);
    Event ld = expect(Ev::LOAD, inst, Ev::LOAD_WIDE);
    unsigned bits = ops::scalarBits(type, dl_);
    Val old =
        ld.tag == Ev::LOAD ? ops::truncTo({ld.b, 0}, std::min(64u, bits)) : bytesToVal(ld.bytes);
    I.memUnwritten = shadow_.writers(addr, I.size, I.memDefs);
    bool writes = true;
    Val now = old;
    if (rmw) {
      now = atomicResult(rmw, type, bits, old, operand);
      I.result = old;
    } else {
      writes = ops::truncTo(old, bits) == ops::truncTo(operand, bits);
      now = replacement;
      uint64_t flagOffset =
          dl_.getStructLayout(llvm::cast<llvm::StructType>(cx->getType()))->getElementOffset(1);
      I.result = ops::insertBytes(old, flagOffset, 1, {writes ? 1u : 0u, 0});
    }
    if (writes)
      written(addr, I.size, I.index, &now);
    finish(f, I);
    ++f.pc;
  }

  Val atomicResult(const llvm::AtomicRMWInst *rmw, llvm::Type *type, unsigned bits, Val old,
                   Val v) {
    using Op = llvm::AtomicRMWInst::BinOp;
    ops::Fault fault;
    auto binary = [&](unsigned opcode) { return ops::intBinary(opcode, bits, old, v, fault); };
    switch (rmw->getOperation()) {
    case Op::Xchg:
      return v;
    case Op::Add:
      return binary(llvm::Instruction::Add);
    case Op::Sub:
      return binary(llvm::Instruction::Sub);
    case Op::And:
      return binary(llvm::Instruction::And);
    case Op::Or:
      return binary(llvm::Instruction::Or);
    case Op::Xor:
      return binary(llvm::Instruction::Xor);
    case Op::Nand:
      return ops::truncTo(ops::fromU128(~ops::toU128(binary(llvm::Instruction::And))), bits);
    case Op::Max:
    case Op::Min: {
      __int128 a = ops::signedOf(old, bits), b = ops::signedOf(v, bits);
      return (rmw->getOperation() == Op::Max ? a >= b : a <= b) ? old : v;
    }
    case Op::UMax:
    case Op::UMin: {
      ops::u128 a = ops::toU128(ops::truncTo(old, bits)), b = ops::toU128(ops::truncTo(v, bits));
      return (rmw->getOperation() == Op::UMax ? a >= b : a <= b) ? old : v;
    }
    case Op::FAdd:
      return ops::floatBinary(llvm::Instruction::FAdd, type, old, v);
    case Op::FSub:
      return ops::floatBinary(llvm::Instruction::FSub, type, old, v);
    default:
      throw Error(std::string("replay: unsupported atomicrmw operation at ") +
                      ModuleIndex::describe(rmw),
                  ExitInternal);
    }
  }

  void stepBranch(Frame &f, const llvm::BranchInst *br) {
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
      mismatch(br, std::string("native run took the ") +
                       (ev.tag == Ev::BR_TRUE ? "true" : "false") + " branch, replay computed " +
                       (cond ? "true" : "false"));
    I.successor = cond ? 0 : 1;
    finish(f, I);
    jump(f, br->getSuccessor(I.successor));
  }

  void stepSwitch(Frame &f, const llvm::SwitchInst *sw) {
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

  void stepReturn(Frame &f, const llvm::ReturnInst *ret) {
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

  // ---- calls ------------------------------------------------------------------------

  void stepCall(Frame &f, const llvm::CallInst *call) {
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

  void pendingEvent() {
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
  bool longjmpTo(Frame &f, const Event &ret) {
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

  void finishExternal(Frame &f, const Event &ret) {
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

  void stepIntrinsic(Frame &f, const llvm::CallInst *call, llvm::Intrinsic::ID iid) {
    Instance &I = begin(f, call);
    for (const llvm::Use &arg : call->args())
      use(f, I, arg.get());
    auto arg = [&](unsigned i) { return I.operands[i].value; };
    unsigned bits = call->getType()->isVoidTy() || call->getType()->isStructTy()
                        ? 0
                        : ops::scalarBits(call->getType(), dl_);
    switch (iid) {
    case llvm::Intrinsic::memcpy:
    case llvm::Intrinsic::memmove:
    case llvm::Intrinsic::memcpy_inline: {
      Event ev = expect(Ev::MEM_COPY, call);
      if (ev.a != arg(0).lo || ev.b != arg(1).lo || ev.c != arg(2).lo)
        mismatch(call, "memcpy operands differ from the trace");
      shadow_.writers(ev.b, ev.c, I.memDefs);
      written(ev.a, ev.c, I.index);
      I.addr = ev.a;
      I.size = ev.c;
      break;
    }
    case llvm::Intrinsic::memset:
    case llvm::Intrinsic::memset_inline: {
      Event ev = expect(Ev::MEM_SET, call);
      if (ev.a != arg(0).lo || ev.c != arg(2).lo)
        mismatch(call, "memset operands differ from the trace");
      written(ev.a, ev.c, I.index, nullptr, static_cast<int>(ev.b & 0xff));
      I.addr = ev.a;
      I.size = ev.c;
      break;
    }
    case llvm::Intrinsic::vastart:
      // The va_list is written natively (offsets, the register save area's address),
      // from the variadic arguments.
      written(arg(0).lo, kVaListBytes, I.index);
      I.memDefs.assign(f.varargDefs.begin(), f.varargDefs.end());
      break;
    case llvm::Intrinsic::vacopy:
      shadow_.writers(arg(1).lo, kVaListBytes, I.memDefs);
      written(arg(0).lo, kVaListBytes, I.index);
      break;
    case llvm::Intrinsic::lifetime_start:
    case llvm::Intrinsic::lifetime_end:
    case llvm::Intrinsic::stacksave:
    case llvm::Intrinsic::stackrestore:
    case llvm::Intrinsic::vaend:
    case llvm::Intrinsic::assume:
    case llvm::Intrinsic::donothing:
    case llvm::Intrinsic::experimental_noalias_scope_decl:
      break; // no value replay needs (stacksave's pointer only flows to stackrestore)
    case llvm::Intrinsic::expect:
      I.result = arg(0);
      break;
    case llvm::Intrinsic::abs: {
      __int128 v = ops::signedOf(arg(0), bits);
      I.result = ops::truncTo(ops::fromU128(static_cast<ops::u128>(v < 0 ? -v : v)), bits);
      break;
    }
    case llvm::Intrinsic::smax:
    case llvm::Intrinsic::smin: {
      __int128 a = ops::signedOf(arg(0), bits), b = ops::signedOf(arg(1), bits);
      bool takeA = iid == llvm::Intrinsic::smax ? a >= b : a <= b;
      I.result = takeA ? ops::truncTo(arg(0), bits) : ops::truncTo(arg(1), bits);
      break;
    }
    case llvm::Intrinsic::umax:
    case llvm::Intrinsic::umin: {
      ops::u128 a = ops::toU128(ops::truncTo(arg(0), bits)),
                b = ops::toU128(ops::truncTo(arg(1), bits));
      bool takeA = iid == llvm::Intrinsic::umax ? a >= b : a <= b;
      I.result = ops::fromU128(takeA ? a : b);
      break;
    }
    case llvm::Intrinsic::ctpop:
      I.result = {
          static_cast<uint64_t>(__builtin_popcountll(arg(0).lo) + __builtin_popcountll(arg(0).hi)),
          0};
      break;
    case llvm::Intrinsic::bswap: {
      ops::u128 v = ops::toU128(ops::truncTo(arg(0), bits)), r = 0;
      for (unsigned i = 0; i < bits / 8; ++i)
        r = (r << 8) | ((v >> (8 * i)) & 0xff);
      I.result = ops::fromU128(r);
      break;
    }
    case llvm::Intrinsic::ctlz:
    case llvm::Intrinsic::cttz: {
      ops::u128 v = ops::toU128(ops::truncTo(arg(0), bits));
      unsigned n = 0;
      if (iid == llvm::Intrinsic::ctlz)
        while (n < bits && !((v >> (bits - 1 - n)) & 1))
          ++n;
      else
        while (n < bits && !((v >> n) & 1))
          ++n;
      I.result = {n, 0};
      break;
    }
    case llvm::Intrinsic::fmuladd:
      requireFloat(call, call->getType());
      I.result = ops::floatBinary(
          llvm::Instruction::FAdd, call->getType(),
          ops::floatBinary(llvm::Instruction::FMul, call->getType(), arg(0), arg(1)), arg(2));
      break;
    case llvm::Intrinsic::sadd_with_overflow:
    case llvm::Intrinsic::uadd_with_overflow:
    case llvm::Intrinsic::ssub_with_overflow:
    case llvm::Intrinsic::usub_with_overflow:
    case llvm::Intrinsic::smul_with_overflow:
    case llvm::Intrinsic::umul_with_overflow: {
      llvm::Type *elem = llvm::cast<llvm::StructType>(call->getType())->getElementType(0);
      unsigned w = ops::scalarBits(elem, dl_);
      bool isSigned = iid == llvm::Intrinsic::sadd_with_overflow ||
                      iid == llvm::Intrinsic::ssub_with_overflow ||
                      iid == llvm::Intrinsic::smul_with_overflow;
      unsigned opcode =
          (iid == llvm::Intrinsic::sadd_with_overflow || iid == llvm::Intrinsic::uadd_with_overflow)
              ? llvm::Instruction::Add
          : (iid == llvm::Intrinsic::ssub_with_overflow ||
             iid == llvm::Intrinsic::usub_with_overflow)
              ? llvm::Instruction::Sub
              : llvm::Instruction::Mul;
      ops::Fault fault;
      Val r = ops::intBinary(opcode, w, arg(0), arg(1), fault);
      bool overflow;
      if (w > 64)
        throw Error("replay: 128-bit overflow intrinsics are not supported", ExitInternal);
      if (isSigned) {
        __int128 a = ops::signedOf(arg(0), w), b = ops::signedOf(arg(1), w);
        __int128 exact = opcode == llvm::Instruction::Add   ? a + b
                         : opcode == llvm::Instruction::Sub ? a - b
                                                            : a * b;
        overflow = exact != ops::signedOf(r, w);
      } else {
        ops::u128 a = ops::toU128(ops::truncTo(arg(0), w)),
                  b = ops::toU128(ops::truncTo(arg(1), w));
        ops::u128 exact = opcode == llvm::Instruction::Add   ? a + b
                          : opcode == llvm::Instruction::Sub ? a - b
                                                             : a * b;
        overflow = opcode == llvm::Instruction::Sub ? a < b : exact != ops::toU128(r);
      }
      uint64_t flagOffset =
          dl_.getStructLayout(llvm::cast<llvm::StructType>(call->getType()))->getElementOffset(1);
      I.result = ops::insertBytes(r, flagOffset, 1, {overflow ? 1u : 0u, 0});
      break;
    }
    case llvm::Intrinsic::is_fpclass:
      I.result = {ops::floatClass(call->getArgOperand(0)->getType(), arg(0),
                                  static_cast<unsigned>(arg(1).lo)),
                  0};
      break;
    case llvm::Intrinsic::trap:
    case llvm::Intrinsic::debugtrap:
    case llvm::Intrinsic::ubsantrap: {
      Event ev;
      if (nextEvent(ev) && ev.tag == Ev::SIGNAL)
        throw CrashStop{call, static_cast<int>(ev.a), ev.b};
      mismatch(call, "trap did not stop the native run");
    }
    default: {
      Val vals[3];
      for (size_t i = 0; i < I.operands.size() && i < 3; ++i)
        vals[i] = I.operands[i].value;
      if (!call->getType()->isVoidTy() &&
          !ops::floatIntrinsic(iid, call->getType(), vals, I.result))
        throw Error("replay: unsupported intrinsic " + call->getCalledFunction()->getName().str() +
                        " at " + ModuleIndex::describe(call),
                    ExitInternal);
      break;
    }
    }
    finish(f, I);
    ++f.pc;
  }

  const llvm::Module &m_;
  const ModuleIndex &index_;
  const llvm::DataLayout &dl_;
  TraceReader &trace_;
  ReplayObserver *observer_;
  const ReplayLimits &limits_;
  DeadlineCheck check_;
  std::vector<Frame> stack_;
  std::vector<uint64_t> globalAddr_;
  std::vector<bool> globalKnown_;
  llvm::DenseMap<uint64_t, const llvm::Function *> funcAt_;
  // Node-stable: frames point into it.
  std::unordered_map<const llvm::Function *, FunctionFacts> facts_;
  llvm::DenseMap<const llvm::Constant *, Val> constants_;
  WriterShadow shadow_;
  Instance cur_;
  uint64_t nextIndex_ = 0;
  uint64_t frameCounter_ = 0;
  bool sawExit_ = false;
  uint64_t source_ = 0; // the input source named by the last SOURCE event
  bool reported_ = false;
  uint64_t lastReported_ = 0;
  const llvm::Instruction *lastInst_ = nullptr;
  ReplayResult result_;
};

} // namespace

ReplayResult replayTrace(const llvm::Module &module, const ModuleIndex &index, TraceReader &trace,
                         ReplayObserver *observer, const ReplayLimits &limits) {
  return Replayer(module, index, trace, observer, limits).run();
}

} // namespace rootline
