// explore --shards N: rounds of shards as work units (docs/explore.md "Shards").
#pragma once

#include "cli/fan_out.h"
#include "rootline/explore.h"

namespace rootline::cli {

struct ShardRequest {
  unsigned shards = 0;
  FanOutOptions fanOut;
  // What every shard's `explore --shard FILE` is given besides the file, its budget and
  // its runs: the program's build options and the search's settings.
  std::vector<std::string> exploreArgs;
};

// A short exploration here makes the frontier; each round deals it to the shards (each
// a unit with its part, what was found so far and a share of the budget), merges what
// they found and queues what they left, until nothing is queued, --max-runs or the
// budget. Tests are renumbered and coverage recounted at the end.
ExploreResult exploreInShards(const TracedProgram &program, const ProgramInput &seed,
                              const ExploreOptions &options, const ShardRequest &request,
                              Progress &progress);

// One shard unit: the search from the file's frontier, printed as its whole result.
int runExploreShard(const TracedProgram &program, ExploreOptions options, const fs::path &file);

} // namespace rootline::cli
