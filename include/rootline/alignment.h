// Execution alignment of two runs of two versions (Xin, Sumner and Zhang, PLDI 2008,
// in a simplified form; docs/alignment.md). A run is cut into line executions: the
// instances of one source line in one function activation between two other lines.
// Each gets an execution index: the index of the call that opened its activation, the
// iteration of every loop around it, its aligned line (the new version's name for the
// line, through the diff), and how often that line ran before in the same iteration.
// So the k-th iteration of a loop in one run meets the k-th in the other, even after an
// `if` in an earlier iteration went another way, and a call meets its counterpart. Aligned
// executions are compared by what they did: the values they stored and returned, the
// arguments they passed, and the way their last branch went, judged by the lines it
// leads to (clang may swap a branch's targets: `if (!ok)` branches on `ok`), so that
// `if (y < 1583 || m < 1)` and `if (m < 1)` that both go on to the same line did the
// same; the branches a condition took on the way are kept for the reader.
#pragma once

#include "rootline/budget.h"
#include "rootline/replay.h"
#include "rootline/run_log.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rootline {

// A source line as both versions name it; 0: no source line. The caller chooses the
// numbering (debug: the new version's file and line, old lines without a counterpart
// numbered apart), so that equal numbers mean "the same line".
using AlignedLine = uint64_t;
// The bit of an old line's name that says the new version has no counterpart of it.
constexpr AlignedLine kOldOnlyLine = 1ull << 63;

// One thing a line execution did that the other run can be compared on.
struct LineEffect {
  // Call: the line calls a function (before its arguments); compared by the callee's
  // name, so a call moved to another function with the same result is a difference.
  enum Kind : uint8_t { Store, Branch, Return, Argument, Call };
  Kind kind = Store;
  Val value;            // stored, returned or passed; branch: successor
  bool pointer = false; // an address: equal to any other address
  // Computed from an address, the clock, the pid or a random source (run_taint.h): two
  // noisy values are equal to each other, whatever they are.
  bool noise = false;
  bool noisyIndex = false; // store: the slot was chosen by noise (a hash bucket)
  // An argument that is a constant string (a printf format): `value` digests its text,
  // so a changed format is a changed effect while two runs' addresses still agree.
  bool constantString = false;
  uint64_t element = 0;   // store: digest of its address's dynamic indices
  int64_t shownIndex = 0; // store: its first dynamic index, for the reader
  bool indexed = false;   // store: the address has dynamic indices
  uint32_t ordinal = 0;   // argument: its position
  // Branch: the first line of the successor it took, and of the other one (0: none or
  // unknown), as `lineOf` names them.
  AlignedLine taken = 0, other = 0;
  const llvm::Instruction *inst = nullptr; // the store, branch, return or call
  uint64_t instance = 0;                   // its instance in the run
};

// A value a line execution read, for judging whether two aligned executions started
// from the same values: a load's value, or an operand that code outside the execution
// computed (a call's result used by a later line of its statement: `sscanf(...)\n != 8`).
struct LineInput {
  Val value;
  bool pointer = false;                    // an address: says nothing by its value
  const llvm::Instruction *load = nullptr; // names the variable (valueName); null: an operand
};

struct LineExecution {
  uint64_t index = 0; // the execution index (a digest of context, line and occurrence)
  // The same, with each activation named by its callee and how many calls to that
  // callee its caller made before, not by the calling line: what pairs executions under
  // a call whose line the change rewrote or moved to another file (alignExecutions).
  uint64_t calleeIndex = 0;
  // The same, by the line's runs in its whole activation, loops left out: what pairs a
  // line whose loop nesting the change altered (a `goto` label moved past it).
  uint64_t activationIndex = 0;
  AlignedLine line = 0;
  uint32_t occurrence = 0; // 1 for the line's first run in its loop's iteration (or activation)
  uint32_t iteration = 0;  // the iteration of the innermost loop around it; 0: none
  // The loops around it, each by its header's line and kind (a digest): executions of
  // one line whose nests differ are in other loops, and pair by their runs instead.
  uint32_t loopNest = 0;
  uint64_t first = 0, last = 0; // its first and last instance
  bool inSlice = false;         // holds an instance of the slice given to the recorder
  bool noise = false;           // it ran because a branch decided by noise went its way
  // The run ended while it waited for a call it made (a crash or an exit deeper down):
  // what it would have done after that call, it never did.
  bool unfinished = false;
  uint32_t effectBegin = 0, effectCount = 0;
  uint32_t inputBegin = 0, inputCount = 0; // its first inputs (at most kMaxLineInputs)
};

constexpr uint32_t kMaxLineInputs = 16;

// Millions of entries on a long run: arrays that grow without copying (run_log.h).
struct ExecutionLog {
  RunLog<LineExecution> executions; // in run order; only the lines asked for
  RunLog<LineEffect> effects;
  RunLog<LineInput> inputs;
  bool complete = true; // false when replay stopped before the end of the run
};

