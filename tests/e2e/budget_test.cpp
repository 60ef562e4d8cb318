// The debugger within a budget (docs/debug.md, "Budget"): stages that reach their share
// stop and say so, a ranking comes out anyway, and symbolic replay builds expressions
// only where the slice needs them, never asking the solver.
#include "rootline/alignment.h"
#include "rootline/debug.h"
#include "rootline/error.h"
#include "rootline/explore.h"
#include "rootline/module_index.h"
#include "rootline/run.h"
#include "rootline/slice.h"
#include "rootline/validate.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <dlfcn.h>
#include <unistd.h>
#include <z3.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

using namespace rootline;
using namespace rootline::test;

// Every solver Z3 creates or checks for rootline's code in this test binary is counted:
// these definitions interpose on libz3's (the executable's symbols come first).
namespace {
std::atomic<unsigned> solversMade{0}, solverChecks{0};
template <typename F> F next(const char *name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}
} // namespace

extern "C" {
Z3_solver Z3_API Z3_mk_solver(Z3_context c) {
  ++solversMade;
  return next<Z3_solver (*)(Z3_context)>("Z3_mk_solver")(c);
}
Z3_solver Z3_API Z3_mk_simple_solver(Z3_context c) {
  ++solversMade;
  return next<Z3_solver (*)(Z3_context)>("Z3_mk_simple_solver")(c);
}
Z3_lbool Z3_API Z3_solver_check(Z3_context c, Z3_solver s) {
  ++solverChecks;
  return next<Z3_lbool (*)(Z3_context, Z3_solver)>("Z3_solver_check")(c, s);
}
Z3_lbool Z3_API Z3_solver_check_assumptions(Z3_context c, Z3_solver s, unsigned n,
                                            Z3_ast const assumptions[]) {
  ++solverChecks;
  return next<Z3_lbool (*)(Z3_context, Z3_solver, unsigned, Z3_ast const[])>(
      "Z3_solver_check_assumptions")(c, s, n, assumptions);
}
}

namespace {

DebugRequest requestFor(const RegressionFixture &r, double budget) {
  DebugRequest req = debugRequest(r);
  req.budgetSeconds = budget;
  return req;
}

const DebugCandidate *truthIn(const DebugReport &rep, const RegressionFixture &r) {
  for (const auto &c : rep.candidates)
    if (c.version == r.rootVersion && c.line == static_cast<unsigned>(r.rootLine) &&
        c.file == r.rootFile)
      return &c;
  return nullptr;
}

bool anyNote(const DebugReport &rep, const std::string &text) {
  return std::any_of(rep.notes.begin(), rep.notes.end(),
                     [&](const std::string &n) { return n.find(text) != std::string::npos; });
}

const StageRecord *stage(const DebugReport &rep, const std::string &name) {
  for (const auto &s : rep.stages)
    if (s.name == name)
      return &s;
  return nullptr;
}

} // namespace

TEST_CASE("a one-second budget on a stress fixture still ranks the cause, with the cut-short "
          "stages named",
          "[debug][budget]") {
  RegressionFixture r = regressionFixture("stress_long_run");
  DebugReport rep = debugRegression(requestFor(r, 1));
  REQUIRE_FALSE(rep.candidates.empty());
  const DebugCandidate *truth = truthIn(rep, r);
  REQUIRE(truth != nullptr);
  CHECK(truth->rank == 1);
  CHECK(truth->evidenceLevel() == "none");
  // Replay of a run of millions of instances does not fit one second: the trace stage
  // says where it stopped, and the report says the stage was cut.
  const StageRecord *trace = stage(rep, "trace");
  REQUIRE(trace != nullptr);
  CHECK_FALSE(trace->complete);
  CHECK(trace->note.find("instances") != std::string::npos);
  CHECK(anyNote(rep, "budget: the trace stage stopped at its share"));
  for (const char *name : {"build", "failure", "trace", "criteria", "slice", "first ranking",
                           "revert", "symbolic", "compose", "evidence", "rank", "unit test"})
    CHECK(stage(rep, name) != nullptr);
  nlohmann::json j = reportJson(rep);
  CHECK(j["stats"]["budget_seconds"] == 1.0);
  CHECK(j["stages"].size() == rep.stages.size());
  CHECK(j["candidates"][0]["evidence_level"] == "none");
  CHECK(reportSummary(rep).find("rootline: budget: trace stopped early") != std::string::npos);
}

