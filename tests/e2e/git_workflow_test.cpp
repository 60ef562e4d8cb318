// Git workflows on real repositories made by fixtures/git/make_history.py: the vcs
// layer, debug between commits, bisect (library, CLI and `git bisect run`), and the
// guarantee that no rootline command changes the user's repository.
#include "rootline/bisect.h"
#include "rootline/error.h"
#include "rootline/run.h"
#include "rootline/vcs.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>

using namespace rootline;
using namespace rootline::test;
using nlohmann::json;

namespace {

std::string h(const json &j, const char *key) { return j.at(key).get<std::string>(); }

size_t lineCount(const std::string &s) { return std::count(s.begin(), s.end(), '\n'); }

CommitCheck t1Check(const fs::path &repo) {
  CommitCheck c;
  c.input.stdinBytes = readFile(repo / "tests" / "t1.in");
  c.expectedStdout = readFile(repo / "tests" / "t1.out");
  return c;
}

unsigned bound(size_t range, unsigned skipped) {
  return static_cast<unsigned>(std::ceil(std::log2(double(range)))) + skipped + 2;
}

} // namespace

TEST_CASE("vcs: revisions, metadata, first-parent history, tree diffs and materialised trees",
          "[vcs]") {
  TempDir t;
  json m = makeHistory(t.path / "repo", {"--commits", "24", "--bad-at", "13", "--broken-at", "6",
                                         "--merge-at", "10", "--fixes"});
  fs::path dir = t.path / "repo";
  Repository repo = Repository::open(dir / "src"); // found from a subdirectory too
  CHECK(fs::equivalent(repo.root(), dir));
  auto commits = m["commits"].get<std::vector<std::string>>();

  CHECK(repo.resolve("main") == h(m, "bad"));
  CHECK(repo.resolve("HEAD") == h(m, "bad"));
  CHECK(repo.resolve("HEAD~3") == commits[20]);
  CHECK(repo.resolve(commits[4].substr(0, 8)) == commits[4]);
  CHECK(repo.resolve("fix") == h(m, "fix"));
  REQUIRE(git(dir, {"tag", "-a", "v0.5", "-m", "release", commits[4]}).exitedWith(0));
  CHECK(repo.resolve("v0.5") == commits[4]); // an annotated tag peels to its commit
  CHECK(badInputError([&] { repo.resolve("main^{tree}"); }) ==
        "revision 'main^{tree}' does not name a commit");
  CHECK(badInputError([&] { repo.resolve("no-such-branch"); }) ==
        "unknown revision 'no-such-branch' in '" + (dir / "src").string() + "'");

  CommitInfo bad = repo.commit(h(m, "first_bad"));
  CHECK(bad.hash == h(m, "first_bad"));
  CHECK(bad.shortHash.size() >= 7);
  CHECK(bad.hash.rfind(bad.shortHash, 0) == 0);
  CHECK(bad.author == "Rootline Fixture");
  CHECK(bad.date == "2024-01-01T13:00:00+00:00");
  CHECK(bad.subject.find("(13)") != std::string::npos);
  CHECK(bad.parents == std::vector<std::string>{commits[11]});
  CHECK(repo.commit(h(m, "merge")).parents.size() == 2);

  CHECK(repo.isAncestor(h(m, "good"), h(m, "bad")));
  CHECK_FALSE(repo.isAncestor(h(m, "bad"), h(m, "good")));
  auto range = repo.firstParentRange(h(m, "good"), h(m, "bad"));
  CHECK(range == std::vector<std::string>(commits.begin() + 1, commits.end()));

  // The tree is the commit's, not the work tree's.
  writeText(dir / "src" / "stats.c", "dirty work tree\n");
  fs::path tree = repo.materialize(h(m, "first_bad"));
  CHECK(tree.parent_path().filename() == "trees");
  ProcessResult show = git(dir, {"show", h(m, "first_bad") + ":src/stats.c"});
  REQUIRE(show.exitedWith(0));
  CHECK(readFile(tree / "src" / "stats.c") == show.out);
  CHECK(repo.materialize(h(m, "first_bad")) == tree);
  unsigned line = m["root_cause"]["line"].get<unsigned>();
  SourceDiff d = repo.diff(commits[11], h(m, "first_bad"));
  CHECK(d.ofNew("src/stats.c").changedInNew(line));
  CHECK(d.ofOld("src/stats.c").changedInOld(line));
  CHECK_FALSE(d.ofNew("src/stats.c").changedInNew(line - 1));
  CHECK(d.ofNew("include/stats.h").hunks.empty());
  CHECK(d.files.size() == 2); // the regression and one unrelated edit in main.c

  // Renames are found like git diff -M: the old path maps to the new one.
  REQUIRE(git(dir, {"checkout", "-q", "--", "src/stats.c"}).exitedWith(0));
  REQUIRE(git(dir, {"mv", "src/stats.c", "src/statistics.c"}).exitedWith(0));
  REQUIRE(git(dir, {"commit", "-q", "-m", "rename"}).exitedWith(0));
  SourceDiff renamed = repo.diff(h(m, "bad"), repo.resolve("HEAD"));
  REQUIRE(renamed.files.size() == 1);
  CHECK(renamed.files[0].oldPath == "src/stats.c");
  CHECK(renamed.files[0].newPath == "src/statistics.c");
  CHECK(renamed.files[0].lines.hunks.empty());

  // Repositories that cannot be used.
  fs::create_directories(t.path / "empty");
  REQUIRE(git(t.path / "empty", {"init", "-q"}).exitedWith(0));
  CHECK(badInputError([&] { Repository::open(t.path / "empty"); }).find("has no commits") !=
        std::string::npos);
  // A clone of a bundle of tags has no HEAD, but its tags name commits.
  REQUIRE(git(t.path / "empty", {"fetch", "-q", dir.string(), "refs/heads/main:refs/tags/main"})
              .exitedWith(0));
  Repository tagsOnly = Repository::open(t.path / "empty");
  CHECK(tagsOnly.resolve("main") == repo.resolve("main"));
  CHECK(badInputError([&] { tagsOnly.resolve("HEAD"); }).find("HEAD") != std::string::npos);
  // Outside any repository (the test tree itself may sit inside one).
  std::string plain = (fs::temp_directory_path() / "rootline-plain-XXXXXX").string();
  REQUIRE(mkdtemp(plain.data()));
  CHECK(badInputError([&] { Repository::open(plain); }).find("not inside a git repository") !=
        std::string::npos);
  fs::remove_all(plain);
}

