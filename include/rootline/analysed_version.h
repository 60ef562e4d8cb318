// One version of a program prepared for comparison with another (debug, validate):
// built traced and native, its module loaded, indexed and analysed; and running an
// input on a native executable.
#pragma once

#include "rootline/explore.h"

#include <memory>
#include <string>

namespace rootline {

struct RunSummary {
  std::string outcome; // "exit 0", "signal SIGSEGV", "timeout"
  std::string stdoutBytes;
  double seconds = 0; // wall clock
  std::string stderrBytes;
};

struct AnalysedVersion {
  std::string name; // "old", "new", "good", "fix": names the version in errors
  fs::path root;    // its source tree
  TracedProgram program;
  fs::path native;
  LoadedModule module; // program.module, loaded
  std::unique_ptr<ModuleIndex> index;
  std::unique_ptr<StaticAnalysis> analysis;
};

// A version built elsewhere (by the project's own build, docs/project.md): its traced
// program and its native executable.
struct BuiltVersion {
  TracedProgram traced;
  fs::path native;
};
// Takes `v`'s programs from `built` and analyses its module.
void analyseBuiltVersion(AnalysedVersion &v, const BuiltVersion &built);

// Builds `v` from `recipe` (name and root already set). A build failure is an Error
// naming the version ("the new version does not build: ...") with clang's diagnostics.
void buildAnalysedVersion(AnalysedVersion &v, const BuildRecipe &recipe);

// Only the native executable of a version (when no analysis is needed), with the same
// error as buildAnalysedVersion.
fs::path buildNativeVersion(const std::string &name, const BuildRecipe &recipe);

// Two runs behave alike: same stdout and ending, and the same stderr when the test
// compares it (a test command's failing process).
bool behaveAlike(const RunSummary &a, const RunSummary &b, bool stderrCounts);

// Runs `input` on a native executable, its stdin written into `dir`. A run that prints
// more than `maxOutputBytes` (0: no limit) is killed and ends as "output limit".
RunSummary runInputNatively(const fs::path &exe, const ProgramInput &input, const fs::path &dir,
                            double timeoutSeconds, uint64_t maxOutputBytes = 0);

// The output limit for inputs rootline made up (evidence, counterexamples): a solver's
// model may ask a program to print for a very long time.
inline constexpr uint64_t kMadeUpInputOutputLimit = 1u << 20;

// `path` relative to `root` when it lies inside it, else unchanged.
std::string relativeTo(const std::string &path, const fs::path &root);

} // namespace rootline
