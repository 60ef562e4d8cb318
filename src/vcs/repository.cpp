// Opening a repository, resolving revisions, commit metadata and first-parent history.
#include "vcs/git_handle.h"

#include <ctime>
#include <mutex>

namespace rootline {

namespace vcs {

void ensureLibgit2() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

std::string lastGitError() {
  const git_error *e = git_error_last();
  return e && e->message ? e->message : "libgit2 error";
}

std::string oidHex(const git_oid *oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, oid);
  return buf;
}

git_oid parseOid(const std::string &hex) {
  git_oid oid;
  if (hex.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, hex.c_str()) != 0)
    throw Error("'" + hex + "' is not a full commit hash", ExitInternal);
  return oid;
}

} // namespace vcs

using namespace vcs;

namespace {

// "2024-01-01T05:00:00+01:00": the time as the author's clock showed it.
std::string isoDate(const git_time &when) {
  std::time_t local = static_cast<std::time_t>(when.time) + when.offset * 60;
  std::tm tm{};
  gmtime_r(&local, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  int off = when.offset < 0 ? -when.offset : when.offset;
  char zone[16];
  std::snprintf(zone, sizeof zone, "%c%02d:%02d", when.offset < 0 ? '-' : '+', off / 60, off % 60);
  return std::string(buf) + zone;
}

} // namespace

CommitPtr Repository::Impl::lookupCommit(const std::string &hash) const {
  git_oid oid = parseOid(hash);
  git_commit *c = nullptr;
  if (git_commit_lookup(&c, repo.get(), &oid) != 0)
    throw Error("commit " + hash + " is not in '" + path.string() + "'");
  return CommitPtr(c);
}

TreePtr Repository::Impl::treeOf(const std::string &hash) const {
  CommitPtr c = lookupCommit(hash);
  git_tree *t = nullptr;
  if (git_commit_tree(&t, c.get()) != 0)
    throw Error("cannot read the tree of commit " + hash + ": " + lastGitError());
  return TreePtr(t);
}

Repository::Repository(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Repository::Repository(Repository &&) noexcept = default;
Repository &Repository::operator=(Repository &&) noexcept = default;
Repository::~Repository() = default;

Repository Repository::open(const fs::path &dir) {
  ensureLibgit2();
  if (!fs::is_directory(dir))
    throw Error("repository '" + dir.string() + "' is not a directory");
  git_repository *r = nullptr;
  if (git_repository_open_ext(&r, dir.c_str(), 0, nullptr) != 0)
    throw Error("'" + dir.string() + "' is not inside a git repository");
  auto impl = std::make_unique<Impl>();
  impl->repo.reset(r);
  impl->path = dir;
  // No references at all. A clone of a bundle that holds only tags has no HEAD, but its
  // tags name commits: --good and --bad may still name them.
  if (git_repository_is_empty(r) == 1)
    throw Error("repository '" + dir.string() + "' has no commits");
  return Repository(std::move(impl));
}

fs::path Repository::root() const {
  const char *wd = git_repository_workdir(impl_->repo.get());
  return fs::path(wd ? wd : git_repository_path(impl_->repo.get())).lexically_normal();
}

std::string Repository::resolve(const std::string &revision) const {
  if (revision.empty() || revision.front() == '-')
    throw Error("'" + revision + "' is not a revision");
  git_object *obj = nullptr;
  if (git_revparse_single(&obj, impl_->repo.get(), revision.c_str()) != 0)
    throw Error("unknown revision '" + revision + "' in '" + impl_->path.string() + "'");
  ObjectPtr owned(obj);
  git_object *peeled = nullptr;
  if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) != 0)
    throw Error("revision '" + revision + "' does not name a commit");
  ObjectPtr p(peeled);
  return oidHex(git_object_id(peeled));
}

CommitInfo Repository::commit(const std::string &hash) const {
  CommitPtr c = impl_->lookupCommit(hash);
  CommitInfo info;
  info.hash = hash;
  git_buf shortId = GIT_BUF_INIT;
  if (git_object_short_id(&shortId, reinterpret_cast<const git_object *>(c.get())) == 0) {
    info.shortHash.assign(shortId.ptr, shortId.size);
    git_buf_dispose(&shortId);
  }
  if (info.shortHash.size() < 7)
    info.shortHash = hash.substr(0, 7);
  const git_signature *a = git_commit_author(c.get());
  info.author = a->name ? a->name : "";
  info.email = a->email ? a->email : "";
  info.date = isoDate(a->when);
  const char *summary = git_commit_summary(c.get());
  info.subject = summary ? summary : "";
  for (unsigned i = 0; i < git_commit_parentcount(c.get()); ++i)
    info.parents.push_back(oidHex(git_commit_parent_id(c.get(), i)));
  return info;
}

bool Repository::isAncestor(const std::string &ancestor, const std::string &descendant) const {
  if (ancestor == descendant)
    return true;
  git_oid a = parseOid(ancestor), d = parseOid(descendant);
  int r = git_graph_descendant_of(impl_->repo.get(), &d, &a);
  if (r < 0)
    throw Error("cannot walk the history of '" + impl_->path.string() + "': " + lastGitError());
  return r == 1;
}

std::vector<std::string> Repository::firstParentRange(const std::string &good,
                                                      const std::string &bad) const {
  git_revwalk *w = nullptr;
  if (git_revwalk_new(&w, impl_->repo.get()) != 0)
    throw Error("cannot walk the history: " + lastGitError());
  WalkPtr walk(w);
  git_oid g = parseOid(good), b = parseOid(bad);
  git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
  git_revwalk_simplify_first_parent(w);
  if (git_revwalk_push(w, &b) != 0 || git_revwalk_hide(w, &g) != 0)
    throw Error("cannot walk the history: " + lastGitError());
  std::vector<std::string> out;
  git_oid oid;
  while (git_revwalk_next(&oid, w) == 0)
    out.push_back(oidHex(&oid));
  return out;
}

} // namespace rootline
