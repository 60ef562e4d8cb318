// The debugger: failure, criteria, Darwin composition in both directions, evidence,
// ranking (DESIGN.md 2.6).
#include "rootline/debug.h"

#include "rootline/error.h"
#include "rootline/expr_text.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

namespace rootline {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// One version of the program, built, with its traced run on the failing input and the
// relevant slice of its criterion there.
struct Version : AnalysedVersion {
  SymbolicTrace trace;
  std::vector<CriterionSeed> seeds;
  std::string criterion;
  Slice slice;
  std::vector<PathConstraint> condition;
};

std::string sourceLine(const std::string &path, unsigned line) {
  std::ifstream in(path);
  std::string l;
  for (unsigned i = 1; std::getline(in, l); ++i)
    if (i == line) {
      while (!l.empty() && (l.front() == ' ' || l.front() == '\t'))
        l.erase(l.begin());
      return l;
    }
  return "";
}

// The logged stdout of a run (what the program handed to stdio, in order).
std::string loggedStdout(const DynamicTrace &t) {
  std::string out;
  for (const auto &p : t.outputs)
    if (p.fd == 1)
      out += p.bytes;
  return out;
}

// The seed for the output piece covering stdout offset `at`: the call, and the
// argument that produced the bytes (the format's literal text: the call alone).
std::optional<CriterionSeed> seedAt(const Version &v, uint64_t at, std::string &described) {
  for (const auto &p : v.trace.dynamic.outputs) {
    if (p.fd != 1 || at < p.offset || at >= p.offset + p.bytes.size())
      continue;
    CriterionSeed s{p.instance, false, {}, p.fromMemory};
    auto *call =
        llvm::cast<llvm::CallBase>(v.index->instruction(v.trace.dynamic.records[p.instance].id));
    std::optional<unsigned> op = outputOperand(call, p.arg);
    if (op)
      s.defs.push_back(v.trace.dynamic.operandDef(p.instance, *op));
    SourceLocation loc = ModuleIndex::locationOf(call);
    described = "the output at stdout byte " + std::to_string(at) + ", printed at " +
                relativeTo(loc.path(), v.root) + ":" + std::to_string(loc.line) +
                (p.arg ? " by argument " + std::to_string(p.arg) : " (format text)");
    return s;
  }
  return std::nullopt;
}

// The changed lines of a file in either version: from git's diff of the two commits
// when there is one, else from diffing the file at the same path in both trees.
struct Diffs {
  const fs::path &oldRoot, &newRoot;
  const std::optional<SourceDiff> &git;
  std::map<std::string, TextDiff> cache;
  const TextDiff &of(const std::string &rel, bool inNew) {
    std::string key = (inNew ? "n:" : "o:") + rel;
    auto it = cache.find(key);
    if (it != cache.end())
      return it->second;
    if (git)
      return cache[key] = inNew ? git->ofNew(rel) : git->ofOld(rel);
    std::string a = fs::exists(oldRoot / rel) ? readFile(oldRoot / rel) : "";
    std::string b = fs::exists(newRoot / rel) ? readFile(newRoot / rel) : "";
    return cache[key] = diffTexts(a, b);
  }
  // The path of the same file in the other version (renames, or two single files).
  std::string counterpart(const std::string &rel, bool inNew) const {
    if (git)
      for (const auto &f : git->files)
        if ((inNew ? f.newPath : f.oldPath) == rel)
          return inNew ? f.oldPath : f.newPath;
    return rel;
  }
};

uint64_t firstDifference(const std::string &a, const std::string &b) {
  uint64_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i])
    ++i;
  return i;
}

