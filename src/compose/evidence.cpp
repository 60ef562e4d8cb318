// The evidence stage: every alternative input run natively on both versions, in rank
// order, until the deadline. Candidates the budget left unrun keep their solver model
// as evidence and say so.
#include "compose/debug_stages.h"

#include <algorithm>

namespace rootline::debug {

void gatherEvidence(std::vector<DebugCandidate> &candidates, const Version &oldV,
                    const Version &newV, const RunSummary &failing, const fs::path &work,
                    double timeoutSeconds, const Deadline &deadline, Stages &stages) {
  size_t total = 0, ran = 0, unrun = 0;
  for (const auto &c : candidates)
    total += c.hasAlternative;
  // The most promising first: changed lines, then closest to the failure.
  std::vector<size_t> order(candidates.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const DebugCandidate &x = candidates[a], &y = candidates[b];
    if (x.inChangedRegion != y.inChangedRegion)
      return x.inChangedRegion;
    return x.distance < y.distance;
  });
  unsigned n = 0;
  for (size_t k : order) {
    DebugCandidate &c = candidates[k];
    if (!c.hasAlternative)
      continue;
    if (deadline.expired()) {
      ++unrun;
      continue;
    }
    stages.update(std::to_string(ran) + " of " + std::to_string(total) + " alternative inputs run");
    fs::path dir = work / ("alt" + std::to_string(n++));
    // Each run's timeout is cut to the stage's deadline; a run it stops proves nothing.
    double timeout = deadline.clamp(timeoutSeconds, 0.2);
    c.oldRun =
        runInputNatively(oldV.native, c.alternative, dir / "old", timeout, kMadeUpInputOutputLimit);
    c.newRun =
        runInputNatively(newV.native, c.alternative, dir / "new", timeout, kMadeUpInputOutputLimit);
    c.ran = true;
    ++ran;
    // Runs stopped early (timeout, output limit) do not show that the versions agree.
    auto stopped = [](const RunSummary &r) {
      return r.outcome == "timeout" || r.outcome == "output limit";
    };
    c.removesFailure = c.oldRun.stdoutBytes == c.newRun.stdoutBytes &&
                       c.oldRun.outcome == c.newRun.outcome && !stopped(c.oldRun);
    c.changesFailure =
        c.newRun.stdoutBytes != failing.stdoutBytes || c.newRun.outcome != failing.outcome;
  }
  if (unrun)
    stages.cut(std::to_string(unrun) + " of " + std::to_string(total) +
               " alternative inputs were not run: those candidates carry solver evidence only");
}

} // namespace rootline::debug
