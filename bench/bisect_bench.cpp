// Bisect benchmark over generated git histories (fixtures/git/make_history.py) of 16, 64
// and 256 commits, each with a regression at about 60% of the history, a commit that
// does not build and a merge: commits built and tested against the history length and
// the log2 bound, then the same range bisected again to show build-cache reuse. Each
// history gets its own fresh cache (ROOTLINE_CACHE_DIR), so its first bisect is cold.
// A build that fails is not cached, so the warm search compiles the broken commit again.
// Exits 1 when a bisection names the wrong first bad commit (2 when it cannot run).
#include "rootline/bisect.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

using namespace rootline;

namespace {

// A private directory under the system temp dir, removed with everything in it.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "rootline-bisect-bench-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      throw std::runtime_error("cannot create a temporary directory");
    path = tmpl;
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

struct History {
  unsigned commits, badAt, brokenAt, mergeAt;
};

// bisect --parallel 3 (-j 3, its own cold cache) on the same history, through the CLI.
struct ParallelRow {
  unsigned rounds = 0, tested = 0, compiled = 0;
  double seconds = 0;
  bool correct = false;
};

struct Row {
  ParallelRow parallel;
  History h;
  size_t range = 0, tested = 0, testedWarm = 0, bound = 0;
  unsigned skips = 0, compiledCold = 0, compiledWarm = 0;
  std::string warmCompiles; // which warm steps still compiled, and why
  double coldSeconds = 0, warmSeconds = 0;
  bool correct = false;
};

nlohmann::json makeHistory(const fs::path &dir, const History &h) {
  ProcessSpec spec;
  spec.argv = {"/usr/bin/python3",
               (fs::path(ROOTLINE_SOURCE_DIR) / "fixtures" / "git" / "make_history.py").string(),
               dir.string(),
               "--commits",
               std::to_string(h.commits),
               "--bad-at",
               std::to_string(h.badAt),
               "--broken-at",
               std::to_string(h.brokenAt),
               "--merge-at",
               std::to_string(h.mergeAt)};
  spec.timeoutSeconds = 60;
  ProcessResult r = runProcess(spec);
  if (!r.exitedWith(0))
    throw std::runtime_error("make_history.py: " + r.outcome() + ": " + r.err);
  return nlohmann::json::parse(r.out);
}

bool names(const BisectResult &r, const std::string &hash) {
  return r.firstBad && r.firstBad->hash == hash;
}

} // namespace

