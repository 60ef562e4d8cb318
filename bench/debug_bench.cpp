// `debug_bench realworld`: every real mujs regression of fixtures/realworld, rank and evidence.
// `debug_bench threads`: the corpus's long runs with the versions one after the other
// and at once (docs/performance.md, "Both versions at once").
// Debugger benchmark over the regression corpus: for RSC mode and PC mode (the
// original Darwin), per fixture and in total, the candidates reported, the rank of the
// true root cause, formula bytes, solver calls and time, measured in one run. Then the
// same over the mixed corpus (fixtures/mixed: causes mixed with renames, reformatting,
// moved statements and unrelated changes), and rank-1 on both side by side, with how
// often the true cause carries revert evidence; and what the aligned runs say: how
// often the first divergence is at the true cause, how often the cause is in the dual
// slice (and never "same values"), and the align stage's time; and how far the
// alternative inputs stray from the failing input (changed tokens, non-printable bytes),
// closest inputs against the solver's first models, and on programs with input-error
// paths (fixtures/evidence) how often agreement is labelled weak. Last, a real
// regression of a real project (a mujs fix reversed), with the default budget.
#include "real_project.h"
#include "rootline/debug.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>

using namespace rootline;

namespace {

struct Total {
  unsigned fixtures = 0, rank1 = 0, candidates = 0, calls = 0, cut = 0;
  unsigned reverted = 0; // the true cause's hunk, reverted alone (or in a minimal set), fixes
  unsigned divergedAtCause = 0; // the first divergence is on the true cause's line
  unsigned causeDiffers = 0;    // the true cause is in the dual slice
  unsigned causeSameValues = 0; // the true cause called behaviour-neutral (a wrong call)
  // The rank-1 candidate outside main (a function a unit test can call), and of those
  // the ones with a differential unit test that passes on old and fails on new.
  unsigned unitTestEligible = 0, unitTests = 0;
  // Alternative inputs: how many, the input tokens (white-space separated words of stdin
  // and argv) they change against the failing input, and how many bring in a byte that
  // is not printable where the failing input had none.
  unsigned alternatives = 0, changedTokens = 0, unprintable = 0;
  unsigned weak = 0; // candidates whose agreeing evidence was labelled weak
  // Changed computations of the true cause: with value evidence, and where the outputs
  // follow the value (alike on a same-value input, different on a differing one).
  unsigned causeComputations = 0, causeValueEvidence = 0, causeOutputsFollow = 0;
  unsigned missesCriterion = 0; // branch deviations whose alternative run stops early
  uint64_t bytes = 0;
  double seconds = 0, solverSeconds = 0;
  std::vector<double> perCase, alignSeconds;
};

std::vector<std::string> words(const ProgramInput &in) {
  std::vector<std::string> out;
  std::string w;
  auto flush = [&] {
    if (!w.empty())
      out.push_back(w);
    w.clear();
  };
  for (char c : in.stdinBytes) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
      flush();
    else
      w += c;
  }
  flush();
  for (const auto &a : in.args)
    out.push_back(a);
  return out;
}

// Input tokens that differ between two inputs, position by position (a token only one
// of them has counts too).
unsigned changedTokens(const ProgramInput &a, const ProgramInput &b) {
  auto x = words(a), y = words(b);
  unsigned n = 0;
  for (size_t i = 0; i < std::max(x.size(), y.size()); ++i)
    n += i >= x.size() || i >= y.size() || x[i] != y[i];
  return n;
}

bool hasUnprintable(const ProgramInput &in) {
  auto bad = [](unsigned char c) {
    return (c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c >= 0x7f;
  };
  for (unsigned char c : in.stdinBytes)
    if (bad(c))
      return true;
  for (const auto &a : in.args)
    for (unsigned char c : a)
      if (bad(c))
        return true;
  return false;
}

std::string fmtSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  return buf;
}

