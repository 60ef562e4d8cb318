// Every failure gets a diagnosis (docs/debug.md, "Failure kinds"): the fixtures of
// fixtures/diagnoses end in a ranked report whose first line is the root cause, never
// in an error, whatever the new version does wrong.
#include "rootline/debug.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <map>

using namespace rootline;
using namespace rootline::test;

namespace {

std::vector<RegressionFixture> ofKind(const std::string &kind) {
  std::vector<RegressionFixture> out;
  for (auto &r : regressionFixturesIn("diagnoses"))
    if (r.meta.value("failure_kind", "") == kind)
      out.push_back(r);
  return out;
}

// The report of a fixture, which must rank its root cause first.
DebugReport diagnose(const RegressionFixture &r) {
  DebugRequest req = debugRequest(r);
  req.budgetSeconds = 40;
  DebugReport rep = debugRegression(req);
  REQUIRE_FALSE(rep.candidates.empty());
  const DebugCandidate &top = rep.candidates[0];
  INFO("failure: " << rep.failure << "; rank 1: " << top.version << ":" << top.line << " "
                   << top.kind);
  CHECK(top.version == r.rootVersion);
  CHECK(top.line == static_cast<unsigned>(r.rootLine));
  return rep;
}

} // namespace

TEST_CASE("a hang: the loop that does not exit is the criterion and its cause ranks first",
          "[debug][diagnoses][hang]") {
  auto all = ofKind("hang");
  REQUIRE(all.size() >= 3);
  for (const auto &r : sampledUnderSanitizers(all)) {
    DYNAMIC_SECTION(r.name) {
      DebugReport rep = diagnose(r);
      CHECK(rep.hang);
      CHECK(rep.failureKind == "hang");
      CHECK(rep.newRun.outcome == "timeout");
      // Runs after the failure stage get a multiple of the old run's time, not --timeout.
      CHECK(rep.runTimeoutSeconds < 30);
      std::string loopLine = ":" + std::to_string(r.meta["hang"]["loop_line"].get<int>()) + " ";
      INFO(rep.hangLoop);
      CHECK(rep.hangLoop.find(loopLine) != std::string::npos);
      CHECK(rep.newCriterion.find("exit condition of the loop") != std::string::npos);
    }
  }
}

TEST_CASE("the new version prints less, or nothing: the lost output's cause ranks first",
          "[debug][diagnoses][missing-output]") {
  auto all = ofKind("missing_output");
  REQUIRE(all.size() >= 3);
  for (const auto &r : sampledUnderSanitizers(all)) {
    DYNAMIC_SECTION(r.name) {
      DebugReport rep = diagnose(r);
      CHECK(rep.failureKind == "missing output");
    }
  }
}

TEST_CASE("the new version prints more: the extra output's cause ranks first",
          "[debug][diagnoses][extra-output]") {
  auto all = ofKind("extra_output");
  REQUIRE(all.size() >= 3);
  for (const auto &r : sampledUnderSanitizers(all)) {
    DYNAMIC_SECTION(r.name) {
      DebugReport rep = diagnose(r);
      CHECK((rep.failureKind == "extra output" || rep.failureKind == "wrong output"));
    }
  }
}

TEST_CASE("a memory error in the new version: its cause ranks first",
          "[debug][diagnoses][memory]") {
  auto all = ofKind("memory_error");
  REQUIRE(all.size() >= 3);
  for (const auto &r : sampledUnderSanitizers(all, 2)) {
    DYNAMIC_SECTION(r.name) {
      DebugReport rep = diagnose(r);
      // The replay-time checker's finding, like a sanitizer's, confirmed by one.
      const auto &m = r.meta["memory_error"];
      std::string kind = m["kind"].get<std::string>();
      if (kind == "uninitialized")
        kind = "uninitialized-read";
      REQUIRE_FALSE(rep.memoryErrors.empty());
      const MemoryError &e = rep.memoryErrors.front();
      INFO(e.text << " / " << e.confirmed);
      CHECK(e.kind == kind);
      std::string sanitizer = kind == "uninitialized-read" ? "MemorySanitizer" : "AddressSanitizer";
      std::string at = "main.c:" + std::to_string(m["access_line"].get<int>());
      CHECK(e.confirmed.rfind(sanitizer, 0) == 0);
      CHECK(e.confirmed.find(at) != std::string::npos);
      if (kind != "uninitialized-read") // the checker names the load; MSan the use
        CHECK(e.line == static_cast<unsigned>(m["access_line"].get<int>()));
      CHECK(e.objectLine == static_cast<unsigned>(m["object_line"].get<int>()));
      CHECK(reportSummary(rep).find("rootline: memory error: " + e.text + " (" + e.confirmed +
                                    ")") != std::string::npos);
    }
  }
}