// Where the new version crashed, the same statement in the old version: the same
// memory operation on the line the diff maps the crash line to, at the same
// occurrence (the k-th run of it). Comparing those two runs of one statement (say
// `counts[i]++` with i = 100000000 against i = 9) shows what the change did to the
// value that crashed; the first differing output may not depend on it at all.
std::optional<uint64_t> sameStatementInOld(const Version &oldV, const Version &newV, Diffs &diffs) {
  const DynamicTrace &nt = newV.trace.dynamic, &ot = oldV.trace.dynamic;
  const llvm::Instruction *crash = newV.trace.replay.crashInst;
  SourceLocation loc = ModuleIndex::locationOf(crash);
  if (!loc.valid())
    return std::nullopt;
  std::string rel = relativeTo(loc.path(), newV.root);
  std::optional<unsigned> oldLine = diffs.of(rel, true).oldLineOf(loc.line);
  std::string oldRel = diffs.counterpart(rel, true);
  if (!oldLine)
    return std::nullopt;
  auto same = [&](const Version &v, uint32_t id, unsigned line) {
    const llvm::Instruction *inst = v.index->instruction(id);
    if (inst->getOpcode() != crash->getOpcode())
      return false;
    SourceLocation l = ModuleIndex::locationOf(inst);
    return l.valid() && l.line == line &&
           relativeTo(l.path(), v.root) == (&v == &newV ? rel : oldRel);
  };
  uint64_t k = 0;
  for (uint64_t i = 0; i <= nt.crashInstance && i < nt.records.size(); ++i)
    if (same(newV, nt.records[i].id, loc.line))
      ++k;
  for (uint64_t i = 0; i < ot.records.size(); ++i)
    if (same(oldV, ot.records[i].id, *oldLine) && --k == 0)
      return i;
  return std::nullopt;
}

void chooseCriteria(Version &oldV, Version &newV, const std::string &expected, Diffs &diffs) {
  std::string newOut = loggedStdout(newV.trace.dynamic);
  uint64_t at = firstDifference(expected, newOut);
  bool newCrashed =
      newV.trace.replay.outcome == RunOutcome::Signal && newV.trace.dynamic.crashInstance != kNoDef;
  if (newCrashed && at >= newOut.size()) {
    newV.seeds = {{newV.trace.dynamic.crashInstance, true, {}, false}};
    SourceLocation loc = ModuleIndex::locationOf(newV.trace.replay.crashInst);
    newV.criterion = "the crash (" + signalName(newV.trace.replay.signal) + ") at " +
                     relativeTo(loc.path(), newV.root) + ":" + std::to_string(loc.line);
  } else if (auto s = seedAt(newV, at, newV.criterion)) {
    newV.seeds = {*s};
  } else {
    newV.seeds = resolveCriterion("output", newV.trace.dynamic, *newV.index);
    newV.criterion =
        "every output (the new version stops printing at byte " + std::to_string(at) + ")";
  }
  std::optional<uint64_t> oldTwin;
  if (newCrashed && at >= newOut.size())
    oldTwin = sameStatementInOld(oldV, newV, diffs);
  if (oldTwin) {
    oldV.seeds = {{*oldTwin, true, {}, false}};
    SourceLocation loc =
        ModuleIndex::locationOf(oldV.index->instruction(oldV.trace.dynamic.records[*oldTwin].id));
    oldV.criterion = "the same statement at " + relativeTo(loc.path(), oldV.root) + ":" +
                     std::to_string(loc.line) + ", in the run where the new version crashed";
  } else if (auto s = seedAt(oldV, at, oldV.criterion)) {
    oldV.seeds = {*s};
  } else {
    try {
      oldV.seeds = resolveCriterion("output", oldV.trace.dynamic, *oldV.index);
    } catch (const Error &) {
      oldV.seeds.clear();
    }
    oldV.criterion = "every output";
  }
}

std::vector<PathConstraint> conditionOf(const Version &v, ConditionKind kind) {
  if (kind == ConditionKind::Pc)
    return v.trace.symbolic.path;
  return relevantSliceCondition(v.trace.symbolic, v.slice);
}

// Solver time one direction of the composition may take: long symbolic loops give
// thousands of constraints, and a report with the deviations found so far beats none.
constexpr double kCompositionBudgetSeconds = 60;

class Composer {
public:
  Composer(z3::context &ctx, const DebugRequest &req, DebugReport &report)
      : ctx_(ctx), req_(req), report_(report) {
    params_ = std::make_unique<z3::params>(ctx);
    params_->set("timeout", req.solverTimeoutMs);
  }

