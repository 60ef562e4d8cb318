// The stages of rootline debug (docs/debug.md): each takes plain data, honours its
// deadline, and gives plain data to the next. debug_regression.cpp runs them in order
// and splits the budget between them.
//
//   failure ─► trace (concrete replay, dependences) ─► criteria ─► slices
//     ─► first ranking (slice ∩ diff, no solver) ─► align (first divergence, dual
//     slice) ─► revert (hunk builds) ─► symbolic (slice-directed)
//     ─► compose (Darwin) ─► evidence (native runs) ─► rank
#pragma once

#include "compose/token_edits.h"
#include "rootline/alignment.h"
#include "rootline/carve.h"
#include "rootline/debug.h"
#include "rootline/differential_test.h"
#include "rootline/memory_check.h"
#include "rootline/module_index.h"
#include "rootline/neutral_edits.h"
#include "rootline/output_values.h"

#include <llvm/IR/Instruction.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rootline::debug {

// One version of the program, built, with its traced run on the failing input and the
// relevant slice of its criterion there.
struct Version : AnalysedVersion {
  SymbolicTrace trace; // process, concrete replay, dependences; symbolic after that stage
  fs::path traceFile;  // kept for the symbolic pass
  std::vector<CriterionSeed> seeds;
  std::string criterion;
  Slice slice;
  bool sliceComplete = true;
  std::vector<MemoryFinding> memory; // found during the concrete replay
  std::vector<PathConstraint> condition;
};

// Stage bookkeeping: time, completeness and notes of each stage, and progress.
class Stages {
public:
  Stages(DebugReport &report, Progress *progress)
      : report_(&report), progress_(progress), progressLock_(std::make_shared<std::mutex>()) {}
  // A branch of `parent`'s current stage: the part of it one version's thread does
  // (bothVersions). Its progress shows at once, one line at a time; its cuts, notes and
  // remarks wait for join(), so the report reads the same whichever thread ends first.
  static Stages branchOf(Stages &parent);
  // Adds a branch's cuts, notes and remarks to this stage.
  void join(const Stages &branch);
  // Starts a stage (ending the previous one).
  void begin(const std::string &name, const std::string &detail = "");
  // The current stage stopped at its budget share; `what` says what it left out.
  void cut(const std::string &what);
  void note(const std::string &what);   // a remark on the current stage, not a cut
  void remark(const std::string &what); // a caveat for the report's notes
  void update(const std::string &detail);
  void end();
  Progress *progress() const { return progress_; } // null: silent

private:
  Stages() = default;
  DebugReport *report_ = nullptr; // null in a branch: remarks wait in `remarks_`
  Progress *progress_ = nullptr;
  std::shared_ptr<std::mutex> progressLock_;
  std::optional<StageRecord> current_;
  std::vector<std::string> remarks_;
  Deadline::Clock::time_point start_;
};

// Runs one stage's work for both versions at once, the old version's on this thread
// and the new version's on another, each with a branch of `stages` (joined old first).
// One after the other instead when the machine has one core or $ROOTLINE_THREADS is 1.
// An exception from either is rethrown once both have ended, the old version's first,
// as it would be one after the other.
void bothVersions(Stages &stages, const std::function<void(Stages &)> &oldWork,
                  const std::function<void(Stages &)> &newWork);
// Whether bothVersions runs the versions at once.
bool versionsAtOnce();

// An input rootline made up, run natively on both versions (bothVersions) under `dir`'s
// "old" and "new", each run stopped at `timeoutSeconds` and kMadeUpInputOutputLimit.
std::pair<RunSummary, RunSummary> runMadeUpInputOnBoth(Stages &stages, const Version &oldV,
                                                       const Version &newV,
                                                       const ProgramInput &input,
                                                       const fs::path &dir, double timeoutSeconds);

// The most expression nodes one direction of the composition may hold (the condition
// composed with and the prefix so far, counted per constraint). Past it a query takes
// the solver far longer than any budget, so symbolic replay stops there too and the
// first ranking keeps its place (docs/debug.md, "Budget").
inline constexpr uint64_t kMaxComposeNodes = 250000;

// ---- source diffs -------------------------------------------------------------------

