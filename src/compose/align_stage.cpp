// The align stage (docs/debug.md, "Aligned runs"): both traced runs replayed once more,
// their executions of the slices' lines aligned through the diff's line map, the first
// divergence on the slice found, and each changed line judged by its aligned
// executions: in the dual slice (its values or branches differ) or computing the same
// values in both runs (behaviour-neutral for this failure).
#include "compose/debug_stages.h"
#include "compose/varying_executions.h"
#include "rootline/run_taint.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace rootline::debug {

namespace {

constexpr AlignedLine kOldOnly = kOldOnlyLine; // an old line without a counterpart

std::string ordinal(unsigned n) {
  std::string s = std::to_string(n);
  unsigned t = n % 100;
  return s + (t >= 11 && t <= 13 ? "th"
              : n % 10 == 1      ? "st"
              : n % 10 == 2      ? "nd"
              : n % 10 == 3      ? "rd"
                                 : "th");
}

// A variable's name as code (`price`); a description ("the return value") as is.
std::string codeName(const std::string &name) {
  return name.starts_with("the ") ? name : "`" + name + "`";
}

// What aligned calls are compared by: the function's IR name; every call through a
// pointer is alike (a renamed pointer variable calls the same code).
std::string calleeKey(const llvm::Instruction *inst) {
  auto *call = llvm::dyn_cast<llvm::CallBase>(inst);
  const llvm::Function *f = call ? call->getCalledFunction() : nullptr;
  return f ? f->getName().str() : "";
}

// The variable a store writes, or the function a call calls.
std::string storeTarget(const llvm::Instruction *inst) {
  if (llvm::isa<llvm::CallBase>(inst))
    return calleeText(inst);
  LineEffect e;
  e.inst = inst;
  return storeTargetName(e);
}

// What one effect did in one run: "computes `price` = 90", "takes the true branch".
std::string effectText(const LineEffect &e) {
  std::string value = effectValueText(e);
  switch (e.kind) {
  case LineEffect::Store: {
    std::string name = storeTargetName(e);
    return "computes " + (name.empty() ? std::string("a value") : codeName(name)) + " = " + value;
  }
  case LineEffect::Branch:
    return "takes the " + value + " branch";
  case LineEffect::Return:
    return "returns " + value;
  case LineEffect::Argument:
    return "passes " + value + " to " + calleeText(e.inst);
  case LineEffect::Call:
    return "calls " + calleeText(e.inst);
  }
  return "";
}

// How two aligned effects differ, for the reader: "computes `price` = 90 in the old run
// and 100 in the new run"; either may be missing (the execution did less). A store is
// named as in the new version (`oldTarget` applies the change's renames).
// The two effects do the same thing (the same kind, into the same variable or argument)
// with other values: a difference in value, not in what the line does.
bool sameEffect(const LineEffect *o, const LineEffect *n, const StoreTarget &oldTarget) {
  if (!o || !n || o->kind != n->kind)
    return false;
  switch (n->kind) {
  case LineEffect::Store:
    return oldTarget(o->inst) == storeTarget(n->inst) && o->indexed == n->indexed &&
           (!o->indexed || o->shownIndex == n->shownIndex);
  case LineEffect::Argument:
    return calleeKey(o->inst) == calleeKey(n->inst) && o->ordinal == n->ordinal;
  case LineEffect::Call:
    return false; // another function: not the same thing with other values
  default:
    return true;
  }
}

std::string differenceText(const LineEffect *o, const LineEffect *n, const StoreTarget &oldTarget) {
  if (!o && !n)
    return "runs differently in the two runs";
  if (!o || !n)
    return effectText(o ? *o : *n) + " in the " + (o ? "old" : "new") + " run only";
  std::string va = effectValueText(*o), vb = effectValueText(*n);
  if (o->kind == n->kind) {
    switch (n->kind) {
    case LineEffect::Store:
      if (oldTarget(o->inst) == storeTarget(n->inst) && o->indexed == n->indexed &&
          (!o->indexed || o->shownIndex == n->shownIndex)) {
        std::string name = storeTargetName(*n);
        return "computes " + (name.empty() ? std::string("a value") : codeName(name)) + " = " + va +
               " in the old run and " + vb + " in the new run";
      }
      break;
    case LineEffect::Branch:
      return "takes the " + va + " branch in the old run and the " + vb + " branch in the new run";
    case LineEffect::Return:
      return "returns " + va + " in the old run and " + vb + " in the new run";
    case LineEffect::Argument:
      if (calleeKey(o->inst) == calleeKey(n->inst) && o->ordinal == n->ordinal)
        return "passes " + va + " to " + calleeText(n->inst) + " in the old run and " + vb +
               " in the new run";
      break;
    case LineEffect::Call:
      return "calls " + calleeText(o->inst) + " in the old run and " + calleeText(n->inst) +
             " in the new run";
    }
  }
  return effectText(*o) + " in the old run, but " + effectText(*n) + " in the new run";
}

// The new version's files get numbers from 1; an old line keeps its own file's number.
class LineNames {
public:
  LineNames(const Version &oldV, const Version &newV, Diffs &diffs)
      : oldV_(oldV), newV_(newV), diffs_(diffs) {}

  AlignedLine of(bool inNew, const std::string &rel, unsigned line) {
    std::lock_guard<std::recursive_mutex> hold(lock_);
    if (line == 0)
      return 0;
    if (inNew || fs::path(rel).is_absolute())
      return name(rel, line);
    std::string newRel = diffs_.counterpart(rel, false);
    const SemanticDiff &sd = diffs_.semantic(rel, false);
    auto [it, fresh] = counterparts_.try_emplace(rel);
    if (fresh)
      it->second = lineCounterparts(sd);
    if (line < it->second.size() && it->second[line]) {
      unsigned to = it->second[line];
      // A changed line the hunk's token match sent to other code: where the same code
      // sits on one changed line (moved within the file or to another), it went there.
      bool sameCode = line < sd.renamedLineTokens.size() && to < sd.newLineTokens.size() &&
                      sd.renamedLineTokens[line] == sd.newLineTokens[to];
      if (!sameCode && sd.raw.changedInOld(line))
        if (auto moved = diffs_.movedTo(rel, line))
          return name(moved->first, moved->second);
      return name(newRel, to);
    }
    if (!sd.raw.changedInOld(line)) // past the tokens' last line (or no tokens kept)
      if (auto l = sd.raw.newLineOf(line))
        return name(newRel, *l);
    if (auto to = diffs_.movedTo(rel, line))
      return name(to->first, to->second);
    return kOldOnly | name("old:" + rel, line);
  }