  // Θi = domain ∧ base ∧ seq[0..i) ∧ ¬seq[i]: each satisfiable one names seq[i]'s branch.
  std::vector<std::pair<size_t, z3::model>> deviations(const std::vector<z3::expr> &domain,
                                                       const std::vector<PathConstraint> &base,
                                                       const std::vector<PathConstraint> &seq) {
    std::vector<std::pair<size_t, z3::model>> out;
    // One incremental solver answers most queries quickly. A query it cannot settle
    // within a second is asked again of a fresh solver: without push/pop Z3 keeps its
    // non-incremental pipeline (simplify, then bit-blast), which settles remainder and
    // product chains (a GCD loop) many times faster than the incremental one.
    std::vector<z3::expr> prefix(domain.begin(), domain.end());
    uint64_t bytes = 0;
    for (const auto &d : domain)
      bytes += d.to_string().size();
    for (const auto &c : base)
      prefix.push_back(c.taken), bytes += c.taken.to_string().size();
    z3::solver inc(ctx_);
    z3::params quick(ctx_);
    quick.set("timeout", std::min(1000u, req_.solverTimeoutMs));
    inc.set(quick);
    for (const auto &e : prefix)
      inc.add(e);
    auto start = Clock::now();
    for (size_t i = 0; i < seq.size() && out.size() < req_.maxCandidates; ++i) {
      if (since(start) > kCompositionBudgetSeconds) {
        report_.notes.push_back("the composition stopped at its " +
                                std::to_string(static_cast<int>(kCompositionBudgetSeconds)) +
                                " s budget, after " + std::to_string(i) + " of " +
                                std::to_string(seq.size()) + " constraints");
        break;
      }
      ++report_.solverCalls;
      report_.formulaBytes += bytes + seq[i].taken.to_string().size();
      auto t0 = Clock::now();
      inc.push();
      inc.add(!seq[i].taken);
      z3::check_result r = inc.check();
      std::optional<z3::model> model;
      if (r == z3::sat)
        model = inc.get_model();
      inc.pop();
      if (r == z3::unknown) {
        z3::solver fresh(ctx_);
        fresh.set(*params_);
        for (const auto &e : prefix)
          fresh.add(e);
        fresh.add(!seq[i].taken);
        if (fresh.check() == z3::sat)
          model = fresh.get_model();
      }
      report_.solverSeconds += since(t0);
      if (model)
        out.push_back({i, *model});
      prefix.push_back(seq[i].taken);
      inc.add(seq[i].taken);
      bytes += seq[i].taken.to_string().size();
    }
    return out;
  }

private:
  z3::context &ctx_;
  const DebugRequest &req_;
  DebugReport &report_;
  std::unique_ptr<z3::params> params_;
};

DebugCandidate candidateAt(const Version &v, const llvm::Instruction *inst, const std::string &kind,
                           Diffs &diffs) {
  DebugCandidate c;
  SourceLocation loc = ModuleIndex::locationOf(inst);
  c.version = v.name;
  c.kind = kind;
  c.file = relativeTo(loc.path(), v.root);
  c.line = loc.line;
  c.function = inst->getFunction()->getName().str();
  c.source = sourceLine(loc.path(), loc.line);
  const TextDiff &d = diffs.of(c.file, v.name == "new");
  if (v.name == "new") {
    c.inChangedRegion = d.changedInNew(c.line);
    c.otherLine = d.oldLineOf(c.line);
  } else {
    c.inChangedRegion = d.changedInOld(c.line);
    c.otherLine = d.newLineOf(c.line);
  }
  return c;
}

