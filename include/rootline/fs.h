// Small filesystem helpers: whole-file I/O, atomic writes and the cache location.
#pragma once

#include <filesystem>
#include <string>

namespace rootline {

namespace fs = std::filesystem;

// Throws Error("cannot read ...") naming the file.
std::string readFile(const fs::path &path);
// Writes to a temporary sibling and renames, so readers never see a partial file.
void writeFileAtomic(const fs::path &path, const std::string &data);
// ".tmp.HOST.PID.N": a suffix for such a temporary sibling that no other thread, process
// or node sharing the filesystem (a cluster's cache) uses at the same time.
std::string uniqueTempSuffix();

// $ROOTLINE_CACHE_DIR, else $XDG_CACHE_HOME/rootline, else ~/.cache/rootline.
fs::path cacheRoot();
// A fresh private directory under the cache (for work that must not touch the user's tree).
fs::path makeWorkDir(const std::string &prefix);

// A work directory removed with everything in it when the scope ends, however it ends.
struct ScopedWorkDir {
  fs::path path;
  explicit ScopedWorkDir(const std::string &prefix) : path(makeWorkDir(prefix)) {}
  ScopedWorkDir(const ScopedWorkDir &) = delete;
  ScopedWorkDir &operator=(const ScopedWorkDir &) = delete;
  ~ScopedWorkDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

} // namespace rootline
