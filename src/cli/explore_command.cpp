// rootline explore: generate a test suite by path exploration and find crashes.
#include "cli/cli.h"
#include "cli/explore_shards.h"
#include "rootline/error.h"
#include "rootline/explore.h"
#include "rootline/json_text.h"
#include "rootline/progress.h"
#include "rootline/project.h"
#include "rootline/unit_harness.h"

#include <algorithm>

#include <iostream>

namespace rootline::cli {

namespace {

struct ExploreCommandOptions {
  RecipeRequest recipe;
  std::string seed;
  std::string out;
  std::string strategy = "dart";
  bool signature = false;
  ExploreOptions explore;
  UnitOptions unit; // --function: unit mode
  std::vector<std::string> args;
  std::string build; // --build: the project's own build (docs/project.md)
  unsigned shards = 0;
  std::string shardFile; // --shard: one shard unit of a sharded exploration
  FanOutOptions fanOut;
};

// What each shard unit is given besides its file, budget and runs: the program's build
// options and the search's settings, as typed (units run in this directory).
std::vector<std::string> shardArgs(const ExploreCommandOptions &opt) {
  std::vector<std::string> a = {"--strategy",       opt.strategy,
                                "--criterion",      opt.explore.criterion,
                                "--loop-bound",     std::to_string(opt.explore.loopBound),
                                "--solver-timeout", std::to_string(opt.explore.solverTimeoutMs),
                                "--timeout",        std::to_string(opt.explore.runTimeoutSeconds)};
  if (!opt.explore.findBugs)
    a.push_back("--no-bugs");
  std::vector<std::string> recipe = recipeArgs(opt.recipe);
  a.insert(a.end(), recipe.begin(), recipe.end());
  return a;
}

// Unit mode's default --loop-bound.
constexpr unsigned kUnitLoopBound = 4;

Strategy parseStrategy(const std::string &s) {
  if (s == "dart")
    return Strategy::Dart;
  if (s == "rsc")
    return Strategy::Rsc;
  if (s == "naive-rsc")
    return Strategy::NaiveRsc;
  throw Error("unknown --strategy '" + s + "' (expected dart, rsc or naive-rsc)");
}

int runExplore(const GlobalOptions &global, ExploreCommandOptions opt) {
  opt.explore.strategy = parseStrategy(opt.strategy);
  if (!opt.shardFile.empty()) { // one shard unit: its whole result on stdout
    if (!opt.build.empty() || !opt.unit.function.empty())
      throw Error("--shard explores a program built from --src or a recipe");
    return runExploreShard(buildTraced(resolveRecipe(opt.recipe)), opt.explore,
                           fs::absolute(opt.shardFile));
  }
  if (opt.out.empty())
    throw Error("--out DIR is required: where the generated tests go");
  if (opt.shards > 0 && (!opt.build.empty() || !opt.unit.function.empty()))
    throw Error("--shards explores a program built from --src or a recipe; it takes no "
                "--build or --function");
  if (!opt.build.empty() && !opt.unit.function.empty())
    throw Error("--function builds a driver from the sources; it takes no --build");
  BuildRecipe recipe;
  if (opt.build.empty())
    recipe = resolveRecipe(opt.recipe);
  ProgramInput seed;
  if (auto in = stdinOption(opt.seed))
    seed.stdinBytes = readFile(*in);
  seed.args = opt.args;
  fs::path out = fs::absolute(opt.out);
  if (fs::exists(out) && !fs::is_empty(out) && !fs::exists(out / ".rootline-explore"))
    throw Error("--out '" + out.string() +
                "' is not empty and was not written by rootline explore; "
                "choose a new directory");
  Progress progress = Progress::toStderr(!global.json && !global.quiet);
  progress.stage("build");
  // Unit mode: the program becomes a generated driver around the function.
  std::optional<UnitHarness> unit;
  std::optional<ScopedWorkDir> unitWork; // the driver, while it is built
  if (!opt.unit.function.empty()) {
    if (!opt.args.empty())
      throw Error("--function takes no program arguments: the driver builds the function's "
                  "arguments itself");
    unitWork.emplace("unit");
    unit = makeUnitHarness(recipe, opt.unit, unitWork->path);
    recipe = unit->recipe;
    if (opt.seed.empty())
      seed = unit->seed;
    // loop-k: lazily built structures may be cyclic, and a path that walks one long is
    // worth a few of its branches, not all of them.
    if (opt.explore.loopBound == 0)
      opt.explore.loopBound = kUnitLoopBound;
    opt.explore.quietFunctions = unit->quietFunctions;
  }
  TracedProgram program;
  std::string name;
  if (!opt.build.empty()) { // the project's own build, one of its programs
    ProjectBuildOptions build;
    build.command = opt.build == "auto" ? "" : opt.build;
    build.progress = &progress;
    BuiltProject project = buildProject(fs::absolute(opt.recipe.projectDir), "project", build);
    const ProjectProgram &p = selectProgram(project, opt.recipe.target);
    program = programExecutables(project, p).traced;
    name = p.name;
  } else {
    program = buildTraced(recipe);
    name = unit ? unit->function : recipe.units.front().source.filename().string();
  }
  progress.stage("explore");
  opt.explore.progress = [&progress](const std::string &line) { progress.update(line); };
  ExploreResult result = opt.shards > 0
                             ? exploreInShards(program, seed, opt.explore,
                                               {opt.shards, opt.fanOut, shardArgs(opt)}, progress)
                             : explore(program, seed, opt.explore);
  progress.finish();
  // Unit mode reports the coverage of the function and its callees, not the driver's.
  if (unit)
    std::erase_if(result.stats.functions, [&](const auto &f) {
      return std::find(unit->covered.begin(), unit->covered.end(), f.first) == unit->covered.end();
    });
  writeTestSuite(result, out, name);
  if (unit)
    writeUnitTests(result, *unit, out);
  if (global.json) {
    nlohmann::json j = summaryJson(result);
    if (opt.signature) {
      j["signature"] = nlohmann::json::array();
      for (const auto &e : result.signature)
        j["signature"].push_back({{"rsc", e.rsc}, {"output", e.output}, {"test", e.test}});
    }
    j["out"] = out.string();
    std::cout << jsonText(j);
  } else if (!global.quiet) {
    const ExploreStats &s = result.stats;
    std::cerr << "rootline: explore (" << strategyName(opt.explore.strategy) << "): " << s.runs
              << " runs, " << s.distinctPaths << " distinct paths, " << s.partitions
              << " partitions, " << s.divergences << " divergences; lines " << s.linesCovered << "/"
              << s.linesTotal << ", branches " << s.branchesCovered << "/" << s.branchesTotal
              << "; solver " << s.solverCalls << " calls, " << s.solverSeconds << " s of "
              << s.totalSeconds << " s\n";
    if (opt.signature)
      for (const auto &e : result.signature)
        std::cout << "partition: " << e.rsc
                  << "\n  output: " << (e.output.empty() ? "(none)" : e.output) << "\n";
    for (const auto &b : result.bugs)
      std::cerr << "rootline: bug: " << b.kind << " at " << b.file << ":" << b.line << " in "
                << b.function << (b.confirmed ? " (confirmed)" : " (not confirmed)") << "\n";
    for (const auto &n : result.notes)
      std::cerr << "rootline: " << n << "\n";
    if (!s.concretizedCalls.empty()) {
      std::cerr << "rootline: note: symbolic values were made concrete at calls to";
      for (const auto &c : s.concretizedCalls)
        std::cerr << " " << c;
      std::cerr << " (no libc model): paths that depend on their results may be missed\n";
    }
    if (unit) {
      for (const auto &[function, c] : result.stats.functions)
        std::cerr << "rootline: coverage of " << function << ": branches " << c.branchesCovered
                  << "/" << c.branchesTotal << ", lines " << c.linesCovered << "/" << c.linesTotal
                  << "\n";
      for (const auto &n : unit->notes)
        std::cerr << "rootline: unit: " << n << "\n";
      std::cerr << "rootline: unit tests (cmocka) in " << (out / "unit").string() << "\n";
    }
    std::cerr << "rootline: explore: " << result.tests.size() << " tests written to "
              << out.string() << "\n";
  }
  return result.bugs.empty() ? ExitOk : ExitFailure;
}

} // namespace

void addExploreCommand(CLI::App &app, const GlobalOptions &global, Action &action) {
  auto opt = std::make_shared<ExploreCommandOptions>();
  CLI::App *cmd = app.add_subcommand(
      "explore", "Generate a test suite by path exploration (one test per path; "
                 "with --strategy rsc one per symbolic output) and find crashes");
  addRecipeOptions(*cmd, opt->recipe);
  cmd->add_option("--build", opt->build,
                  "Build the project in --project (default .) with its own build command, in a "
                  "private copy, and explore the program --target names ('auto': detect the "
                  "command; docs/project.md)");
  cmd->add_option("--stdin", opt->seed, "Seed input for stdin (default: empty)");
  cmd->add_option("--out", opt->out,
                  "Directory for the generated tests (new, empty, or an earlier explore output)");
  cmd->add_option("--strategy", opt->strategy,
                  "dart (path conditions), rsc (relevant slice conditions) or "
                  "naive-rsc (default dart)");
  cmd->add_option("--max-runs", opt->explore.maxRuns, "Stop after this many runs (default 100)");
  cmd->add_option("--budget,--time-budget", opt->explore.timeBudgetSeconds,
                  "Stop after this many seconds, replay and solver included (default 60, 0: none)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--loop-bound", opt->explore.loopBound,
                  "Do not negate a branch beyond its K-th instance on a "
                  "path (default: no bound; 4 with --function)");
  cmd->add_option("--solver-timeout", opt->explore.solverTimeoutMs,
                  "Milliseconds per solver query (default 5000)");
  cmd->add_option("--timeout", opt->explore.runTimeoutSeconds,
                  "Seconds per program run (default 10)");
  cmd->add_flag("!--no-bugs", opt->explore.findBugs, "Do not ask the solver for crashing inputs");
  cmd->add_option("--criterion", opt->explore.criterion,
                  "What relevant slice conditions are computed for: "
                  "output (default), output:N, FILE:LINE or crash");
  cmd->add_flag("--signature", opt->signature,
                "Print the semantic signature: every (RSC, symbolic output) pair "
                "found");
  cmd->add_option("--function", opt->unit.function,
                  "Unit mode: explore this function with symbolic arguments and globals "
                  "through a generated driver, and write cmocka unit tests to DIR/unit");
  cmd->add_option("--max-depth", opt->unit.maxDepth,
                  "Unit mode: pointer chains of lazily initialised arguments (default 2)");
  cmd->add_option("--max-objects", opt->unit.maxObjects,
                  "Unit mode: fresh objects per struct type (default 3)");
  cmd->add_option("--max-array", opt->unit.maxArray,
                  "Unit mode: elements behind a pointer to a scalar (default 4)");
  cmd->add_option("--max-string", opt->unit.maxString,
                  "Unit mode: characters of a string argument (default 4)");
  cmd->add_option("--shards", opt->shards,
                  "Explore in rounds of N shards, each a work unit with part of the queued "
                  "inputs and a share of the budget (docs/explore.md \"Shards\"); with "
                  "--engine slurm, as job arrays")
      ->check(CLI::Range(1u, 256u));
  cmd->add_option("--shard", opt->shardFile,
                  "Run one shard of a sharded exploration from its frontier file and print its "
                  "whole result as JSON (what --shards' units run)");
  addFanOutOptions(*cmd, opt->fanOut);
  cmd->add_option("args", opt->args, "Seed program arguments (after --)");
  cmd->footer("Writes DIR/test-NNNN/{stdin,expected.stdout,expected.outcome,test.json} and "
              "DIR/summary.{md,json}.\n"
              "Exit status: 0 no bug found, 1 bugs found (listed on stderr), 2 bad input.\n"
              "Unit mode (--function NAME) also writes DIR/unit/: driver.c, test_NAME.c and\n"
              "crash_NAME.c (cmocka), CMakeLists.txt and cases.json. Pointers are built lazily\n"
              "(NULL, fresh or an alias), a tagged union per tag, a void * per tag value as\n"
              "the type the code casts it to, a function pointer as the solver picks.\n"
              "Branches on strlen, strcmp, strncmp, memcmp, strchr, strrchr, strstr, memchr,\n"
              "atoi/strtol and ctype (isdigit, toupper, ...) are explored; a libc call that\n"
              "still makes a symbolic value concrete is named in a note.\n"
              "Example: rootline explore --src prog.c --stdin seed.txt --out tests/generated "
              "--max-runs 200\n"
              "         rootline explore --src list.c --function list_sum --strategy rsc --out t");
  cmd->callback(
      [&global, &action, opt] { action = [&global, opt] { return runExplore(global, *opt); }; });
}

} // namespace rootline::cli
