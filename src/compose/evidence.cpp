// The evidence stage: every alternative input run natively on both versions, in rank
// order, until the deadline. Candidates the budget left unrun keep their solver model
// as evidence and say so. Versions that agree on an input the program rejects show
// nothing: such evidence is labelled weak.
#include "compose/debug_stages.h"

#include "rootline/closest_input.h"
#include "rootline/output_values.h"
#include "rootline/run.h"
#include "rootline/trace.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace rootline::debug {

namespace {

// Runs stopped early (timeout, output limit) do not show that the versions agree.
bool stopped(const RunSummary &r) { return r.outcome == "timeout" || r.outcome == "output limit"; }

// An output with its numbers blanked out ("readings: # (skipped #)"): random inputs
// change the counts an error path prints, not its words.
std::string outputShape(const std::string &out) {
  std::string shape;
  for (size_t i = 0; i < out.size(); ++i) {
    auto c = static_cast<unsigned char>(out[i]);
    bool number = std::isdigit(c) || ((c == '-' || c == '.') && i + 1 < out.size() &&
                                      std::isdigit(static_cast<unsigned char>(out[i + 1])));
    if (!number) {
      shape += out[i];
      continue;
    }
    while (i + 1 < out.size() &&
           (std::isdigit(static_cast<unsigned char>(out[i + 1])) || out[i + 1] == '.'))
      ++i;
    shape += '#';
  }
  return shape;
}

// What the old version prints for input it does not care about: the output shape most
// random inputs of the failing input's shape give, when at least kShapeMajority of
// kShapeRuns agree; nullopt otherwise (or when the budget ran out).
std::optional<RunSummary> typicalOutput(const Version &oldV, const ProgramInput &failing,
                                        const std::vector<InputVar> &vars, const fs::path &work,
                                        double timeoutSeconds, const Deadline &deadline) {
  if (vars.empty())
    return std::nullopt;
  std::map<std::pair<std::string, std::string>, unsigned> seen;
  std::optional<RunSummary> typical;
  uint64_t seed = std::hash<std::string>{}(failing.stdinBytes);
  for (unsigned k = 0; k < kShapeRuns && !deadline.expired(); ++k) {
    ProgramInput like = randomLike(failing, vars, seed + k);
    if (like == failing)
      continue;
    RunSummary r = runInputNatively(oldV.native, like, work / ("shape" + std::to_string(k)),
                                    deadline.clamp(timeoutSeconds, 0.2), kMadeUpInputOutputLimit);
    if (stopped(r))
      continue;
    r.stdoutBytes = outputShape(r.stdoutBytes);
    if (++seen[{r.outcome, r.stdoutBytes}] >= kShapeMajority)
      typical = r;
  }
  return typical;
}

// Why the versions agreeing on `c`'s input shows nothing, or "".
std::string weakness(const DebugCandidate &c, const RunSummary &oldFailing,
                     const std::optional<RunSummary> &typical) {
  if (c.oldRun.outcome != "exit 0" && oldFailing.outcome == "exit 0")
    return "the input is rejected by both versions (" + c.oldRun.outcome + ")";
  if (c.oldRun.stdoutBytes.empty() && !oldFailing.stdoutBytes.empty())
    return "both versions print nothing on it";
  std::string shape = outputShape(c.oldRun.stdoutBytes);
  if (typical && typical->stdoutBytes == shape && typical->outcome == c.oldRun.outcome &&
      shape != outputShape(oldFailing.stdoutBytes))
    return "both versions print what most random inputs of the failing input's shape make them "
           "print";
  return "";
}

// The logged branch outcomes of a traced run in order (0/1 for a branch, 2 + value
// for a switch), at most `limit` of them. Silent branches (silentBranches) are not in
// it; both runs are of one module, so they are left out of both alike.
std::vector<uint64_t> branchPath(const fs::path &trace, const std::string &key, size_t limit) {
  std::vector<uint64_t> out;
  TraceReader reader(trace, key);
  Event ev;
  while (out.size() < limit && reader.next(ev)) {
    if (ev.tag == Ev::BR_FALSE)
      out.push_back(0);
    else if (ev.tag == Ev::BR_TRUE)
      out.push_back(1);
    else if (ev.tag == Ev::SWITCH)
      out.push_back(2 + ev.a);
  }
  return out;
}

constexpr size_t kMaxPathBranches = 1u << 22;

// Agreement on an input that leaves the failing run's path and then soon ends is weak:
// the old version, traced on it, follows the failing run's branches for a while, turns
// off, and stops within a tenth of what the failing run still had to do (a parser's
// error path). Empty when the input goes on like the failing run.
std::string earlyExit(const Version &oldV, const std::vector<uint64_t> &failingPath,
                      const ProgramInput &alternative, const fs::path &dir, double timeout) {
  TestCase t = materialiseInput(alternative, dir);
  t.timeoutSeconds = timeout;
  t.maxTraceBytes = 64ull << 20;
  TracedRun run = runTraced(oldV.program, t, dir / "run.trace");
  if (run.limitReached || run.process.timedOut)
    return "";
  std::vector<uint64_t> path =
      branchPath(dir / "run.trace", oldV.program.module.key, kMaxPathBranches);
  std::error_code ec;
  fs::remove(dir / "run.trace", ec);
  return leftFailingPathEarly(failingPath, path);
}

} // namespace

