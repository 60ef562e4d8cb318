// The criteria stage: where each version's slice starts (DESIGN.md 2.6): the first
// output that differs, down to the printf argument that printed it, or the crash.
#include "compose/debug_stages.h"

#include "rootline/error.h"

#include <llvm/IR/Instructions.h>

namespace rootline::debug {

namespace {

uint64_t firstDifference(const std::string &a, const std::string &b) {
  uint64_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i])
    ++i;
  return i;
}

// The seed for the output piece covering stdout offset `at`: the call, and the
// argument that produced the bytes (the format's literal text: the call alone).
std::optional<CriterionSeed> seedAt(const Version &v, uint64_t at, std::string &described,
                                    uint64_t fd = 1) {
  for (const auto &p : v.trace.dynamic.outputs) {
    if (p.fd != fd || at < p.offset || at >= p.offset + p.bytes.size())
      continue;
    CriterionSeed s{p.instance, false, {}, p.fromMemory};
    auto *call =
        llvm::cast<llvm::CallBase>(v.index->instruction(v.trace.dynamic.records.id(p.instance)));
    std::optional<unsigned> op = outputOperand(call, p.arg);
    if (op)
      s.defs.push_back(v.trace.dynamic.operandDef(p.instance, *op));
    SourceLocation loc = ModuleIndex::locationOf(call);
    described = std::string("the output at ") + (fd == 2 ? "stderr" : "stdout") + " byte " +
                std::to_string(at) + ", printed at " + relativeTo(loc.path(), v.root) + ":" +
                std::to_string(loc.line) +
                (p.arg ? " by argument " + std::to_string(p.arg) : " (format text)");
    return s;
  }
  return std::nullopt;
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
    if (same(newV, nt.records.id(i), loc.line))
      ++k;
  for (uint64_t i = 0; i < ot.records.size(); ++i)
    if (same(oldV, ot.records.id(i), *oldLine) && --k == 0)
      return i;
  return std::nullopt;
}

} // namespace

