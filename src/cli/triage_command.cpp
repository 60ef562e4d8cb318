// rootline triage: many failing tests, one debug unit each, grouped by root cause.
#include "cli/fan_out.h"
#include "cli/versions.h"
#include "rootline/error.h"
#include "rootline/json_text.h"
#include "rootline/triage.h"

#include <iostream>

namespace rootline::cli {

namespace {

struct TriageOptions {
  std::string oldDir, newDir, testsDir, build, out;
  std::vector<std::string> testCommands;
  RepoOptions repo;
  RecipeRequest recipe;
  double budget = 60, timeout = 30;
  FanOutOptions fanOut;
};

std::string absolutePath(const std::string &p) {
  std::error_code ec;
  if (!fs::exists(p, ec))
    throw Error("'" + p + "' does not exist");
  return fs::absolute(p).lexically_normal().string();
}

// What every unit's `rootline debug` is given besides its test.
std::vector<std::string> debugArgs(const TriageOptions &opt) {
  std::vector<std::string> a;
  if (opt.repo.given()) {
    if (!opt.oldDir.empty() || !opt.newDir.empty())
      throw Error("use either --old/--new (directories) or --repo/--good/--bad (commits)");
    if (opt.repo.good.empty() || opt.repo.bad.empty())
      throw Error("--good and --bad go with --repo");
    Repository repo = openRepository(opt.repo);
    // Full hashes: every unit debugs the same commits, even if a branch moves meanwhile.
    a = {"--repo", repo.root().string(),      "--good", repo.resolve(opt.repo.good),
         "--bad",  repo.resolve(opt.repo.bad)};
  } else {
    if (opt.oldDir.empty() || opt.newDir.empty())
      throw Error("--old and --new (or --repo, --good and --bad) are required");
    a = {"--old", absolutePath(opt.oldDir), "--new", absolutePath(opt.newDir)};
  }
  std::vector<std::string> recipe = recipeArgs(opt.recipe);
  a.insert(a.end(), recipe.begin(), recipe.end());
  if (!opt.build.empty())
    a.insert(a.end(), {"--build", opt.build});
  a.insert(a.end(),
           {"--budget", std::to_string(opt.budget), "--timeout", std::to_string(opt.timeout)});
  return a;
}

int runTriage(const GlobalOptions &global, const TriageOptions &opt) {
  TriageRequest req;
  req.debugArgs = debugArgs(opt);
  if (!opt.testsDir.empty())
    req.tests = readTestSuite(opt.testsDir);
  for (const auto &cmd : opt.testCommands)
    req.tests.push_back({cmd, std::nullopt, std::nullopt, {}, cmd});
  if (req.tests.empty())
    throw Error("triage needs tests: --tests DIR (as explore --out writes) or --test CMD");
  // A unit's debug keeps to its budget; builds of big projects come on top.
  req.unitTimeoutSeconds = opt.budget > 0 ? std::max(600.0, 4 * opt.budget) : 0;
  if (!opt.out.empty()) { // refused now, not after every test ran
    req.out = fs::absolute(opt.out);
    std::error_code ec;
    if (fs::exists(req.out, ec) &&
        (!fs::is_directory(req.out, ec) ||
         (!fs::is_empty(req.out, ec) && !fs::exists(req.out / "report.json", ec))))
      throw Error("--out '" + req.out.string() +
                  "' is not an empty directory nor an earlier report; choose a new directory");
  }
  Progress progress = Progress::toStderr(!global.json && !global.quiet);
  WorkPlan plan = triagePlan(req, planDirectory(opt.fanOut, "triage"));
  progress.stage("triage", std::to_string(plan.units.size()) + " test(s), plan " +
                               plan.dir.string() + ", engine " + opt.fanOut.engine);
  EngineOptions engine = engineOptions(opt.fanOut, &progress);
  EngineRun run = runPlan(plan, engine);
  progress.finish();
  if (opt.fanOut.engine == "print")
    return ExitOk;
  if (!global.quiet) { // what the engine did is no progress: shown with --json too
    if (!run.note.empty())
      std::cerr << "rootline: " << run.note << "\n";
    if (run.resubmitted)
      std::cerr << "rootline: " << run.resubmitted
                << " unit(s) ran again after they left no result (killed or lost)\n";
  }
  if (run.merged) { // the cluster's merge job wrote the report: show the same answer here
    TriageReport report = mergeTriage(plan);
    triageReportFiles(plan, report); // the same files list as the report the job wrote
    if (global.json)
      std::cout << jsonText(triageJson(report));
    else
      std::cout << triageSummary(report);
    return report.failedUnits.empty() ? ExitOk : ExitFailure;
  }
  return mergeTriagePlan(global, plan);
}

} // namespace

void addTriageCommand(CLI::App &app, const GlobalOptions &global, Action &action) {
  auto opt = std::make_shared<TriageOptions>();
  CLI::App *cmd = app.add_subcommand(
      "triage", "Debug many failing tests between two versions and group them by root cause");
  cmd->add_option("--old", opt->oldDir, "Source tree where the tests pass, or one C file");
  cmd->add_option("--new", opt->newDir, "Source tree where they fail, or one C file");
  addRepoOptions(*cmd, opt->repo);
  addRecipeOptions(*cmd, opt->recipe);
  cmd->add_option("--tests", opt->testsDir,
                  "A test suite in the layout explore --out writes: test-*/stdin, "
                  "test-*/expected.stdout, arguments in test-*/test.json");
  cmd->add_option("--test", opt->testCommands,
                  "A project test command (repeatable), run from the top of each version's "
                  "tree built by the project's own build (docs/project.md)");
  cmd->add_option("--build", opt->build, "The project's build command, with --test");
  cmd->add_option("--timeout", opt->timeout, "Seconds per program run (default 30)");
  addBudgetOption(*cmd, opt->budget);
  cmd->add_option("--out", opt->out,
                  "Directory for report.json, report.md (one section per group), report.sarif "
                  "and report.html");
  addFanOutOptions(*cmd, opt->fanOut);
  cmd->footer(
      "Each test is one work unit: `rootline debug` with the test, its --budget its own. The\n"
      "merge groups the failing tests by root cause: tests whose rank-1 line is the same, or\n"
      "whose minimal revert set is, share a group (tests without a candidate: the same first\n"
      "divergence). Each group shows its evidence once, from its first test; tests that pass\n"
      "on the new version are listed as passing; a unit that gave no answer is named.\n"
      "Exit status: 0 every unit answered, 1 some did not, 2 bad input.\n"
      "Examples: rootline triage --old v1/ --new v2/ --src main.c --tests suite/ --out tri/\n"
      "          rootline triage --repo . --good v1.2 --bad HEAD --tests suite/ --engine slurm\n"
      "          rootline triage --repo . --good v1.2 --bad HEAD --test 'sh t/a.sh' --test 'sh "
      "t/b.sh'");
  cmd->callback(
      [&global, &action, opt] { action = [&global, opt] { return runTriage(global, *opt); }; });
}

} // namespace rootline::cli