TEST_CASE("long symbolic chains are made concrete past the node cap, and symbolic replay "
          "stops where composition could use no more",
          "[debug][budget]") {
  RegressionFixture r = regressionFixture("stress_lcg_loop");
  DebugReport rep = debugRegression(requestFor(r, 30)); // room for a sanitizer build
  const DebugCandidate *truth = truthIn(rep, r);
  REQUIRE(truth != nullptr);
  CHECK(truth->rank == 1);
  // r = (a * r + b) % m, 100000 times: every value past the cap is concrete; one note
  // counts them and names the busiest lines, in repository paths.
  CHECK(anyNote(rep, "their expressions outgrew 4096 nodes: main.c:"));
  const StageRecord *symbolic = stage(rep, "symbolic");
  REQUIRE(symbolic != nullptr);
  CHECK_FALSE(symbolic->complete);
  CHECK(symbolic->note.find("all a composition can use") != std::string::npos);
}

TEST_CASE("every stress fixture ranks its cause first within a budget",
          "[debug][budget][stress][sweep]") {
  std::vector<RegressionFixture> stress;
  for (auto &r : regressionFixtures())
    if (r.program.hasTag("stress"))
      stress.push_back(std::move(r));
  REQUIRE(stress.size() >= 2);
  for (const auto &r : sampledInCI(stress)) {
    DYNAMIC_SECTION(r.name) {
      DebugReport rep = debugRegression(requestFor(r, 20));
      const DebugCandidate *truth = truthIn(rep, r);
      INFO(r.name << ": rank 1 is "
                  << (rep.candidates.empty()
                          ? std::string("nothing")
                          : rep.candidates[0].file + ":" + std::to_string(rep.candidates[0].line)));
      REQUIRE(truth != nullptr);
      CHECK(truth->rank == 1);
    }
  }
}

TEST_CASE("symbolic replay of a table-driven lexer never calls the solver", "[symbolic][budget]") {
  // The class of each input byte comes from a constant table through a symbolic index:
  // an `ite` over the table, not a solver query per load.
  TempDir t;
  BuildRecipe recipe = sourceRecipe(t.path / "lex.c", R"(#include <stdio.h>
static const unsigned char cls[256] = {['a'] = 1, ['b'] = 1, ['c'] = 1, ['0'] = 2, ['1'] = 2,
                                       [' '] = 3, ['\n'] = 3};
int main(void) {
  int c, words = 0, digits = 0, other = 0;
  while ((c = getchar()) != EOF) {
    unsigned char k = cls[c];
    if (k == 1) words++;
    else if (k == 2) digits++;
    else if (k != 3) other++;
  }
  printf("%d %d %d\n", words, digits, other);
  return 0;
}
)");
  TracedProgram p = buildTraced(recipe);
  LoadedModule module = loadModule(p.module.bitcode);
  ModuleIndex index(*module.module);
  z3::context ctx;
  std::string input;
  for (int i = 0; i < 200; ++i)
    input += "ab 10 c?\n";
  unsigned made = solversMade, checks = solverChecks;
  SymbolicTrace trace = traceSymbolic(p, *module.module, index, {input, {}}, ctx, t.path / "w", 30);
  CHECK(solversMade == made);
  CHECK(solverChecks == checks);
  // Every byte's class test is a constraint over that byte, through the table.
  REQUIRE(trace.symbolic.path.size() >= input.size());
  std::string first = trace.symbolic.path[1].taken.to_string();
  INFO(first);
  CHECK(first.find("ite") != std::string::npos);
  CHECK(first.find("stdin@") != std::string::npos);
  CHECK(first.find("store") == std::string::npos); // the table, not an array of unknowns
  // The counting itself works: a solver check elsewhere is seen.
  z3::solver s(ctx);
  s.add(trace.symbolic.path[1].taken);
  CHECK(s.check() == z3::sat);
  CHECK(solverChecks == checks + 1);
}

