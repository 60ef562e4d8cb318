// Fix validation: the failing test, a solver proof over the failing input's partition,
// and native runs of the neighbouring partitions (DESIGN.md 2.7).
#include "rootline/validate.h"

#include "rootline/alignment.h"
#include "rootline/closest_input.h"
#include "rootline/error.h"
#include "rootline/output_values.h"
#include "rootline/solver_context.h"
#include "rootline/text_diff.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

namespace rootline {

namespace {

using Clock = std::chrono::steady_clock;

// One version, built and traced symbolically on the failing input.
struct Side : AnalysedVersion {
  SymbolicTrace trace;
  std::vector<PathConstraint> condition; // RSC of every output
  // RSC of the output lines the failing test got wrong (the good version's): the
  // failing input's partition as far as the failure goes.
  std::vector<PathConstraint> failureCondition;
};

bool sameBehaviour(const RunSummary &a, const RunSummary &b) {
  return a.stdoutBytes == b.stdoutBytes && a.outcome == b.outcome;
}

// False when the deadline cut the replay or the slice: the condition then describes
// less than the partition and proves nothing. `failingValues`: the values the failing
// test got wrong, whose slice is the failure's partition (docs/validate.md, "Values").
bool traceSide(Side &s, const ProgramInput &input, z3::context &ctx, const fs::path &dir,
               double timeout, const Deadline &deadline, Progress *progress,
               const std::vector<ValuePlace> &failingValues = {}) {
  ReplayLimits limits{deadline, {}};
  if (progress)
    limits.progress = [progress](uint64_t n) {
      progress->update(std::to_string(n) + " instances replayed");
    };
  s.trace = traceSymbolic(s.program, *s.module.module, *s.index, input, ctx, dir, timeout,
                          s.analysis.get(), limits);
  if (s.trace.replay.outcome == RunOutcome::Stopped)
    return false;
  std::vector<CriterionSeed> seeds;
  try {
    seeds = resolveCriterion("output", s.trace.dynamic, *s.index);
  } catch (const Error &) {
    return true; // prints nothing: no output depends on anything
  }
  Slice slice = computeSlice(s.trace.dynamic, *s.index, *s.analysis, seeds, true, deadline);
  s.condition = relevantSliceCondition(s.trace.symbolic, slice);
  std::string printed = loggedOutput(s.trace.dynamic);
  std::vector<CriterionSeed> failing;
  // A value this run did not print (a missing line): its absence is the failure.
  for (const ValuePlace &place : failingValues)
    if (auto bytes = placeBytes(printed, place))
      for (auto &seed : outputSeeds(s.trace.dynamic, *s.index, 1, bytes->first, bytes->second))
        failing.push_back(seed);
  if (!failing.empty()) {
    Slice f = computeSlice(s.trace.dynamic, *s.index, *s.analysis, failing, true, deadline);
    s.failureCondition = relevantSliceCondition(s.trace.symbolic, f);
    return slice.complete && f.complete;
  }
  s.failureCondition = s.condition;
  return slice.complete;
}

// The source names of the values a traced run printed, by place: the variable each
// printf argument was loaded from ("bonus"); none for a computed value or literal text.
std::map<ValuePlace, std::string> printedNames(const Side &s) {
  std::map<ValuePlace, std::string> names;
  std::string printed = loggedOutput(s.trace.dynamic);
  for (const ComparedValue &c : compareValues({printed})) {
    auto bytes = placeBytes(printed, c.place);
    if (!bytes || !c.place.value)
      continue;
    for (const auto &p : s.trace.dynamic.outputs) {
      if (p.fd != 1 || p.arg == 0 || bytes->first < p.offset ||
          bytes->first >= p.offset + p.bytes.size())
        continue;
      auto *call =
          llvm::cast<llvm::CallBase>(s.index->instruction(s.trace.dynamic.records.id(p.instance)));
      if (auto op = outputOperand(call, p.arg); op && *op < call->arg_size()) {
        std::string name = valueName(call->getArgOperand(*op));
        if (!name.empty())
          names[c.place] = name;
      }
      break;
    }
  }
  return names;
}

// The value an expression has on the traced run (inputs at their seed values).
z3::expr seedValueOf(z3::context &ctx, const std::vector<InputVar> &vars, const z3::expr &e) {
  z3::expr_vector from(ctx), to(ctx);
  for (const auto &v : vars) {
    from.push_back(ctx.bv_const(v.name.c_str(), v.bits));
    to.push_back(ctx.bv_val(static_cast<uint64_t>(v.seedValue), v.bits));
  }
  z3::expr copy = e;
  return copy.substitute(from, to).simplify();
}

using ByteRanges = std::vector<std::pair<size_t, size_t>>;

bool overlaps(const ByteRanges &ranges, uint64_t offset, uint64_t length) {
  return ranges.empty() || std::any_of(ranges.begin(), ranges.end(), [&](const auto &r) {
           return offset < r.second && r.first < offset + length;
         });
}

// out = out_fix as a formula: the symbolic stdout values of both runs, aligned by the
// byte range they printed (on the failing input both print the same bytes), those in
// `ranges` (empty: all). A value symbolic on one side only must keep the value it had
// on this run.
z3::expr outputsEqual(z3::context &ctx, const Side &good, const Side &fix, const ByteRanges &ranges,
                      unsigned &compared) {
  std::map<std::pair<uint64_t, uint64_t>, const SymbolicOutput *> fixAt;
  for (const auto &o : fix.trace.symbolic.outputs)
    if (o.fd == 1)
      fixAt[{o.offset, o.length}] = &o;
  std::vector<InputVar> vars = good.trace.symbolic.inputs;
  z3::expr all = ctx.bool_val(true);
  std::set<std::pair<uint64_t, uint64_t>> matched;
  for (const auto &o : good.trace.symbolic.outputs) {
    if (o.fd != 1 || !overlaps(ranges, o.offset, o.length))
      continue;
    ++compared;
    auto it = fixAt.find({o.offset, o.length});
    if (it != fixAt.end() &&
        it->second->value.get_sort().bv_size() == o.value.get_sort().bv_size()) {
      all = all && o.value == it->second->value;
      matched.insert(it->first);
    } else {
      all = all && o.value == seedValueOf(ctx, vars, o.value);
    }
  }
  for (const auto &o : fix.trace.symbolic.outputs)
    if (o.fd == 1 && overlaps(ranges, o.offset, o.length) && !matched.count({o.offset, o.length})) {
      ++compared;
      all = all && o.value == seedValueOf(ctx, fix.trace.symbolic.inputs, o.value);
    }
  return all;
}

// "src/stats.c:29": the constraint's line, relative to its version's tree.
std::string where(const PathConstraint &c, const fs::path &root) {
  SourceLocation loc = ModuleIndex::locationOf(c.inst);
  fs::path rel =
      fs::path(loc.path()).lexically_normal().lexically_relative(root.lexically_normal());
  std::string file = rel.empty() || *rel.begin() == ".." ? loc.path() : rel.string();
  return file + ":" + std::to_string(loc.line);
}

// The lines the fix changed against the bad version, by the fix's file (relative to its
// tree); files the bad version lacks count as wholly changed.
class FixChanges {
public:
  FixChanges(const fs::path &badRoot, const fs::path &fixRoot) : bad_(badRoot), fix_(fixRoot) {}
  bool changed(const std::string &file, unsigned line) {
    auto it = diffs_.find(file);
    if (it == diffs_.end()) {
      std::optional<TextDiff> d;
      if (fs::is_regular_file(fix_ / file))
        d = diffTexts(fs::is_regular_file(bad_ / file) ? readFile(bad_ / file) : "",
                      readFile(fix_ / file));
      it = diffs_.emplace(file, std::move(d)).first;
    }
    return it->second && it->second->changedInNew(line);
  }

private:
  fs::path bad_, fix_;
  std::map<std::string, std::optional<TextDiff>> diffs_;
};

// The three-way class of an input (validate.h, Disagreement), value by value
// (docs/validate.md, "Values"): a fix may restore the values the test failed on and keep
// the bad version's other changes, on the same line too. A value like neither version's
// is new behaviour; a failing value (`failing`: those the test got wrong) like the bad
// version's, inside the failure's partition, is still failing; any other value like the
// bad version's keeps its change. `reverts`: some value the bad version changed on
// purpose (not a failing one, or outside the partition) is back to the good version's.
// Each value where the three differ is kept in d.values, named from `names`.
std::string classify(Disagreement &d, const std::vector<ValuePlace> &failing,
                     const std::map<ValuePlace, std::string> &names, bool &reverts) {
  reverts = false;
  d.values.clear();
  bool introduced = d.fix.outcome != d.good.outcome && d.fix.outcome != d.bad.outcome;
  bool stillFailing = false, kept = false;
  for (const ComparedValue &c :
       compareValues({d.good.stdoutBytes, d.bad.stdoutBytes, d.fix.stdoutBytes})) {
    if (c.same())
      continue;
    const auto &g = c.texts[0], &b = c.texts[1], &f = c.texts[2];
    bool intended = !covers(failing, c.place) || !d.insideFailure;
    ValueVerdict v;
    v.place = c.place;
    if (auto it = names.find(c.place); it != names.end())
      v.name = it->second;
    v.good = g;
    v.bad = b;
    v.fix = f;
    if (f == g) {
      v.verdict = "restored";
      reverts = reverts || intended;
    } else if (f == b) {
      v.verdict = intended ? "kept change" : "still failing";
      (intended ? kept : stillFailing) = true;
    } else {
      v.verdict = "new behaviour";
      introduced = true;
    }
    d.values.push_back(std::move(v));
  }
  if (introduced)
    return "new behaviour";
  if (stillFailing)
    return "still failing";
  if (sameBehaviour(d.fix, d.good))
    return sameBehaviour(d.good, d.bad) ? "same" : "restored";
  return kept ? "kept change" : "restored";
}

} // namespace

ValidateReport validateFix(const ValidateRequest &req) {
  auto start = Clock::now();
  ValidateReport report;
  report.goodLabel = req.goodLabel;
  report.badLabel = req.badLabel;
  report.fixLabel = req.fixLabel;
  report.goodCommit = req.goodCommit;
  report.badCommit = req.badCommit;
  report.fixCommit = req.fixCommit;
  report.repository = req.repository;
  report.input = req.input;
  // Before the sides: their conditions hold expressions of it, destroyed first. The
  // context itself is destroyed on the reaper thread (rootline/solver_context.h).
  SolverContext solver;
  z3::context &ctx = solver.get();
  // The bad version is only run natively; good and fix are traced and analysed.
  Side good, fix;
  good.name = "good";
  good.root = req.goodRoot;
  fix.name = "fix";
  fix.root = req.fixRoot;
  Progress quiet;
  Progress &progress = req.progress ? *req.progress : quiet;
  progress.stage("build");
  if (req.goodBuilt)
    analyseBuiltVersion(good, *req.goodBuilt);
  else
    buildAnalysedVersion(good, req.goodRecipe);
  fs::path badNative = req.badNative ? *req.badNative : buildNativeVersion("bad", req.badRecipe);
  if (req.fixBuilt)
    analyseBuiltVersion(fix, *req.fixBuilt);
  else
    buildAnalysedVersion(fix, req.fixRecipe);
  report.notes.insert(report.notes.end(), req.leadNotes.begin(), req.leadNotes.end());
  fs::path work = makeWorkDir("validate");
  // Builds are cached and not cut; the budget covers runs, replay and the solver.
  Deadline deadline = req.budgetSeconds > 0 ? Deadline::in(req.budgetSeconds) : Deadline{};
  auto timeout = [&] { return deadline.clamp(req.timeoutSeconds); };

  // The failing test on all three.
  progress.stage("test", "the failing input on good, bad and fix");
  report.goodRun = runInputNatively(good.native, req.input, work / "good", timeout());
  report.badRun = runInputNatively(badNative, req.input, work / "bad", timeout());
  report.fixRun = runInputNatively(fix.native, req.input, work / "fix", timeout());
  report.expected = {report.goodRun.outcome,
                     req.expectedStdout.value_or(report.goodRun.stdoutBytes), 0, ""};
  if (report.goodRun.stdoutBytes != report.expected.stdoutBytes)
    throw Error("the test fails on the good version: its output differs from --expect");
  if (sameBehaviour(report.badRun, report.expected))
    throw Error("the test passes on the bad version: there is no failure for the fix to remove");
  report.testPasses = sameBehaviour(report.fixRun, report.expected);
  std::vector<ValuePlace> failingValues =
      differingValues(report.expected.stdoutBytes, report.badRun.stdoutBytes);
  report.failingValues = failingValues;

  // The proof over the failing input's partition of the good version.
  // Both traces and their slices get up to 60% of the budget, the proof and the
  // neighbouring runs the rest.
  progress.stage("symbolic", "good version");
  bool complete = traceSide(good, req.input, ctx, work / "tg", timeout(), deadline.share(0.3, 0.5),
                            &progress, failingValues);
  progress.stage("symbolic", "fix");
  complete = complete && traceSide(fix, req.input, ctx, work / "tf", timeout(),
                                   deadline.share(0.45, 0.5), &progress, failingValues);
  report.goodConstraints = good.condition.size();
  report.fixConstraints = fix.condition.size();
  for (const Side *s : {&good, &fix})
    for (const auto &c : s->trace.symbolic.concretizedCalls)
      report.notes.push_back(s->name + " version: symbolic input flowed into " + c +
                             " and was made concrete, so the proof covers less than the partition");
  std::vector<InputVar> vars = unionOfInputs(good.trace.symbolic.inputs, fix.trace.symbolic.inputs);
  z3::solver base(ctx);
  auto check = [&](z3::solver &s) {
    ++report.solverCalls;
    s.set("timeout", deadline.clampMs(req.solverTimeoutMs));
    return s.check();
  };
  for (const Side *s : {&good, &fix})
    for (const auto &d : s->trace.symbolic.domain)
      base.add(d);

  // Every input runs on all three versions and is classified; the reports keep the ones
  // where the fix differs from the good version, and those where it reverts a change.
  auto runAll = [&](Disagreement &d, const std::string &dir) {
    d.good = runInputNatively(good.native, d.input, work / dir / "good", timeout(),
                              kMadeUpInputOutputLimit);
    d.bad = runInputNatively(badNative, d.input, work / dir / "bad", timeout(),
                             kMadeUpInputOutputLimit);
    d.fix = runInputNatively(fix.native, d.input, work / dir / "fix", timeout(),
                             kMadeUpInputOutputLimit);
    d.confirmed = !sameBehaviour(d.good, d.fix);
  };
  std::map<ValuePlace, std::string> names = printedNames(good);
  for (const ValuePlace &p : failingValues)
    if (auto it = names.find(p); it != names.end())
      report.failingNames[placeText(p)] = it->second;
  auto record = [&](Disagreement &d) {
    bool reverts = false;
    d.verdict = classify(d, failingValues, names, reverts);
    if (d.confirmed)
      report.disagreements.push_back(d);
    if (reverts)
      report.reverted.push_back(d);
  };
  // A model as an input: the one closest to the failing input the solver finds (a
  // boundary value next to it, not an arbitrary one), within a short deadline.
  auto inputOf = [&](z3::solver &s, Disagreement &d,
                     const std::optional<z3::model> &near = std::nullopt) {
    // Near the failing input, or near another model (missing values: the failing input's).
    ClosestInput closer(s, vars, [&](const InputVar &v) -> std::optional<uint64_t> {
      if (near)
        if (auto value = modelValue(*near, v))
          return value;
      return valueIn(req.input, v);
    });
    z3::model m = closer.closest(z3::expr_vector(ctx), s.get_model(), deadline.atMost(1.0));
    report.solverCalls += closer.checks();
    d.input = applyModel(req.input, vars, m);
    d.changes = describeInputChanges(req.input, vars, m);
    return m;
  };
  // Whether a model is in the failing input's partition of the good version, as far as
  // the failing lines go.
  // Inputs the model leaves out keep the failing input's values.
  auto inGoodPartition = [&](const z3::model &m) {
    return std::all_of(good.failureCondition.begin(), good.failureCondition.end(),
                       [&](const PathConstraint &g) {
                         return seedValueOf(ctx, vars, m.eval(g.taken, false)).simplify().is_true();
                       });
  };
  if (!report.testPasses) {
    report.proof = "not proved: the failing test does not pass on the fix";
  } else if (!complete) {
    report.proof = "not proved: the time budget ended before both symbolic runs were complete";
    report.notes.push_back("budget: symbolic replay or slicing stopped at the time budget; "
                           "no proof and no neighbouring inputs were tried");
  } else {
    // The proof is over the values the test got wrong, in both versions' partitions of
    // the failing input as far as those values go: an intended change the fix keeps in
    // another value is not against it (docs/validate.md, "Values").
    progress.stage("prove");
    ByteRanges failingBytes;
    for (const ValuePlace &p : failingValues)
      if (auto bytes = placeBytes(report.expected.stdoutBytes, p))
        failingBytes.push_back(*bytes);
    base.push();
    for (const Side *s : {&good, &fix})
      for (const auto &c : s->failureCondition)
        base.add(c.taken);
    base.add(!outputsEqual(ctx, good, fix, failingBytes, report.outputsCompared));
    z3::check_result r = check(base);
    if (r == z3::unsat) {
      report.proof = "proved";
    } else if (r == z3::sat) {
      Disagreement d;
      d.how = "counterexample to the proof: in both partitions, a value the test got wrong differs";
      d.insideFailure = inGoodPartition(inputOf(base, d));
      runAll(d, "cex");
      bool reverts = false;
      d.verdict = classify(d, failingValues, names, reverts);
      bool counted = d.verdict == "new behaviour" || d.verdict == "still failing";
      report.proof = d.confirmed && counted
                         ? "refuted"
                         : "not proved: the solver's counterexample behaves alike where the test "
                           "failed when run natively (the symbolic model is incomplete here)";
      report.counterexample = d;
    } else if (deadline.expired()) {
      report.proof = "not proved: the time budget ended during the proof";
    } else {
      report.proof = "not proved: the solver gave up (" + base.reason_unknown() + ")";
    }
    base.pop();
    // Every other value too, in the partitions of every output: an input where one
    // differs is run and judged like a neighbour (a kept change is listed, not counted).
    if (report.proof == "proved" && !deadline.expired()) {
      base.push();
      for (const Side *s : {&good, &fix})
        for (const auto &c : s->condition)
          base.add(c.taken);
      unsigned all = 0;
      base.add(!outputsEqual(ctx, good, fix, {}, all));
      if (check(base) == z3::sat) {
        Disagreement d;
        d.how = "in both partitions of every output, another value differs";
        d.insideFailure = inGoodPartition(inputOf(base, d));
        runAll(d, "other");
        ++report.neighboursTried;
        record(d);
      }
      base.pop();
    }
  }

  // Neighbouring partitions: inputs in one version's partition that leave the other's at
  // one constraint, then inputs that leave the good partition at one constraint.
  std::set<ProgramInput, bool (*)(const ProgramInput &, const ProgramInput &)> tried(
      [](const ProgramInput &a, const ProgramInput &b) {
        return std::tie(a.stdinBytes, a.args) < std::tie(b.stdinBytes, b.args);
      });
  tried.insert(req.input);
  bool cutNeighbours = false;
  // Both sides of each condition the fix changed (against the bad version): the input
  // nearest the failing one that flips it (`qty >= 9` flipped at `qty = 8`), then the
  // input nearest that one that does not (`qty = 9`): boundary values. Tried first: a
  // fix is most likely wrong where it changed something.
  FixChanges fixChanges(req.badRoot, req.fixRoot);
  auto boundaries = [&] {
    std::set<std::pair<const llvm::Instruction *, uint32_t>> asked;
    for (const auto &c : fix.condition) {
      if (report.neighboursTried >= req.maxNeighbours)
        break;
      if (deadline.expired()) {
        cutNeighbours = true;
        break;
      }
      std::string at = where(c, fix.root);
      std::string file = at.substr(0, at.rfind(':'));
      if (!fixChanges.changed(file, ModuleIndex::locationOf(c.inst).line) ||
          !asked.insert({c.inst, c.successor}).second)
        continue;
      progress.update(std::to_string(report.neighboursTried) + " neighbouring inputs run");
      auto tryInput = [&](Disagreement &d, const z3::model &m, const std::string &how) {
        if (!tried.insert(d.input).second || report.neighboursTried >= req.maxNeighbours)
          return;
        ++report.neighboursTried;
        d.how = how;
        d.where = at;
        d.insideFailure = inGoodPartition(m);
        runAll(d, "b" + std::to_string(report.neighboursTried));
        record(d);
      };
      std::optional<z3::model> flipped;
      base.push();
      base.add(!c.taken);
      if (check(base) == z3::sat) {
        Disagreement d;
        flipped = inputOf(base, d);
        tryInput(d, *flipped, "flips the fix's changed condition at " + at);
      }
      base.pop();
      if (flipped && !deadline.expired()) {
        base.push();
        base.add(c.taken);
        if (check(base) == z3::sat) {
          Disagreement d;
          z3::model m = inputOf(base, d, flipped);
          tryInput(d, m, "keeps the fix's changed condition at " + at + " next to its boundary");
        }
        base.pop();
      }
    }
  };
  auto neighbours = [&](const std::vector<PathConstraint> &inside,
                        const std::vector<PathConstraint> &leave, const Side &version) {
    base.push();
    for (const auto &c : inside)
      base.add(c.taken);
    for (size_t i = 0; i < leave.size() && report.neighboursTried < req.maxNeighbours; ++i) {
      if (deadline.expired()) {
        cutNeighbours = true;
        break;
      }
      progress.update(std::to_string(report.neighboursTried) + " neighbouring inputs run");
      base.push();
      base.add(!leave[i].taken);
      if (check(base) == z3::sat) {
        Disagreement d;
        z3::model m = inputOf(base, d);
        if (tried.insert(d.input).second) {
          ++report.neighboursTried;
          d.where = where(leave[i], version.root);
          d.how = "leaves the " + version.name + " version's partition at " + d.where;
          d.insideFailure = inGoodPartition(m);
          runAll(d, "n" + std::to_string(report.neighboursTried));
          record(d);
        }
      }
      base.pop();
      base.add(leave[i].taken);
    }
    base.pop();
  };
  if (complete) {
    progress.stage("neighbours");
    boundaries();
    neighbours(good.condition, fix.condition, fix);
    neighbours(fix.condition, good.condition, good);
    neighbours({}, good.condition, good);
  }
  if (cutNeighbours)
    report.notes.push_back("budget: the time budget ended after " +
                           std::to_string(report.neighboursTried) +
                           " neighbouring input(s); the others were not tried");
  if (report.counterexample && report.counterexample->confirmed)
    report.disagreements.insert(report.disagreements.begin(), *report.counterexample);

  // What the verdict covers.
  if (report.proof == "proved")
    report.scope.proved.push_back("the failing input's partition in the good version and the fix "
                                  "(" +
                                  std::to_string(report.goodConstraints) + " + " +
                                  std::to_string(report.fixConstraints) + " constraints)");
  else
    report.scope.skipped.push_back("the failing input's partition: " + report.proof);
  for (const auto &d : report.disagreements)
    report.scope.sampled.push_back(d.how);
  if (report.neighboursTried > report.disagreements.size())
    report.scope.sampled.push_back(
        std::to_string(report.neighboursTried - report.disagreements.size()) +
        " more neighbouring partition(s), where the fix and the good version agree");
  if (cutNeighbours)
    report.scope.skipped.push_back("neighbouring partitions after the time budget ended");
  else if (report.neighboursTried >= req.maxNeighbours)
    report.scope.skipped.push_back("neighbouring partitions past --max-neighbours (" +
                                   std::to_string(req.maxNeighbours) + ")");
  // The verdict from the classes (docs/validate.md, "Verdicts"): what the fix broke or
  // left broken rejects it; changes the bad version made on purpose do not.
  auto count = [&](const std::string &cls) {
    return static_cast<size_t>(
        std::count_if(report.disagreements.begin(), report.disagreements.end(),
                      [&](const Disagreement &d) { return d.verdict == cls; }));
  };
  size_t introduced = count("new behaviour"), failing = count("still failing"),
         kept = count("kept change");
  std::set<std::string> revertedAt;
  for (const auto &d : report.reverted)
    if (revertedAt.insert(d.where).second)
      report.warnings.push_back("also reverts the change at " +
                                (d.where.empty() ? std::string("another input") : d.where) +
                                ": on " + (d.changes.empty() ? "an input" : d.changes.front()) +
                                " the fix behaves like the good version, the bad one does not");
  report.accepted =
      report.testPasses && report.proof == "proved" && introduced == 0 && failing == 0;
  std::string keptText = kept ? "; " + std::to_string(kept) +
                                    " input(s) keep a change of the bad version, listed, not "
                                    "counted"
                              : "";
  if (report.accepted)
    report.verdict = "accepted: the fix passes the failing test, computes the good version's "
                     "output for every input in both versions' partitions of the failing input, "
                     "and introduces nothing new on " +
                     std::to_string(report.neighboursTried) + " neighbouring input(s)" + keptText;
  else if (!report.testPasses)
    report.verdict = "rejected: the failing test still fails on the fix";
  else if (introduced)
    report.verdict = "rejected: on " + std::to_string(introduced) +
                     " input(s) the fix behaves like neither the good nor the bad version" +
                     keptText;
  else if (failing)
    report.verdict = "rejected: on " + std::to_string(failing) +
                     " input(s) of the failing input's partition the fix still behaves like the "
                     "bad version" +
                     keptText;
  else
    report.verdict = "not accepted: " + report.proof + keptText;
  if (req.projectTestPassesOnFix && !*req.projectTestPassesOnFix) {
    report.accepted = false;
    report.verdict = "rejected: the project's test '" + req.projectTest + "' fails on the fix";
  }
  std::error_code ec;
  fs::remove_all(work, ec);
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

} // namespace rootline
