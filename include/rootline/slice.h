// Dynamic dependences and relevant slicing (DESIGN.md 2.4). A forward observer
// records each instance's dependences compactly; one backward pass computes the
// relevant slice of a criterion (data, control and potential dependences), or the
// dynamic slice (without potential dependences) for comparison.
#pragma once

#include "rootline/analysis.h"
#include "rootline/dependence_records.h"
#include "rootline/replay.h"
#include "rootline/symbolic.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace llvm {
class CallBase;
}

namespace rootline {

// The output pieces of a run, as logged (one per OUTPUT event).
struct OutputPiece {
  uint64_t instance = 0;
  uint64_t fd = 1, offset = 0, arg = 0;
  bool fromMemory = false;
  std::string bytes;
};

struct DynamicTrace {
  DependenceRecords records; // index = instance index
  std::vector<OutputPiece> outputs;
  uint64_t crashInstance = kNoDef;
  // Per output instance (isOutput), the output before it, which defines the stream it
  // extends; kNoDef for the first.
  std::unordered_map<uint64_t, uint64_t> previousOutputs;

  uint64_t operandDef(uint64_t instance, unsigned operand) const;
  uint64_t previousOutput(uint64_t instance) const;
};

// The bytes the dependence records of one run may take: $ROOTLINE_DEPENDENCE_CAP_MB
// MiB when set, else a quarter of the machine's memory (debug holds two runs, and the
// stages after replay need room too). docs/trace-format.md, "Memory".
uint64_t dependenceByteCap();

class DependenceRecorder : public ReplayObserver {
public:
  DependenceRecorder(const ModuleIndex &index, const StaticAnalysis &analysis,
                     uint64_t byteCap = dependenceByteCap());
  ~DependenceRecorder() override;
  void onInstance(const Instance &) override;
  void onGlobal(const llvm::GlobalVariable *, uint64_t addr, uint64_t size) override;
  void onArgv(const ArgvString &) override;
  // Past the cap, replay stops (outcome Stopped) with the records made so far, so a
  // long run ends with a note instead of the machine's OOM killer.
  bool mustStop() const override;
  bool reachedCap() const;
  uint64_t byteCap() const;
  uint64_t bytes() const;     // what the records hold now, allocated capacity included
  uint64_t usedBytes() const; // what they hold, without the capacity not yet used
  // "its dependence records reached their memory cap of M MiB (ROOTLINE_DEPENDENCE_CAP_MB)"
  std::string capText() const;
  DynamicTrace take();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Where slicing starts: an instance and which of its dependences count.
struct CriterionSeed {
  uint64_t instance = 0;
  bool whole = true;          // all operands and memory it read
  std::vector<uint64_t> defs; // when not whole: these definitions only
  bool memory = false;        // when not whole: also the memory it read
  // Also the output stream as the run left it at this instance: branches whose other
  // side may print join the slice (a run that stops printing, or prints nothing).
  bool outputStream = false;
};

// Criteria (several may be given): "FILE:LINE" (the last instance of that line),
// "output" (every output), "output:N" (the N-th line of stdout, down to the printf
// arguments that produced it), "crash" (the faulting instruction). Throws Error when
// a criterion matches nothing in the run.
std::vector<CriterionSeed> resolveCriterion(const std::string &criterion, const DynamicTrace &trace,
                                            const ModuleIndex &index);

// The seeds of the output pieces that wrote bytes [begin, end) of stream `fd` (1 stdout,
// 2 stderr): each call, down to the arguments that printed those bytes.
std::vector<CriterionSeed> outputSeeds(const DynamicTrace &trace, const ModuleIndex &index,
                                       uint64_t fd, uint64_t begin, uint64_t end);

// What a traced run handed to stdio on stream `fd` (1 stdout, 2 stderr), in order.
std::string loggedOutput(const DynamicTrace &trace, uint64_t fd = 1);

// The operand of an output call that produced an output piece logged with runtime
// argument number `arg` (docs/trace-format.md); none for the format's literal text.
std::optional<unsigned> outputOperand(const llvm::CallBase *call, uint64_t arg);

struct Slice {
  std::vector<bool> member; // by instance index
  // False when the backward pass stopped at its deadline: instances before
  // `stoppedAt` were not visited (the slice holds what it reached from the criterion).
  bool complete = true;
  uint64_t stoppedAt = 0;
  size_t size() const;
  bool contains(uint64_t instance) const { return instance < member.size() && member[instance]; }
};

// One backward pass. `potential` adds potential dependences (the relevant slice);
// without it the result is the dynamic slice. It stops at `deadline` (Slice::complete).
Slice computeSlice(const DynamicTrace &trace, const ModuleIndex &index,
                   const StaticAnalysis &analysis, const std::vector<CriterionSeed> &seeds,
                   bool potential = true, const Deadline &deadline = {});

// The relevant slice condition: the path constraints of the slice's branch instances,
// in trace order.
std::vector<PathConstraint> relevantSliceCondition(const SymbolicRun &run, const Slice &slice);

// DESIGN.md 2.5: keeps the prefix property of path conditions. The pivot is the last
// branch; those earlier branches in its relevant slice come first (reordered), then
// the pivot, then the rest (reordered).
std::vector<PathConstraint> reorderRsc(const std::vector<PathConstraint> &rsc,
                                       const DynamicTrace &trace, const ModuleIndex &index,
                                       const StaticAnalysis &analysis);

} // namespace rootline