TEST_CASE("debug --repo --good --bad ranks the regressed line and names both commits in every "
          "report format",
          "[vcs][debug]") {
  TempDir t;
  fs::path dir = t.path / "repo";
  json m = makeHistory(dir, {"--commits", "8", "--bad-at", "5"});
  std::string badHash = h(m, "first_bad");
  auto res = runRootline({"debug", "--repo", dir.string(), "--good", badHash.substr(0, 9) + "~1",
                          "--bad", badHash.substr(0, 9), "--stdin",
                          (dir / "tests" / "t1.in").string(), "--out", (t.path / "rep").string()});
  INFO(res.err);
  REQUIRE(res.exitedWith(0));
  json r = json::parse(readFile(t.path / "rep" / "report.json"));
  CHECK(r["commits"]["new"]["hash"] == badHash);
  CHECK(r["commits"]["old"]["hash"] == m["commits"][3]);
  CHECK(r["commits"]["new"]["author"] == "Rootline Fixture");
  CHECK(r["commits"]["new"]["date"] == "2024-01-01T05:00:00+00:00");
  CHECK(fs::equivalent(r["commits"]["repository"].get<std::string>(), dir));
  REQUIRE_FALSE(r["candidates"].empty());
  CHECK(r["candidates"][0]["file"] == "src/stats.c");
  CHECK(r["candidates"][0]["line"] == m["root_cause"]["line"]);
  CHECK(r["candidates"][0]["in_changed_region"] == true);

  std::string subject = r["commits"]["new"]["subject"];
  std::string shortHash = r["commits"]["new"]["short"];
  std::string oldShort = r["commits"]["old"]["short"];
  std::string md = readFile(t.path / "rep" / "report.md");
  CHECK(md.find(shortHash + " " + subject) != std::string::npos);
  CHECK(md.find(oldShort) != std::string::npos);
  std::string html = readFile(t.path / "rep" / "report.html");
  CHECK(html.find(shortHash) != std::string::npos);
  CHECK(res.out.find(shortHash + " " + subject) != std::string::npos);
  json sarif = json::parse(readFile(t.path / "rep" / "report.sarif"));
  auto &prov = sarif["runs"][0]["versionControlProvenance"];
  REQUIRE(prov.size() == 2);
  CHECK(prov[0]["revisionId"] == m["commits"][3]);
  CHECK(prov[1]["revisionId"] == badHash);
  CHECK(prov[1]["properties"]["subject"] == subject);
  ProcessSpec spec;
  spec.argv = {"/usr/bin/python3", (sourceDir() / "tests" / "tools" / "validate_json.py").string(),
               (t.path / "rep" / "report.sarif").string(), ROOTLINE_SARIF_SCHEMA};
  ProcessResult v = runProcess(spec);
  INFO(v.err);
  CHECK(v.exitedWith(0));

  // Bad revisions: one line, exit 2.
  auto unknown = runRootline({"debug", "--repo", dir.string(), "--good", "nope", "--bad", "main",
                              "--stdin", (dir / "tests" / "t1.in").string()});
  CHECK(unknown.exitedWith(ExitBadInput));
  CHECK(unknown.err == "rootline: error: unknown revision 'nope' in '" + dir.string() + "'\n");
  auto mixed = runRootline(
      {"debug", "--repo", dir.string(), "--old", dir.string(), "--good", "main", "--bad", "main"});
  CHECK(mixed.exitedWith(ExitBadInput));
  CHECK(lineCount(mixed.err) == 1);
}

