// Work units and the engines that run them (docs/cluster.md). A command that fans out
// (triage, bisect --parallel) writes a plan: numbered, self-contained units in a
// directory on a filesystem every worker sees. Each unit is one rootline command line;
// `rootline work` runs one unit and writes its result atomically; `rootline merge`
// combines the results in unit order, so the order in which workers ran never changes
// the answer. Engines only decide where units run: here (`local`), as a Slurm job array
// (`slurm`), or printed for the user to submit (`print`).
#pragma once

#include "rootline/fs.h"
#include "rootline/progress.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rootline {

// One unit: the arguments of one rootline command (without the program name), run
// with --json so its answer is machine-readable.
struct WorkUnit {
  std::string name; // what the unit is about: a test's name, a commit
  std::vector<std::string> args;
  double timeoutSeconds = 0; // the unit's process is killed after this (0: none)
  fs::path workDir;          // where it runs (empty: wherever the worker runs)
};

// A round of units in `dir/round-N/` (bisect has several rounds, triage one).
struct WorkPlan {
  fs::path dir;        // absolute
  std::string command; // "triage", "bisect"
  unsigned round = 1;
  std::vector<WorkUnit> units;
  nlohmann::json state; // what the command's merge needs (its report options, ranges)
};

// Writes plan.json and the round's unit files. Refuses a directory that holds other
// files and no rootline plan.
void writePlan(const WorkPlan &plan);
// The plan in `dir` at its current round (or at `round` when given). Throws Error
// naming the problem when the directory holds no readable plan.
WorkPlan readPlan(const fs::path &dir, std::optional<unsigned> round = std::nullopt);

fs::path roundDir(const WorkPlan &plan);
fs::path unitResultPath(const WorkPlan &plan, size_t unit);

// What one unit did. `output` is the command's JSON answer (a debug report, a commit
// verdict, a rootline.error/1 object), null when it printed none.
struct UnitResult {
  size_t unit = 0;
  std::string name;
  int exitCode = -1;
  std::string outcome; // "exit 0", "signal SIGKILL", "timeout"
  nlohmann::json output;
  std::string error; // the command's last "rootline: error:" line, if any
  double seconds = 0;
  std::string host;
};
nlohmann::json unitResultJson(const UnitResult &r);

// Runs unit `unit` of the plan with the rootline executable `self` and writes its
// result atomically (temporary file + rename). Rerunning replaces the result.
UnitResult runWorkUnit(const WorkPlan &plan, size_t unit, const fs::path &self);
// The unit's written result, if there is one and it is readable.
std::optional<UnitResult> readUnitResult(const WorkPlan &plan, size_t unit);

// The units that have no result yet, in order.
std::vector<size_t> missingUnits(const WorkPlan &plan);

// This rootline executable's absolute path (what workers run).
fs::path selfExecutable();

struct EngineOptions {
  std::string engine = "local";        // local, slurm, print
  unsigned jobs = 1;                   // concurrent units (local: processes; slurm: the array's %M)
  unsigned retries = 2;                // resubmissions of a unit that left no result
  double waitSeconds = 0;              // the engine stops waiting after this (0: no limit)
  std::vector<std::string> sbatchArgs; // extra sbatch options ("--partition=debug")
  bool mergeOnCluster = true;          // slurm: merge as a dependent job
  fs::path self;                       // the rootline executable workers run
  Progress *progress = nullptr;
};

// How a plan's round went on an engine.
struct EngineRun {
  std::vector<size_t> missing;     // units without a result when the engine stopped
  unsigned resubmitted = 0;        // units run again after they left no result
  std::vector<std::string> jobIds; // slurm: the array jobs (and the merge job, last)
  bool merged = false;             // slurm: the dependent merge job wrote the merge
  std::string note;                // why the engine stopped early, if it did
};

// How long an engine waits by default: every wave of -j units at the longest unit
// timeout (an hour when a unit has none), for each try, plus 10 minutes for the queue.
double defaultWaitSeconds(const WorkPlan &plan, const EngineOptions &options);

// Runs every unit of the plan's round that has no result yet, retrying units that
// leave none, within options.waitSeconds. `print` runs nothing and writes the commands
// to stdout. Throws Error when the engine cannot start (no sbatch, bad options).
EngineRun runPlan(const WorkPlan &plan, const EngineOptions &options);

// The sbatch array script for the given units of the plan's round.
std::string sbatchScript(const WorkPlan &plan, const EngineOptions &options,
                         const std::vector<size_t> &units);
// The same round as one GNU parallel command line, then the merge.
std::string parallelCommands(const WorkPlan &plan, const EngineOptions &options);

} // namespace rootline
