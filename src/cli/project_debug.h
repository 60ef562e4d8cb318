// rootline debug with the project's own build (--build) and test command (--test).
#pragma once

#include "rootline/debug.h"

#include <string>

namespace rootline::cli {

struct ProjectDebugOptions {
  std::string build;  // --build; empty: detected
  std::string test;   // --test; empty: the test is one process (--stdin, args)
  std::string target; // --target
  double testTimeout = 600;
  bool given() const { return !build.empty() || !test.empty(); }
};

// The request with both versions built by the project's build and, for a test command,
// its failing process as the test: its program, its inputs, its old output as expected.
DebugRequest projectDebugRequest(const ProjectDebugOptions &opt, DebugRequest req,
                                 const fs::path &oldTree, const fs::path &newTree,
                                 Progress &progress);

} // namespace rootline::cli
