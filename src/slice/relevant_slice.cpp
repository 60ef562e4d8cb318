// The backward pass (DESIGN.md 2.4): pending locations are those read by slice members
// whose defining write has not been reached yet; a branch instance whose untaken
// direction may define a pending location joins the slice (potential dependence);
// every member brings its operands' definitions, the writers of what it read, and its
// control parent.
#include "rootline/slice.h"

#include "rootline/error.h"
#include "rootline/module_index.h"

#include <llvm/IR/Instructions.h>

#include <map>
#include <unordered_map>
#include <unordered_set>

namespace rootline {

size_t Slice::size() const {
  size_t n = 0;
  for (bool b : member)
    n += b;
  return n;
}

namespace {

class BackwardPass {
public:
  BackwardPass(const DynamicTrace &t, const ModuleIndex &i, const StaticAnalysis &a, bool potential,
               const Deadline &deadline)
      : trace_(t), index_(i), analysis_(a), potential_(potential),
        slice_{std::vector<bool>(t.records.size())}, check_(deadline) {}

  Slice run(const std::vector<CriterionSeed> &seeds, uint64_t from) {
    for (const auto &s : seeds) {
      if (s.instance >= trace_.records.size())
        continue;
      if (s.whole)
        slice_.member[s.instance] = true;
      else
        partialSeeds_[s.instance] = &s;
      if (s.outputStream)
        pendOutputBefore(s.instance);
      from = std::max(from, s.instance);
    }
    for (uint64_t i = from + 1; i-- > 0;) {
      if (check_.tick()) {
        slice_.complete = false;
        slice_.stoppedAt = i + 1;
        break;
      }
      visit(i);
    }
    return std::move(slice_);
  }

private:
  void mark(uint64_t i) {
    if (i != kNoDef && i < slice_.member.size())
      slice_.member[i] = true;
  }

  // The output stream as the outputs up to `at` left it is pending (potential
  // dependences only): from the last of them, or from the start when there is none.
  void pendOutputBefore(uint64_t at) {
    for (uint64_t i = std::min<uint64_t>(at + 1, trace_.records.size()); i-- > 0;)
      if (trace_.records.isOutput(i)) {
        byWriter_[i].push_back(kOutputLoc);
        ++pending_[kOutputLoc];
        return;
      }
    forever_.insert(kOutputLoc);
  }

  void pend(uint64_t i, const InstanceDeps &r) {
    // An output extends the stream: the stream as the earlier outputs left it is a
    // pending location, for potential dependences only (earlier outputs do not join).
    if (r.isOutput) {
      uint64_t previous = trace_.previousOutput(i);
      if (previous == kNoDef)
        forever_.insert(kOutputLoc);
      else {
        byWriter_[previous].push_back(kOutputLoc);
        ++pending_[kOutputLoc];
      }
    }
    for (AbsLoc l : r.locs) {
      if (r.readsUnwritten)
        forever_.insert(l);
      for (uint64_t writer : r.writers()) {
        byWriter_[writer].push_back(l);
        ++pending_[l];
      }
    }
  }

  bool pendingIntersects(const LocSet &defs) const {
    if (defs.any)
      return !pending_.empty() || !forever_.empty();
    for (AbsLoc l : defs.locs)
      if (pending_.count(l) || forever_.count(l))
        return true;
    return false;
  }

