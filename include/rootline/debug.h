// rootline debug: why does a test that passes on the old version fail on the new one?
// Establishes the failure, picks the criterion in each version (the first output that
// differs, down to the printf argument, or the crash), composes the two versions'
// relevant slice conditions Darwin-style (DESIGN.md 2.6), and ranks the candidates by
// evidence from running alternative inputs natively on both versions.
#pragma once

#include "rootline/analysed_version.h"
#include "rootline/budget.h"
#include "rootline/explore.h"
#include "rootline/progress.h"
#include "rootline/text_diff.h"
#include "rootline/vcs.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rootline {

enum class ConditionKind { Rsc, Pc };

struct DebugRequest {
  BuildRecipe oldRecipe, newRecipe;
  // Versions the project's own build made (--build; docs/project.md): used instead of
  // the recipes. Revert trials need a rebuild per trial and are not made for them yet.
  std::optional<BuiltVersion> oldBuilt, newBuilt;
  // With built versions: builds the new version with these files (paths relative to its
  // top) replaced, and returns the native program (revert trials); throws Error when that
  // does not build.
  std::function<fs::path(const std::map<std::string, std::string> &)> buildVariant;
  // With a test command (--test): runs the whole test on the new version built with these
  // files replaced, within `timeoutSeconds`: "passes", "fails", or "" when it cannot tell
  // (the test cannot test, ran out of time, the variant does not build). A trial runs the
  // failing process alone; this confirms a passing trial for the whole test (docs/debug.md,
  // "Revert evidence").
  std::function<std::string(const std::map<std::string, std::string> &, double timeoutSeconds)>
      runWholeTest;
  double wholeTestSeconds = 0; // how long the test took on the new version
  // That time is of a traced run (docs/project.md, "Traced first"): longer than a native
  // run, so it is margin enough for one.
  bool wholeTestTimedTraced = false;
  // Said first in the report's notes (the test command, the failing process).
  std::vector<std::string> leadNotes;
  fs::path oldRoot, newRoot;                      // for file names in reports and the diff
  std::string oldLabel = "old", newLabel = "new"; // directories, or commits' short hashes
  // Between two commits: their metadata for the reports, and git's diff of the two
  // trees (renames included) for ranking and line mapping. Without it each file pair
  // is diffed by path. Two single files (`--old a.c --new b.c`) come as a one-file
  // sourceDiff pairing them.
  std::optional<CommitInfo> oldCommit, newCommit;
  std::optional<SourceDiff> sourceDiff;
  fs::path repository; // the repository's top directory, with commits
  ProgramInput input;
  // Where files the program opens by a relative name are looked for when --file did
  // not give them (the directory rootline runs in, the --stdin file's).
  std::vector<fs::path> inputSearchDirs;
  std::optional<std::string> expectedStdout; // --expect; else the old version's output
  // The failing process of a test command: its stdout, its ending and its stderr all
  // count, in that order (the test compared the whole behaviour, not just stdout).
  bool wholeBehaviour = false;
  // That process as the test ran it, for messages: "`mawk -f wc.awk mawktest.dat` (process
  // 5 of the old run)".
  std::string processName;
  // The test's processes of the debugged program in each run, the failing one among them
  // (docs/debug.md, "Test spectrum"): each one's trace, and whether it behaves as its
  // counterpart in the other run does. `testTraces` keeps their directory until the job
  // ends.
  struct TestProcess {
    fs::path trace;
    bool alike = true;
  };
  std::vector<TestProcess> oldTestProcesses, newTestProcesses;
  std::shared_ptr<const void> testTraces;
  // The inputs the test gave newTestProcesses[i], carved from its traced run like the
  // failing process's, to run it alone (docs/debug.md, "The test's other processes");
  // nullopt when they cannot be. Unset without a test command.
  std::function<std::optional<ProgramInput>(size_t)> newTestProcessInput;
  ConditionKind condition = ConditionKind::Rsc;
  double timeoutSeconds = 30;
  unsigned solverTimeoutMs = 10000;
  unsigned maxCandidates = 20;
  // The whole job's time (docs/debug.md, "Budget"); 0: unlimited. Stages get shares of
  // what is left; one that reaches its share stops and leaves a note.
  double budgetSeconds = 60;
  uint32_t maxExprNodes = kDefaultMaxExprNodes;
  // Alternative inputs moved towards the failing input (docs/debug.md, "Alternative
  // inputs"); false keeps the solver's first models (--first-models, for comparison).
  bool closestInputs = true;
  // Local Darwin (docs/debug.md, "Local Darwin"): "auto" composes at the tested
  // function's carved call when the whole-program composition does not decide, or gives
  // that candidate no alternative input it ran; "always"; "never".
  std::string localDarwin = "auto";
  // The unit test and local Darwin stages; off for local Darwin's own composition.
  bool carveStages = true;
  Progress *progress = nullptr; // stage and counts on stderr; null: silent
};