// The debug request of a corpus fixture: its two trees, sources and input.
DebugRequest fixtureRequest(const fs::path &dir, const nlohmann::json &j) {
  DebugRequest req;
  req.oldRoot = dir / "old";
  req.newRoot = dir / "new";
  for (const auto &s : j["sources"]) {
    req.oldRecipe.units.push_back({req.oldRoot / s.get<std::string>(), {}, req.oldRoot});
    req.newRecipe.units.push_back({req.newRoot / s.get<std::string>(), {}, req.newRoot});
  }
  if (j.contains("libs"))
    req.oldRecipe.libs = req.newRecipe.libs = j["libs"].get<std::vector<std::string>>();
  if (j.contains("stdin") && j["stdin"].is_string())
    req.input.stdinBytes = readFile(dir / j["stdin"].get<std::string>());
  if (j.contains("args"))
    req.input.args = j["args"].get<std::vector<std::string>>();
  return req;
}

// `debug_bench threads`: the corpus's long runs (tag "stress"), each debugged with the
// versions one after the other (ROOTLINE_THREADS=1) and at once, default budget, in
// this run: seconds of the whole job and of the stages that run both versions at once.
void versionsAtOnce(const fs::path &root) {
  std::vector<fs::path> dirs;
  for (const auto &e : fs::directory_iterator(root))
    if (fs::exists(e.path() / "fixture.json"))
      dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  std::printf("%-24s | %-44s | %-44s | %s\n", "fixture",
              "one after the other: job trace slice align", "at once: job trace slice align",
              "job ratio, rank (1 / at once)");
  double sumOne = 0, sumBoth = 0;
  for (const auto &dir : dirs) {
    auto j = nlohmann::json::parse(readFile(dir / "fixture.json"));
    if (!j.contains("tags") || j["tags"].dump().find("stress") == std::string::npos)
      continue;
    const auto &rc = j["root_cause"];
    std::printf("%-24s", dir.filename().string().c_str());
    double job[2] = {0, 0};
    unsigned rank[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      if (k == 0)
        setenv("ROOTLINE_THREADS", "1", 1);
      else
        unsetenv("ROOTLINE_THREADS");
      DebugRequest req = fixtureRequest(dir, j);
      auto start = std::chrono::steady_clock::now();
      DebugReport r = debugRegression(req);
      job[k] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::map<std::string, std::pair<double, bool>> stage;
      for (const auto &s : r.stages)
        stage[s.name] = {s.seconds, s.complete};
      for (const auto &c : r.candidates)
        if (!rank[k] && c.version == rc["version"] && c.line == rc["line"].get<unsigned>() &&
            c.file == rc["file"])
          rank[k] = c.rank;
      auto shown = [&](const char *name) {
        auto it = stage.find(name);
        return it == stage.end() ? std::string("-")
                                 : fmtSeconds(it->second.first) + (it->second.second ? "" : "*");
      };
      std::printf(" | %8.2f %9s %9s %9s        ", job[k], shown("trace").c_str(),
                  shown("slice").c_str(), shown("align").c_str());
    }
    unsetenv("ROOTLINE_THREADS");
    sumOne += job[0];
    sumBoth += job[1];
    std::printf(" | %.2f, %u / %u\n", job[1] > 0 ? job[0] / job[1] : 0.0, rank[0], rank[1]);
  }
  std::printf("all long runs: %.2f s one after the other, %.2f s at once, ratio %.2f "
              "(* a stage cut by its share)\n",
              sumOne, sumBoth, sumBoth > 0 ? sumOne / sumBoth : 0.0);
}

// RSC, PC, and RSC with the solver's first models as alternative inputs (the "before"
// of closest inputs; its alternative-input figures only).
constexpr int kConfigs = 3;

