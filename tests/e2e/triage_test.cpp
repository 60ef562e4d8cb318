// rootline triage on fixtures/triage/three_causes: a line calculator whose new version
// breaks `add` (a > 100), `mul` (negative factors) and `clamp` (a == lo - 1). Its
// suite (the layout explore --out writes) has 21 tests: 17 fail, 4 pass.
#include "test_support.h"

#include "rootline/triage.h"

#include <catch2/catch.hpp>

#include <set>

using namespace rootline;
using namespace rootline::test;
using nlohmann::json;

namespace {

fs::path fixture() { return fixturesDir() / "triage" / "three_causes"; }

std::vector<std::string> triageArgs(const fs::path &out) {
  return {"triage",
          "--old",
          (fixture() / "old.c").string(),
          "--new",
          (fixture() / "new.c").string(),
          "--tests",
          (fixture() / "suite").string(),
          "--budget",
          "30",
          "--out",
          out.string()};
}

std::set<std::string> testSet(const json &tests) {
  std::set<std::string> s;
  for (const auto &t : tests)
    s.insert(t.get<std::string>());
  return s;
}

std::set<std::string> tests(std::initializer_list<int> ids) {
  std::set<std::string> s;
  for (int i : ids) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "test-%04d", i);
    s.insert(buf);
  }
  return s;
}

// The group whose cause is at `line` of new.c.
const json &groupAt(const json &report, unsigned line) {
  for (const auto &g : report["groups"])
    if (g["cause"].is_object() && g["cause"]["line"] == line)
      return g;
  FAIL("no group at new.c:" << line);
  static json none;
  return none;
}

// The groups, without what may differ between runs of the same plan (the evidence's
// wording is the debug report's; files and cause are compared by the tests).
json groupsOnly(const json &report) {
  json g = json::array();
  for (const auto &x : report["groups"])
    g.push_back({{"cause", x["cause"]}, {"tests", x["tests"]}});
  return {{"groups", g}, {"passing", report["passing"]}, {"failed_units", report["failed_units"]}};
}

} // namespace

TEST_CASE("triage groups failing tests by root cause, each group as debug finds it alone",
          "[triage][e2e][heavy]") {
  TempDir t;
  std::vector<std::string> args = triageArgs(t.path / "out");
  args.insert(args.end(), {"-j", "2", "--plan", (t.path / "plan").string()});
  ProcessResult r = runRootline(args);
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  json report = json::parse(readFile(t.path / "out" / "report.json"));
  CHECK(report["schema"] == "rootline.triage/1");
  CHECK(report["tests"] == 21);
  REQUIRE(report["groups"].size() == 3);
  CHECK(testSet(report["passing"]) == tests({6, 13, 19, 20}));
  CHECK(report["failed_units"].empty());
  CHECK(testSet(groupAt(report, 6)["tests"]) == tests({0, 1, 2, 3, 4, 5}));
  CHECK(testSet(groupAt(report, 15)["tests"]) == tests({7, 8, 9, 10, 11, 12}));
  CHECK(testSet(groupAt(report, 19)["tests"]) == tests({14, 15, 16, 17, 18}));
  for (const auto &g : report["groups"]) {
    CHECK(g["cause"]["file"] == "new.c");
    CHECK(g["cause"]["version"] == "new");
    CHECK(g["shared_by"] == "rank-1 line");
    CHECK(!g["evidence"]["runnable_evidence"].empty());
  }
  CHECK(groupAt(report, 6)["cause"]["function"] == "add");

  // Each group is what `rootline debug` says about its tests one by one: the first and
  // the last test of every group, debugged alone, rank the group's cause first.
  for (const auto &g : report["groups"]) {
    for (const std::string &name :
         {g["tests"].front().get<std::string>(), g["tests"].back().get<std::string>()}) {
      fs::path test = fixture() / "suite" / name;
      ProcessResult d =
          runRootline({"debug", "--json", "--old", (fixture() / "old.c").string(), "--new",
                       (fixture() / "new.c").string(), "--stdin", (test / "stdin").string(),
                       "--expect", (test / "expected.stdout").string(), "--budget", "30"});
      INFO(name << ": " << d.err);
      REQUIRE(d.exitedWith(0));
      json alone = json::parse(d.out);
      CHECK(alone["candidates"][0]["line"] == g["cause"]["line"]);
      CHECK(alone["candidates"][0]["file"] == g["cause"]["file"]);
    }
  }

  // One ticket per group: a Markdown section each, and the representative's unit test.
  std::string md = readFile(t.path / "out" / "report.md");
  CHECK(md.find("## 1. ") != std::string::npos);
  CHECK(md.find("## 3. ") != std::string::npos);
  CHECK(md.find("## Passing on the new version") != std::string::npos);
  const json &add = groupAt(report, 6);
  bool unitTest = false;
  for (const auto &f : add["files"])
    if (f.get<std::string>().find("unit-test/test_add.c") != std::string::npos) {
      unitTest = true;
      CHECK(fs::is_regular_file(t.path / "out" / f.get<std::string>()));
    }
  CHECK(unitTest);

  // The SARIF report is valid SARIF 2.1.0, one result per group at its cause.
  json sarif = json::parse(readFile(t.path / "out" / "report.sarif"));
  CHECK(sarif["runs"][0]["results"].size() == 3);
  ProcessSpec spec;
  spec.argv = {"/usr/bin/python3", (sourceDir() / "tests" / "tools" / "validate_json.py").string(),
               (t.path / "out" / "report.sarif").string(), ROOTLINE_SARIF_SCHEMA};
  ProcessResult v = runProcess(spec);
  INFO(v.err);
  CHECK(v.exitedWith(0));
}

