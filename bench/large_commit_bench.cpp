// Regressions seeded into large real commits (docs/project.md; issue "Evidence that holds on
// real projects"). Two kinds of corpus in fixtures/realworld:
// - mawk_large_commits.json: 18 mawk snapshot commits of 206–567 added and 80–530 deleted
//   lines over 3–29 C files, each with a one-operator mutation on a line the commit changed,
//   the mutants stored as tags of mawk_large_commits.bundle;
// - *_seeded.json (made by seed_large_commit.py): mutations of six kinds (comparison,
//   logic, arithmetic, constant, operand, negated condition) on lines a large commit
//   changed, each case naming the commit (`base`) and the mutated line; this bench makes
//   the bad commit itself, in its own clone of the case's bundle.
// good = the commit's parent, bad = the commit with the mutation, test = the project's own
// test command. For each: `rootline debug --repo --good --bad --test` with the default
// budget, its wall time, and the rank of the seeded line. The summary counts reports,
// rank 1 and top 3, and the seconds' median and p95, in one run.
//
// Usage: ./build/bench/large_commit_bench [--cases FILE.json]... [NAME...]
// (default: mawk_large_commits.json; a FILE is read from fixtures/realworld unless a path;
// $ROOTLINE_BENCH_REPORTS=DIR keeps each case's JSON report there, by case name;
// $ROOTLINE_BENCH_CACHE=DIR is the cache to use, kept between runs.)
#include "rootline/fs.h"
#include "rootline/process.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
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

bool git(const fs::path &repo, std::vector<std::string> args, std::string *out = nullptr,
         const std::map<std::string, std::string> &env = {}) {
  ProcessSpec spec;
  spec.argv = {"/usr/bin/git", "-C", repo.string()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.extraEnv = env;
  ProcessResult p = runProcess(spec);
  if (out) // a hash without its newline; a file's text as it is
    *out = args[0] == "show" ? p.out : p.out.substr(0, p.out.find_last_not_of('\n') + 1);
  return p.exitedWith(0);
}

// The bad commit of a seeded case: `base` with the one line changed, committed on top of
// it without a work tree (a blob, a tree made in a private index, a commit), and tagged.
bool makeMutant(const fs::path &repo, const fs::path &scratch, json &c) {
  std::string name = c["name"], file = c["truth"]["file"], text;
  int line = c["truth"]["line"];
  if (!git(repo, {"show", c["base"].get<std::string>() + ":" + file}, &text))
    return false;
  fs::path edited = scratch / (name + ".src");
  std::string out;
  size_t at = 0;
  for (int n = 1; at <= text.size(); ++n) {
    size_t end = text.find('\n', at);
    std::string l = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (n == line) {
      if (l != c["mutation"]["from"].get<std::string>())
        return false;
      l = c["mutation"]["to"];
    }
    out += l;
    if (end == std::string::npos)
      break;
    out += '\n';
    at = end + 1;
  }
  writeFileAtomic(edited, out);
  std::map<std::string, std::string> env = {{"GIT_INDEX_FILE", (scratch / "index").string()},
                                            {"GIT_AUTHOR_NAME", "seed"},
                                            {"GIT_AUTHOR_EMAIL", "seed@rootline"},
                                            {"GIT_COMMITTER_NAME", "seed"},
                                            {"GIT_COMMITTER_EMAIL", "seed@rootline"}};
  std::string blob, tree, commit;
  if (!git(repo, {"hash-object", "-w", edited.string()}, &blob) ||
      !git(repo, {"read-tree", c["base"]}, nullptr, env) ||
      !git(repo, {"update-index", "--cacheinfo", "100644," + blob + "," + file}, nullptr, env) ||
      !git(repo, {"write-tree"}, &tree, env) ||
      !git(repo, {"commit-tree", tree, "-p", c["base"], "-m", "seeded: " + name}, &commit, env))
    return false;
  c["good_tag"] = "good_" + name;
  c["bad_tag"] = "bad_" + name;
  return git(repo, {"tag", "-f", c["good_tag"], c["good"]}) &&
         git(repo, {"tag", "-f", c["bad_tag"], commit});
}

} // namespace

int main(int argc, char **argv) {
  fs::path dir = kSource / "fixtures" / "realworld";
  std::vector<fs::path> files;
  std::set<std::string> only;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--cases" && i + 1 < argc) {
      fs::path f = argv[++i];
      files.push_back(f.has_parent_path() ? f : dir / f);
    } else
      only.insert(a);
  }
  if (files.empty())
    files.push_back(dir / "mawk_large_commits.json");
  ScopedWorkDir scratch("large-commit-bench");
  // One clone per bundle, and one cache for all cases: a commit's builds are shared by its
  // cases, and a later case of a commit shows the warm-cache time. $ROOTLINE_BENCH_CACHE
  // keeps it between runs (warm-cache figures only).
  std::map<std::string, fs::path> clones;
  const char *kept = std::getenv("ROOTLINE_BENCH_CACHE");
  fs::path cache = kept && *kept ? fs::path(kept) : scratch.path / "cache";
  std::printf("%-28s %5s %6s  %-26s %s\n", "case (commit, line)", "rank", "secs", "rank 1",
              "cause's runnable evidence");
  size_t n = 0, reports = 0, first = 0, top3 = 0;
  std::vector<double> seconds;
  for (const fs::path &file : files) {
    json cases = json::parse(readFile(file), nullptr, false);
    if (!cases.is_array()) {
      std::fprintf(stderr, "large_commit_bench: %s is not a list of cases\n", file.c_str());
      return 1;
    }
    for (json &c : cases) {
      if (!only.empty() && !only.count(c["name"]))
        continue;
      std::string bundle = c["bundle"];
      if (!clones.count(bundle)) {
        fs::path repo = scratch.path / fs::path(bundle).stem();
        if (!git(scratch.path,
                 {"clone", "-q", "--no-checkout", (dir / bundle).string(), repo.string()})) {
          std::fprintf(stderr, "large_commit_bench: cannot clone %s\n", bundle.c_str());
          return 1;
        }
        clones[bundle] = repo;
      }
      const fs::path &repo = clones[bundle];
      if (c.contains("base") && !makeMutant(repo, scratch.path, c)) {
        std::fprintf(stderr, "large_commit_bench: cannot make %s (its line differs?)\n",
                     c["name"].get<std::string>().c_str());
        return 1;
      }
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
  }
  std::printf("\n%zu cases: %zu reports, seeded line at rank 1 in %zu, in the top 3 in %zu; "
              "seconds p50 %.1f, p95 %.1f, max %.1f\n",
              n, reports, first, top3, percentile(seconds, 0.5), percentile(seconds, 0.95),
              percentile(seconds, 1.0));
  return 0;
}