std::string leftFailingPathEarly(const std::vector<uint64_t> &failingPath,
                                 const std::vector<uint64_t> &path) {
  size_t common = static_cast<size_t>(
      std::mismatch(path.begin(), path.end(), failingPath.begin(), failingPath.end()).first -
      path.begin());
  size_t left = failingPath.size() - common, after = path.size() - common;
  if (left < 20 || after * 10 >= left)
    return "";
  return "the input leaves the failing run's path after " + std::to_string(common) + " of its " +
         std::to_string(failingPath.size()) + " branches, and the run ends " +
         std::to_string(after) + " branch(es) later: both versions reject it early";
}

// The stdout line (0-based) where the failing run's output first differs from the
// passing one's; none when stdout does not differ (a crash, a status).
static std::optional<size_t> criterionLine(const RunSummary &passing, const RunSummary &failing) {
  const std::string &a = passing.stdoutBytes, &b = failing.stdoutBytes;
  size_t i =
      static_cast<size_t>(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin());
  if (i == a.size() && i == b.size())
    return std::nullopt;
  return static_cast<size_t>(std::count(a.begin(), a.begin() + static_cast<long>(i), '\n'));
}

std::string missedCriterion(const RunSummary &run, const RunSummary &passing,
                            const RunSummary &failing, const std::string &outputFile) {
  auto line = criterionLine(passing, failing);
  if (!line)
    return "";
  size_t printed =
      static_cast<size_t>(std::count(run.stdoutBytes.begin(), run.stdoutBytes.end(), '\n'));
  if (!run.stdoutBytes.empty() && run.stdoutBytes.back() != '\n')
    ++printed; // a last line without its newline still reaches it
  if (printed > *line)
    return "";
  if (!outputFile.empty()) // the run's "stdout" is the file it writes
    return "its run writes " + std::to_string(printed) + " line(s) of " + outputFile +
           " and stops before the failing output (its line " + std::to_string(*line + 1) + ")";
  return "its run prints " + std::to_string(printed) +
         " line(s) and stops before the failing output (stdout line " + std::to_string(*line + 1) +
         ")";
}

