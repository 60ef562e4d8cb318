// rootline debug: the stages in order, each with its share of the budget (DESIGN.md
// 2.6, 2.8; docs/debug.md). A ranking exists from the first ranking on; the symbolic
// stages only refine it, and whatever they finish before the deadline is kept.
#include "rootline/debug.h"

#include "compose/debug_stages.h"
#include "rootline/error.h"
#include "rootline/solver_context.h"

#include <algorithm>

namespace rootline {

namespace {

using debug::bothVersions;
using debug::Stages;
using debug::Version;

// Shares of the time left when a stage starts (the rest goes to the stages after it),
// and the least each gets when the budget is nearly spent.
constexpr double kTraceShareOld = 0.3, kTraceShareNew = 0.45;
// Both versions' traces at once (bothVersions): each the most the two would get one
// after the other, 0.3 + 0.45 * 0.7 of what is left.
constexpr double kTraceShareAtOnce = 0.6;
constexpr double kSliceShare = 0.4;
constexpr double kSpectrumShare = 0.05; // a few dynamic slices of shared output lines
// Replays of the test's other processes of the program (the test spectrum): a few seconds
// for a `make check` of hundreds of short runs.
constexpr double kTestSpectrumShare = 0.1;
constexpr double kSymbolicShareOld = 0.25, kSymbolicShareNew = 0.33;
constexpr double kAlignShare = 0.2;
// The units with changed code compiled again, syntax only: a fraction of a second each.
constexpr double kWarningsShare = 0.08;
constexpr double kMemoryShare = 0.15; // a slice per finding and one sanitizer build
// Large commits get their rank-1 evidence here (reverts, edits, chasing repairs upstream);
// the stages after it stop early on large programs (the symbolic bound), so a job ended
// with half its budget left when this share was 0.3 (docs/debug.md, "Stages and the budget").
constexpr double kRevertShare = 0.45;
constexpr double kSameValueCheckShare = 0.05; // a few solver queries, 1 s each at most
constexpr double kComposeShare = 0.6;
// When reverting a hunk alone already makes the test pass, composition only adds
// alternative inputs: it gets less of the time left.
constexpr double kComposeShareAfterRevert = 0.2;
constexpr double kReportReserveSeconds = 0.5; // ranking and writing the reports
constexpr double kRepairOrderSeconds = 5;     // the slices that order repaired lines
// The unit test stage's share, at most this many seconds (docs/debug.md, "Budget").
constexpr double kUnitTestShare = 0.15, kUnitTestMaxSeconds = 12;
// Local Darwin's reserve when the composition did not decide (it runs in what is left
// otherwise).
constexpr double kLocalDarwinShare = 0.25, kLocalDarwinMaxSeconds = 20;
constexpr double kFloorSeconds = 0.5;

// Removes the job's work directory however the job ends.
void buildStage(Version &v, const BuildRecipe &recipe, const std::optional<BuiltVersion> &built,
                Stages &stages) {
  stages.update(v.name + " version");
  if (built)
    analyseBuiltVersion(v, *built);
  else
    buildAnalysedVersion(v, recipe);
}

} // namespace

DebugReport debugRegression(const DebugRequest &request) {
  auto start = Deadline::Clock::now();
  // After the failure stage, native runs get the hang timeout (a multiple of the old
  // run's time) instead of --timeout; traced runs keep --timeout (tracing is slower).
  DebugRequest req = request;
  DebugReport report;
  report.oldLabel = req.oldLabel;
  report.newLabel = req.newLabel;
  report.oldCommit = req.oldCommit;
  report.newCommit = req.newCommit;
  report.repository = req.repository;
  report.input = req.input;
  report.condition = req.condition == ConditionKind::Rsc ? "rsc" : "pc";
  report.budgetSeconds = req.budgetSeconds;
  Stages stages(report, req.progress);
  // Before the versions: their conditions and symbolic runs hold expressions of it.
  SolverContext solver; // destroyed on the reaper thread (rootline/solver_context.h)
  z3::context &ctx = solver.get();
  Version oldV, newV;
  oldV.name = "old";
  oldV.root = req.oldRoot;
  newV.name = "new";
  newV.root = req.newRoot;
  report.oldRoot = oldV.root;
  report.newRoot = newV.root;

  // Builds are not interrupted (a half-built program answers nothing); they are cached.
  stages.begin("build");
  bothVersions(
      stages, [&](Stages &s) { buildStage(oldV, req.oldRecipe, req.oldBuilt, s); },
      [&](Stages &s) { buildStage(newV, req.newRecipe, req.newBuilt, s); });
  report.notes.insert(report.notes.end(), req.leadNotes.begin(), req.leadNotes.end());
  // The budget counts the analysis, not the builds (they are cached, and a cold build of
  // a large program would otherwise leave no time for a first ranking).
  Deadline budget = req.budgetSeconds > 0 ? Deadline::in(req.budgetSeconds) : Deadline::unlimited();
  ScopedWorkDir work("debug");
  for (const std::string &f : debug::discoverInputFiles(req, oldV, newV))
    report.notes.push_back("input file " + f + ": each run reads a copy in its own directory");
  report.input = req.input;

  stages.begin("failure");
  debug::establishFailure(req, oldV, newV, work.path, budget, report);
  req.timeoutSeconds = report.runTimeoutSeconds;
  debug::Diffs diffs(oldV.root, newV.root, req.sourceDiff);
  if (req.sourceDiff)
    for (const auto &f : req.sourceDiff->files)
      if (!f.oldPath.empty() && !f.newPath.empty() && f.oldPath != f.newPath)
        report.renamedFiles[f.oldPath] = f.newPath;

  stages.begin("trace");
  if (report.hang) {
    // A hang is traced to a multiple of the old run's length: enough to find its loop.
    debug::traceConcrete(oldV, req.input, work.path / "ot", request.timeoutSeconds,
                         budget.share(kTraceShareOld, kFloorSeconds), stages);
    std::error_code ec;
    auto oldBytes = static_cast<double>(fs::file_size(oldV.traceFile, ec));
    uint64_t hangTraceBytes = std::clamp(static_cast<uint64_t>(debug::kHangTraceFactor * oldBytes),
                                         debug::kHangTraceMinBytes, debug::kHangTraceMaxBytes);
    debug::traceConcrete(newV, req.input, work.path / "nt", request.timeoutSeconds,
                         budget.share(kTraceShareNew, kFloorSeconds), stages, hangTraceBytes);
  } else {
    // At once, each gets the share both would get one after the other.
    bool atOnce = debug::versionsAtOnce();
    Deadline oldShare = budget.share(atOnce ? kTraceShareAtOnce : kTraceShareOld, kFloorSeconds);
    bothVersions(
        stages,
        [&](Stages &s) {
          debug::traceConcrete(oldV, req.input, work.path / "ot", request.timeoutSeconds, oldShare,
                               s);
        },
        [&](Stages &s) {
          debug::traceConcrete(newV, req.input, work.path / "nt", request.timeoutSeconds,
                               atOnce ? oldShare : budget.share(kTraceShareNew, kFloorSeconds), s);
        });
  }

  stages.begin("criteria");
  if (report.hang)
    report.hangLoop = debug::chooseHangCriteria(oldV, newV, report.expected.stdoutBytes, diffs);
  else
    debug::chooseCriteria(oldV, newV, report.expected.stdoutBytes, diffs, req.wholeBehaviour);
  if (!req.input.outputFile.empty()) // its writes were logged as stdout
    for (std::string *c : {&oldV.criterion, &newV.criterion})
      if (size_t at = c->find("stdout byte"); at != std::string::npos)
        c->replace(at, 6, "the file " + req.input.outputFile + ",");
  report.oldCriterion = oldV.criterion;
  report.newCriterion = newV.criterion;

  stages.begin("slice");
  Deadline sliceDeadline = budget.share(kSliceShare, kFloorSeconds);
  bothVersions(
      stages, [&](Stages &s) { debug::sliceVersion(oldV, sliceDeadline, report, s); },
      [&](Stages &s) { debug::sliceVersion(newV, sliceDeadline, report, s); });
  debug::OutputSpectrum spectrum =
      debug::sliceSharedOutputs(oldV, newV, budget.share(kSpectrumShare, kFloorSeconds), stages);
  debug::TestSpectrum testSpectrum;
  if (!req.newTestProcesses.empty() || !req.oldTestProcesses.empty()) {
    stages.begin("test spectrum");
    testSpectrum = debug::coverTestProcesses(
        req, oldV, newV, budget.share(kTestSpectrumShare, kFloorSeconds), stages);
  }

  // The first ranking: no solver, only the slices and the diff.
  stages.begin("first ranking");
  std::vector<DebugCandidate> changedNew = debug::changedLinesInSlice(newV, "changed code", diffs);
  std::vector<DebugCandidate> changedOld = debug::changedLinesInSlice(oldV, "missing code", diffs);
  if (changedNew.empty() && changedOld.empty()) {
    changedNew = debug::changedLinesExecuted(newV, "changed code", diffs);
    changedOld = debug::changedLinesExecuted(oldV, "missing code", diffs);
    if (!changedNew.empty() || !changedOld.empty())
      stages.note("no changed line is in either slice: the changed lines each run executed "
                  "stand in");
  }
  stages.update(std::to_string(changedNew.size() + changedOld.size()) +
                " changed line(s) in the slices");

  // Warnings the change brought, on changed lines: one syntax-only compile per unit.
  stages.begin("compiler warnings");
  debug::NewWarnings newWarnings = debug::findNewWarnings(
      oldV, newV, diffs, budget.share(kWarningsShare, kFloorSeconds), stages);

  // Memory errors of the new run, with the changed lines that made them possible.
  stages.begin("memory");
  std::vector<DebugCandidate> memoryCauses = debug::diagnoseMemoryErrors(
      req, oldV, newV, diffs, work.path, budget.share(kMemoryShare, kFloorSeconds), report, stages);

  // Aligned runs: one more concrete replay of each trace. The first divergence on the
  // slice, and which changed lines compute other values (the dual slice) and which the
  // same ones (behaviour-neutral for this failure).
  stages.begin("align");
  std::vector<DebugCandidate> hints = changedNew;
  hints.insert(hints.end(), changedOld.begin(), changedOld.end());
  debug::AlignmentFindings alignment =
      debug::alignRuns(oldV, newV, hints, diffs, budget.share(kAlignShare, kFloorSeconds), stages);
  report.firstDivergence = alignment.first;
  report.aligned = alignment.complete;
  report.sliceExecutions = alignment.sliceExecutions;
  report.dualSliceExecutions = alignment.dualSliceExecutions;
  debug::applyAlignment(alignment, changedNew);
  debug::applyAlignment(alignment, changedOld);
  debug::applyAlignment(alignment, hints);
  debug::applyTestSpectrum(testSpectrum, hints);

  // Revert trials: the first ranking's hunks first, those in the dual slice before
  // those that compute the same values. Cheap builds and native runs, and the strongest
  // evidence there is, so they come before the solver.
  stages.begin("revert");
  // Where the runs part comes first of all.
  std::stable_sort(hints.begin(), hints.end(), [](const auto &a, const auto &b) {
    auto order = [](const DebugCandidate &c) {
      return c.aligned == "differs" ? (c.alignedOrigin ? 0 : 1) : c.aligned.empty() ? 2 : 3;
    };
    if (order(a) != order(b))
      return order(a) < order(b);
    // Of those, a line that more of the test's differing and fewer of its alike processes
    // ran (the test spectrum) first.
    if (debug::testSuspicion(a) != debug::testSuspicion(b))
      return debug::testSuspicion(a) > debug::testSuspicion(b);
    return a.distance < b.distance;
  });
  debug::RevertEvidence reverts;
  if (req.newBuilt && !req.buildVariant)
    stages.note("revert trials need a build of the project per trial; none was given");
  else {
    std::set<std::string> builtFrom = debug::programSourceFiles(newV);
    builtFrom.merge(debug::programSourceFiles(oldV));
    debug::OtherProcesses others(req, testSpectrum, work.path / "others");
    reverts = debug::gatherRevertEvidence(req, hints, diffs, builtFrom, work.path,
                                          budget.share(kRevertShare, kFloorSeconds), report, stages,
                                          others.available() ? &others : nullptr, &newV);
  }

  stages.begin("symbolic");
  bool rsc = req.condition == ConditionKind::Rsc;
  // The aligned lines' stores keep their expressions: the same-value lines' for the
  // symbolic check, the differing lines' for value evidence.
  std::vector<uint64_t> oldWatch = debug::watchedStores(alignment, false),
                        newWatch = debug::watchedStores(alignment, true);
  debug::traceSymbolic(oldV, ctx, rsc ? &oldV.slice.member : nullptr, req.maxExprNodes,
                       budget.share(kSymbolicShareOld, kFloorSeconds), stages, &oldWatch);
  debug::traceSymbolic(newV, ctx, rsc ? &newV.slice.member : nullptr, req.maxExprNodes,
                       budget.share(kSymbolicShareNew, kFloorSeconds), stages, &newWatch);
  for (Version *v : {&oldV, &newV}) {
    v->condition =
        rsc ? relevantSliceCondition(v->trace.symbolic, v->slice) : v->trace.symbolic.path;
    // One note per version, however many functions.
    std::string calls;
    for (const auto &c : v->trace.symbolic.concretizedCalls)
      calls += (calls.empty() ? "" : ", ") + c;
    if (!calls.empty())
      report.notes.push_back(v->name + " version: symbolic input flowed into " + calls +
                             " and was made concrete");
  }
  report.oldConstraints = oldV.condition.size();
  report.newConstraints = newV.condition.size();
  debug::checkSameValuesSymbolically(alignment, oldV, newV, ctx,
                                     budget.share(kSameValueCheckShare, kFloorSeconds), stages);

  stages.begin("compose");
  debug::Composition composition =
      debug::compose(req, ctx, oldV, newV, diffs,
                     budget.share(reverts.fixing.empty() ? kComposeShare : kComposeShareAfterRevert,
                                  kFloorSeconds),
                     report, stages);
  report.direction = composition.direction;
  std::vector<DebugCandidate> candidates = std::move(composition.candidates);
  // The first ranking's changed lines: the answer when the partitions agree (or the
  // composition did not get to decide), and a supplement when no deviation is in
  // changed code (a loop bound moved by one pins the input to one value per iteration
  // count, so Darwin's formulas are unsatisfiable there; a swapped argument changes a
  // value, not a branch). The old version's slice holds code the change deleted.
  bool anyChanged =
      std::any_of(candidates.begin(), candidates.end(), [](auto &c) { return c.inChangedRegion; });
  if (candidates.empty() || !anyChanged) {
    bool none = candidates.empty();
    for (auto &c : changedNew) {
      c.kind = none ? "changed computation" : "changed code";
      candidates.push_back(std::move(c));
    }
    for (auto &c : changedOld)
      candidates.push_back(std::move(c));
    if (none && candidates.empty())
      report.notes.push_back(
          "no line of either version's slice is in a changed region of the source diff");
  } else {
    // The deviations are branches. A rewritten function's cause is often a value (a
    // bound off by one) with no symbolic branch of its own: the slices' other changed
    // lines stay candidates, ranked by their own evidence behind the deviations'.
    auto present = [&](const DebugCandidate &c) {
      return std::any_of(candidates.begin(), candidates.end(), [&](const DebugCandidate &d) {
        return d.version == c.version && d.file == c.file && d.line == c.line;
      });
    };
    for (auto *side : {&changedNew, &changedOld})
      for (auto &c : *side)
        if (!present(c)) {
          c.kind = side == &changedNew ? "changed computation" : "missing code";
          c.fromSliceOnly = true;
          candidates.push_back(std::move(c));
        }
  }
  candidates.insert(candidates.end(), memoryCauses.begin(), memoryCauses.end());
  debug::applyAlignment(alignment, candidates);
  for (auto &c : candidates)
    debug::presentOnNewSide(c, newV.root, diffs);
  debug::addReorderedReaders(alignment, newV, diffs, candidates);

  stages.begin("evidence");
  // The unit test stage comes after the ranking; it keeps a share of the budget.
  double unitTestReserve = 0;
  if (req.carveStages && req.budgetSeconds > 0) {
    unitTestReserve = std::min(kUnitTestMaxSeconds, kUnitTestShare * req.budgetSeconds);
    if (debug::localDarwinCertain(req, report))
      unitTestReserve += std::min(kLocalDarwinMaxSeconds, kLocalDarwinShare * req.budgetSeconds);
  }
  debug::gatherEvidence(candidates, oldV, newV, req.input, report.oldRun, report.newRun, work.path,
                        req.timeoutSeconds, budget.before(kReportReserveSeconds + unitTestReserve),
                        stages, report.stderrCounts);
  // Changed computations: inputs of the failing partition where old and new compute the
  // same value at the line, and where they differ.
  debug::findValueEvidence(alignment, oldV, newV, ctx, req.input, work.path, req.timeoutSeconds,
                           budget.before(kReportReserveSeconds + unitTestReserve), stages,
                           report.stderrCounts);

  // With --test the trials ran the failing process alone: the whole test runs on the
  // passing ones, in the order they would rank, with what the budget has left.
  if (req.runWholeTest && debug::anyToConfirm(reverts)) {
    stages.begin("whole test");
    std::vector<DebugCandidate> preview = candidates;
    std::erase_if(preview, [](const DebugCandidate &c) { return !c.neutral.empty(); });
    debug::applyRevertEvidence(reverts, preview, req);
    debug::applyNewWarnings(newWarnings, preview);
    debug::rankCandidates(preview, preview.size(), report.firstDivergence);
    debug::confirmFixes(req, reverts, preview,
                        budget.before(kReportReserveSeconds + unitTestReserve), report, stages);
  }
  stages.begin("rank");
  // A neutral hunk (layout, a consistent rename) is listed, never ranked.
  std::erase_if(candidates, [](const DebugCandidate &c) { return !c.neutral.empty(); });
  report.neutralEdits = diffs.neutralEdits();
  for (const auto &f : reverts.files)
    for (const DiffHunk &h : f.diff->changes.hunks) {
      for (unsigned l = 0; l < h.oldLines; ++l)
        report.oldChangedLines[f.oldPath].insert(h.oldStart + l);
      for (unsigned l = 0; l < h.newLines; ++l)
        report.newChangedLines[f.newPath].insert(h.newStart + l);
    }
  debug::applyRevertEvidence(reverts, candidates, req);
  // A few backward passes over the new trace, and only when edits repaired two lines: a
  // bound of its own, so that a budget the evidence used up still gets the order.
  debug::orderRepairs(candidates, reverts, newV, Deadline::in(kRepairOrderSeconds));
  // A line the revert trials found holds no code in the trace (a function's header with a
  // changed parameter type): its function is the one whose text encloses it.
  for (DebugCandidate &c : candidates)
    if (c.function.empty() && c.line) {
      const std::vector<std::string> &fns = diffs.functionsOf(c.file, c.version == "new");
      if (c.line < fns.size())
        c.function = fns[c.line];
    }
  debug::applyAlignment(alignment, candidates); // with the symbolic check, and new units
  // Changed lines of the slices that compute the same values, ranked or not.
  std::vector<DebugCandidate> judged = candidates;
  judged.insert(judged.end(), hints.begin(), hints.end());
  for (auto &c : judged)
    debug::presentOnNewSide(c, newV.root, diffs);
  debug::applyAlignment(alignment, judged);
  for (const auto &c : judged)
    if (c.aligned == "same values" &&
        std::none_of(report.sameValueLines.begin(), report.sameValueLines.end(),
                     [&](const SameValueLine &s) { return s.file == c.file && s.line == c.line; }))
      report.sameValueLines.push_back({c.file, c.line, c.alignedDetail});
  debug::applyOutputSpectrum(spectrum, report, candidates);
  debug::applyTestSpectrum(testSpectrum, candidates);
  debug::applyNewWarnings(newWarnings, candidates);
  debug::explainCandidates(candidates,
                           req.input.outputFile.empty() ? "stdout" : req.input.outputFile);
  debug::rankCandidates(candidates, req.maxCandidates, report.firstDivergence);
  report.candidates = std::move(candidates);
  if (req.carveStages) {
    stages.begin("unit test");
    std::optional<debug::ChosenCall> chosen;
    // The test keeps time for local Darwin when that will run.
    double localReserve = 0;
    if (debug::localDarwinCertain(req, report))
      localReserve = std::min(kLocalDarwinMaxSeconds, kLocalDarwinShare * budget.remaining());
    try { // evidence, never a reason for the report not to come out
      chosen = debug::makeDifferentialUnitTest(
          oldV, newV, req.input, diffs.wholeChangeRenames(), work.path,
          budget.before(kReportReserveSeconds + localReserve), stages, report);
    } catch (const std::exception &e) {
      stages.note(std::string("no differential unit test: ") + e.what());
    }
    if (chosen && debug::wantsLocalDarwin(req, report, *chosen)) {
      stages.begin("local darwin");
      Deadline local = budget.before(kReportReserveSeconds);
      if (req.budgetSeconds <= 0 || local.remaining() > kLocalDarwinMaxSeconds)
        local = Deadline::in(kLocalDarwinMaxSeconds);
      try {
        debug::composeLocally(req, oldV, newV, *chosen, local, stages, report);
      } catch (const std::exception &e) {
        stages.note(std::string("no local Darwin: ") + e.what());
      }
    }
  }
  stages.end();
  if (req.progress)
    req.progress->finish();
  report.totalSeconds = std::chrono::duration<double>(Deadline::Clock::now() - start).count();
  return report;
}

} // namespace rootline
