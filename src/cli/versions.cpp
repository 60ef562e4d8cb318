#include "cli/versions.h"

#include "rootline/error.h"

namespace rootline::cli {

VersionTree directoryVersion(const std::string &dir) {
  if (!fs::is_directory(dir))
    throw Error("'" + dir + "' is not a directory");
  return {fs::absolute(dir), dir, std::nullopt};
}

VersionTree commitVersion(const Repository &repo, const std::string &revision) {
  std::string hash = repo.resolve(revision);
  CommitInfo info = repo.commit(hash);
  return {repo.materialize(hash), info.shortHash, info};
}

Repository openRepository(const RepoOptions &options) {
  return Repository::open(options.repo.empty() ? "." : options.repo);
}

void addRepoOptions(CLI::App &cmd, RepoOptions &options) {
  cmd.add_option("--repo", options.repo,
                 "Git repository (any directory inside its work tree); the versions are "
                 "commits, read from git's object store, never checked out");
  cmd.add_option("--good", options.good,
                 "Revision where the test passes (tag, branch, HEAD~3, short hash)");
  cmd.add_option("--bad", options.bad, "Revision where the test fails");
}

} // namespace rootline::cli