std::optional<std::string> agreesWhereFailing(const RunSummary &oldRun, const RunSummary &newRun,
                                              const std::vector<ValuePlace> &failingPlaces,
                                              bool stderrCounts) {
  std::vector<ValuePlace> apart = differingValues(oldRun.stdoutBytes, newRun.stdoutBytes);
  if (oldRun.outcome != newRun.outcome ||
      (stderrCounts && oldRun.stderrBytes != newRun.stderrBytes) || failingPlaces.empty() ||
      apart.empty() || std::any_of(apart.begin(), apart.end(), [&](const ValuePlace &p) {
        return covers(failingPlaces, p);
      }))
    return std::nullopt;
  std::string failingText, apartText;
  for (const auto &p : failingPlaces)
    failingText += (failingText.empty() ? "" : ", ") + placeText(p);
  for (const auto &p : apart)
    apartText += (apartText.empty() ? "" : ", ") + placeText(p);
  return "both versions print the same values where the failing run differs (" + failingText +
         "); they differ only in " + apartText + ", which the failing run printed alike";
}

void gatherEvidence(std::vector<DebugCandidate> &candidates, const Version &oldV,
                    const Version &newV, const ProgramInput &failingInput,
                    const RunSummary &oldFailing, const RunSummary &failing, const fs::path &work,
                    double timeoutSeconds, const Deadline &deadline, Stages &stages,
                    bool stderrCounts) {
  size_t total = 0, ran = 0, unrun = 0;
  for (const auto &c : candidates)
    total += c.hasAlternative;
  // The values the failing run got wrong (none when only the ending or stderr differs).
  std::vector<ValuePlace> failingPlaces =
      differingValues(oldFailing.stdoutBytes, failing.stdoutBytes);
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
    std::tie(c.oldRun, c.newRun) =
        runMadeUpInputOnBoth(stages, oldV, newV, c.alternative, dir, timeout);
    c.ran = true;
    ++ran;
    // Alike, or alike in every value the failing run got wrong: an intended change to
    // another value on the same line does not make the failure stay.
    std::optional<std::string> where =
        agreesWhereFailing(c.oldRun, c.newRun, failingPlaces, stderrCounts);
    c.removesFailure =
        (behaveAlike(c.oldRun, c.newRun, stderrCounts) || where) && !stopped(c.oldRun);
    c.agreesWhere = where && c.removesFailure ? *where : "";
    c.changesFailure = !behaveAlike(c.newRun, failing, stderrCounts);
    if (c.kind == "branch deviation" || c.kind == "missing code")
      c.missesCriterion = missedCriterion(c.version == "old" ? c.oldRun : c.newRun, oldFailing,
                                          failing, failingInput.outputFile);
  }
  if (unrun)
    stages.cut(std::to_string(unrun) + " of " + std::to_string(total) +
               " alternative inputs were not run: those candidates carry solver evidence only");

  // Agreement on input the program rejects is weak. The random runs are made only when
  // some alternative input made the versions agree.
  if (std::none_of(candidates.begin(), candidates.end(),
                   [](const DebugCandidate &c) { return c.removesFailure; }))
    return;
  std::vector<InputVar> vars = inputsOfBoth(oldV, newV);
  stages.update("random inputs of the failing input's shape");
  std::optional<RunSummary> typical =
      typicalOutput(oldV, failingInput, vars, work, timeoutSeconds, deadline);
  for (auto &c : candidates)
    if (c.removesFailure)
      c.weakEvidence = weakness(c, oldFailing, typical);
  // The failing run's path prefix: the old version, traced on each remaining agreeing
  // input, against its branches on the failing input.
  std::optional<std::vector<uint64_t>> failingPath;
  unsigned traced = 0;
  for (auto &c : candidates) {
    if (!c.removesFailure || !c.weakEvidence.empty() || deadline.expired())
      continue;
    if (!failingPath) {
      stages.update("the failing run's path against the agreeing inputs'");
      failingPath = branchPath(oldV.traceFile, oldV.program.module.key, kMaxPathBranches);
    }
    c.weakEvidence =
        earlyExit(oldV, *failingPath, c.alternative, work / ("path" + std::to_string(traced++)),
                  deadline.clamp(timeoutSeconds, 0.2));
  }
}

} // namespace rootline::debug
