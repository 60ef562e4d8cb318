// Alternative inputs a person believes (docs/debug.md, "Alternative inputs"): close to
// the failing input, printable where it was, shown as changes; agreement on input both
// versions reject labelled weak.
#include "test_support.h"

#include "rootline/fs.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::test;

namespace {

bool unprintable(const std::string &bytes) {
  for (unsigned char c : bytes)
    if ((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c >= 0x7f)
      return true;
  return false;
}

std::vector<std::string> words(const std::string &text) {
  std::vector<std::string> out;
  std::string w;
  for (char c : text + " ") {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      if (!w.empty())
        out.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  return out;
}

unsigned changedWords(const std::string &a, const std::string &b) {
  auto x = words(a), y = words(b);
  unsigned n = 0;
  for (size_t i = 0; i < std::max(x.size(), y.size()); ++i)
    n += i >= x.size() || i >= y.size() || x[i] != y[i];
  return n;
}

const DebugCandidate *rootCause(const DebugReport &r, const RegressionFixture &f) {
  for (const auto &c : r.candidates)
    if (c.version == f.rootVersion && c.file == f.rootFile && c.line == unsigned(f.rootLine))
      return &c;
  return nullptr;
}

} // namespace

TEST_CASE("the alternative input is the failing input with one token moved by one, shown as "
          "that change",
          "[debug][evidence]") {
  RegressionFixture r = regressionFixture("discount_threshold");
  TempDir t;
  auto res = runRootline({"debug", "-q", "--old", (r.dir / "old").string(), "--new",
                          (r.dir / "new").string(), "--src", "main.c", "--stdin",
                          (r.dir / "input.txt").string(), "--out", (t.path / "rep").string()});
  REQUIRE(res.exitedWith(0));
  auto j = nlohmann::json::parse(readFile(t.path / "rep" / "report.json"));
  const auto &c = j["candidates"][0];
  CHECK(c["line"] == 6);
  // qty 10 fails the new `qty > 10`; 11 is the nearest input that takes the discount.
  CHECK(c["alternative_changes"] == nlohmann::json::array({"token 1: 10 → 11"}));
  CHECK(c["alternative_input"]["stdin"] == "11 200\n");
  CHECK(c["evidence"]["weak"].is_null());
  CHECK(c["demonstrates"].get<std::string>().find("main.c:6") != std::string::npos);
  CHECK(res.out.find("alternative input (token 1: 10 → 11)") != std::string::npos);
  std::string md = readFile(t.path / "rep" / "report.md");
  CHECK(md.find("Alternative input: token 1: 10 → 11") != std::string::npos);
  CHECK(md.find("<details><summary>the whole alternative input</summary>") != std::string::npos);
  std::string html = readFile(t.path / "rep" / "report.html");
  CHECK(html.find("token 1: 10 → 11<details><summary>whole input</summary>") != std::string::npos);
}

TEST_CASE("a line-oriented parser gets a one-byte change, not bytes every version rejects",
          "[debug][evidence]") {
  RegressionFixture r = regressionFixture("refactor_200_lines");
  DebugReport closest = debugRegression(debugRequest(r));
  const DebugCandidate *c = rootCause(closest, r);
  REQUIRE(c);
  CHECK(c->rank == 1);
  REQUIRE(c->hasAlternative);
  CHECK_FALSE(unprintable(c->alternative.stdinBytes));
  CHECK(c->alternativeChanges.size() == 1);
  CHECK(changedWords(r.program.stdinFile ? readFile(*r.program.stdinFile) : "",
                     c->alternative.stdinBytes) == 1);
  CHECK(c->weakEvidence.empty());
  CHECK(c->removesFailure);

  // The solver's first model changes many bytes. The parser's isdigit and strcmp calls
  // are modelled (docs/explore.md, "libc models"), so the deviation query keeps the
  // reading parseable: the old version still accepts the readings (before the models
  // both versions printed "readings: 0", rejecting every line), and the cause still
  // ranks first, but the closest input is the smaller change.
  DebugRequest first = debugRequest(r);
  first.closestInputs = false;
  DebugReport raw = debugRegression(first);
  const DebugCandidate *w = rootCause(raw, r);
  REQUIRE(w);
  CHECK(w->rank == 1);
  REQUIRE(w->ran);
  CHECK(w->oldRun.stdoutBytes.find("readings: 0") == std::string::npos);
  CHECK(w->oldRun.stdoutBytes.find("readings: ") != std::string::npos);
  CHECK(w->weakEvidence.empty());
  CHECK(w->alternativeChanges.size() > c->alternativeChanges.size());
}

TEST_CASE("programs with input-error paths: the cause first, printable alternative inputs a "
          "token or two away, agreement on rejected input never counted as evidence",
          "[debug][evidence][fixtures]") {
  auto corpus = regressionFixturesIn("evidence");
  REQUIRE(corpus.size() >= 6);
  unsigned alternatives = 0, changed = 0;
  for (const auto &f : sampledUnderSanitizers(corpus, 2)) {
    INFO(f.name);
    DebugReport r = debugRegression(debugRequest(f));
    const DebugCandidate *cause = rootCause(r, f);
    REQUIRE(cause);
    CHECK(cause->rank == 1);
    std::string seed = readFile(*f.program.stdinFile);
    for (const auto &c : r.candidates) {
      if (!c.hasAlternative)
        continue;
      ++alternatives;
      changed += changedWords(seed, c.alternative.stdinBytes);
      CHECK_FALSE(unprintable(c.alternative.stdinBytes));
      // Versions agreeing on an input the old version rejects (an error exit, or no
      // output) is weak evidence, and labelled so.
      if (c.ran && c.removesFailure &&
          (c.oldRun.outcome != "exit 0" || c.oldRun.stdoutBytes.empty()))
        CHECK_FALSE(c.weakEvidence.empty());
    }
  }
  REQUIRE(alternatives > 0);
  CHECK(double(changed) / alternatives <= 2.0);
}

TEST_CASE("a changed computation shows an input where old and new compute the same value and "
          "one where they differ",
          "[debug][evidence]") {
  RegressionFixture r = regressionFixture("value_surcharge");
  TempDir t;
  auto res = runRootline({"debug", "-q", "--old", (r.dir / "old").string(), "--new",
                          (r.dir / "new").string(), "--src", "main.c", "--stdin",
                          (r.dir / "input.txt").string(), "--out", (t.path / "rep").string()});
  INFO(res.out << res.err);
  REQUIRE(res.exitedWith(0));
  auto j = nlohmann::json::parse(readFile(t.path / "rep" / "report.json"));
  const auto &c = j["candidates"][0];
  CHECK(c["line"] == 8);
  REQUIRE(c.contains("value_evidence"));
  const auto &ev = c["value_evidence"];
  REQUIRE(ev.size() == 2);
  // qty * 2 == qty + 2 only at qty = 2: both print the same there.
  const auto &same = ev[0];
  CHECK(same["same_value"] == true);
  CHECK(same["changes"] == nlohmann::json::array({"token 1: 5 → 2"}));
  CHECK(same["old_value"] == "4");
  CHECK(same["new_value"] == "4");
  CHECK(same["runs"]["outputs_agree"] == true);
  CHECK(same["runs"]["old"]["stdout"] == "total 104\n");
  // Elsewhere in the partition they differ, and so do the outputs: the outputs follow
  // the line's value.
  const auto &apart = ev[1];
  CHECK(apart["same_value"] == false);
  CHECK(apart["old_value"] != apart["new_value"]);
  CHECK(apart["changes"].size() == 1);
  CHECK(apart["runs"]["outputs_agree"] == false);
  bool follows = false;
  for (const auto &reason : c["reasons"])
    follows = follows || reason.get<std::string>().find("the outputs follow this line's value") !=
                             std::string::npos;
  CHECK(follows);
  // Every format says it.
  CHECK(res.out.find("token 1: 5 → 2: both versions compute `extra` = 4 here") !=
        std::string::npos);
  CHECK(readFile(t.path / "rep" / "report.md").find("**Value evidence**") != std::string::npos);
  CHECK(readFile(t.path / "rep" / "report.html").find("value evidence:") != std::string::npos);
  CHECK(readFile(t.path / "rep" / "report.sarif").find("valueEvidence") != std::string::npos);
}

TEST_CASE("value evidence on a partition past the node bound is left out with a note",
          "[debug][evidence]") {
  // A table lexer's partition holds hundreds of thousands of nodes: a query over it
  // overran its 1 s timeout by seconds. The stage says so instead of asking.
  RegressionFixture r = regressionFixture("stress_table_lexer");
  TempDir t;
  auto res = runRootline({"--json", "debug", "--old", (r.dir / "old").string(), "--new",
                          (r.dir / "new").string(), "--stdin", (r.dir / "input.txt").string()});
  INFO(res.err);
  REQUIRE(res.exitedWith(0));
  auto j = nlohmann::json::parse(res.out);
  std::string note;
  for (const auto &s : j["stages"])
    if (s["name"] == "evidence")
      note = s["note"];
  INFO(note);
  CHECK(note.find("no value evidence: the partition's ") == 0);
  CHECK(note.find(" nodes pass the bound of 250000") != std::string::npos);
  for (const auto &c : j["candidates"])
    CHECK_FALSE(c.contains("value_evidence"));
}

TEST_CASE("an alternative input that follows the failing run's path to its end is real "
          "evidence, not weak",
          "[debug][evidence]") {
  // command_calc's error path echoes the unknown word: only the path prefix would show a
  // rejected input. The cause's input (token 4: 3 -> 1) runs the whole calculation.
  RegressionFixture f = regressionFixtureIn("evidence", "command_calc");
  DebugReport r = debugRegression(debugRequest(f));
  const DebugCandidate *cause = rootCause(r, f);
  REQUIRE(cause);
  CHECK(cause->rank == 1);
  REQUIRE(cause->ran);
  CHECK(cause->removesFailure);
  CHECK(cause->weakEvidence.empty());
  CHECK(cause->oldRun.stdoutBytes.find("after 3 steps") != std::string::npos);
}