  AlignedLine of(const Version &v, const llvm::Instruction *inst) {
    SourceLocation loc = ModuleIndex::locationOf(inst);
    if (!loc.valid())
      return 0;
    return of(&v == &newV_, relativeTo(loc.path(), v.root), loc.line);
  }

  // A function as the new version names it: an old function the change renamed (in
  // its file, or over the whole change) by its new name.
  std::string functionName(const Version &v, const llvm::Function *f) {
    std::lock_guard<std::recursive_mutex> hold(lock_);
    std::string name = f->getName().str();
    if (&v == &newV_)
      return name;
    if (const llvm::DISubprogram *sp = f->getSubprogram()) {
      std::string rel =
          relativeTo(fs::path(sp->getDirectory().str()) / sp->getFilename().str(), v.root);
      if (!fs::path(rel).is_absolute())
        for (const auto &r : diffs_.semantic(rel, false).renames)
          if (r.from == name && r.oldFirst <= sp->getLine() && sp->getLine() <= r.oldLast)
            return r.to;
    }
    const auto &whole = diffs_.wholeChangeRenames();
    auto it = whole.find(name);
    return it == whole.end() ? name : it->second;
  }

  // "main.c:6", or "the old version's main.c:5" for a line the new one lacks.
  std::string where(AlignedLine l) const {
    std::lock_guard<std::recursive_mutex> hold(lock_);
    auto it = files_.find(static_cast<uint32_t>((l & ~kOldOnly) >> 32));
    std::string file = it == files_.end() ? "?" : it->second;
    std::string at = file + ":" + std::to_string(static_cast<uint32_t>(l));
    return l & kOldOnly ? "the old version's " + at.substr(4) : at;
  }

  // Numbers every file `v`'s code is in, in name order, before the two runs are
  // replayed at once: the first to meet a file would number it otherwise, and the
  // numbers order the lines the later steps go through.
  void numberFiles(const Version &v) {
    std::lock_guard<std::recursive_mutex> hold(lock_);
    bool inNew = &v == &newV_;
    llvm::SmallPtrSet<const llvm::DIScope *, 32> seen;
    std::set<std::string> files;
    for (const llvm::Function &f : *v.module.module)
      for (const llvm::Instruction &inst : llvm::instructions(f))
        if (const llvm::DebugLoc &dl = inst.getDebugLoc())
          if (auto *scope = llvm::dyn_cast<llvm::DIScope>(dl.getScope());
              scope && seen.insert(scope).second)
            files.insert(relativeTo(
                (fs::path(scope->getDirectory().str()) / scope->getFilename().str()).string(),
                v.root));
    for (const std::string &rel : files) {
      if (inNew || fs::path(rel).is_absolute()) {
        name(rel, 0);
        continue;
      }
      name(diffs_.counterpart(rel, false), 0);
      name("old:" + rel, 0);
    }
  }

  // Held while a run's replay asks for names, and by anything else that asks the
  // change's diffs at the same time.
  std::recursive_mutex &lock() const { return lock_; }

private:
  AlignedLine name(const std::string &file, unsigned line) {
    auto [it, fresh] = ids_.try_emplace(file, static_cast<uint32_t>(ids_.size() + 1));
    if (fresh)
      files_[it->second] = file;
    return (static_cast<uint64_t>(it->second) << 32) | line;
  }