TEST_CASE("bisect finds the first bad commit past a merge and a commit that does not build, "
          "within ceil(log2 n)+skips+2 builds, and debugs it",
          "[vcs][bisect]") {
  TempDir t;
  fs::path dir = t.path / "repo";
  // The first probe of the 23-commit range is commit 13, which does not build.
  json m = makeHistory(
      dir, {"--commits", "24", "--bad-at", "17", "--broken-at", "13", "--merge-at", "10"});
  Repository repo = Repository::open(dir);
  std::vector<std::string> progress;
  BisectOptions options;
  options.progress = [&](const std::string &s) { progress.push_back(s); };
  BisectResult r = bisectHistory(repo, h(m, "good"), h(m, "bad"), t1Check(dir), options);
  REQUIRE(r.firstBad);
  CHECK(r.firstBad->hash == h(m, "first_bad"));
  CHECK(r.rangeSize == 23);
  CHECK(r.skipped() >= 1);
  CHECK(r.steps.size() <= bound(r.rangeSize, r.skipped()));
  bool skippedBroken = false;
  for (const auto &s : r.steps)
    if (s.commit.hash == h(m, "broken")) {
      skippedBroken = s.verdict == Verdict::Skip;
      CHECK(s.reason.rfind("does not build: ", 0) == 0);
    }
  CHECK(skippedBroken);
  CHECK(progress.size() >= r.steps.size());
  REQUIRE(r.debug);
  REQUIRE_FALSE(r.debug->candidates.empty());
  CHECK(r.debug->candidates[0].file == "src/stats.c");
  CHECK(r.debug->candidates[0].line == m["root_cause"]["line"].get<unsigned>());
  CHECK(r.debug->newCommit->hash == h(m, "first_bad"));
  CHECK(r.debug->oldCommit->hash == r.firstBad->parents[0]);

  // The same bisection again builds nothing: trees and builds come from the cache.
  options.debugFirstBad = false;
  BisectResult again = bisectHistory(repo, h(m, "good"), h(m, "bad"), t1Check(dir), options);
  CHECK(again.firstBad->hash == h(m, "first_bad"));
  CHECK(again.compiled() == 0);
  CHECK(again.steps.size() == r.steps.size());

  // Without --expect the good commit's behaviour is the reference.
  CommitCheck noExpect = t1Check(dir);
  noExpect.expectedStdout.reset();
  BisectResult ref = bisectHistory(repo, h(m, "good"), h(m, "bad"), noExpect, options);
  CHECK(ref.firstBad->hash == h(m, "first_bad"));

  // Bad input.
  auto commits = m["commits"].get<std::vector<std::string>>();
  CHECK(badInputError([&] {
          bisectHistory(repo, h(m, "bad"), h(m, "good"), t1Check(dir), options);
        }).find("is not an ancestor of the bad commit") != std::string::npos);
  CHECK(badInputError([&] {
          bisectHistory(repo, commits[16], h(m, "bad"), t1Check(dir), options);
        }).find("the test fails at the good commit") != std::string::npos);
  CHECK(badInputError([&] {
          bisectHistory(repo, h(m, "good"), commits[15], t1Check(dir), options);
        }).find("the test passes at the bad commit") != std::string::npos);
  CHECK(badInputError([&] {
          bisectHistory(repo, h(m, "good"), h(m, "broken"), t1Check(dir), options);
        }).find("cannot test the bad commit") != std::string::npos);
}