int main() {
  // Broken commits sit on the probe path (the second probe), so each search skips one.
  const std::vector<History> histories = {{16, 10, 13, 5}, {64, 38, 49, 19}, {256, 154, 193, 77}};
  std::vector<Row> rows;
  std::string debugLine;
  bool allCorrect = true;
  try {
    TempDir tmp;
    for (const History &h : histories) {
      fs::path cache = tmp.path / ("cache-" + std::to_string(h.commits));
      fs::create_directories(cache);
      setenv("ROOTLINE_CACHE_DIR", cache.c_str(), 1);
      fs::path dir = tmp.path / ("repo-" + std::to_string(h.commits));
      nlohmann::json gen = makeHistory(dir, h);
      std::string expected = gen["first_bad"].get<std::string>();

      Repository repo = Repository::open(dir);
      CommitCheck check;
      check.input.stdinBytes = readFile(dir / "tests" / "t1.in");
      check.expectedStdout = readFile(dir / "tests" / "t1.out");
      BisectOptions options;
      options.debugFirstBad = false;
      std::string good = gen["good"].get<std::string>(), bad = repo.resolve("main");

      BisectResult cold = bisectHistory(repo, good, bad, check, options);
      BisectResult warm = bisectHistory(repo, good, bad, check, options);
      Row row;
      row.h = h;
      row.range = cold.rangeSize;
      row.tested = cold.steps.size();
      row.testedWarm = warm.steps.size();
      row.skips = cold.skipped();
      row.bound =
          (cold.rangeSize > 1 ? static_cast<size_t>(std::ceil(std::log2(double(cold.rangeSize))))
                              : 0) +
          row.skips + 2;
      row.compiledCold = cold.compiled();
      row.compiledWarm = warm.compiled();
      for (const CommitVerdict &v : warm.steps)
        if (v.built && !v.buildCached)
          row.warmCompiles += (row.warmCompiles.empty() ? "" : ", ") + v.commit.shortHash + " (" +
                              verdictName(v.verdict) + ": " +
                              v.reason.substr(0, v.reason.find(':')) + ")";
      row.coldSeconds = cold.seconds;
      row.warmSeconds = warm.seconds;
      row.correct = names(cold, expected) && names(warm, expected);
      allCorrect = allCorrect && row.correct;
      if (!row.correct)
        std::fprintf(stderr, "N=%u: expected first bad %s, got %s (cold) and %s (warm)\n",
                     h.commits, expected.c_str(),
                     cold.firstBad ? cold.firstBad->hash.c_str() : "none",
                     warm.firstBad ? warm.firstBad->hash.c_str() : "none");
      {
        ProcessSpec spec;
        spec.argv = {ROOTLINE_BINARY,
                     "--json",
                     "bisect",
                     "--repo",
                     dir.string(),
                     "--good",
                     good,
                     "--bad",
                     "main",
                     "--stdin",
                     (dir / "tests" / "t1.in").string(),
                     "--expect",
                     (dir / "tests" / "t1.out").string(),
                     "--no-debug",
                     "--parallel",
                     "3",
                     "-j",
                     "3"};
        spec.extraEnv["ROOTLINE_CACHE_DIR"] =
            (tmp.path / ("cache-par-" + std::to_string(h.commits))).string();
        spec.timeoutSeconds = 1800;
        auto t0 = std::chrono::steady_clock::now();
        ProcessResult r = runProcess(spec);
        row.parallel.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r.exitedWith(0)) {
          nlohmann::json j = nlohmann::json::parse(r.out);
          row.parallel.rounds = j["rounds"].get<unsigned>();
          row.parallel.tested = j["stats"]["commits_tested"].get<unsigned>();
          row.parallel.compiled = j["stats"]["builds_compiled"].get<unsigned>();
          row.parallel.correct = j["first_bad"].is_object() && j["first_bad"]["hash"] == expected;
        }
        allCorrect = allCorrect && row.parallel.correct;
      }
      rows.push_back(row);

      // One more search with the attached debug of the first bad commit (64 commits,
      // warm build cache): what the debug adds on top of the search.
      if (h.commits == 64) {
        options.debugFirstBad = true;
        BisectResult dbg = bisectHistory(repo, good, bad, check, options);
        unsigned rank = 0;
        if (dbg.debug && !gen["root_cause"].is_null())
          for (const auto &c : dbg.debug->candidates)
            if (c.version == "new" && c.file == gen["root_cause"]["file"].get<std::string>() &&
                c.line == gen["root_cause"]["line"].get<unsigned>())
              rank = c.rank;
        char buf[512];
        std::snprintf(buf, sizeof buf,
                      "with debug (N=64, warm build cache): %.2f s in all, debug %.2f s, "
                      "%zu candidate(s), root cause at rank %s, %.1fx the warm search%s%s\n",
                      dbg.seconds, dbg.debug ? dbg.debug->totalSeconds : 0.0,
                      dbg.debug ? dbg.debug->candidates.size() : size_t(0),
                      rank ? std::to_string(rank).c_str() : "-",
                      warm.seconds > 0 ? dbg.seconds / warm.seconds : 0.0,
                      dbg.debugError.empty() ? "" : "; debug error: ", dbg.debugError.c_str());
        debugLine = buf;
        if (!names(dbg, expected)) {
          std::fprintf(stderr, "N=64 with debug: wrong first bad commit\n");
          allCorrect = false;
        }
      }
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bisect_bench: %s\n", e.what());
    return 2;
  }

  std::printf("%6s %6s %7s %6s %6s | %9s %9s | %8s %8s %9s | %s\n", "N", "range", "tested", "bound",
              "skips", "built-cold", "built-warm", "cold", "warm", "warm/cold", "correct");
  for (const Row &r : rows)
    std::printf("%6u %6zu %7zu %6zu %6u | %10u %10u | %7.2fs %7.2fs %9.2f | %s\n", r.h.commits,
                r.range, r.tested, r.bound, r.skips, r.compiledCold, r.compiledWarm, r.coldSeconds,
                r.warmSeconds, r.coldSeconds > 0 ? r.warmSeconds / r.coldSeconds : 0.0,
                r.correct ? "yes" : "NO");
  for (const Row &r : rows)
    std::printf("N=%u: tested %zu of %u commits (%.3f of the history, %.2f of the bound); "
                "warm run tested %zu, compiled %s\n",
                r.h.commits, r.tested, r.h.commits, double(r.tested) / r.h.commits,
                r.bound ? double(r.tested) / double(r.bound) : 0.0, r.testedWarm,
                r.warmCompiles.empty() ? "none" : r.warmCompiles.c_str());
  for (const Row &r : rows)
    std::printf("N=%u, --parallel 3 -j 3 (cold cache): %u rounds (sequential: %zu steps), "
                "%u commits tested, %u compiled (each at most once), %.2f s = %.2fx the "
                "sequential cold search; first bad %s\n",
                r.h.commits, r.parallel.rounds, r.tested - 2, r.parallel.tested,
                r.parallel.compiled, r.parallel.seconds,
                r.coldSeconds > 0 ? r.parallel.seconds / r.coldSeconds : 0.0,
                r.parallel.correct ? "right" : "WRONG");
  std::printf("%s", debugLine.c_str());
  if (rows.size() >= 2)
    std::printf("history x%.0f (%u -> %u commits): commits tested x%.2f, cold time x%.2f\n",
                double(rows.back().h.commits) / rows.front().h.commits, rows.front().h.commits,
                rows.back().h.commits, double(rows.back().tested) / double(rows.front().tested),
                rows.front().coldSeconds > 0 ? rows.back().coldSeconds / rows.front().coldSeconds
                                             : 0.0);
  std::printf("%s\n", allCorrect ? "all bisections found the expected first bad commit"
                                 : "WRONG first bad commit in at least one bisection");
  return allCorrect ? 0 : 1;
}
