// validate judges a fix value by value (docs/validate.md, "Values"): a fix that restores
// the value the test got wrong and keeps an intended change to another value on the
// same line is right. fixtures/validate/fee_bonus: good computes a fee and a bonus and
// prints both on one line; bad breaks the fee (`amount > 500`) and changes the bonus on
// purpose (`level > 3`). Run as directories, single files and commits, and with the
// values across lines and through an sprintf buffer.
#include "compose/debug_stages.h"
#include "rootline/output_values.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::test;
using nlohmann::json;

namespace {

fs::path feeBonus() { return fixturesDir() / "validate" / "fee_bonus"; }

// The fixture's versions with the printf replaced (`printing` empty: as they are).
fs::path variant(const TempDir &t, const std::string &printing) {
  fs::path out = t.path / "v";
  for (const char *v : {"good", "bad", "fix_right", "fix_over", "fix_revert"}) {
    std::string s = readFile(feeBonus() / v / "main.c");
    const std::string line = "printf(\"%d %d\\n\", fee, bonus);";
    if (!printing.empty())
      s.replace(s.find(line), line.size(), printing);
    writeText(out / v / "main.c", s);
  }
  return out;
}

json validate(const fs::path &d, const std::string &fix, int exitCode) {
  ProcessResult r = runRootline({"--json", "validate", "--old", (d / "good").string(), "--new",
                                 (d / "bad").string(), "--fix", (d / fix).string(), "--src",
                                 "main.c", "--stdin", (feeBonus() / "input.txt").string()});
  INFO(r.err << r.out);
  REQUIRE(r.exitCode == exitCode);
  return json::parse(r.out);
}

const json *find(const json &list, const std::string &stdinText) {
  for (const auto &d : list)
    if (d["input"]["stdin"] == stdinText)
      return &d;
  return nullptr;
}

// The three fixes, whatever the printing: the right one accepted with the bonus listed as
// a kept change, the over-correction rejected on an amount in 450..499, the good version
// accepted with a warning.
void checkFixes(const fs::path &d, const std::string &feeName) {
  json right = validate(d, "fix_right", 0);
  CHECK(right["accepted"] == true);
  CHECK(right["proof"]["result"] == "proved");
  // `500 3`: good `0 10`, bad `25 0`, fix `0 0`: the fee restored, the bonus kept.
  const json *kept = find(right["neighbours"]["disagreements"], "500 3\n");
  REQUIRE(kept != nullptr);
  CHECK((*kept)["class"] == "kept change");
  std::map<std::string, std::string> classes;
  for (const auto &v : (*kept)["values"])
    classes[v["name"].is_null() ? "" : v["name"].get<std::string>()] = v["class"];
  CHECK(classes[feeName] == "restored");
  CHECK(classes["bonus"] == "kept change");

  json over = validate(d, "fix_over", 1);
  CHECK(over["accepted"] == false);
  bool between = false;
  for (const auto &dis : over["neighbours"]["disagreements"]) {
    if (dis["class"] != "new behaviour")
      continue;
    int amount = std::stoi(dis["input"]["stdin"].get<std::string>());
    CHECK((amount >= 450 && amount < 500));
    between = true;
    REQUIRE(dis["values"].size() == 1); // the fee only: the bonus is like both versions
    CHECK(dis["values"][0]["class"] == "new behaviour");
    CHECK(dis["values"][0]["good"] == "25");
    CHECK(dis["values"][0]["fix"] == "0");
  }
  CHECK(between);

  json revert = validate(d, "fix_revert", 0);
  CHECK(revert["accepted"] == true);
  REQUIRE(revert["warnings"].size() >= 1);
  CHECK(revert["warnings"][0].get<std::string>().find("also reverts the change at main.c:11") !=
        std::string::npos);
}

} // namespace

TEST_CASE("output values: a line splits into its values, and outputs compare value by value "
          "where their lines split alike",
          "[validate][values]") {
  LineValues v = splitValues("{\"fee\": 25, \"bonus\": -3.5}");
  CHECK(v.values == std::vector<std::string>{"fee", "25", "bonus", "-3.5"});
  CHECK(v.between == std::vector<std::string>{"{\"", "\": ", ", \"", "\": ", "}"});
  CHECK(splitValues("a,b,,c").values == std::vector<std::string>{"a", "b", "c"});
  CHECK(differingValues("0 10\n5\n", "25 10\n5\n") == std::vector<ValuePlace>{{0, 0}});
  // Lines that do not split alike are one place each.
  CHECK(differingValues("fee 0\n", "fee: none\n") == std::vector<ValuePlace>{{0, std::nullopt}});
  CHECK(differingValues("1\n", "1\n2\n") == std::vector<ValuePlace>{{1, std::nullopt}});
  CHECK(placeText({0, 1}) == "value 2 of line 1");
  CHECK(placeBytes("x 12\nfee=25 bonus=0\n", {1, 3}) == std::pair<size_t, size_t>{18, 19});
  CHECK(covers({{0, 1}}, {0, std::nullopt}));
  CHECK_FALSE(covers({{0, 1}}, {0, 0}));
}