TEST_CASE("slice-directed symbolic replay gives the relevant slice condition of full replay",
          "[symbolic][budget]") {
  for (const char *name :
       {"discount_threshold", "b3_grade_switch", "b2_gcd_list", "b4_rpn_stack"}) {
    DYNAMIC_SECTION(name) {
      RegressionFixture r = regressionFixture(name);
      TracedProgram p = buildTraced(r.program.recipeIn(r.dir / "new"));
      LoadedModule module = loadModule(p.module.bitcode);
      ModuleIndex index(*module.module);
      StaticAnalysis analysis(*module.module, index);
      z3::context ctx;
      TempDir t;
      ProgramInput in{r.program.stdinFile ? readFile(*r.program.stdinFile) : "", r.program.args};
      TracedRun run;
      {
        fs::create_directories(t.path);
        writeText(t.path / "stdin", in.stdinBytes);
        TestCase test;
        test.stdinFile = t.path / "stdin";
        test.args = in.args;
        run = runTraced(p, test, t.path / "run.trace");
      }
      DependenceRecorder deps(index, analysis);
      SymbolicReplayer full(ctx, *module.module);
      ReplayFanout both({&deps, &full});
      TraceReader reader(run.trace, p.module.key);
      replayTrace(*module.module, index, reader, &both);
      DynamicTrace dyn = deps.take();
      SymbolicRun whole = full.take();
      Slice slice = computeSlice(dyn, index, analysis, resolveCriterion("output", dyn, index));
      std::vector<PathConstraint> expected = relevantSliceCondition(whole, slice);

      SymbolicOptions only;
      only.only = &slice.member;
      SymbolicReplayer directed(ctx, *module.module, only);
      TraceReader again(run.trace, p.module.key);
      replayTrace(*module.module, index, again, &directed);
      SymbolicRun part = directed.take();
      REQUIRE(part.path.size() == expected.size());
      for (size_t i = 0; i < expected.size(); ++i) {
        CHECK(part.path[i].instance == expected[i].instance);
        z3::solver s(ctx);
        s.add(part.path[i].taken != expected[i].taken);
        CHECK(s.check() == z3::unsat);
      }
      // Fewer expressions: only the slice's instances got one.
      CHECK(part.expressions <= whole.expressions);
    }
  }
}

TEST_CASE("rootline debug --budget: JSON names the stages, a negative budget is refused",
          "[debug][budget][cli]") {
  RegressionFixture r = regressionFixture("discount_threshold");
  ProcessResult ok = runRootline({"--json", "debug", "--budget", "30", "--old",
                                  (r.dir / "old").string(), "--new", (r.dir / "new").string(),
                                  "--src", "main.c", "--stdin", r.program.stdinFile->string()});
  REQUIRE(ok.exitedWith(0));
  nlohmann::json j = nlohmann::json::parse(ok.out);
  CHECK(j["stats"]["budget_seconds"] == 30.0);
  std::vector<std::string> names;
  for (const auto &st : j["stages"])
    names.push_back(st["name"]);
  CHECK(names == std::vector<std::string>{"build", "failure", "trace", "criteria", "slice",
                                          "first ranking", "compiler warnings", "memory", "align",
                                          "revert", "symbolic", "compose", "evidence", "rank",
                                          "unit test"});
  CHECK(j["candidates"][0]["evidence_level"] == "runs");
  CHECK(ok.err.empty()); // --json: no progress
  ProcessResult bad = runRootline({"debug", "--budget", "-3", "--old", (r.dir / "old").string(),
                                   "--new", (r.dir / "new").string(), "--src", "main.c"});
  CHECK(bad.exitedWith(2));
  CHECK(bad.err.find("--budget") != std::string::npos);
}

TEST_CASE("validate within a budget: a replay cut short proves nothing and says so",
          "[validate][budget]") {
  // The fix is the good version itself, so with time enough it would be proved; a
  // one-second budget cannot replay millions of instances, and the verdict must not
  // claim a proof it did not make.
  RegressionFixture r = regressionFixture("stress_long_run");
  ValidateRequest req;
  req.goodRoot = req.fixRoot = r.dir / "old";
  req.badRoot = r.dir / "new";
  req.goodRecipe = req.fixRecipe = r.program.recipeIn(r.dir / "old");
  req.badRecipe = r.program.recipeIn(r.dir / "new");
  req.input = {readFile(*r.program.stdinFile), r.program.args};
  req.budgetSeconds = 1;
  ValidateReport rep = validateFix(req);
  CHECK(rep.testPasses);
  CHECK_FALSE(rep.accepted);
  CHECK(rep.proof.find("time budget") != std::string::npos);
  CHECK(rep.neighboursTried == 0);
  REQUIRE_FALSE(rep.notes.empty());
  CHECK(rep.notes.back().rfind("budget: ", 0) == 0);
  CHECK(validateSummary(rep).find("rootline: budget: ") != std::string::npos);
}

