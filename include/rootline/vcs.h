// Git access through libgit2, read-only: revisions, commit metadata, first-parent
// history, tree-to-tree diffs, and commits materialised into the cache. Nothing here
// writes to the repository, its working tree, index, HEAD, refs or stash.
#pragma once

#include "rootline/fs.h"
#include "rootline/text_diff.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rootline {

struct CommitInfo {
  std::string hash;      // 40 hex digits
  std::string shortHash; // the shortest unambiguous prefix, at least 7 digits
  std::string author, email;
  std::string date;    // author date, ISO 8601 with the author's UTC offset
  std::string subject; // first line of the message
  std::vector<std::string> parents;
};

// One file changed between two commits. An added file has an empty oldPath, a deleted
// one an empty newPath; a rename has both (detected like `git diff -M`).
struct FileDiff {
  std::string oldPath, newPath;
  TextDiff lines;
};

// The changed line ranges of each file, looked up from either side.
struct SourceDiff {
  std::vector<FileDiff> files;
  // The diff of the file at `path` in the old (resp. new) version; a file the diff does
  // not name is unchanged (an empty TextDiff maps every line to itself).
  TextDiff ofOld(const std::string &path) const;
  TextDiff ofNew(const std::string &path) const;
};

class Repository {
public:
  // Opens the repository containing `dir` (a work tree, a subdirectory of one, or a bare
  // repository). Throws Error (exit 2) when there is none or it has no commits.
  static Repository open(const fs::path &dir);
  Repository(Repository &&) noexcept;
  Repository &operator=(Repository &&) noexcept;
  ~Repository();

  // The work tree's top directory (the git directory for a bare repository).
  fs::path root() const;
  // Any revision `git rev-parse` takes (HEAD~3, tags, branches, short hashes), peeled
  // to a commit: its full hash. Throws Error naming the revision when unknown.
  std::string resolve(const std::string &revision) const;
  CommitInfo commit(const std::string &hash) const;
  // True when `ancestor` is `descendant` or one of its ancestors.
  bool isAncestor(const std::string &ancestor, const std::string &descendant) const;
  // Commits on `bad`'s first-parent chain that `good` cannot reach, oldest first; `bad`
  // is last. The candidates of a bisection.
  std::vector<std::string> firstParentRange(const std::string &good, const std::string &bad) const;
  // The commit's files, written once under <cache>/trees/<tree id>/ (content-addressed:
  // commits with the same tree share it). Returns that directory.
  fs::path materialize(const std::string &hash) const;
  // Line-level diff from one commit's tree to another's (0 context lines, renames found).
  SourceDiff diff(const std::string &from, const std::string &to) const;

private:
  struct Impl;
  explicit Repository(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace rootline