TEST_CASE("a triage plan run unit by unit: a missing unit is named, merged again it is whole",
          "[triage][e2e][heavy]") {
  TempDir t;
  fs::path plan = t.path / "plan";
  std::vector<std::string> args = triageArgs(t.path / "out");
  args.insert(args.end(), {"--engine", "print", "--plan", plan.string()});
  ProcessResult p = runRootline(args);
  INFO(p.err);
  REQUIRE(p.exitedWith(0));
  // The printed commands: an sbatch array over the plan and a GNU parallel line.
  CHECK(p.out.find("sbatch --parsable") != std::string::npos);
  CHECK(p.out.find("parallel -j") != std::string::npos);
  CHECK(p.out.find("$(seq 0 20)") != std::string::npos);
  CHECK(fs::is_regular_file(plan / "round-1" / "slurm" / "array.sbatch"));
  CHECK(!fs::exists(t.path / "out" / "report.json")); // print runs nothing

  // Units in reverse order, one left out (as if its node were lost).
  for (int i = 20; i >= 0; --i)
    if (i != 3) {
      ProcessResult w =
          runRootline({"-q", "work", "--plan", plan.string(), "--unit", std::to_string(i)});
      INFO("unit " << i << ": " << w.err);
      REQUIRE(w.exitedWith(0));
    }
  ProcessResult m = runRootline({"--json", "merge", "--plan", plan.string()});
  INFO(m.err);
  CHECK(m.exitedWith(1)); // a unit has no answer
  json partial = json::parse(m.out);
  REQUIRE(partial["failed_units"].size() == 1);
  CHECK(partial["failed_units"][0]["unit"] == 3);
  CHECK(partial["failed_units"][0]["test"] == "test-0003");
  CHECK(testSet(groupAt(partial, 6)["tests"]) == tests({0, 1, 2, 4, 5}));

  // The unit through the scheduler's variable, as a Slurm array task gets it; a unit
  // run again gives the same answer.
  ProcessSpec spec;
  spec.argv = {rootlineBinary(), "-q", "work", "--plan", plan.string()};
  spec.extraEnv["SLURM_ARRAY_TASK_ID"] = "3";
  REQUIRE(runProcess(spec).exitedWith(0));
  ProcessResult again = runRootline({"-q", "work", "--plan", plan.string(), "--unit", "3"});
  REQUIRE(again.exitedWith(0));
  ProcessResult whole = runRootline({"--json", "merge", "--plan", plan.string()});
  INFO(whole.err);
  REQUIRE(whole.exitedWith(0));
  json merged = json::parse(whole.out);
  CHECK(merged["failed_units"].empty());
  CHECK(testSet(groupAt(merged, 6)["tests"]) == tests({0, 1, 2, 3, 4, 5}));
  CHECK(fs::is_regular_file(t.path / "out" / "report.json"));

  // The local engine on the same tests gives the same groups, whatever the order.
  TempDir u;
  std::vector<std::string> local = triageArgs(u.path / "out");
  local.insert(local.end(), {"-j", "2", "-q"});
  ProcessResult l = runRootline(local);
  INFO(l.err);
  REQUIRE(l.exitedWith(0));
  CHECK(groupsOnly(json::parse(readFile(u.path / "out" / "report.json"))) == groupsOnly(merged));
}