TEST_CASE("the summary says when the sanitizer build did not confirm a memory error, or did not "
          "run",
          "[debug][diagnoses][memory]") {
  DebugReport rep;
  MemoryError e;
  e.text = "bi_funct.c:334 writes 8 byte(s) at offset 56 of `missing` (24 bytes)";
  e.confirmed = "not confirmed: the address sanitizer build reported nothing";
  rep.memoryErrors.push_back(e);
  e.confirmed.clear();
  rep.memoryErrors.push_back(e);
  std::string summary = reportSummary(rep);
  CHECK(summary.find("(24 bytes) (not confirmed: the address sanitizer build reported "
                     "nothing)\n") != std::string::npos);
  CHECK(summary.find("(24 bytes) (not checked by a sanitizer build)\n") != std::string::npos);
}

TEST_CASE("when the sanitizer build reports nothing, every memory finding of the run is "
          "unconfirmed, not only the first",
          "[debug][diagnoses][memory]") {
  // `a + (b - a) + 2` is `b + 2`: the replay's checker follows the pointer's provenance
  // (`a`, 16 bytes) and reports a write and a read 24 bytes into it; AddressSanitizer
  // sees valid accesses to `b` and says nothing. Neither finding may stand confirmed,
  // nor pass for checked.
  const char *oldText = "#include <stdio.h>\n"
                        "int main(void) {\n"
                        "  int a[4] = {0}, b[4] = {0};\n"
                        "  int n = 0;\n"
                        "  if (scanf(\"%d\", &n) != 1)\n"
                        "    return 1;\n"
                        "  b[1] = n;\n"
                        "  int got = b[1];\n"
                        "  printf(\"%d %d %d\\n\", a[0], b[1], got);\n"
                        "  return 0;\n"
                        "}\n";
  const char *newText = "#include <stdio.h>\n"
                        "int main(void) {\n"
                        "  int a[4] = {0}, b[4] = {0};\n"
                        "  int n = 0;\n"
                        "  if (scanf(\"%d\", &n) != 1)\n"
                        "    return 1;\n"
                        "  long gap = b - a;\n"
                        "  a[gap + 2] = n;\n"
                        "  int got = a[gap + 2];\n"
                        "  printf(\"%d %d %d\\n\", a[0], b[1], got);\n"
                        "  return 0;\n"
                        "}\n";
  TempDir t;
  DebugRequest req = twoVersions(t.path, oldText, newText, "7\n");
  req.budgetSeconds = 60;
  DebugReport rep = debugRegression(req);
  REQUIRE(rep.newRun.stdoutBytes == "0 0 7\n");
  REQUIRE(rep.memoryErrors.size() >= 2);
  for (const MemoryError &e : rep.memoryErrors) {
    INFO(e.text << " / " << e.confirmed);
    CHECK(e.confirmed == "not confirmed: the address sanitizer build reported nothing");
  }
  unsigned withFinding = 0;
  for (const DebugCandidate &c : rep.candidates)
    if (!c.memoryError.empty()) {
      ++withFinding;
      INFO(c.line << ": " << c.memoryError);
      CHECK(c.memoryCheck == "unconfirmed");
      CHECK(c.memoryError.find("(unconfirmed: the sanitizer build reported nothing)") !=
            std::string::npos);
    }
  CHECK(withFinding >= 1);
}

TEST_CASE("a program that reads files: their bytes are named inputs and the cause ranks first",
          "[debug][diagnoses][files]") {
  auto all = ofKind("file_input");
  REQUIRE(all.size() >= 3);
  unsigned symbolicFiles = 0; // fixtures whose conditions name file inputs
  for (const auto &r : all) {
    INFO(r.name);
    DebugReport rep = diagnose(r);
    bool named = false;
    for (const auto &c : rep.candidates) {
      bool onFile = c.conditionSmt.find("ftok:") != std::string::npos ||
                    c.conditionSmt.find("file:") != std::string::npos;
      // A model rewrites the file, never stdin the program does not read.
      if (c.hasAlternative && onFile) {
        CHECK_FALSE(c.alternative.files.empty());
        CHECK(c.alternative.stdinBytes == rep.input.stdinBytes);
      }
      named |= onFile;
    }
    symbolicFiles += named;
  }
  CHECK(symbolicFiles >= 3);
}

TEST_CASE("files the program opens are found in the directory rootline runs from",
          "[debug][diagnoses][files][cli]") {
  RegressionFixture r = regressionFixtureIn("diagnoses", "file_freopen_grades");
  // Run from the directory that holds input.txt, with relative version paths, as a
  // user would; nothing is written there.
  auto before = snapshotTree(r.dir);
  ProcessSpec spec;
  spec.argv = {rootlineBinary(), "--json", "debug", "--old", "../old",
               "--new",          "../new", "--src", "main.c"};
  spec.workDir = (r.dir / "files").string();
  spec.timeoutSeconds = 300;
  ProcessResult p = runProcess(spec);
  INFO(p.err);
  REQUIRE(p.exitedWith(0));
  auto j = nlohmann::json::parse(p.out);
  CHECK(j["candidates"][0]["line"] == r.rootLine);
  CHECK(j["test"]["input"]["files"].contains("input.txt"));
  CHECK(j["revert_trials"][0]["result"] == "passes");
  bool noted = false;
  for (const auto &n : j["notes"])
    noted |= n.get<std::string>().find("input file input.txt") != std::string::npos;
  CHECK(noted);
  CHECK(snapshotTree(r.dir) == before);
}