// The changed line closest to a branch instance along its data dependences (operands
// and the memory they were loaded from, not control): a deviating branch in unchanged
// code whose condition a changed line computes (`if (is_large(v))` over a changed
// `return v > 10;`) points at that line.
std::optional<uint64_t> changedDefinitionBehind(const Version &v, uint64_t branch, Diffs &diffs) {
  const DynamicTrace &t = v.trace.dynamic;
  std::vector<uint64_t> work{branch};
  std::set<uint64_t> seen{branch};
  std::optional<uint64_t> best;
  constexpr size_t kMaxVisited = 20000;
  while (!work.empty() && seen.size() < kMaxVisited) {
    uint64_t i = work.back();
    work.pop_back();
    const InstanceRecord &r = t.records[i];
    if (i != branch) {
      SourceLocation loc = ModuleIndex::locationOf(v.index->instruction(r.id));
      if (loc.valid()) {
        std::string rel = relativeTo(loc.path(), v.root);
        const TextDiff &d = diffs.of(rel, v.name == "new");
        if (v.name == "new" ? d.changedInNew(loc.line) : d.changedInOld(loc.line)) {
          if (!best || i > *best)
            best = i;
          continue; // the nearest changed definition on this chain
        }
      }
    }
    for (uint32_t k = 0; k < r.operandCount + r.writerCount; ++k) {
      uint64_t d = t.defs[r.defBegin + k];
      if (d != kNoDef && d < t.records.size() && seen.insert(d).second)
        work.push_back(d);
    }
  }
  return best;
}

// Changed lines of a switch's body that hold no code of their own: case labels (and
// blank or comment lines among them). Adding, deleting or changing `case 10:` changes
// only the switch's case table, which sits on the `switch` line.
std::vector<unsigned> changedCaseLabels(const Version &v, const llvm::SwitchInst *sw,
                                        Diffs &diffs) {
  SourceLocation at = ModuleIndex::locationOf(sw);
  unsigned last = at.line;
  for (unsigned k = 0; k < sw->getNumSuccessors(); ++k)
    for (const llvm::Instruction &inst : *sw->getSuccessor(k)) {
      SourceLocation l = ModuleIndex::locationOf(&inst);
      if (l.valid() && l.path() == at.path()) {
        last = std::max(last, l.line);
        break;
      }
    }
  std::set<unsigned> withCode;
  for (const llvm::BasicBlock &bb : *sw->getFunction())
    for (const llvm::Instruction &inst : bb) {
      SourceLocation l = ModuleIndex::locationOf(&inst);
      if (l.valid() && l.path() == at.path())
        withCode.insert(l.line);
    }
  const TextDiff &d = diffs.of(relativeTo(at.path(), v.root), v.name == "new");
  std::vector<unsigned> out;
  for (unsigned line = at.line + 1; line < last; ++line)
    if (!withCode.count(line) && (v.name == "new" ? d.changedInNew(line) : d.changedInOld(line)))
      out.push_back(line);
  return out;
}

// A candidate found in the old version on a line the change modified (not deleted) is
// shown as the new version's line that replaced it: that is the code the failing
// program runs and where a fix goes. Missing code stays on the old side.
void presentOnNewSide(DebugCandidate &c, const fs::path &newRoot, Diffs &diffs) {
  std::string newFile = diffs.counterpart(c.file, false);
  if (c.version != "old" || !c.inChangedRegion || !fs::exists(newRoot / newFile))
    return;
  std::optional<unsigned> replacement = diffs.of(c.file, false).replacementOf(c.line);
  if (!replacement)
    return;
  c.reasons.push_back("found at the old version's line " + std::to_string(c.line) + " (`" +
                      c.source + "`), which the change replaced with this line");
  c.otherLine = c.line;
  c.version = "new";
  c.file = newFile;
  c.line = *replacement;
  c.source = sourceLine((newRoot / newFile).string(), c.line);
  c.kind = "changed code";
}

} // namespace

