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
  std::string label; // the directory as typed, or the commit's short hash
  std::optional<CommitInfo> commit;
};

VersionTree directoryVersion(const std::string &dir);
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
