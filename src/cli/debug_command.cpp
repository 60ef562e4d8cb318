// rootline debug: root-cause a regression between two source trees.
#include "cli/cli.h"
#include "cli/project_debug.h"
#include "cli/versions.h"
#include "rootline/debug.h"
#include "rootline/error.h"
#include "rootline/json_text.h"
#include "rootline/text_diff.h"
#include "rootline/vcs.h"

#include <iostream>

namespace rootline::cli {

namespace {

struct DebugOptions {
  std::string oldDir, newDir;
  RepoOptions repo;
  RecipeRequest recipe;
  std::string stdinFile, expectFile, condition = "rsc", out, localDarwin = "auto";
  double timeout = 30;
  double budget = 60;
  unsigned maxCandidates = 20;
  bool firstModels = false;
  std::vector<std::string> args, files;
  ProjectDebugOptions project;
};

int runDebug(const GlobalOptions &global, const DebugOptions &opt) {
  if (opt.condition != "rsc" && opt.condition != "pc")
    throw Error("--condition must be rsc or pc");
  DebugRequest req;
  VersionTree oldV, newV;
  if (opt.repo.given()) {
    if (!opt.oldDir.empty() || !opt.newDir.empty())
      throw Error("use either --old/--new (directories) or --repo/--good/--bad (commits)");
    if (opt.repo.repo.empty() || opt.repo.good.empty() || opt.repo.bad.empty())
      throw Error("--repo, --good and --bad go together");
    Repository repo = openRepository(opt.repo);
    oldV = commitVersion(repo, opt.repo.good);
    newV = commitVersion(repo, opt.repo.bad);
    req.sourceDiff = repo.diff(oldV.commit->hash, newV.commit->hash);
    req.oldCommit = oldV.commit;
    req.newCommit = newV.commit;
    req.repository = repo.root();
  } else {
    if (opt.oldDir.empty() || opt.newDir.empty())
      throw Error("--old DIR and --new DIR (or --repo, --good and --bad) are required");
    oldV = localVersion(opt.oldDir);
    newV = localVersion(opt.newDir);
    requireSameKind({&oldV, &newV});
    if (!oldV.singleFile.empty()) // two files, whatever their names: diff them as a pair
      req.sourceDiff = SourceDiff{{{oldV.singleFile, newV.singleFile,
                                    diffTexts(readFile(oldV.root / oldV.singleFile),
                                              readFile(newV.root / newV.singleFile))}}};
  }
  req.oldRoot = oldV.root;
  req.newRoot = newV.root;
  RecipeRequest recipe = opt.recipe;
  if (!req.repository.empty() && recipe.recipeBase.empty())
    recipe.recipeBase = req.repository; // --recipe paths are the work tree's
  if (opt.project.given() && !oldV.singleFile.empty())
    throw Error("--build and --test take two project trees or commits, not single files");
  if (!opt.project.given()) {
    req.oldRecipe = recipeOf(recipe, oldV);
    req.newRecipe = recipeOf(recipe, newV);
  }
  req.oldLabel = oldV.label;
  req.newLabel = newV.label;
  req.inputSearchDirs = {fs::current_path()};
  if (auto in = stdinOption(opt.stdinFile)) {
    req.input.stdinBytes = readFile(*in);
    req.inputSearchDirs.push_back(in->parent_path());
  }
  req.input.args = opt.args;
  addInputFiles(req.input, opt.files);
  if (!opt.expectFile.empty()) {
    if (!fs::is_regular_file(opt.expectFile))
      throw Error("--expect file '" + opt.expectFile + "' does not exist");
    req.expectedStdout = readFile(opt.expectFile);
  }
  req.condition = opt.condition == "pc" ? ConditionKind::Pc : ConditionKind::Rsc;
  req.timeoutSeconds = opt.timeout;
  req.maxCandidates = opt.maxCandidates;
  req.budgetSeconds = opt.budget;
  req.closestInputs = !opt.firstModels;
  req.localDarwin = opt.localDarwin;
  Progress progress = Progress::toStderr(!global.json && !global.quiet);
  req.progress = &progress;
  if (opt.project.given()) {
    ProjectDebugOptions project = opt.project;
    project.target = opt.recipe.target;
    if (!opt.project.test.empty() && !opt.expectFile.empty())
      project.expectedStdout = req.expectedStdout; // the test's own stdout is compared
    project.testTimeout = std::max(300.0, 10 * opt.timeout);
    req = projectDebugRequest(project, req, oldV.root, newV.root, progress);
  }
  DebugReport report = debugRegression(req);
  if (!opt.out.empty())
    writeReportFiles(opt.out, debugReportFiles(report));
  if (global.json)
    std::cout << jsonText(reportJson(report));
  else
    std::cout << reportSummary(report);
  return report.candidates.empty() ? ExitFailure : ExitOk;
}

} // namespace

void addDebugCommand(CLI::App &app, const GlobalOptions &global, Action &action) {
  auto opt = std::make_shared<DebugOptions>();
  CLI::App *cmd =
      app.add_subcommand("debug", "Root-cause a regression between two versions for a failing test "
                                  "(Darwin with relevant slice conditions)");
  cmd->add_option("--old", opt->oldDir,
                  "Source tree where the test passes, or the program's one C file");
  cmd->add_option("--new", opt->newDir,
                  "Source tree where the test fails, or the program's one C file");
  addRepoOptions(*cmd, opt->repo);
  addRecipeOptions(*cmd, opt->recipe);
  cmd->add_option("--stdin", opt->stdinFile, "The test's stdin");
  addFileOption(*cmd, opt->files);
  cmd->add_option("--expect", opt->expectFile,
                  "Expected stdout (default: what the old version prints); with --test, the "
                  "test command's own stdout, which must equal it for the test to pass");
  cmd->add_option("--condition", opt->condition,
                  "rsc (relevant slice conditions, default) or pc (path "
                  "conditions: the original Darwin)");
  cmd->add_option(
      "--out", opt->out,
      "Directory for report.json, report.md, report.sarif (SARIF 2.1.0), report.html and "
      "unit-test/test_FUNCTION.c (the differential unit test, when one was made) and "
      "local-darwin/harness_FUNCTION.c (local Darwin's harness, when it ran)");
  cmd->add_option("--timeout", opt->timeout, "Seconds per program run (default 30)");
  addBudgetOption(*cmd, opt->budget);
  cmd->add_option("--max-candidates", opt->maxCandidates,
                  "At most this many candidates (default 20)");
  cmd->add_flag("--first-models", opt->firstModels,
                "Keep the solver's first models as alternative inputs instead of the inputs "
                "closest to the failing one (for comparison)");
  cmd->add_option("--local-darwin", opt->localDarwin,
                  "Compose at the tested function's carved call, over its integer arguments "
                  "and fields: auto (when the whole-program composition does not decide or "
                  "gives that candidate no alternative input), always, never (default auto)")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_option("args", opt->args, "Program arguments of the test (after --)");
  addProjectOptions(*cmd, opt->project.build, opt->project.test,
                    "the project's programs it runs are traced, and the first process that "
                    "behaves otherwise (in more than the version text the change edited: a "
                    "--version check is passed over; with several, the test is re-run "
                    "natively with all but one differing command run by the old version, "
                    "to find the one it judges) is debugged alone, from its stdin, "
                    "arguments, the files it opened or its arguments named, and the variables "
                    "the test set for it; a file it writes is its output when that is what "
                    "differs");
  cmd->footer(
      "--src paths are relative to each tree (the repository's top for commits). With --repo,\n"
      "git's diff between the commits ranks and maps lines, and every report names both\n"
      "commits. Renames, reformatting and comments are neutral: listed, never ranked. Each\n"
      "candidate's hunk is reverted alone in a copy under the cache (never in your tree) and\n"
      "the test rerun: \"reverting main.c:6 alone makes the test pass\". When a revert\n"
      "cannot tell its lines apart (a function the change added), one-token edits of them\n"
      "(`==`/`!=`, `<`/`<=`, `&&`/`||`, an integer literal one off, `++`/`--`) are tried\n"
      "the same way: \"changing `<`"
      " to `<=` at main.c:6 (...) alone makes the test pass, the rest of the change\n"
      "kept\". When there are more lines than trials, their operator edits are first run\n"
      "together from one build (each switched on by $ROOTLINE_MUTANT) and only those that\n"
      "make the failing process pass are built for real.\n"
      "With --test a trial runs the failing process alone; one that passes is run\n"
      "through the whole test command too, and the sentence says which passed: \"... makes\n"
      "the test pass\", or \"... makes the failing process behave as in the old version\"\n"
      "(\", but the test still fails\" when the whole test failed). A passing edit is\n"
      "first run on the test's other processes that behave alike in both versions and run\n"
      "its line, each alone: one that changes what they do repairs nothing (\"... but it\n"
      "changes what 3 of the 5 process(es) ... do\").\n"
      "The units with changed code are compiled again by clang, syntax only, with their\n"
      "own flags: of lines one revert unit fixes, one where the new version warns of a\n"
      "likely bug (-Wint-conversion, -Wformat, -Wparentheses, ...) that the old version\n"
      "does not comes first, and says so.\n"
      "Both runs are aligned iteration by iteration and call by call: the report names the\n"
      "first divergence (\"main.c:6 computes `price` = 108 in the old run and 96 in the new\n"
      "run\") and lists changed lines that compute the same values in both runs (ranked\n"
      "last).\n"
      "The rank-1 candidate's function is called again, in a cmocka test, with the state\n"
      "one of its calls in the failing run began with; the test is kept (unit-test/ in\n"
      "--out) when it passes on the old version and fails on the new one.\n"
      "Exit status: 0 candidates found, 1 none found, 2 bad input (no failure,\n"
      "fails on old too, nondeterministic, does not build, unknown revision).\n"
      "--old and --new may also be two single-file programs (any names; no --src).\n"
      "Each alternative input is the one closest to the failing input that the solver\n"
      "finds (few changed tokens or bytes, each near its old value and of its kind) and is\n"
      "shown as its changes (\"token 1: 10 → 11\"); agreement on an input both versions\n"
      "reject (an error exit, no output, what random inputs print) is labelled weak.\n"
      "Each run has its own working directory: a file the program opens by a relative\n"
      "name is given with --file NAME=PATH, or found (as a string literal of the program or\n"
      "an argument) in the current directory or the --stdin file's, and copied there.\n"
      "With --build or --test, each version is built by the project's own build (in a copy\n"
      "under the cache, at one work path for both) and --test runs the project's test; the\n"
      "first of its processes that behaves otherwise in the new version is debugged.\n"
      "The test's other runs of that program are replayed (a sample of a long test): a\n"
      "changed line that only its differing runs ran ranks before one that every run took,\n"
      "where nothing stronger tells them apart (\"run by 1 of the 1 process(es) of the test\n"
      "whose behaviour differs ..., and by none of the 4 that behave alike\").\n"
      "A very long run's records stop at a memory cap, with a note: the dependence records\n"
      "at $ROOTLINE_DEPENDENCE_CAP_MB MiB (default a quarter of memory), the aligned runs'\n"
      "execution logs at $ROOTLINE_ALIGN_CAP_MB MiB (default an eighth).\n"
      "With two cores or more, the versions are built, traced, sliced and aligned at once,\n"
      "on two threads (the report is the same); ROOTLINE_THREADS=1 does one after the other.\n"
      "Examples: rootline debug --old v1/ --new v2/ --src main.c --stdin t17.in --out report/\n"
      "          rootline debug --repo . --good v1.2 --bad HEAD --test 'sh tests/t17.sh'\n"
      "          rootline debug --old fixed.c --new buggy.c --stdin t17.in\n"
      "          rootline debug --repo . --good v1.2 --bad HEAD --stdin t17.in");
  cmd->callback(
      [&global, &action, opt] { action = [&global, opt] { return runDebug(global, *opt); }; });
}

} // namespace rootline::cli
