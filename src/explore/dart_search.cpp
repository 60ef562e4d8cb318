// Generational search (DART/SAGE): every run's path condition c1..cm yields children
// c1..c(i-1) ∧ ¬ci for the positions i past the run's bound; each child is run
// natively under the tracer and checked against the prefix it was predicted to take.
#include "rootline/explore.h"

#include "rootline/analysis.h"
#include "rootline/closest_input.h"
#include "rootline/error.h"
#include "rootline/expr_text.h"
#include "rootline/solver_context.h"

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <csignal>
#include <deque>
#include <map>
#include <optional>

namespace rootline {

namespace {

using Clock = std::chrono::steady_clock;

// A bug check without a model is asked again on at most this many paths to it in all.
constexpr size_t kCheckAsks = 6;
// Above this many formulas a child takes the solver's model as it is: checking the
// parent's values by evaluation would cost each query the whole path again. Per
// expanded run, at most kSeedEvaluationsPerRun formulas are evaluated in all (children
// of one path would otherwise cost its length squared).
constexpr size_t kMaxKeptSeedFormulas = 4000;
constexpr size_t kSeedEvaluationsPerRun = 200000;

using Candidate = ExploreCandidate;

// What a run contributes to the search: the constraint sequence the strategy negates
// (the path condition, the RSC, or the reordered RSC), and its partition.
struct RunView {
  std::vector<PathConstraint> seq;
  std::string partitionKey;
  std::string rscText;
  std::string outputText;
};

// Printed bytes as a C string literal.
std::string quoted(const std::string &bytes) {
  std::string out = "\"";
  for (unsigned char ch : bytes) {
    if (ch == '\n')
      out += "\\n";
    else if (ch == '\t')
      out += "\\t";
    else if (ch == '"' || ch == '\\')
      out += std::string("\\") + static_cast<char>(ch);
    else if (ch < 32 || ch >= 127) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", ch);
      out += buf;
    } else
      out += static_cast<char>(ch);
  }
  return out + "\"";
}

std::string signature(const std::vector<std::pair<uint32_t, uint32_t>> &seq) {
  std::string s;
  s.reserve(seq.size() * 8);
  for (auto [id, succ] : seq)
    s += std::to_string(id) + ":" + std::to_string(succ) + ",";
  return s;
}

std::string bugKindOfSignal(const SymbolicTrace &t) {
  switch (t.replay.signal) {
  case SIGFPE:
    return "div-by-zero";
  case SIGABRT:
    return "assert";
  case SIGSEGV:
  case SIGBUS:
    return "segfault";
  default:
    return "signal " + signalName(t.replay.signal);
  }
}

// Coverage counts over the whole module and per function, from the covered branch
// edges and lines.
void countCoverage(const ModuleIndex &index,
                   const std::set<std::pair<uint32_t, uint32_t>> &branchesCovered,
                   const std::set<std::pair<std::string, unsigned>> &linesCovered,
                   ExploreStats &stats) {
  std::set<std::pair<std::string, unsigned>> lines;
  size_t branchTotal = 0;
  // Per function: its lines (total and covered) and branch edges.
  std::map<std::string, std::set<std::pair<std::string, unsigned>>> fnLines, fnCovered;
  auto &functions = stats.functions;
  functions.clear();
  for (size_t id = 0; id < index.instructionCount(); ++id) {
    const llvm::Instruction *inst = index.instruction(static_cast<uint32_t>(id));
    std::string fn = inst->getFunction()->getName().str();
    SourceLocation loc = ModuleIndex::locationOf(inst);
    if (loc.valid()) {
      lines.insert({loc.file, loc.line});
      fnLines[fn].insert({loc.file, loc.line});
      if (linesCovered.count({loc.file, loc.line}))
        fnCovered[fn].insert({loc.file, loc.line});
    }
    if ((llvm::isa<llvm::BranchInst>(inst) || llvm::isa<llvm::SwitchInst>(inst)) &&
        inst->getNumSuccessors() > 1) {
      branchTotal += inst->getNumSuccessors();
      auto &c = functions[fn];
      c.branchesTotal += inst->getNumSuccessors();
      for (unsigned s = 0; s < inst->getNumSuccessors(); ++s)
        c.branchesCovered += branchesCovered.count({static_cast<uint32_t>(id), s});
    }
  }
  for (const auto &[fn, l] : fnLines) {
    functions[fn].linesTotal = l.size();
    functions[fn].linesCovered = fnCovered[fn].size();
  }
  stats.linesTotal = lines.size();
  stats.linesCovered = linesCovered.size();
  stats.branchesTotal = branchTotal;
  stats.branchesCovered = branchesCovered.size();
}

class Explorer {
public:
  Explorer(const TracedProgram &program, const ExploreOptions &options)
      : program_(program), options_(options), loaded_(loadModule(program.module.bitcode)),
        index_(*loaded_.module), analysis_(*loaded_.module, index_),
        workDir_(makeWorkDir("explore")) {
    z3::params p(ctx_);
    p.set("timeout", options.solverTimeoutMs);
    solverParams_ = std::make_unique<z3::params>(p);
  }
  ~Explorer() {
    std::error_code ec;
    fs::remove_all(workDir_, ec);
  }

