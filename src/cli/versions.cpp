#include "cli/versions.h"

#include "rootline/error.h"

namespace rootline::cli {

VersionTree localVersion(const std::string &path) {
  if (fs::is_regular_file(path)) {
    fs::path abs = fs::absolute(path).lexically_normal();
    return {abs.parent_path(), path, std::nullopt, abs.filename().string()};
  }
  if (!fs::is_directory(path))
    throw Error("'" + path + "' is neither a directory nor a source file");
  return {fs::absolute(path).lexically_normal(), path, std::nullopt, {}};
}

BuildRecipe recipeOf(const RecipeRequest &request, const VersionTree &version) {
  if (version.singleFile.empty())
    return resolveRecipeIn(request, version.root);
  if (!request.sources.empty())
    throw Error("--src does not go with versions given as files ('" + version.label +
                "' is the whole program)");
  RecipeRequest r = request;
  r.sources = {version.singleFile};
  return resolveRecipeIn(r, version.root);
}

void requireSameKind(const std::vector<const VersionTree *> &versions) {
  for (const VersionTree *v : versions)
    if (v->singleFile.empty() != versions.front()->singleFile.empty())
      throw Error("give every version as a directory or every version as a C file ('" +
                  versions.front()->label + "' and '" + v->label + "' differ)");
}

VersionTree commitVersion(const Repository &repo, const std::string &revision) {
  std::string hash = repo.resolve(revision);
  CommitInfo info = repo.commit(hash);
  return {repo.materialize(hash), info.shortHash, info, {}};
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
