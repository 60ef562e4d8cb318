// The Slurm engine: the round's units as one job array (sbatch --array=...%M), a
// progress line while it runs, the units that left no result submitted again, then the
// merge as a job that depends on the last array (docs/cluster.md "Slurm").
#include "cluster/engines.h"
#include "rootline/error.h"
#include "rootline/process.h"

#include <chrono>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace rootline::cluster {

using Clock = std::chrono::steady_clock;

// "0-19,23%4": the units as ranges, with the cap on tasks running at once.
std::string arraySpec(const std::vector<size_t> &units, unsigned jobs) {
  std::string spec;
  for (size_t i = 0; i < units.size();) { // runs of consecutive units as ranges: 0-19,23
    size_t j = i;
    while (j + 1 < units.size() && units[j + 1] == units[j] + 1)
      ++j;
    if (!spec.empty())
      spec += ",";
    spec += std::to_string(units[i]);
    if (j > i)
      spec += "-" + std::to_string(units[j]);
    i = j + 1;
  }
  if (jobs > 0)
    spec += "%" + std::to_string(jobs);
  return spec;
}

namespace {

// A Slurm command's path: runProcess does not search $PATH.
std::string slurmTool(const std::string &name) {
  const char *path = getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (size_t at = 0; at <= dirs.size();) {
    size_t end = dirs.find(':', at);
    std::string dir = dirs.substr(at, end == std::string::npos ? std::string::npos : end - at);
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
    if (end == std::string::npos)
      break;
    at = end + 1;
  }
  throw Error("--engine slurm needs Slurm's " + name + " on PATH (Debian: slurm-client)");
}

// The job id that `sbatch --parsable` prints ("123" or "123;cluster").
std::string submit(const std::vector<std::string> &args) {
  ProcessSpec spec;
  spec.argv = {slurmTool("sbatch"), "--parsable"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeoutSeconds = 60;
  spec.noAddressRandomization = false;
  ProcessResult p = runProcess(spec);
  std::string id = p.out.substr(0, p.out.find_first_of(";\n"));
  if (!p.exitedWith(0) || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    std::string why = p.err.substr(0, p.err.find('\n'));
    throw Error("sbatch failed (" + p.outcome() + "): " + (why.empty() ? p.out : why));
  }
  return id;
}

// The job's tasks still known to the scheduler as running or waiting: task id → state.
// Empty once every task has ended (or the job is gone).
std::map<std::string, std::string> queuedTasks(const std::string &job) {
  ProcessSpec spec;
  spec.argv = {slurmTool("squeue"), "-h", "-r", "-j", job, "-o", "%K %T"};
  spec.timeoutSeconds = 60;
  spec.noAddressRandomization = false;
  ProcessResult p = runProcess(spec);
  std::map<std::string, std::string> tasks;
  if (!p.exitedWith(0))
    return tasks; // "Invalid job id": it left the controller
  std::istringstream in(p.out);
  std::string task, state;
  while (in >> task >> state)
    tasks[task] = state;
  return tasks;
}

void cancel(const std::string &job) {
  ProcessSpec spec;
  spec.argv = {slurmTool("scancel"), job};
  spec.timeoutSeconds = 60;
  spec.noAddressRandomization = false;
  runProcess(spec);
}

// Waits until the job leaves the queue or the deadline passes; false on the deadline.
bool waitForJob(const std::string &job, Clock::time_point deadline,
                const std::function<void(const std::map<std::string, std::string> &)> &tick) {
  for (;;) {
    auto tasks = queuedTasks(job);
    if (tick)
      tick(tasks);
    if (tasks.empty())
      return true;
    if (Clock::now() >= deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

} // namespace

std::string environmentLines() {
  std::string env;
  // Workers share the cache (entries are written atomically); say where it is.
  if (const char *c = getenv("ROOTLINE_CACHE_DIR"); c && *c)
    env += "export ROOTLINE_CACHE_DIR=" + shellQuote(c) + "\n";
  return env;
}

std::string shellQuote(const std::string &word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789@%+=:,./-_") == std::string::npos)
    return word;
  std::string q = "'";
  for (char c : word)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string mergeCommand(const WorkPlan &plan, const EngineOptions &options) {
  return shellQuote(options.self.string()) + " merge --plan " + shellQuote(plan.dir.string());
}

EngineRun runSlurm(const WorkPlan &plan, const EngineOptions &options) {
  auto deadline = options.waitSeconds > 0
                      ? Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(options.waitSeconds))
                      : Clock::time_point::max();
  fs::path slurm = roundDir(plan) / "slurm";
  fs::create_directories(slurm);
  EngineRun run;
  std::vector<size_t> todo = missingUnits(plan);
  for (unsigned attempt = 0; !todo.empty() && attempt <= options.retries; ++attempt) {
    if (attempt > 0)
      run.resubmitted += static_cast<unsigned>(todo.size());
    fs::path script = slurm / ("array-" + std::to_string(attempt) + ".sbatch");
    writeFileAtomic(script, sbatchScript(plan, options, todo));
    std::string job = submit({script.string()});
    run.jobIds.push_back(job);
    std::set<size_t> mine(todo.begin(), todo.end());
    bool finished = waitForJob(job, deadline, [&](const auto &tasks) {
      if (!options.progress)
        return;
      unsigned running = 0, pending = 0, done = 0, failed = 0;
      for (const auto &[task, state] : tasks)
        (state == "RUNNING" || state == "COMPLETING" ? running : pending)++;
      for (size_t u : mine) {
        if (readUnitResult(plan, u))
          ++done;
        else if (!tasks.count(std::to_string(u)))
          ++failed; // ended without a result
      }
      options.progress->update("slurm job " + job + ": " + std::to_string(done) + "/" +
                               std::to_string(mine.size()) + " done, " + std::to_string(running) +
                               " running, " + std::to_string(pending) + " pending, " +
                               std::to_string(failed) + " failed" +
                               (attempt ? " (retry " + std::to_string(attempt) + ")" : ""));
    });
    todo = missingUnits(plan);
    if (!finished) {
      cancel(job);
      run.note = "the engine stopped waiting after " +
                 std::to_string(static_cast<int>(options.waitSeconds)) + " s and cancelled job " +
                 job;
      run.missing = todo;
      return run;
    }
  }
  run.missing = todo;
  if (!options.mergeOnCluster)
    return run;
  fs::path script = slurm / "merge.sbatch";
  writeFileAtomic(script, "#!/bin/sh\n#SBATCH --job-name=rootline-merge\n#SBATCH --output=" +
                              (slurm / "merge-%j.out").string() + "\n" + environmentLines() +
                              "exec " + mergeCommand(plan, options) + "\n");
  std::string job;
  std::vector<std::string> extra;
  for (const auto &a : options.sbatchArgs)
    extra.push_back(a);
  try {
    std::vector<std::string> args = extra;
    if (!run.jobIds.empty())
      args.push_back("--dependency=afterany:" + run.jobIds.back());
    args.push_back(script.string());
    job = submit(args);
  } catch (const Error &) { // the array job already left the controller's memory
    extra.push_back(script.string());
    job = submit(extra);
  }
  run.jobIds.push_back(job);
  if (options.progress)
    options.progress->update("slurm job " + job + ": merge");
  if (!waitForJob(job, deadline, nullptr)) {
    cancel(job);
    run.note = "the merge job " + job + " did not finish within the wait";
    return run;
  }
  run.merged = fs::exists(roundDir(plan) / "merge.json");
  if (!run.merged)
    run.note = "the merge job " + job + " wrote no merge; see " +
               (slurm / ("merge-" + job + ".out")).string();
  return run;
}

} // namespace rootline::cluster

namespace rootline {

std::string sbatchScript(const WorkPlan &plan, const EngineOptions &options,
                         const std::vector<size_t> &units) {
  fs::path slurm = roundDir(plan) / "slurm";
  std::ostringstream s;
  s << "#!/bin/sh\n"
    << "# rootline " << plan.command << ", round " << plan.round << ": one unit per array task.\n"
    << "#SBATCH --job-name=rootline-" << plan.command << "\n"
    << "#SBATCH --array=" << cluster::arraySpec(units, options.jobs) << "\n"
    << "#SBATCH --output=" << (slurm / "%A_%a.out").string() << "\n"
    << "#SBATCH --requeue\n";
  for (const auto &a : options.sbatchArgs)
    s << "#SBATCH " << a << "\n";
  s << cluster::environmentLines() << "exec " << cluster::shellQuote(options.self.string())
    << " work --plan " << cluster::shellQuote(plan.dir.string()) << " --round " << plan.round
    << " --unit \"$SLURM_ARRAY_TASK_ID\"\n";
  return s.str();
}

} // namespace rootline
