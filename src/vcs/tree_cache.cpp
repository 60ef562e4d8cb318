// A commit's files, written from the object database into the cache (never through
// the user's working tree or index), keyed by tree id so equal trees are shared.
#include "vcs/git_handle.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace rootline {

using namespace vcs;

namespace {

struct WalkState {
  git_repository *repo;
  fs::path dest;
  std::string error;
  // Every file of a tree gets this one modification time, as `git archive | tar -x`
  // gives them: generated files committed beside their sources (a parser beside its
  // grammar, `configure` beside `configure.ac`) are then not older than them, and the
  // project's make does not try to regenerate them with tools the machine may lack.
  struct timespec when {};
};

void writeBlob(const fs::path &path, const void *data, size_t size, bool executable) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, executable ? 0755 : 0644);
  if (fd < 0)
    throw Error("cannot write '" + path.string() + "': " + strerror(errno));
  const char *p = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ::close(fd);
      throw Error("cannot write '" + path.string() + "': " + strerror(errno));
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  ::close(fd);
}

int onEntry(const char *root, const git_tree_entry *entry, void *payload) {
  auto *st = static_cast<WalkState *>(payload);
  fs::path rel = fs::path(root) / git_tree_entry_name(entry);
  // Names come from the repository: refuse any that would leave the destination.
  for (const auto &part : rel)
    if (part == ".." || part == ".git") {
      st->error = "the tree holds an unsafe path '" + rel.string() + "'";
      return -1;
    }
  fs::path out = st->dest / rel;
  try {
    switch (git_tree_entry_filemode(entry)) {
    case GIT_FILEMODE_TREE:
      fs::create_directories(out);
      return 0;
    case GIT_FILEMODE_COMMIT: // a submodule: its files are not in this repository
      fs::create_directories(out);
      return 1;
    case GIT_FILEMODE_BLOB:
    case GIT_FILEMODE_BLOB_EXECUTABLE:
    case GIT_FILEMODE_LINK: {
      git_blob *b = nullptr;
      if (git_blob_lookup(&b, st->repo, git_tree_entry_id(entry)) != 0) {
        st->error = "cannot read '" + rel.string() + "': " + lastGitError();
        return -1;
      }
      BlobPtr blob(b);
      const void *data = git_blob_rawcontent(b);
      size_t size = static_cast<size_t>(git_blob_rawsize(b));
      if (git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK)
        fs::create_symlink(std::string(static_cast<const char *>(data), size), out);
      else
        writeBlob(out, data, size, git_tree_entry_filemode(entry) == GIT_FILEMODE_BLOB_EXECUTABLE);
      const struct timespec times[2] = {st->when, st->when};
      utimensat(AT_FDCWD, out.c_str(), times, AT_SYMLINK_NOFOLLOW);
      return 0;
    }
    default:
      return 0;
    }
  } catch (const std::exception &e) {
    st->error = e.what();
    return -1;
  }
}

} // namespace

fs::path Repository::materialize(const std::string &hash) const {
  TreePtr tree = impl_->treeOf(hash);
  fs::path base = cacheRoot() / "trees";
  // "m1-": trees whose files share one modification time (older entries did not).
  fs::path final = base / ("m1-" + oidHex(git_tree_id(tree.get())));
  if (fs::is_directory(final))
    return final;
  std::error_code ec;
  fs::create_directories(base, ec);
  // Written beside the final name and renamed, so a tree that exists is complete.
  std::string tmpl = (base / ".partial-XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    throw Error("cannot create a directory under '" + base.string() + "': " + strerror(errno));
  WalkState st{impl_->repo.get(), fs::path(tmpl), {}, {}};
  clock_gettime(CLOCK_REALTIME, &st.when);
  st.when.tv_nsec = 0;
  int r = git_tree_walk(tree.get(), GIT_TREEWALK_PRE, onEntry, &st);
  if (r != 0) {
    fs::remove_all(st.dest, ec);
    throw Error("cannot materialise commit " + hash.substr(0, 12) + ": " +
                (st.error.empty() ? lastGitError() : st.error));
  }
  fs::rename(st.dest, final, ec);
  if (ec) { // another rootline wrote the same tree first
    fs::remove_all(st.dest, ec);
    if (!fs::is_directory(final))
      throw Error("cannot store commit " + hash.substr(0, 12) + " in '" + final.string() + "'");
  }
  return final;
}

} // namespace rootline
