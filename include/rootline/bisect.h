// rootline bisect: the first bad commit on the first-parent history between a good and
// a bad revision. Each tested commit is materialised from git's object store, built
// (cached by content) and run natively, without instrumentation; a commit that does not
// build is skipped, like `git bisect skip`. The first bad commit is then debugged
// against its parent (docs/bisect.md).
#pragma once

#include "rootline/cluster.h"
#include "rootline/debug.h"
#include "rootline/vcs.h"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rootline {

// What decides whether a commit is good.
struct CommitCheck {
  RecipeRequest recipe; // --src paths relative to each commit's tree
  ProgramInput input;
  std::optional<std::string> expectedStdout; // else the good commit's behaviour
  // A shell command instead of comparing output: run with sh -c in a scratch copy of
  // the commit's tree, $ROOTLINE_PROGRAM naming the built program (when the commit has
  // a recipe). Exit 0 good, 125 cannot test, 1-127 bad, like `git bisect run`.
  std::optional<std::string> shellCommand;
  double timeoutSeconds = 30;
  // The project's own build and test (--build/--test, docs/project.md): each commit is
  // built by `projectBuild` (empty: detected) and judged by `testCommand`, run from the
  // top of a scratch copy of the built tree. A commit that does not build is skipped.
  std::optional<std::string> projectBuild;
  std::optional<std::string> testCommand;
};

// The behaviour a good commit shows: its stdout, and how it ends (when known).
struct ExpectedBehaviour {
  std::string stdoutBytes;
  std::optional<std::string> outcome; // "exit 0"; unset: any ending but a crash or timeout
};

enum class Verdict { Good, Bad, Skip };
std::string verdictName(Verdict v); // "good", "bad", "skip"

struct CommitVerdict {
  CommitInfo commit;
  Verdict verdict = Verdict::Skip;
  std::string reason; // "stdout differs from byte 16", "does not build: ...", "exit 1"
  bool built = false, buildCached = false; // a build was attempted; it came from the cache
  RunSummary run;                          // the test's native run (not with --cmd)
  double seconds = 0;
};

// How the verdict's build went: "none" (not built), "cached", "compiled".
std::string buildKind(const CommitVerdict &v);

// Builds the commit natively and runs the test on it. `expected` unset: the verdict is
// Good whenever the program builds and runs to an end that is not a crash or timeout
// (used to learn the good commit's behaviour).
CommitVerdict checkCommit(const Repository &repo, const std::string &hash, const CommitCheck &check,
                          const std::optional<ExpectedBehaviour> &expected);

struct BisectOptions {
  bool debugFirstBad = true;
  DebugRequest debugTemplate; // condition, timeouts, candidate limit for the attached debug
  std::function<void(const std::string &)> progress;
  // With the project's build and test (CommitCheck::testCommand): completes the attached
  // debug's request (both versions built, the failing process as its test), given the
  // request with both trees and commits set.
  std::function<DebugRequest(DebugRequest)> prepareProjectDebug;
};

struct BisectResult {
  CommitInfo good, bad;
  size_t rangeSize = 0;             // commits on bad's first-parent chain that good cannot reach
  std::vector<CommitVerdict> steps; // in test order: good, bad, then the bisection
  std::optional<CommitInfo> firstBad;
  // With skipped commits next to the boundary the answer is a set, as in git.
  std::vector<CommitInfo> possibleFirstBad;
  unsigned rounds = 0;              // rounds of probes (one commit each unless --parallel)
  unsigned parallel = 1;            // commits probed per round
  std::optional<DebugReport> debug; // the first bad commit against its parent
  std::string debugError;           // why there is no debug report
  double seconds = 0;
  unsigned compiled() const; // builds that were not in the cache
  unsigned skipped() const;
};

// Throws Error (exit 2) when good is not an ancestor of bad, the test fails at good,
// passes at bad, or either end cannot be built.
BisectResult bisectHistory(const Repository &repo, const std::string &good, const std::string &bad,
                           const CommitCheck &check, const BisectOptions &options);

// The bisection's pieces, for the parallel bisection (which probes K commits a round).
// The untested, unskipped commit nearest the middle of (lo, hi) (indices into the
// range; -1 is the good commit), or up to k such commits spread evenly over it.
std::optional<long> nextProbe(long lo, long hi, const std::set<long> &skipped);
std::vector<long> spreadProbes(long lo, long hi, const std::set<long> &skipped, unsigned k);
struct BisectEnds {
  CommitInfo good, bad;
  std::vector<std::string> range;            // bad's first-parent chain after good; back() is bad
  std::vector<CommitVerdict> steps;          // the good end's and the bad end's verdicts
  std::optional<ExpectedBehaviour> expected; // what every probe is compared with
};
// Checks both ends as bisectHistory does (and throws the same errors).
BisectEnds checkBisectEnds(const Repository &repo, const std::string &good, const std::string &bad,
                           const CommitCheck &check,
                           const std::function<void(const std::string &)> &say);
// Debugs result.firstBad against `parent` into result.debug (or debugError).
void debugFirstBad(const Repository &repo, BisectResult &result, const std::string &parent,
                   const CommitCheck &check, const BisectOptions &options);
// A line of progress for a tested commit: "step 3 (12 left): abc1234 subject: good (...)".
std::string bisectStepLine(const CommitVerdict &v, const std::string &what);

// The parallel bisection: each round a plan of K `bisect --check` units (cluster.h).
struct ParallelBisectRequest {
  fs::path planDir;
  unsigned parallel = 3;              // K: commits probed per round
  std::vector<std::string> checkArgs; // `bisect --check HASH` options besides the hash
  double unitTimeoutSeconds = 0;
  fs::path out; // where the final merge writes bisect.json
};
// The first round's plan, after both ends were checked.
WorkPlan parallelBisectPlan(const Repository &repo, const BisectEnds &ends,
                            const ParallelBisectRequest &request);
// Applies the round's results (a unit without one decides nothing, like a skipped
// commit) and writes the next round's plan; none when the search is over.
std::optional<WorkPlan> advanceParallelBisect(const Repository &repo, const WorkPlan &plan);
// What the plan's state says so far: the steps, and the first bad commit once it is over.
BisectResult parallelBisectResult(const Repository &repo, const WorkPlan &plan);
// The last good commit (the first bad one's parent once the search is over).
std::string parallelBisectParent(const WorkPlan &plan);

nlohmann::json bisectJson(const BisectResult &result);
std::string bisectMarkdown(const BisectResult &result);
std::string bisectSummary(const BisectResult &result);

} // namespace rootline