  const Version &oldV_, &newV_;
  Diffs &diffs_;
  std::map<std::string, uint32_t> ids_;
  std::map<uint32_t, std::string> files_;
  std::map<std::string, std::vector<unsigned>> counterparts_; // by old path
  mutable std::recursive_mutex lock_;
};

ExecutionLog recordExecutions(const Version &v, const fs::path &traceFile, LineNames &names,
                              const std::set<AlignedLine> &wanted, const Deadline &deadline,
                              Stages &stages) {
  LineExecutionRecorder recorder(
      *v.index, [&](const llvm::Instruction *inst) { return names.of(v, inst); },
      [&](AlignedLine l) { return wanted.count(l) > 0; }, &v.slice.member,
      [&](const llvm::Function *f) { return names.functionName(v, f); });
  TraceReader reader(traceFile, v.program.module.key);
  ReplayLimits limits;
  limits.deadline = deadline;
  limits.stopAtMismatch = true;
  limits.progress = [&stages, name = v.name](uint64_t n) {
    stages.update(name + " version, " + std::to_string(n) + " instances aligned");
  };
  ReplayResult r = replayTrace(*v.module.module, *v.index, reader, &recorder, limits);
  ExecutionLog log = recorder.take();
  log.complete = r.outcome != RunOutcome::Stopped && r.outcome != RunOutcome::Diverged;
  if (!log.complete)
    stages.cut("alignment replay of the " + v.name + " version stopped after " +
               std::to_string(r.instances) + " instances" +
               (recorder.reachedCap() ? ": " + recorder.capText() : std::string()) +
               "; no line is called behaviour-neutral");
  return log;
}

// The first integer stores of two aligned executions that did the same, for the
// symbolic check.
// The first integer store (not of an address) of an execution.
const LineEffect *firstIntegerStore(const ExecutionLog &log, const LineExecution &e) {
  for (size_t k = 0; k < e.effectCount; ++k) {
    const LineEffect &x = log.effects[e.effectBegin + k];
    if (x.kind == LineEffect::Store && !x.pointer &&
        llvm::cast<llvm::StoreInst>(x.inst)->getValueOperand()->getType()->isIntegerTy())
      return &x;
  }
  return nullptr;
}

unsigned storedBits(const LineEffect *x) {
  return llvm::cast<llvm::StoreInst>(x->inst)->getValueOperand()->getType()->getIntegerBitWidth();
}

// Two aligned executions' first integer stores, when they have the same width.
std::optional<std::pair<const LineEffect *, const LineEffect *>>
storePair(const ExecutionLog &oldLog, const LineExecution &o, const ExecutionLog &newLog,
          const LineExecution &n) {
  const LineEffect *a = firstIntegerStore(oldLog, o), *b = firstIntegerStore(newLog, n);
  if (!a || !b || storedBits(a) != storedBits(b) || storedBits(b) > 64)
    return std::nullopt;
  return std::make_pair(a, b);
}

void pairStores(const ExecutionLog &oldLog, const LineExecution &o, const ExecutionLog &newLog,
                const LineExecution &n, LineVerdict &v) {
  auto p = storePair(oldLog, o, newLog, n);
  if (!p || !(p->first->value == p->second->value))
    return;
  v.oldStore = p->first->instance;
  v.newStore = p->second->instance;
  v.value = p->second->value;
  v.bits = storedBits(p->second);
}

void pairDifferingStores(const ExecutionLog &oldLog, const LineExecution &o,
                         const ExecutionLog &newLog, const LineExecution &n,
                         const StoreTarget &target, LineVerdict &v) {
  auto p = storePair(oldLog, o, newLog, n);
  if (!p || p->first->value == p->second->value)
    return;
  v.oldDiffStore = p->first->instance;
  v.newDiffStore = p->second->instance;
  v.diffBits = storedBits(p->second);
  v.diffTarget = target(p->second->inst);
}

const LineEffect *effectAt(const ExecutionLog &log, const LineExecution &e, size_t k) {
  return k < e.effectCount ? &log.effects[e.effectBegin + k] : nullptr;
}

// How two aligned executions differ: their first differing effect, or where control
// went (the last branch each took, else the line each went on to).
std::string describeDifference(const ExecutionLog &oldLog, const LineExecution &o,
                               const ExecutionLog &newLog, const LineExecution &n,
                               const EffectDifference &d, const StoreTarget &oldTarget,
                               const LineNames &names) {
  const LineEffect *a = effectAt(oldLog, o, d.oldEffect), *b = effectAt(newLog, n, d.newEffect);
  if (!d.control || !a || !b)
    return differenceText(a, b, oldTarget);
  // The lines each run went on to: the branch's own polarity may differ (`!ok`).
  if (a->taken && b->taken && a->taken != b->taken)
    return "goes on to " + names.where(a->taken) + " in the old run and to " +
           names.where(b->taken) + " in the new run";
  return differenceText(a, b, oldTarget);
}

// The first store of an execution, as "price = 90" (or its first effect's value).
std::string sampleText(const ExecutionLog &log, const LineExecution &e) {
  for (size_t k = 0; k < e.effectCount; ++k) {
    const LineEffect &x = log.effects[e.effectBegin + k];
    if (x.kind == LineEffect::Store && !x.pointer) {
      std::string name = storeTargetName(x);
      if (!name.empty())
        return codeName(name) + " = " + effectValueText(x);
    }
  }
  return "";
}

// The first value an execution read from each named variable (addresses left out),
// by the name the new version gives it.
using ReadName = std::function<std::string(const llvm::Instruction *load, const std::string &)>;

std::map<std::string, const LineInput *> valuesRead(const ExecutionLog &log, const LineExecution &e,
                                                    const ReadName &rename) {
  std::map<std::string, const LineInput *> out;
  for (uint32_t k = 0; k < e.inputCount; ++k) {
    const LineInput &in = log.inputs[e.inputBegin + k];
    if (in.pointer || !in.load)
      continue;
    if (std::string name = valueName(in.load); !name.empty())
      out.try_emplace(rename(in.load, name), &in);
  }
  return out;
}

bool makesCalls(const ExecutionLog &log, const LineExecution &e) {
  for (uint32_t k = 0; k < e.effectCount; ++k)
    if (log.effects[e.effectBegin + k].kind == LineEffect::Call)
      return true;
  return false;
}

// Where two aligned executions read the same values and still store, return or pass
// another (the same variable, other values), the difference starts at this line:
// "where both runs read `st->column` = 0, its execution computes `st->column` = 8 in
// the old run and 0 in the new run". None when a call is made (its result is read, not loaded),
// when a variable both read differs, or when they share no variable.
// A branch that read the same values and went the other way is one too: "where both runs
// read `col` = 0, its execution goes on to ... in the old run and to ... in the new run".
std::optional<std::string> originOf(const ExecutionLog &oldLog, const LineExecution &o,
                                    const ExecutionLog &newLog, const LineExecution &n,
                                    const StoreTarget &oldTarget, const ReadName &rename,
                                    const LineNames &names) {
  EffectDifference d = firstDifference(oldLog, o, newLog, n, oldTarget, storeTarget);
  const LineEffect *a = effectAt(oldLog, o, d.oldEffect), *b = effectAt(newLog, n, d.newEffect);
  if (!d.found || !a || !b || a->noise || b->noise || makesCalls(oldLog, o) ||
      makesCalls(newLog, n))
    return std::nullopt;
  if (!d.control && (a->pointer || b->pointer || !sameEffect(a, b, oldTarget)))
    return std::nullopt;
  auto before = valuesRead(oldLog, o, rename);
  auto after =
      valuesRead(newLog, n, [](const llvm::Instruction *, const std::string &s) { return s; });
  std::string both;
  for (const auto &[name, in] : after) {
    auto it = before.find(name);
    if (it == before.end())
      continue;
    if (!(it->second->value == in->value))
      return std::nullopt;
    both += (both.empty() ? "" : ", ") + codeName(name) + " = " + inputValueText(*in);
  }
  if (both.empty())
    return std::nullopt;
  return "where both runs read " + both + ", its execution " +
         describeDifference(oldLog, o, newLog, n, d, oldTarget, names);
}

// A store's target, named once per instruction: the stage asks for every execution of a
// long run, and naming reads the debug information and the file's renames.
StoreTarget namedOnce(StoreTarget name) {
  auto known = std::make_shared<std::unordered_map<const llvm::Instruction *, std::string>>();
  return [name = std::move(name), known](const llvm::Instruction *store) {
    auto [it, fresh] = known->try_emplace(store);
    if (fresh)
      it->second = name(store);
    return it->second;
  };
}

// Whether a variable (or a part of it: `opts.header`, `buf[2]`) is stored to in the old run.
bool storedInOld(const std::string &name, const std::set<std::string> &oldStored) {
  for (auto it = oldStored.lower_bound(name); it != oldStored.end() && it->starts_with(name); ++it)
    if (it->size() == name.size() || (*it)[name.size()] == '.' || (*it)[name.size()] == '[')
      return true;
  return false;
}

// A line that logs no effect but writes with a memory intrinsic: whether every write of
// the line (its instructions in the function that ran it) goes to a local variable that
// the old run never stores to in that function (`struct opts o = { 0, ',', 6 };`, which
// clang copies from a constant with llvm.memcpy). It calls nothing else.
// `oldLocalStored`: "function variable" for every store of the old run.
bool initialisesOnlyNewLocals(const Version &v, const LineExecution &e,
                              const std::set<std::string> &oldLocalStored) {
  const DependenceRecords &records = v.trace.dynamic.records;
  const llvm::Instruction *at =
      e.first < records.size() ? v.index->instruction(records.id(e.first)) : nullptr;
  SourceLocation loc = at ? ModuleIndex::locationOf(at) : SourceLocation{};
  if (!loc.valid())
    return false;
  bool writes = false;
  for (const llvm::BasicBlock &bb : *at->getFunction())
    for (const llvm::Instruction &inst : bb) {
      const llvm::Value *dest = nullptr;
      if (auto *m = llvm::dyn_cast<llvm::MemIntrinsic>(&inst))
        dest = m->getDest();
      else if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&inst))
        dest = st->getPointerOperand();
      else if (!llvm::isa<llvm::CallBase>(&inst) || llvm::isa<llvm::DbgInfoIntrinsic>(&inst) ||
               llvm::isa<llvm::LifetimeIntrinsic>(&inst))
        continue;
      SourceLocation l = ModuleIndex::locationOf(&inst);
      if (!l.valid() || l.line != loc.line || l.path() != loc.path())
        continue;
      if (!dest) // a call of the line
        return false;
      std::string name = addressName(dest);
      if (!llvm::isa<llvm::AllocaInst>(llvm::getUnderlyingObject(dest)) || name.empty() ||
          storedInOld(at->getFunction()->getName().str() + " " + name, oldLocalStored))
        return false;
      writes = true;
    }
  return writes;
}