TEST_CASE("rootline bisect on the command line, with --cmd, and as a git bisect run script",
          "[vcs][bisect]") {
  TempDir t;
  fs::path dir = t.path / "repo";
  json m = makeHistory(dir, {"--commits", "20", "--bad-at", "12", "--broken-at", "5"});
  auto commits = m["commits"].get<std::vector<std::string>>();
  std::string in = (dir / "tests" / "t1.in").string(), out = (dir / "tests" / "t1.out").string();

  auto res =
      runRootline({"bisect", "--repo", dir.string(), "--good", commits[0].substr(0, 7), "--bad",
                   "main", "--stdin", in, "--expect", out, "--out", (t.path / "rep").string()});
  INFO(res.err);
  REQUIRE(res.exitedWith(0));
  json b = json::parse(readFile(t.path / "rep" / "bisect.json"));
  CHECK(b["schema"] == "rootline.bisect/1");
  CHECK(b["first_bad"]["hash"] == m["first_bad"]);
  CHECK(b["range_size"] == 19);
  CHECK(b["steps"].size() <= bound(19, b["stats"]["skipped"].get<unsigned>()));
  CHECK(b["debug"]["candidates"][0]["line"] == m["root_cause"]["line"]);
  CHECK(fs::exists(t.path / "rep" / "report.sarif"));
  CHECK(res.err.find("step 1 (") != std::string::npos); // progress
  CHECK(res.out.find("first bad commit: " + b["first_bad"]["short"].get<std::string>()) !=
        std::string::npos);

  // --cmd: a commit the command cannot test next to the boundary leaves two candidates.
  std::string cmd = "test \"$ROOTLINE_COMMIT\" = " + commits[10] +
                    " && exit 125; \"$ROOTLINE_PROGRAM\" < tests/t1.in > got && cmp -s got "
                    "tests/t1.out";
  auto amb = runRootline({"--json", "bisect", "--repo", dir.string(), "--good", commits[0], "--bad",
                          "main", "--cmd", cmd, "--no-debug"});
  INFO(amb.err);
  CHECK(amb.exitedWith(ExitFailure));
  json a = json::parse(amb.out);
  CHECK(a["first_bad"].is_null());
  REQUIRE(a["possible_first_bad"].size() == 2);
  CHECK(a["possible_first_bad"][0]["hash"] == commits[10]);
  CHECK(a["possible_first_bad"][1]["hash"] == m["first_bad"]);
  CHECK(amb.err.empty()); // --json: no progress

  // --check REV: the exit codes of a git bisect run script.
  auto check = [&](const std::string &rev) {
    return runRootline(
        {"-q", "bisect", "--repo", dir.string(), "--check", rev, "--stdin", in, "--expect", out});
  };
  CHECK(check(commits[0]).exitedWith(0));
  CHECK(check(commits[10]).exitedWith(0));
  CHECK(check(h(m, "first_bad")).exitedWith(1));
  CHECK(check(h(m, "broken")).exitedWith(125));
  ProcessResult unknown = check("nope");
  CHECK(unknown.exitedWith(128));
  CHECK(lineCount(unknown.err) == 1);
  CHECK(runRootline({"bisect", "--repo", dir.string(), "--check", "main"}).exitedWith(128));

  // Driven by git itself.
  REQUIRE(git(dir, {"bisect", "start", "main", commits[0]}).exitedWith(0));
  ProcessResult run = git(dir, {"bisect", "run", rootlineBinary(), "-q", "bisect", "--check",
                                "HEAD", "--stdin", in, "--expect", out});
  INFO(run.out << run.err);
  CHECK(run.exitedWith(0));
  CHECK(run.out.find(h(m, "first_bad") + " is the first bad commit") != std::string::npos);
  CHECK(git(dir, {"bisect", "reset"}).exitedWith(0));

  // Errors of the full bisection: one line, exit 2.
  for (const auto &args :
       std::vector<std::vector<std::string>>{{"--good", "main", "--bad", commits[0]},
                                             {"--good", "nope", "--bad", "main"},
                                             {"--good", commits[0], "--bad", commits[5]},
                                             {"--good", "main~1", "--bad", "main"}}) {
    std::vector<std::string> full = {"-q",      "bisect", "--repo",   dir.string(),
                                     "--stdin", in,       "--expect", out};
    full.insert(full.end(), args.begin(), args.end());
    ProcessResult e = runRootline(full);
    INFO(e.err);
    CHECK(e.exitedWith(ExitBadInput));
    CHECK(lineCount(e.err) == 1);
    CHECK(e.err.rfind("rootline: error: ", 0) == 0);
  }
}

