// Fix validation: the failing test, a solver proof over the failing input's partition,
// and native runs of the neighbouring partitions (DESIGN.md 2.7).
#include "rootline/validate.h"

#include "rootline/error.h"

#include <chrono>
#include <set>

namespace rootline {

namespace {

using Clock = std::chrono::steady_clock;

// One version, built and traced symbolically on the failing input.
struct Side : AnalysedVersion {
  SymbolicTrace trace;
  std::vector<PathConstraint> condition; // RSC of every output
};

bool sameBehaviour(const RunSummary &a, const RunSummary &b) {
  return a.stdoutBytes == b.stdoutBytes && a.outcome == b.outcome;
}

// False when the deadline cut the replay or the slice: the condition then describes
// less than the partition and proves nothing.
bool traceSide(Side &s, const ProgramInput &input, z3::context &ctx, const fs::path &dir,
               double timeout, const Deadline &deadline, Progress *progress) {
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
  return slice.complete;
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

// out = out_fix as a formula: the symbolic stdout values of both runs, aligned by the
// byte range they printed (on the failing input both print the same bytes). A value
// symbolic on one side only must keep the value it had on this run.
z3::expr outputsEqual(z3::context &ctx, const Side &good, const Side &fix, unsigned &compared) {
  std::map<std::pair<uint64_t, uint64_t>, const SymbolicOutput *> fixAt;
  for (const auto &o : fix.trace.symbolic.outputs)
    if (o.fd == 1)
      fixAt[{o.offset, o.length}] = &o;
  std::vector<InputVar> vars = good.trace.symbolic.inputs;
  z3::expr all = ctx.bool_val(true);
  std::set<std::pair<uint64_t, uint64_t>> matched;
  for (const auto &o : good.trace.symbolic.outputs) {
    if (o.fd != 1)
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
    if (o.fd == 1 && !matched.count({o.offset, o.length})) {
      ++compared;
      all = all && o.value == seedValueOf(ctx, fix.trace.symbolic.inputs, o.value);
    }
  return all;
}

std::vector<InputVar> unionOfInputs(const Side &a, const Side &b) {
  std::vector<InputVar> out = a.trace.symbolic.inputs;
  std::set<std::string> names;
  for (const auto &v : out)
    names.insert(v.name);
  for (const auto &v : b.trace.symbolic.inputs)
    if (names.insert(v.name).second)
      out.push_back(v);
  return out;
}

// "src/stats.c:29": the constraint's line, relative to its version's tree.
std::string where(const PathConstraint &c, const fs::path &root) {
  SourceLocation loc = ModuleIndex::locationOf(c.inst);
  fs::path rel =
      fs::path(loc.path()).lexically_normal().lexically_relative(root.lexically_normal());
  std::string file = rel.empty() || *rel.begin() == ".." ? loc.path() : rel.string();
  return file + ":" + std::to_string(loc.line);
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
  // The bad version is only run natively; good and fix are traced and analysed.
  Side good, fix;
  good.name = "good";
  good.root = req.goodRoot;
  fix.name = "fix";
  fix.root = req.fixRoot;
  Progress quiet;
  Progress &progress = req.progress ? *req.progress : quiet;
  progress.stage("build");
  buildAnalysedVersion(good, req.goodRecipe);
  fs::path badNative = buildNativeVersion("bad", req.badRecipe);
  buildAnalysedVersion(fix, req.fixRecipe);
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
                     req.expectedStdout.value_or(report.goodRun.stdoutBytes)};
  if (report.goodRun.stdoutBytes != report.expected.stdoutBytes)
    throw Error("the test fails on the good version: its output differs from --expect");
  if (sameBehaviour(report.badRun, report.expected))
    throw Error("the test passes on the bad version: there is no failure for the fix to remove");
  report.testPasses = sameBehaviour(report.fixRun, report.expected);

  // The proof over the failing input's partition of the good version.
  z3::context ctx;
  // Both traces and their slices get up to 60% of the budget, the proof and the
  // neighbouring runs the rest.
  progress.stage("symbolic", "good version");
  bool complete =
      traceSide(good, req.input, ctx, work / "tg", timeout(), deadline.share(0.3, 0.5), &progress);
  progress.stage("symbolic", "fix");
  complete = complete && traceSide(fix, req.input, ctx, work / "tf", timeout(),
                                   deadline.share(0.45, 0.5), &progress);
  report.goodConstraints = good.condition.size();
  report.fixConstraints = fix.condition.size();
  for (const Side *s : {&good, &fix})
    for (const auto &c : s->trace.symbolic.concretizedCalls)
      report.notes.push_back(s->name + " version: symbolic input flowed into " + c +
                             " and was made concrete, so the proof covers less than the partition");
  std::vector<InputVar> vars = unionOfInputs(good, fix);
  z3::solver base(ctx);
  auto check = [&](z3::solver &s) {
    ++report.solverCalls;
    s.set("timeout", deadline.clampMs(req.solverTimeoutMs));
    return s.check();
  };
  for (const Side *s : {&good, &fix})
    for (const auto &d : s->trace.symbolic.domain)
      base.add(d);

  auto runBoth = [&](Disagreement &d, const std::string &dir) {
    d.good = runInputNatively(good.native, d.input, work / dir / "good", timeout(),
                              kMadeUpInputOutputLimit);
    d.fix = runInputNatively(fix.native, d.input, work / dir / "fix", timeout(),
                             kMadeUpInputOutputLimit);
    d.confirmed = !sameBehaviour(d.good, d.fix);
  };
  if (!report.testPasses) {
    report.proof = "not proved: the failing test does not pass on the fix";
  } else if (!complete) {
    report.proof = "not proved: the time budget ended before both symbolic runs were complete";
    report.notes.push_back("budget: symbolic replay or slicing stopped at the time budget; "
                           "no proof and no neighbouring inputs were tried");
  } else {
    progress.stage("prove");
    base.push();
    for (const Side *s : {&good, &fix})
      for (const auto &c : s->condition)
        base.add(c.taken);
    base.add(!outputsEqual(ctx, good, fix, report.outputsCompared));
    z3::check_result r = check(base);
    if (r == z3::unsat) {
      report.proof = "proved";
    } else if (r == z3::sat) {
      Disagreement d;
      d.how = "counterexample to the proof: in both partitions, different output";
      d.input = applyModel(req.input, vars, base.get_model());
      runBoth(d, "cex");
      report.proof = d.confirmed ? "refuted"
                                 : "not proved: the solver's counterexample behaves alike when run "
                                   "natively (the symbolic model is incomplete here)";
      report.counterexample = d;
    } else if (deadline.expired()) {
      report.proof = "not proved: the time budget ended during the proof";
    } else {
      report.proof = "not proved: the solver gave up (" + base.reason_unknown() + ")";
    }
    base.pop();
  }

  // Neighbouring partitions: inputs in one version's partition that leave the other's at
  // one constraint, then inputs that leave the good partition at one constraint.
  std::set<ProgramInput, bool (*)(const ProgramInput &, const ProgramInput &)> tried(
      [](const ProgramInput &a, const ProgramInput &b) {
        return std::tie(a.stdinBytes, a.args) < std::tie(b.stdinBytes, b.args);
      });
  tried.insert(req.input);
  bool cutNeighbours = false;
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
        d.input = applyModel(req.input, vars, base.get_model());
        if (tried.insert(d.input).second) {
          ++report.neighboursTried;
          d.how = "leaves the " + version.name + " version's partition at " +
                  where(leave[i], version.root);
          runBoth(d, "n" + std::to_string(report.neighboursTried));
          if (d.confirmed)
            report.disagreements.push_back(d);
        }
      }
      base.pop();
      base.add(leave[i].taken);
    }
    base.pop();
  };
  if (complete) {
    progress.stage("neighbours");
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

  report.accepted = report.testPasses && report.proof == "proved" && report.disagreements.empty();
  if (report.accepted)
    report.verdict = "accepted: the fix passes the failing test, computes the good version's "
                     "output for every input in both versions' partitions of the failing input, "
                     "and agrees with it on " +
                     std::to_string(report.neighboursTried) + " neighbouring input(s)";
  else if (!report.testPasses)
    report.verdict = "rejected: the failing test still fails on the fix";
  else if (!report.disagreements.empty())
    report.verdict = "rejected: the fix and the good version disagree on " +
                     std::to_string(report.disagreements.size()) + " input(s), run natively";
  else
    report.verdict = "not accepted: " + report.proof;
  std::error_code ec;
  fs::remove_all(work, ec);
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

} // namespace rootline