// An execution that only stores, into variables the old run never stores to (by name,
// renames applied): it defines new state, it changes none of the old.
bool onlyNewVariables(const ExecutionLog &log, const LineExecution &e,
                      const std::set<std::string> &oldStored, const StoreTarget &storeTarget) {
  if (e.effectCount == 0)
    return false;
  for (uint32_t k = 0; k < e.effectCount; ++k) {
    const LineEffect &x = log.effects[e.effectBegin + k];
    if (x.kind != LineEffect::Store)
      return false;
    std::string name = storeTarget(x.inst);
    if (name.empty() || oldStored.count(name))
      return false;
  }
  return true;
}

// One side of the aligned runs, for the reorder check.
struct RunSide {
  const ExecutionLog &log;
  const Version &v;
  const std::vector<Aligned> &status;
  const std::vector<size_t> &peer;
  std::function<AlignedLine(const llvm::Instruction *)> lineOf;
  bool isNew = false;
};

// A store of a same-values line that a differing execution's load reads in one run only.
struct ReorderedStore {
  std::string readerPlace; // "src/csvsum.c:42", "the old version's src/csvsum.c:132"
  const llvm::Instruction *load = nullptr, *store = nullptr; // in that run's version
};

// Lines whose every execution computes the same values, yet whose store a differing
// reader reads in one run where that reader's counterpart, in the other run, does not
// read the counterpart store: the values reach other reads (a counter incremented
// before the test that reads it instead of after). Such a line is not behaviour-neutral. Returns,
// per line, the reader and the store. The counterpart reader's reads include those of the
// calls it makes (a read moved into a helper is still made). Bounded: at most
// kMaxReorderInstances instances of differing readers are looked at.
std::map<AlignedLine, ReorderedStore>
reorderedStores(const RunSide &from, const RunSide &other,
                const std::map<AlignedLine, LineVerdict> &lines, const Deadline &deadline) {
  constexpr uint64_t kMaxReorderInstances = 2000000;
  std::map<AlignedLine, ReorderedStore> out;
  // The executions of lines that are "same values" so far, by their first instance.
  std::vector<std::pair<uint64_t, size_t>> writers;
  for (size_t j = 0; j < from.log.executions.size(); ++j) {
    const LineExecution &e = from.log.executions[j];
    auto it = lines.find(e.line);
    if (from.status[j] == Aligned::Same && it != lines.end() && !it->second.differs &&
        !it->second.unmatched)
      writers.push_back({e.first, j});
  }
  if (writers.empty())
    return out;
  std::sort(writers.begin(), writers.end());
  auto executionHolding = [&](uint64_t instance) -> std::optional<size_t> {
    auto it = std::upper_bound(writers.begin(), writers.end(),
                               std::make_pair(instance, std::numeric_limits<size_t>::max()));
    if (it == writers.begin())
      return std::nullopt;
    const LineExecution &e = from.log.executions[(--it)->second];
    return instance <= e.last ? std::optional<size_t>(it->second) : std::nullopt;
  };
  const DependenceRecords &fromRecords = from.v.trace.dynamic.records;
  const DependenceRecords &otherRecords = other.v.trace.dynamic.records;
  auto isStore = [](const Version &v, const DependenceRecords &r, uint64_t i) {
    const llvm::Instruction *inst = v.index->instruction(r.id(i));
    return inst && (llvm::isa<llvm::StoreInst>(inst) || llvm::isa<llvm::CallBase>(inst));
  };
  InstanceDeps deps;
  // A load of the execution's own line (not of a callee's line inside its range).
  auto ownLoad = [](const RunSide &side, const llvm::Instruction *inst, AlignedLine line) {
    return inst && llvm::isa<llvm::LoadInst>(inst) && side.lineOf(inst) == line;
  };
  // Past the bound or the deadline it answers yes: no claim is made on what was not seen.
  DeadlineCheck check(deadline);
  uint64_t looked = 0;
  // Whether the execution `reader` (of `other`), or a call it makes, reads a store of the
  // execution `writer`.
  auto reads = [&](const LineExecution &reader, const LineExecution &writer) {
    for (uint64_t i = reader.first; i <= reader.last && i < otherRecords.size(); ++i) {
      if (++looked > kMaxReorderInstances || check.tick())
        return true;
      const llvm::Instruction *inst = other.v.index->instruction(otherRecords.id(i));
      if (!inst || !llvm::isa<llvm::LoadInst>(inst))
        continue;
      otherRecords.decode(i, deps);
      for (uint64_t w : deps.writers())
        if (w >= writer.first && w <= writer.last)
          return true;
    }
    return false;
  };
  for (size_t j = 0; j < from.log.executions.size() && looked < kMaxReorderInstances; ++j) {
    if (from.status[j] != Aligned::Differs || from.peer[j] == Alignment::npos)
      continue;
    const LineExecution &reader = from.log.executions[j];
    for (uint64_t i = reader.first;
         i <= reader.last && i < fromRecords.size() && looked < kMaxReorderInstances;
         ++i, ++looked) {
      if (check.tick())
        return out;
      const llvm::Instruction *inst = from.v.index->instruction(fromRecords.id(i));
      if (!ownLoad(from, inst, reader.line))
        continue;
      fromRecords.decode(i, deps);
      for (uint64_t w : deps.writers()) {
        if (!isStore(from.v, fromRecords, w))
          continue;
        std::optional<size_t> k = executionHolding(w);
        if (!k || out.count(from.log.executions[*k].line) || from.peer[*k] == Alignment::npos)
          continue;
        const LineExecution &otherReader = other.log.executions[from.peer[j]];
        const LineExecution &otherWriter = other.log.executions[from.peer[*k]];
        if (reads(otherReader, otherWriter))
          continue;
        SourceLocation loc = ModuleIndex::locationOf(inst);
        out[from.log.executions[*k].line] = {std::string(from.isNew ? "" : "the old version's ") +
                                                 relativeTo(loc.path(), from.v.root) + ":" +
                                                 std::to_string(loc.line),
                                             inst, from.v.index->instruction(fromRecords.id(w))};
      }
    }
  }
  return out;
}

} // namespace