TEST_CASE("no rootline command changes the repository: work tree, index, HEAD, refs, stash",
          "[vcs]") {
  TempDir t;
  fs::path dir = t.path / "repo";
  json m = makeHistory(dir, {"--commits", "10", "--bad-at", "6", "--broken-at", "3", "--fixes"});
  // A stash, a staged change, an unstaged change and an untracked file.
  writeText(dir / "README.md", "stashed\n");
  REQUIRE(git(dir, {"stash", "-q"}).exitedWith(0));
  writeText(dir / "docs" / "staged.txt", "staged\n");
  REQUIRE(git(dir, {"add", "docs/staged.txt"}).exitedWith(0));
  writeText(dir / "src" / "main.c", readFile(dir / "src" / "main.c") + "/* unstaged */\n");
  writeText(dir / "untracked.c", "int x;\n");
  auto before = snapshotTree(dir);
  std::string in = (dir / "tests" / "t1.in").string(), out = (dir / "tests" / "t1.out").string();
  std::string repo = dir.string();
  std::vector<std::pair<std::vector<std::string>, int>> commands = {
      {{"debug", "--repo", repo, "--good", h(m, "good"), "--bad", "main", "--stdin", in, "--out",
        (t.path / "r1").string()},
       0},
      {{"bisect", "--repo", repo, "--good", h(m, "good"), "--bad", "main", "--stdin", in,
        "--expect", out, "--out", (t.path / "r2").string()},
       0},
      {{"bisect", "--repo", repo, "--check", "HEAD", "--stdin", in, "--expect", out}, 1},
      {{"bisect", "--repo", repo, "--good", h(m, "good"), "--bad", "main", "--cmd",
        "echo x > scratch.txt; \"$ROOTLINE_PROGRAM\" < tests/t1.in | cmp -s - tests/t1.out"},
       0},
      {{"validate", "--repo", repo, "--good", h(m, "good"), "--bad", "main", "--fix", "fix",
        "--stdin", in, "--out", (t.path / "r3").string()},
       0},
      {{"debug", "--repo", repo, "--good", "nope", "--bad", "main"}, 2},
  };
  for (const auto &[args, code] : commands) {
    ProcessResult r = runRootline(args);
    INFO(args[0] << " " << args.back() << ": " << r.err);
    CHECK(r.exitedWith(code));
  }
  auto after = snapshotTree(dir);
  for (const auto &[path, desc] : before) {
    INFO(path);
    CHECK(after.count(path));
    if (after.count(path))
      CHECK(after.at(path) == desc);
  }
  for (const auto &[path, desc] : after) {
    INFO(path);
    CHECK(before.count(path));
  }
}