  ExploreResult run(const ProgramInput &seed) {
    auto start = Clock::now();
    // 0 is no budget, as for debug.
    deadline_ = options_.timeBudgetSeconds > 0 ? Deadline::in(options_.timeBudgetSeconds)
                                               : Deadline::unlimited();
    // A shard starts from its part of the frontier, knowing what was found before.
    paths_ = options_.knownPaths;
    negated_ = options_.knownNegated;
    result_.partitionKeys = options_.knownPartitions;
    branchesCovered_ = options_.knownBranches;
    linesCovered_ = options_.knownLines;
    if (options_.frontier.empty())
      queue_.push_back({seed, 0, {}, false, 0});
    else
      queue_.assign(options_.frontier.begin(), options_.frontier.end());
    while (!queue_.empty() && result_.stats.runs < options_.maxRuns && !outOfTime()) {
      Candidate c = std::move(queue_.front());
      queue_.pop_front();
      step(c);
      if (options_.progress)
        options_.progress("run " + std::to_string(result_.stats.runs) + ", " +
                          std::to_string(result_.stats.distinctPaths) + " paths, " +
                          std::to_string(result_.bugs.size()) + " bugs, " +
                          std::to_string(queue_.size()) + " queued");
    }
    if (outOfTime() && !queue_.empty())
      result_.notes.push_back("budget: exploration stopped at the time budget with " +
                              std::to_string(queue_.size()) + " input(s) still queued");
    coverageTotals();
    result_.remaining.assign(std::make_move_iterator(queue_.begin()),
                             std::make_move_iterator(queue_.end()));
    result_.paths = paths_;
    result_.negated = negated_;
    result_.coveredBranches = branchesCovered_;
    result_.coveredLines = linesCovered_;
    if (longRuns_)
      result_.notes.push_back(std::to_string(longRuns_) + " run(s) passed the trace limit (" +
                              std::to_string(options_.maxTraceBytes >> 20) +
                              " MiB) and were not replayed: their paths are too long to use");
    result_.stats.partitions = static_cast<unsigned>(result_.partitionKeys.size());
    result_.stats.totalSeconds = elapsed(start);
    return std::move(result_);
  }

private:
  static double elapsed(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  }

  SymbolicTrace runInput(const ProgramInput &input) {
    ++result_.stats.runs;
    return traceSymbolic(program_, *loaded_.module, index_, input, ctx_,
                         workDir_ / ("run-" + std::to_string(result_.stats.runs)),
                         options_.runTimeoutSeconds, &analysis_, ReplayLimits{deadline_, {}},
                         options_.maxTraceBytes);
  }

  std::vector<std::pair<uint32_t, uint32_t>> idsOf(const std::vector<PathConstraint> &seq) {
    std::vector<std::pair<uint32_t, uint32_t>> out;
    for (const auto &c : seq)
      out.push_back({index_.idOf(c.inst), c.successor});
    return out;
  }