// Changed-computation evidence (docs/debug.md, "Evidence per candidate"): an input of
// the failing input's partition on which the two versions compute the same value at a
// changed line (`sameValue`), or other values, run natively on both versions.
struct ValueEvidence {
  bool sameValue = false;
  ProgramInput input;
  std::vector<std::string> changes; // against the failing input ("token 1: 5 → 2")
  std::string what;                 // the value: "`cost`"
  std::string oldValue, newValue;   // at the line, on this input
  bool ran = false;
  RunSummary oldRun, newRun;
  bool outputsAgree = false; // same output and outcome on both versions
  std::string demonstrates;  // one sentence for the reader
};

// How many processes of a test ran a line (docs/debug.md, "Test spectrum"): those whose
// behaviour differs between the versions, and those that behave alike.
struct ProcessCounts {
  unsigned failing = 0, alike = 0;
  // Ochiai's suspiciousness of a line run by these, of all the processes `of`: 1 when
  // every differing process and no alike one ran it.
  double ochiai(const ProcessCounts &of) const;
};

struct DebugCandidate {
  unsigned rank = 0;
  std::string version; // "old" or "new": where the line is
  std::string kind;    // "branch deviation", "missing code", "changed computation"
  std::string file;    // relative to the version's root when possible
  unsigned line = 0;
  std::string function;
  std::string source; // the line's text
  // The same line in the other version if unchanged; for a changed line shown on the
  // new side, the old line it replaced.
  std::optional<unsigned> otherLine;
  std::string condition;    // the branch condition that the alternative input flips (readable)
  std::string conditionSmt; // the same with the solver's input names (`tok@0:i32`)
  bool hasAlternative = false;
  ProgramInput alternative;
  // What the alternative input changes against the failing input ("token 2: 10 → 11",
  // "line 3, byte 5: 'a' → 'b'"); empty when it changes nothing the program reads.
  std::vector<std::string> alternativeChanges;
  // What the alternative input shows about this line, one sentence.
  std::string demonstrates;
  // A changed computation's inputs of the failing partition where old and new compute
  // the same value at this line, and where they differ (the first ones of each).
  std::vector<ValueEvidence> valueEvidence;
  RunSummary oldRun, newRun;   // the alternative input, run natively on both versions
  bool removesFailure = false; // both versions behave alike on the alternative input
  // ... in every value the failing run got wrong, while another value differs: how
  // (docs/validate.md, "Values"); empty when they behave alike outright.
  std::string agreesWhere;
  bool changesFailure = false;  // the new version's output differs from its failing one
  bool inChangedRegion = false; // in a hunk of the change that is not neutral
  std::string neutral;          // on a neutral hunk's line: what the hunk does
  unsigned distance = 0;        // how far from the failure, in branches of the new slice
  // A line with no code of its own (a statement or case label): the line whose execution
  // stands for it (the labelled statement, the switch); 0 for any other line.
  unsigned runsAt = 0;
  // A changed line of a slice added beside the composition's deviations (not one of
  // them): ranked behind them where the other evidence is equal.
  bool fromSliceOnly = false;
  // The output spectrum: in the dynamic slices of how many of `sharedOutputsOf` stdout
  // lines that both versions print alike this line is; -1 when not computed.
  int sharedOutputs = -1;
  unsigned sharedOutputsOf = 0;
  // The test spectrum: how many of the test's processes of the program (`testSpectrumOf`,
  // those replayed whole, a sample of `testSpectrumAmong`) ran this line; known only with
  // both kinds among them.
  ProcessCounts testSpectrum, testSpectrumOf, testSpectrumAmong;
  bool testSpectrumKnown = false;
  bool ran = false; // the alternative input was run on both versions (within budget)
  // Why the versions agreeing on the alternative input says nothing about this line,
  // when it does not: "the input is rejected by both versions (exit 1)", "both versions
  // print what most random inputs of the failing input's shape make them print" (docs/
  // debug.md, "Alternative inputs"). Such evidence ranks below real evidence.
  std::string weakEvidence;
  // A branch deviation's alternative input should still reach the criterion: when the
  // run of the candidate's version on it stops printing before the line where the
  // failing run's output first differs, why ("its run prints 1 line, the failing output
  // is line 3"); else empty.
  std::string missesCriterion;
  // Revert evidence: "fixes" (reverting this line's hunk alone makes the test pass),
  // "fixes with others" (its hunk is in a minimal set whose revert does), "no effect"
  // (reverted alone the test still fails the same way), "changes failure", "unresolved"
  // (does not build alone), "fixes failing process" (with --test: reverting it alone makes
  // the failing process behave as in the old version, and the whole test still fails), or
  // "" (not tried).
  std::string revert;
  std::string revertDetail; // one sentence for the reader
  // A one-token edit of this line that makes the test pass with the rest of the change
  // kept (docs/debug.md, "Edit evidence"), one sentence; empty when none did.
  std::string edit;
  // With --test: how many of the test's differing processes that ran the line that edit
  // makes behave as in the old version, each run alone (docs/debug.md, "The test's other
  // processes").
  unsigned editRestores = 0;
  // With --test, an edit that made the failing process behave as in the old version while
  // the whole test still failed: one sentence; it repairs nothing, so `edit` stays empty.
  std::string processOnlyEdit;
  // How many other lines such edits repaired depend on this line's execution on the
  // failure's slice (their repairs may make up for a fault here); 0 unless repaired.
  unsigned repairsUpstream = 0;
  unsigned revertLines = 0; // changed lines of the unit the revert evidence is about
  std::string revertUnit;   // that unit's hunks ("main.c:6-7"), as revert trials name them
  // When that unit is a group of hunks that fixes: a smaller unit holding the line (its
  // hunk with what its build needs) whose revert removes the first difference, one
  // sentence; it puts the line first among its group's lines. Empty when none.
  std::string narrowedRevert;
  // clang warns at this line of the new version, with the unit's own flags, and not at
  // its counterpart in the old (docs/debug.md, "Compiler warnings"): "message [-Wflag]";
  // empty when not.
  std::string newWarning;
  // A memory error this line made possible (docs/debug.md, "Memory errors"), one
  // sentence; empty when none.
  std::string memoryError;
  // The sanitizer build of the new version, run on the failing input: "confirmed",
  // "unconfirmed" (it ran and reported nothing), "unchecked" (it confirmed another
  // finding and stopped there), or "" (not run).
  std::string memoryCheck;
  // That memory error is made on this line: its access, or the declaration or
  // allocation the change sized (not a line the access only depends on).
  bool memoryFaultOnLine = false;
  // Aligned runs: "differs" (in the dual slice: an aligned execution of the line stores,
  // returns, passes or branches otherwise, or has no counterpart), "same values" (every
  // aligned execution does the same in both runs: behaviour-neutral for this failure),
  // or "" (not a changed line, or not aligned).
  std::string aligned;
  std::string alignedDetail; // one sentence for the reader
  // An aligned execution of the line read the same values as its counterpart (every
  // variable both read) and computed another: the runs part at this line, not before
  // it. Ranks above other differing lines.
  bool alignedOrigin = false;
  // A differential unit test of the line's function that passes on the old version and
  // fails on the new one (docs/debug.md, "Differential unit test"), one sentence; empty
  // when none was made.
  std::string unitTest;
  // Local Darwin's evidence at this line (docs/debug.md, "Local Darwin"), one sentence:
  // other values of the carved call's inputs, run on both versions' functions.
  std::string localAlternative;
  std::vector<std::string> reasons;
  // "runs" (alternative input run on both versions), "solver" (an alternative input
  // the budget left no time to run), "none" (ranked from the slice and the diff).
  std::string evidenceLevel() const { return ran ? "runs" : hasAlternative ? "solver" : "none"; }
};

