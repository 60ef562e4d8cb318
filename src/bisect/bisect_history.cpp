// Binary search over the first-parent history, then debug of the first bad commit.
#include "rootline/bisect.h"

#include "rootline/error.h"

#include <chrono>
#include <cmath>
#include <set>

namespace rootline {

std::string bisectStepLine(const CommitVerdict &v, const std::string &what) {
  std::string build = !v.built ? "" : v.buildCached ? ", cached build" : ", compiled";
  return what + " " + v.commit.shortHash + " " + v.commit.subject + ": " + verdictName(v.verdict) +
         " (" + v.reason + build + ")";
}

// The untested, unskipped commit nearest the middle of (lo, hi), if any.
std::optional<long> nextProbe(long lo, long hi, const std::set<long> &skipped) {
  long mid = lo + (hi - lo + 1) / 2; // lo < mid <= hi when hi - lo >= 2
  auto usable = [&](long i) { return i > lo && i < hi && !skipped.count(i); };
  for (long d = 0; mid - d > lo || mid + d < hi; ++d) {
    if (usable(mid - d))
      return mid - d;
    if (usable(mid + d))
      return mid + d;
  }
  return std::nullopt;
}

std::vector<long> spreadProbes(long lo, long hi, const std::set<long> &skipped, unsigned k) {
  if (k <= 1) {
    auto p = nextProbe(lo, hi, skipped);
    return p ? std::vector<long>{*p} : std::vector<long>{};
  }
  std::vector<long> usable;
  for (long i = lo + 1; i < hi; ++i)
    if (!skipped.count(i))
      usable.push_back(i);
  if (usable.size() <= k)
    return usable;
  // k cuts spread evenly: the part between two neighbouring probes (or a probe and an
  // end) holds at most ceil((n - k) / (k + 1)) untested commits.
  std::vector<long> probes;
  size_t n = usable.size();
  for (unsigned j = 1; j <= k; ++j) {
    size_t at = (j * (n + 1)) / (k + 1); // 1-based position in usable
    long p = usable[std::min(n, std::max<size_t>(1, at)) - 1];
    if (probes.empty() || probes.back() != p)
      probes.push_back(p);
  }
  return probes;
}

BisectEnds checkBisectEnds(const Repository &repo, const std::string &good, const std::string &bad,
                           const CommitCheck &check,
                           const std::function<void(const std::string &)> &say) {
  BisectEnds ends;
  ends.good = repo.commit(good);
  ends.bad = repo.commit(bad);
  if (good == bad)
    throw Error("--good and --bad name the same commit " + ends.good.shortHash);
  if (!repo.isAncestor(good, bad))
    throw Error("the good commit " + ends.good.shortHash +
                " is not an ancestor of the bad commit " + ends.bad.shortHash);
  ends.range = repo.firstParentRange(good, bad);
  // Both ends first: the good one defines the expected behaviour unless --expect does.
  if (check.expectedStdout)
    ends.expected = ExpectedBehaviour{*check.expectedStdout, std::nullopt};
  CommitVerdict g = checkCommit(repo, good, check, ends.expected);
  ends.steps.push_back(g);
  say(bisectStepLine(g, "good end"));
  if (g.verdict == Verdict::Skip)
    throw Error("cannot test the good commit " + g.commit.shortHash + ": " + g.reason);
  if (g.verdict == Verdict::Bad)
    throw Error("the test fails at the good commit " + g.commit.shortHash + ": " + g.reason);
  if (!check.shellCommand)
    ends.expected =
        ExpectedBehaviour{check.expectedStdout.value_or(g.run.stdoutBytes), g.run.outcome};
  CommitVerdict b = checkCommit(repo, bad, check, ends.expected);
  ends.steps.push_back(b);
  say(bisectStepLine(b, "bad end"));
  if (b.verdict == Verdict::Skip)
    throw Error("cannot test the bad commit " + b.commit.shortHash + ": " + b.reason);
  if (b.verdict == Verdict::Good)
    throw Error("the test passes at the bad commit " + b.commit.shortHash + ": " + b.reason);
  return ends;
}

void debugFirstBad(const Repository &repo, BisectResult &result, const std::string &parent,
                   const CommitCheck &check, const BisectOptions &options) {
  if (!result.firstBad || !options.debugFirstBad)
    return;
  if (check.shellCommand && check.input.stdinBytes.empty() && check.input.args.empty()) {
    result.debugError = "debug needs the failing input (--stdin/ARGS) besides --cmd";
    return;
  }
  const CommitInfo &last = *result.firstBad;
  if (options.progress)
    options.progress("bisect: debugging " + last.shortHash + " against its parent " +
                     parent.substr(0, 7));
  try {
    DebugRequest req = options.debugTemplate;
    req.oldRoot = repo.materialize(parent);
    req.newRoot = repo.materialize(last.hash);
    if (!check.testCommand) {
      req.oldRecipe = resolveRecipeIn(check.recipe, req.oldRoot);
      req.newRecipe = resolveRecipeIn(check.recipe, req.newRoot);
    }
    req.oldCommit = repo.commit(parent);
    req.newCommit = last;
    req.oldLabel = req.oldCommit->shortHash;
    req.newLabel = last.shortHash;
    req.sourceDiff = repo.diff(parent, last.hash);
    req.repository = repo.root();
    req.input = check.input;
    req.expectedStdout = check.expectedStdout;
    if (check.testCommand) {
      if (!options.prepareProjectDebug)
        throw Error("the attached debug of a --test bisection needs the project's build");
      req = options.prepareProjectDebug(req);
    }
    result.debug = debugRegression(req);
  } catch (const Error &e) {
    result.debugError = e.what();
  }
}

unsigned BisectResult::compiled() const {
  unsigned n = 0;
  for (const auto &s : steps)
    n += s.built && !s.buildCached;
  return n;
}

unsigned BisectResult::skipped() const {
  unsigned n = 0;
  for (const auto &s : steps)
    n += s.verdict == Verdict::Skip;
  return n;
}

BisectResult bisectHistory(const Repository &repo, const std::string &good, const std::string &bad,
                           const CommitCheck &check, const BisectOptions &options) {
  auto start = std::chrono::steady_clock::now();
  auto say = [&](const std::string &s) {
    if (options.progress)
      options.progress(s);
  };
  BisectResult result;
  result.good = repo.commit(good);
  result.bad = repo.commit(bad);
  if (good != bad && repo.isAncestor(good, bad)) {
    size_t n = repo.firstParentRange(good, bad).size();
    long steps = n > 1 ? std::lround(std::ceil(std::log2(double(n)))) : 0;
    say("bisect: " + std::to_string(n) + " commit(s) after " + result.good.shortHash + " up to " +
        result.bad.shortHash + ", about " + std::to_string(steps) + " step(s)");
  }
  BisectEnds ends = checkBisectEnds(repo, good, bad, check, say);
  std::vector<std::string> &range = ends.range;
  result.rangeSize = range.size();
  result.steps = ends.steps;
  std::optional<ExpectedBehaviour> expected = ends.expected;
  // Indices into range; -1 stands for the good commit, range.size()-1 is the bad one.
  long lo = -1, hi = static_cast<long>(range.size()) - 1;
  std::set<long> skipped;
  while (auto probe = nextProbe(lo, hi, skipped)) {
    CommitVerdict v = checkCommit(repo, range[*probe], check, expected);
    result.steps.push_back(v);
    long left = hi - lo - 1 - static_cast<long>(skipped.size());
    say(bisectStepLine(v, "step " + std::to_string(result.steps.size() - 2) + " (" +
                              std::to_string(left) + " left):"));
    if (v.verdict == Verdict::Good)
      lo = *probe;
    else if (v.verdict == Verdict::Bad)
      hi = *probe;
    else
      skipped.insert(*probe);
  }
  result.rounds = static_cast<unsigned>(result.steps.size() - 2);
  for (long i : skipped)
    if (i > lo && i < hi)
      result.possibleFirstBad.push_back(repo.commit(range[i]));
  CommitInfo last = repo.commit(range[hi]);
  if (result.possibleFirstBad.empty()) {
    result.firstBad = last;
    say("bisect: first bad commit " + last.shortHash + " " + last.subject);
  } else {
    result.possibleFirstBad.push_back(last);
    say("bisect: skipped commits hide the first bad commit: one of " +
        std::to_string(result.possibleFirstBad.size()) + " commits");
  }
  debugFirstBad(repo, result, lo >= 0 ? range[lo] : good, check, options);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace rootline
