// The versions a command compares: directories (--old/--new) or commits of a repository
// (--repo with --good/--bad/--fix), materialised into the cache.
#pragma once

#include "cli/cli.h"
#include "rootline/vcs.h"

#include <optional>
#include <string>

namespace rootline::cli {

struct VersionTree {
  fs::path root;     // the files of this version
  std::string label; // the path as typed, or the commit's short hash
  std::optional<CommitInfo> commit;
  std::string singleFile; // a version given as one C file: its name in `root`
};

// A version on disk: a directory, or one C file (a single-file program, whose
// directory becomes the root).
VersionTree localVersion(const std::string &path);
// The build recipe of a version: a single file is the whole program (--src is then an
// error), else the request resolved in the version's tree.
BuildRecipe recipeOf(const RecipeRequest &request, const VersionTree &version);
// Versions given on the command line must all be files or all be directories.
void requireSameKind(const std::vector<const VersionTree *> &versions);
VersionTree commitVersion(const Repository &repo, const std::string &revision);

// Adds --repo, --good and --bad.
struct RepoOptions {
  std::string repo, good, bad;
  bool given() const { return !repo.empty() || !good.empty() || !bad.empty(); }
};
void addRepoOptions(CLI::App &cmd, RepoOptions &options);
// The repository --repo names (default: the one containing the current directory).
Repository openRepository(const RepoOptions &options);

} // namespace rootline::cli
