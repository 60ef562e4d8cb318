// Path exploration: generational search over path conditions (DART/SAGE), bug checks
// at divisions, memory accesses and allocations, and a generated test per path.
#pragma once

#include "rootline/run.h"
#include "rootline/slice.h"
#include "rootline/symbolic.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace rootline {

// The concrete input of one test: stdin bytes and argv after the program name.
struct ProgramInput {
  std::string stdinBytes;
  std::vector<std::string> args;
  // Files the program reads, by the relative path it opens them with: every run gets a
  // private working directory holding them (docs/symbolic.md, "Input files").
  std::map<std::string, std::string> files = {};
  // The name the program runs under (argv[0]), when not its executable's path: the name a
  // test gave it ("./src/tally"), the same for both versions.
  std::string argv0 = {};
  // Environment variables the program gets besides rootline's own: those a test set for
  // the process (docs/project.md, "Inputs of a process").
  std::map<std::string, std::string> env = {};
  // The file (relative to its working directory) whose text is the program's output, in
  // place of its stdout: what a test compares for a program that writes a file
  // (docs/project.md, "Files a process writes"). Empty: stdout.
  std::string outputFile = {};
  bool operator==(const ProgramInput &) const = default;
};

// Lays `input` out under `dir` for one run: stdin as dir/stdin, the files under dir/cwd
// (the run's working directory). The test gets them, the args and that directory.
TestCase materialiseInput(const ProgramInput &input, const fs::path &dir);

// The input a model describes: the base input with every input variable the model
// fixes rewritten in place (stdin bytes replaced, scanf tokens re-printed, argv bytes).
ProgramInput applyModel(const ProgramInput &base, const std::vector<InputVar> &vars,
                        const z3::model &model);
// The value a model gives an expression (an input variable), without completing the
// model: nullopt for a variable the model leaves open.
std::optional<uint64_t> modelValue(const z3::model &model, const z3::expr &e);
std::optional<uint64_t> modelValue(const z3::model &model, const InputVar &v);
// The same with the values `valueOf` gives (nullopt: keep the base's).
ProgramInput applyValues(const ProgramInput &base, const std::vector<InputVar> &vars,
                         const std::function<std::optional<uint64_t>(const InputVar &)> &valueOf);

// The text an input variable lives in: stdin, a file, or argv[argIndex] for argv bytes and
// for tokens parsed from an argument (atoi(argv[1])). Null when the input lacks it.
const std::string *inputText(const ProgramInput &input, const InputVar &v);
std::string *inputText(ProgramInput &input, const InputVar &v);

// Whether two variables live in the same text (the same file, or the same argument).
bool sameInputText(const InputVar &a, const InputVar &b);

// One run of a program on an input, replayed symbolically.
struct SymbolicTrace {
  ProgramInput input;
  ProcessResult process;
  ReplayResult replay;
  SymbolicRun symbolic;
  std::vector<std::pair<uint32_t, uint32_t>>
      branches; // (instruction id, successor) of every branch/switch
  std::set<std::pair<uint32_t, uint32_t>> branchesCovered;
  std::set<std::pair<std::string, unsigned>> linesCovered;
  std::string crashFile;
  unsigned crashLine = 0;
  std::string crashFunction;
  DynamicTrace dynamic; // dependences, when an analysis was given
};

// Runs `input` traced and replays it symbolically. `workDir` receives the stdin file
// and the trace. The module must be program.module loaded (its instructions are what
// the result points to). Replay stops at `limits.deadline` (replay.outcome Stopped: the
// symbolic run covers a prefix of the path only).
SymbolicTrace traceSymbolic(const TracedProgram &program, const llvm::Module &module,
                            const ModuleIndex &index, const ProgramInput &input, z3::context &ctx,
                            const fs::path &workDir, double timeoutSeconds,
                            const StaticAnalysis *analysis = nullptr,
                            const ReplayLimits &limits = {},
                            uint64_t maxTraceBytes = TestCase{}.maxTraceBytes);

enum class Strategy { Dart, Rsc, NaiveRsc };

// A queued input of the search: a child whose run should take `expectedPrefix`. What a
// shard of a sharded exploration starts from (docs/explore.md "Shards").
struct ExploreCandidate {
  ProgramInput input;
  size_t bound = 0;                                          // negate only positions >= bound
  std::vector<std::pair<uint32_t, uint32_t>> expectedPrefix; // symbolic branches it should take
  bool lastFlipped = false; // the last expected entry is "not this successor"
  unsigned parent = 0;
};

struct ExploreOptions {
  Strategy strategy = Strategy::Dart;
  unsigned maxRuns = 100;
  double timeBudgetSeconds = 60;
  unsigned loopBound = 0; // 0: no bound; else do not negate a branch beyond its k-th instance
  unsigned solverTimeoutMs = 5000;
  double runTimeoutSeconds = 10;
  bool findBugs = true;
  // A run whose trace passes this many bytes is stopped and not replayed: its path is
  // too long for the solver to use (a cyclic list walked two billion times).
  uint64_t maxTraceBytes = 16ull << 20;
  std::string criterion = "output"; // what the relevant slice conditions are computed for
  // Functions whose branches stay on the path but are never negated: the unit driver's
  // printing, where how a character is escaped is not the function's behaviour.
  std::set<std::string> quietFunctions;
  std::function<void(const std::string &)> progress; // called after every run
  // A shard: start from these queued inputs instead of the seed, knowing what earlier
  // rounds and shards found (their paths and partitions get no test again, their
  // negations are not asked again, their coverage counts).
  std::vector<ExploreCandidate> frontier;
  std::set<std::string> knownPaths, knownPartitions, knownNegated;
  std::set<std::pair<uint32_t, uint32_t>> knownBranches;
  std::set<std::pair<std::string, unsigned>> knownLines;
  unsigned firstTestId = 1; // test ids of this search start here (unique across shards)
};