AlignmentFindings alignRuns(const Version &oldV, const Version &newV,
                            const std::vector<DebugCandidate> &changed, Diffs &diffs,
                            const Deadline &deadline, Stages &stages) {
  AlignmentFindings out;
  auto kept = std::make_shared<LineNames>(oldV, newV, diffs); // out.names keeps it
  LineNames &names = *kept;
  std::set<AlignedLine> wanted;
  auto addLines = [&](const Version &v) {
    for (const llvm::Instruction *inst : sliceInstructions(v))
      if (AlignedLine l = names.of(v, inst))
        wanted.insert(l);
  };
  addLines(oldV);
  addLines(newV);
  for (const auto &c : changed)
    if (c.line)
      wanted.insert(names.of(c.version == "new", c.file, c.line));
  if (wanted.empty()) {
    stages.note("no slice to align");
    return out;
  }

  // The two replays at once (bothVersions), each with the share the second would get
  // one after the other.
  names.numberFiles(oldV);
  names.numberFiles(newV);
  bool atOnce = versionsAtOnce();
  Deadline oldShare = deadline.share(atOnce ? 0.7 : 0.5, 0.1);
  ExecutionLog oldLog, newLog;
  bothVersions(
      stages,
      [&](Stages &s) {
        oldLog = recordExecutions(oldV, oldV.traceFile, names, wanted, oldShare, s);
      },
      [&](Stages &s) {
        newLog = recordExecutions(newV, newV.traceFile, names, wanted,
                                  atOnce ? oldShare : deadline.share(0.8, 0.1), s);
      });
  out.complete = oldLog.complete && newLog.complete;
  // What noise computed, and what the change reached, in each run (run_taint.h).
  auto taintOf = [&](const Version &v) {
    bool inNew = &v == &newV;
    return taintRun(
        v.trace.dynamic, *v.index,
        [&](const llvm::Instruction *inst) {
          SourceLocation loc = ModuleIndex::locationOf(inst);
          if (!loc.valid())
            return false;
          std::string rel = relativeTo(loc.path(), v.root);
          std::lock_guard<std::recursive_mutex> hold(names.lock());
          return !fs::path(rel).is_absolute() && diffs.changed(rel, inNew, loc.line);
        },
        deadline);
  };
  RunTaint oldTaint, newTaint;
  bothVersions(
      stages, [&](Stages &) { oldTaint = taintOf(oldV); },
      [&](Stages &) { newTaint = taintOf(newV); });
  markNoise(oldLog, oldTaint, oldV.trace.dynamic);
  markNoise(newLog, newTaint, newV.trace.dynamic);
  StoreTarget oldTarget = namedOnce([&](const llvm::Instruction *s) {
    std::string name = storeTarget(s);
    const SemanticDiff &sd =
        diffs.semantic(relativeTo(ModuleIndex::locationOf(s).path(), oldV.root), false);
    for (const auto &r : sd.renames)
      if (r.from == name)
        return r.to;
    return name;
  });
  StoreTarget newTarget = namedOnce(storeTarget);
  // The old version run again with its stack elsewhere: what differs there is noise.
  std::vector<bool> varies;
  if (oldLog.complete && newLog.complete) {
    RecordExecutions again = [&](const fs::path &trace, const Deadline &d) {
      return recordExecutions(oldV, trace, names, wanted, d, stages);
    };
    varies = varyingExecutions(oldV, oldLog, again, oldTarget, deadline.share(0.6, 1.0), stages);
    if (varies.empty())
      stages.note("the old version's second run (its stack elsewhere) did not finish within "
                  "the stage's share: only the taint tells noise");
  }
  // A line some execution of which differs between the two old runs behaves by noise:
  // which iteration varied depends on the addresses each run got, so all of its
  // executions are left out (a count kept under a noisy branch may come out the same).
  std::set<AlignedLine> varyingLines;
  for (size_t i = 0; i < varies.size(); ++i)
    if (varies[i])
      varyingLines.insert(oldLog.executions[i].line);
  auto varied = [&](size_t oldExecution) {
    return oldExecution < oldLog.executions.size() &&
           varyingLines.count(oldLog.executions[oldExecution].line) > 0;
  };
  // A variable's name as the new version spells it (`st->column`): the change's renames
  // applied to each identifier.
  // Named once per load instruction: the origin check asks for every differing pair.
  std::map<const llvm::Instruction *, std::string> readNames;
  ReadName renameRead = [&](const llvm::Instruction *load, const std::string &name) {
    auto [known, fresh] = readNames.try_emplace(load);
    if (!fresh)
      return known->second;
    SourceLocation loc = ModuleIndex::locationOf(load);
    std::string rel = relativeTo(loc.path(), oldV.root);
    std::map<std::string, std::string> renames = diffs.wholeChangeRenames();
    if (!fs::path(rel).is_absolute())
      for (const auto &r : diffs.semantic(rel, false).renames)
        if (r.oldFirst <= loc.line && loc.line <= r.oldLast)
          renames[r.from] = r.to;
    return known->second = applyRenames(name, renames);
  };
  Alignment a = alignExecutions(oldLog, newLog, oldTarget, newTarget);
  // Per aligned line: how its executions compare, with one example each way.
  auto judge = [&](const ExecutionLog &log, const std::vector<Aligned> &status,
                   const std::vector<size_t> &peer, bool inNew) {
    for (size_t i = 0; i < log.executions.size(); ++i) {
      const LineExecution &e = log.executions[i];
      LineVerdict &v = out.lines[e.line];
      if (e.inSlice) {
        ++out.sliceExecutions;
        if (status[i] != Aligned::Same)
          ++out.dualSliceExecutions;
      }
      if (status[i] == Aligned::Same) {
        if (inNew && !sameInputs(oldLog, oldLog.executions[peer[i]], newLog, e)) {
          ++v.otherInputs; // the same results from other inputs: no claim either way
        } else if (inNew) {
          ++v.same;
          if (v.sameExample.empty())
            v.sameExample = sampleText(log, e);
          if (v.newStore == kNoDef)
            pairStores(oldLog, oldLog.executions[peer[i]], newLog, e, v);
        }
      } else if (status[i] == Aligned::Differs) {
        if (inNew && v.originText.empty() && e.inSlice)
          if (auto text = originOf(oldLog, oldLog.executions[peer[i]], newLog, e, oldTarget,
                                   renameRead, names))
            v.originText = *text;
        if (inNew) {
          ++v.differs;
          if (v.newDiffStore == kNoDef && peer[i] != Alignment::npos)
            pairDifferingStores(oldLog, oldLog.executions[peer[i]], newLog, e, newTarget, v);
        }
      } else {
        ++v.unmatched;
      }
      if (status[i] == Aligned::Same || !v.differenceExample.empty())
        continue;
      if (inNew && peer[i] != Alignment::npos) {
        const LineExecution &o = oldLog.executions[peer[i]];
        EffectDifference d = firstDifference(oldLog, o, newLog, e, oldTarget, newTarget);
        v.differenceExample = describeDifference(oldLog, o, newLog, e, d, oldTarget, names);
      } else if (status[i] == Aligned::Unmatched) {
        std::string s = sampleText(log, e);
        v.differenceExample = std::string("runs in the ") + (inNew ? "new" : "old") + " run only" +
                              (s.empty() ? "" : " (there it computes " + s + ")");
      }
    }
  };
  judge(newLog, a.newStatus, a.newPeer, true);
  judge(oldLog, a.oldStatus, a.oldPeer, false);
  // Same values, in another order: not behaviour-neutral (reorderedStores).
  {
    std::unordered_map<const llvm::Instruction *, AlignedLine> lineCache;
    auto lineIn = [&](const Version &v) {
      return [&lineCache, &names, &v](const llvm::Instruction *inst) {
        auto [it, fresh] = lineCache.try_emplace(inst, 0);
        if (fresh)
          it->second = names.of(v, inst);
        return it->second;
      };
    };
    RunSide newSide{newLog, newV, a.newStatus, a.newPeer, lineIn(newV), true},
        oldSide{oldLog, oldV, a.oldStatus, a.oldPeer, lineIn(oldV), false};
    Deadline reorderDeadline = deadline.share(0.5);
    auto mark = [&](const std::map<AlignedLine, ReorderedStore> &found, const char *run,
                    const char *otherRun) {
      for (const auto &[line, r] : found) {
        LineVerdict &v = out.lines[line];
        if (v.differs)
          continue;
        ++v.differs;
        v.differenceExample = std::string("computes the same values in both runs, but in the ") +
                              run + " run " + r.readerPlace + " reads what it stored, and in the " +
                              otherRun + " run that read does not";
        // The runs part here: the same values, read by other code.
        v.originText = "its execution " + v.differenceExample;
        if (std::string(run) == "new")
          out.reorderedReads.push_back({r.load, r.store});
      }
    };
    mark(reorderedStores(newSide, oldSide, out.lines, reorderDeadline), "new", "old");
    mark(reorderedStores(oldSide, newSide, out.lines, reorderDeadline), "old", "new");
  }

  // The first divergence on the slice: the earliest moment, in the new run, at which an
  // aligned execution does something else than its counterpart (the instance of its
  // first differing effect), or one runs without a counterpart. An old execution
  // without one is placed right after the ends of the counterparts of the old
  // executions before it (after the branch that led there). Unmatched executions count only when
  // both replays are complete.
  struct Moment {
    double at = -1;
    const LineExecution *newExec = nullptr, *oldExec = nullptr;
  } first, fallback;
  // What the change explains comes first: a value computed from a changed line's
  // execution (data or memory dependences, in either run), a branch that went another
  // way on such a value or under a branch that did, code that ran in one run only. A
  // value or a branch the change does not reach is a fallback: in a deterministic program
  // it went another way by noise the taint did not see (a table's layout chosen by a
  // seeded hash, the second run of the old version not varying there by chance).
  // Anything decided by noise is never taken.
  auto consider = [&](Moment &m, double at, const LineExecution *n, const LineExecution *o) {
    if (m.at < 0 || at < m.at)
      m = {at, n, o};
  };
  // New code that only gives a variable of its own its first value (`tab_width = 8`,
  // read by a changed line later) is not where the runs part: where that value makes a
  // difference is.
  std::set<std::string> oldStored, oldLocalStored;
  std::unordered_set<const llvm::Instruction *> oldStores;
  for (const LineEffect &e : oldLog.effects)
    if (e.kind == LineEffect::Store && oldStores.insert(e.inst).second) {
      oldStored.insert(oldTarget(e.inst));
      // As the old source spells them: the change's renames pair names across its
      // rewrites (`field` → `opts`), but a new local's own executions have no counterpart.
      oldLocalStored.insert(names.functionName(oldV, e.inst->getFunction()) + " " +
                            storeTarget(e.inst));
    }
  // Asked once per line: a long run has many executions.
  std::unordered_map<uint64_t, bool> newLocalsLines;
  auto newLocalsOnly = [&](const LineExecution &n) {
    auto [it, fresh] = newLocalsLines.try_emplace(n.line, false);
    if (fresh)
      it->second = initialisesOnlyNewLocals(newV, n, oldLocalStored);
    return it->second;
  };
  // Where a moment of the old run falls in the new run: after the ends of the new
  // counterparts of every old execution begun before it.
  std::vector<double> peerEndBefore(oldLog.executions.size(), -1);
  for (size_t i = 0; i < oldLog.executions.size(); ++i) {
    double end = a.oldPeer[i] != Alignment::npos
                     ? static_cast<double>(newLog.executions[a.oldPeer[i]].last)
                     : -1;
    peerEndBefore[i] = std::max(i ? peerEndBefore[i - 1] : -1.0, end);
  }
  auto inNewRun = [&](uint64_t oldInstance) {
    auto it = std::partition_point(oldLog.executions.begin(), oldLog.executions.end(),
                                   [&](const LineExecution &x) { return x.first < oldInstance; });
    return it == oldLog.executions.begin() ? -1.0
                                           : peerEndBefore[it - oldLog.executions.begin() - 1];
  };
  size_t leftOut = 0, unexplained = 0, varying = 0;
  // Whether the last paired execution before one only the new run has varied between
  // the old runs (the branch that led here went another way in the second old run).
  bool afterVaried = false;
  for (size_t j = 0; j < newLog.executions.size(); ++j) {
    const LineExecution &n = newLog.executions[j];
    if (a.newPeer[j] != Alignment::npos)
      afterVaried = varied(a.newPeer[j]);
    bool differs = a.newStatus[j] == Aligned::Differs;
    if (!n.inSlice && !(differs && oldLog.executions[a.newPeer[j]].inSlice))
      continue;
    if (differs) {
      const LineExecution &o = oldLog.executions[a.newPeer[j]];
      EffectDifference d = firstDifference(oldLog, o, newLog, n, oldTarget, newTarget);
      const LineEffect *e = effectAt(newLog, n, d.newEffect);
      const LineEffect *eo = effectAt(oldLog, o, d.oldEffect);
      // An effect only the old execution has comes when the old run gets there: after
      // its callees, which the new run may never have left (a crash inside them), so
      // their own differences come first.
      double at = e ? static_cast<double>(e->instance)
                    : std::max(static_cast<double>(n.last), eo ? inNewRun(eo->instance) : -1.0);
      // The new execution's extra store into a variable the old run never stores to
      // (`int list = 0, quiet = 0;` where the old line had `list` only) is new state,
      // like a new line that only sets one.
      bool newState = e && !eo && !d.control && e->kind == LineEffect::Store &&
                      !newTarget(e->inst).empty() && !oldStored.count(newTarget(e->inst));
      // A run that ended in a callee (a crash deeper down) never did the rest of the
      // calling line (its later effects, where its branches went): that the other run
      // did is the end, not a divergence here; where the run ended is.
      bool cutShort = (n.unfinished || o.unfinished) && (d.control || !e || !eo);
      if (newState || cutShort)
        continue;
      if (varied(a.newPeer[j]))
        ++varying;
      else if ((e && e->noise) || (eo && eo->noise) || (d.control && (n.noise || o.noise)))
        ++leftOut;
      else if (!e || !eo || newTaint.fromChange(e->instance) || oldTaint.fromChange(eo->instance))
        consider(first, at, &n, &o);
      else {
        ++unexplained;
        consider(fallback, at, &n, &o);
      }
    } else if (a.newStatus[j] == Aligned::Unmatched && out.complete) {
      if (afterVaried || varyingLines.count(n.line))
        ++varying;
      else if (n.noise)
        ++leftOut;
      else if (onlyNewVariables(newLog, n, oldStored, newTarget) ||
               (n.effectCount == 0 && newLocalsOnly(n)))
        continue;
      else if (newTaint.fromChange(n.first))
        consider(first, static_cast<double>(n.first), &n, nullptr);
      else {
        ++unexplained;
        consider(fallback, static_cast<double>(n.first), &n, nullptr);
      }
    }
  }
  // The old run's executions after the last moment the new run shares with it, when
  // the new run ended in a callee: the old run went on where the new one stopped.
  bool newCutShort = std::any_of(newLog.executions.begin(), newLog.executions.end(),
                                 [](const LineExecution &x) { return x.unfinished; });
  double sharedEnd = peerEndBefore.empty() ? -1 : peerEndBefore.back();
  double lastPeerEnd = -1;
  for (size_t i = 0; i < oldLog.executions.size() && out.complete; ++i) {
    if (a.oldPeer[i] != Alignment::npos) // a call's execution ends after its callee's
      lastPeerEnd =
          std::max(lastPeerEnd, static_cast<double>(newLog.executions[a.oldPeer[i]].last));
    else if (oldLog.executions[i].inSlice && !(newCutShort && lastPeerEnd >= sharedEnd)) {
      const LineExecution &o = oldLog.executions[i];
      if (varied(i))
        ++varying;
      else if (o.noise)
        ++leftOut;
      else if (oldTaint.fromChange(o.first))
        consider(first, lastPeerEnd + 0.5, nullptr, &o);
      else {
        ++unexplained;
        consider(fallback, lastPeerEnd + 0.5, nullptr, &o);
      }
    }
  }
  if (first.at < 0)
    first = fallback;
  if (leftOut)
    stages.note(std::to_string(leftOut) +
                " differing execution(s) of the slices were decided by noise (values made "
                "from addresses, the clock, process ids or random numbers) and are left out "
                "of the first divergence");
  if (varying)
    stages.note(std::to_string(varying) +
                " differing execution(s) of the slices also differ between two runs of the "
                "old version (the second with its stack elsewhere) and are left out of the "
                "first divergence");
  if (unexplained && first.at != fallback.at)
    stages.note(std::to_string(unexplained) +
                " differing execution(s) that no changed line's execution reaches (a value, a "
                "branch, code that ran in one run only) are not taken "
                "for the first divergence");
  if (first.newExec || first.oldExec) {
    const LineExecution &at = first.newExec ? *first.newExec : *first.oldExec;
    FirstDivergence d;
    d.where = names.where(at.line);
    d.execution = at.occurrence;
    std::string text;
    if (first.newExec && first.oldExec) {
      EffectDifference diff =
          firstDifference(oldLog, *first.oldExec, newLog, *first.newExec, oldTarget, newTarget);
      text = describeDifference(oldLog, *first.oldExec, newLog, *first.newExec, diff, oldTarget,
                                names);
      d.sameEffect = sameEffect(effectAt(oldLog, *first.oldExec, diff.oldEffect),
                                effectAt(newLog, *first.newExec, diff.newEffect), oldTarget);
    } else {
      std::string sample = sampleText(first.newExec ? newLog : oldLog, at);
      text = std::string("runs in the ") + (first.newExec ? "new" : "old") + " run only" +
             (sample.empty() ? "" : ", where it computes " + sample);
    }
    d.iteration = at.iteration;
    std::string when =
        at.iteration ? "in the " + ordinal(at.iteration) + " iteration of its loop" : std::string();
    if (at.occurrence > 1)
      when += (when.empty() ? "its " : ", its ") + ordinal(at.occurrence) + " execution" +
              (at.iteration ? " there" : "");
    d.text = d.where + (when.empty() ? "" : " (" + when + ")") + " " + text;
    auto loc = [&](const Version &v, const LineExecution &e) {
      SourceLocation l =
          ModuleIndex::locationOf(v.index->instruction(v.trace.dynamic.records.id(e.first)));
      return std::make_pair(relativeTo(l.path(), v.root), l.line);
    };
    std::tie(d.file, d.line) =
        first.newExec ? loc(newV, *first.newExec) : loc(oldV, *first.oldExec);
    d.version = first.newExec ? "new" : "old";
    out.first = d;
  }
  out.names = std::make_shared<std::function<AlignedLine(bool, const std::string &, unsigned)>>(
      [names = kept](bool inNew, const std::string &rel, unsigned line) mutable {
        return names->of(inNew, rel, line);
      });
  stages.update(std::to_string(out.dualSliceExecutions) + " of " +
                std::to_string(out.sliceExecutions) +
                " executions of the slices differ between the runs");
  return out;
}