// The changed lines of a file in either version: from git's diff of the two commits
// when there is one, else from diffing the file at the same path in both trees.
class Diffs {
public:
  Diffs(const fs::path &oldRoot, const fs::path &newRoot, const std::optional<SourceDiff> &git)
      : oldRoot_(oldRoot), newRoot_(newRoot), git_(git) {}
  // The semantic diff of the file (neutral edits discounted) and its change hunks.
  const SemanticDiff &semantic(const std::string &rel, bool inNew);
  const TextDiff &of(const std::string &rel, bool inNew) { return semantic(rel, inNew).changes; }
  // The path of the same file in the other version (renames, or two single files).
  std::string counterpart(const std::string &rel, bool inNew) const;
  // Changed by an edit that may change behaviour (not a neutral one).
  bool changed(const std::string &rel, bool inNew, unsigned line) {
    const TextDiff &d = of(rel, inNew);
    return inNew ? d.changedInNew(line) : d.changedInOld(line);
  }
  // The neutral edits of every file looked at so far, by new-side path and line.
  std::vector<NeutralEdit> neutralEdits();
  // The C files (.c, .h) the change touched, by their path in that version.
  std::vector<std::string> changedSources(bool inNew) const;
  // Renames over the whole change (programRenames), found once from every changed C file.
  const std::map<std::string, std::string> &wholeChangeRenames();
  // Where a changed old line's code went, when (renames applied) it is on exactly one
  // changed line of the new file (a statement moved to another hunk), else on exactly
  // one changed line of another changed file (a function moved between files; code of
  // at least kMovedTokens tokens). The new (file, line), or none.
  // Failing that, where it went within its file with one token edited (a moved
  // function whose loop bound the change also edited: `i < argc` → `i <= argc`): the
  // one changed new line one token apart from it, of at least kEditedMoveTokens tokens,
  // in a function of the same name, when no other changed old line is the same as, or
  // one token apart from, that line.
  static constexpr long kMovedTokens = 4;
  static constexpr size_t kEditedMoveTokens = 6;
  std::optional<std::pair<std::string, unsigned>> movedTo(const std::string &oldRel,
                                                          unsigned oldLine);

  // Each line's enclosing function in a file of one version (1-based; "" outside any).
  const std::vector<std::string> &functionsOf(const std::string &rel, bool inNew);

private:
  // The changed lines of a new file, by their code.
  const std::map<std::string, std::vector<unsigned>> &changedLinesByCode(const std::string &newRel);
  std::optional<unsigned> editedMoveInFile(const std::string &oldRel, unsigned oldLine);

  const fs::path &oldRoot_, &newRoot_;
  const std::optional<SourceDiff> &git_;
  std::map<std::string, SemanticDiff> cache_;
  std::optional<std::map<std::string, std::string>> renames_;
  std::map<std::string, std::map<std::string, std::vector<unsigned>>> byCode_; // by new path
  std::map<std::pair<std::string, unsigned>, std::optional<unsigned>> editedMoves_;
  std::map<std::pair<std::string, bool>, std::vector<std::string>> functions_;
};

std::string sourceLine(const std::string &path, unsigned line);

// The old text's `#define NAME` (with its continuation lines, and its `#ifndef NAME`
// guard when that is all the guard holds), for a revert trial that uses a macro the
// change removed; none when the old text does not define it.
std::optional<std::string> oldMacroBlock(const std::string &oldText, const std::string &name);
// `text` with `blocks` inserted after its leading preprocessor lines (includes,
// guards), where a macro is defined before any code uses it.
std::string withDefinitions(const std::string &text, const std::string &blocks);

// A candidate at an instruction of a version: file, line, source text, changed region.
DebugCandidate candidateAt(const Version &v, const llvm::Instruction *inst, const std::string &kind,
                           Diffs &diffs);

// A candidate found in the old version on a line the change modified (not deleted) is
// shown as the new version's line that replaced it.
void presentOnNewSide(DebugCandidate &c, const fs::path &newRoot, Diffs &diffs);

// ---- stages -------------------------------------------------------------------------

// Input files the test reads that --file did not give: string literals of either
// version and program arguments naming a file in one of req.inputSearchDirs; each is
// added to req.input.files. Returns them, described ("input.txt (from /home/u/input.txt)").
inline constexpr uint64_t kMaxInputFileBytes = 64u << 20;
std::vector<std::string> discoverInputFiles(DebugRequest &req, const Version &oldV,
                                            const Version &newV);

// A new version that takes this many times the old one's wall-clock time on the test
// (and at least kHangFloorSeconds, within --timeout) does not finish: it hangs. Later
// runs (revert trials, evidence) get the same timeout, so a hang costs each of them
// that much, not --timeout.
inline constexpr double kHangTimeFactor = 20, kHangFloorSeconds = 1.0;
double hangTimeout(double timeoutSeconds, double oldSeconds);
// "hang", "crash", "missing output" (the new output is a prefix of the expected one),
// "extra output" (the expected output is a prefix of the new one), "exit status",
// "wrong output".
std::string failureKindOf(const RunSummary &expected, const RunSummary &failing, bool hang);

