// Triage benchmark (docs/triage.md): 20 failing tests whose failures come from 3 causes
// (fixtures/triage/three_causes, a suite made here from its old version) and 2 passing
// ones. Prints: the groups; whether each failing test's group cause is what `debug`
// ranks first on that test alone; the local engine at -j 1 and -j 2 (each with a fresh
// cache) and their ratio, measured in this run; and, when a Slurm cluster is reachable
// ($SLURM_CONF set and sbatch on PATH, e.g. tests/cluster/slurm_cluster.sh), the same
// triage as a job array. Exits 1 when the groups are not the 3 expected ones or a group
// disagrees with debug alone or with the cluster (2 when it cannot run).
#include "rootline/fs.h"
#include "rootline/process.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace rootline;
using nlohmann::json;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "rootline-triage-bench-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      throw std::runtime_error("cannot create a temporary directory");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

fs::path fixture() { return fs::path(ROOTLINE_SOURCE_DIR) / "fixtures/triage/three_causes"; }

ProcessResult run(std::vector<std::string> argv, const std::map<std::string, std::string> &env,
                  const std::optional<std::string> &stdinFile = {}) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.extraEnv = env;
  spec.stdinFile = stdinFile;
  spec.timeoutSeconds = 3600;
  return runProcess(spec);
}

// 20 failing tests (7 add, 7 mul, 6 clamp) and 2 passing ones, expected from old.c.
void makeSuite(const fs::path &dir) {
  fs::path exe = dir / "old";
  ProcessResult cc =
      run({"/usr/bin/clang-19", "-O0", "-o", exe.string(), (fixture() / "old.c").string()}, {});
  if (!cc.exitedWith(0))
    throw std::runtime_error("clang-19 failed: " + cc.err);
  std::vector<std::string> inputs = {
      "add 101 1\n",  "add 150 2\n",    "add 999 -9\n",   "add 2 3\nadd 300 4\n", "add 120 0\n",
      "add 777 7\n",  "add 101 -101\n", "mul 3 -2\n",     "mul 7 -1\n",           "mul -4 -3\n",
      "mul 5 -5\n",   "mul 10 -10\n",   "mul 6 -2\n",     "mul 1 -9\n",           "clamp 4 5\n",
      "clamp 9 10\n", "clamp -1 0\n",   "clamp 99 100\n", "clamp 1 2\n",          "clamp 41 42\n",
      "add 1 1\n",    "mul 4 4\n"};
  for (size_t i = 0; i < inputs.size(); ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "test-%04zu", i);
    fs::path t = dir / "suite" / name;
    fs::create_directories(t);
    writeFileAtomic(t / "stdin", inputs[i]);
    ProcessResult r = run({exe.string()}, {}, (t / "stdin").string());
    writeFileAtomic(t / "expected.stdout", r.out);
    writeFileAtomic(t / "test.json", "{\"args\": []}\n");
  }
}

struct Triage {
  json report;
  double seconds = 0;
};

Triage triage(const fs::path &work, const std::string &tag, std::vector<std::string> extra,
              const std::map<std::string, std::string> &env) {
  std::vector<std::string> argv = {ROOTLINE_BINARY,
                                   "-q",
                                   "triage",
                                   "--old",
                                   (fixture() / "old.c").string(),
                                   "--new",
                                   (fixture() / "new.c").string(),
                                   "--tests",
                                   (work / "suite").string(),
                                   "--budget",
                                   "30",
                                   "--out",
                                   (work / ("out-" + tag)).string(),
                                   "--plan",
                                   (work / ("plan-" + tag)).string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = run(argv, env);
  Triage t;
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.exitedWith(0))
    throw std::runtime_error("triage " + tag + " failed (" + r.outcome() + "): " + r.err);
  t.report = json::parse(readFile(work / ("out-" + tag) / "report.json"));
  return t;
}

json groupsOf(const json &report) {
  json g = json::array();
  for (const auto &x : report["groups"])
    g.push_back({{"cause", x["cause"]}, {"tests", x["tests"]}});
  return {{"groups", g}, {"passing", report["passing"]}};
}

bool slurmReachable() {
  const char *conf = getenv("SLURM_CONF");
  return conf && *conf && fs::exists("/usr/bin/sbatch");
}

} // namespace

int main() {
  try {
    TempDir tmp;
    makeSuite(tmp.path);
    Triage one = triage(tmp.path, "j1", {"-j", "1"},
                        {{"ROOTLINE_CACHE_DIR", (tmp.path / "cache-j1").string()}});
    Triage two = triage(tmp.path, "j2", {"-j", "2"},
                        {{"ROOTLINE_CACHE_DIR", (tmp.path / "cache-j2").string()}});
    bool ok = groupsOf(one.report) == groupsOf(two.report);
    const json &groups = two.report["groups"];
    std::printf("triage of %zu tests: %zu groups, %zu passing, %zu units without an answer\n",
                two.report["tests"].get<size_t>(), groups.size(), two.report["passing"].size(),
                two.report["failed_units"].size());
    size_t failing = 0;
    for (const auto &g : groups) {
      failing += g["tests"].size();
      std::printf("  %s:%u (%s): %zu tests\n", g["cause"]["file"].get<std::string>().c_str(),
                  g["cause"]["line"].get<unsigned>(),
                  g["cause"]["function"].get<std::string>().c_str(), g["tests"].size());
    }
    ok = ok && groups.size() == 3 && failing == 20;
    // Each failing test alone: debug's rank-1 line is its group's cause.
    unsigned agree = 0, total = 0;
    std::map<std::string, std::string> env = {
        {"ROOTLINE_CACHE_DIR", (tmp.path / "cache-j2").string()}};
    for (const auto &g : groups)
      for (const auto &name : g["tests"]) {
        fs::path t = tmp.path / "suite" / name.get<std::string>();
        ProcessResult d =
            run({ROOTLINE_BINARY, "--json", "debug", "--old", (fixture() / "old.c").string(),
                 "--new", (fixture() / "new.c").string(), "--stdin", (t / "stdin").string(),
                 "--expect", (t / "expected.stdout").string(), "--budget", "30"},
                env);
        ++total;
        if (d.exitedWith(0)) {
          json alone = json::parse(d.out);
          agree += alone["candidates"][0]["line"] == g["cause"]["line"] &&
                   alone["candidates"][0]["file"] == g["cause"]["file"];
        }
      }
    std::printf("groups identical to debug one test at a time: %u of %u tests\n", agree, total);
    ok = ok && agree == total;
    std::printf("local engine: -j 1 %.1f s, -j 2 %.1f s, speed-up %.2fx (same groups: %s)\n",
                one.seconds, two.seconds, one.seconds / two.seconds,
                groupsOf(one.report) == groupsOf(two.report) ? "yes" : "NO");
    if (slurmReachable()) {
      Triage slurm = triage(tmp.path, "slurm", {"--engine", "slurm", "-j", "2"},
                            {{"ROOTLINE_CACHE_DIR", (tmp.path / "cache-slurm").string()}});
      bool same = groupsOf(slurm.report) == groupsOf(two.report);
      std::printf("slurm engine (-j 2, one-node cluster): %.1f s, same groups: %s\n", slurm.seconds,
                  same ? "yes" : "NO");
      ok = ok && same;
    } else {
      std::printf("slurm engine: no cluster ($SLURM_CONF unset or no sbatch); not measured\n");
    }
    return ok ? 0 : 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "triage_bench: %s\n", e.what());
    return 2;
  }
}