  // The criterion's value in this run, over the inputs: the symbolic expression of each
  // output piece it covers, or the bytes printed when they do not depend on inputs.
  std::string outputText(const SymbolicTrace &t, const std::vector<CriterionSeed> &seeds) {
    std::string text;
    for (const auto &seed : seeds)
      for (const auto &piece : t.dynamic.outputs) {
        if (piece.instance != seed.instance || (piece.fd != 1 && piece.fd != 2))
          continue;
        if (!seed.whole && piece.arg == 0)
          continue;
        std::string part;
        DisplayNames names = displayNamesOf(t.symbolic.inputs);
        for (const auto &o : t.symbolic.outputs)
          if (o.instance == piece.instance && o.offset == piece.offset && o.fd == piece.fd)
            part = readableExpr(o.value, &names);
        if (part.empty())
          part = quoted(piece.bytes);
        if (!text.empty())
          text += " ";
        text += part;
      }
    return text;
  }

  RunView view(const SymbolicTrace &t) {
    RunView v;
    std::vector<CriterionSeed> seeds;
    try {
      seeds = resolveCriterion(options_.criterion, t.dynamic, index_);
    } catch (const Error &) {
      // The criterion did not execute on this run: its partition is the empty RSC.
    }
    Slice slice = computeSlice(t.dynamic, index_, analysis_, seeds);
    std::vector<PathConstraint> rsc = relevantSliceCondition(t.symbolic, slice);
    v.partitionKey = signature(idsOf(rsc));
    DisplayNames names = displayNamesOf(t.symbolic.inputs);
    v.rscText = readableConjunction(rsc, &names);
    v.outputText = outputText(t, seeds);
    switch (options_.strategy) {
    case Strategy::Dart:
      v.seq = t.symbolic.path;
      break;
    case Strategy::NaiveRsc:
      v.seq = rsc;
      break;
    case Strategy::Rsc:
      v.seq = reorderRsc(rsc, t.dynamic, index_, analysis_);
      break;
    }
    return v;
  }

  // Queries over growing prefixes of one constraint sequence share one incremental
  // solver: the prefix is asserted once, each query is a push/check/pop. Path
  // conditions of long loops have tens of thousands of constraints; solving every
  // prefix from scratch would be quadratic.
  class PrefixSolver {
  public:
    PrefixSolver(Explorer &e, const SymbolicRun &run, const std::vector<PathConstraint> &seq,
                 const ProgramInput &seed)
        : e_(e), run_(run), seq_(seq), seed_(seed), s_(e.ctx_),
          floats_(std::any_of(run.inputs.begin(), run.inputs.end(),
                              [](const InputVar &v) { return v.isFloat(); })) {
      s_.set(*e.solverParams_);
      for (const auto &d : run.domain) {
        s_.add(d);
        bytes_ += d.to_string().size();
      }
    }
    // Satisfies seq[0..prefix) ∧ extra? Prefixes must not shrink between calls.
    std::optional<z3::model> solve(size_t prefix, const z3::expr &extra) {
      for (; added_ < prefix && added_ < seq_.size(); ++added_) {
        s_.add(seq_[added_].taken);
        bytes_ += seq_[added_].taken.to_string().size();
      }
      s_.push();
      s_.add(extra);
      ++e_.result_.stats.solverCalls;
      e_.result_.stats.formulaBytes += bytes_ + extra.to_string().size();
      auto t0 = Clock::now();
      // A float query first with the parent's float inputs fixed but one: the guards
      // it adds live inside this push.
      std::optional<z3::model> model;
      if (floats_) {
        model = ClosestInput(s_, seed_, run_.inputs)
                    .nearSeedFloats(z3::expr_vector(e_.ctx_), extra, e_.deadline_);
        timeoutMs_.reset(); // it set its own
      }
      if (model) {
        e_.result_.stats.solverSeconds += elapsed(t0);
        s_.pop();
        return model;
      }
      unsigned timeoutMs = e_.options_.solverTimeoutMs;
      if (floats_ && mentionsFloatInput(extra, run_.inputs))
        timeoutMs = std::min(timeoutMs, kFloatQueryMs);
      // Set only when it changes: Z3 re-reads every parameter of the solver on each set,
      // which on a long prefix costs more than a quick check.
      if (unsigned ms = e_.deadline_.clampMs(timeoutMs); timeoutMs_ != ms) {
        s_.set("timeout", ms);
        timeoutMs_ = ms;
      }
      z3::check_result r = s_.check();
      e_.result_.stats.solverSeconds += elapsed(t0);
      if (r == z3::sat)
        model = s_.get_model();
      else if (r == z3::unsat)
        ++e_.result_.stats.solverUnsat;
      else
        ++e_.result_.stats.solverUnknown;
      s_.pop();
      return model;
    }
    size_t asserted() const { return added_; }
    // From now on queries also require `c` (asserted at the current prefix).
    void assume(const z3::expr &c) { s_.add(c); }