void applyAlignment(const AlignmentFindings &findings, std::vector<DebugCandidate> &candidates) {
  if (!findings.names)
    return;
  for (auto &c : candidates) {
    if (!c.inChangedRegion || !c.line)
      continue;
    AlignedLine l = (*findings.names)(c.version == "new", c.file, c.line);
    auto it = findings.lines.find(l);
    if (it == findings.lines.end())
      continue;
    const LineVerdict &v = it->second;
    if (v.differs + v.unmatched > 0) {
      c.aligned = "differs";
      c.alignedOrigin = !v.originText.empty();
      // A changed line shown at its new text: an execution of the old text without a
      // counterpart is the old line's, not this one's (which may well run).
      std::string subject =
          c.version == "new" && c.otherLine && v.differenceExample.starts_with("runs in the old")
              ? "an execution of the old version's line " + std::to_string(*c.otherLine) + " "
              : std::string("its execution ");
      c.alignedDetail =
          "in the dual slice: " + (c.alignedOrigin ? v.originText : subject + v.differenceExample);
      c.valueEvidence = v.valueEvidence;
    } else if (v.same > 0 && !v.otherInputs && findings.complete) {
      c.aligned = "same values";
      c.alignedDetail =
          "behaviour-neutral for this failure: " +
          (v.same == 1 ? std::string("its execution computes")
                       : "each of its " + std::to_string(v.same) + " executions computes") +
          " the same values in both runs" +
          (v.sameExample.empty() ? "" : " (" + v.sameExample + ")") +
          (v.symbolic.empty() ? "" : ", " + v.symbolic);
    }
  }
}

