// Work plans (cluster.h) and the probes of the parallel bisection.
#include "test_support.h"

#include "rootline/bisect.h"
#include "rootline/cluster.h"

#include <catch2/catch.hpp>

#include <csignal>
#include <thread>

using namespace rootline;
using namespace rootline::test;
using nlohmann::json;

namespace {

WorkPlan planIn(const fs::path &dir, std::vector<WorkUnit> units) {
  WorkPlan p;
  p.dir = dir;
  p.command = "triage";
  p.units = std::move(units);
  p.state = {{"out", nullptr}};
  return p;
}

// A unit whose command fails at once with a JSON error: bad input.
WorkUnit failingUnit(const std::string &name) {
  return {
      name, {"debug", "--json", "--old", "/nonexistent-old", "--new", "/nonexistent-new"}, 60, {}};
}

} // namespace

TEST_CASE("a plan is written and read back, and other directories are refused", "[cluster]") {
  TempDir t;
  WorkPlan p = planIn(t.path / "plan", {failingUnit("a"), failingUnit("b")});
  writePlan(p);
  WorkPlan back = readPlan(t.path / "plan");
  CHECK(back.command == "triage");
  CHECK(back.round == 1);
  REQUIRE(back.units.size() == 2);
  CHECK(back.units[1].name == "b");
  CHECK(back.units[1].args == p.units[1].args);
  CHECK(back.units[1].timeoutSeconds == 60);
  CHECK(missingUnits(back) == std::vector<size_t>{0, 1});

  writeText(t.path / "user" / "data.txt", "x");
  CHECK(badInputError([&] {
          writePlan(planIn(t.path / "user", {}));
        }).find("holds no rootline plan") != std::string::npos);
  CHECK(badInputError([&] { writePlan(planIn("relative/plan", {})); }).find("absolute") !=
        std::string::npos);
  CHECK(badInputError([&] { readPlan(t.path / "user"); }).find("no plan.json") !=
        std::string::npos);
  CHECK(badInputError([&] { runWorkUnit(back, 7, rootlineBinary()); }).find("out of range") !=
        std::string::npos);
}

TEST_CASE("a unit's result is written whole, and running it again gives the same result",
          "[cluster]") {
  TempDir t;
  WorkPlan p = planIn(t.path / "plan", {failingUnit("a")});
  writePlan(p);
  UnitResult r = runWorkUnit(p, 0, rootlineBinary());
  CHECK(r.exitCode == 2);
  CHECK(r.outcome == "exit 2");
  REQUIRE(r.output.is_object());
  CHECK(r.output["schema"] == "rootline.error/1");
  CHECK(r.error.find("nonexistent-old") != std::string::npos);
  std::optional<UnitResult> read = readUnitResult(p, 0);
  REQUIRE(read);
  CHECK(read->output == r.output);
  CHECK(missingUnits(p).empty());
  // No temporary file is left beside the result.
  size_t files = 0;
  for (const auto &e : fs::directory_iterator(roundDir(p) / "results"))
    files += e.is_regular_file();
  CHECK(files == 1);
  UnitResult again = runWorkUnit(p, 0, rootlineBinary());
  CHECK(again.exitCode == r.exitCode);
  CHECK(again.output == r.output);
  CHECK(again.error == r.error);
}

TEST_CASE("the local engine runs a unit again when it was killed from outside", "[cluster]") {
  TempDir t;
  json h = makeHistory(t.path / "repo", {"--commits", "4"});
  // A unit that takes a few seconds: a --cmd check that sleeps. A marker names it.
  std::string marker = "sleep 2.5; exit 0";
  WorkUnit slow{"slow",
                {"bisect", "--json", "--check", "HEAD", "--repo", (t.path / "repo").string(),
                 "--cmd", marker},
                120,
                {}};
  WorkPlan p = planIn(t.path / "plan", {slow});
  writePlan(p);
  EngineOptions e;
  e.engine = "local";
  e.jobs = 1;
  e.retries = 2;
  e.self = rootlineBinary();
  std::thread killer([&] {
    // The unit's rootline process, killed once as soon as it runs.
    for (int i = 0; i < 600; ++i) {
      ProcessSpec pg;
      pg.argv = {"/usr/bin/pgrep", "-f", "--", "--check HEAD --repo " + (t.path / "repo").string()};
      ProcessResult r = runProcess(pg);
      if (r.exitedWith(0) && !r.out.empty()) {
        kill(std::stoi(r.out), SIGKILL);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  EngineRun run = runPlan(p, e);
  killer.join();
  CHECK(run.resubmitted == 1);
  CHECK(run.missing.empty());
  std::optional<UnitResult> r = readUnitResult(p, 0);
  REQUIRE(r);
  CHECK(r->output["verdict"] == "good");
}

TEST_CASE("the sbatch script runs the round's units as one array", "[cluster]") {
  TempDir t;
  std::vector<WorkUnit> units(9, failingUnit("u"));
  WorkPlan p = planIn(t.path / "plan", units);
  writePlan(p);
  EngineOptions e;
  e.jobs = 2;
  e.self = "/opt/rootline/bin/rootline";
  e.sbatchArgs = {"--partition=debug"};
  std::string s = sbatchScript(p, e, {0, 1, 2, 5, 7, 8});
  CHECK(s.find("#SBATCH --array=0-2,5,7-8%2\n") != std::string::npos);
  CHECK(s.find("#SBATCH --partition=debug\n") != std::string::npos);
  CHECK(s.find("#SBATCH --requeue\n") != std::string::npos);
  CHECK(s.find("exec /opt/rootline/bin/rootline work --plan " + p.dir.string() +
               " --round 1 --unit \"$SLURM_ARRAY_TASK_ID\"") != std::string::npos);
  std::string cmds = parallelCommands(p, e);
  CHECK(cmds.find("::: $(seq 0 8)") != std::string::npos);
  CHECK(cmds.find("merge --plan " + p.dir.string()) != std::string::npos);
}

TEST_CASE("parallel bisection probes spread evenly: 256 commits in 4 rounds of 3",
          "[cluster][bisect]") {
  CHECK(spreadProbes(-1, 255, {}, 3) == std::vector<long>{63, 127, 191});
  // One probe a round is the sequential bisection's probe.
  for (long hi : {1L, 2L, 7L, 100L})
    CHECK(
        spreadProbes(-1, hi, {}, 1) ==
        (nextProbe(-1, hi, {}) ? std::vector<long>{*nextProbe(-1, hi, {})} : std::vector<long>{}));
  CHECK(spreadProbes(4, 8, {6}, 3) == std::vector<long>{5, 7});
  CHECK(spreadProbes(4, 5, {}, 3).empty());
  // Whatever the first bad commit, the search ends in 4 rounds and finds it.
  for (long firstBad = 0; firstBad < 256; ++firstBad) {
    long lo = -1, hi = 255;
    unsigned rounds = 0;
    for (std::vector<long> p; !(p = spreadProbes(lo, hi, {}, 3)).empty(); ++rounds) {
      long newHi = hi;
      for (long i : p)
        if (i >= firstBad)
          newHi = std::min(newHi, i);
      for (long i : p)
        if (i < firstBad)
          lo = std::max(lo, i);
      hi = newHi;
    }
    INFO("first bad " << firstBad);
    CHECK(rounds <= 4);
    CHECK(hi == firstBad);
  }
}
