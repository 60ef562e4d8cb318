// The run stage: build a program for tracing (instrumented + runtime) and natively,
// and run a test on it.
#pragma once

#include "rootline/build.h"
#include "rootline/process.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rootline {

// What one test is: stdin, argv after the program name, limits.
struct TestCase {
  std::optional<fs::path> stdinFile;
  std::vector<std::string> args;
  double timeoutSeconds = 30;
  uint64_t maxTraceBytes = 4ull << 30;    // 4 GiB
  uint64_t maxOutputBytes = 0;            // native runs only; 0 = no limit
  std::optional<fs::path> workDir;        // the run's working directory; else rootline's
  std::string argv0;                      // argv[0] when not the executable's path
  std::map<std::string, std::string> env; // set for the run, over rootline's environment
  // A file under workDir read back as the run's stdout when it ends (the program's own
  // stdout is then left out); traced runs log its writes as stdout.
  std::string outputFile;
};

struct TracedProgram {
  BuildRecipe recipe;
  BuiltModule module;       // the original module: replay walks this one
  fs::path instrumentedExe; // module + instrumentation + runtime
  bool cacheHit = false;    // every step came from the cache
  // What the program's own link line adds after the objects (a project's archives, -L,
  // -l); a recipe's libraries are recipe.libs.
  std::vector<std::string> linkFlags;
};

// Builds (or fetches from the cache) the instrumented executable of a recipe.
TracedProgram buildTraced(const BuildRecipe &recipe);
// The same for a module already built (a project's program): `linkFlags` are what its
// own link line adds after the objects (archives, -L, -l, -pthread, ...).
TracedProgram buildTracedModule(const BuiltModule &module,
                                const std::vector<std::string> &linkFlags);
// The uninstrumented native executable of a module (for comparisons).
fs::path buildNative(const BuildRecipe &recipe, const BuiltModule &module);

struct TracedRun {
  ProcessResult process;
  fs::path trace;
  bool limitReached = false; // the runtime stopped the program at maxTraceBytes
  // The run's time ran out before the program began its trace (a search's last run
  // given what was left of its budget, on a busy machine): `trace` does not exist.
  bool untraced = false;
};

// Runs the test on the instrumented executable, writing the trace to `traceFile`. A
// program that wrote no trace is an error, unless its time ran out first and the caller
// takes that (`timeoutBeforeTrace`): then the run is `untraced`.
TracedRun runTraced(const TracedProgram &program, const TestCase &test, const fs::path &traceFile,
                    bool timeoutBeforeTrace = false);
ProcessResult runNative(const fs::path &exe, const TestCase &test);

// Path of the runtime library linked into traced programs.
fs::path runtimeLibrary();

} // namespace rootline
