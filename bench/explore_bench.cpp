// Exploration benchmark: DART's runs per second, solver time share and branch
// coverage, against a random-input baseline given the same number of runs. Random
// inputs keep the seed's shape: every input variable of the seed run (scanf token,
// stdin byte, argv byte) gets a random value.
#include "rootline/explore.h"

#include <llvm/IR/Module.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <random>

using namespace rootline;

namespace {

struct Subject {
  std::string name;
  fs::path dir, source, seed;
  unsigned loopBound = 0;
};

size_t randomCoverage(const TracedProgram &p, const ProgramInput &seed, unsigned runs,
                      std::mt19937_64 &rng) {
  LoadedModule m = loadModule(p.module.bitcode);
  ModuleIndex index(*m.module);
  z3::context ctx;
  fs::path work = makeWorkDir("bench-random");
  SymbolicTrace first = traceSymbolic(p, *m.module, index, seed, ctx, work / "seed", 10);
  std::set<std::pair<uint32_t, uint32_t>> covered = first.branchesCovered;
  std::uniform_int_distribution<int64_t> small(-20, 20), full(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<int> coin(0, 1), byte(1, 255);
  for (unsigned i = 1; i < runs; ++i) {
    z3::solver s(ctx);
    for (const auto &v : first.symbolic.inputs) {
      int64_t value =
          v.kind == InputVar::Kind::Token ? (coin(rng) ? small(rng) : full(rng)) : byte(rng);
      s.add(ctx.bv_const(v.name.c_str(), v.bits) == ctx.bv_val(value, v.bits));
    }
    if (s.check() != z3::sat)
      continue;
    ProgramInput in = applyModel(seed, first.symbolic.inputs, s.get_model());
    SymbolicTrace t =
        traceSymbolic(p, *m.module, index, in, ctx, work / ("r" + std::to_string(i)), 10);
    covered.insert(t.branchesCovered.begin(), t.branchesCovered.end());
  }
  fs::remove_all(work);
  return covered.size();
}

} // namespace

int main(int argc, char **argv) {
  fs::path root = fs::path(ROOTLINE_SOURCE_DIR) / "fixtures";
  unsigned maxRuns = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 60;
  std::vector<Subject> subjects = {
      {"paper_fig1", root / "programs/paper_fig1", root / "programs/paper_fig1/main.c",
       root / "programs/paper_fig1/input.txt", 0},
      {"symbolic_index", root / "programs/symbolic_index", root / "programs/symbolic_index/main.c",
       root / "programs/symbolic_index/input.txt", 0},
      {"no_bugs_branches", root / "explore/no_bugs_branches",
       root / "explore/no_bugs_branches/main.c", root / "explore/no_bugs_branches/seed.txt", 0},
      {"artemis_div", root / "explore/artemis_div", root / "explore/artemis_div/main.c",
       root / "explore/artemis_div/seed.txt", 0},
      {"array_get", root / "explore/array_get", root / "explore/array_get/main.c",
       root / "explore/array_get/seed.txt", 0},
      {"quicksort", root / "explore/quicksort", root / "explore/quicksort/main.c",
       root / "explore/quicksort/seed.txt", 2},
      {"primes", root / "explore/primes", root / "explore/primes/main.c",
       root / "explore/primes/seed.txt", 2},
  };
  std::mt19937_64 rng(12345);
  std::printf("%-18s %5s %8s %11s %13s %13s %9s\n", "fixture", "runs", "runs/s", "solver %",
              "DART branches", "random branch", "ratio");
  for (const auto &s : subjects) {
    TracedProgram p = buildTraced(BuildRecipe{{{s.source, {}, s.dir}}, {}, "bench"});
    ProgramInput seed{readFile(s.seed), {}};
    ExploreOptions opt;
    opt.maxRuns = maxRuns;
    opt.loopBound = s.loopBound;
    opt.timeBudgetSeconds = 120;
    ExploreResult r = explore(p, seed, opt);
    size_t random = randomCoverage(p, seed, r.stats.runs, rng);
    std::printf(
        "%-18s %5u %8.1f %10.1f%% %7zu/%-5zu %7zu/%-5zu %8.2fx\n", s.name.c_str(), r.stats.runs,
        r.stats.runs / r.stats.totalSeconds, 100.0 * r.stats.solverSeconds / r.stats.totalSeconds,
        r.stats.branchesCovered, r.stats.branchesTotal, random, r.stats.branchesTotal,
        random ? static_cast<double>(r.stats.branchesCovered) / static_cast<double>(random) : 0.0);
  }
  return 0;
}
