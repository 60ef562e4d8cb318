// Tracer benchmark: tracing overhead (traced ÷ uninstrumented -O0 run time), trace
// bytes per executed instruction, and replay throughput, on the CPU-heavy fixtures:
// plain replay (the fidelity check), and replay with dependences and the memory checker
// (what debug's trace stage runs), with the dependence records' bytes per instance.
// Ratios are measured in the same run; absolute times are printed for context only.
// A last row traces a real project (mujs running bench/mujs_workload.js), with the wall
// time of tracing plus replay verification.
#include "real_project.h"
#include "rootline/analysis.h"
#include "rootline/memory_check.h"
#include "rootline/replay.h"
#include "rootline/run.h"
#include "rootline/slice.h"

#include <llvm/IR/Module.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <unistd.h>

using namespace rootline;

namespace {

struct Fixture {
  std::string name;
  BuildRecipe recipe;
  TestCase test;
};

Fixture loadFixture(const fs::path &dir) {
  auto j = nlohmann::json::parse(readFile(dir / "fixture.json"));
  Fixture f;
  f.name = dir.filename().string();
  for (const auto &s : j["sources"])
    f.recipe.units.push_back({dir / s.get<std::string>(), {}, dir});
  if (j.contains("libs"))
    f.recipe.libs = j["libs"].get<std::vector<std::string>>();
  if (j.contains("stdin") && j["stdin"].is_string())
    f.test.stdinFile = dir / j["stdin"].get<std::string>();
  if (j.contains("args"))
    f.test.args = j["args"].get<std::vector<std::string>>();
  f.test.timeoutSeconds = 600;
  return f;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  fs::path fixtures =
      argc > 1 ? fs::path(argv[1]) : fs::path(ROOTLINE_SOURCE_DIR) / "fixtures" / "programs";
  int reps =
      argc > 2 ? std::atoi(argv[2]) : 11; // runs of ~30 ms: 11 keep one slow run out of the median
  std::vector<Fixture> list;
  for (const auto &e : fs::directory_iterator(fixtures)) {
    if (!fs::exists(e.path() / "fixture.json"))
      continue;
    auto j = nlohmann::json::parse(readFile(e.path() / "fixture.json"));
    auto tags = j.value("tags", std::vector<std::string>{});
    if (std::find(tags.begin(), tags.end(), "cpu-heavy") != tags.end())
      list.push_back(loadFixture(e.path()));
  }
  std::sort(list.begin(), list.end(), [](auto &a, auto &b) { return a.name < b.name; });
  std::printf("%-14s %12s %10s %10s %9s %11s %13s %13s %10s %12s\n", "fixture", "instructions",
              "native s", "traced s", "overhead", "bytes/inst", "replay inst/s", "deps inst/s",
              "dep B/inst", "alloc B/inst");
  std::vector<double> overheads;
  // One row; returns the overhead.
  auto row = [&](const Fixture &f) {
    TracedProgram p = buildTraced(f.recipe);
    fs::path native = buildNative(f.recipe, p.module);
    fs::path dir = makeWorkDir("bench");
    // Builds just written (a new cache) are flushed first: their writeback would
    // otherwise compete with the traced runs' writes and slow only those.
    ::sync();
    std::vector<double> nt, tt;
    for (int i = 0; i < reps; ++i) {
      nt.push_back(runNative(native, f.test).seconds);
      tt.push_back(runTraced(p, f.test, dir / "run.trace").process.seconds);
    }
    uint64_t bytes = fs::file_size(dir / "run.trace");
    LoadedModule m = loadModule(p.module.bitcode);
    ModuleIndex index(*m.module);
    TraceReader reader(dir / "run.trace", p.module.key);
    auto start = std::chrono::steady_clock::now();
    ReplayResult r = replayTrace(*m.module, index, reader);
    double replaySeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Debug's trace stage: the same replay feeding the dependence recorder and the
    // memory checker (src/compose/version_trace.cpp).
    StaticAnalysis analysis(*m.module, index);
    DependenceRecorder deps(index, analysis);
    MemoryChecker checker;
    ReplayFanout both({&deps, &checker});
    TraceReader again(dir / "run.trace", p.module.key);
    auto depStart = std::chrono::steady_clock::now();
    replayTrace(*m.module, index, again, &both);
    double depBytes = static_cast<double>(deps.usedBytes());
    double allocBytes = static_cast<double>(deps.bytes());
    double depSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - depStart).count();
    double overhead = median(tt) / median(nt);
    double n = static_cast<double>(r.instances);
    std::printf("%-14s %12llu %10.4f %10.4f %8.1fx %11.2f %13.3g %13.3g %10.1f %12.1f  (trace + "
                "replay %.2f s)\n",
                f.name.c_str(), static_cast<unsigned long long>(r.instances), median(nt),
                median(tt), overhead, static_cast<double>(bytes) / n, n / replaySeconds,
                n / depSeconds, depBytes / n, allocBytes / n, median(tt) + replaySeconds);
    fs::remove_all(dir);
    return overhead;
  };
  for (auto &f : list)
    overheads.push_back(row(f));
  // The real-project row: a script run by the mujs interpreter (16 kLOC); not in the
  // median, which is over the CPU-heavy fixtures.
  fs::path realWork = makeWorkDir("bench-real");
  if (auto tree = bench::mujsTree(bench::kMujsCommit, realWork)) {
    Fixture f;
    f.name = "mujs (real)";
    f.recipe = tree->recipe;
    f.test.stdinFile = bench::mujsWorkload();
    f.test.timeoutSeconds = 600;
    row(f);
  }
  fs::remove_all(realWork);
  if (!overheads.empty())
    std::printf("median tracing overhead %.1fx (target <= 10x, aim <= 5x)\n", median(overheads));
  return 0;
}