TEST_CASE("validate --budget on a small fix proves it as before", "[validate][budget][cli]") {
  RegressionFixture r = regressionFixture("discount_threshold");
  ProcessResult ok =
      runRootline({"--json", "validate", "--budget", "30", "--old", (r.dir / "old").string(),
                   "--new", (r.dir / "new").string(), "--fix", (r.dir / "old").string(), "--src",
                   "main.c", "--stdin", r.program.stdinFile->string()});
  INFO(ok.out << ok.err);
  REQUIRE(ok.exitedWith(0));
  nlohmann::json j = nlohmann::json::parse(ok.out);
  CHECK(j["accepted"] == true);
  CHECK(j["proof"]["result"] == "proved");
  CHECK(ok.err.empty()); // --json: no progress
}

TEST_CASE("explore within a budget stops, says what it cut, and keeps what it found",
          "[explore][budget]") {
  RegressionFixture r = regressionFixture("stress_long_run");
  TracedProgram p = buildTraced(r.program.recipeIn(r.dir / "old"));
  ExploreOptions options;
  options.timeBudgetSeconds = 1;
  ExploreResult res = explore(p, {readFile(*r.program.stdinFile), r.program.args}, options);
  // The seed's replay alone outlasts one second: nothing half-replayed is recorded.
  CHECK(res.stats.runs == 1);
  CHECK(res.tests.empty());
  REQUIRE(res.notes.size() == 1);
  CHECK(res.notes[0].find("stopped at the time budget") != std::string::npos);
  CHECK(summaryJson(res)["notes"].size() == 1);
  CHECK(summaryMarkdown(res, "main.c").find(res.notes[0]) != std::string::npos);
}

TEST_CASE("replay stops at its dependence records' memory cap with what it recorded, and "
          "debug says so instead of running out of memory",
          "[debug][budget][memory][long]") {
  RegressionFixture r = regressionFixture("stress_long_run"); // ~8.7 M instances
  TracedProgram p = buildTraced(r.program.recipeIn(r.dir / "new"));
  LoadedModule module = loadModule(p.module.bitcode);
  ModuleIndex index(*module.module);
  StaticAnalysis analysis(*module.module, index);
  TempDir t;
  TestCase test;
  test.stdinFile = *r.program.stdinFile;
  TracedRun run = runTraced(p, test, t.path / "run.trace");
  constexpr uint64_t kCap = uint64_t{4} << 20;
  DependenceRecorder capped(index, analysis, kCap);
  ReplayResult stopped;
  {
    TraceReader reader(run.trace, p.module.key);
    stopped = replayTrace(*module.module, index, reader, &capped);
  }
  CHECK(stopped.outcome == RunOutcome::Stopped);
  CHECK(capped.reachedCap());
  // Checked every 16 Ki instances: past the cap by at most one growth of the arrays.
  CHECK(capped.bytes() > kCap);
  CHECK(capped.bytes() <= 3 * kCap);
  DynamicTrace prefix = capped.take();
  CHECK(prefix.records.size() == stopped.instances);
  CHECK(stopped.instances > 10000);
  // Without the cap the same trace replays to its end, and its first records are the
  // capped run's records.
  DependenceRecorder whole(index, analysis, uint64_t{1} << 40);
  ReplayResult done;
  {
    TraceReader reader(run.trace, p.module.key);
    done = replayTrace(*module.module, index, reader, &whole);
  }
  CHECK(done.outcome == RunOutcome::Exit);
  CHECK_FALSE(whole.reachedCap());
  DynamicTrace all = whole.take();
  REQUIRE(all.records.size() > prefix.records.size());
  for (size_t i = 0; i < prefix.records.size(); i += 997) {
    CHECK(all.records.id(i) == prefix.records.id(i));
    CHECK(all.records.parent(i) == prefix.records.parent(i));
  }

  // debug with the cap from the environment: the trace stage is cut and says why, and the
  // report still comes out.
  struct CapFromEnv {
    CapFromEnv() { ::setenv("ROOTLINE_DEPENDENCE_CAP_MB", "4", 1); }
    ~CapFromEnv() { ::unsetenv("ROOTLINE_DEPENDENCE_CAP_MB"); }
  } env;
  CHECK(dependenceByteCap() == kCap);
  ::setenv("ROOTLINE_DEPENDENCE_CAP_MB", "lots", 1); // not a number: the default
  uint64_t fallback = dependenceByteCap();
  CHECK(fallback == static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
                        static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) / 4);
  ::setenv("ROOTLINE_DEPENDENCE_CAP_MB", "4", 1);
  DebugReport rep = debugRegression(requestFor(r, 60));
  const StageRecord *trace = stage(rep, "trace");
  REQUIRE(trace != nullptr);
  CHECK_FALSE(trace->complete);
  INFO(trace->note);
  CHECK(trace->note.find("memory cap of 4 MiB") != std::string::npos);
  CHECK(trace->note.find("ROOTLINE_DEPENDENCE_CAP_MB") != std::string::npos);
}

