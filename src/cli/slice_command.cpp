// rootline slice: the relevant slice of one run for a criterion, as source lines, with
// its relevant slice condition next to the path condition.
#include "cli/cli.h"
#include "rootline/error.h"
#include "rootline/expr_text.h"
#include "rootline/json_text.h"
#include "rootline/progress.h"
#include "rootline/run.h"
#include "rootline/slice.h"
#include "rootline/solver_context.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <map>

namespace rootline::cli {

namespace {

// Runs up to this long get their whole path condition without --pc.
constexpr size_t kWholePathInstances = 1000000;
constexpr size_t kShownConditionChars = 4000;

struct SliceOptions {
  RecipeRequest recipe;
  std::string stdinFile;
  std::vector<std::string> criteria;
  std::string smt2;
  bool dynamicOnly = false;
  bool pc = false;
  double timeout = 30;
  double budget = 60;
  std::vector<std::string> args;
};

struct LineEntry {
  std::string path;
  unsigned relevant = 0, dynamic = 0;
};

std::string sourceLine(const std::string &path, unsigned line) {
  static std::map<std::string, std::vector<std::string>> cache;
  auto &lines = cache[path];
  if (lines.empty()) {
    std::ifstream in(path);
    for (std::string l; std::getline(in, l);)
      lines.push_back(l);
  }
  if (line == 0 || line > lines.size())
    return "";
  std::string s = lines[line - 1];
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.erase(s.begin());
  return s;
}

std::string conjunctionText(const std::vector<PathConstraint> &cs,
                            const DisplayNames *names = nullptr) {
  return readableConjunction(cs, names);
}

int runSlice(const GlobalOptions &global, const SliceOptions &opt) {
  if (opt.criteria.empty())
    throw Error("--criterion is required (FILE:LINE, output, output:N or crash)");
  BuildRecipe recipe = resolveRecipe(opt.recipe);
  Progress progress = Progress::toStderr(!global.json && !global.quiet);
  progress.stage("build");
  TracedProgram program = buildTraced(recipe);
  Deadline budget = opt.budget > 0 ? Deadline::in(opt.budget) : Deadline::unlimited();
  std::vector<std::string> notes; // what the budget cut short
  TestCase test;
  test.stdinFile = stdinOption(opt.stdinFile);
  test.args = opt.args;
  test.timeoutSeconds = budget.clamp(opt.timeout);
  fs::path work = makeWorkDir("slice");
  progress.stage("trace");
  TracedRun run = runTraced(program, test, work / "run.trace");
  if (run.process.timedOut)
    throw Error("the program did not finish within --timeout (or the --budget)");

  LoadedModule loaded = loadModule(program.module.bitcode);
  ModuleIndex index(*loaded.module);
  StaticAnalysis analysis(*loaded.module, index);
  // Two passes, as in debug (DESIGN.md 2.8): a concrete replay records dependences and
  // gives the slices; a second, symbolic replay builds expressions for the relevant
  // slice's instances only. The whole path's condition (PC) needs every instance
  // symbolic: it comes with --pc, or when the run is short.
  auto progressOf = [&progress](uint64_t n) {
    progress.update(std::to_string(n) + " instances replayed");
  };
  DependenceRecorder deps(index, analysis);
  ReplayLimits concreteLimits;
  concreteLimits.deadline = budget.share(0.45);
  concreteLimits.progress = progressOf;
  progress.stage("replay");
  ReplayResult replayed;
  {
    TraceReader reader(run.trace, program.module.key);
    replayed = replayTrace(*loaded.module, index, reader, &deps, concreteLimits);
  }
  if (replayed.outcome == RunOutcome::Stopped)
    notes.push_back((deps.reachedCap()
                         ? "replay stopped after " + std::to_string(replayed.instances) +
                               " instances: " + deps.capText()
                         : "replay stopped at the budget after " +
                               std::to_string(replayed.instances) + " instances") +
                    "; the slice covers that prefix of the run");
  DynamicTrace dyn = deps.take();

  std::vector<CriterionSeed> seeds;
  for (const auto &c : opt.criteria) {
    try {
      for (auto &s : resolveCriterion(c, dyn, index))
        seeds.push_back(s);
    } catch (const Error &e) {
      if (replayed.outcome != RunOutcome::Stopped)
        throw;
      throw Error(std::string(e.what()) + " before replay stopped at --budget, after " +
                  std::to_string(replayed.instances) + " instances");
    }
  }
  progress.stage("slice");
  Slice relevant = computeSlice(dyn, index, analysis, seeds, true, budget.share(0.5));
  Slice dynamic = computeSlice(dyn, index, analysis, seeds, false, budget.share(0.5));
  for (const Slice *s : {&relevant, &dynamic})
    if (!s->complete)
      notes.push_back(std::string(s == &relevant ? "relevant" : "dynamic") +
                      " slice stopped at the budget " + std::to_string(s->stoppedAt) +
                      " instances from the start of the run");

  const Slice &conditioned = opt.dynamicOnly ? dynamic : relevant;
  bool wholePath = opt.pc || dyn.records.size() <= kWholePathInstances;
  SolverContext solver; // destroyed on the reaper thread (rootline/solver_context.h)
  z3::context &ctx = solver.get();
  SymbolicOptions symbolicOptions;
  symbolicOptions.only = wholePath ? nullptr : &conditioned.member;
  symbolicOptions.bugChecks = false;
  SymbolicReplayer sym(ctx, *loaded.module, symbolicOptions);
  ReplayLimits symbolicLimits;
  symbolicLimits.deadline = budget;
  symbolicLimits.progress = progressOf;
  progress.stage("symbolic");
  ReplayResult symbolicReplay;
  {
    TraceReader reader(run.trace, program.module.key);
    symbolicReplay = replayTrace(*loaded.module, index, reader, &sym, symbolicLimits);
  }
  fs::remove_all(work);
  if (symbolicReplay.outcome == RunOutcome::Stopped && replayed.outcome != RunOutcome::Stopped)
    notes.push_back("symbolic replay stopped at the budget after " +
                    std::to_string(symbolicReplay.instances) +
                    " instances; the conditions cover that prefix of the run");
  SymbolicRun symbolic = sym.take();
  for (const CappedValues &c : symbolic.capped) {
    // c.file is the whole path; shown as the sources were named, from here.
    fs::path rel = fs::path(c.file).lexically_relative(fs::current_path());
    std::string file = !rel.empty() && *rel.begin() != ".." ? rel.string() : c.file;
    notes.push_back(std::to_string(c.count) + " value(s) at " + file + ":" +
                    std::to_string(c.line) + " made concrete: their expressions outgrew " +
                    std::to_string(kDefaultMaxExprNodes) + " nodes");
  }
  std::vector<PathConstraint> rsc = relevantSliceCondition(symbolic, conditioned);

  std::map<std::pair<std::string, unsigned>, LineEntry> lines;
  for (uint64_t i = 0; i < dyn.records.size(); ++i) {
    bool inRel = relevant.contains(i), inDyn = dynamic.contains(i);
    if (!inRel && !inDyn)
      continue;
    SourceLocation loc = ModuleIndex::locationOf(index.instruction(dyn.records.id(i)));
    if (!loc.valid())
      continue;
    LineEntry &e = lines[{loc.file, loc.line}];
    e.path = loc.path();
    e.relevant += inRel;
    e.dynamic += inDyn;
  }
  progress.finish();
  // Inputs by the program's names; the solver's names stay in --smt2 and `rsc_smt`.
  DisplayNames names = displayNamesOf(symbolic.inputs);
  std::string rscText = conjunctionText(rsc, &names);
  std::string pcText = wholePath ? conjunctionText(symbolic.path, &names) : "";
  if (!opt.smt2.empty()) {
    z3::solver s(ctx);
    for (const auto &d : symbolic.domain)
      s.add(d);
    for (const auto &c : rsc)
      s.add(c.taken);
    writeFileAtomic(fs::absolute(opt.smt2), s.to_smt2());
  }
  if (global.json) {
    nlohmann::json jl = nlohmann::json::array();
    for (const auto &[key, e] : lines)
      jl.push_back({{"file", key.first},
                    {"line", key.second},
                    {"relevant_instances", e.relevant},
                    {"dynamic_instances", e.dynamic},
                    {"source", sourceLine(e.path, key.second)}});
    nlohmann::json j = {{"criteria", opt.criteria},
                        {"lines", jl},
                        {"relevant_slice_instances", relevant.size()},
                        {"dynamic_slice_instances", dynamic.size()},
                        {"trace_instances", dyn.records.size()},
                        {"rsc", rscText},
                        {"rsc_smt", conjunctionText(rsc)},
                        {"rsc_constraints", rsc.size()},
                        {"pc", wholePath ? nlohmann::json(pcText) : nlohmann::json(nullptr)},
                        {"pc_constraints", wholePath ? nlohmann::json(symbolic.path.size())
                                                     : nlohmann::json(nullptr)},
                        {"outcome", run.process.outcome()},
                        {"notes", notes}};
    std::cout << jsonText(j);
    return ExitOk;
  }
  std::cout << "relevant slice of";
  for (const auto &c : opt.criteria)
    std::cout << " " << c;
  std::cout << ": " << relevant.size() << " of " << dyn.records.size()
            << " instances (dynamic slice: " << dynamic.size() << ")\n";
  for (const auto &[key, e] : lines) {
    char head[160];
    std::snprintf(head, sizeof head, "  %s:%-4u %6ux %s ", key.first.c_str(), key.second,
                  e.relevant, e.dynamic ? " " : "+");
    std::cout << head << sourceLine(e.path, key.second) << "\n";
  }
  std::cout << "  (+ = only through potential dependences)\n";
  // A long condition is cut on the terminal; --smt2 and --json have it whole.
  auto shown = [](const std::string &text) {
    return text.size() <= kShownConditionChars
               ? text
               : text.substr(0, kShownConditionChars) + " ... (" +
                     std::to_string(text.size() - kShownConditionChars) +
                     " more characters; --smt2 FILE or --json has it whole)";
  };
  std::cout << "RSC (" << rsc.size() << " constraints): " << shown(rscText) << "\n";
  if (wholePath)
    std::cout << "PC  (" << symbolic.path.size() << " constraints): " << shown(pcText) << "\n";
  else
    std::cout << "PC  not computed: the run has " << dyn.records.size()
              << " instances, so only the slice was replayed symbolically (--pc computes it)\n";
  for (const auto &n : notes)
    std::cerr << "rootline: budget: " << n << "\n";
  return ExitOk;
}

} // namespace

void addSliceCommand(CLI::App &app, const GlobalOptions &global, Action &action) {
  auto opt = std::make_shared<SliceOptions>();
  CLI::App *cmd =
      app.add_subcommand("slice", "Print the relevant slice of one run for a criterion, with its "
                                  "relevant slice condition (RSC) and path condition (PC)");
  addRecipeOptions(*cmd, opt->recipe);
  cmd->add_option("--stdin", opt->stdinFile, "File fed to the program's stdin");
  cmd->add_option("--criterion", opt->criteria,
                  "FILE:LINE (values used at the line's last instance), output, "
                  "output:N (the N-th stdout line) or crash; repeatable")
      ->required();
  cmd->add_option("--smt2", opt->smt2, "Write the RSC as SMT-LIB2 to FILE");
  cmd->add_flag("--pc", opt->pc,
                "Also compute the whole path condition (replays every instance symbolically; "
                "automatic for runs of at most 10^6 instances)");
  cmd->add_flag("--dynamic", opt->dynamicOnly,
                "Use the dynamic slice (no potential dependences) for the condition");
  cmd->add_option("--timeout", opt->timeout, "Seconds before the program is stopped (default 30)");
  addBudgetOption(*cmd, opt->budget);
  cmd->add_option("args", opt->args, "Program arguments (after --)");
  cmd->footer("Example: rootline slice --src prog.c --stdin in.txt --criterion prog.c:42");
  cmd->callback(
      [&global, &action, opt] { action = [&global, opt] { return runSlice(global, *opt); }; });
}

} // namespace rootline::cli