DebugReport debugRegression(const DebugRequest &req) {
  auto start = Clock::now();
  DebugReport report;
  report.oldLabel = req.oldLabel;
  report.newLabel = req.newLabel;
  report.oldCommit = req.oldCommit;
  report.newCommit = req.newCommit;
  report.repository = req.repository;
  report.input = req.input;
  report.condition = req.condition == ConditionKind::Rsc ? "rsc" : "pc";
  Version oldV, newV;
  oldV.name = "old";
  oldV.root = req.oldRoot;
  newV.name = "new";
  newV.root = req.newRoot;
  buildAnalysedVersion(oldV, req.oldRecipe);
  buildAnalysedVersion(newV, req.newRecipe);
  fs::path work = makeWorkDir("debug");

  // The failure: native runs, twice each, against the expected output.
  RunSummary old1 = runInputNatively(oldV.native, req.input, work / "o1", req.timeoutSeconds);
  RunSummary old2 = runInputNatively(oldV.native, req.input, work / "o2", req.timeoutSeconds);
  RunSummary new1 = runInputNatively(newV.native, req.input, work / "n1", req.timeoutSeconds);
  RunSummary new2 = runInputNatively(newV.native, req.input, work / "n2", req.timeoutSeconds);
  if (old1.outcome == "timeout" || new1.outcome == "timeout")
    throw Error(std::string("the ") + (old1.outcome == "timeout" ? "old" : "new") +
                " version does not finish the test within --timeout");
  if (old1.stdoutBytes != old2.stdoutBytes || old1.outcome != old2.outcome)
    throw Error(
        "the program is nondeterministic: two runs of the old version on the same input differ");
  if (new1.stdoutBytes != new2.stdoutBytes || new1.outcome != new2.outcome)
    throw Error(
        "the program is nondeterministic: two runs of the new version on the same input differ");
  report.oldRun = old1;
  report.newRun = new1;
  report.expected = req.expectedStdout ? RunSummary{"", *req.expectedStdout} : old1;
  if (req.expectedStdout && old1.stdoutBytes != *req.expectedStdout)
    throw Error("the test fails on the old version too: its output differs from --expect");
  bool outputDiffers = new1.stdoutBytes != report.expected.stdoutBytes;
  bool outcomeDiffers = !req.expectedStdout && new1.outcome != old1.outcome;
  if (!outputDiffers && !outcomeDiffers)
    throw Error("the test does not fail on the new version: it prints the expected output" +
                std::string(req.expectedStdout
                                ? ""
                                : " and ends like the old version (" + old1.outcome + ")"));
  uint64_t at = firstDifference(report.expected.stdoutBytes, new1.stdoutBytes);
  report.failure =
      outputDiffers ? "stdout differs from the expected output from byte " + std::to_string(at)
                    : "the new version ends with " + new1.outcome + " instead of " + old1.outcome;

  // Traces of both versions, symbolic, with dependences.
  z3::context ctx;
  oldV.trace = traceSymbolic(oldV.program, *oldV.module.module, *oldV.index, req.input, ctx,
                             work / "ot", req.timeoutSeconds, oldV.analysis.get());
  newV.trace = traceSymbolic(newV.program, *newV.module.module, *newV.index, req.input, ctx,
                             work / "nt", req.timeoutSeconds, newV.analysis.get());
  Diffs diffs{oldV.root, newV.root, req.sourceDiff, {}};
  if (req.sourceDiff)
    for (const auto &f : req.sourceDiff->files)
      if (!f.oldPath.empty() && !f.newPath.empty() && f.oldPath != f.newPath)
        report.renamedFiles[f.oldPath] = f.newPath;
  chooseCriteria(oldV, newV, report.expected.stdoutBytes, diffs);
  report.oldCriterion = oldV.criterion;
  report.newCriterion = newV.criterion;
  report.oldRoot = oldV.root;
  report.newRoot = newV.root;
  // Each version's relevant slice, computed once: report lines, RSC, changed lines.
  for (Version *v : {&oldV, &newV}) {
    v->slice = computeSlice(v->trace.dynamic, *v->index, *v->analysis, v->seeds);
    auto &lines = v == &oldV ? report.oldSliceLines : report.newSliceLines;
    for (uint64_t i = 0; i < v->trace.dynamic.records.size(); ++i)
      if (v->slice.contains(i)) {
        SourceLocation loc =
            ModuleIndex::locationOf(v->index->instruction(v->trace.dynamic.records[i].id));
        if (loc.valid())
          lines[relativeTo(loc.path(), v->root)].insert(loc.line);
      }
  }
  oldV.condition = conditionOf(oldV, req.condition);
  newV.condition = conditionOf(newV, req.condition);
  report.oldConstraints = oldV.condition.size();
  report.newConstraints = newV.condition.size();
  for (const auto &c : oldV.trace.symbolic.concretizedCalls)
    report.notes.push_back("old version: symbolic input flowed into " + c +
                           " and was made concrete");
  for (const auto &c : newV.trace.symbolic.concretizedCalls)
    report.notes.push_back("new version: symbolic input flowed into " + c +
                           " and was made concrete");

  std::vector<z3::expr> domain = oldV.trace.symbolic.domain;
  domain.insert(domain.end(), newV.trace.symbolic.domain.begin(), newV.trace.symbolic.domain.end());
  Composer composer(ctx, req, report);
  std::vector<DebugCandidate> candidates;
  auto fromDeviations = [&](const Version &where, const std::vector<PathConstraint> &seq,
                            const std::vector<std::pair<size_t, z3::model>> &found,
                            const std::string &kind) {
    for (const auto &[i, model] : found) {
      DebugCandidate c = candidateAt(where, seq[i].inst, kind, diffs);
      c.condition = readableExpr(seq[i].taken.simplify());
      c.hasAlternative = true;
      c.alternative = applyModel(req.input, where.trace.symbolic.inputs, model);
      c.distance = static_cast<unsigned>(seq.size() - 1 - i);
      if (!c.inChangedRegion)
        if (auto def = changedDefinitionBehind(where, seq[i].instance, diffs)) {
          const llvm::Instruction *inst =
              where.index->instruction(where.trace.dynamic.records[*def].id);
          DebugCandidate behind = candidateAt(where, inst, "changed computation", diffs);
          behind.condition = c.condition;
          behind.hasAlternative = true;
          behind.alternative = c.alternative;
          behind.distance = c.distance;
          behind.reasons.push_back("computes the condition of the branch at " + c.file + ":" +
                                   std::to_string(c.line));
          candidates.push_back(std::move(behind));
        }
      candidates.push_back(std::move(c));
    }
  };
  auto found = composer.deviations(domain, oldV.condition, newV.condition);
  if (!found.empty()) {
    report.direction = "inputs like the failing one leave its path in the new version";
    fromDeviations(newV, newV.condition, found, "branch deviation");
  } else if (auto mirror = composer.deviations(domain, newV.condition, oldV.condition);
             !mirror.empty()) {
    report.direction = "the old version takes branches the new version lacks";
    fromDeviations(oldV, oldV.condition, mirror, "missing code");
  } else {
    report.direction = "same partition in both versions: the value is computed differently";
  }
  // Lines of the new version's slice that the change touched: the answer when the
  // partitions agree, and a supplement when no deviation is in changed code (a loop
  // bound moved by one pins the input to one value per iteration count, so Darwin's
  // formulas are unsatisfiable there; a swapped argument changes a value, not a branch).
  // The same for the old version's slice: code the change deleted (a removed check,
  // a deleted else) is only there.
  bool anyChanged =
      std::any_of(candidates.begin(), candidates.end(), [](auto &c) { return c.inChangedRegion; });
  if (candidates.empty() || !anyChanged) {
    bool none = candidates.empty();
    auto changedLines = [&](const Version &v, const char *kind) {
      const Slice &s = v.slice;
      std::map<std::pair<std::string, unsigned>, DebugCandidate> byLine;
      unsigned distance = 0;
      for (uint64_t i = v.trace.dynamic.records.size(); i-- > 0;) {
        if (!s.contains(i))
          continue;
        const llvm::Instruction *inst = v.index->instruction(v.trace.dynamic.records[i].id);
        if (!ModuleIndex::locationOf(inst).valid())
          continue;
        DebugCandidate c = candidateAt(v, inst, kind, diffs);
        ++distance;
        if (auto *sw = llvm::dyn_cast<llvm::SwitchInst>(inst))
          for (unsigned line : changedCaseLabels(v, sw, diffs)) {
            DebugCandidate label = c;
            label.line = line;
            label.source = sourceLine(ModuleIndex::locationOf(inst).path(), line);
            label.otherLine.reset();
            label.inChangedRegion = true;
            label.distance = distance;
            label.reasons.push_back("a case label of the switch at line " + std::to_string(c.line) +
                                    " in the slice");
            byLine.try_emplace({label.file, line}, label);
          }
        if (!c.inChangedRegion || byLine.count({c.file, c.line}))
          continue;
        c.distance = distance;
        byLine[{c.file, c.line}] = c;
      }
      for (auto &[k, c] : byLine)
        candidates.push_back(c);
    };
    changedLines(newV, none ? "changed computation" : "changed code");
    changedLines(oldV, "missing code");
    if (none && candidates.empty())
      report.notes.push_back(
          "no line of either version's slice is in a changed region of the source diff");
  }

  for (auto &c : candidates)
    presentOnNewSide(c, newV.root, diffs);

  // Evidence: every alternative input, run natively on both versions.
  unsigned n = 0;
  for (auto &c : candidates) {
    if (!c.hasAlternative)
      continue;
    fs::path dir = work / ("alt" + std::to_string(n++));
    c.oldRun = runInputNatively(oldV.native, c.alternative, dir / "old", req.timeoutSeconds,
                                kMadeUpInputOutputLimit);
    c.newRun = runInputNatively(newV.native, c.alternative, dir / "new", req.timeoutSeconds,
                                kMadeUpInputOutputLimit);
    // Runs stopped early (timeout, output limit) do not show that the versions agree.
    auto stopped = [](const RunSummary &r) {
      return r.outcome == "timeout" || r.outcome == "output limit";
    };
    c.removesFailure = c.oldRun.stdoutBytes == c.newRun.stdoutBytes &&
                       c.oldRun.outcome == c.newRun.outcome && !stopped(c.oldRun);
    c.changesFailure = c.newRun.stdoutBytes != new1.stdoutBytes || c.newRun.outcome != new1.outcome;
  }
  // Rank: evidence, then the diff, then closeness to the failure.
  for (auto &c : candidates) {
    if (c.removesFailure)
      c.reasons.push_back("on the alternative input both versions behave alike");
    else if (c.hasAlternative && c.changesFailure)
      c.reasons.push_back("the alternative input changes the new version's behaviour");
    else if (c.hasAlternative)
      c.reasons.push_back("the alternative input does not change the failure");
    c.reasons.push_back(c.inChangedRegion ? "the line is in a region the change touched"
                                          : "the line is outside the changed regions");
    c.reasons.push_back(c.distance == 0 ? "closest to the failure in the slice"
                                        : std::to_string(c.distance) +
                                              " step(s) from the failure in the slice");
  }
  auto evidence = [](const DebugCandidate &c) {
    return c.removesFailure ? 2 : (c.hasAlternative && c.changesFailure) ? 1 : 0;
  };
  // A regression is caused by the change: a line the change touched that the evidence
  // does not refute (its alternative input, if any, removes or changes the failure)
  // comes before unchanged lines. An input that avoids the changed code always
  // "removes" the failure, so that evidence alone does not point at an unchanged line.
  auto changedUnrefuted = [&](const DebugCandidate &c) {
    return c.inChangedRegion && (!c.hasAlternative || evidence(c) > 0);
  };
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const DebugCandidate &a, const DebugCandidate &b) {
                     if (changedUnrefuted(a) != changedUnrefuted(b))
                       return changedUnrefuted(a);
                     if (evidence(a) != evidence(b))
                       return evidence(a) > evidence(b);
                     if (a.inChangedRegion != b.inChangedRegion)
                       return a.inChangedRegion;
                     return a.distance < b.distance;
                   });
  // One candidate per line: the best-ranked deviation stands for the others.
  std::set<std::tuple<std::string, std::string, unsigned>> seen;
  std::erase_if(candidates, [&](const DebugCandidate &c) {
    return !seen.insert({c.version, c.file, c.line}).second;
  });
  if (candidates.size() > req.maxCandidates)
    candidates.resize(req.maxCandidates);
  for (size_t i = 0; i < candidates.size(); ++i)
    candidates[i].rank = static_cast<unsigned>(i + 1);
  report.candidates = std::move(candidates);
  std::error_code ec;
  fs::remove_all(work, ec);
  report.totalSeconds = since(start);
  return report;
}

} // namespace rootline