  private:
    Explorer &e_;
    const SymbolicRun &run_;
    const std::vector<PathConstraint> &seq_;
    const ProgramInput &seed_;
    z3::solver s_;
    bool floats_; // the run read float inputs: only then are queries tried near the seed
    size_t added_ = 0;
    uint64_t bytes_ = 0;
    std::optional<unsigned> timeoutMs_; // the timeout last set on s_
  };

  bool outOfTime() const { return deadline_.expired(); }

  void step(const Candidate &c) {
    SymbolicTrace t = runInput(c.input);
    if (t.replay.outcome == RunOutcome::Stopped) {
      // A path cut short predicts nothing; the budget is spent anyway.
      result_.notes.push_back("budget: the replay of run " + std::to_string(result_.stats.runs) +
                              " stopped at the time budget; its input was not recorded");
      return;
    }
    if (t.replay.outcome == RunOutcome::Limit) { // stopped at the trace limit, not replayed
      ++longRuns_;
      return;
    }
    const SymbolicRun &sym = t.symbolic;
    result_.stats.concretizations += sym.concretizations;
    result_.stats.concretizedCalls.insert(sym.concretizedCalls.begin(), sym.concretizedCalls.end());
    for (const auto &b : t.branchesCovered)
      branchesCovered_.insert(b);
    for (const auto &l : t.linesCovered)
      linesCovered_.insert(l);

    RunView v = view(t);
    std::vector<std::pair<uint32_t, uint32_t>> symbolicSeq = idsOf(v.seq);
    bool diverged = !followed(c, symbolicSeq);
    if (diverged)
      ++result_.stats.divergences;

    std::string pathKey = signature(t.branches);
    bool newPath = paths_.insert(pathKey).second;
    bool newPartition = result_.partitionKeys.insert(v.partitionKey).second;
    if (newPath)
      ++result_.stats.distinctPaths;
    else
      ++result_.stats.duplicatePaths;
    unsigned testId = 0;
    // DART keeps one test per path; the RSC strategies one per partition.
    if (options_.strategy == Strategy::Dart ? newPath : newPartition)
      testId = recordTest(c, t, diverged, v);
    if (newPartition)
      result_.signature.insert({v.rscText, v.outputText, testId});
    if (t.replay.outcome == RunOutcome::Signal)
      recordCrash(t);
    recordViolations(t);
    if (options_.findBugs)
      checkBugs(t, c.input);
    expand(c, t, testId, v.seq, symbolicSeq);
  }