// The differential unit test of the rank-1 candidate's function (docs/debug.md,
// "Differential unit test"): one call of it in the failing run, made again from the
// state that call began with, against each version's code.
struct DifferentialUnitTest {
  std::string function;
  uint64_t occurrence = 0;                  // which call of the function, in the carved run
  std::string version;                      // the run it was carved from ("new", or "old")
  std::string call;                         // "key_char(50)"
  std::string oldResult, newResult;         // what each version's call returns and leaves
  bool passesOld = false, failsNew = false; // the final test, built and run on each
  std::string fileName;                     // in --out: "unit-test/test_key_char.c"
  std::string source;                       // the test's C text
  std::string summary;                      // one sentence
};

// Local Darwin (docs/debug.md, "Local Darwin"): the tested function's carved call made
// again with its integer arguments and fields as inputs, its two versions' relevant slice
// conditions over them composed, and each alternative run on both versions' functions.
struct LocalAlternative {
  std::string file; // the line of the function whose branch the alternative flips
  unsigned line = 0;
  std::vector<std::string> changes; // "op->arg: 7 → 3"
  std::string demonstrates;         // the branch it flips: "it makes `…` false at x.c:49, …"
  std::string stdinText;            // the harness's input (one number per input)
  std::string oldResult, newResult; // what each version's call returns, and leaves
  bool agree = false;               // both calls print, return and leave the same
  std::string text;                 // one sentence
};
struct LocalComposition {
  std::string function;
  uint64_t occurrence = 0; // which call of the function, in the carved run
  std::string version;     // the run it was carved from
  std::string call;        // "apply(vm = a 24-byte local, op = an 8-byte local)"
  std::vector<std::pair<std::string, std::string>> inputs; // name, carved value
  std::string stdinText;            // the harness's input with the carved values
  std::string oldResult, newResult; // on the carved values: what differs
  std::string direction;            // the composition's answer
  size_t oldConstraints = 0, newConstraints = 0;
  bool decided = false;
  std::vector<LocalAlternative> alternatives;
  std::string harnessFile; // in --out: "local-darwin/harness_apply.c"
  std::string source;
  std::string summary; // one sentence
};