// Native runs of both versions, twice each: the failure, or an Error saying why there
// is none (no difference, nondeterminism, the old version does not finish). A new
// version that does not finish within hangTimeout is a hang (report.hang), run once.
// Fills report.oldRun/newRun/expected/failure/failureKind/runTimeoutSeconds.
void establishFailure(const DebugRequest &req, const Version &oldV, const Version &newV,
                      const fs::path &work, const Deadline &deadline, DebugReport &report);

// The traced run and its concrete replay with dependences (no expressions). False when
// replay stopped at the deadline (the dependences then cover a prefix of the run).
// `hangTraceBytes` (a hang): the traced run is stopped at that many bytes of trace, and
// its replay ends there (RunOutcome::Limit).
bool traceConcrete(Version &v, const ProgramInput &input, const fs::path &work,
                   double timeoutSeconds, const Deadline &deadline, Stages &stages,
                   uint64_t hangTraceBytes = 0);
// A hanging version is traced up to this many times the old run's trace bytes (about
// that many times its instructions), at least kHangTraceMinBytes.
inline constexpr double kHangTraceFactor = 4;
inline constexpr uint64_t kHangTraceMinBytes = 1u << 20, kHangTraceMaxBytes = 256u << 20;

// A hang's criterion: the loop of the run that does not exit. Its exiting branches that
// ran in the second half of the (stopped) trace and never took their exit there; the
// seeds are their last instances. Empty when the run ends in no such loop.
struct HangingLoop {
  std::vector<CriterionSeed> seeds;
  const llvm::Instruction *exitBranch = nullptr; // the first of them
  uint64_t iterations = 0;                       // its executions in the trace
};
HangingLoop findHangingLoop(const Version &v);

// The criterion of each version: the first differing output (down to the printf
// argument), the crash, or the same statement in the old run where the new one crashed.
// wholeBehaviour: the test compared stderr too (a test command's failing process), so a
// run whose stdout is right is sliced from its first differing stderr byte.
void chooseCriteria(Version &oldV, Version &newV, const std::string &expected, Diffs &diffs,
                    bool wholeBehaviour = false);
// A hang's criteria: in the new run, the exit test of the loop that does not exit (at
// its last iteration); in the old run, the same test where its loop exited (else its
// first output the new run lacks). Returns the loop, described for the report.
std::string chooseHangCriteria(Version &oldV, Version &newV, const std::string &expected,
                               Diffs &diffs);

// The relevant slice of each version's criterion, and the slice's lines in the report.
void sliceVersion(Version &v, const Deadline &deadline, DebugReport &report, Stages &stages);
// The instructions with an instance in the version's slice, each once, in run order.
std::vector<const llvm::Instruction *> sliceInstructions(const Version &v);

// The output spectrum (output_spectrum.cpp): per version, the dynamic slices of up to
// eight stdout lines that both versions print, and in how many of them each line is.
struct OutputSpectrum {
  std::map<std::string, unsigned> sliced; // by version: the shared lines sliced
  std::map<std::tuple<std::string, std::string, unsigned>, unsigned>
      holding; // (version, file, line)
  // Both versions have slices, none cut by the deadline.
  bool usable() const;
};
OutputSpectrum sliceSharedOutputs(const Version &oldV, const Version &newV,
                                  const Deadline &deadline, Stages &stages);
// Sets each candidate's sharedOutputs and sharedOutputsOf (on its own version's side),
// for lines of that version's relevant slice (where the lines are named alike).
void applyOutputSpectrum(const OutputSpectrum &spectrum, const DebugReport &report,
                         std::vector<DebugCandidate> &candidates);

// The test spectrum (test_spectrum.cpp): per version, the lines each of the test's
// processes of the program ran, by whether it behaves alike in both runs.
struct TestSpectrum {
  std::map<std::string, ProcessCounts> replayed; // by version: processes replayed whole
  std::map<std::string, ProcessCounts> among;    // by version: the request's processes
  std::map<std::tuple<std::string, std::string, unsigned>, ProcessCounts>
      ran; // (version, file, line)
  // The alike processes and the differing ones (indexes into the request's list) replayed
  // whole that ran each line, in the order they were replayed (spread over the run).
  std::map<std::tuple<std::string, std::string, unsigned>, std::vector<uint32_t>> alikeRan,
      differingRan;
  std::map<std::string, std::set<uint32_t>> replayedWhole; // by version: those processes
  // Some process of each kind replayed whole in that version.
  bool usable(const std::string &version) const;
};
// The most differing processes replayed per version, and the most alike ones: a sample
// spread over the run tells the lines apart nearly as well as all of a `make check`'s
// hundreds, in a second or two instead of several. More alike ones, since the check of a
// passing edit on the test's other processes (other_processes.cpp) runs those that ran
// its line, and a line one run in twenty takes has three in a sample of 64.
inline constexpr size_t kTestSpectrumSample = 64;
inline constexpr size_t kTestSpectrumAlikeSample = 256;
// The order the test spectrum replays `processes` in: up to kTestSpectrumSample of the
// differing ones, then up to kTestSpectrumAlikeSample alike ones, each kind spread over
// the run (indexes).
std::vector<size_t> testSpectrumOrder(const std::vector<DebugRequest::TestProcess> &processes);
// Replays the request's test processes of both versions (testSpectrumOrder) until the
// deadline; processes whose replay does not finish are not counted.
TestSpectrum coverTestProcesses(const DebugRequest &req, const Version &oldV, const Version &newV,
                                const Deadline &deadline, Stages &stages);