  // Did the run take the predicted prefix? DART predicts an exact prefix of the path
  // condition. The RSC strategies predict a set of constraints: the child's (reordered)
  // RSC must contain each predicted branch outcome as often, and the negated one
  // flipped, in whatever order its own reordering puts them.
  bool followed(const Candidate &c, const std::vector<std::pair<uint32_t, uint32_t>> &seq) {
    if (c.expectedPrefix.empty())
      return true;
    const auto &last = c.expectedPrefix.back();
    if (options_.strategy == Strategy::Dart) {
      if (seq.size() < c.expectedPrefix.size())
        return false;
      for (size_t i = 0; i + 1 < c.expectedPrefix.size(); ++i)
        if (seq[i] != c.expectedPrefix[i])
          return false;
      const auto &got = seq[c.expectedPrefix.size() - 1];
      return got.first == last.first &&
             (c.lastFlipped ? got.second != last.second : got.second == last.second);
    }
    std::map<std::pair<uint32_t, uint32_t>, int> have;
    for (const auto &b : seq)
      ++have[b];
    for (size_t i = 0; i + 1 < c.expectedPrefix.size(); ++i)
      if (--have[c.expectedPrefix[i]] < 0)
        return false;
    for (const auto &[b, n] : have)
      if (n > 0 && b.first == last.first && b.second != last.second)
        return true;
    return false;
  }

  unsigned recordTest(const Candidate &c, const SymbolicTrace &t, bool diverged, const RunView &v) {
    GeneratedTest g;
    g.id = static_cast<unsigned>(result_.tests.size()) + options_.firstTestId;
    g.parent = c.parent;
    g.input = t.input;
    g.outcome = t.process.outcome();
    g.exitCode = t.process.exitCode;
    g.stdoutBytes = t.process.out;
    g.branches = t.branches;
    g.pathKey = signature(t.branches);
    g.partitionKey = v.partitionKey;
    for (const auto &pc : t.symbolic.path) {
      SourceLocation loc = ModuleIndex::locationOf(pc.inst);
      g.symbolicBranches.push_back({index_.idOf(pc.inst), loc.file,
                                    pc.inst->getFunction()->getName().str(), loc.line,
                                    pc.successor});
    }
    g.pathConditionSmt2 = t.symbolic.smtlib(ctx_);
    DisplayNames names = displayNamesOf(t.symbolic.inputs);
    for (const auto &o : t.symbolic.outputs)
      g.symbolicOutputs.push_back(
          {o.fd, o.offset, o.length, o.arg, readableExpr(o.value, &names), o.value.to_string()});
    g.diverged = diverged;
    g.rsc = v.rscText;
    g.symbolicOutput = v.outputText;
    result_.tests.push_back(std::move(g));
    return result_.tests.back().id;
  }

  FoundBug *bugAt(const std::string &kind, const std::string &file, unsigned line) {
    for (auto &b : result_.bugs)
      if (b.kind == kind && b.file == file && b.line == line)
        return &b;
    return nullptr;
  }

  void recordCrash(const SymbolicTrace &t) {
    std::string kind = bugKindOfSignal(t);
    if (kind == "segfault") {
      for (const auto &v : t.symbolic.violations)
        if (v.inst == t.replay.crashInst)
          kind = v.kind;
      if (kind == "segfault" && t.replay.faultAddress < 4096)
        kind = "null-deref";
    }
    if (FoundBug *b = bugAt(kind, t.crashFile, t.crashLine)) {
      if (!b->confirmed) {
        b->confirmed = true;
        b->input = t.input;
        b->evidence = "native run ends with " + t.process.outcome();
      }
      return;
    }
    result_.bugs.push_back({kind, t.crashFile, t.crashLine, t.crashFunction, t.input, true,
                            "native run ends with " + t.process.outcome()});
  }

  // Failures replay saw in a run that did not (necessarily) crash natively.
  void recordViolations(const SymbolicTrace &t) {
    for (const auto &v : t.symbolic.violations) {
      SourceLocation loc = ModuleIndex::locationOf(v.inst);
      std::string evidence = "replay of the native run: " + loc.str() + " " + v.detail;
      FoundBug *b = bugAt(v.kind, loc.file, loc.line);
      if (b && b->confirmed)
        continue;
      FoundBug bug{v.kind,  loc.file, loc.line, v.inst->getFunction()->getName().str(),
                   t.input, true,     evidence};
      if (b)
        *b = bug;
      else
        result_.bugs.push_back(bug);
    }
  }

  static bool violatesAt(const SymbolicTrace &t, const std::string &kind,
                         const SourceLocation &loc) {
    for (const auto &v : t.symbolic.violations) {
      SourceLocation vl = ModuleIndex::locationOf(v.inst);
      if (v.kind == kind && vl.line == loc.line && vl.file == loc.file)
        return true;
    }
    return false;
  }