// A hunk of the change that cannot alter behaviour (whitespace, comments, a consistent
// rename): shown, never ranked.
struct NeutralEdit {
  std::string file; // new-side path
  unsigned oldStart = 0, oldLines = 0, newStart = 0, newLines = 0;
  std::string why; // "rename of `i` to `idx`", "whitespace or comments only"
};

// Where the aligned runs first part on the failure's slice.
struct FirstDivergence {
  std::string version; // "new", or "old" for code only the old run executed
  std::string file;    // in that version
  unsigned line = 0;
  unsigned iteration = 0; // the iteration of the innermost loop around the line; 0: none
  unsigned execution = 1; // the line's k-th execution in that iteration (or activation)
  std::string where;      // "main.c:6"
  std::string text;       // "main.c:6 computes `price` = 90 in the old run and 100 in the new run"
  // Both runs did the same thing there with other values (stored into the same
  // variable, passed the same argument, branched): not a line that now does something
  // else, such as a call to a helper the change extracted.
  bool sameEffect = false;
};

// A changed line of the slices whose aligned executions compute the same values in both
// runs: ranked below the changed lines that differ, and listed with the reason.
struct SameValueLine {
  std::string file; // new-side path (old-side for a candidate only the old version has)
  unsigned line = 0;
  std::string why;
};

// One trial of the revert stage: the new version with some hunks of the change reverted
// to the old text (or, "apply", the old behaviour with one hunk of the change applied).
// A passing trial's check on the test's other processes, each run alone on its build
// (docs/debug.md, "The test's other processes"): of those that behave alike in both
// versions, how many known to run its lines (`run`) and how many the test spectrum did not
// replay (`unreplayed`, which may) were run, how many behaved otherwise (`changed`), and
// the test's first of those (its command). When none changed: of the differing ones that
// ran its lines (and behave otherwise alone on the old and new builds too), how many were
// run, and how many behave as in the old version with it.
struct OthersVerdict {
  unsigned run = 0, unreplayed = 0, changed = 0;
  std::string firstChanged;
  unsigned differingRun = 0, restored = 0;
  unsigned alike() const { return run + unreplayed; }
};

struct RevertTrial {
  std::string what;               // "revert", "apply alone", "edit"
  std::vector<std::string> hunks; // "main.c:6-7"
  std::string result;             // "passes", "same failure", "different failure", "does not build"
  std::string error;              // when it does not build: the first build error
  RunSummary run;
  // With a test command, a trial that passes may be run through the whole test too:
  // "passes", "fails"; "" when not run (docs/debug.md, "Revert evidence").
  std::string wholeTest;
  // A passing edit's or one unit's revert's check on the test's other processes.
  OthersVerdict others;
};

// A memory error of the new run (docs/debug.md, "Memory errors"): found during replay,
// like a sanitizer report, and confirmed by a sanitizer build when there was time.
struct MemoryError {
  std::string kind; // "stack-buffer-overflow", "heap-use-after-free", "uninitialized-read", ...
  std::string file; // the access, in the new version
  unsigned line = 0;
  bool write = false;
  uint64_t accessSize = 0;
  int64_t offset = 0;
  std::string object; // "`buf`", "the block allocated at main.c:10"
  uint64_t objectSize = 0;
  std::string objectFile; // where the object is declared or allocated
  unsigned objectLine = 0;
  std::string freedAt;         // a use after free: "main.c:40"
  bool reachesFailure = false; // the access is in the failure's slice
  std::string causeFile;       // the changed line that made it possible, if found
  unsigned causeLine = 0;
  std::string cause; // why that line ("its declaration changed", "computes the index")
  // "AddressSanitizer: stack-buffer-overflow at main.c:7" when a sanitizer build of the
  // new version reported it on the failing input; "" when not run; else why not.
  std::string confirmed;
  std::string text; // one sentence for the reader
};

