// The engines behind runPlan (include/rootline/cluster.h), one file each.
#pragma once

#include "rootline/cluster.h"

namespace rootline::cluster {

EngineRun runLocal(const WorkPlan &plan, const EngineOptions &options);
EngineRun runSlurm(const WorkPlan &plan, const EngineOptions &options);

std::string arraySpec(const std::vector<size_t> &units, unsigned jobs);
// Lines of the job scripts that pass on rootline's environment (the shared cache).
std::string environmentLines();
// A word quoted for sh.
std::string shellQuote(const std::string &word);
// The merge step's command line for the plan.
std::string mergeCommand(const WorkPlan &plan, const EngineOptions &options);

} // namespace rootline::cluster