void corpus(const fs::path &root, Total (&totals)[kConfigs]) {
  std::vector<fs::path> dirs;
  for (const auto &e : fs::directory_iterator(root))
    if (fs::exists(e.path() / "fixture.json"))
      dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  std::printf("%-24s | %5s %5s %9s %6s %7s | %5s %5s %9s %6s %7s | %5s %6s\n", "fixture", "cands",
              "rank", "bytes", "calls", "time", "cands", "rank", "bytes", "calls", "time", "rank",
              "tokens");
  std::printf("%-24s | %-37s | %-37s | %-12s\n", root.filename().c_str(), "RSC", "PC (Darwin)",
              "first models");
  for (const auto &dir : dirs) {
    auto j = nlohmann::json::parse(readFile(dir / "fixture.json"));
    DebugRequest req = fixtureRequest(dir, j);
    const auto &rc = j["root_cause"];
    std::printf("%-24s", dir.filename().string().c_str());
    for (int k = 0; k < kConfigs; ++k) {
      req.condition = k == 1 ? ConditionKind::Pc : ConditionKind::Rsc;
      req.closestInputs = k != 2;
      Total &t = totals[k];
      try {
        DebugReport r = debugRegression(req);
        unsigned rank = 0;
        for (const auto &c : r.candidates)
          if (c.version == rc["version"] && c.line == rc["line"].get<unsigned>() &&
              c.file == rc["file"]) {
            rank = c.rank;
            t.reverted += c.revert == "fixes" || c.revert == "fixes with others" ||
                          c.revert == "fixes first difference";
            t.causeDiffers += c.aligned == "differs";
            t.causeSameValues += c.aligned == "same values";
          }
        // A deleted line diverges on the old side; a modified one on the new.
        if (r.firstDivergence && r.firstDivergence->file == rc["file"] &&
            r.firstDivergence->line == rc["line"].get<unsigned>() &&
            r.firstDivergence->version == rc["version"])
          ++t.divergedAtCause;
        for (const auto &st : r.stages)
          if (st.name == "align")
            t.alignSeconds.push_back(st.seconds);
        bool seedPrintable = !hasUnprintable(req.input);
        for (const auto &c : r.candidates)
          if (c.hasAlternative) {
            ++t.alternatives;
            t.changedTokens += changedTokens(req.input, c.alternative);
            t.unprintable += seedPrintable && hasUnprintable(c.alternative);
            t.weak += !c.weakEvidence.empty();
            t.missesCriterion += !c.missesCriterion.empty();
          }
        for (const auto &c : r.candidates) {
          if (c.file != rc["file"] || c.line != rc["line"].get<unsigned>() ||
              c.kind != "changed computation")
            continue;
          ++t.causeComputations;
          t.causeValueEvidence += !c.valueEvidence.empty();
          bool alike = false, apart = false;
          for (const auto &e : c.valueEvidence) {
            alike = alike || (e.ran && e.sameValue && e.outputsAgree);
            apart = apart || (e.ran && !e.sameValue && !e.outputsAgree);
          }
          t.causeOutputsFollow += alike && apart;
        }
        if (!r.candidates.empty() && !r.candidates[0].function.empty() &&
            r.candidates[0].function != "main") {
          ++t.unitTestEligible;
          t.unitTests += r.unitTest && r.unitTest->passesOld && r.unitTest->failsNew;
        }
        ++t.fixtures;
        t.rank1 += rank == 1;
        t.candidates += static_cast<unsigned>(r.candidates.size());
        t.calls += r.solverCalls;
        t.bytes += r.formulaNodes;
        t.seconds += r.totalSeconds;
        t.solverSeconds += r.solverSeconds;
        t.perCase.push_back(r.totalSeconds);
        t.cut += std::any_of(r.stages.begin(), r.stages.end(),
                             [](const StageRecord &s) { return !s.complete; });
        if (k == 2) {
          unsigned tokens = 0;
          for (const auto &c : r.candidates)
            tokens += c.hasAlternative ? changedTokens(req.input, c.alternative) : 0;
          std::printf(" | %5s %6u", rank ? std::to_string(rank).c_str() : "-", tokens);
          continue;
        }
        std::printf(" | %5zu %5s %9llu %6u %6.2fs", r.candidates.size(),
                    rank ? std::to_string(rank).c_str() : "-",
                    static_cast<unsigned long long>(r.formulaNodes), r.solverCalls, r.totalSeconds);
      } catch (const std::exception &e) {
        std::printf(" | error: %s", e.what());
      }
    }
    std::printf("\n");
  }
}

} // namespace

// The debug request of a real mujs case (fixtures/realworld/cases.json): the fix's commit
// as the old version, its parent as the new one, the case's script on stdin.
DebugRequest mujsRequest(const nlohmann::json &c, const bench::RealTree &good,
                         const bench::RealTree &bad, const fs::path &fixtures) {
  DebugRequest req;
  req.oldRoot = good.root;
  req.newRoot = bad.root;
  req.oldRecipe = good.recipe;
  req.newRecipe = bad.recipe;
  req.oldLabel = c["good"].get<std::string>().substr(0, 7);
  req.newLabel = c["bad"].get<std::string>().substr(0, 7);
  req.input.stdinBytes = readFile(fixtures / "realworld" / c["stdin_file"].get<std::string>());
  return req;
}

