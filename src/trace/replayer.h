// The replay machine's state, shared by its parts (private to src/trace): an LLVM IR
// interpreter driven by the trace, its frames, its writer shadow of memory and the
// events it matches against what it recomputes.
//
// Replayer's member functions are defined by idea:
//   replay.cpp             the replay loop: instances, stepping, control flow
//   replay_events.cpp      reading and matching trace events, effects outside calls
//   replay_values.cpp      operands, constants, and the values instructions compute
//   replay_frames.cpp      frames: entry, arguments, anchored locals, return
//   replay_memory.cpp      loads, stores, atomics and the writer shadow of memory
//   replay_calls.cpp       calls, into uninstrumented code too (libc effects, longjmp)
//   replay_intrinsics.cpp  intrinsics
#pragma once

#include "rootline/replay.h"
#include "trace/shadow.h"
#include "trace/value_ops.h"

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/GetElementPtrTypeIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Operator.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rootline::replay {

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
// which of its branches log nothing (silentBranches), and whether its entry logs its
// arguments (logsArguments walks every use of the function: not once per call).
struct FunctionFacts {
  llvm::DenseMap<const llvm::AllocaInst *, unsigned> position;
  std::vector<int64_t> offsets; // empty until LAYOUT
  llvm::DenseSet<const llvm::BranchInst *> silent;
  bool logsArguments = false;
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

  ReplayResult run();

private:
  // ---- events (replay_events.cpp) -----------------------------------------------------

  // Here, as use() below: called for every event and every operand.
  bool nextEvent(Event &ev) {
    if (!trace_.next(ev))
      return false;
    ++result_.events;
    return true;
  }
  [[noreturn]] void mismatch(const llvm::Instruction *inst, const std::string &what);
  std::string describeEvent(const Event &ev);
  Event expect(Ev tag, const llvm::Instruction *inst, Ev alt = Ev::END);
  void expectId(const Event &ev, const llvm::Instruction *inst);
  void crashIfSignalNext(const llvm::Instruction *inst);
  bool topLevelEvent();
  void noteEffect(const Event &ev);

  // ---- frames (replay_frames.cpp) -----------------------------------------------------

  Frame &pushFrame(const llvm::Function *fn);
  void consumeEntryEvents(const llvm::Function *fn, llvm::SmallVectorImpl<Val> *args);
  static uint64_t enteredFunction(const Event &enter);
  FunctionFacts &factsOf(const llvm::Function *fn);
  uint64_t frameAnchor(const llvm::Function *fn, const Event &enter, const llvm::Instruction *at);
  void enterFromOutside(const Event &enter);
  void enterFromCall(const llvm::Function *fn, const llvm::CallBase *call, bool indirect,
                     const llvm::SmallVectorImpl<Operand> &args);
  void stepAlloca(Frame &f, const llvm::AllocaInst *al);
  void stepReturn(Frame &f, const llvm::ReturnInst *ret);

  // ---- values (replay_values.cpp) -----------------------------------------------------

  Slot operand(Frame &f, const llvm::Value *v);
  uint64_t globalAddress(const llvm::GlobalValue *gv);
  Val constant(const llvm::Constant *c);
  Val computeConstant(const llvm::Constant *c);
  void fillImage(const llvm::Constant *c, uint64_t offset, Val &image);
  Val constantExpr(const llvm::ConstantExpr *ce);
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
  void stepValue(Frame &f, const llvm::Instruction *inst);
  void computeCompare(Frame &f, const llvm::Instruction *inst);
  void computeAggregate(Frame &f, const llvm::Instruction *inst);
  void requireScalar(const llvm::Instruction *inst, const llvm::Type *t);
  void requireFloat(const llvm::Instruction *inst, const llvm::Type *t);
  uint64_t aggregateOffset(llvm::Type *t, llvm::ArrayRef<unsigned> indices);
  void stepBinary(Frame &f, const llvm::Instruction *inst);

  // ---- instances and stepping (replay.cpp) --------------------------------------------

  Instance &begin(Frame &f, const llvm::Instruction *inst);
  Operand use(Frame &f, Instance &I, const llvm::Value *v) {
    Slot s = operand(f, v);
    I.operands.push_back({s.v, s.def});
    return I.operands.back();
  }
  void finish(Frame &f, Instance &I, bool defines = true);
  void reportCrash(const llvm::Instruction *inst);
  void report(const Instance &I);
  void step();
  void jump(Frame &f, const llvm::BasicBlock *target);
  void stepBranch(Frame &f, const llvm::BranchInst *br);
  void stepSwitch(Frame &f, const llvm::SwitchInst *sw);
  void stepIndirectBr(Frame &f, const llvm::IndirectBrInst *ib);

  // ---- memory (replay_memory.cpp) -----------------------------------------------------

  void written(uint64_t addr, uint64_t len, uint64_t writer, const Val *value = nullptr,
               int fill = -1);
  void localWriters(uint64_t addr, uint64_t len, llvm::SmallVectorImpl<uint64_t> &out);
  static Val bytesToVal(std::string_view bytes);
  void stepLoad(Frame &f, const llvm::LoadInst *ld);
  void stepStore(Frame &f, const llvm::StoreInst *st);
  void stepAtomic(Frame &f, const llvm::Instruction *inst);
  Val atomicResult(const llvm::AtomicRMWInst *rmw, llvm::Type *type, unsigned bits, Val old, Val v);

  // ---- calls (replay_calls.cpp) -------------------------------------------------------

  void stepCall(Frame &f, const llvm::CallInst *call);
  void pendingEvent();
  bool longjmpTo(Frame &f, const Event &ret);
  void finishExternal(Frame &f, const Event &ret);
  void externalWrites(Instance &I, const llvm::CallBase *call);

  // ---- intrinsics (replay_intrinsics.cpp) ---------------------------------------------

  void stepIntrinsic(Frame &f, const llvm::CallInst *call, llvm::Intrinsic::ID iid);
  bool memoryIntrinsic(Frame &f, Instance &I, const llvm::CallInst *call, llvm::Intrinsic::ID iid);
  bool integerIntrinsic(Instance &I, const llvm::CallInst *call, llvm::Intrinsic::ID iid,
                        unsigned bits);
  void overflowIntrinsic(Instance &I, const llvm::CallInst *call, llvm::Intrinsic::ID iid);
  void otherIntrinsic(Instance &I, const llvm::CallInst *call, llvm::Intrinsic::ID iid);

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

} // namespace rootline::replay
