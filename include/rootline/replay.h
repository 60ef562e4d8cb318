// Replay: walks the original module along a trace, recomputing every SSA value
// concretely (loads take their logged values) and checking every recomputed branch,
// switch, call target and address against the log. It exposes the run as a sequence
// of statement instances — the data model of slicing, symbolic replay and reports.
#pragma once

#include "rootline/budget.h"
#include "rootline/module_index.h"
#include "rootline/trace.h"

#include <llvm/ADT/SmallVector.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rootline {

// The bits of one value: integers and pointers zero-extended; floats as their IEEE
// bits; x86 long double and aggregates of up to 16 bytes as their memory image.
struct Val {
  uint64_t lo = 0, hi = 0;
  bool operator==(const Val &) const = default;
};

inline constexpr uint64_t kNoDef = ~0ull;

struct Operand {
  Val value;
  uint64_t def = kNoDef; // index of the instance that defined it; kNoDef for constants
};

// One execution of one instruction.
struct Instance {
  uint64_t index = 0;
  uint32_t id = 0;
  const llvm::Instruction *inst = nullptr;
  uint32_t depth = 0; // call depth, 0 for the outermost frame
  uint64_t frame = 0; // distinct per function activation
  // LLVM operand order; calls: the arguments. A parameter's def is the instance that
  // defined the argument in the caller; a call result's def is the callee's return.
  llvm::SmallVector<Operand, 4> operands;
  Val result;
  uint32_t successor = 0;                 // br: 0 = true target, 1 = false; switch: successor index
  uint64_t addr = 0;                      // load/store/alloca address
  uint64_t size = 0;                      // bytes loaded/stored/allocated
  llvm::SmallVector<uint64_t, 2> memDefs; // load: distinct last writers of the loaded bytes
  bool memUnwritten = false;              // some loaded byte has no writer in the trace
  bool crashed = false;                   // the instruction raised the fatal signal (last instance)
  // Calls into uninstrumented code: what the call did, as logged (inputs, outputs,
  // memory effects); `external` marks that its result is concrete (concretised).
  bool external = false;
  std::vector<Event> effects;
};

class ReplayObserver {
public:
  virtual ~ReplayObserver() = default;
  // Called in index order for every instance.
  virtual void onInstance(const Instance &) {}
  // A global variable's address and size, before main starts.
  virtual void onGlobal(const llvm::GlobalVariable *, uint64_t /*addr*/, uint64_t /*size*/) {}
  // A function's address in the run, before main starts.
  virtual void onFunction(const llvm::Function *, uint64_t /*addr*/) {}
  // One argv string at main's entry.
  virtual void onArgv(const struct ArgvString &) {}
  // Asked now and then: false ends replay early (outcome Stopped), when an observer
  // has all it can use.
  virtual bool wantsMore() const { return true; }
  // Asked now and then: true ends replay early (outcome Stopped) whatever the other
  // observers want, when this one cannot go on (its memory cap).
  virtual bool mustStop() const { return false; }
};

// One argv string as the traced process saw it (bytes include the NUL).
struct ArgvString {
  uint64_t index = 0;
  uint64_t addr = 0;
  std::string bytes;
};

// Passes every callback to several observers, in order (one replay, many consumers).
class ReplayFanout : public ReplayObserver {
public:
  explicit ReplayFanout(std::vector<ReplayObserver *> observers)
      : observers_(std::move(observers)) {}
  void onInstance(const Instance &i) override {
    for (auto *o : observers_)
      o->onInstance(i);
  }
  void onGlobal(const llvm::GlobalVariable *g, uint64_t a, uint64_t s) override {
    for (auto *o : observers_)
      o->onGlobal(g, a, s);
  }
  void onFunction(const llvm::Function *f, uint64_t a) override {
    for (auto *o : observers_)
      o->onFunction(f, a);
  }
  void onArgv(const struct ArgvString &a) override {
    for (auto *o : observers_)
      o->onArgv(a);
  }
  bool wantsMore() const override {
    for (auto *o : observers_)
      if (o->wantsMore())
        return true;
    return false;
  }
  bool mustStop() const override {
    for (auto *o : observers_)
      if (o->mustStop())
        return true;
    return false;
  }

private:
  std::vector<ReplayObserver *> observers_;
};

// Stopped: replay itself stopped at its deadline; the instances so far were reported.
// Diverged: the trace and the recomputation disagreed (or replay met something it does
// not model) and the caller asked to keep what agreed (ReplayLimits::stopAtMismatch).
// Exec: the process replaced its image (execve and friends); its trace ends there.
enum class RunOutcome { Exit, Signal, Limit, Incomplete, Stopped, Diverged, Exec };

struct ReplayResult {
  RunOutcome outcome = RunOutcome::Incomplete;
  int exitStatus = 0;
  int signal = 0;
  const llvm::Instruction *crashInst = nullptr; // the instruction that raised the signal
  uint64_t faultAddress = 0;                    // si_addr of the signal
  uint64_t instances = 0;
  uint64_t events = 0;
  uint64_t externalCalls = 0;
  uint64_t stdinBytes = 0; // highest stdin offset consumed + 1
  uint64_t tokens = 0;     // scanf conversions tied to stdin
  uint64_t outputEvents = 0;
  std::string stdoutBytes; // bytes the program handed to stdout, in order
  std::string stderrBytes;
  std::vector<ArgvString> argv; // where main's argument strings live
  // Files the program opened for reading: (input source number, name as opened); source
  // 0 means the open failed.
  std::vector<std::pair<uint64_t, std::string>> opened;
  // Diverged: what disagreed, where ("replay mismatch at main: br ... (main.c:12): ..."),
  // and the last instance on which trace and replay still agreed.
  std::string divergence;
  // Stores the native run made into a local that replay models itself (an overflow
  // from a neighbouring object): replay applied the bytes it knew and names each here.
  std::vector<std::string> clobberedLocals;
};

// Bounds of one replay: it stops (outcome Stopped) once the deadline passes, and
// reports its instance count every `progressPeriod` instances.
struct ReplayLimits {
  Deadline deadline;
  std::function<void(uint64_t instances)> progress;
  uint64_t progressPeriod = 1u << 18;
  // A mismatch (or an unsupported construct) ends replay as Diverged, keeping the
  // instances that agreed, instead of throwing. The debugger wants this: the rest of
  // the report still comes out.
  bool stopAtMismatch = false;
};

// Throws Error (exit code 3) naming function, instruction and source line when the
// trace disagrees with the recomputation.
ReplayResult replayTrace(const llvm::Module &module, const ModuleIndex &index, TraceReader &trace,
                         ReplayObserver *observer = nullptr, const ReplayLimits &limits = {});

} // namespace rootline
