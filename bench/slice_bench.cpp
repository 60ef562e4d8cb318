// Slicing benchmark, in the shape of the paper's table 1: RSC exploration against
// DART on the same programs (runs, solver calls, formula bytes, time, partitions), all
// measured in one run; then slicing throughput in trace instances per second and its
// growth with trace length; and the relevant slice of the output of a real project's run
// (mujs, 16 kLOC, running bench/mujs_workload.js), stage by stage, against the 10 s target.
#include "real_project.h"
#include "rootline/explore.h"

#include <llvm/IR/Module.h>

#include <chrono>
#include <cstdio>

#include <sys/resource.h>

using namespace rootline;

namespace {

struct Subject {
  const char *name;
  fs::path source, seed;
  unsigned loopBound;
};

double seconds(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void table(const std::vector<Subject> &subjects, unsigned maxRuns) {
  std::printf("%-18s | %5s %6s %10s %7s %5s | %5s %6s %10s %7s %5s | %6s\n", "program", "runs",
              "calls", "bytes", "time", "parts", "runs", "calls", "bytes", "time", "parts",
              "speed");
  std::printf("%-18s | %-37s | %-37s |\n", "", "DART", "RSC exploration");
  for (const auto &s : subjects) {
    TracedProgram p =
        buildTraced(BuildRecipe{{{s.source, {}, s.source.parent_path()}}, {}, "bench"});
    ProgramInput seed{readFile(s.seed), {}};
    ExploreOptions opt;
    opt.maxRuns = maxRuns;
    opt.loopBound = s.loopBound;
    opt.findBugs = false;
    opt.timeBudgetSeconds = 120;
    ExploreResult d = explore(p, seed, opt);
    opt.strategy = Strategy::Rsc;
    ExploreResult r = explore(p, seed, opt);
    std::printf("%-18s | %5u %6u %10llu %6.2fs %5u | %5u %6u %10llu %6.2fs %5u | %5.1fx\n", s.name,
                d.stats.runs, d.stats.solverCalls,
                static_cast<unsigned long long>(d.stats.formulaBytes), d.stats.totalSeconds,
                d.stats.partitions, r.stats.runs, r.stats.solverCalls,
                static_cast<unsigned long long>(r.stats.formulaBytes), r.stats.totalSeconds,
                r.stats.partitions, d.stats.totalSeconds / r.stats.totalSeconds);
  }
}

// Slices the output of the stress program at several input sizes.
void throughput(const fs::path &root) {
  fs::path dir = makeWorkDir("bench-slice");
  writeFileAtomic(dir / "loop.c",
                  "#include <stdio.h>\nint main(void) { int n, s = 0, a[64] = {0};\n"
                  "  if (scanf(\"%d\", &n) != 1) return 1;\n"
                  "  for (int i = 0; i < n; i++) { a[i & 63] += i; if (a[i & 7] > 1000) s++; }\n"
                  "  printf(\"%d %d\\n\", s, a[5]);\n  return 0;\n}\n");
  TracedProgram p = buildTraced(BuildRecipe{{{dir / "loop.c", {}, dir}}, {}, "bench"});
  LoadedModule m = loadModule(p.module.bitcode);
  ModuleIndex index(*m.module);
  StaticAnalysis analysis(*m.module, index);
  std::printf("\n%-10s %12s %14s %14s\n", "n", "instances", "slice s", "instances/s");
  double first = 0;
  for (unsigned n : {25000u, 50000u, 100000u, 200000u}) {
    writeFileAtomic(dir / "in.txt", std::to_string(n) + "\n");
    TestCase test;
    test.stdinFile = dir / "in.txt";
    TracedRun run = runTraced(p, test, dir / "run.trace");
    DependenceRecorder deps(index, analysis);
    TraceReader reader(run.trace, p.module.key);
    replayTrace(*m.module, index, reader, &deps);
    DynamicTrace dyn = deps.take();
    auto seeds = resolveCriterion("output", dyn, index);
    auto t0 = std::chrono::steady_clock::now();
    Slice s = computeSlice(dyn, index, analysis, seeds);
    double sec = seconds(t0);
    double rate = static_cast<double>(dyn.records.size()) / sec;
    if (!first)
      first = rate;
    std::printf("%-10u %12zu %13.4fs %14.3g  (%.2fx the rate at the smallest n; %zu in slice)\n", n,
                dyn.records.size(), sec, rate, rate / first, s.size());
  }
  fs::remove_all(dir);
  (void)root;
}

} // namespace

// The relevant slice of a real interpreter's output: concrete replay with dependences,
// the slice, then the slice-directed symbolic replay for its condition (as `rootline
// slice` and `debug` do).
void realProject() {
  fs::path work = makeWorkDir("bench-real");
  auto tree = bench::mujsTree(bench::kMujsCommit, work);
  if (!tree) {
    fs::remove_all(work);
    return;
  }
  TracedProgram p = buildTraced(tree->recipe);
  TestCase test;
  test.stdinFile = bench::mujsWorkload();
  test.timeoutSeconds = 600;
  auto t0 = std::chrono::steady_clock::now();
  TracedRun run = runTraced(p, test, work / "run.trace");
  double traced = seconds(t0);
  LoadedModule m = loadModule(p.module.bitcode);
  ModuleIndex index(*m.module);
  StaticAnalysis analysis(*m.module, index);
  auto t1 = std::chrono::steady_clock::now();
  DependenceRecorder deps(index, analysis);
  {
    TraceReader reader(run.trace, p.module.key);
    replayTrace(*m.module, index, reader, &deps);
  }
  DynamicTrace dyn = deps.take();
  double replayed = seconds(t1);
  auto t2 = std::chrono::steady_clock::now();
  Slice slice = computeSlice(dyn, index, analysis, resolveCriterion("output", dyn, index));
  double sliced = seconds(t2);
  auto t3 = std::chrono::steady_clock::now();
  z3::context ctx;
  SymbolicOptions options;
  options.only = &slice.member;
  options.bugChecks = false;
  SymbolicReplayer sym(ctx, *m.module, options);
  {
    TraceReader reader(run.trace, p.module.key);
    replayTrace(*m.module, index, reader, &sym);
  }
  SymbolicRun symbolic = sym.take();
  size_t rsc = relevantSliceCondition(symbolic, slice).size();
  double symbolicSeconds = seconds(t3);
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("\nreal project: mujs %s running %s\n", bench::kMujsCommit,
              bench::mujsWorkload().filename().c_str());
  std::printf("%12s %9s %9s %9s %10s %9s %11s %10s\n", "instances", "trace s", "replay s",
              "slice s", "symbolic s", "total s", "in slice", "peak MB");
  std::printf("%12zu %9.2f %9.2f %9.2f %10.2f %9.2f %11zu %10ld  (%zu RSC constraints; target: "
              "slice of an output under 10 s, memory under 4 GB)\n",
              dyn.records.size(), traced, replayed, sliced, symbolicSeconds,
              traced + replayed + sliced + symbolicSeconds, slice.size(), usage.ru_maxrss / 1024,
              rsc);
  fs::remove_all(work);
}

int main(int argc, char **argv) {
  fs::path root = fs::path(ROOTLINE_SOURCE_DIR) / "fixtures";
  unsigned maxRuns = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 100;
  table({{"tcas", root / "bench/tcas/main.c", root / "bench/tcas/seed.txt", 0},
         {"paper_fig1", root / "programs/paper_fig1/main.c", root / "programs/paper_fig1/input.txt",
          0},
         {"symbolic_index", root / "programs/symbolic_index/main.c",
          root / "programs/symbolic_index/input.txt", 0},
         {"no_bugs_branches", root / "explore/no_bugs_branches/main.c",
          root / "explore/no_bugs_branches/seed.txt", 0},
         {"array_get", root / "explore/array_get/main.c", root / "explore/array_get/seed.txt", 0},
         {"quicksort", root / "explore/quicksort/main.c", root / "explore/quicksort/seed.txt", 2},
         {"null_list", root / "explore/null_list/main.c", root / "explore/null_list/seed.txt", 2}},
        maxRuns);
  throughput(root);
  realProject();
  return 0;
}
