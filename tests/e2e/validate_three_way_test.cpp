// validate judges a fix against both versions (docs/validate.md, "Verdicts"): changes the
// bad version made on purpose are listed, not counted; what the fix itself introduces,
// or leaves failing, rejects it. DESIGN.md example 2 with four fixes
// (fixtures/validate/discount), as directories, single files and commits.
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::test;
using nlohmann::json;

namespace {

fs::path discount() { return fixturesDir() / "validate" / "discount"; }

// `rootline --json validate` of a fix directory against good/ and bad/.
std::pair<ProcessResult, json> validateDirs(const std::string &fix) {
  fs::path d = discount();
  ProcessResult r = runRootline({"--json", "validate", "--old", (d / "good").string(), "--new",
                                 (d / "bad").string(), "--fix", (d / fix).string(), "--src",
                                 "main.c", "--stdin", (d / "input.txt").string()});
  INFO(r.err);
  REQUIRE(!r.out.empty());
  return {r, json::parse(r.out)};
}

std::vector<json> ofClass(const json &j, const std::string &cls) {
  std::vector<json> out;
  for (const auto &d : j["neighbours"]["disagreements"])
    if (d["class"] == cls)
      out.push_back(d);
  return out;
}

} // namespace

TEST_CASE("the right fix beside an intended change is accepted, the intended change listed",
          "[validate][three-way]") {
  auto [r, j] = validateDirs("fix_right");
  CHECK(r.exitedWith(0));
  CHECK(j["accepted"] == true);
  CHECK(ofClass(j, "new behaviour").empty());
  CHECK(ofClass(j, "still failing").empty());
  // The shipping threshold the bad version moved from 100 to 150: an input between them
  // keeps the bad version's shipping, and that is not held against the fix.
  auto kept = ofClass(j, "kept change");
  REQUIRE_FALSE(kept.empty());
  auto lines = [](const json &run) {
    std::string out = run["stdout"];
    size_t nl = out.find('\n');
    return std::pair{out.substr(0, nl), out.substr(nl + 1)};
  };
  for (const auto &k : kept) {
    // The price line as the good version prints it, the shipping line as the bad one.
    CHECK(lines(k["fix"]).first == lines(k["good"]).first);
    CHECK(lines(k["fix"]).second == lines(k["bad"]).second);
    CHECK(lines(k["fix"]).second != lines(k["good"]).second);
  }
  CHECK(j["warnings"].empty());
}

TEST_CASE("a fix that over-corrects is refuted at the boundary of the condition it changed",
          "[validate][three-way]") {
  auto [r, j] = validateDirs("fix_over"); // qty >= 9 where the good version has qty >= 10
  CHECK(r.exitCode == 1);
  CHECK(j["accepted"] == false);
  auto introduced = ofClass(j, "new behaviour");
  REQUIRE(introduced.size() == 1);
  CHECK(introduced[0]["input"]["stdin"] == "9 200\n");
  CHECK(introduced[0]["changes"] == json::array({"token 1: 10 → 9"}));
  CHECK(introduced[0]["good"]["stdout"] == "90\n5\n");
  CHECK(introduced[0]["bad"]["stdout"] == "90\n5\n");
  CHECK(introduced[0]["fix"]["stdout"] == "81\n5\n");
  CHECK(j["verdict"].get<std::string>().find("neither the good nor the bad version") !=
        std::string::npos);
  // The scope: one partition proved, the inputs tried sampled, nothing skipped.
  CHECK(j["scope"]["proved"].size() == 1);
  CHECK(j["scope"]["sampled"].size() >= 2);
  CHECK(j["scope"]["skipped"].empty());
}

TEST_CASE("a fix that also removes the intended change is accepted with a warning",
          "[validate][three-way]") {
  auto [r, j] = validateDirs("fix_revert"); // the good version itself
  CHECK(r.exitedWith(0));
  CHECK(j["accepted"] == true);
  REQUIRE(j["warnings"].size() >= 1);
  CHECK(j["warnings"][0].get<std::string>().find("also reverts the change at main.c:9") !=
        std::string::npos);
  REQUIRE_FALSE(j["neighbours"]["reverted"].empty());
  const json &rev = j["neighbours"]["reverted"][0];
  CHECK(rev["fix"]["stdout"] == rev["good"]["stdout"]);
  CHECK(rev["bad"]["stdout"] != rev["good"]["stdout"]);
}

TEST_CASE("a fix that hides the symptom only for the test's input is rejected",
          "[validate][three-way]") {
  auto [r, j] = validateDirs("fix_symptom"); // qty > 10 || (qty == 10 && code == 200)
  CHECK(r.exitCode == 1);
  CHECK(j["test"]["passes_on_fix"] == true);
  auto failing = ofClass(j, "still failing");
  REQUIRE_FALSE(failing.empty());
  for (const auto &f : failing) {
    CHECK(f["fix"]["stdout"] == f["bad"]["stdout"]);
    CHECK(f["input"]["stdin"].get<std::string>().rfind("10 ", 0) == 0); // qty still 10
  }
  CHECK(j["verdict"].get<std::string>().find("still behaves like the bad version") !=
        std::string::npos);
}

TEST_CASE("three-way verdicts on single files and on commits", "[validate][three-way][vcs]") {
  fs::path d = discount();
  // Single files with any names.
  ProcessResult files = runRootline(
      {"validate", "--old", (d / "good" / "main.c").string(), "--new",
       (d / "bad" / "main.c").string(), "--fix", (d / "fix_over" / "main.c").string(), "--stdin",
       (d / "input.txt").string()});
  CHECK(files.exitCode == 1);
  CHECK(files.out.find("new behaviour") != std::string::npos);
  CHECK(files.out.find("token 1: 10 → 9") != std::string::npos);

  // Commits: good, then the regression with the intended change, then the right fix.
  TempDir t;
  fs::path repo = t.path / "repo";
  fs::create_directories(repo);
  REQUIRE(git(repo, {"init", "-q", "-b", "main"}).exitedWith(0));
  auto commit = [&](const std::string &version, const std::string &message) {
    fs::copy_file(d / version / "main.c", repo / "main.c", fs::copy_options::overwrite_existing);
    REQUIRE(git(repo, {"add", "main.c"}).exitedWith(0));
    REQUIRE(git(repo, {"commit", "-q", "-m", message}).exitedWith(0));
    REQUIRE(git(repo, {"tag", version}).exitedWith(0));
  };
  commit("good", "discount from 10");
  commit("bad", "shipping from 150; discount from 11");
  commit("fix_right", "discount from 10 again");
  ProcessResult commits =
      runRootline({"--json", "validate", "--repo", repo.string(), "--good", "good", "--bad", "bad",
                   "--fix", "fix_right", "--src", "main.c", "--stdin", (d / "input.txt").string()});
  INFO(commits.err);
  CHECK(commits.exitedWith(0));
  json j = json::parse(commits.out);
  CHECK(j["accepted"] == true);
  CHECK_FALSE(ofClass(j, "kept change").empty());
}
