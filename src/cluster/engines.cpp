// runPlan: where a round's units run. `print` writes the commands for users who submit
// jobs themselves (Slurm, GNU parallel, a Kubernetes Indexed Job).
#include "cluster/engines.h"
#include "rootline/error.h"

#include <iostream>
#include <sstream>

namespace rootline {

using cluster::shellQuote;

std::string parallelCommands(const WorkPlan &plan, const EngineOptions &options) {
  std::vector<size_t> all;
  for (size_t i = 0; i < plan.units.size(); ++i)
    all.push_back(i);
  fs::path slurm = roundDir(plan) / "slurm";
  fs::create_directories(slurm);
  writeFileAtomic(slurm / "array.sbatch", sbatchScript(plan, options, all));
  writeFileAtomic(slurm / "merge.sbatch", "#!/bin/sh\n#SBATCH --job-name=rootline-merge\n"
                                          "#SBATCH --output=" +
                                              (slurm / "merge-%j.out").string() + "\nexec " +
                                              cluster::mergeCommand(plan, options) + "\n");
  std::string self = shellQuote(options.self.string());
  std::string dir = shellQuote(plan.dir.string());
  std::ostringstream s;
  s << "# rootline " << plan.command << ": round " << plan.round << " has " << plan.units.size()
    << " unit(s) in " << plan.dir.string() << ".\n"
    << "# Run every unit, then the merge (it writes the report or the next round).\n"
    << "# Slurm:\n"
    << "jid=$(sbatch --parsable " << shellQuote((slurm / "array.sbatch").string()) << ")\n"
    << "sbatch --dependency=afterany:$jid " << shellQuote((slurm / "merge.sbatch").string()) << "\n"
    << "# GNU parallel:\n"
    << "parallel -j " << std::max(1u, options.jobs) << " " << self << " work --plan " << dir
    << " --round " << plan.round << " --unit {} ::: $(seq 0 " << plan.units.size() - 1 << ") ; "
    << self << " merge --plan " << dir << "\n"
    << "# Kubernetes Indexed Job (completions: " << plan.units.size()
    << "), each pod: rootline work --plan " << dir << " --round " << plan.round
    << " (the unit is $JOB_COMPLETION_INDEX)\n";
  return s.str();
}

double defaultWaitSeconds(const WorkPlan &plan, const EngineOptions &options) {
  double longest = 0;
  for (const auto &u : plan.units)
    longest = std::max(longest, u.timeoutSeconds > 0 ? u.timeoutSeconds : 3600.0);
  size_t atOnce = options.jobs > 0 ? options.jobs : plan.units.size();
  size_t waves = atOnce ? (plan.units.size() + atOnce - 1) / atOnce : 0;
  // Every wave of units at its timeout, for every try, and time for the queue.
  return static_cast<double>(waves) * longest * (options.retries + 1) + 600;
}

EngineRun runPlan(const WorkPlan &plan, const EngineOptions &given) {
  if (given.self.empty())
    throw Error("internal: the engine needs the rootline executable", ExitInternal);
  EngineOptions options = given;
  if (options.waitSeconds <= 0) // never unbounded: a job stuck in the queue ends the wait
    options.waitSeconds = defaultWaitSeconds(plan, options);
  if (options.engine == "local")
    return cluster::runLocal(plan, options);
  if (options.engine == "slurm")
    return cluster::runSlurm(plan, options);
  if (options.engine == "print") {
    std::cout << parallelCommands(plan, options);
    EngineRun run;
    run.missing = missingUnits(plan);
    run.note = "printed; nothing ran";
    return run;
  }
  throw Error("--engine must be local, slurm or print (not '" + options.engine + "')");
}

} // namespace rootline