void addReorderedReaders(const AlignmentFindings &findings, const Version &newV, Diffs &diffs,
                         std::vector<DebugCandidate> &candidates) {
  for (const auto &[load, store] : findings.reorderedReads) {
    DebugCandidate writer = candidateAt(newV, store, "changed code", diffs);
    DebugCandidate c = candidateAt(newV, load, "changed computation", diffs);
    // Only a changed line's store, read by a line the change left alone (a changed
    // reader is a candidate of its own).
    if (!writer.inChangedRegion || c.inChangedRegion || !c.neutral.empty() || !c.line)
      continue;
    std::string detail = "in the dual slice: in the new run it reads what the changed line " +
                         writer.file + ":" + std::to_string(writer.line) +
                         " stored, and in the old run this read does not read that line's "
                         "counterpart: the change reordered the store and this read";
    // Candidates of the line already (a branch deviation the composition found) get the
    // finding; else the line becomes one.
    auto mark = [&](DebugCandidate &k) {
      if (!k.aligned.empty())
        return;
      k.aligned = "differs";
      k.alignedOrigin = true;
      k.alignedDetail = detail;
    };
    bool known = false;
    for (DebugCandidate &k : candidates)
      if (k.version == "new" && k.file == c.file && k.line == c.line) {
        mark(k);
        known = true;
      }
    if (!known)
      mark(candidates.emplace_back(std::move(c)));
  }
}

