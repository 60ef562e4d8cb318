// rootline work / rootline merge: one unit of a plan, and the merge of a plan's round
// (docs/cluster.md). Engines run `work`; users of their own schedulers run both.
#include "cli/cli.h"
#include "cli/fan_out.h"
#include "rootline/cluster.h"
#include "rootline/error.h"
#include "rootline/json_text.h"

#include <cstdlib>
#include <iostream>

namespace rootline::cli {

namespace {

struct WorkOptions {
  std::string plan;
  long unit = -1;
  unsigned round = 0;
};

// The unit: --unit, else the index the scheduler gives the task.
size_t unitIndex(const WorkOptions &opt) {
  if (opt.unit >= 0)
    return static_cast<size_t>(opt.unit);
  for (const char *var : {"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"})
    if (const char *v = getenv(var); v && *v) {
      char *end = nullptr;
      long i = std::strtol(v, &end, 10);
      if (*end || i < 0)
        throw Error(std::string("$") + var + " is not a unit number: '" + v + "'");
      return static_cast<size_t>(i);
    }
  throw Error("--unit I is required (or $SLURM_ARRAY_TASK_ID / $JOB_COMPLETION_INDEX)");
}

int runWork(const GlobalOptions &global, const WorkOptions &opt) {
  WorkPlan plan = readPlan(opt.plan, opt.round ? std::optional<unsigned>(opt.round) : std::nullopt);
  UnitResult r = runWorkUnit(plan, unitIndex(opt), selfExecutable());
  if (global.json)
    std::cout << jsonText(unitResultJson(r));
  else if (!global.quiet)
    std::cerr << "rootline: unit " << r.unit << " (" << r.name << "): " << r.outcome << "\n";
  return ExitOk;
}

} // namespace

void addWorkCommands(CLI::App &app, const GlobalOptions &global, Action &action) {
  auto opt = std::make_shared<WorkOptions>();
  CLI::App *work = app.add_subcommand(
      "work", "Run one work unit of a plan and write its result (what engines run)");
  work->add_option("--plan", opt->plan, "The plan directory (shared by every worker)")->required();
  work->add_option("--unit", opt->unit,
                   "The unit's number (default: $SLURM_ARRAY_TASK_ID, else "
                   "$JOB_COMPLETION_INDEX)");
  work->add_option("--round", opt->round, "The plan's round (default: its current round)");
  work->footer("The result goes to PLAN/round-N/results/NNNN.json, written atomically; running a\n"
               "unit again replaces it. A unit killed from outside (SIGKILL, SIGTERM) writes no\n"
               "result, so the engine runs it again. See docs/cluster.md.");
  work->callback(
      [&global, &action, opt] { action = [&global, opt] { return runWork(global, *opt); }; });

  auto plan = std::make_shared<std::string>();
  CLI::App *merge = app.add_subcommand(
      "merge", "Combine a plan's results in unit order: the final report, or the next round");
  merge->add_option("--plan", *plan, "The plan directory")->required();
  merge->footer("A unit without a result is named in the report as a failed unit; merge never\n"
                "waits. triage writes its report to the --out it was given; bisect --parallel\n"
                "writes the next round's plan (run its units and merge again) or its answer.");
  merge->callback([&global, &action, plan] {
    action = [&global, plan] { return mergePlan(global, readPlan(*plan)); };
  });
}

} // namespace rootline::cli