// One stage of the debugger, as it went: its time, whether it finished within its
// share of the budget, and what it left out when it did not.
struct StageRecord {
  std::string
      name; // build, failure, trace, slice, first ranking, symbolic, compose, evidence, rank
  double seconds = 0;
  bool complete = true;
  std::string note;
};

struct DebugReport {
  std::string oldLabel, newLabel;
  std::optional<CommitInfo> oldCommit, newCommit;
  fs::path repository;
  ProgramInput input;
  RunSummary expected, oldRun, newRun;
  // The test compares stderr too (a test command's failing process): a run passes only
  // with the expected stderr (expected.stderrBytes).
  bool stderrCounts = false;
  std::string failure; // one sentence: what differs
  // "wrong output", "missing output", "extra output", "crash", "hang", "exit status",
  // "diagnostics" (only stderr differs)
  // (docs/debug.md, "Failure kinds").
  std::string failureKind;
  bool hang = false; // the new version did not finish within runTimeoutSeconds
  // Each native run's timeout after the failure stage: a multiple of the old run's time
  // (docs/debug.md), so a hanging variant costs that, not --timeout.
  double runTimeoutSeconds = 0;
  std::string hangLoop;                          // a hang: the loop that does not exit, described
  std::string oldCriterion, newCriterion;        // described
  std::string condition;                         // "rsc" or "pc"
  size_t oldConstraints = 0, newConstraints = 0; // |f|, |f'|
  std::string direction;                         // "new deviates", "old lacks", "same partition"
  std::vector<DebugCandidate> candidates;
  unsigned solverCalls = 0;
  uint64_t formulaNodes = 0; // expression nodes handed to the solver, summed over queries
  double solverSeconds = 0, totalSeconds = 0;
  std::vector<std::string> notes; // concretisations and other caveats
  double budgetSeconds = 0;       // 0: unlimited
  std::vector<StageRecord> stages;
  fs::path oldRoot, newRoot;
  // Source lines in each version's relevant slice of its criterion, by file (relative).
  std::map<std::string, std::set<unsigned>> oldSliceLines, newSliceLines;
  // Lines the change touched (not neutral), by file (relative), in each version.
  std::map<std::string, std::set<unsigned>> oldChangedLines, newChangedLines;
  // Files whose path differs between the versions (git renames, two single files):
  // old path -> new path. Any other file has the same path in both.
  std::map<std::string, std::string> renamedFiles;
  std::vector<NeutralEdit> neutralEdits;
  std::vector<RevertTrial> reverts;
  // The smallest set of hunks found whose revert alone makes the test pass (labels),
  // and whether delta debugging finished on it: no group of it can be left out. False
  // when the budget ended first; the set passes but may hold groups it does not need.
  std::vector<std::string> minimalRevert;
  bool minimalRevertOneMinimal = false;
  // Aligned runs: the first divergence on the slice, the dual slice's size (line
  // executions of the slices whose counterpart differs or is missing, of all of them),
  // and the changed lines that compute the same values.
  std::optional<FirstDivergence> firstDivergence;
  bool aligned = false; // the align stage compared both complete runs
  size_t sliceExecutions = 0, dualSliceExecutions = 0;
  std::vector<SameValueLine> sameValueLines;
  std::vector<MemoryError> memoryErrors; // of the new run, those reaching the failure first
  std::optional<DifferentialUnitTest> unitTest;
  std::optional<LocalComposition> localComposition;
};

DebugReport debugRegression(const DebugRequest &request);

// Report formats (docs/report-schema.md).
nlohmann::json reportJson(const DebugReport &report);
std::string reportMarkdown(const DebugReport &report);
nlohmann::json reportSarif(const DebugReport &report); // SARIF 2.1.0
// One self-contained page: old and new sources side by side, slices and candidates
// highlighted, evidence inputs.
std::string reportHtml(const DebugReport &report);
std::string reportSummary(const DebugReport &report); // short, for the terminal

// A commit in reports: JSON {hash, short, author, email, date, subject, parents}, and
// one line "abc1234 Subject (Author, date)".
nlohmann::json commitJson(const CommitInfo &commit);
std::string commitLine(const CommitInfo &commit);

} // namespace rootline