struct GeneratedTest {
  unsigned id = 0;
  unsigned parent = 0; // 0 for the seed
  ProgramInput input;
  std::string outcome; // "exit 0", "signal SIGSEGV", "timeout"
  int exitCode = 0;
  std::string stdoutBytes;
  std::vector<std::pair<uint32_t, uint32_t>> branches;
  // The input-dependent branches of the path, in order (plain data: results outlive
  // the module they were computed on).
  struct Branch {
    uint32_t id = 0;
    std::string file, function;
    unsigned line = 0;
    uint32_t successor = 0;
  };
  std::vector<Branch> symbolicBranches;
  std::string pathConditionSmt2;
  struct Output {
    uint64_t fd = 1, offset = 0, length = 0, arg = 0;
    std::string value;    // the symbolic expression, as a person reads it (program names)
    std::string valueSmt; // the same in the solver's terms
  };
  std::vector<Output> symbolicOutputs;
  bool diverged = false;      // did not follow the predicted path prefix
  std::string pathKey;        // the branch sequence: equal keys, same path
  std::string partitionKey;   // the RSC's branch sequence: equal keys, same partition
  std::string rsc;            // relevant slice condition for the criterion (SMT-LIB term)
  std::string symbolicOutput; // what the criterion computes, over the inputs
};

// One entry of the semantic signature: a partition of the inputs (its RSC) and how the
// criterion is computed in it.
struct SignatureEntry {
  std::string rsc;
  std::string output;
  unsigned test = 0; // a test in that partition
  bool operator<(const SignatureEntry &o) const {
    return std::tie(rsc, output) < std::tie(o.rsc, o.output);
  }
};

struct FoundBug {
  std::string kind;
  std::string file;
  unsigned line = 0;
  std::string function;
  ProgramInput input;
  bool confirmed = false; // a native run of the input failed at this line
  std::string evidence;   // what confirmed it (or why it is not confirmed)
};

struct ExploreStats {
  unsigned runs = 0, distinctPaths = 0, duplicatePaths = 0, divergences = 0, partitions = 0;
  unsigned solverCalls = 0, solverUnsat = 0, solverUnknown = 0;
  double solverSeconds = 0, totalSeconds = 0;
  uint64_t formulaBytes = 0;
  uint64_t concretizations = 0;
  std::set<std::string> concretizedCalls;
  size_t linesCovered = 0, linesTotal = 0, branchesCovered = 0, branchesTotal = 0;
  // The same per function (branch edges and lines of its own body).
  struct Coverage {
    size_t linesCovered = 0, linesTotal = 0, branchesCovered = 0, branchesTotal = 0;
  };
  std::map<std::string, Coverage> functions;
};

struct ExploreResult {
  std::vector<GeneratedTest> tests;    // one per distinct path (dart) or partition (rsc)
  std::set<std::string> partitionKeys; // distinct RSCs reached (by their branch sequence)
  std::set<SignatureEntry> signature;
  std::vector<FoundBug> bugs;
  ExploreStats stats;
  std::vector<std::string> notes; // what the budget cut short
  // What a sharded exploration merges and hands to the next round.
  std::vector<ExploreCandidate> remaining; // still queued when the search stopped
  std::set<std::string> paths, negated;    // every path seen; negations asked
  std::set<std::pair<uint32_t, uint32_t>> coveredBranches;
  std::set<std::pair<std::string, unsigned>> coveredLines;
};

ExploreResult explore(const TracedProgram &program, const ProgramInput &seed,
                      const ExploreOptions &options);

// Sharded exploration (docs/explore.md "Shards"). The whole result as JSON and back
// (what a shard unit prints), the frontier dealt round-robin to n shards, and the
// shards' results merged: tests deduplicated by path (dart) or partition (rsc), bugs by
// kind and line, renumbered in a fixed order; remaining inputs joined for the next round.
nlohmann::json exploreResultJson(const ExploreResult &result);
ExploreResult exploreResultFromJson(const nlohmann::json &j);
std::vector<std::vector<ExploreCandidate>> splitFrontier(const std::vector<ExploreCandidate> &all,
                                                         unsigned n);
void mergeExploreResult(ExploreResult &into, ExploreResult shard, Strategy strategy);
// Test ids 1..N in id order (shards number from distinct bases); parents, signature
// entries and queued inputs follow.
void renumberTests(ExploreResult &result);
nlohmann::json exploreFrontierJson(const std::vector<ExploreCandidate> &candidates);
std::vector<ExploreCandidate> exploreFrontierFromJson(const nlohmann::json &j);
// Recounts coverage (totals per function too) from result.coveredBranches/Lines.
void recountCoverage(const TracedProgram &program, ExploreResult &result);

// Writes tests, sidecars and summary.{json,md} into `dir` (docs/explore.md).
void writeTestSuite(const ExploreResult &result, const fs::path &dir,
                    const std::string &programName);

std::string strategyName(Strategy s);

// The summary as JSON and as Markdown (also written by writeTestSuite).
nlohmann::json summaryJson(const ExploreResult &result);
std::string summaryMarkdown(const ExploreResult &result, const std::string &programName);

} // namespace rootline
