// Stable numbering of a module's functions, globals and instructions. The
// instrumentation pass and replay compute it the same way from the same (original,
// uninstrumented) module, so an id in a trace names the same instruction in both.
#pragma once

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instruction.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rootline {

struct SourceLocation {
  std::string file;      // as recorded in debug info
  std::string directory; // the compilation directory, for a relative `file`
  unsigned line = 0;
  unsigned column = 0;
  bool valid() const { return line != 0; }
  std::string str() const;  // "file:line"
  std::string path() const; // file joined to directory when relative
};

class ModuleIndex {
public:
  explicit ModuleIndex(const llvm::Module &module);

  // Every instruction of every function with a body, in module order.
  uint32_t idOf(const llvm::Instruction *inst) const { return instId_.lookup(inst); }
  const llvm::Instruction *instruction(uint32_t id) const {
    return id < insts_.size() ? insts_[id] : nullptr;
  }
  size_t instructionCount() const { return insts_.size(); }

  // Every function of the module (bodies and declarations), in module order.
  uint32_t indexOf(const llvm::Function *fn) const { return fnIndex_.lookup(fn); }
  const llvm::Function *function(uint32_t index) const {
    return index < fns_.size() ? fns_[index] : nullptr;
  }
  size_t functionCount() const { return fns_.size(); }

  // Every global variable of the module, in module order.
  uint32_t indexOf(const llvm::GlobalVariable *gv) const { return gvIndex_.lookup(gv); }
  const llvm::GlobalVariable *global(uint32_t index) const {
    return index < gvs_.size() ? gvs_[index] : nullptr;
  }
  size_t globalCount() const { return gvs_.size(); }

  // isReplayModelledLocal, computed once per alloca: replay asks it for every load
  // and store, and the answer walks all the alloca's uses.
  bool modelledLocal(const llvm::Value *pointer) const {
    auto *al = llvm::dyn_cast<llvm::AllocaInst>(pointer);
    return al && modelledLocals_.contains(al);
  }

  static SourceLocation locationOf(const llvm::Instruction *inst);
  // "function: instruction text (file:line)" for error messages.
  static std::string describe(const llvm::Instruction *inst);

private:
  std::vector<const llvm::Instruction *> insts_;
  llvm::DenseMap<const llvm::Instruction *, uint32_t> instId_;
  std::vector<const llvm::Function *> fns_;
  llvm::DenseMap<const llvm::Function *, uint32_t> fnIndex_;
  std::vector<const llvm::GlobalVariable *> gvs_;
  llvm::DenseMap<const llvm::GlobalVariable *, uint32_t> gvIndex_;
  llvm::DenseSet<const llvm::AllocaInst *> modelledLocals_;
};

// Instruments `module` in place for tracing (docs/trace-format.md). `moduleKey` is
// written into the trace header so a trace can be matched to its module.
void instrumentModule(llvm::Module &module, const std::string &moduleKey);

// A local variable whose address never escapes (only loaded and stored whole, as in
// mem2reg's isAllocaPromotable): replay models its contents itself, so the trace logs
// only its initial bytes (ALLOCA_LOCAL), not its loads and stores.
bool isReplayModelledLocal(const llvm::Value *pointer);

// The replay-modelled locals of `fn` that replay places from their frame's anchor
// instead of an ALLOCA_LOCAL event each: among the entry block's leading allocas
// (static frame objects, at fixed distances from each other), those every path stores
// before it loads them, so their initial bytes are never read. In instruction order;
// the first is the anchor, logged by ENTER_FRAME (docs/trace-format.md).
std::vector<const llvm::AllocaInst *> anchoredLocals(const llvm::Function &fn);

// The conditional branches of `fn` that log no BR event. Replay computes every
// condition itself; the event only checks it. A branch whose two successors begin
// with events of different kinds (a LOAD on one side, a RET or another branch on the
// other) is checked by the next event instead: had replay gone the wrong way, it
// would not be the event replay expects (docs/trace-format.md, "Silent branches").
// `anchored` is anchoredLocals(fn): those log nothing.
llvm::DenseSet<const llvm::BranchInst *>
silentBranches(const llvm::Function &fn, llvm::ArrayRef<const llvm::AllocaInst *> anchored);

// Whether a function's arguments are logged at its entry (ARG events): main, functions
// uninstrumented code may call (address taken), and functions taking a struct by value
// (`byval`: the callee's copy lives at an address only the native run knows).
bool logsArguments(const llvm::Function &fn);

// The setjmp family (a call that may return twice) and the longjmp family (a call that
// returns at such a call instead).
bool isSetjmpLike(llvm::StringRef callee);
bool isLongjmpLike(llvm::StringRef callee);

// Names of libc functions the runtime wraps (runtime/rl_wrapped.def).
bool isWrappedLibcFunction(llvm::StringRef name);

} // namespace rootline
