// The trace and symbolic stages: one traced run per version, replayed twice. The first
// replay is concrete (values and dependences, linear in the run); the second builds
// expressions only for the instances the relevant slice needs (DESIGN.md 2.8).
#include "compose/debug_stages.h"

#include <algorithm>

#include "rootline/closest_input.h"
#include "rootline/error.h"

namespace rootline::debug {

namespace {

std::string count(uint64_t n) { return std::to_string(n); }

ReplayLimits limitsFor(const Version &v, const Deadline &deadline, Stages &stages,
                       const std::string &what) {
  ReplayLimits limits;
  limits.deadline = deadline;
  limits.stopAtMismatch = true; // what agreed still slices; the report names the rest
  limits.progress = [&stages, name = v.name, what](uint64_t n) {
    stages.update(name + " version, " + count(n) + " instances " + what);
  };
  return limits;
}

} // namespace

bool traceConcrete(Version &v, const ProgramInput &input, const fs::path &work,
                   double timeoutSeconds, const Deadline &deadline, Stages &stages,
                   uint64_t hangTraceBytes) {
  TestCase test = materialiseInput(input, work);
  // The traced run is slower than the native one; the budget may shorten it, and what
  // it wrote until then still replays.
  test.timeoutSeconds = deadline.clamp(timeoutSeconds, std::min(timeoutSeconds, 1.0));
  if (hangTraceBytes)
    test.maxTraceBytes = hangTraceBytes;
  v.traceFile = work / "run.trace";
  stages.update(v.name + " version, traced run");
  TracedRun run = runTraced(v.program, test, v.traceFile);
  v.trace.input = input;
  v.trace.process = run.process;
  if (run.limitReached && !hangTraceBytes)
    throw Error("the " + v.name + " version's trace of the test exceeds the trace byte limit");
  if (run.limitReached)
    stages.note("the " + v.name + " version's traced run was stopped at " +
                count(hangTraceBytes >> 10) + " KiB of trace, " +
                std::to_string(static_cast<int>(kHangTraceFactor)) +
                " times the old run's: it does not finish");
  DependenceRecorder deps(*v.index, *v.analysis);
  MemoryChecker memory;
  ReplayFanout both({&deps, &memory});
  TraceReader reader(v.traceFile, v.program.module.key);
  v.trace.replay = replayTrace(*v.module.module, *v.index, reader, &both,
                               limitsFor(v, deadline, stages, "replayed"));
  v.trace.dynamic = deps.take();
  v.memory = memory.take();
  if (run.process.timedOut)
    stages.cut("the traced run of the " + v.name + " version was stopped after " +
               std::to_string(test.timeoutSeconds) + " s; its dependences cover " +
               count(v.trace.replay.instances) + " instances");
  for (const std::string &c : v.trace.replay.clobberedLocals)
    stages.remark("the " + v.name + " version's run wrote past an object into a local: " + c);
  if (v.trace.replay.outcome == RunOutcome::Diverged) {
    stages.remark("the " + v.name + " version's native run and its replay part at " +
                  v.trace.replay.divergence + "; the analysis uses the " +
                  count(v.trace.replay.instances) + " instances before that");
    return false;
  }
  if (v.trace.replay.outcome == RunOutcome::Stopped) {
    stages.cut("replay of the " + v.name + " version stopped after " +
               count(v.trace.replay.instances) + " instances" +
               (deps.reachedCap() ? ": " + deps.capText() : std::string()) +
               "; later dependences are missing");
    return false;
  }
  return !run.process.timedOut;
}

bool traceSymbolic(Version &v, z3::context &ctx, const std::vector<bool> *only,
                   uint32_t maxExprNodes, const Deadline &deadline, Stages &stages,
                   const std::vector<uint64_t> *watch) {
  SymbolicOptions options;
  options.only = only;
  options.watch = watch;
  options.maxExprNodes = maxExprNodes;
  options.bugChecks = false;
  options.maxPathNodes = kMaxComposeNodes;
  SymbolicReplayer sym(ctx, *v.module.module, options);
  TraceReader reader(v.traceFile, v.program.module.key);
  ReplayResult r = replayTrace(*v.module.module, *v.index, reader, &sym,
                               limitsFor(v, deadline, stages, "replayed symbolically"));
  v.trace.symbolic = sym.take();
  for (auto &in : v.trace.symbolic.inputs)
    if (auto value = valueIn(v.trace.input, in))
      in.seedValue = *value;
  // One note for all places, the busiest first, in repository paths.
  if (!v.trace.symbolic.capped.empty()) {
    // One entry per line (a line has several instructions).
    std::vector<CappedValues> capped;
    for (const auto &c : v.trace.symbolic.capped) {
      auto same = std::find_if(capped.begin(), capped.end(), [&](const CappedValues &d) {
        return d.file == c.file && d.line == c.line;
      });
      if (same == capped.end())
        capped.push_back(c);
      else
        same->count += c.count;
    }
    std::stable_sort(capped.begin(), capped.end(),
                     [](const auto &a, const auto &b) { return a.count > b.count; });
    uint64_t values = 0;
    for (const auto &c : capped)
      values += c.count;
    constexpr size_t kShown = 5;
    std::string places;
    for (size_t i = 0; i < capped.size() && i < kShown; ++i)
      places += (i ? ", " : "") + relativeTo(capped[i].file, v.root) + ":" +
                std::to_string(capped[i].line) + " (" + count(capped[i].count) + ")";
    if (capped.size() > kShown)
      places += " and " + std::to_string(capped.size() - kShown) + " more";
    stages.remark("the " + v.name + " version made " + count(values) + " value(s) concrete at " +
                  std::to_string(capped.size()) + " line(s), their expressions outgrew " +
                  std::to_string(maxExprNodes) + " nodes: " + places);
  }
  if (r.outcome == RunOutcome::Stopped && v.trace.symbolic.saturated) {
    stages.cut("symbolic replay of the " + v.name + " version stopped after " + count(r.instances) +
               " of " + count(v.trace.replay.instances) + " instances: its constraints reached " +
               std::to_string(kMaxComposeNodes) + " nodes, all a composition can use");
    return false;
  }
  if (r.outcome == RunOutcome::Stopped) {
    stages.cut("symbolic replay of the " + v.name + " version stopped after " + count(r.instances) +
               " of " + count(v.trace.replay.instances) +
               " instances; the constraints after that are missing");
    return false;
  }
  return true;
}

std::vector<InputVar> inputsOfBoth(const Version &oldV, const Version &newV) {
  return unionOfInputs(oldV.trace.symbolic.inputs, newV.trace.symbolic.inputs);
}

} // namespace rootline::debug