// Sets each candidate's testSpectrum on its own version's side.
void applyTestSpectrum(const TestSpectrum &spectrum, std::vector<DebugCandidate> &candidates);
// A candidate's Ochiai suspiciousness from the test spectrum; -1 when unknown.
double testSuspicion(const DebugCandidate &c);

// The test's other processes run alone on a trial's build (other_processes.cpp;
// docs/debug.md, "The test's other processes"): those that behave alike in both versions
// and ran a line, each compared with its run on the new version's own build
// (OthersVerdict, rootline/debug.h).
// The most of them run per trial, spread over the run: of those known to run its line,
// and of the alike ones the spectrum did not replay (a sample: a line run by few
// processes is missed by a sample of them, and a trial then changes one unseen).
inline constexpr size_t kOtherProcessRuns = 16, kUnreplayedRuns = 48;
class OtherProcesses {
public:
  OtherProcesses(const DebugRequest &req, const TestSpectrum &spectrum, fs::path work);
  // With a test command whose spectrum replayed alike processes of the new version.
  bool available() const;
  // Runs the alike processes that ran any of `lines` (new side, as the spectrum names
  // them: file, line) on `exe`, within `deadline`; when none changed, the differing ones
  // too.
  OthersVerdict check(const std::vector<std::pair<std::string, unsigned>> &lines,
                      const fs::path &exe, const Deadline &deadline);

private:
  struct Known {
    std::optional<ProgramInput> input;
    fs::path dir;
    std::optional<RunSummary> base; // its run on the new version; none: not comparable
    std::optional<RunSummary> old;  // a differing one's on the old version, when it differs
  };
  std::vector<uint32_t> runnersOf(
      const std::map<std::tuple<std::string, std::string, unsigned>, std::vector<uint32_t>> &ran,
      const std::vector<std::pair<std::string, unsigned>> &lines) const;
  std::vector<uint32_t> unreplayedAlike() const;
  // What is known of a process, its runs on the versions' builds made the first time;
  // null when `deadline` leaves too little to make them.
  const Known *known(uint32_t process, const Deadline &deadline);
  // `k` run on `exe`, given 4 times its run on the new version and a second; none when the
  // deadline leaves less.
  std::optional<RunSummary> runTrial(const Known &k, const fs::path &exe, const Deadline &deadline);

  const DebugRequest &req_;
  const TestSpectrum &spectrum_;
  fs::path work_;
  std::map<uint32_t, Known> known_;
};

// The first ranking's candidates: changed lines in a version's slice (and changed case
// labels of a switch in it), nearest to the failure first. No solver.
std::vector<DebugCandidate> changedLinesInSlice(const Version &v, const std::string &kind,
                                                Diffs &diffs);
// The changed lines of any slice of the version, nearest to its criterion first.
std::vector<DebugCandidate> changedLinesIn(const Version &v, const Slice &s,
                                           const std::string &kind, Diffs &diffs);
// The same over every replayed instance: the fallback when no slice could be taken
// (the budget stopped replay before the criterion, or the run printed nothing).
std::vector<DebugCandidate> changedLinesExecuted(const Version &v, const std::string &kind,
                                                 Diffs &diffs);

// Compiler warnings the change brought (docs/debug.md, "Compiler warnings"): the units
// with changed code compiled again by clang, syntax only, with their own flags and the
// warnings that name likely bugs.
struct CompilerWarning {
  std::string file; // relative to the version's top
  unsigned line = 0;
  std::string flag;    // "int-conversion", without -W
  std::string message; // clang's text
};
// clang's diagnostics (warnings and errors that name a -W flag), paths made relative
// to `root` (relative ones taken from `workDir`); notes and other lines are skipped.
std::vector<CompilerWarning> parseClangWarnings(const std::string &text, const fs::path &workDir,
                                                const fs::path &root);
// clang's bug warnings for one unit, compiled syntax only with its own flags; none when
// the compile did not end within `timeoutSeconds`.
std::optional<std::vector<CompilerWarning>>
unitWarnings(const UnitSource &unit, const fs::path &root, double timeoutSeconds);
// The new version's warnings on changed lines that the old version does not give: more
// of them than the old version has of the same file, flag and message, and none of the
// same flag at the line's counterpart.
std::vector<CompilerWarning> warningsNewIn(const std::vector<CompilerWarning> &oldWarnings,
                                           const std::vector<CompilerWarning> &newWarnings,
                                           Diffs &diffs);