namespace {

// The program of `commit` built natively (from the cache) and run on `stdinBytes`.
std::string runCommit(const Repository &repo, const std::string &commit,
                      const std::string &stdinBytes, const fs::path &work) {
  BuildRecipe recipe = resolveRecipeIn({}, repo.materialize(commit));
  BuiltModule m = buildModule(recipe);
  fs::path exe = linkExecutable(m.bitcode, m.key, "native", {}, recipe.libs).path;
  writeText(work / "in", stdinBytes);
  TestCase t;
  t.stdinFile = work / "in";
  return runNative(exe, t).out;
}

} // namespace

TEST_CASE("validate accepts a correct fix and rejects an incomplete one with confirming inputs",
          "[vcs][validate]") {
  TempDir t;
  fs::path dir = t.path / "repo";
  json m = makeHistory(dir, {"--commits", "8", "--bad-at", "5", "--fixes"});
  std::string good = m["commits"][3], in = (dir / "tests" / "t1.in").string();
  auto validate = [&](const std::string &fix, const fs::path &out) {
    return runRootline({"validate", "--repo", dir.string(), "--good", good, "--bad", "main",
                        "--fix", fix, "--stdin", in, "--out", out.string()});
  };

  ProcessResult ok = validate("fix", t.path / "ok");
  INFO(ok.err);
  CHECK(ok.exitedWith(0));
  json a = json::parse(readFile(t.path / "ok" / "validate.json"));
  CHECK(a["schema"] == "rootline.validate/1");
  CHECK(a["accepted"] == true);
  CHECK(a["test"]["passes_on_fix"] == true);
  CHECK(a["proof"]["result"] == "proved");
  CHECK(a["proof"]["outputs_compared"].get<unsigned>() >= 1);
  CHECK(a["neighbours"]["tried"].get<unsigned>() >= 3);
  CHECK(a["neighbours"]["disagreements"].empty());
  CHECK(a["commits"]["fix"]["hash"] == m["fix"]);
  CHECK(a["commits"]["good"]["hash"] == good);
  CHECK(ok.out.rfind("rootline: accepted", 0) == 0);

  ProcessResult partial = validate("fix-partial", t.path / "partial");
  INFO(partial.err);
  CHECK(partial.exitedWith(1));
  json r = json::parse(readFile(t.path / "partial" / "validate.json"));
  CHECK(r["accepted"] == false);
  CHECK(r["test"]["passes_on_fix"] == true); // the failing test alone would accept it
  auto &dis = r["neighbours"]["disagreements"];
  REQUIRE_FALSE(dis.empty());
  Repository repo = Repository::open(dir);
  for (const auto &d : dis) {
    CHECK(d["confirmed"] == true);
    // Confirmed independently: the good and the partially fixed program, run here.
    std::string stdinBytes = d["input"]["stdin"];
    std::string g = runCommit(repo, good, stdinBytes, t.path);
    std::string f = runCommit(repo, m["fix_partial"], stdinBytes, t.path);
    CHECK(g == d["good"]["stdout"]);
    CHECK(f == d["fix"]["stdout"]);
    CHECK(g != f);
  }
  CHECK(partial.out.find("rejected") != std::string::npos);
  for (const char *f : {"validate.md", "validate.html", "validate.sarif"})
    CHECK(fs::exists(t.path / "partial" / f));
  CHECK(readFile(t.path / "partial" / "validate.md").find("Disagreement") != std::string::npos);
  json sarif = json::parse(readFile(t.path / "partial" / "validate.sarif"));
  CHECK(sarif["runs"][0]["results"].size() == dis.size());
  CHECK(sarif["runs"][0]["versionControlProvenance"].size() == 3);
  ProcessSpec spec;
  spec.argv = {"/usr/bin/python3", (sourceDir() / "tests" / "tools" / "validate_json.py").string(),
               (t.path / "partial" / "validate.sarif").string(), ROOTLINE_SARIF_SCHEMA};
  ProcessResult v = runProcess(spec);
  INFO(v.err);
  CHECK(v.exitedWith(0));

  // The bad version as the "fix": the failing test fails on it.
  ProcessResult same = runRootline({"validate", "--repo", dir.string(), "--good", good, "--bad",
                                    "main", "--fix", "main", "--stdin", in});
  CHECK(same.exitedWith(1));
  CHECK(same.out.find("the failing test still fails on the fix") != std::string::npos);

  // Bad input: the test fails at good; an unknown fix revision. One line, exit 2.
  for (const auto &args :
       std::vector<std::vector<std::string>>{{"--good", "main", "--bad", "main", "--fix", "fix"},
                                             {"--good", good, "--bad", "main", "--fix", "nope"},
                                             {"--good", good, "--bad", good, "--fix", "fix"}}) {
    std::vector<std::string> full = {"validate", "--repo", dir.string(), "--stdin", in};
    full.insert(full.end(), args.begin(), args.end());
    ProcessResult e = runRootline(full);
    INFO(e.err);
    CHECK(e.exitedWith(ExitBadInput));
    CHECK(lineCount(e.err) == 1);
  }
}

