// Helpers shared by tests: the fixture corpus, temporary directories, running rootline.
#pragma once

#include "rootline/build.h"
#include "rootline/debug.h"
#include "rootline/process.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rootline::test {

fs::path sourceDir();
fs::path fixturesDir();
std::string rootlineBinary();

// One program under fixtures/programs/<name> (see fixtures/README.md).
struct ProgramFixture {
  std::string name;
  fs::path dir;
  std::vector<std::string> sources; // relative to dir
  std::vector<std::string> cflags;
  std::vector<std::string> libs;
  std::optional<fs::path> stdinFile;
  std::vector<std::string> args;
  int exitCode = 0;
  std::string signal; // "" or "SIGSEGV", ...
  std::optional<std::pair<std::string, int>> crashLine;
  std::vector<std::string> tags;
  std::string expectedStdout;

  BuildRecipe recipe() const { return recipeIn(dir); }
  BuildRecipe recipeIn(const fs::path &root) const;
  bool hasTag(const std::string &t) const;
};

std::vector<ProgramFixture> programFixtures();
ProgramFixture programFixture(const std::string &name);

// A regression pair under fixtures/regressions/<name>/{old,new}.
struct RegressionFixture {
  std::string name;
  fs::path dir;
  ProgramFixture program; // sources/stdin/args; recipe via program.recipeIn(dir/"old")
  std::string rootVersion, rootFile, rootKind;
  int rootLine = 0;
  std::string oldStdout, newStdout;
  nlohmann::json meta; // the whole fixture.json (corpus-specific fields)
};
std::vector<RegressionFixture> regressionFixtures();
// The fixtures of another corpus laid out the same way ("mixed": fixtures/mixed).
std::vector<RegressionFixture> regressionFixturesIn(const std::string &corpus);
// The regression fixture of that name (throws when there is none).
RegressionFixture regressionFixture(const std::string &name);
// The fixture of that name in another corpus ("mixed"; throws when there is none).
RegressionFixture regressionFixtureIn(const std::string &corpus, const std::string &name);
// The first `n` of a test's fixtures under the sanitizers (the CI's second pass, built with
// ROOTLINE_SANITIZE), all of them otherwise. A test that runs one check over many fixtures
// runs the same rootline code on each; under the sanitizers, which look for rootline's own
// memory and undefined-behaviour errors at 3-30x the time, the first few cover its paths,
// and the plain pass still checks every fixture.
template <class T> std::vector<T> sampledUnderSanitizers(std::vector<T> all, size_t n = 1) {
#ifdef ROOTLINE_TESTS_SANITIZED
  if (all.size() > n)
    all.erase(all.begin() + static_cast<std::ptrdiff_t>(n), all.end());
#else
  (void)n;
#endif
  return all;
}
// Every `stride`-th of a corpus sweep's items (the first, then every stride-th after it)
// when the suite runs in CI (`CI=true`, .ci/run), all of them otherwise. A clean clone's
// CI must finish within the hour on 2 cores; the sweeps (tag [sweep]) re-run whole
// corpora and were a third of its plain pass. The same stride in every sweep keeps the
// sampled fixtures' builds shared between them. A local `ctest` runs every item, and
// does so before each landing (docs/architecture.md, "Tests and CI").
// The three sweeps over the regression corpus (ranked first, built with the recorded
// outputs, traced and replayed) take every third fixture in CI, the same ones, so that
// their builds serve all three; the other sweeps every second.
constexpr size_t kRegressionStride = 3;
template <class T> std::vector<T> sampledInCI(std::vector<T> all, size_t stride = 2) {
  const char *ci = std::getenv("CI");
  if (!ci || std::string(ci) != "true" || stride < 2)
    return all;
  std::vector<T> kept;
  for (size_t i = 0; i < all.size(); i += stride)
    kept.push_back(std::move(all[i]));
  return kept;
}
// A debug request for the fixture's old and new versions and its failing input.
DebugRequest debugRequest(const RegressionFixture &r, ConditionKind kind = ConditionKind::Rsc);

// A fresh directory removed when the object dies.
struct TempDir {
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  fs::path path;
};

void writeText(const fs::path &path, const std::string &text);
// Writes a one-file C program and returns its build recipe (compiled in its directory).
BuildRecipe sourceRecipe(const fs::path &file, const std::string &source);
// A debug request between two one-file programs written to `dir`/old/main.c and
// `dir`/new/main.c, with `stdinBytes` as the test's input.
DebugRequest twoVersions(const fs::path &dir, const std::string &oldMain,
                         const std::string &newMain, const std::string &stdinBytes);

// A cache of the test's own (ROOTLINE_CACHE_DIR for this object's life), so that no
// other test's builds are found or counted.
struct OwnCacheDir {
  std::string was;
  explicit OwnCacheDir(const fs::path &dir);
  ~OwnCacheDir();
  OwnCacheDir(const OwnCacheDir &) = delete;
  OwnCacheDir &operator=(const OwnCacheDir &) = delete;
};

// The notes of a JSON report's stages, one per line (for a test's INFO).
std::string stageNotes(const nlohmann::json &report);
// The string at a JSON pointer ("/revert/result"), or "" where the report has none: a
// missing field fails a check instead of reading past a const object's end.
std::string textAt(const nlohmann::json &j, const std::string &pointer);

// Runs the rootline binary with the given arguments.

ProcessResult runRootline(const std::vector<std::string> &args,
                          std::optional<std::string> stdinFile = {}, double timeout = 300);

// A git repository made by fixtures/git/make_history.py in `dir` (which must not exist
// or be empty) with the given options; returns the script's JSON manifest.
nlohmann::json makeHistory(const fs::path &dir, const std::vector<std::string> &options);
// Runs git in `repo` with the fixture's fixed identity and dates (for extra commits).
ProcessResult git(const fs::path &repo, const std::vector<std::string> &args);

// Every entry under `dir` (the repository and its .git included): path, type, mode,
// size, mtime and content hash, symlink target. Equal snapshots mean nothing changed.
std::map<std::string, std::string> snapshotTree(const fs::path &dir);

// The message of the rootline::Error that `fn` throws; fails the test unless it throws
// one with exit code 2 (bad input).
std::string badInputError(const std::function<void()> &fn);

// Input variables as symbolic replay names them: a scanf token at a stdin offset, and a
// stdin byte.
InputVar tokenInput(uint64_t offset, uint64_t length, unsigned bits, char conv);
InputVar stdinByteInput(uint64_t offset);

// Runs an executable with a fixture's stdin and args.
ProcessResult runProgram(const fs::path &exe, const ProgramFixture &f, double timeout = 60);

} // namespace rootline::test