std::vector<uint64_t> watchedStores(const AlignmentFindings &findings, bool inNew) {
  std::vector<uint64_t> out;
  for (const auto &[line, v] : findings.lines) {
    if (v.same && !v.differs && !v.unmatched && !v.otherInputs && v.newStore != kNoDef)
      out.push_back(inNew ? v.newStore : v.oldStore);
    if (v.newDiffStore != kNoDef)
      out.push_back(inNew ? v.newDiffStore : v.oldDiffStore);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void addPartition(z3::solver &s, const Version &oldV, const Version &newV) {
  for (const Version *ver : {&oldV, &newV}) {
    for (const auto &c : ver->condition)
      s.add(c.taken);
    for (const auto &d : ver->trace.symbolic.domain)
      s.add(d);
  }
}

void checkSameValuesSymbolically(AlignmentFindings &findings, const Version &oldV,
                                 const Version &newV, z3::context &ctx, const Deadline &deadline,
                                 Stages &stages) {
  if (!findings.complete)
    return;
  const auto &oldWatched = oldV.trace.symbolic.watched, &newWatched = newV.trace.symbolic.watched;
  unsigned asked = 0, proved = 0;
  for (auto &[line, v] : findings.lines) {
    if (!v.same || v.differs || v.unmatched || v.otherInputs || v.newStore == kNoDef ||
        deadline.expired())
      continue;
    auto o = oldWatched.find(v.oldStore), n = newWatched.find(v.newStore);
    if (o == oldWatched.end() && n == newWatched.end())
      continue; // neither depends on the inputs the runs traced: nothing to ask
    z3::expr constant = ctx.bv_val(static_cast<uint64_t>(v.value.lo), v.bits);
    z3::expr a = o != oldWatched.end() ? o->second : constant;
    z3::expr b = n != newWatched.end() ? n->second : constant;
    if (!a.is_bv() || !b.is_bv() || a.get_sort().bv_size() != v.bits ||
        b.get_sort().bv_size() != v.bits)
      continue;
    z3::solver s(ctx);
    z3::params p(ctx);
    p.set("timeout", deadline.clampMs(1000));
    s.set(p);
    addPartition(s, oldV, newV);
    s.add(a != b);
    ++asked;
    z3::check_result r = s.check();
    if (r == z3::unsat) {
      v.symbolic = "for every input of the failing input's partition (the solver proves it)";
      ++proved;
    } else if (r == z3::sat) {
      v.symbolic = "on this input only: other inputs of its partition make them differ";
    }
  }
  if (asked)
    stages.note(std::to_string(proved) + " of " + std::to_string(asked) +
                " same-value line(s) proved equal for the whole partition");
}

} // namespace rootline::debug
