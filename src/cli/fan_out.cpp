// Engine options of the commands that fan out, and `rootline merge`'s dispatch.
#include "cli/fan_out.h"
#include "rootline/error.h"
#include "rootline/json_text.h"
#include "rootline/triage.h"

#include <iostream>
#include <thread>

namespace rootline::cli {

void addFanOutOptions(CLI::App &cmd, FanOutOptions &options) {
  cmd.add_option("--engine", options.engine,
                 "Where the work units run: local (processes here, default), slurm (a job "
                 "array through sbatch, then the merge as a dependent job), print (write the "
                 "plan and print the sbatch and GNU parallel commands; run nothing)")
      ->check(CLI::IsMember({"local", "slurm", "print"}));
  cmd.add_option("-j,--jobs", options.jobs,
                 "Units at once (local: default one per core; slurm: the array's %limit, "
                 "default none)");
  cmd.add_option("--plan", options.plan,
                 "The plan directory: units, results and logs (default: a new directory "
                 "under the cache; with --engine slurm it must be on a filesystem every node "
                 "sees)");
  cmd.add_option("--retries", options.retries,
                 "Times a unit that left no result (killed, lost node) is run again (default 2)");
  cmd.add_option("--wait", options.waitSeconds,
                 "Seconds the engine waits for the units before it stops (cancelling what is "
                 "left) and merges what it has (default: every wave of -j units at its "
                 "timeout, for each try, plus 10 minutes)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option(
      "--sbatch-arg", options.sbatchArgs,
      "An extra sbatch option for every job (repeatable): --sbatch-arg=--partition=debug");
}

EngineOptions engineOptions(const FanOutOptions &options, Progress *progress) {
  EngineOptions e;
  e.engine = options.engine;
  e.jobs = options.jobs;
  if (e.engine != "slurm" && e.jobs == 0)
    e.jobs = std::max(1u, std::thread::hardware_concurrency());
  e.retries = options.retries;
  e.waitSeconds = options.waitSeconds;
  e.sbatchArgs = options.sbatchArgs;
  e.self = selfExecutable();
  e.progress = progress;
  return e;
}

fs::path planDirectory(const FanOutOptions &options, const std::string &command) {
  if (!options.plan.empty())
    return fs::absolute(options.plan);
  return makeWorkDir(command + "-plan");
}

int mergeTriagePlan(const GlobalOptions &global, const WorkPlan &plan) {
  TriageReport report = mergeTriage(plan);
  fs::path out = plan.state.value("out", "");
  if (!out.empty())
    writeReportFiles(out, triageReportFiles(plan, report));
  writeFileAtomic(roundDir(plan) / "merge.json",
                  jsonText({{"command", "triage"}, {"report", out.string()}}));
  if (global.json)
    std::cout << jsonText(triageJson(report));
  else
    std::cout << triageSummary(report);
  return report.failedUnits.empty() ? ExitOk : ExitFailure;
}

int mergePlan(const GlobalOptions &global, const WorkPlan &plan) {
  if (plan.command == "triage")
    return mergeTriagePlan(global, plan);
  if (plan.command == "bisect")
    return mergeBisectPlan(global, plan);
  if (plan.command == "explore")
    throw Error("--plan '" + plan.dir.string() +
                "' is a sharded exploration's: explore --shards merges its rounds itself");
  throw Error("--plan '" + plan.dir.string() + "' is a plan of an unknown command '" +
              plan.command + "'");
}

} // namespace rootline::cli