  void visit(uint64_t i) {
    // Going backward, reaching a writer means its pending reads are now defined.
    if (auto it = byWriter_.find(i); it != byWriter_.end()) {
      for (AbsLoc l : it->second)
        if (--pending_[l] == 0)
          pending_.erase(l);
      byWriter_.erase(it);
    }
    const DependenceRecords &records = trace_.records;
    if (!slice_.member[i] && potential_ && records.isBranch(i) &&
        (!pending_.empty() || !forever_.empty())) {
      const llvm::Instruction *inst = index_.instruction(records.id(i));
      const uint32_t taken = records.successor(i);
      for (unsigned s = 0; s < inst->getNumSuccessors() && !slice_.member[i]; ++s)
        if (s != taken && pendingIntersects(analysis_.mayDef(inst, s)))
          slice_.member[i] = true;
    }
    if (slice_.member[i]) {
      records.decode(i, deps_);
      for (uint64_t d : deps_.defs)
        mark(d);
      pend(i, deps_);
      mark(deps_.parent);
    } else if (auto it = partialSeeds_.find(i); it != partialSeeds_.end()) {
      slice_.member[i] = true;
      records.decode(i, deps_);
      for (uint64_t d : it->second->defs)
        mark(d);
      if (it->second->memory) {
        for (uint64_t w : deps_.writers())
          mark(w);
        pend(i, deps_);
      }
      mark(deps_.parent);
    }
  }