TEST_CASE("validate judges each value: the right fix beside an intended change on the same line "
          "is accepted, an over-correction is rejected, the good version is accepted with a "
          "warning",
          "[validate][values]") {
  checkFixes(feeBonus(), "fee");
}

TEST_CASE("validate judges each value across lines and through an sprintf buffer",
          "[validate][values]") {
  TempDir a;
  checkFixes(variant(a, "printf(\"fee %d\\nbonus %d\\n\", fee, bonus);"), "fee");
  TempDir b;
  checkFixes(variant(b, "char text[16];\n  snprintf(text, sizeof text, \"%d\", fee);\n  "
                        "printf(\"%s %d\\n\", text, bonus);"),
             "text");
}

TEST_CASE("validate judges each value on single files and on commits, in every report form",
          "[validate][values][vcs]") {
  fs::path d = feeBonus();
  ProcessResult files =
      runRootline({"validate", "--old", (d / "good" / "main.c").string(), "--new",
                   (d / "bad" / "main.c").string(), "--fix", (d / "fix_right" / "main.c").string(),
                   "--stdin", (d / "input.txt").string()});
  INFO(files.err);
  CHECK(files.exitedWith(0));
  CHECK(files.out.find("value 2 of line 1 (`bonus`): kept change, like bad") != std::string::npos);

  TempDir t;
  fs::path repo = t.path / "repo";
  fs::create_directories(repo);
  REQUIRE(git(repo, {"init", "-q", "-b", "main"}).exitedWith(0));
  for (const char *v : {"good", "bad", "fix_right"}) {
    fs::copy_file(d / v / "main.c", repo / "main.c", fs::copy_options::overwrite_existing);
    REQUIRE(git(repo, {"add", "main.c"}).exitedWith(0));
    REQUIRE(git(repo, {"commit", "-q", "-m", v}).exitedWith(0));
    REQUIRE(git(repo, {"tag", v}).exitedWith(0));
  }
  fs::path out = t.path / "report";
  ProcessResult commits = runRootline(
      {"validate", "--repo", repo.string(), "--good", "good", "--bad", "bad", "--fix", "fix_right",
       "--src", "main.c", "--stdin", (d / "input.txt").string(), "--out", out.string()});
  INFO(commits.err);
  CHECK(commits.exitedWith(0));
  json j = json::parse(readFile(out / "validate.json"));
  CHECK(j["accepted"] == true);
  REQUIRE(j["test"]["failing_values"].size() == 1);
  CHECK(j["test"]["failing_values"][0]["line"] == 1);
  CHECK(j["test"]["failing_values"][0]["value"] == 1);
  CHECK(j["test"]["failing_values"][0]["name"] == "fee");
  for (const char *file : {"validate.md", "validate.html"})
    CHECK(readFile(out / file).find("value 2 of line 1 (`bonus`): kept change, like bad") !=
          std::string::npos);
  json sarif = json::parse(readFile(out / "validate.sarif"));
  CHECK(sarif["runs"][0]["results"][0]["properties"]["values"][1]["class"] == "kept change");
}

TEST_CASE("debug reports the value that differs and counts an alternative input on which the "
          "versions agree where the test failed",
          "[debug][values]") {
  fs::path d = feeBonus();
  // The regression between good and bad, on `500 1`: the fee is wrong, the bonus alike.
  ProcessResult r =
      runRootline({"--json", "debug", "--old", (d / "good" / "main.c").string(), "--new",
                   (d / "bad" / "main.c").string(), "--stdin", (d / "input.txt").string()});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  json j = json::parse(r.out);
  CHECK(j["failure"]["summary"].get<std::string>().find(
            "value 1 of line 1 is `25` where `0` is expected") != std::string::npos);
  REQUIRE_FALSE(j["candidates"].empty());
  CHECK(j["candidates"][0]["line"] == 5);
}

TEST_CASE("debug: an alternative input on which the versions agree in the values the test got "
          "wrong, and differ only in another, counts as agreeing where the test failed",
          "[debug][values]") {
  std::vector<ValuePlace> failing = {{0, 0}}; // the fee, on line 1
  auto run = [](const std::string &out) { return RunSummary{"exit 0", out, 0, ""}; };
  auto where = debug::agreesWhereFailing(run("0 10\n"), run("0 0\n"), failing, false);
  REQUIRE(where);
  CHECK(*where == "both versions print the same values where the failing run differs (value 1 "
                  "of line 1); they differ only in value 2 of line 1, which the failing run "
                  "printed alike");
  CHECK_FALSE(debug::agreesWhereFailing(run("0 10\n"), run("25 10\n"), failing, false));
  CHECK_FALSE(debug::agreesWhereFailing(run("0 10\n"), run("0 10\n"), failing, false));
  CHECK_FALSE(debug::agreesWhereFailing(run("0 10\n"), RunSummary{"exit 1", "0 0\n", 0, ""},
                                        failing, false));
  // A line that no longer splits alike is one place, and it holds the failing value.
  CHECK_FALSE(debug::agreesWhereFailing(run("0 10\n"), run("0\n"), failing, false));
}
