// Pairs the line executions of two runs by execution index and compares what they did.
#include "rootline/alignment.h"

#include <llvm/ADT/DenseMap.h>

#include <string>
#include <unordered_map>

namespace rootline {

namespace {

// Store targets named once per instruction.
class TargetNames {
public:
  explicit TargetNames(const StoreTarget &f) : f_(f) {}
  const std::string &operator()(const llvm::Instruction *store) {
    auto [it, fresh] = names_.try_emplace(store);
    if (fresh && f_)
      it->second = f_(store);
    return it->second;
  }

private:
  const StoreTarget &f_;
  llvm::DenseMap<const llvm::Instruction *, std::string> names_;
};

bool sameEffect(const LineEffect &a, const LineEffect &b, TargetNames &aName, TargetNames &bName) {
  if (a.kind != b.kind || a.pointer != b.pointer || a.ordinal != b.ordinal ||
      a.indexed != b.indexed)
    return false;
  if (!a.pointer && !(a.noise && b.noise) && !(a.value == b.value))
    return false;
  if (a.indexed && a.element != b.element && !(a.noisyIndex && b.noisyIndex))
    return false;
  return (a.kind != LineEffect::Store && a.kind != LineEffect::Call) ||
         aName(a.inst) == bName(b.inst);
}

// Effects other than branches, in order: branches are compared by where control went.
std::vector<size_t> valueEffects(const ExecutionLog &log, const LineExecution &e) {
  std::vector<size_t> out;
  for (size_t k = 0; k < e.effectCount; ++k)
    if (log.effects[e.effectBegin + k].kind != LineEffect::Branch)
      out.push_back(k);
  return out;
}

size_t lastBranch(const ExecutionLog &log, const LineExecution &e) {
  for (size_t k = e.effectCount; k-- > 0;)
    if (log.effects[e.effectBegin + k].kind == LineEffect::Branch)
      return k;
  return e.effectCount;
}

EffectDifference compareEffects(const ExecutionLog &oldLog, const LineExecution &o,
                                const ExecutionLog &newLog, const LineExecution &n,
                                TargetNames &oldNames, TargetNames &newNames) {
  EffectDifference d;
  std::vector<size_t> a = valueEffects(oldLog, o), b = valueEffects(newLog, n);
  size_t count = std::min(a.size(), b.size());
  for (size_t k = 0; k < count; ++k)
    if (!sameEffect(oldLog.effects[o.effectBegin + a[k]], newLog.effects[n.effectBegin + b[k]],
                    oldNames, newNames)) {
      d.oldEffect = a[k];
      d.newEffect = b[k];
      d.found = true;
      return d;
    }
  if (a.size() != b.size()) {
    d.oldEffect = count < a.size() ? a[count] : o.effectCount;
    d.newEffect = count < b.size() ? b[count] : n.effectCount;
    d.found = true;
    return d;
  }
  // Control: the last branch of each decides where the line goes. It went the same way
  // when it led to the same line; the other way when one run's target is the other's
  // road not taken; else (the lines around moved) the branches' outcomes decide.
  size_t ob = lastBranch(oldLog, o), nb = lastBranch(newLog, n);
  if (ob == o.effectCount || nb == n.effectCount)
    return d;
  const LineEffect &x = oldLog.effects[o.effectBegin + ob], &y = newLog.effects[n.effectBegin + nb];
  bool otherWay;
  if (x.noise && y.noise)
    otherWay = false; // both decided by noise: where they went means nothing
  else if (x.taken && x.taken == y.taken)
    otherWay = false;
  else if ((x.taken && x.taken == y.other) || (y.taken && y.taken == x.other))
    otherWay = true;
  else
    otherWay = !(x.value == y.value);
  if (otherWay) {
    d.oldEffect = ob;
    d.newEffect = nb;
    d.found = d.control = true;
  }
  return d;
}

} // namespace

EffectDifference firstDifference(const ExecutionLog &oldLog, const LineExecution &oldExec,
                                 const ExecutionLog &newLog, const LineExecution &newExec,
                                 const StoreTarget &oldTarget, const StoreTarget &newTarget) {
  TargetNames oldNames(oldTarget), newNames(newTarget);
  return compareEffects(oldLog, oldExec, newLog, newExec, oldNames, newNames);
}

Alignment alignExecutions(const ExecutionLog &oldLog, const ExecutionLog &newLog,
                          const StoreTarget &oldTarget, const StoreTarget &newTarget) {
  Alignment a;
  a.oldStatus.assign(oldLog.executions.size(), Aligned::Unmatched);
  a.newStatus.assign(newLog.executions.size(), Aligned::Unmatched);
  a.oldPeer.assign(oldLog.executions.size(), Alignment::npos);
  a.newPeer.assign(newLog.executions.size(), Alignment::npos);
  std::unordered_map<uint64_t, size_t> oldByIndex;
  oldByIndex.reserve(oldLog.executions.size());
  for (size_t i = 0; i < oldLog.executions.size(); ++i)
    oldByIndex.emplace(oldLog.executions[i].index, i);
  TargetNames oldNames(oldTarget), newNames(newTarget);
  auto pair = [&](size_t i, size_t j) {
    bool differs = compareEffects(oldLog, oldLog.executions[i], newLog, newLog.executions[j],
                                  oldNames, newNames)
                       .found;
    a.oldPeer[i] = j;
    a.newPeer[j] = i;
    a.oldStatus[i] = a.newStatus[j] = differs ? Aligned::Differs : Aligned::Same;
  };
  for (size_t j = 0; j < newLog.executions.size(); ++j) {
    const LineExecution &n = newLog.executions[j];
    auto it = oldByIndex.find(n.index);
    if (it == oldByIndex.end() || oldLog.executions[it->second].line != n.line)
      continue;
    pair(it->second, j);
  }
  // What the calling lines could not pair (a call the change rewrote, a function moved
  // to another file): the same line under the same chain of callees, where that index
  // names one unpaired execution on each side.
  std::unordered_map<uint64_t, size_t> oldByCallee, newByCallee;
  auto unpaired = [](const ExecutionLog &log, const std::vector<size_t> &peer,
                     std::unordered_map<uint64_t, size_t> &out) {
    for (size_t i = 0; i < log.executions.size(); ++i)
      if (peer[i] == Alignment::npos) {
        auto [it, fresh] = out.emplace(log.executions[i].calleeIndex, i);
        if (!fresh)
          it->second = Alignment::npos; // ambiguous
      }
  };
  unpaired(oldLog, a.oldPeer, oldByCallee);
  unpaired(newLog, a.newPeer, newByCallee);
  for (const auto &[key, j] : newByCallee) {
    auto it = oldByCallee.find(key);
    if (j == Alignment::npos || it == oldByCallee.end() || it->second == Alignment::npos ||
        oldLog.executions[it->second].line != newLog.executions[j].line)
      continue;
    pair(it->second, j);
  }
  return a;
}

} // namespace rootline
