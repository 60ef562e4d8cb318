// rootline validate: does a fix restore the good version's behaviour?
#include "cli/cli.h"
#include "cli/project_debug.h"
#include "cli/versions.h"
#include "rootline/error.h"
#include "rootline/json_text.h"
#include "rootline/project.h"
#include "rootline/validate.h"

#include <iostream>

namespace rootline::cli {

namespace {

struct ValidateOptions {
  RepoOptions repo;
  std::string fix, oldDir, newDir, out;
  RecipeRequest recipe;
  TestOptions test;
  unsigned maxNeighbours = 40;
  double budget = 60;
  ProjectDebugOptions project; // --build, --test
};

// The project's own build and test (docs/project.md): all three versions built by it,
// the failing process of the test between good and bad as the failing input, and the
// test's verdict on the fix.
void useProjectBuild(const ValidateOptions &opt, ValidateRequest &req, Progress &progress) {
  if (opt.project.test.empty())
    throw Error("validate --build needs --test CMD: the project's test command");
  ProjectBuildOptions build;
  build.command = opt.project.build;
  build.progress = &progress;
  BuiltProject good = buildProject(req.goodRoot, "good", build);
  BuiltProject bad = buildProject(req.badRoot, "bad", build);
  BuiltProject fix = buildProject(req.fixRoot, "fix", build);
  ProjectDebugOptions project = opt.project;
  project.testTimeout = std::max(300.0, 10 * opt.test.timeout);
  CarvedProcess carved = carveFailingProcess(good, bad, project, progress, req.leadNotes);
  req.input = carved.input;
  req.expectedStdout = carved.expectedStdout;
  req.goodBuilt = builtVersion(good, *carved.oldProgram);
  req.badNative = bad.home / carved.newProgram->path;
  req.fixBuilt = builtVersion(fix, selectProgram(fix, carved.oldProgram->path));
  ScopedWorkDir work("validate-test");
  TestCommandRun onFix = runTestCommand(fix, {opt.project.test, project.testTimeout, std::nullopt},
                                        {}, work.path / "unused");
  req.projectTestPassesOnFix = onFix.passed();
  req.projectTest = opt.project.test;
  req.leadNotes.push_back("test '" + opt.project.test + "' on the fix: " +
                          (onFix.passed() ? "passes" : "fails (" + onFix.result.outcome() + ")"));
  // Reports name files in the built trees, as the debug info does.
  req.goodRoot = good.home;
  req.badRoot = bad.home;
  req.fixRoot = fix.home;
}

int runValidate(const GlobalOptions &global, const ValidateOptions &opt) {
  if (opt.fix.empty())
    throw Error("--fix is required: the revision (with --repo) or directory of the fix");
  ValidateRequest req;
  VersionTree good, bad, fix;
  if (opt.repo.given()) {
    if (!opt.oldDir.empty() || !opt.newDir.empty())
      throw Error("use either --old/--new/--fix (directories) or --repo/--good/--bad/--fix");
    if (opt.repo.good.empty() || opt.repo.bad.empty())
      throw Error("--good and --bad are required with --repo");
    Repository repo = openRepository(opt.repo);
    good = commitVersion(repo, opt.repo.good);
    bad = commitVersion(repo, opt.repo.bad);
    fix = commitVersion(repo, opt.fix);
    req.goodCommit = good.commit;
    req.badCommit = bad.commit;
    req.fixCommit = fix.commit;
    req.repository = repo.root();
  } else {
    if (opt.oldDir.empty() || opt.newDir.empty())
      throw Error("give --repo R --good A --bad B --fix C, or --old DIR --new DIR --fix DIR");
    good = localVersion(opt.oldDir);
    bad = localVersion(opt.newDir);
    fix = localVersion(opt.fix);
    requireSameKind({&good, &bad, &fix});
  }
  req.goodRoot = good.root;
  req.badRoot = bad.root;
  req.fixRoot = fix.root;
  req.goodLabel = good.label;
  req.badLabel = bad.label;
  req.fixLabel = fix.label;
  RecipeRequest recipe = opt.recipe;
  if (!req.repository.empty() && recipe.recipeBase.empty())
    recipe.recipeBase = req.repository; // --recipe paths are the work tree's
  Progress progress = Progress::toStderr(!global.json && !global.quiet);
  req.progress = &progress;
  if (opt.project.given()) {
    useProjectBuild(opt, req, progress);
  } else {
    req.goodRecipe = recipeOf(recipe, good);
    req.badRecipe = recipeOf(recipe, bad);
    req.fixRecipe = recipeOf(recipe, fix);
    req.input = testInput(opt.test);
    req.expectedStdout = testExpected(opt.test);
  }
  req.timeoutSeconds = opt.test.timeout;
  req.maxNeighbours = opt.maxNeighbours;
  req.budgetSeconds = opt.budget;
  ValidateReport report = validateFix(req);
  progress.finish();
  if (!opt.out.empty())
    writeReportFiles(opt.out, {{"validate.json", jsonText(validateJson(report))},
                               {"validate.md", validateMarkdown(report)},
                               {"validate.sarif", jsonText(validateSarif(report))},
                               {"validate.html", validateHtml(report)}});
  if (global.json)
    std::cout << jsonText(validateJson(report));
  else
    std::cout << validateSummary(report);
  return report.accepted ? ExitOk : ExitFailure;
}

} // namespace

void addValidateCommand(CLI::App &app, const GlobalOptions &global, Action &action) {
  auto opt = std::make_shared<ValidateOptions>();
  CLI::App *cmd = app.add_subcommand(
      "validate", "Check that a fix restores the good version's behaviour for the failing "
                  "input's whole partition, and look for inputs where it still differs");
  addRepoOptions(*cmd, opt->repo);
  addProjectOptions(*cmd, opt->project.build, opt->project.test,
                    "its failing process between good and bad is the failing input, and a fix "
                    "that fails it is rejected");
  cmd->add_option("--fix", opt->fix,
                  "The fix: a revision with --repo, else a directory or a C file");
  cmd->add_option("--old", opt->oldDir, "Directory or C file of the good version (without --repo)");
  cmd->add_option("--new", opt->newDir, "Directory or C file of the bad version (without --repo)");
  addRecipeOptions(*cmd, opt->recipe);
  addTestOptions(*cmd, opt->test);
  cmd->add_option("--max-neighbours", opt->maxNeighbours,
                  "Inputs from neighbouring partitions and boundaries to run on the three "
                  "versions (default 40)");
  addBudgetOption(*cmd, opt->budget);
  cmd->add_option("--out", opt->out,
                  "Directory for validate.json, validate.md, validate.sarif and validate.html");
  cmd->footer("Every input tried runs on good, bad and fix, and is judged value by value (each\n"
              "value printed on a line on its own). Accepted when the failing test passes on the\n"
              "fix, the solver proves that the fix computes the good version's values where the\n"
              "test failed for every input in both versions' partitions of the failing input, and\n"
              "no input shows new behaviour (a value like neither version's) or a failure the fix\n"
              "left (like the bad version in a failing value, in the failure's partition). Inputs\n"
              "where the fix keeps an intended change of the bad version are listed, not\n"
              "counted; a fix that also reverts one is accepted with a warning. The conditions\n"
              "the fix changed are tried first, on both sides of their boundaries (\"token 1:\n"
              "10 → 9\").\n"
              "Exit status: 0 accepted, 1 not accepted (the report shows why, with inputs),\n"
              "2 bad input (unknown revision, the test fails at good or passes at bad, no build).\n"
              "Example: rootline validate --repo . --good v1.0 --bad v1.1 --fix HEAD --stdin t.in");
  cmd->callback(
      [&global, &action, opt] { action = [&global, opt] { return runValidate(global, *opt); }; });
}

} // namespace rootline::cli
