// bisect --parallel K on generated histories (fixtures/git/make_history.py): the same
// answer as the sequential bisection, in ceil(log_{K+1} N) rounds, each commit built once.
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::test;
using nlohmann::json;

namespace {

json bisect(const fs::path &repo, const json &h, const std::vector<std::string> &extra) {
  std::vector<std::string> args = {"--json",    "bisect",
                                   "--repo",    repo.string(),
                                   "--good",    h["good"].get<std::string>(),
                                   "--bad",     "main",
                                   "--stdin",   (repo / "tests" / "t1.in").string(),
                                   "--expect",  (repo / "tests" / "t1.out").string(),
                                   "--no-debug"};
  args.insert(args.end(), extra.begin(), extra.end());
  ProcessResult r = runRootline(args);
  INFO(r.err);
  REQUIRE((r.exitedWith(0) || r.exitedWith(1)));
  return json::parse(r.out);
}

} // namespace

TEST_CASE("bisect --parallel 3 finds the first bad commit of 256 in 4 rounds", "[bisect][e2e]") {
  TempDir t;
  json h = makeHistory(t.path / "repo", {"--commits", "256", "--bad-at", "150"});
  json par = bisect(t.path / "repo", h,
                    {"--parallel", "3", "-j", "2", "--plan", (t.path / "plan").string()});
  CHECK(par["first_bad"]["hash"] == h["first_bad"]);
  CHECK(par["rounds"] == 4);
  CHECK(par["parallel"] == 3);
  CHECK(par["stats"]["commits_tested"] == 2 + 4 * 3);
  // Every commit is built at most once: the sequential search after it compiles only
  // the commits the parallel one did not test.
  CHECK(par["stats"]["builds_compiled"] <= par["stats"]["commits_tested"]);
  json seq = bisect(t.path / "repo", h, {});
  CHECK(seq["first_bad"]["hash"] == par["first_bad"]["hash"]);
  CHECK(seq["stats"]["commits_tested"] == 2 + 8);
  std::set<std::string> tested;
  for (const auto &s : par["steps"])
    tested.insert(s["commit"].get<std::string>());
  for (const auto &s : seq["steps"])
    if (tested.count(s["commit"].get<std::string>()))
      CHECK(s["build"] == "cached");
  // The plan holds one directory per round, each with its units' results.
  for (int round = 1; round <= 4; ++round)
    CHECK(fs::is_directory(t.path / "plan" / ("round-" + std::to_string(round)) / "results"));
}

TEST_CASE("bisect --parallel skips a commit that does not build, as the sequential one does",
          "[bisect][e2e]") {
  TempDir t;
  json h = makeHistory(t.path / "repo", {"--commits", "40", "--bad-at", "21", "--broken-at", "19"});
  json par = bisect(t.path / "repo", h, {"--parallel", "4"});
  json seq = bisect(t.path / "repo", h, {});
  CHECK(par["first_bad"] == seq["first_bad"]);
  CHECK(par["possible_first_bad"] == seq["possible_first_bad"]);
  // The broken commit is one of the probes here; it decides nothing, as in git.
  bool skipped = false;
  for (const auto &s : par["steps"])
    if (s["commit"] == h["broken"]) {
      skipped = true;
      CHECK(s["verdict"] == "skip");
      CHECK(s["reason"].get<std::string>().rfind("does not build", 0) == 0);
    }
  CHECK(skipped);
  CHECK(par["stats"]["skipped"] == 1);
  CHECK(par["rounds"] <= 4);
}

TEST_CASE("bisect --parallel with --engine print writes the plan and merge advances it",
          "[bisect][e2e]") {
  TempDir t;
  json h = makeHistory(t.path / "repo", {"--commits", "30", "--bad-at", "17"});
  fs::path plan = t.path / "plan";
  std::vector<std::string> args = {"bisect",
                                   "--repo",
                                   (t.path / "repo").string(),
                                   "--good",
                                   h["good"].get<std::string>(),
                                   "--bad",
                                   "main",
                                   "--stdin",
                                   (t.path / "repo/tests/t1.in").string(),
                                   "--expect",
                                   (t.path / "repo/tests/t1.out").string(),
                                   "--no-debug",
                                   "--parallel",
                                   "2",
                                   "--engine",
                                   "print",
                                   "--plan",
                                   plan.string(),
                                   "--out",
                                   (t.path / "out").string()};
  ProcessResult p = runRootline(args);
  INFO(p.err);
  REQUIRE(p.exitedWith(0));
  CHECK(p.out.find("rootline merge --plan") != std::string::npos);
  // Run each round's units by hand and merge, as a user with their own scheduler would.
  int rounds = 0;
  for (; rounds < 10; ++rounds) {
    json pj = json::parse(readFile(plan / "plan.json"));
    if (pj["units"] == 0)
      break;
    for (size_t i = 0; i < pj["units"].get<size_t>(); ++i)
      REQUIRE(runRootline({"-q", "work", "--plan", plan.string(), "--unit", std::to_string(i)})
                  .exitedWith(0));
    ProcessResult m = runRootline({"merge", "--plan", plan.string()});
    INFO(m.err);
    REQUIRE(m.exitedWith(0));
  }
  CHECK(rounds >= 2); // 29 commits, 2 at a time: ceil(log3 29) = 4 rounds at most
  CHECK(rounds <= 4);
  json out = json::parse(readFile(t.path / "out" / "bisect.json"));
  CHECK(out["first_bad"]["hash"] == h["first_bad"]);
}
