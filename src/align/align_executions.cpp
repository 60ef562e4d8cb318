// Pairs the line executions of two runs by execution index and compares what they did.
#include "rootline/alignment.h"

#include <llvm/ADT/DenseMap.h>

#include <algorithm>
#include <string>
#include <tuple>

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

// The effects other than branches, in order (branches are compared by where control
// went), walked in place: aligning a long run compares millions of pairs.
struct ValueEffects {
  const ExecutionLog &log;
  const LineExecution &e;
  size_t next(size_t k) const { // the first value effect at or after k
    while (k < e.effectCount && log.effects[e.effectBegin + k].kind == LineEffect::Branch)
      ++k;
    return k;
  }
  const LineEffect &at(size_t k) const { return log.effects[e.effectBegin + k]; }
};

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
  ValueEffects a{oldLog, o}, b{newLog, n};
  size_t i = a.next(0), j = b.next(0);
  for (; i < o.effectCount && j < n.effectCount; i = a.next(i + 1), j = b.next(j + 1))
    if (!sameEffect(a.at(i), b.at(j), oldNames, newNames)) {
      d.oldEffect = i;
      d.newEffect = j;
      d.found = true;
      return d;
    }
  // One has more: the first it has beyond the other's last (or the end: none).
  if (i < o.effectCount || j < n.effectCount) {
    d.oldEffect = i;
    d.newEffect = j;
    d.found = true;
    return d;
  }
  // Control: the last branch of each decides where the line goes. It went the same way
  // when it led to the same line; the other way when one run's target is the other's
  // road not taken, or when the old run went to a line whose counterpart is not where
  // the new run went (the new run entered code the change added, or other code); else
  // (the old target has no counterpart: the lines around moved) the outcomes decide.
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
  else if (x.taken && y.taken && !(x.taken & kOldOnlyLine))
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

bool sameInputs(const ExecutionLog &oldLog, const LineExecution &oldExec,
                const ExecutionLog &newLog, const LineExecution &newExec) {
  if (oldExec.inputCount != newExec.inputCount || oldExec.inputCount >= kMaxLineInputs)
    return false;
  auto values = [](const ExecutionLog &log, const LineExecution &e) {
    std::vector<std::tuple<bool, uint64_t, uint64_t>> out;
    for (uint32_t k = 0; k < e.inputCount; ++k) {
      const LineInput &in = log.inputs[e.inputBegin + k];
      out.emplace_back(in.pointer, in.pointer ? 0 : in.value.lo, in.pointer ? 0 : in.value.hi);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  return values(oldLog, oldExec) == values(newLog, newExec);
}

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
  TargetNames oldNames(oldTarget), newNames(newTarget);
  auto pair = [&](size_t i, size_t j) {
    bool differs = compareEffects(oldLog, oldLog.executions[i], newLog, newLog.executions[j],
                                  oldNames, newNames)
                       .found;
    a.oldPeer[i] = j;
    a.newPeer[j] = i;
    a.oldStatus[i] = a.newStatus[j] = differs ? Aligned::Differs : Aligned::Same;
  };
  // Joins by a key, sorted rather than hashed: a long run has millions of executions,
  // and a hash table's lookups there are cache misses. A key is taken only where it
  // names one execution on each side, of the same line.
  using Keyed = std::pair<uint64_t, size_t>; // (key, execution)
  auto join = [&](std::vector<Keyed> &olds, std::vector<Keyed> &news, bool otherNest) {
    std::sort(olds.begin(), olds.end());
    std::sort(news.begin(), news.end());
    auto unique = [](const std::vector<Keyed> &v, size_t k) {
      return (k == 0 || v[k - 1].first != v[k].first) &&
             (k + 1 == v.size() || v[k + 1].first != v[k].first);
    };
    for (size_t i = 0, j = 0; i < olds.size() && j < news.size();) {
      if (olds[i].first < news[j].first)
        ++i;
      else if (news[j].first < olds[i].first)
        ++j;
      else {
        size_t o = olds[i].second, n = news[j].second;
        const LineExecution &x = oldLog.executions[o], &y = newLog.executions[n];
        if (unique(olds, i) && unique(news, j) && x.line == y.line &&
            (!otherNest || x.loopNest != y.loopNest))
          pair(o, n);
        ++i;
        ++j;
      }
    }
  };
  enum class By { Index, Callee, Activation };
  auto keyed = [](const ExecutionLog &log, const std::vector<size_t> &peer, By by) {
    std::vector<Keyed> out;
    out.reserve(log.executions.size());
    for (size_t i = 0; i < log.executions.size(); ++i)
      if (peer[i] == Alignment::npos) {
        const LineExecution &e = log.executions[i];
        out.push_back({by == By::Index    ? e.index
                       : by == By::Callee ? e.calleeIndex
                                          : e.activationIndex,
                       i});
      }
    return out;
  };
  auto pass = [&](By by) {
    std::vector<Keyed> olds = keyed(oldLog, a.oldPeer, by), news = keyed(newLog, a.newPeer, by);
    join(olds, news, by == By::Activation);
  };
  pass(By::Index);
  // What the calling lines could not pair (a call the change rewrote, a function moved
  // to another file): the same line under the same chain of callees.
  pass(By::Callee);
  // A line the change put in other loops (a `goto` label moved past it, so it is in the
  // jump's loop in one version only, or the loop around it now starts elsewhere): its
  // runs in the activation, in order. Only there: elsewhere the iterations say which
  // runs are each other's.
  pass(By::Activation);
  return a;
}

} // namespace rootline