TEST_CASE("every failure kind is diagnosed from two single files and from two commits",
          "[debug][diagnoses][cli][git][heavy]") {
  std::map<std::string, RegressionFixture> firstOfKind;
  for (const auto &r : regressionFixturesIn("diagnoses"))
    firstOfKind.try_emplace(r.meta.value("failure_kind", ""), r);
  REQUIRE(firstOfKind.size() >= 5);
  for (const auto &[kind, r] : firstOfKind) {
    DYNAMIC_SECTION(kind << " " << r.name) {
      std::vector<std::string> test;
      if (r.program.stdinFile)
        test.insert(test.end(), {"--stdin", r.program.stdinFile->string()});
      if (r.meta.contains("files"))
        for (const auto &f : r.meta["files"])
          test.insert(test.end(),
                      {"--file", f.get<std::string>() + "=" +
                                     (r.dir / "files" / f.get<std::string>()).string()});
      test.insert(test.end(), {"--budget", "40"});
      if (!r.program.args.empty()) {
        test.push_back("--");
        test.insert(test.end(), r.program.args.begin(), r.program.args.end());
      }
      auto rankOne = [&](std::vector<std::string> args) {
        args.insert(args.end(), test.begin(), test.end());
        ProcessResult p = runRootline(args);
        INFO(p.err);
        REQUIRE(p.exitedWith(0));
        auto j = nlohmann::json::parse(p.out);
        CHECK(j["candidates"][0]["version"] == r.rootVersion);
        CHECK(j["candidates"][0]["line"] == r.rootLine);
        return j;
      };
      // Two single files.
      rankOne({"--json", "debug", "--old", (r.dir / "old" / "main.c").string(), "--new",
               (r.dir / "new" / "main.c").string()});
      // Two commits of a repository.
      TempDir t;
      fs::path repo = t.path / "repo";
      fs::create_directories(repo);
      REQUIRE(git(repo, {"init", "-q"}).exitedWith(0));
      fs::copy_file(r.dir / "old" / "main.c", repo / "main.c");
      REQUIRE(git(repo, {"add", "main.c"}).exitedWith(0));
      REQUIRE(git(repo, {"commit", "-qm", "works"}).exitedWith(0));
      fs::copy_file(r.dir / "new" / "main.c", repo / "main.c",
                    fs::copy_options::overwrite_existing);
      REQUIRE(git(repo, {"commit", "-qam", "breaks"}).exitedWith(0));
      auto j = rankOne({"--json", "debug", "--repo", repo.string(), "--good", "HEAD~1", "--bad",
                        "HEAD", "--src", "main.c"});
      CHECK(j["failure"]["kind"].get<std::string>().size() > 0);
    }
  }
}

TEST_CASE("when the sanitizer build confirms the first memory finding, the others read as not "
          "checked, never as confirmed",
          "[debug][diagnoses][memory]") {
  // Two heap overflows on two lines: the sanitizer stops at the first it meets.
  const char *oldText = "#include <stdio.h>\n"
                        "#include <stdlib.h>\n"
                        "int main(void) {\n"
                        "  int n = 0;\n"
                        "  if (scanf(\"%d\", &n) != 1)\n"
                        "    return 1;\n"
                        "  int *a = calloc(4, sizeof *a), *b = calloc(4, sizeof *b);\n"
                        "  a[3] = n;\n"
                        "  b[3] = a[3] + 1;\n"
                        "  printf(\"%d %d\\n\", a[3], b[3]);\n"
                        "  return 0;\n"
                        "}\n";
  std::string newText = oldText;
  newText.replace(newText.find("a[3] = n;"), 9, "a[4] = n;");
  newText.replace(newText.find("b[3] = a[3] + 1;"), 16, "b[5] = a[4] + 1;");
  TempDir t;
  DebugRequest req = twoVersions(t.path, oldText, newText, "7\n");
  req.budgetSeconds = 60;
  DebugReport rep = debugRegression(req);
  REQUIRE(rep.memoryErrors.size() >= 2);
  INFO(rep.memoryErrors.front().text << " / " << rep.memoryErrors.front().confirmed);
  REQUIRE(rep.memoryErrors.front().confirmed.rfind("AddressSanitizer", 0) == 0);
  for (size_t i = 1; i < rep.memoryErrors.size(); ++i) {
    INFO(rep.memoryErrors[i].text);
    CHECK(rep.memoryErrors[i].confirmed ==
          "not checked: the sanitizer build stops at its first report");
  }
  for (const DebugCandidate &c : rep.candidates)
    if (!c.memoryError.empty() && c.memoryError.rfind(rep.memoryErrors.front().text, 0) != 0) {
      INFO(c.memoryError);
      CHECK(c.memoryCheck == "unchecked");
    }
}