  void checkBugs(const SymbolicTrace &t, const ProgramInput &input) {
    // Checks come in trace order, so their prefixes only grow.
    PrefixSolver solver(*this, t.symbolic, t.symbolic.path, input);
    for (const auto &check : t.symbolic.checks) {
      if (outOfTime())
        return;
      SourceLocation loc = ModuleIndex::locationOf(check.inst);
      std::string key = check.kind + "@" + loc.str();
      // Each (kind, line) is asked until a model is found, once per distinct path to it
      // and on at most kCheckAsks paths: a check no input fails on one path may fail on
      // another (behind a branch the first run did not take).
      uint64_t pathToCheck = 1469598103934665603ull; // FNV-1a over the branches before it
      for (size_t k = 0; k < check.pathPrefix && k < t.symbolic.path.size(); ++k) {
        const PathConstraint &pc = t.symbolic.path[k];
        pathToCheck = (pathToCheck ^ reinterpret_cast<uintptr_t>(pc.inst)) * 1099511628211ull;
        pathToCheck = (pathToCheck ^ pc.successor) * 1099511628211ull;
      }
      auto &asked = checkAsks_[key];
      if (checkFound_.count(key) || asked.size() >= kCheckAsks ||
          !asked.insert(pathToCheck).second) {
        solver.assume(!check.condition);
        continue;
      }
      if (check.pathPrefix < solver.asserted())
        continue; // defensive: prefixes never shrink
      auto model = solver.solve(check.pathPrefix, check.condition);
      if (model)
        checkFound_.insert(key);
      // Later checks need inputs that get past this one: a model that fails earlier
      // would crash there, not at the later check.
      solver.assume(!check.condition);
      if (!model)
        continue;
      ProgramInput crashing = applyModel(input, t.symbolic.inputs, *model);
      SymbolicTrace confirm = runInput(crashing);
      FoundBug bug{check.kind, loc.file, loc.line, check.inst->getFunction()->getName().str(),
                   crashing,   false,    ""};
      if (confirm.replay.outcome == RunOutcome::Signal && confirm.crashLine == loc.line &&
          confirm.crashFile == loc.file) {
        bug.confirmed = true;
        bug.evidence = "native run ends with " + confirm.process.outcome() + " at " + loc.str();
      } else if (violatesAt(confirm, check.kind, loc)) {
        bug.confirmed = true;
        bug.evidence = "replay of the native run shows the " + check.kind + " at " + loc.str() +
                       " (the run itself " + "ends with " + confirm.process.outcome() + ")";
      } else {
        bug.evidence =
            "the solver's input reaches " + loc.str() +
            " with the failing value, but the native run " + "ends with " +
            confirm.process.outcome() +
            (check.kind == "out-of-bounds" ? " (the access stays inside mapped memory)" : "");
      }
      if (FoundBug *existing = bugAt(bug.kind, bug.file, bug.line)) {
        if (!existing->confirmed && bug.confirmed)
          *existing = bug;
      } else {
        result_.bugs.push_back(bug);
      }
      // The confirming run is a test too when it takes a new path.
      for (const auto &b : confirm.branchesCovered)
        branchesCovered_.insert(b);
      for (const auto &l : confirm.linesCovered)
        linesCovered_.insert(l);
      if (paths_.insert(signature(confirm.branches)).second) {
        ++result_.stats.distinctPaths;
        RunView cv = view(confirm);
        if (result_.partitionKeys.insert(cv.partitionKey).second ||
            options_.strategy == Strategy::Dart) {
          unsigned id = recordTest(Candidate{crashing, 0, {}, false, 0}, confirm, false, cv);
          result_.signature.insert({cv.rscText, cv.outputText, id});
        }
      }
    }
  }