TEST_CASE("the alignment replay stops at its execution log's memory cap with the executions "
          "it logged",
          "[align][budget][memory]") {
  RegressionFixture r = regressionFixture("stress_long_run"); // ~8.7 M instances
  TracedProgram p = buildTraced(r.program.recipeIn(r.dir / "new"));
  LoadedModule module = loadModule(p.module.bitcode);
  ModuleIndex index(*module.module);
  TempDir t;
  TestCase test;
  test.stdinFile = *r.program.stdinFile;
  TracedRun run = runTraced(p, test, t.path / "run.trace");
  // Every line is wanted, each named by its line number.
  auto lineOf = [](const llvm::Instruction *inst) -> AlignedLine {
    return ModuleIndex::locationOf(inst).line;
  };
  auto all = [](AlignedLine) { return true; };
  constexpr uint64_t kCap = uint64_t{2} << 20;
  LineExecutionRecorder capped(index, lineOf, all, nullptr, {}, kCap);
  ReplayResult stopped;
  {
    TraceReader reader(run.trace, p.module.key);
    stopped = replayTrace(*module.module, index, reader, &capped);
  }
  CHECK(stopped.outcome == RunOutcome::Stopped);
  CHECK(capped.reachedCap());
  CHECK(capped.capText() == "its execution log reached its memory cap of 2 MiB "
                            "(ROOTLINE_ALIGN_CAP_MB)");
  ExecutionLog log = capped.take();
  CHECK(log.executions.size() > 1000);
  CHECK(log.executions.back().last < stopped.instances);

  // The cap from the environment; a value that is not a number leaves the default, an
  // eighth of the machine's memory.
  ::setenv("ROOTLINE_ALIGN_CAP_MB", "3", 1);
  CHECK(executionLogByteCap() == uint64_t{3} << 20);
  ::setenv("ROOTLINE_ALIGN_CAP_MB", "-1x", 1);
  CHECK(executionLogByteCap() == static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
                                     static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) / 8);
  ::unsetenv("ROOTLINE_ALIGN_CAP_MB");
}

TEST_CASE("a traced run whose time runs out before its trace begins is cut short for a search "
          "and a one-line error elsewhere",
          "[budget][run]") {
  // A search's last run gets what is left of its budget; on a busy machine the program
  // may not have begun its trace when that ends. `sleep` stands for such a program: it
  // writes no trace.
  TempDir t;
  TracedProgram program;
  program.instrumentedExe = "/bin/sleep";
  TestCase test;
  test.args = {"5"};
  test.timeoutSeconds = 0.3;
  TracedRun run = runTraced(program, test, t.path / "run.trace", /*timeoutBeforeTrace=*/true);
  CHECK(run.untraced);
  CHECK(run.process.timedOut);
  try {
    runTraced(program, test, t.path / "run.trace");
    FAIL("a run that wrote no trace was taken");
  } catch (const Error &e) {
    CHECK(std::string(e.what()).find("ran out before it began its trace") != std::string::npos);
  }
}
