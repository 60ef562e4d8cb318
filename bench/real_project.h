// The benchmarks' real-project rows: mujs (a 16 kLOC JavaScript interpreter) from the
// bundle in ../shared/realworld, a commit's tree laid out under a work directory.
#pragma once

#include "rootline/build.h"

#include <optional>
#include <string>

namespace rootline::bench {

struct RealTree {
  fs::path root;
  BuildRecipe recipe; // one.c (the unity build of the interpreter) + main.c, -std=c99, -lm
};

// mujs at `commit` under `work`; nullopt (with a line on stdout saying why) when the
// bundle is not there or the commit cannot be laid out.
std::optional<RealTree> mujsTree(const std::string &commit, const fs::path &work);

// A script that runs a few million instructions of the interpreter: a prime sieve,
// string building, a regular expression, an object's keys, JSON.
fs::path mujsWorkload();

// The commit the trace and slice rows use (the last with the sources).
inline constexpr const char *kMujsCommit = "05cd646";

} // namespace rootline::bench