// A real regression of a real project: a mujs fix commit reversed
// (fixtures/realworld/cases.json), debugged between the two trees with the default
// budget; the fix's first line is the true cause.
void realProject(const fs::path &fixtures) {
  nlohmann::json c;
  for (const auto &k : nlohmann::json::parse(readFile(fixtures / "realworld" / "cases.json")))
    if (k["name"] == "mujs_regex_class_x2d")
      c = k;
  fs::path work = makeWorkDir("bench-real");
  auto good = bench::mujsTree(c["good"].get<std::string>(), work);
  auto bad = good ? bench::mujsTree(c["bad"].get<std::string>(), work) : std::nullopt;
  if (!good || !bad) {
    fs::remove_all(work);
    return;
  }
  DebugRequest req = mujsRequest(c, *good, *bad, fixtures);
  const auto &fix = c["fix_lines"][0];
  DebugReport r = debugRegression(req);
  unsigned rank = 0;
  for (const auto &cand : r.candidates)
    if (cand.file == fix["file"] && cand.line == fix["line_bad"].get<unsigned>() && !rank)
      rank = cand.rank;
  std::printf("\nreal project: %s (mujs %s -> %s, fix at %s:%u): true cause at rank %s of %zu, "
              "%.2f s (budget %.0f s, builds included), %u solver calls\n",
              c["name"].get<std::string>().c_str(), req.oldLabel.c_str(), req.newLabel.c_str(),
              fix["file"].get<std::string>().c_str(), fix["line_bad"].get<unsigned>(),
              rank ? std::to_string(rank).c_str() : "-", r.candidates.size(), r.totalSeconds,
              req.budgetSeconds, r.solverCalls);
  for (const auto &s : r.stages)
    std::printf("  %-14s %7.2f s%s\n", s.name.c_str(), s.seconds, s.complete ? "" : " (cut)");
  fs::remove_all(work);
}

// Every real mujs regression of fixtures/realworld/cases.json (fix commits reversed),
// debugged between the two trees with the default budget: where the fix's lines rank,
// what runnable evidence the rank-1 candidate carries, and what the whole-program and
// the local composition decided (issue 31's target: rank 1 with runnable evidence).
// `debug_bench realworld [NAME...]` ($ROOTLINE_BENCH_REPORTS=DIR keeps each JSON report there).
void realRegressions(const fs::path &fixtures, const std::vector<std::string> &only) {
  fs::path work = makeWorkDir("bench-realworld");
  unsigned cases = 0, rank1 = 0, runnable = 0, decided = 0, localDecided = 0, localRan = 0;
  std::vector<double> seconds;
  std::printf("%-34s %5s %-40s %-10s %-10s %7s\n", "case", "rank", "rank-1 runnable evidence",
              "compose", "local", "seconds");
  for (const auto &c : nlohmann::json::parse(readFile(fixtures / "realworld" / "cases.json"))) {
    std::string name = c["name"];
    if (c["project"] != "mujs" || c["kind"] == "bisect" ||
        (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()))
      continue;
    auto good = bench::mujsTree(c["good"].get<std::string>(), work);
    auto bad = good ? bench::mujsTree(c["bad"].get<std::string>(), work) : std::nullopt;
    if (!good || !bad)
      break;
    DebugRequest req = mujsRequest(c, *good, *bad, fixtures);
    DebugReport r = debugRegression(req);
    nlohmann::json j = reportJson(r);
    if (const char *dir = std::getenv("ROOTLINE_BENCH_REPORTS"))
      writeFileAtomic(fs::path(dir) / (name + ".json"), j.dump(1));
    // The truth: any line the fix changed that the test reaches, on the candidate's side
    // (the old version is the fix's commit, the new one its parent).
    unsigned rank = 0;
    for (const auto &cand : r.candidates)
      for (const auto &fix : c["fix_lines"]) {
        const char *side = cand.version == "new" ? "line_bad" : "line_good";
        if (!rank && fix.value("exercised_by_test", true) && fix[side].is_number() &&
            cand.file == fix["file"] && cand.line == fix[side].get<unsigned>())
          rank = cand.rank;
      }
    std::string evidence;
    if (!j["candidates"].empty())
      for (const auto &e : j["candidates"][0]["runnable_evidence"])
        evidence += (evidence.empty() ? "" : "+") + e.get<std::string>();
    bool composed = !r.direction.starts_with("undecided") && !r.direction.empty();
    std::string local = "-";
    if (r.localComposition) {
      ++localRan;
      local = r.localComposition->decided ? "decided" : "undecided";
      localDecided += r.localComposition->decided;
    }
    ++cases;
    rank1 += rank == 1;
    runnable += !evidence.empty();
    decided += composed;
    seconds.push_back(r.totalSeconds);
    std::printf("%-34s %5s %-40s %-10s %-10s %7.1f\n", name.c_str(),
                rank ? std::to_string(rank).c_str() : "-",
                evidence.empty() ? "(none)" : evidence.c_str(), composed ? "decided" : "undecided",
                local.c_str(), r.totalSeconds);
    std::fflush(stdout);
    fs::remove_all(good->root);
    fs::remove_all(bad->root);
  }
  std::sort(seconds.begin(), seconds.end());
  auto at = [&](double q) {
    return seconds.empty() ? 0.0
                           : seconds[std::min(seconds.size() - 1, size_t(q * seconds.size()))];
  };
  std::printf("\nreal mujs regressions: %u case(s); fix line at rank 1: %u; rank-1 candidate with "
              "runnable evidence: %u; composition decided: %u; local Darwin ran %u, decided %u; "
              "seconds p50 %.1f, p95 %.1f, max %.1f\n",
              cases, rank1, runnable, decided, localRan, localDecided, at(0.5), at(0.95),
              seconds.empty() ? 0.0 : seconds.back());
  fs::remove_all(work);
}