void chooseCriteria(Version &oldV, Version &newV, const std::string &expected, Diffs &diffs,
                    bool wholeBehaviour) {
  std::string newOut = loggedOutput(newV.trace.dynamic);
  uint64_t at = firstDifference(expected, newOut);
  bool newCrashed =
      newV.trace.replay.outcome == RunOutcome::Signal && newV.trace.dynamic.crashInstance != kNoDef;
  // A failing process whose stdout is right: its first differing diagnostic, when the
  // stderr of the two runs differs (the message glibc's error() printed, say).
  if (wholeBehaviour && !newCrashed && newOut == expected) {
    std::string oldErr = loggedOutput(oldV.trace.dynamic, 2),
                newErr = loggedOutput(newV.trace.dynamic, 2);
    uint64_t errAt = firstDifference(oldErr, newErr);
    if (oldErr != newErr) {
      auto s = seedAt(newV, errAt, newV.criterion, 2);
      auto o = seedAt(oldV, errAt, oldV.criterion, 2);
      if ((s || o) && !newV.trace.dynamic.records.empty() && !oldV.trace.dynamic.records.empty()) {
        if (s) {
          newV.seeds = {*s};
        } else { // the new run's diagnostics stop there: where it ends
          newV.seeds = {{newV.trace.dynamic.records.size() - 1, true, {}, false, true}};
          newV.criterion = "where the new run stops writing to stderr (at byte " +
                           std::to_string(errAt) + "): its end";
        }
        if (o) {
          oldV.seeds = {*o};
        } else {
          oldV.seeds = {{oldV.trace.dynamic.records.size() - 1, true, {}, false, true}};
          oldV.criterion = "where the old run stops writing to stderr: its end";
        }
        return;
      }
    }
  }
  if (newCrashed && at >= newOut.size()) {
    newV.seeds = {{newV.trace.dynamic.crashInstance, true, {}, false}};
    SourceLocation loc = ModuleIndex::locationOf(newV.trace.replay.crashInst);
    newV.criterion = "the crash (" + signalName(newV.trace.replay.signal) + ") at " +
                     relativeTo(loc.path(), newV.root) + ":" + std::to_string(loc.line);
  } else if (auto s = seedAt(newV, at, newV.criterion)) {
    newV.seeds = {*s};
  } else {
    // The new run stops printing: where it ends, with the output stream as it left it
    // (branches whose other side prints join the slice), and whatever it printed.
    try {
      newV.seeds = resolveCriterion("output", newV.trace.dynamic, *newV.index);
    } catch (const Error &) {
      newV.seeds.clear();
    }
    const auto &records = newV.trace.dynamic.records;
    std::string end;
    if (!records.empty()) {
      newV.seeds.push_back({records.size() - 1, true, {}, false, true});
      SourceLocation l =
          ModuleIndex::locationOf(newV.index->instruction(records.id(records.size() - 1)));
      if (l.valid())
        end = " at " + relativeTo(l.path(), newV.root) + ":" + std::to_string(l.line);
    }
    newV.criterion = "where the new run stops printing (at byte " + std::to_string(at) +
                     "): its end" + end + ", and the branches that skipped output";
  }
  std::optional<uint64_t> oldTwin;
  if (newCrashed && at >= newOut.size())
    oldTwin = sameStatementInOld(oldV, newV, diffs);
  if (oldTwin) {
    oldV.seeds = {{*oldTwin, true, {}, false}};
    SourceLocation loc =
        ModuleIndex::locationOf(oldV.index->instruction(oldV.trace.dynamic.records.id(*oldTwin)));
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

std::string chooseHangCriteria(Version &oldV, Version &newV, const std::string &expected,
                               Diffs &diffs) {
  HangingLoop loop = findHangingLoop(newV);
  std::string described;
  if (loop.exitBranch) {
    newV.seeds = loop.seeds;
    SourceLocation loc = ModuleIndex::locationOf(loop.exitBranch);
    std::string rel = relativeTo(loc.path(), newV.root);
    described = "the loop at " + rel + ":" + std::to_string(loc.line) +
                " does not exit: its exit condition stayed false for " +
                std::to_string(loop.iterations) + " iterations before the run was stopped";
    newV.criterion = "the exit condition of the loop at " + rel + ":" + std::to_string(loc.line) +
                     ", at its last iteration";
    // The old run's last execution of the same exit test: where its loop did exit.
    std::optional<unsigned> oldLine = diffs.of(rel, true).oldLineOf(loc.line);
    std::string oldRel = diffs.counterpart(rel, true);
    const auto &records = oldV.trace.dynamic.records;
    for (uint64_t i = records.size(); oldLine && i-- > 0;) {
      if (!records.isBranch(i))
        continue;
      SourceLocation l = ModuleIndex::locationOf(oldV.index->instruction(records.id(i)));
      if (l.valid() && l.line == *oldLine && relativeTo(l.path(), oldV.root) == oldRel) {
        oldV.seeds = {{i, true, {}, false}};
        oldV.criterion = "the exit condition of the loop at " + oldRel + ":" +
                         std::to_string(*oldLine) + ", where the old run left the loop";
        return described;
      }
    }
  } else {
    // No loop stuck in the tail (recursion without end, a wait): the run's last branch.
    const auto &records = newV.trace.dynamic.records;
    for (uint64_t i = records.size(); i-- > 0;)
      if (records.isBranch(i)) {
        newV.seeds = {{i, true, {}, false}};
        SourceLocation loc = ModuleIndex::locationOf(newV.index->instruction(records.id(i)));
        newV.criterion = "the last branch before the run was stopped, at " +
                         relativeTo(loc.path(), newV.root) + ":" + std::to_string(loc.line);
        break;
      }
    described = "the run was stopped in no loop that failed to exit";
  }
  // The old version: its first output the new run lacks.
  std::string newOut = loggedOutput(newV.trace.dynamic);
  uint64_t at = firstDifference(expected, newOut);
  if (auto s = seedAt(oldV, at, oldV.criterion)) {
    oldV.seeds = {*s};
  } else {
    try {
      oldV.seeds = resolveCriterion("output", oldV.trace.dynamic, *oldV.index);
    } catch (const Error &) {
      oldV.seeds.clear();
    }
    oldV.criterion = "every output";
  }
  return described;
}

} // namespace rootline::debug
