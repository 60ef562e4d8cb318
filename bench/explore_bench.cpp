// Exploration benchmark: DART's runs per second, solver time share and branch
// coverage, against a random-input baseline given the same number of runs. Random
// inputs keep the seed's shape: every input variable of the seed run (scanf token,
// stdin byte, argv byte) gets a random value.
#include "rootline/explore.h"

#include <llvm/IR/Module.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <random>
#include <set>

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

// The path keys of an explore --out directory's tests.
std::set<std::string> pathKeys(const fs::path &dir) {
  std::set<std::string> keys;
  for (const auto &e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("test-", 0) == 0)
      keys.insert(
          nlohmann::json::parse(readFile(e.path() / "test.json"))["path_key"].get<std::string>());
  return keys;
}

// explore --shards 4 -j 2 against one exploration with the same budget and runs, through
// the CLI, on programs whose exploration completes: the same set of paths, and the time
// ratio measured in this run. False when a set differs.
bool shardRows(const fs::path &root) {
  struct Case {
    std::string name, loopBound;
  };
  bool same = true;
  std::printf("\n%-18s %6s %9s %9s %9s %6s\n", "explore --shards 4", "paths", "one (s)", "4 shards",
              "speed-up", "same");
  for (const Case &c : {Case{"ctype_password", "2"}, Case{"ctype_password", "3"},
                        Case{"quicksort", "2"}, Case{"array_get", "0"}}) {
    fs::path dir = root / "explore" / c.name;
    std::string tmpl = (fs::temp_directory_path() / "rootline-explore-bench-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      return false;
    fs::path tmp = tmpl;
    double seconds[2] = {0, 0};
    for (int sharded = 0; sharded < 2; ++sharded) {
      ProcessSpec spec;
      spec.argv = {ROOTLINE_BINARY,
                   "-q",
                   "explore",
                   "--src",
                   (dir / "main.c").string(),
                   "--stdin",
                   (dir / "seed.txt").string(),
                   "--loop-bound",
                   c.loopBound,
                   "--max-runs",
                   "3000",
                   "--budget",
                   "600",
                   "--out",
                   (tmp / (sharded ? "sharded" : "one")).string()};
      if (sharded)
        spec.argv.insert(spec.argv.end(), {"--shards", "4", "-j", "2"});
      spec.timeoutSeconds = 1800;
      auto t0 = std::chrono::steady_clock::now();
      runProcess(spec);
      seconds[sharded] =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    std::set<std::string> one = pathKeys(tmp / "one"), sharded = pathKeys(tmp / "sharded");
    same = same && one == sharded;
    std::printf("%-13s lb=%s %6zu %9.2f %9.2f %8.2fx %6s\n", c.name.c_str(), c.loopBound.c_str(),
                one.size(), seconds[0], seconds[1], seconds[0] / seconds[1],
                one == sharded ? "yes" : "NO");
    std::error_code ec;
    fs::remove_all(tmp, ec);
  }
  return same;
}

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
  return shardRows(root) ? 0 : 1;
}