  void expand(const Candidate &c, const SymbolicTrace &t, unsigned testId,
              const std::vector<PathConstraint> &constraints,
              const std::vector<std::pair<uint32_t, uint32_t>> &seq) {
    const SymbolicRun &sym = t.symbolic;
    PrefixSolver solver(*this, sym, constraints, c.input);
    // Children that aim at a branch direction no run has taken yet go first, in path
    // order (CFG-directed search, as in CREST): a generation of flips that only repeat
    // covered directions would otherwise delay new code past the run budget.
    std::vector<Candidate> fresh;
    std::vector<z3::expr> formulas(sym.domain.begin(), sym.domain.end());
    size_t prefixFormulas = 0, evaluationsLeft = kSeedEvaluationsPerRun;
    for (size_t j = c.bound; j < constraints.size() && !outOfTime(); ++j) {
      const PathConstraint &pc = constraints[j];
      if (options_.loopBound && pc.occurrence >= options_.loopBound)
        continue;
      if (!options_.quietFunctions.empty() &&
          options_.quietFunctions.count(pc.inst->getFunction()->getName().str()))
        continue;
      std::vector<std::pair<uint32_t, uint32_t>> prefix(seq.begin(),
                                                        seq.begin() + static_cast<long>(j) + 1);
      std::string key = signature(prefix) + "!";
      if (!negated_.insert(key).second)
        continue;
      auto model = solver.solve(j, !pc.taken);
      if (!model)
        continue;
      if (j + sym.domain.size() <= kMaxKeptSeedFormulas &&
          j + sym.domain.size() < evaluationsLeft) {
        while (prefixFormulas < j) // the domain, then the path up to j, added as j grows
          formulas.push_back(constraints[prefixFormulas++].taken);
        formulas.push_back(!pc.taken);
        evaluationsLeft -= formulas.size();
        if (auto kept = keepSeedOutside(*model, !pc.taken, formulas, c.input, sym.inputs))
          model = *kept;
        formulas.pop_back();
      }
      Candidate child;
      child.input = applyModel(c.input, sym.inputs, *model);
      child.bound = j + 1;
      child.expectedPrefix = prefix;
      child.lastFlipped = true;
      child.parent = testId;
      bool uncovered = false;
      for (unsigned k = 0; k < pc.inst->getNumSuccessors() && !uncovered; ++k)
        uncovered = k != pc.successor && !branchesCovered_.count({seq[j].first, k});
      if (uncovered)
        fresh.push_back(std::move(child));
      else
        queue_.push_back(std::move(child));
    }
    queue_.insert(queue_.begin(), std::make_move_iterator(fresh.begin()),
                  std::make_move_iterator(fresh.end()));
  }

  void coverageTotals() { countCoverage(index_, branchesCovered_, linesCovered_, result_.stats); }

  const TracedProgram &program_;
  ExploreOptions options_;
  LoadedModule loaded_;
  ModuleIndex index_;
  StaticAnalysis analysis_;
  fs::path workDir_;
  SolverContext solver_; // destroyed on the reaper thread (rootline/solver_context.h)
  z3::context &ctx_ = solver_.get();
  std::unique_ptr<z3::params> solverParams_;
  Deadline deadline_;
  std::deque<Candidate> queue_;
  std::set<std::string> paths_, negated_;
  // Bug check (kind@line) -> the paths to it it was asked on (hashed).
  std::map<std::string, std::set<uint64_t>> checkAsks_;
  std::set<std::string> checkFound_; // bug checks a model was found for
  std::set<std::pair<uint32_t, uint32_t>> branchesCovered_;
  std::set<std::pair<std::string, unsigned>> linesCovered_;
  unsigned longRuns_ = 0; // runs stopped at the trace byte limit, not replayed
  ExploreResult result_;
};

} // namespace

ExploreResult explore(const TracedProgram &program, const ProgramInput &seed,
                      const ExploreOptions &options) {
  return Explorer(program, options).run(seed);
}

void recountCoverage(const TracedProgram &program, ExploreResult &result) {
  LoadedModule loaded = loadModule(program.module.bitcode);
  ModuleIndex index(*loaded.module);
  countCoverage(index, result.coveredBranches, result.coveredLines, result.stats);
}

} // namespace rootline
