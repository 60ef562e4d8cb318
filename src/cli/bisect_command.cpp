// rootline bisect: the first bad commit between two revisions, then its root cause.
#include "cli/cli.h"
#include "cli/fan_out.h"
#include "cli/project_debug.h"
#include "cli/versions.h"
#include "rootline/bisect.h"
#include "rootline/error.h"
#include "rootline/json_text.h"
#include "rootline/progress.h"

#include <chrono>
#include <iostream>

namespace rootline::cli {

namespace {

// `git bisect run` stops at exit codes of 128 and above: --check uses 128 for errors so
// a misconfigured check never marks commits bad.
constexpr int kCheckError = 128;

struct BisectOptions {
  RepoOptions repo;
  RecipeRequest recipe;
  TestOptions test;
  std::string command, check, out, condition = "rsc";
  std::string build, testCommand; // --build, --test
  std::string expectOutcome;      // --expect-outcome, with --check
  double budget = 60;
  bool noDebug = false;
  unsigned parallel = 1;
  FanOutOptions fanOut;
};

CommitCheck commitCheck(const BisectOptions &opt, const Repository &repo) {
  CommitCheck c;
  c.recipe = opt.recipe;
  if (c.recipe.recipeBase.empty())
    c.recipe.recipeBase = repo.root(); // --recipe paths are the work tree's
  c.input = testInput(opt.test);
  c.expectedStdout = testExpected(opt.test);
  if (!opt.command.empty())
    c.shellCommand = opt.command;
  c.timeoutSeconds = opt.test.timeout;
  if (!opt.testCommand.empty() || !opt.build.empty()) {
    if (opt.testCommand.empty())
      throw Error("--build needs --test CMD: the project's test command judges each commit");
    if (!opt.command.empty())
      throw Error("use either --test (the project's own build and test) or --cmd");
    c.testCommand = opt.testCommand;
    if (!opt.build.empty())
      c.projectBuild = opt.build;
    c.timeoutSeconds = std::max(300.0, 10 * opt.test.timeout);
  }
  return c;
}

int runCheck(const GlobalOptions &global, const BisectOptions &opt) {
  try {
    if (!opt.repo.good.empty() || !opt.repo.bad.empty())
      throw Error("--check REV tests one commit; it takes no --good/--bad");
    Repository repo = openRepository(opt.repo);
    std::string hash = repo.resolve(opt.check);
    CommitCheck check = commitCheck(opt, repo);
    if (!check.shellCommand && !check.expectedStdout && !check.testCommand)
      throw Error("--check needs --expect FILE, --cmd COMMAND or --test COMMAND to tell a good "
                  "commit");
    std::optional<ExpectedBehaviour> expected;
    if (check.expectedStdout)
      expected = ExpectedBehaviour{
          *check.expectedStdout,
          opt.expectOutcome.empty() ? std::nullopt : std::optional<std::string>(opt.expectOutcome)};
    CommitVerdict v = checkCommit(repo, hash, check, expected);
    if (global.json)
      std::cout << jsonText({{"commit", commitJson(v.commit)},
                             {"verdict", verdictName(v.verdict)},
                             {"reason", v.reason},
                             {"build", buildKind(v)},
                             {"outcome", v.run.outcome},
                             {"seconds", v.seconds}});
    else if (!global.quiet)
      std::cerr << "rootline: " << v.commit.shortHash << " is " << verdictName(v.verdict) << " ("
                << v.reason << ")\n";
    return v.verdict == Verdict::Good  ? ExitOk
           : v.verdict == Verdict::Bad ? ExitFailure
                                       : ExitCannotTest;
  } catch (const Error &e) {
    std::cerr << "rootline: error: " << e.what() << "\n";
    return kCheckError;
  }
}

// The `bisect --check HASH` options each probe unit runs with, besides the hash:
// absolute paths, the expected behaviour the good end showed.
std::vector<std::string> probeArgs(const BisectOptions &opt, const Repository &repo,
                                   const std::optional<ExpectedBehaviour> &expected,
                                   const fs::path &planDir) {
  auto abs = [](const std::string &p) { return fs::absolute(p).lexically_normal().string(); };
  std::vector<std::string> a = {"--repo", repo.root().string()};
  std::vector<std::string> recipe = recipeArgs(opt.recipe);
  a.insert(a.end(), recipe.begin(), recipe.end());
  if (!opt.test.stdinFile.empty())
    a.insert(a.end(), {"--stdin", abs(opt.test.stdinFile)});
  for (const auto &f : opt.test.files) { // NAME=PATH or PATH, as addInputFiles reads them
    size_t eq = f.find('=');
    std::string name = eq == std::string::npos ? fs::path(f).filename().string() : f.substr(0, eq);
    a.insert(a.end(), {"--file", name + "=" + abs(eq == std::string::npos ? f : f.substr(eq + 1))});
  }
  a.insert(a.end(), {"--timeout", std::to_string(opt.test.timeout)});
  if (expected) {
    fs::path file = planDir / "expected.stdout";
    writeFileAtomic(file, expected->stdoutBytes);
    a.insert(a.end(), {"--expect", file.string()});
    if (expected->outcome)
      a.insert(a.end(), {"--expect-outcome", *expected->outcome});
  }
  if (!opt.command.empty())
    a.insert(a.end(), {"--cmd", opt.command});
  if (!opt.build.empty())
    a.insert(a.end(), {"--build", opt.build});
  if (!opt.testCommand.empty())
    a.insert(a.end(), {"--test", opt.testCommand});
  if (!opt.test.args.empty()) {
    a.push_back("--");
    a.insert(a.end(), opt.test.args.begin(), opt.test.args.end());
  }
  return a;
}

// --parallel K: rounds of K probes, each a plan of `bisect --check` units run by the
// engine and merged here (the next round depends on the answer).
BisectResult parallelBisect(const BisectOptions &opt, const Repository &repo,
                            const std::string &good, const std::string &bad,
                            const CommitCheck &check, const rootline::BisectOptions &options) {
  auto say = [&](const std::string &s) {
    if (options.progress)
      options.progress(s);
  };
  auto start = std::chrono::steady_clock::now();
  BisectEnds ends = checkBisectEnds(repo, good, bad, check, say);
  ParallelBisectRequest req;
  req.planDir = planDirectory(opt.fanOut, "bisect");
  req.parallel = std::max(1u, opt.parallel);
  writePlan({req.planDir, "bisect", 1, {}, nlohmann::json::object()}); // checks the directory
  req.checkArgs =
      probeArgs(opt, repo, check.shellCommand ? std::nullopt : ends.expected, req.planDir);
  req.unitTimeoutSeconds = std::max(600.0, 20 * check.timeoutSeconds);
  if (!opt.out.empty())
    req.out = fs::absolute(opt.out);
  say("bisect: " + std::to_string(ends.range.size()) + " commit(s) after " + ends.good.shortHash +
      " up to " + ends.bad.shortHash + ", " + std::to_string(req.parallel) +
      " probed at once; plan " + req.planDir.string());
  WorkPlan plan = parallelBisectPlan(repo, ends, req);
  EngineOptions engine = engineOptions(opt.fanOut, nullptr);
  engine.mergeOnCluster = false; // the next round needs the answer here
  while (!plan.units.empty()) {
    EngineRun run = runPlan(plan, engine);
    if (opt.fanOut.engine == "print") {
      std::cout << "# then: rootline merge --plan " << plan.dir.string()
                << " (it writes the next round, until the answer)\n";
      return parallelBisectResult(repo, plan);
    }
    if (!run.note.empty())
      say("bisect: " + run.note);
    std::optional<WorkPlan> next = advanceParallelBisect(repo, plan);
    WorkPlan now = readPlan(plan.dir);
    BisectResult sofar = parallelBisectResult(repo, now);
    for (size_t i = sofar.steps.size() - plan.units.size(); i < sofar.steps.size(); ++i)
      say(bisectStepLine(sofar.steps[i], "round " + std::to_string(plan.round) + ":"));
    if (!next)
      break;
    plan = *next;
  }
  WorkPlan last = readPlan(plan.dir);
  BisectResult result = parallelBisectResult(repo, last);
  if (result.firstBad)
    say("bisect: first bad commit " + result.firstBad->shortHash + " " + result.firstBad->subject);
  debugFirstBad(repo, result, parallelBisectParent(last), check, options);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

int runBisect(const GlobalOptions &global, const BisectOptions &opt) {
  if (!opt.check.empty())
    return runCheck(global, opt);
  if (opt.repo.good.empty() || opt.repo.bad.empty())
    throw Error("bisect needs --good REV and --bad REV (or --check REV)");
  if (opt.condition != "rsc" && opt.condition != "pc")
    throw Error("--condition must be rsc or pc");
  Repository repo = openRepository(opt.repo);
  std::string good = repo.resolve(opt.repo.good);
  std::string bad = repo.resolve(opt.repo.bad);
  CommitCheck check = commitCheck(opt, repo);
  rootline::BisectOptions options;
  options.debugFirstBad = !opt.noDebug;
  options.debugTemplate.condition = opt.condition == "pc" ? ConditionKind::Pc : ConditionKind::Rsc;
  options.debugTemplate.timeoutSeconds = opt.test.timeout;
  options.debugTemplate.budgetSeconds = opt.budget;
  // The debug step's stages show as it runs, like rootline debug's.
  Progress debugProgress = Progress::toStderr(!global.quiet && !global.json);
  options.debugTemplate.progress = &debugProgress;
  if (!global.quiet && !global.json)
    options.progress = [](const std::string &s) { std::cerr << s << "\n"; };
  if (check.testCommand) // the first bad commit against its parent, as debug --test does
    options.prepareProjectDebug = [&](DebugRequest req) {
      ProjectDebugOptions project;
      project.build = opt.build;
      project.test = opt.testCommand;
      project.target = opt.recipe.target;
      project.testTimeout = check.timeoutSeconds;
      fs::path oldTree = req.oldRoot, newTree = req.newRoot;
      return projectDebugRequest(project, std::move(req), oldTree, newTree, debugProgress);
    };
  BisectResult result = opt.parallel > 1 || opt.fanOut.engine != "local"
                            ? parallelBisect(opt, repo, good, bad, check, options)
                            : bisectHistory(repo, good, bad, check, options);
  if (opt.fanOut.engine == "print")
    return ExitOk; // the plan is written and its commands printed; nothing ran
  if (!opt.out.empty()) {
    ReportFiles files = {{"bisect.json", jsonText(bisectJson(result))},
                         {"bisect.md", bisectMarkdown(result)}};
    if (result.debug)
      for (auto &f : debugReportFiles(*result.debug))
        files.push_back(std::move(f));
    writeReportFiles(opt.out, files);
  }
  if (global.json)
    std::cout << jsonText(bisectJson(result));
  else
    std::cout << bisectSummary(result);
  return result.firstBad ? ExitOk : ExitFailure;
}

} // namespace

int mergeBisectPlan(const GlobalOptions &global, const WorkPlan &plan) {
  Repository repo = Repository::open(plan.state.value("repo", ""));
  if (std::optional<WorkPlan> next = advanceParallelBisect(repo, plan)) {
    EngineOptions engine;
    engine.self = selfExecutable();
    std::cout << parallelCommands(*next, engine);
    return ExitOk;
  }
  BisectResult result = parallelBisectResult(repo, readPlan(plan.dir));
  std::string out =
      plan.state.value("out", nlohmann::json("")).is_string() ? plan.state.value("out", "") : "";
  if (!out.empty())
    writeReportFiles(out, {{"bisect.json", jsonText(bisectJson(result))},
                           {"bisect.md", bisectMarkdown(result)}});
  if (global.json)
    std::cout << jsonText(bisectJson(result));
  else
    std::cout << bisectSummary(result);
  return result.firstBad ? ExitOk : ExitFailure;
}

void addBisectCommand(CLI::App &app, const GlobalOptions &global, Action &action) {
  auto opt = std::make_shared<BisectOptions>();
  CLI::App *cmd = app.add_subcommand(
      "bisect", "Find the first bad commit between a good and a bad revision, then root-cause it");
  addRepoOptions(*cmd, opt->repo);
  addRecipeOptions(*cmd, opt->recipe);
  addTestOptions(*cmd, opt->test);
  cmd->add_option("--cmd", opt->command,
                  "Shell test command instead of --expect: runs in a scratch copy of each "
                  "commit's tree with $ROOTLINE_PROGRAM set; exit 0 good, 125 skip, 1-127 bad");
  addProjectOptions(*cmd, opt->build, opt->testCommand,
                    "it judges each commit (1-127 bad; a commit that does not build is "
                    "skipped)");
  cmd->add_option("--check", opt->check,
                  "Test this one revision and exit 0 good, 1 bad, 125 cannot test (does not "
                  "build), 128 error: a `git bisect run` script");
  cmd->add_option("--condition", opt->condition, "rsc (default) or pc, for the attached debug");
  addBudgetOption(*cmd, opt->budget);
  cmd->add_flag("--no-debug", opt->noDebug, "Do not debug the first bad commit");
  cmd->add_option("--parallel", opt->parallel,
                  "Probe K commits at once each round, as work units on --engine: N commits "
                  "take ceil(log_{K+1} N) rounds (default 1: one at a time)")
      ->check(CLI::Range(1u, 64u));
  cmd->add_option("--expect-outcome", opt->expectOutcome,
                  "With --check and --expect: the ending a good commit shows too "
                  "(\"exit 0\"); what --parallel's probes are given");
  addFanOutOptions(*cmd, opt->fanOut);
  cmd->add_option("--out", opt->out,
                  "Directory for bisect.json, bisect.md and the debug report's files");
  cmd->footer(
      "Walks the first-parent history from --good to --bad (default --repo: .). Each tested\n"
      "commit is read from git's object store into the cache (the work tree, index and HEAD\n"
      "are never touched), built natively (cached) and run; a commit that does not build is\n"
      "skipped. Without --expect the good commit's output and exit are the reference.\n"
      "Exit status: 0 first bad commit found, 1 skipped commits leave several candidates,\n"
      "2 bad input (unknown revision, good not an ancestor of bad, the test fails at good or\n"
      "passes at bad). With --check: 0/1/125 as above, 128 on any error.\n"
      "Examples: rootline bisect --good v1.0 --bad HEAD --stdin t.in --out bisect-report/\n"
      "          git bisect run rootline bisect --check HEAD --stdin t.in --expect t.out\n"
      "          rootline bisect --good v1.0 --bad HEAD --stdin t.in --parallel 3 --engine slurm");
  cmd->callback(
      [&global, &action, opt] { action = [&global, opt] { return runBisect(global, *opt); }; });
}

} // namespace rootline::cli
