// Unit-level exploration (docs/explore.md, "Unit mode"): one C function of a program,
// explored with symbolic arguments and globals through a generated driver. The driver
// is C source that includes the function's own file (so static functions and types are
// in scope), reads every value and every shape decision as a number from stdin, builds
// the arguments, calls the function and prints what it returns and the state it leaves.
// The exploration then runs on the driver like on any program reading stdin.
#pragma once

#include "rootline/build.h"
#include "rootline/explore.h"

#include <string>
#include <vector>

namespace rootline {

struct UnitOptions {
  std::string function;
  unsigned maxDepth = 2;   // pointer chains: a pointer this many links from an argument is NULL
  unsigned maxObjects = 3; // fresh objects per struct type
  unsigned maxArray = 4;   // elements behind a pointer to a scalar type
  unsigned maxString = 4;  // characters of a string (before its NUL)
};

// What the driver builds for one argument or global: shown in tests and sidecars.
struct UnitInput {
  std::string name; // "b", "flags", "g_mode"
  std::string type; // its C type as the source spells it
  std::string how;  // "symbolic integer", "lazily initialised pointer to struct buf", ...
};

struct UnitHarness {
  std::string function;
  fs::path definingSource; // the unit the function is defined in
  BuildRecipe program;     // the program as given
  BuildRecipe recipe;      // the program with the driver in place of that unit
  fs::path driver;         // the generated driver (driver.c)
  std::string driverText;
  ProgramInput seed;              // enough numbers for every shape within the bounds
  std::vector<UnitInput> inputs;  // globals, then arguments
  std::vector<std::string> notes; // what is not symbolic, and why
  // The function and the program's functions it may call (directly, transitively): what
  // coverage is reported for.
  std::vector<std::string> covered;
  // The driver's printing functions: their branches (escaping a character, NULL or
  // not) are not negated (ExploreOptions::quietFunctions).
  std::set<std::string> quietFunctions = {"rl_print_state", "rl_print_text", "rl_print_pointer",
                                          "rl_print_strings", "rl_print_targets"};
  UnitOptions options;
};

// Generates the driver into `dir` (created). Throws Error (exit 2) when the program has
// no such function, the function has no debug information, or it is `main`.
UnitHarness makeUnitHarness(const BuildRecipe &program, const UnitOptions &options,
                            const fs::path &dir);

// Writes DIR/unit/: test_<function>.c (cmocka, one test per generated test that exits
// normally), crash_<function>.c (one failing test per crashing input, its crash named),
// CMakeLists.txt (builds both against the project's sources) and cases.json (each case's
// inputs, chosen shapes and expected output).
void writeUnitTests(const ExploreResult &result, const UnitHarness &harness, const fs::path &dir);

} // namespace rootline
