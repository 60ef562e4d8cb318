// The line-level diff between two commits' trees, with renames, as git diff -M -U0.
#include "vcs/git_handle.h"

namespace rootline {

using namespace vcs;

namespace {

int addFileDiff(const git_diff_delta *delta, float, void *payload) {
  auto *files = static_cast<std::vector<FileDiff> *>(payload);
  FileDiff f;
  if (delta->status != GIT_DELTA_ADDED)
    f.oldPath = delta->old_file.path;
  if (delta->status != GIT_DELTA_DELETED)
    f.newPath = delta->new_file.path;
  files->push_back(std::move(f));
  return 0;
}

int addFileHunk(const git_diff_delta *, const git_diff_hunk *hunk, void *payload) {
  auto *files = static_cast<std::vector<FileDiff> *>(payload);
  files->back().lines.hunks.push_back(
      {static_cast<unsigned>(hunk->old_start), static_cast<unsigned>(hunk->old_lines),
       static_cast<unsigned>(hunk->new_start), static_cast<unsigned>(hunk->new_lines)});
  return 0;
}

} // namespace

SourceDiff Repository::diff(const std::string &from, const std::string &to) const {
  TreePtr a = impl_->treeOf(from), b = impl_->treeOf(to);
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.context_lines = 0;
  git_diff *d = nullptr;
  if (git_diff_tree_to_tree(&d, impl_->repo.get(), a.get(), b.get(), &opts) != 0)
    throw Error("cannot diff " + from.substr(0, 12) + " and " + to.substr(0, 12) + ": " +
                lastGitError());
  DiffPtr diff(d);
  git_diff_find_options find = GIT_DIFF_FIND_OPTIONS_INIT;
  find.flags = GIT_DIFF_FIND_RENAMES;
  if (git_diff_find_similar(d, &find) != 0)
    throw Error("cannot find renames: " + lastGitError());
  SourceDiff out;
  if (git_diff_foreach(d, addFileDiff, nullptr, addFileHunk, nullptr, &out.files) != 0)
    throw Error("cannot read the diff: " + lastGitError());
  return out;
}

TextDiff SourceDiff::ofOld(const std::string &path) const {
  for (const auto &f : files)
    if (f.oldPath == path)
      return f.lines;
  return {};
}

TextDiff SourceDiff::ofNew(const std::string &path) const {
  for (const auto &f : files)
    if (f.newPath == path)
      return f.lines;
  return {};
}

} // namespace rootline
