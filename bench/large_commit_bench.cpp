// Regressions seeded into large real commits (docs/project.md; issue "Evidence that holds on
// real projects"): 18 mawk snapshot commits of 206–567 added and 80–530 deleted lines over
// 3–29 C files, each with a one-operator mutation on a line the commit changed
// (fixtures/realworld/mawk_large_commits.json, the commits and mutations in
// mawk_large_commits.bundle). good = the commit's parent, bad = the commit with the
// mutation, test = mawk's own `make check` (a shell script that runs mawk about a hundred
// times and compares with `cmp`). For each: `rootline debug --repo --good --bad --test`
// with the default budget, its wall time, and the rank of the seeded line. The summary
// counts reports, rank 1 and top 3, and the seconds' median and p95, in one run.
//
// Usage: ./build/bench/large_commit_bench [NAME...]
// ($ROOTLINE_BENCH_REPORTS=DIR keeps each case's JSON report there, by case name;
// $ROOTLINE_BENCH_CACHE=DIR is the cache to use, kept between runs.)
#include "rootline/fs.h"
#include "rootline/process.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>

using namespace rootline;
using nlohmann::json;

namespace {

const fs::path kSource = ROOTLINE_SOURCE_DIR;

struct Result {
  double seconds = 0;
  bool report = false;
  unsigned rank = 0; // 0: not among the candidates
  std::string top, runnable, error;
};

Result debugCase(const json &c, const fs::path &repo, const fs::path &cache) {
  ProcessSpec spec;
  spec.argv = {ROOTLINE_BINARY, "--json",           "debug", "--repo",     repo.string(),
               "--good",        c["good_tag"],      "--bad", c["bad_tag"], "--test",
               c["test"],       "--max-candidates", "100"};
  spec.extraEnv["ROOTLINE_CACHE_DIR"] = cache.string();
  spec.timeoutSeconds = 1800;
  auto start = std::chrono::steady_clock::now();
  ProcessResult p = runProcess(spec);
  Result r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (const char *keep = std::getenv("ROOTLINE_BENCH_REPORTS")) {
    fs::create_directories(keep);
    writeFileAtomic(fs::path(keep) / (c["name"].get<std::string>() + ".json"), p.out);
  }
  json j = json::parse(p.out, nullptr, false);
  if (!p.exitedWith(0) || j.is_discarded() || !j.contains("candidates")) {
    std::string err =
        p.err.substr(p.err.rfind("error:") == std::string::npos ? 0 : p.err.rfind("error:"));
    r.error = err.substr(0, err.find('\n')).substr(0, 100);
    return r;
  }
  r.report = true;
  const json &cands = j["candidates"];
  if (!cands.empty())
    r.top = cands[0]["file"].get<std::string>() + ":" + std::to_string(cands[0]["line"].get<int>());
  for (const auto &cand : cands)
    if (cand["version"] == "new" && cand["file"] == c["truth"]["file"] &&
        cand["line"] == c["truth"]["line"]) {
      r.rank = cand["rank"];
      for (const auto &e : cand.value("runnable_evidence", json::array()))
        r.runnable += (r.runnable.empty() ? "" : "+") + e.get<std::string>();
      break;
    }
  return r;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  size_t at = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(at, v.size() - 1)];
}

} // namespace

int main(int argc, char **argv) {
  fs::path dir = kSource / "fixtures" / "realworld";
  json cases = json::parse(readFile(dir / "mawk_large_commits.json"));
  std::set<std::string> only(argv + 1, argv + argc);
  ScopedWorkDir scratch("large-commit-bench");
  fs::path repo = scratch.path / "mawk";
  ProcessSpec clone;
  clone.argv = {
      "/usr/bin/git", "clone", "-q", "--no-checkout", (dir / "mawk_large_commits.bundle").string(),
      repo.string()};
  if (!runProcess(clone).exitedWith(0)) {
    std::fprintf(stderr, "large_commit_bench: cannot clone mawk_large_commits.bundle\n");
    return 1;
  }
  // One cache for all cases: each commit's builds are shared by its two cases, and the
  // second case of a commit shows the warm-cache time. $ROOTLINE_BENCH_CACHE keeps it
  // between runs (warm-cache figures only).
  const char *kept = std::getenv("ROOTLINE_BENCH_CACHE");
  fs::path cache = kept && *kept ? fs::path(kept) : scratch.path / "cache";
  std::printf("%-28s %5s %6s  %-26s %s\n", "case (commit, line)", "rank", "secs", "rank 1",
              "cause's runnable evidence");
  size_t n = 0, reports = 0, first = 0, top3 = 0;
  std::vector<double> seconds;
  for (const json &c : cases) {
    if (!only.empty() && !only.count(c["name"]))
      continue;
    Result r = debugCase(c, repo, cache);
    ++n;
    reports += r.report;
    first += r.rank == 1;
    top3 += r.rank >= 1 && r.rank <= 3;
    seconds.push_back(r.seconds);
    std::printf("%-28s %5s %6.1f  %-26s %s\n", c["name"].get<std::string>().substr(0, 28).c_str(),
                r.rank ? std::to_string(r.rank).c_str() : "-", r.seconds,
                r.report ? r.top.c_str() : ("no report: " + r.error).c_str(), r.runnable.c_str());
    std::fflush(stdout);
  }
  std::printf("\n%zu cases: %zu reports, seeded line at rank 1 in %zu, in the top 3 in %zu; "
              "seconds p50 %.1f, p95 %.1f, max %.1f\n",
              n, reports, first, top3, percentile(seconds, 0.5), percentile(seconds, 0.95),
              percentile(seconds, 1.0));
  return 0;
}