  const DynamicTrace &trace_;
  const ModuleIndex &index_;
  const StaticAnalysis &analysis_;
  bool potential_;
  Slice slice_;
  DeadlineCheck check_;
  std::unordered_map<uint64_t, const CriterionSeed *> partialSeeds_;
  std::unordered_map<AbsLoc, int> pending_;
  std::unordered_set<AbsLoc> forever_; // read before any write in the trace: pending to the start
  std::unordered_map<uint64_t, std::vector<AbsLoc>> byWriter_;
  InstanceDeps deps_; // the visited instance's, decoded
};

} // namespace

std::vector<CriterionSeed> outputSeeds(const DynamicTrace &trace, const ModuleIndex &index,
                                       uint64_t fd, uint64_t begin, uint64_t end) {
  std::vector<CriterionSeed> seeds;
  std::unordered_map<uint64_t, size_t> seedOf;
  for (const auto &p : trace.outputs) {
    if (p.fd != fd || p.offset + p.bytes.size() <= begin || p.offset >= end)
      continue;
    auto [it, fresh] = seedOf.try_emplace(p.instance, seeds.size());
    if (fresh)
      seeds.push_back({p.instance, false, {}, false});
    CriterionSeed &s = seeds[it->second];
    auto *call = llvm::cast<llvm::CallBase>(index.instruction(trace.records.id(p.instance)));
    if (auto op = outputOperand(call, p.arg))
      s.defs.push_back(trace.operandDef(p.instance, *op));
    if (p.fromMemory)
      s.memory = true;
  }
  return seeds;
}

std::string loggedOutput(const DynamicTrace &trace, uint64_t fd) {
  std::string out;
  for (const auto &p : trace.outputs)
    if (p.fd == fd)
      out += p.bytes;
  return out;
}

std::optional<unsigned> outputOperand(const llvm::CallBase *call, uint64_t arg) {
  const llvm::Function *f = call->getCalledFunction();
  llvm::StringRef name = f ? f->getName() : "";
  name.consume_back("_unlocked");
  // Printf-like calls: argument k of the message is operand (the format's) + k. The
  // va_list forms (vprintf, vwarn) hold their values in the list: the call as a whole.
  static const std::map<llvm::StringRef, unsigned> formatOperand = {
      {"printf", 0}, {"fprintf", 1}, {"error", 2}, {"error_at_line", 4},
      {"err", 1},    {"errx", 1},    {"warn", 0},  {"warnx", 0}};
  if (auto it = formatOperand.find(name); it != formatOperand.end())
    return arg ? std::optional<unsigned>(it->second + arg) : std::nullopt;
  if (name == "vprintf" || name == "vfprintf" || name == "vwarn" || name == "vwarnx")
    return std::nullopt;
  if (name == "write")
    return arg == 2 ? std::optional<unsigned>(1) : std::nullopt;
  return arg == 1 ? std::optional<unsigned>(0)
                  : std::nullopt; // puts, putchar, fputs, fputc, putc, fwrite, perror
}

Slice computeSlice(const DynamicTrace &trace, const ModuleIndex &index,
                   const StaticAnalysis &analysis, const std::vector<CriterionSeed> &seeds,
                   bool potential, const Deadline &deadline) {
  return BackwardPass(trace, index, analysis, potential, deadline).run(seeds, 0);
}

std::vector<CriterionSeed> resolveCriterion(const std::string &criterion, const DynamicTrace &trace,
                                            const ModuleIndex &index) {
  std::vector<CriterionSeed> seeds;
  if (criterion == "crash") {
    if (trace.crashInstance == kNoDef)
      throw Error("criterion 'crash': the run did not crash");
    seeds.push_back({trace.crashInstance, true, {}, false});
    return seeds;
  }
  if (criterion == "output") {
    for (const auto &p : trace.outputs)
      if ((p.fd == 1 || p.fd == 2) && (seeds.empty() || seeds.back().instance != p.instance))
        seeds.push_back({p.instance, true, {}, false});
    if (seeds.empty())
      throw Error("criterion 'output': the run printed nothing");
    return seeds;
  }
  if (criterion.rfind("output:", 0) == 0) {
    long n = std::strtol(criterion.c_str() + 7, nullptr, 10);
    if (n < 1)
      throw Error("criterion '" + criterion + "': output lines are numbered from 1");
    // Byte range of stdout line n.
    std::string out;
    for (const auto &p : trace.outputs)
      if (p.fd == 1)
        out += p.bytes;
    uint64_t start = 0;
    for (long line = 1; line < n; ++line) {
      auto nl = out.find('\n', start);
      if (nl == std::string::npos)
        throw Error("criterion '" + criterion + "': stdout has fewer lines");
      start = nl + 1;
    }
    if (start >= out.size())
      throw Error("criterion '" + criterion + "': stdout has fewer lines");
    auto nl = out.find('\n', start);
    return outputSeeds(trace, index, 1, start, nl == std::string::npos ? out.size() : nl + 1);
  }
  auto colon = criterion.rfind(':');
  if (colon == std::string::npos)
    throw Error("unknown criterion '" + criterion +
                "' (expected FILE:LINE, output, output:N or crash)");
  std::string file = criterion.substr(0, colon);
  long line = std::strtol(criterion.c_str() + colon + 1, nullptr, 10);
  for (uint64_t i = trace.records.size(); i-- > 0;) {
    SourceLocation loc = ModuleIndex::locationOf(index.instruction(trace.records.id(i)));
    if (static_cast<long>(loc.line) != line)
      continue;
    fs::path have(loc.file);
    if (have == fs::path(file) || have.filename() == fs::path(file).filename()) {
      seeds.push_back({i, true, {}, false});
      return seeds;
    }
  }
  throw Error("criterion '" + criterion + "': that line was not executed in this run");
}

std::vector<PathConstraint> relevantSliceCondition(const SymbolicRun &run, const Slice &slice) {
  std::vector<PathConstraint> rsc;
  for (const auto &c : run.path)
    if (slice.contains(c.instance))
      rsc.push_back(c);
  return rsc;
}

namespace {

std::vector<PathConstraint> reorder(const std::vector<PathConstraint> &seq,
                                    const DynamicTrace &trace, const ModuleIndex &index,
                                    const StaticAnalysis &analysis) {
  if (seq.empty())
    return seq;
  const PathConstraint &pivot = seq.back();
  Slice ofPivot = computeSlice(trace, index, analysis, {{pivot.instance, true, {}, false}});
  std::vector<PathConstraint> inSlice, rest;
  for (size_t i = 0; i + 1 < seq.size(); ++i)
    (ofPivot.contains(seq[i].instance) ? inSlice : rest).push_back(seq[i]);
  std::vector<PathConstraint> out = reorder(inSlice, trace, index, analysis);
  out.push_back(pivot);
  for (auto &c : reorder(rest, trace, index, analysis))
    out.push_back(c);
  return out;
}

} // namespace

std::vector<PathConstraint> reorderRsc(const std::vector<PathConstraint> &rsc,
                                       const DynamicTrace &trace, const ModuleIndex &index,
                                       const StaticAnalysis &analysis) {
  return reorder(rsc, trace, index, analysis);
}

} // namespace rootline
