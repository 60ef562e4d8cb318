// Private to src/vcs: owning handles for libgit2 objects and the repository's state.
#pragma once

#include "rootline/error.h"
#include "rootline/vcs.h"

#include <git2.h>

#include <memory>
#include <string>

namespace rootline::vcs {

// libgit2 is initialised once per process and never shut down (its global state is
// shared by every Repository and by diffTexts).
void ensureLibgit2();

// The last libgit2 error's message, or a fallback.
std::string lastGitError();

template <typename T, void (*Free)(T *)> struct GitDeleter {
  void operator()(T *p) const { Free(p); }
};
template <typename T, void (*Free)(T *)> using GitPtr = std::unique_ptr<T, GitDeleter<T, Free>>;

using RepoPtr = GitPtr<git_repository, git_repository_free>;
using ObjectPtr = GitPtr<git_object, git_object_free>;
using CommitPtr = GitPtr<git_commit, git_commit_free>;
using TreePtr = GitPtr<git_tree, git_tree_free>;
using BlobPtr = GitPtr<git_blob, git_blob_free>;
using DiffPtr = GitPtr<git_diff, git_diff_free>;
using WalkPtr = GitPtr<git_revwalk, git_revwalk_free>;

std::string oidHex(const git_oid *oid);
git_oid parseOid(const std::string &hex); // a full hash; Error otherwise

} // namespace rootline::vcs

namespace rootline {

struct Repository::Impl {
  vcs::RepoPtr repo;
  fs::path path; // as the user gave it, for messages

  vcs::CommitPtr lookupCommit(const std::string &hash) const;
  vcs::TreePtr treeOf(const std::string &hash) const;
};

} // namespace rootline