struct NewWarnings {
  // (new file, line) -> "message [-Wflag]" ("; " between several)
  std::map<std::pair<std::string, unsigned>, std::string> byLine;
};
NewWarnings findNewWarnings(const Version &oldV, const Version &newV, Diffs &diffs,
                            const Deadline &deadline, Stages &stages);
// Sets newWarning on the new version's candidates at those lines.
void applyNewWarnings(const NewWarnings &warnings, std::vector<DebugCandidate> &candidates);

// The align stage (docs/debug.md, "Aligned runs"): both runs replayed once more, the
// executions of the slices' lines (and of `changed`) aligned by execution index
// through the diff's line map, and compared by what they stored, returned, passed and
// branched on.
struct LineVerdict {
  unsigned same = 0, differs = 0, unmatched = 0; // executions, by how they align
  // Executions that did what their counterparts did, from other inputs (sameInputs): the
  // line is then not called behaviour-neutral.
  unsigned otherInputs = 0;
  std::string sameExample;       // "`price` = 90"
  std::string differenceExample; // "computes `price` = 90 in the old run and ..."
  // An aligned pair of integer stores that computed the same value, for the symbolic
  // check: the instances, the value and its width.
  uint64_t oldStore = kNoDef, newStore = kNoDef;
  Val value;
  unsigned bits = 0;
  // The symbolic check's answer: "for every input", "on this input only", or "".
  std::string symbolic;
  // The first aligned pair of integer stores that computed other values, for
  // changed-computation evidence; with what they stored.
  uint64_t oldDiffStore = kNoDef, newDiffStore = kNoDef;
  unsigned diffBits = 0;
  std::string diffTarget; // the stored-to variable, as the reader knows it
  std::vector<ValueEvidence> valueEvidence;
  // An aligned differing pair that read the same values: "where both runs read
  // `st->column` = 0, its execution computes `st->column` = 8 in the old run and 0 in the
  // new run".
  std::string originText;
};
struct AlignmentFindings {
  bool complete = false; // both replays reached the end of their runs
  std::map<AlignedLine, LineVerdict> lines;
  std::optional<FirstDivergence> first;
  size_t sliceExecutions = 0, dualSliceExecutions = 0;
  // Names a version's (file, line) as the alignment does.
  std::shared_ptr<std::function<AlignedLine(bool inNew, const std::string &, unsigned)>> names;
  // New-run loads that read a store of a same-values line which their counterparts in
  // the old run do not read (the change moved the store or the read), with the store.
  std::vector<std::pair<const llvm::Instruction *, const llvm::Instruction *>> reorderedReads;
};
AlignmentFindings alignRuns(const Version &oldV, const Version &newV,
                            const std::vector<DebugCandidate> &changed, Diffs &diffs,
                            const Deadline &deadline, Stages &stages);
// Marks each changed-line candidate "differs" (its aligned executions differ: the dual
// slice) or "same values" (every aligned execution computes the same in both runs).
void applyAlignment(const AlignmentFindings &findings, std::vector<DebugCandidate> &candidates);
// Candidates at unchanged lines whose reads a changed line's moved store reaches in
// the new run only (AlignmentFindings::reorderedReads): the test that reads a counter
// the change now increments before it. Lines already among `candidates` are skipped.
void addReorderedReaders(const AlignmentFindings &findings, const Version &newV, Diffs &diffs,
                         std::vector<DebugCandidate> &candidates);
// The store instances of a version whose values the symbolic replay should keep: the
// same-value lines' (for the symbolic check) and the differing lines' (for value
// evidence).
std::vector<uint64_t> watchedStores(const AlignmentFindings &findings, bool inNew);
// Where it is cheap: whether each same-value line's stores agree for every input of
// the failing input's partition (both versions' conditions), by the solver.
void checkSameValuesSymbolically(AlignmentFindings &findings, const Version &oldV,
                                 const Version &newV, z3::context &ctx, const Deadline &deadline,
                                 Stages &stages);
// Weak evidence from the failing run's path prefix (docs/debug.md, "Weak evidence"):
// why a run whose branch outcomes are `path` rejects its input early, against the old
// version's outcomes on the failing input: it leaves that path and ends within a tenth
// of what the failing run still had to do (at least 20 branches). Empty otherwise.
std::string leftFailingPathEarly(const std::vector<uint64_t> &failingPath,
                                 const std::vector<uint64_t> &path);