TEST_CASE("validate refutes a fix that computes another output inside the same partition",
          "[validate]") {
  TempDir t;
  auto program = [&](const char *name, const char *expr) {
    fs::create_directories(t.path / name);
    writeText(t.path / name / "main.c",
              std::string("#include <stdio.h>\nint main(void) {\n  int x;\n"
                          "  if (scanf(\"%d\", &x) != 1) return 1;\n  printf(\"%d\\n\", ") +
                  expr + ");\n  return 0;\n}\n");
  };
  program("good", "x * 2");
  program("bad", "x * 3");
  program("fix", "x + x + (x == 7)"); // right on the failing input, wrong on 7
  program("fix2", "x << 1");
  writeText(t.path / "in", "3\n");
  auto validate = [&](const char *fix) {
    return runRootline({"--json", "validate", "--old", (t.path / "good").string(), "--new",
                        (t.path / "bad").string(), "--fix", (t.path / fix).string(), "--src",
                        "main.c", "--stdin", (t.path / "in").string()});
  };
  ProcessResult wrong = validate("fix");
  INFO(wrong.err);
  CHECK(wrong.exitedWith(1));
  json r = json::parse(wrong.out);
  CHECK(r["test"]["passes_on_fix"] == true);
  CHECK(r["proof"]["result"] == "refuted");
  REQUIRE(r["proof"]["counterexample"].is_object());
  CHECK(r["proof"]["counterexample"]["input"]["stdin"] == "7\n");
  CHECK(r["proof"]["counterexample"]["good"]["stdout"] == "14\n");
  CHECK(r["proof"]["counterexample"]["fix"]["stdout"] == "15\n");

  ProcessResult right = validate("fix2");
  INFO(right.err);
  CHECK(right.exitedWith(0));
  CHECK(json::parse(right.out)["proof"]["result"] == "proved");
}
