#include "rootline/error.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <z3++.h>

using namespace rootline;
using namespace rootline::test;

TEST_CASE("rootline trace --smt2 writes the path condition of example 1", "[explore][cli]") {
  ProgramFixture f = programFixture("paper_fig1");
  TempDir t;
  writeText(t.path / "in.txt", "1 2 5\n");
  auto r = runRootline({"trace", "--src", (f.dir / "main.c").string(), "--stdin",
                        (t.path / "in.txt").string(), "--smt2", (t.path / "pc.smt2").string()});
  REQUIRE(r.exitedWith(0));
  z3::context ctx;
  z3::expr_vector parsed = ctx.parse_string(readFile(t.path / "pc.smt2").c_str());
  z3::expr pc = z3::mk_and(parsed);
  z3::expr x = ctx.bv_const("tok@0:i32", 32), y = ctx.bv_const("tok@2:i32", 32),
           z = ctx.bv_const("tok@4:i32", 32);
  z3::expr expected = x <= y && x + y > 0 && z * z > 9;
  z3::solver s(ctx);
  s.add(pc != expected); // equivalent: no input tells them apart
  CHECK(s.check() == z3::unsat);
}

TEST_CASE("rootline explore writes one test per path and a summary", "[explore][cli]") {
  ProgramFixture f = programFixture("paper_fig1");
  TempDir t;
  fs::path out = t.path / "generated";
  auto r = runRootline({"explore", "--src", (f.dir / "main.c").string(), "--stdin",
                        f.stdinFile->string(), "--out", out.string()});
  REQUIRE(r.exitedWith(0));
  CHECK(r.err.find("8 distinct paths") != std::string::npos);
  for (int i = 1; i <= 8; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "test-%04d", i);
    CHECK(fs::exists(out / name / "stdin"));
    CHECK(fs::exists(out / name / "expected.stdout"));
    auto j = nlohmann::json::parse(readFile(out / name / "test.json"));
    CHECK(j["path_condition_smt2"].get<std::string>().find("tok@") != std::string::npos);
    CHECK(j["symbolic_branches"].size() == 3);
  }
  CHECK_FALSE(fs::exists(out / "test-0009"));
  auto summary = nlohmann::json::parse(readFile(out / "summary.json"));
  CHECK(summary["distinct_paths"] == 8);
  CHECK(summary["branches"]["covered"] == summary["branches"]["total"]);
  CHECK(readFile(out / "summary.md").find("| 8 | 8 |") != std::string::npos);

  // A second run into the same directory replaces its own output.
  r = runRootline({"--json", "explore", "--src", (f.dir / "main.c").string(), "--stdin",
                   f.stdinFile->string(), "--out", out.string(), "--max-runs", "3"});
  REQUIRE(r.exitedWith(0));
  CHECK(nlohmann::json::parse(r.out)["runs"] == 3);
  CHECK_FALSE(fs::exists(out / "test-0004"));
}

TEST_CASE("rootline explore refuses to write into a directory it does not own", "[explore][cli]") {
  ProgramFixture f = programFixture("paper_fig1");
  TempDir t;
  writeText(t.path / "mine" / "notes.txt", "precious");
  auto r = runRootline(
      {"explore", "--src", (f.dir / "main.c").string(), "--out", (t.path / "mine").string()});
  CHECK(r.exitCode == ExitBadInput);
  CHECK(r.err.find("not empty") != std::string::npos);
  CHECK(readFile(t.path / "mine" / "notes.txt") == "precious");
  r = runRootline({"explore", "--src", (f.dir / "main.c").string(), "--out",
                   (t.path / "x").string(), "--strategy", "bogus"});
  CHECK(r.exitCode == ExitBadInput);
  CHECK(r.err.find("--strategy") != std::string::npos);
}

TEST_CASE("rootline explore exits 1 and lists confirmed bugs", "[explore][cli]") {
  fs::path dir = fixturesDir() / "explore" / "signum_div";
  TempDir t;
  auto r = runRootline({"explore", "--src", (dir / "main.c").string(), "--stdin",
                        (dir / "seed.txt").string(), "--out", (t.path / "o").string()});
  CHECK(r.exitCode == ExitFailure);
  CHECK(r.err.find("bug: div-by-zero at") != std::string::npos);
  CHECK(r.err.find("main.c:8") != std::string::npos);
  CHECK(r.err.find("(confirmed)") != std::string::npos);
  auto summary = nlohmann::json::parse(readFile(t.path / "o" / "summary.json"));
  REQUIRE(summary["bugs"].size() == 1);
  CHECK(summary["bugs"][0]["stdin"].get<std::string>().find('0') != std::string::npos);
}

namespace {

// The path keys of an explore --out directory's tests.
std::multiset<std::string> pathKeys(const fs::path &dir) {
  std::multiset<std::string> keys;
  for (const auto &e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("test-", 0) == 0)
      keys.insert(
          nlohmann::json::parse(readFile(e.path() / "test.json"))["path_key"].get<std::string>());
  return keys;
}

} // namespace

TEST_CASE("explore --shards finds the same paths as one exploration, and keeps --max-runs",
          "[explore][cli][cluster][heavy]") {
  fs::path f = fixturesDir() / "explore" / "ctype_password";
  TempDir t;
  std::vector<std::string> base = {"-q",           "explore",
                                   "--src",        (f / "main.c").string(),
                                   "--stdin",      (f / "seed.txt").string(),
                                   "--loop-bound", "2",
                                   "--budget",     "0"};
  auto run = [&](const std::string &out, std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--out", (t.path / out).string()});
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessResult r = runRootline(args);
    INFO(r.err);
    CHECK((r.exitedWith(0) || r.exitedWith(1)));
  };
  // Complete explorations: the same set of paths, each once.
  run("one", {"--max-runs", "3000"});
  run("sharded",
      {"--max-runs", "3000", "--shards", "4", "-j", "2", "--plan", (t.path / "plan").string()});
  std::multiset<std::string> one = pathKeys(t.path / "one"), sharded = pathKeys(t.path / "sharded");
  CHECK(one.size() > 50);
  CHECK(sharded == one);
  CHECK(std::set<std::string>(sharded.begin(), sharded.end()).size() == sharded.size());
  CHECK(fs::is_directory(t.path / "plan" / "round-1" / "shards"));
  // Cut by --max-runs: several rounds (shards that finish early leave runs to the next),
  // never more runs than allowed, tests numbered 1..N without duplicates.
  run("cut",
      {"--max-runs", "40", "--shards", "4", "-j", "2", "--plan", (t.path / "plan-cut").string()});
  nlohmann::json summary = nlohmann::json::parse(readFile(t.path / "cut" / "summary.json"));
  CHECK(summary["runs"].get<unsigned>() <= 40);
  CHECK(fs::is_directory(t.path / "plan-cut" / "round-2"));
  std::multiset<std::string> cut = pathKeys(t.path / "cut");
  CHECK(std::set<std::string>(cut.begin(), cut.end()).size() == cut.size());
  char last[32];
  std::snprintf(last, sizeof last, "test-%04zu", cut.size());
  CHECK(fs::is_directory(t.path / "cut" / last));
  for (const auto &k : cut)
    CHECK(one.count(k) == 1);
}