// Whether a branch deviation's alternative run (`run`) reaches the criterion: empty if
// it prints at least up to the stdout line where `failing` first differs from
// `passing` (or stdout does not differ), else why not. With `outputFile` (the failing
// process's output is a file it writes, which the runs' stdout stands for) the reason
// names the file's lines.
std::string missedCriterion(const RunSummary &run, const RunSummary &passing,
                            const RunSummary &failing, const std::string &outputFile = "");
// Inputs like the failing one: both versions' conditions (its partition in each) and
// their inputs' domains, added to `s`.
void addPartition(z3::solver &s, const Version &oldV, const Version &newV);
// Changed-computation evidence (value_evidence.cpp): for each changed line whose aligned
// stores differ, the closest input of the failing input's partition where old and new
// store the same value there, and one (other than the failing input) where they differ;
// each run natively on both versions.
void findValueEvidence(AlignmentFindings &findings, const Version &oldV, const Version &newV,
                       z3::context &ctx, const ProgramInput &failing, const fs::path &work,
                       double timeoutSeconds, const Deadline &deadline, Stages &stages,
                       bool stderrCounts);

// The revert stage (docs/debug.md, "Revert evidence"): the change cut into units (the
// semantic diff's hunks; renames and layout stay as in the new version), and the
// failing test run on the new version with units reverted to the old text: each unit
// alone (the first ranking's first), then, when none alone makes the test pass, a
// minimal set whose revert does (delta debugging). Trials go into report.reverts.
struct RevertEvidence {
  struct ChangedFile {
    std::string oldPath, newPath;
    const SemanticDiff *diff = nullptr; // owned by Diffs
    std::string newText;
  };
  struct Unit {
    std::vector<std::pair<size_t, size_t>> hunks; // (file, hunk)
    std::string label;                            // "main.c:6-7"
    std::string alone;                            // result of reverting it alone
    std::string appliedAlone; // the old version with it alone applied (tried when it fixes)
    // A line unit: only this new line of `hunks`' one file put back to the old lines
    // that became it (tried inside a group that fixes, to tell its lines apart).
    unsigned newLine = 0;
    // Old `#define` blocks the trial adds back (oldMacroBlock): the macros the build error
    // named that the change removed; their names are in the label.
    std::string oldDefinitions;
    std::string oldDefinitionsNote; // " (with the old definition of `X` put back)"
    // Grown from a unit that did not build by what its build errors named (grownUnit):
    // how many times, and the label of the unit it grew from.
    unsigned grown = 0;
    std::string grownFrom;
    std::string buildError; // the first error of its trial, when it did not build
    // When `alone` passes: its trial's files (for the whole test), its trial in
    // report.reverts, and the whole test's verdict on it (wholeTestVerdict).
    std::map<std::string, std::string> files;
    size_t trial = SIZE_MAX;
    std::string wholeTest;
    // When `alone` passes: its check on the test's other processes; a change makes it
    // fix the failing process only.
    OthersVerdict others;
  };
  std::vector<ChangedFile> files;
  // [0, groups): the change's hunks partitioned into groups that share names; after
  // them, units tried when a group did not build: its hunks one by one, or a hunk with
  // the groups its build error names.
  std::vector<Unit> units;
  size_t groups = 0;
  size_t skippedFiles = 0; // changed files the program is not built from
  // A one-token edit of a changed line tried on the new version, the rest of the change
  // kept (docs/debug.md, "Edit evidence"): `from` → `to` at the line's byte `column`.
  struct Edit {
    std::string file; // new side
    unsigned line = 0;
    size_t column = 0;
    std::string from, to;
    std::string source; // the line as edited, trimmed
    // As a revert trial's: "passes", "same failure", ...; "process only" when the failing
    // process passed and the whole test then failed (it repairs nothing).
    std::string result;
    std::string wholeTest; // the whole test's verdict on a passing edit ("" not run)
    // Its check on the test's other processes: a change makes it "process only".
    OthersVerdict others;
    std::map<std::string, std::string> files; // a passing edit's file, for the whole test
    size_t trial = SIZE_MAX;                  // its trial in report.reverts
  };
  std::vector<Edit> edits;
  std::vector<size_t> fixing;       // units whose revert alone makes the test pass
  std::set<size_t> minimal;         // else the smallest set found whose revert does
  bool minimalIsOneMinimal = false; // no group of `minimal` can be left out (all tried)
  // The trials ran a test command's failing process alone (--test): a trial that passes
  // says so, unless the whole test confirmed it (wholeTest "passes").
  bool processOnly = false;
};
// The changed lines a unit puts back (the longer side of each of its hunks).
unsigned unitLines(const RevertEvidence &ev, size_t unit);
// What a trial that passes makes true, for the sentences: "makes the test pass" when the
// failing run is the test or the whole test passed too; else the failing process behaving
// as in the old version, "but the test still fails" when the whole test said so.
std::string passPhrase(bool processOnly, const std::string &wholeTest);
// The whole test on the new version with the files of each passing trial not yet confirmed,
// in the order of `ranked` (a candidate's edits, then its unit), then the rest, within
// `deadline`: their `wholeTest` and their trials'. An edit the whole test fails becomes
// "process only".
bool anyToConfirm(const RevertEvidence &ev);
void confirmFixes(const DebugRequest &req, RevertEvidence &ev,
                  const std::vector<DebugCandidate> &ranked, const Deadline &deadline,
                  DebugReport &report, Stages &stages);