// Whether two executions read the same values, in any order (addresses match any
// address). Unknown, so false, when either read more than the log keeps. What makes
// "the same values" a claim about the change: a changed line that computes the same
// results from other inputs may compute others from these (`== 9` and `!= 8` are both
// false on other sscanf results).
bool sameInputs(const ExecutionLog &oldLog, const LineExecution &oldExec,
                const ExecutionLog &newLog, const LineExecution &newExec);

// The bytes one run's execution log may take: $ROOTLINE_ALIGN_CAP_MB MiB when set, else
// an eighth of the machine's memory (the align stage holds both runs' logs beside both
// runs' dependence records).
uint64_t executionLogByteCap();

// Observes a replay and logs the executions of the lines `wanted` accepts. `lineOf`
// names an instruction's line (asked once per instruction); `slice` (may be null)
// marks the instances that make an execution `inSlice`.
// `functionName` (may be empty: the IR name) names a function as the new version does,
// for LineExecution::calleeIndex.
class LineExecutionRecorder : public ReplayObserver {
public:
  using FunctionName = std::function<std::string(const llvm::Function *)>;
  LineExecutionRecorder(const ModuleIndex &index,
                        std::function<AlignedLine(const llvm::Instruction *)> lineOf,
                        std::function<bool(AlignedLine)> wanted,
                        const std::vector<bool> *slice = nullptr, FunctionName functionName = {},
                        uint64_t byteCap = executionLogByteCap());
  ~LineExecutionRecorder() override;
  void onInstance(const Instance &) override;
  // Past its memory cap (executionLogByteCap), replay stops with the log made so far.
  bool mustStop() const override;
  bool reachedCap() const;
  // "its execution log reached its memory cap of M MiB (ROOTLINE_ALIGN_CAP_MB)"
  std::string capText() const;
  ExecutionLog take();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// How two runs' executions relate, by execution index.
enum class Aligned : uint8_t {
  Same,     // the counterpart did the same things
  Differs,  // the counterpart stored, returned, passed or branched otherwise
  Unmatched // no execution of the other run has this index
};

struct Alignment {
  std::vector<Aligned> oldStatus, newStatus; // per execution of each log
  std::vector<size_t> oldPeer, newPeer;      // the counterpart's position, or npos
  static constexpr size_t npos = ~size_t{0};
};

// Names the variable a store writes, so that a renamed variable still compares equal
// (old side) and a store into another variable does not; "" when it has no name. For a
// call, names the function it calls (renamed likewise).
using StoreTarget = std::function<std::string(const llvm::Instruction *store)>;

// Pairs executions by index and compares their effects; executions of the same line
// left unpaired on both sides are then paired by calleeIndex. When a log is incomplete,
// Unmatched says only that the other run's replay did not reach a counterpart.
Alignment alignExecutions(const ExecutionLog &oldLog, const ExecutionLog &newLog,
                          const StoreTarget &oldTarget, const StoreTarget &newTarget);

// The first effect in which two aligned executions differ (its position in each), or
// none when they agree. When only the way the last branch went differs, `control` is
// set and the positions are those of each execution's last branch.
struct EffectDifference {
  size_t oldEffect = 0, newEffect = 0; // positions within each execution's effects
  bool found = false;
  bool control = false;
};
EffectDifference firstDifference(const ExecutionLog &oldLog, const LineExecution &oldExec,
                                 const ExecutionLog &newLog, const LineExecution &newExec,
                                 const StoreTarget &oldTarget, const StoreTarget &newTarget);

// The text of a constant C string an operand points at (a printf format, a literal),
// through casts and zero-offset GEPs; nullopt for anything else.
std::optional<std::string> constantStringOf(const llvm::Value *operand);

// ---- for the reader -----------------------------------------------------------------

// An effect's value as C would print it for its type: "90", "-1", "2.5", "'a'",
// "true"; "an address" for pointers; a branch: "true"/"false" or "case k".
std::string effectValueText(const LineEffect &e);

// A value read, as C would print it for its type ("an address" for pointers).
std::string inputValueText(const LineInput &in);

// The variable a store writes, as the source names it: "price", "a[3]", "*p", "s.len"
// (debug info first, else the IR name without clang's ".addr"); "" when unknown.
std::string storeTargetName(const LineEffect &store);
// The variable an address points into, named the same way ("opts", "s.len").
std::string addressName(const llvm::Value *address);
// The variable a value was loaded from, or the buffer a pointer points into, as the
// source names it ("bonus", "r->fee", "text"); "" for a value not loaded from a variable
// (a computation, a constant, a string literal).
std::string valueName(const llvm::Value *v);

// The function a call names in the source, from its IR name: without the tracer's
// wrapper prefix and glibc's redirections ("__isoc99_sscanf" → "sscanf",
// "__posix_getopt" → "getopt", "__printf_chk" → "printf").
std::string sourceFunctionName(llvm::StringRef irName);
// What a call calls, for the reader: the function's source name; for a call through a
// pointer variable "the function in `emit`"; else "a function through a pointer".
std::string calleeText(const llvm::Instruction *call);

} // namespace rootline
