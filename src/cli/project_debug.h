// rootline debug with the project's own build (--build) and test command (--test).
#pragma once

#include "cli/cli.h"
#include "rootline/debug.h"
#include "rootline/project.h"

#include <optional>
#include <string>

namespace rootline::cli {

struct ProjectDebugOptions {
  std::string build;  // --build; empty: detected
  std::string test;   // --test; empty: the test is one process (--stdin, args)
  std::string target; // --target
  std::optional<std::string> expectedStdout; // --expect with --test
  double testTimeout = 600;
  bool given() const { return !build.empty() || !test.empty(); }
};

// The failing process of a test command between two built versions (the first whose
// behaviour differs), as a one-process test: its inputs, its old stdout, its program in
// each version. Errors (exit 2) when the test does not pass on the first and fail on the
// second; `notes` get the test's result and the process chosen, and why.
struct CarvedProcess {
  ProgramInput input;
  std::string expectedStdout;
  std::string name; // "`mawk -f wc.awk mawktest.dat` (process 5 of the old run)"
  const ProjectProgram *oldProgram = nullptr, *newProgram = nullptr;
  double testSeconds = 0;       // the test's run on the new version
  bool testTimedTraced = false; // that run was traced (it decided: "Traced first")
  // The test's processes of the failing process's program, each run's (the test spectrum),
  // and the directory of their traces.
  std::vector<DebugRequest::TestProcess> oldProcesses, newProcesses;
  std::shared_ptr<const void> traces;
  // The inputs of newProcesses[i], to run it alone.
  std::function<std::optional<ProgramInput>(size_t)> newProcessInput;
};
CarvedProcess carveFailingProcess(const BuiltProject &oldB, const BuiltProject &newB,
                                  const ProjectDebugOptions &opt, Progress &progress,
                                  std::vector<std::string> &notes);
BuiltVersion builtVersion(const BuiltProject &project, const ProjectProgram &program);

// --build and --test on a command; `testHelp` says what the test decides there.
void addProjectOptions(CLI::App &cmd, std::string &build, std::string &test,
                       const std::string &testHelp);

// The request with both versions built by the project's build and, for a test command,
// its failing process as the test: its program, its inputs, its old output as expected.
DebugRequest projectDebugRequest(const ProjectDebugOptions &opt, DebugRequest req,
                                 const fs::path &oldTree, const fs::path &newTree,
                                 Progress &progress);

} // namespace rootline::cli
