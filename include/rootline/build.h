// The build stage: a C program (sources + flags) becomes one linked LLVM module, and a
// module becomes a native executable. Results are cached by content hash.
#pragma once

#include "rootline/fs.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace rootline {

struct TranslationUnit {
  fs::path source;                // absolute path
  std::vector<std::string> flags; // extra clang flags (-I, -D, -std, ...)
  fs::path workDir;               // clang runs here (relative -I paths resolve from it)
};

struct BuildRecipe {
  std::vector<TranslationUnit> units;
  std::vector<std::string> libs; // link libraries without "-l" ("m")
  std::string origin;            // "command line", "rootline.json", "compile_commands.json"
};

// Where a recipe may come from, in priority order: explicit sources, else
// <projectDir>/rootline.json, else <projectDir>/compile_commands.json (or build/).
struct RecipeRequest {
  std::vector<std::string> sources; // as typed; relative to the current directory
  std::string cflags;               // one string, split like a shell would
  std::vector<std::string> libs;
  fs::path projectDir = ".";
  // compile_commands.json naming several programs: the one to build (docs/build.md,
  // "Several programs"): its main file and every entry without a main.
  std::string target;
  // --recipe FILE: a rootline.json or compile_commands.json for trees that have none of
  // their own (old commits); its paths under `recipeBase` (default: FILE's directory)
  // are re-rooted into each tree.
  fs::path recipeFile;
  fs::path recipeBase;
};

BuildRecipe resolveRecipe(const RecipeRequest &request);
// The project file a recipe without sources comes from: rootline.json, else
// compile_commands.json, else build/compile_commands.json; none when there is none.
std::optional<fs::path> projectRecipeFile(const fs::path &projectDir);
// The same request in another tree (a version of the project): relative --src paths and
// the project directory are taken from `root`.
BuildRecipe resolveRecipeIn(const RecipeRequest &request, const fs::path &root);
// Reads a rootline.json (schema in docs/build.md); relative sources resolve against
// `base` (default: the file's directory).
BuildRecipe recipeFromProjectFile(const fs::path &jsonPath, const fs::path &base = {});
// Reads a compile_commands.json: every C file in it joins the program, each once. When it
// builds several programs (several files define `main`), `target` names the one to
// build; without it that is an error listing them.
BuildRecipe recipeFromCompileCommands(const fs::path &jsonPath, const std::string &target = {});
// The same recipe with every source path re-rooted from `from` to `to` (used to build a
// second version of a program from the same recipe).
BuildRecipe rebaseRecipe(const BuildRecipe &recipe, const fs::path &from, const fs::path &to);

struct BuiltModule {
  fs::path bitcode; // linked module, inside the cache
  // Each unit's own bitcode before linking, in the recipe's order. The linker merges
  // struct types of the same layout; a unit's own module keeps clang's names.
  std::vector<fs::path> unitBitcode;
  std::string key; // content hash of everything that went into it
  bool cacheHit = false;
};

// Compiles each unit with clang-19 to bitcode and links them with the LLVM API.
// Throws Error (exit 2) naming the file and carrying clang's diagnostics when a unit
// does not compile, or the link error when units do not link.
BuiltModule buildModule(const BuildRecipe &recipe);
// Links bitcode files already compiled (by rootline-cc, content-addressed: each file's
// name is its content's hash) into one module, cached like buildModule's.
BuiltModule linkBitcodeModule(const std::vector<fs::path> &units);

struct BuiltExecutable {
  fs::path path;
  bool cacheHit = false;
};

// Compiles a module to a native executable, linking extra objects/archives and the
// recipe's libraries. `flavor` names the variant in the cache ("native", "traced").
BuiltExecutable linkExecutable(const fs::path &bitcode, const std::string &moduleKey,
                               const std::string &flavor, const std::vector<fs::path> &extraInputs,
                               const std::vector<std::string> &libs,
                               const std::vector<std::string> &extraFlags = {});
// The module linked natively under a sanitizer ("address" or "memory"), every function
// of it instrumented; cached like any executable.
BuiltExecutable linkSanitized(const BuiltModule &module, const std::string &sanitizer,
                              const std::vector<std::string> &libs);

// Splits a flag string like a POSIX shell would (quotes, backslashes).
std::vector<std::string> splitFlags(const std::string &flags);

// A module loaded for analysis, with the context that owns it.
struct LoadedModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  LoadedModule();
  LoadedModule(LoadedModule &&) noexcept;
  LoadedModule &operator=(LoadedModule &&) noexcept;
  ~LoadedModule();
};
LoadedModule loadModule(const fs::path &bitcode);

// The clang used for subject programs.
std::string clangPath();

} // namespace rootline
