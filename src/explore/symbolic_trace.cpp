// One traced run, replayed symbolically, with its branch sequence and coverage.
#include "rootline/closest_input.h"
#include "rootline/explore.h"

#include "rootline/error.h"

#include <llvm/IR/Instructions.h>

namespace rootline {

namespace {

// Records the concrete path and coverage of a run.
class PathRecorder : public ReplayObserver {
public:
  explicit PathRecorder(SymbolicTrace &out) : out_(out) {}
  void onInstance(const Instance &I) override {
    if ((llvm::isa<llvm::BranchInst>(I.inst) || llvm::isa<llvm::SwitchInst>(I.inst)) &&
        I.inst->getNumSuccessors() > 1) {
      out_.branches.push_back({I.id, I.successor});
      out_.branchesCovered.insert({I.id, I.successor});
    }
    if (I.id != lastId_) {
      lastId_ = I.id;
      SourceLocation loc = ModuleIndex::locationOf(I.inst);
      if (loc.valid())
        out_.linesCovered.insert({loc.file, loc.line});
    }
  }

private:
  SymbolicTrace &out_;
  uint32_t lastId_ = ~0u;
};

} // namespace

SymbolicTrace traceSymbolic(const TracedProgram &program, const llvm::Module &module,
                            const ModuleIndex &index, const ProgramInput &input, z3::context &ctx,
                            const fs::path &workDir, double timeoutSeconds,
                            const StaticAnalysis *analysis, const ReplayLimits &limits,
                            uint64_t maxTraceBytes) {
  TestCase test = materialiseInput(input, workDir);
  test.timeoutSeconds = limits.deadline.clamp(timeoutSeconds);
  test.maxTraceBytes = maxTraceBytes;
  SymbolicTrace out;
  out.input = input;
  TracedRun run = runTraced(program, test, workDir / "run.trace", /*timeoutBeforeTrace=*/true);
  out.process = run.process;
  if (run.untraced) { // stopped by its time, as a replay cut short is
    out.replay.outcome = RunOutcome::Stopped;
    return out;
  }
  if (run.limitReached) { // not replayed: the caller says so
    out.replay.outcome = RunOutcome::Limit;
    std::error_code ec;
    fs::remove(workDir / "run.trace", ec);
    return out;
  }
  SymbolicReplayer sym(ctx, module);
  std::optional<DependenceRecorder> deps;
  if (analysis)
    deps.emplace(index, *analysis);
  PathRecorder path(out);
  std::vector<ReplayObserver *> observers = {&sym, &path};
  if (deps)
    observers.push_back(&*deps);
  ReplayFanout recorder(observers);
  TraceReader reader(run.trace, program.module.key);
  out.replay = replayTrace(module, index, reader, &recorder, limits);
  out.symbolic = sym.take();
  // Each input's value on this run: replay names the inputs, the input holds their values.
  for (auto &v : out.symbolic.inputs)
    if (auto value = valueIn(input, v))
      v.seedValue = *value;
  if (deps)
    out.dynamic = deps->take();
  if (out.replay.crashInst) {
    SourceLocation loc = ModuleIndex::locationOf(out.replay.crashInst);
    out.crashFile = loc.file;
    out.crashLine = loc.line;
    out.crashFunction = out.replay.crashInst->getFunction()->getName().str();
  }
  std::error_code ec;
  fs::remove(workDir / "run.trace", ec); // traces can be large; the input is what we keep
  return out;
}

} // namespace rootline
