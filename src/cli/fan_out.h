// Options shared by the commands that fan out into work units (triage, bisect
// --parallel), and the merge step of each kind of plan (docs/cluster.md).
#pragma once

#include "cli/cli.h"
#include "rootline/cluster.h"

namespace rootline::cli {

struct FanOutOptions {
  std::string engine = "local";
  std::string plan;  // empty: a fresh directory under the cache
  unsigned jobs = 0; // 0: one per core (local), no cap (slurm)
  unsigned retries = 2;
  double waitSeconds = 0;
  std::vector<std::string> sbatchArgs;
};
void addFanOutOptions(CLI::App &cmd, FanOutOptions &options);
EngineOptions engineOptions(const FanOutOptions &options, Progress *progress);
// --plan as an absolute path, or a fresh directory under the cache.
fs::path planDirectory(const FanOutOptions &options, const std::string &command);

// `rootline merge`: the plan's kind decides what its merge writes.
int mergePlan(const GlobalOptions &global, const WorkPlan &plan);
// The triage merge: report files into the plan's --out, merge.json into its round.
int mergeTriagePlan(const GlobalOptions &global, const WorkPlan &plan);
// The bisect merge: the next round's plan, or the answer (bisect.json, bisect.md).
int mergeBisectPlan(const GlobalOptions &global, const WorkPlan &plan);

void addWorkCommands(CLI::App &app, const GlobalOptions &global, Action &action);
void addTriageCommand(CLI::App &app, const GlobalOptions &global, Action &action);

} // namespace rootline::cli
