// explore --shards N and the shard units it runs (docs/explore.md "Shards").
#include "cli/explore_shards.h"
#include "rootline/budget.h"
#include "rootline/error.h"
#include "rootline/json_text.h"

#include <chrono>
#include <iostream>

namespace rootline::cli {

using nlohmann::json;

namespace {

// Test ids of shard k in round r start here: 100 000 ids per shard, so ids stay unique
// across shards and rounds until they are renumbered (round 0's start at 1).
unsigned firstTestId(unsigned round, size_t shard) {
  return static_cast<unsigned>(100000u * (round * 257u + shard + 1));
}
constexpr unsigned kMaxRounds = 160; // keeps those ids within 32 bits

json shardJson(const std::vector<ExploreCandidate> &part, const ExploreResult &sofar,
               unsigned firstId) {
  json branches = json::array(), lines = json::array();
  for (const auto &[id, succ] : sofar.coveredBranches)
    branches.push_back({id, succ});
  for (const auto &[file, line] : sofar.coveredLines)
    lines.push_back({file, line});
  return {{"schema", "rootline.explore-frontier/1"},
          {"frontier", exploreFrontierJson(part)},
          {"known_paths", sofar.paths},
          {"known_partitions", sofar.partitionKeys},
          {"known_negated", sofar.negated},
          {"known_branches", branches},
          {"known_lines", lines},
          {"first_test_id", firstId}};
}

} // namespace

int runExploreShard(const TracedProgram &program, ExploreOptions options, const fs::path &file) {
  json shard;
  try {
    shard = json::parse(readFile(file));
  } catch (const json::exception &e) {
    throw Error("--shard '" + file.string() + "' is not valid JSON: " + e.what());
  }
  if (shard.value("schema", "") != "rootline.explore-frontier/1")
    throw Error("--shard '" + file.string() + "' is not a rootline.explore-frontier/1 file");
  options.frontier = exploreFrontierFromJson(shard.at("frontier"));
  if (options.frontier.empty())
    throw Error("--shard '" + file.string() + "' holds no inputs to explore from");
  options.knownPaths = shard.value("known_paths", std::set<std::string>{});
  options.knownPartitions = shard.value("known_partitions", std::set<std::string>{});
  options.knownNegated = shard.value("known_negated", std::set<std::string>{});
  for (const auto &b : shard.value("known_branches", json::array()))
    options.knownBranches.insert({b[0].get<uint32_t>(), b[1].get<uint32_t>()});
  for (const auto &l : shard.value("known_lines", json::array()))
    options.knownLines.insert({l[0].get<std::string>(), l[1].get<unsigned>()});
  options.firstTestId = shard.value("first_test_id", 1u);
  ExploreResult r = explore(program, {}, options);
  std::cout << jsonText(exploreResultJson(r));
  return ExitOk;
}

ExploreResult exploreInShards(const TracedProgram &program, const ProgramInput &seed,
                              const ExploreOptions &options, const ShardRequest &request,
                              Progress &progress) {
  if (request.fanOut.engine == "print")
    throw Error("explore --shards runs its rounds itself (each deals what the last one left): "
                "use --engine local or slurm");
  auto start = std::chrono::steady_clock::now();
  Deadline deadline = options.timeBudgetSeconds > 0 ? Deadline::in(options.timeBudgetSeconds)
                                                    : Deadline::unlimited();
  // Round 0, here: as many runs as shards, so that the frontier has inputs for each.
  ExploreOptions first = options;
  first.maxRuns = std::min(options.maxRuns, std::max(1u, request.shards));
  ExploreResult all = explore(program, seed, first);
  std::vector<ExploreCandidate> frontier = std::move(all.remaining);
  all.remaining.clear();
  fs::path planDir = planDirectory(request.fanOut, "explore");
  writePlan({planDir, "explore", 1, {}, json::object()}); // checks the directory
  EngineOptions engine = engineOptions(request.fanOut, nullptr);
  engine.mergeOnCluster = false; // the next round is dealt from this merge
  unsigned round = 1, idle = 0;
  for (; !frontier.empty() && all.stats.runs < options.maxRuns && !deadline.expired() &&
         round <= kMaxRounds && idle < 2;
       ++round) {
    // No more shards than runs left, each a whole share: --max-runs is never passed.
    unsigned runsLeft = options.maxRuns - all.stats.runs;
    std::vector<std::vector<ExploreCandidate>> parts =
        splitFrontier(frontier, std::min(request.shards, runsLeft));
    unsigned runsEach = runsLeft / static_cast<unsigned>(parts.size());
    // Shards that cannot all run at once share the time left by waves.
    size_t atOnce = engine.jobs ? std::min<size_t>(engine.jobs, parts.size()) : parts.size();
    double budgetEach =
        deadline.limited()
            ? std::max(1.0, deadline.remaining() * double(atOnce) / double(parts.size()) - 1)
            : 0;
    WorkPlan plan{planDir, "explore", round, {}, {{"shards", parts.size()}}};
    for (size_t k = 0; k < parts.size(); ++k) {
      fs::path file = roundDir(plan) / "shards" / (std::to_string(k) + ".json");
      WorkUnit u;
      u.name = "round " + std::to_string(round) + " shard " + std::to_string(k);
      u.args = {"explore",    "--json",
                "--shard",    file.string(),
                "--budget",   std::to_string(budgetEach),
                "--max-runs", std::to_string(runsEach)};
      u.args.insert(u.args.end(), request.exploreArgs.begin(), request.exploreArgs.end());
      u.timeoutSeconds = budgetEach > 0 ? 2 * budgetEach + 300 : 0;
      u.workDir = fs::current_path(); // --src and -I paths are the command line's
      plan.units.push_back(std::move(u));
    }
    writePlan(plan);
    for (size_t k = 0; k < parts.size(); ++k) {
      fs::path file = roundDir(plan) / "shards" / (std::to_string(k) + ".json");
      fs::create_directories(file.parent_path());
      writeFileAtomic(file, jsonText(shardJson(parts[k], all, firstTestId(round, k))));
    }
    progress.update("round " + std::to_string(round) + ": " + std::to_string(frontier.size()) +
                    " queued input(s) in " + std::to_string(parts.size()) + " shard(s)");
    EngineRun run = runPlan(plan, engine);
    unsigned runsBefore = all.stats.runs;
    frontier.clear();
    for (size_t k = 0; k < parts.size(); ++k) {
      std::optional<UnitResult> r = readUnitResult(plan, k);
      ExploreResult shard;
      bool answered = false;
      if (r && r->output.is_object())
        try {
          shard = exploreResultFromJson(r->output);
          answered = true;
        } catch (const std::exception &) {
        }
      if (!answered) { // its inputs go to the next round
        frontier.insert(frontier.end(), parts[k].begin(), parts[k].end());
        all.notes.push_back("shard " + std::to_string(k) + " of round " + std::to_string(round) +
                            " gave no answer" + (r && !r->error.empty() ? ": " + r->error : "") +
                            "; its inputs were queued again");
        continue;
      }
      frontier.insert(frontier.end(), std::make_move_iterator(shard.remaining.begin()),
                      std::make_move_iterator(shard.remaining.end()));
      shard.remaining.clear();
      mergeExploreResult(all, std::move(shard), options.strategy);
    }
    idle = all.stats.runs == runsBefore ? idle + 1 : 0;
    if (!run.note.empty())
      all.notes.push_back("round " + std::to_string(round) + ": " + run.note);
  }
  if (!frontier.empty())
    all.notes.push_back("budget: the sharded exploration stopped after " +
                        std::to_string(round - 1) + " round(s) with " +
                        std::to_string(frontier.size()) + " input(s) still queued");
  all.remaining = std::move(frontier);
  renumberTests(all);
  recountCoverage(program, all);
  all.stats.totalSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return all;
}

} // namespace rootline::cli