int main(int argc, char **argv) {
  fs::path fixtures = fs::path(ROOTLINE_SOURCE_DIR) / "fixtures";
  // `debug_bench real`: only the real project's row (the corpora take about 20 min).
  if (argc > 1 && std::string(argv[1]) == "real") {
    realProject(fixtures);
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "realworld") {
    realRegressions(fixtures, std::vector<std::string>(argv + 2, argv + argc));
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "threads") {
    versionsAtOnce(fixtures / "regressions");
    return 0;
  }
  Total totals[kConfigs], mixed[kConfigs];
  corpus(fixtures / "regressions", totals);
  corpus(fixtures / "mixed", mixed);
  Total evidence[kConfigs];
  corpus(fixtures / "evidence", evidence);
  for (int k = 0; k < 2; ++k)
    std::printf("%s: true root cause at rank 1 on %u of %u (%.0f%%), %u candidates, %u solver "
                "calls, %llu formula "
                "nodes, %.2f s in the solver, %.2f s in all\n",
                k == 0 ? "RSC" : "PC ", totals[k].rank1, totals[k].fixtures,
                totals[k].fixtures ? 100.0 * totals[k].rank1 / totals[k].fixtures : 0.0,
                totals[k].candidates, totals[k].calls,
                static_cast<unsigned long long>(totals[k].bytes), totals[k].solverSeconds,
                totals[k].seconds);
  // Seconds per case with the default budget (DebugRequest::budgetSeconds).
  for (int k = 0; k < 2; ++k) {
    std::vector<double> v = totals[k].perCase;
    std::sort(v.begin(), v.end());
    auto pct = [&](double p) {
      return v.empty() ? 0.0
                       : v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
    };
    std::printf("%s: seconds per case p50 %.2f, p95 %.2f, max %.2f (budget %.0f s); %u case(s) "
                "with a stage cut short by the budget\n",
                k == 0 ? "RSC" : "PC ", pct(0.5), pct(0.95), v.empty() ? 0.0 : v.back(),
                DebugRequest{}.budgetSeconds, totals[k].cut);
  }
  auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  std::printf("RSC / PC: candidates %.2f, solver calls %.2f, formula nodes %.3f, solver time "
              "%.2f (builds land in the RSC run, which goes first, so compare solver time)\n",
              ratio(totals[0].candidates, totals[1].candidates),
              ratio(totals[0].calls, totals[1].calls), ratio(totals[0].bytes, totals[1].bytes),
              ratio(totals[0].solverSeconds, totals[1].solverSeconds));
  auto pct = [](unsigned a, unsigned b) { return b ? 100.0 * a / b : 0.0; };
  for (int k = 0; k < 2; ++k)
    std::printf("%s rank 1: clean %u/%u (%.0f%%), mixed %u/%u (%.0f%%); true cause with revert "
                "evidence: clean %u/%u, mixed %u/%u\n",
                k == 0 ? "RSC" : "PC ", totals[k].rank1, totals[k].fixtures,
                pct(totals[k].rank1, totals[k].fixtures), mixed[k].rank1, mixed[k].fixtures,
                pct(mixed[k].rank1, mixed[k].fixtures), totals[k].reverted, totals[k].fixtures,
                mixed[k].reverted, mixed[k].fixtures);
  std::printf("RSC differential unit tests of the rank-1 candidate's function (outside main): "
              "clean %u/%u, mixed %u/%u\n",
              totals[0].unitTests, totals[0].unitTestEligible, mixed[0].unitTests,
              mixed[0].unitTestEligible);
  for (int k = 0; k < 2; ++k) {
    std::vector<double> a = totals[k].alignSeconds;
    a.insert(a.end(), mixed[k].alignSeconds.begin(), mixed[k].alignSeconds.end());
    std::sort(a.begin(), a.end());
    std::printf("%s aligned runs: first divergence at the true cause: clean %u/%u, mixed %u/%u; "
                "true cause in the dual slice: clean %u/%u, mixed %u/%u; called same values: "
                "%u; align stage p50 %.3f s, max %.3f s\n",
                k == 0 ? "RSC" : "PC ", totals[k].divergedAtCause, totals[k].fixtures,
                mixed[k].divergedAtCause, mixed[k].fixtures, totals[k].causeDiffers,
                totals[k].fixtures, mixed[k].causeDiffers, mixed[k].fixtures,
                totals[k].causeSameValues + mixed[k].causeSameValues,
                a.empty() ? 0.0 : a[a.size() / 2], a.empty() ? 0.0 : a.back());
  }
  for (int k = 0; k < kConfigs; ++k) {
    unsigned n = totals[k].alternatives + mixed[k].alternatives;
    std::printf(
        "%s alternative inputs: %u, changed input tokens per input: clean %.2f, mixed "
        "%.2f, all %.2f; with a non-printable byte the failing input lacks: %u\n",
        k == 0   ? "RSC"
        : k == 1 ? "PC "
                 : "RSC, first models",
        n, totals[k].alternatives ? double(totals[k].changedTokens) / totals[k].alternatives : 0.0,
        mixed[k].alternatives ? double(mixed[k].changedTokens) / mixed[k].alternatives : 0.0,
        n ? double(totals[k].changedTokens + mixed[k].changedTokens) / n : 0.0,
        totals[k].unprintable + mixed[k].unprintable);
  }
  std::printf("RSC value evidence: the true cause as a changed computation %u time(s), with "
              "value evidence %u, outputs follow its value %u; branch deviations whose "
              "alternative run stops before the failing output: %u\n",
              totals[0].causeComputations + mixed[0].causeComputations,
              totals[0].causeValueEvidence + mixed[0].causeValueEvidence,
              totals[0].causeOutputsFollow + mixed[0].causeOutputsFollow,
              totals[0].missesCriterion + mixed[0].missesCriterion);
  std::printf("RSC, first models: rank 1 clean %u/%u, mixed %u/%u\n", totals[2].rank1,
              totals[2].fixtures, mixed[2].rank1, mixed[2].fixtures);
  for (int k : {0, 2})
    std::printf("%s: input-error-path corpus (fixtures/evidence): rank 1 %u/%u, changed tokens "
                "per alternative input %.2f, evidence labelled weak: %u (all corpora: %u)\n",
                k == 0 ? "RSC" : "RSC, first models", evidence[k].rank1, evidence[k].fixtures,
                evidence[k].alternatives
                    ? double(evidence[k].changedTokens) / evidence[k].alternatives
                    : 0.0,
                evidence[k].weak, evidence[k].weak + totals[k].weak + mixed[k].weak);
  realProject(fixtures);
  return 0;
}