// The whole test's verdict on `files` when the test command's time fits `deadline` ("" when
// it does not, or without a test command). `lastUse`: the deadline's time has no other use
// (the whole test stage, at the end of the job), so a test timed by a traced run starts with
// half that time left (docs/debug.md, "Revert evidence").
std::string wholeTestVerdict(const DebugRequest &req,
                             const std::map<std::string, std::string> &files,
                             const Deadline &deadline, bool lastUse = false);
// The edit screen (docs/debug.md, "Edit evidence"): `edits` of the new version built into
// one program, each switched on by $ROOTLINE_MUTANT, and `input` run once per edit (each
// run within `runSeconds`). By index into `edits`: whether `passes` holds of its run. An
// edit that maps onto no instruction of its own (`&&`/`||`, a literal, a macro) is left
// out, and so is every edit when the program with none switched on does not fail as the
// new version does (`failsAsBefore`): the screen would not be the program the trials build.
struct ScreenedEdit {
  std::string file; // new-side, relative to the top
  unsigned line = 0;
  TokenEdit edit;
};
std::map<size_t, bool> screenEdits(const Version &newV, const std::vector<ScreenedEdit> &edits,
                                   const std::function<bool(const RunSummary &)> &passes,
                                   const std::function<bool(const RunSummary &)> &failsAsBefore,
                                   const ProgramInput &input, double runSeconds,
                                   const fs::path &work, const Deadline &deadline, Stages &stages);

// `builtFrom`: the source files (new-side relative paths) either version's program is
// compiled from; changed C files outside it (tests, tools) are never tried. Empty: all.
// `others` checks passing edits on the test's other processes (null: not).
RevertEvidence gatherRevertEvidence(const DebugRequest &req,
                                    const std::vector<DebugCandidate> &firstRanking, Diffs &diffs,
                                    const std::set<std::string> &builtFrom, const fs::path &work,
                                    const Deadline &deadline, DebugReport &report, Stages &stages,
                                    OtherProcesses *others = nullptr,
                                    const Version *newV = nullptr);
// The files a version's program is compiled from, relative to its root (its compile
// units and the files its functions are in: a `.c` included by another counts).
std::set<std::string> programSourceFiles(const Version &v);
// Orders the lines one-token edits repaired: one whose execution on the failure's slice
// others' depend on first (`repairsUpstream`), each saying so (src/compose/repair_order.cpp).
void orderRepairs(std::vector<DebugCandidate> &candidates, const RevertEvidence &evidence,
                  const Version &newV, const Deadline &deadline);
// What a repaired line's edit sentence adds of the repaired lines whose executions depend
// on it ("main.c:7", ...): "; main.c:7, whose edit passes too, depends on this line's
// execution"; "" for none.
std::string dependentRepairsPhrase(const std::vector<std::string> &dependents);
// Each candidate's unit's result (`revert`, `revertDetail`); a unit that fixes the test
// but holds no candidate becomes one.
void applyRevertEvidence(const RevertEvidence &evidence, std::vector<DebugCandidate> &candidates,
                         const DebugRequest &req);

// The memory stage (docs/debug.md, "Memory errors"): the new run's memory errors that
// the old run does not have, those in the failure's slice first, each with the changed
// line that made it possible (the object's declaration or allocation when the change
// touched it, else the nearest changed line in the access's own slice); the first is
// confirmed by a sanitizer build of the new version on the failing input, within the
// deadline. Returns candidates for the causes.
std::vector<DebugCandidate> diagnoseMemoryErrors(const DebugRequest &req, const Version &oldV,
                                                 const Version &newV, Diffs &diffs,
                                                 const fs::path &work, const Deadline &deadline,
                                                 DebugReport &report, Stages &stages);

// Symbolic replay of the kept trace: expressions only for `only` (the slice) when given.
// False when it stopped at the deadline.
bool traceSymbolic(Version &v, z3::context &ctx, const std::vector<bool> *only,
                   uint32_t maxExprNodes, const Deadline &deadline, Stages &stages,
                   const std::vector<uint64_t> *watch = nullptr);

