// rootline debug: root-cause a regression between two source trees.
#include "cli/cli.h"
#include "rootline/debug.h"
#include "rootline/error.h"
#include "rootline/json_text.h"

#include <iostream>

namespace rootline::cli {

namespace {

struct DebugOptions {
  std::string oldDir, newDir;
  RecipeRequest recipe;
  std::string stdinFile, expectFile, condition = "rsc", out;
  double timeout = 30;
  unsigned maxCandidates = 20;
  std::vector<std::string> args;
};

// The same recipe in both trees: --src paths are relative to each tree; without
// --src each tree's rootline.json or compile_commands.json is used.
BuildRecipe recipeIn(const DebugOptions &opt, const fs::path &root) {
  RecipeRequest r = opt.recipe;
  r.projectDir = root;
  for (auto &s : r.sources) {
    fs::path p(s);
    if (p.is_relative())
      s = (root / p).string();
  }
  return resolveRecipe(r);
}

int runDebug(const GlobalOptions &global, const DebugOptions &opt) {
  if (opt.oldDir.empty() || opt.newDir.empty())
    throw Error("--old DIR and --new DIR are required");
  for (const auto &d : {opt.oldDir, opt.newDir})
    if (!fs::is_directory(d))
      throw Error("'" + d + "' is not a directory");
  if (opt.condition != "rsc" && opt.condition != "pc")
    throw Error("--condition must be rsc or pc");
  DebugRequest req;
  req.oldRoot = fs::absolute(opt.oldDir);
  req.newRoot = fs::absolute(opt.newDir);
  req.oldRecipe = recipeIn(opt, req.oldRoot);
  req.newRecipe = recipeIn(opt, req.newRoot);
  req.oldLabel = opt.oldDir;
  req.newLabel = opt.newDir;
  if (auto in = stdinOption(opt.stdinFile))
    req.input.stdinBytes = readFile(*in);
  req.input.args = opt.args;
  if (!opt.expectFile.empty()) {
    if (!fs::is_regular_file(opt.expectFile))
      throw Error("--expect file '" + opt.expectFile + "' does not exist");
    req.expectedStdout = readFile(opt.expectFile);
  }
  req.condition = opt.condition == "pc" ? ConditionKind::Pc : ConditionKind::Rsc;
  req.timeoutSeconds = opt.timeout;
  req.maxCandidates = opt.maxCandidates;
  DebugReport report = debugRegression(req);
  if (!opt.out.empty()) {
    fs::path out = fs::absolute(opt.out);
    if (fs::exists(out) && !fs::is_empty(out) && !fs::exists(out / "report.json"))
      throw Error("--out '" + out.string() +
                  "' is not empty and holds no rootline report; choose a new directory");
    fs::create_directories(out);
    writeFileAtomic(out / "report.json", jsonText(reportJson(report)));
    writeFileAtomic(out / "report.md", reportMarkdown(report));
    writeFileAtomic(out / "report.sarif", jsonText(reportSarif(report)));
    writeFileAtomic(out / "report.html", reportHtml(report));
  }
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
  cmd->add_option("--old", opt->oldDir, "Source tree where the test passes");
  cmd->add_option("--new", opt->newDir, "Source tree where the test fails");
  addRecipeOptions(*cmd, opt->recipe);
  cmd->add_option("--stdin", opt->stdinFile, "The test's stdin");
  cmd->add_option("--expect", opt->expectFile,
                  "Expected stdout (default: what the old version prints)");
  cmd->add_option("--condition", opt->condition,
                  "rsc (relevant slice conditions, default) or pc (path "
                  "conditions: the original Darwin)");
  cmd->add_option(
      "--out", opt->out,
      "Directory for report.json, report.md, report.sarif (SARIF 2.1.0) and report.html");
  cmd->add_option("--timeout", opt->timeout, "Seconds per program run (default 30)");
  cmd->add_option("--max-candidates", opt->maxCandidates,
                  "At most this many candidates (default 20)");
  cmd->add_option("args", opt->args, "Program arguments of the test (after --)");
  cmd->footer(
      "--src paths are relative to each tree. Exit status: 0 candidates found, 1 none found,\n"
      "2 bad input (no failure, fails on old too, nondeterministic, does not build).\n"
      "Example: rootline debug --old v1/ --new v2/ --src main.c --stdin t17.in --out report/");
  cmd->callback(
      [&global, &action, opt] { action = [&global, opt] { return runDebug(global, *opt); }; });
}

} // namespace rootline::cli