TEST_CASE("triage and its plans refuse bad input with one line and exit 2", "[triage][e2e]") {
  TempDir t;
  fs::create_directories(t.path / "empty");
  ProcessResult r =
      runRootline({"triage", "--old", (fixture() / "old.c").string(), "--new",
                   (fixture() / "new.c").string(), "--tests", (t.path / "empty").string()});
  CHECK(r.exitCode == 2);
  CHECK(r.err.find("holds no test-*/ directories") != std::string::npos);

  writeText(t.path / "mine" / "notes.txt", "keep me\n");
  std::vector<std::string> args = triageArgs(t.path / "mine");
  r = runRootline(args);
  CHECK(r.exitCode == 2);
  CHECK(r.err.find("not an empty directory") != std::string::npos);
  CHECK(readFile(t.path / "mine" / "notes.txt") == "keep me\n");

  args = triageArgs(t.path / "out");
  args.insert(args.end(), {"--plan", (t.path / "mine").string()});
  r = runRootline(args);
  CHECK(r.exitCode == 2);
  CHECK(r.err.find("holds no rootline plan") != std::string::npos);
  CHECK(fs::directory_iterator(t.path / "mine") != fs::directory_iterator());

  r = runRootline({"merge", "--plan", (t.path / "mine").string()});
  CHECK(r.exitCode == 2);
  CHECK(r.err.find("holds no plan.json") != std::string::npos);
  r = runRootline({"work", "--plan", (t.path / "mine").string(), "--unit", "0"});
  CHECK(r.exitCode == 2);

  // A test that passes on both versions is no failure: debug says so in JSON too.
  fs::path pass = fixture() / "suite" / "test-0006";
  r = runRootline({"debug", "--json", "--old", (fixture() / "old.c").string(), "--new",
                   (fixture() / "new.c").string(), "--stdin", (pass / "stdin").string(), "--expect",
                   (pass / "expected.stdout").string()});
  CHECK(r.exitCode == 2);
  json err = json::parse(r.out);
  CHECK(err["schema"] == "rootline.error/1");
  CHECK(err["kind"] == "test-passes");
  CHECK(err["exit_code"] == 2);
}

TEST_CASE("triage takes a project's own test commands: a failing one is grouped, a passing "
          "one listed",
          "[triage][e2e][project][heavy]") {
  fs::path p = fixturesDir() / "projects" / "make_pipeline";
  TempDir t;
  ProcessResult r = runRootline({"--json", "triage", "--old", (p / "old").string(), "--new",
                                 (p / "new").string(), "--test", "sh tests/pipeline.sh", "--test",
                                 "true", "-j", "2", "--out", (t.path / "out").string()});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  json report = json::parse(r.out);
  CHECK(testSet(report["passing"]) == std::set<std::string>{"true"});
  REQUIRE(report["groups"].size() == 1);
  const json &g = report["groups"][0];
  CHECK(testSet(g["tests"]) == std::set<std::string>{"sh tests/pipeline.sh"});
  // The group's cause is what debug --test ranks first on that test alone.
  ProcessResult d = runRootline({"--json", "debug", "--old", (p / "old").string(), "--new",
                                 (p / "new").string(), "--test", "sh tests/pipeline.sh"});
  INFO(d.err);
  REQUIRE(d.exitedWith(0));
  json alone = json::parse(d.out);
  CHECK(g["cause"]["file"] == alone["candidates"][0]["file"]);
  CHECK(g["cause"]["line"] == alone["candidates"][0]["line"]);
  CHECK(json::parse(readFile(t.path / "out" / "report.json")) == report);
}

TEST_CASE("an engine that stops waiting merges what it has and names the units left",
          "[triage][e2e]") {
  TempDir t;
  // 21 units one at a time cannot all finish within one second, however fast the machine.
  std::vector<std::string> args = triageArgs(t.path / "out");
  args.insert(args.end(), {"--json", "-j", "1", "--wait", "1", "--retries", "0"});
  ProcessResult r = runRootline(args);
  INFO(r.err);
  CHECK(r.exitedWith(1));
  json report = json::parse(r.out);
  CHECK(!report["failed_units"].empty());
  size_t answered = report["passing"].size();
  for (const auto &g : report["groups"])
    answered += g["tests"].size();
  CHECK(answered + report["failed_units"].size() == 21);
  for (const auto &f : report["failed_units"])
    CHECK(f["why"] == "no result: the unit did not finish");
}