// Both versions' symbolic inputs, once each (an input has the same name in both runs).
std::vector<InputVar> inputsOfBoth(const Version &oldV, const Version &newV);

// Darwin composition (DESIGN.md 2.6) in both directions; deviations become candidates.
struct Composition {
  std::vector<DebugCandidate> candidates;
  std::string direction;
};
Composition compose(const DebugRequest &req, z3::context &ctx, const Version &oldV,
                    const Version &newV, Diffs &diffs, const Deadline &deadline,
                    DebugReport &report, Stages &stages);

// Orders candidates: revert, memory and aligned-run evidence, the first divergence,
// changed lines the evidence does not refute, evidence, changed region, closeness to the
// failure; one per line, at most `max`, ranked from 1.
void rankCandidates(std::vector<DebugCandidate> &candidates, size_t max,
                    const std::optional<FirstDivergence> &first = std::nullopt);

// Runs each candidate's alternative input on both native executables, best-ranked
// first, until the deadline.
// An alternative input on which both versions agree is weak evidence when the old
// version treats it as input it rejects: it exits with a failure status where the test
// exits 0, prints nothing where the test prints, or prints what most random inputs of
// the failing input's shape make it print (kShapeRuns runs, at least kShapeMajority
// alike).
inline constexpr unsigned kShapeRuns = 4, kShapeMajority = 3;
// Two runs of an alternative input that differ only in values the failing run printed
// alike (docs/validate.md, "Values"): the versions agree where the test failed; says
// how. None when they differ in a value the failing run got wrong (`failingPlaces`), in
// their ending, or not at all.
std::optional<std::string> agreesWhereFailing(const RunSummary &oldRun, const RunSummary &newRun,
                                              const std::vector<ValuePlace> &failingPlaces,
                                              bool stderrCounts);
void gatherEvidence(std::vector<DebugCandidate> &candidates, const Version &oldV,
                    const Version &newV, const ProgramInput &failingInput,
                    const RunSummary &oldFailing, const RunSummary &failing, const fs::path &work,
                    double timeoutSeconds, const Deadline &deadline, Stages &stages,
                    bool stderrCounts);

// The "why ranked here" reasons of each candidate, from its evidence and position.
// `output` names what the failing run printed: "stdout", or the file debugged as its output.
void explainCandidates(std::vector<DebugCandidate> &candidates, const std::string &output);

// The unit test stage (docs/debug.md, "Differential unit test"): for the rank-1
// candidate's function, a cmocka test made from one of its calls in the failing run,
// kept when it passes on the old version and fails on the new one (report.unitTest, and
// the candidate's unitTest sentence); a note says why there is none. Returns the call
// the test was made from (the first carved call whose result differs), when there is
// one, for local Darwin.
struct ChosenCall {
  size_t candidate = 0; // in report.candidates
  std::string function;
  CarvedCall call;
  std::string callText;
  std::string oldResult, newResult; // recorded on each version's function
  // The carved version's names for symbols the change renamed, per version's rest.
  OtherNames oldOtherNames, newOtherNames;
};
// The first line where two recorded call results differ, in words: "the old version
// returns 1, the new one returns 0", or the object whose bytes differ.
std::string resultDifference(const std::string &oldState, const std::string &newState);
// A harness line "returns -4.2999999999999998" or "leaves st->max = …" with its
// floating-point value as the shortest decimal that reads back as the same double
// ("returns -4.3"); any other line as it is.
std::string readableNumber(const std::string &line);
// `renames`: the change's renames, old name → new name (Diffs::wholeChangeRenames).
std::optional<ChosenCall>
makeDifferentialUnitTest(const Version &oldV, const Version &newV, const ProgramInput &input,
                         const std::map<std::string, std::string> &renames, const fs::path &work,
                         const Deadline &deadline, Stages &stages, DebugReport &report);

// Local Darwin (docs/debug.md, "Local Darwin"): the chosen call made again by a harness
// that reads its integer arguments and fields from stdin, debugged as a program of its
// own (its two versions' conditions composed, alternatives run natively on both); fills
// report.localComposition and the candidates' localAlternative.
void composeLocally(const DebugRequest &req, const Version &oldV, const Version &newV,
                    const ChosenCall &chosen, const Deadline &deadline, Stages &stages,
                    DebugReport &report);
// Whether local Darwin runs whatever the candidate's evidence (`always`, or `auto` and
// the composition did not decide): its time is then kept back from the evidence stages.
bool localDarwinCertain(const DebugRequest &req, const DebugReport &report);
// Whether local Darwin is wanted: as above, or (`auto`) the candidate has no
// alternative input that ran.
bool wantsLocalDarwin(const DebugRequest &req, const DebugReport &report, const ChosenCall &chosen);

} // namespace rootline::debug
