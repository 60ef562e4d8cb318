// Layout of the build cache: <cacheRoot>/build/{tu,module,exe}/<key>...
#pragma once

#include "rootline/build.h"
#include "rootline/fs.h"

#include <functional>
#include <string>

namespace rootline::buildcache {

fs::path unitBitcode(const std::string &key);
fs::path moduleBitcode(const std::string &key);
fs::path executable(const std::string &key);
// Creates the parent directory of a cache path.
void prepare(const fs::path &path);

// Held while one process builds a cache entry, so processes that need the same entry
// at once (a triage's first units, nodes sharing a cache) build it once: the others
// wait, then find it built. A builder that dies releases it; a wait longer than ten
// minutes gives up and builds anyway (the entry is still written atomically).
class EntryLock {
public:
  explicit EntryLock(const fs::path &entry);
  ~EntryLock();
  EntryLock(const EntryLock &) = delete;
  EntryLock &operator=(const EntryLock &) = delete;

private:
  int fd_ = -1;
};

// The entry at `path`, built by `build` (which writes it atomically) unless it exists;
// true when it came from the cache.
bool buildOnce(const fs::path &path, const std::function<void()> &build);

// `text` written once as `fileName` in <cacheRoot>/`area`/<hash of salt and text>/: a
// generated source at a path that stays the same while its text does, so the
// compile cache (whose key holds the source's path) finds it again on a warm run.
fs::path sourceByContent(const std::string &area, const std::string &salt,
                         const std::string &fileName, const std::string &text);

// A translation unit's key in the cache: its preprocessed text (headers included),
// flags and compiler; found again by the include stamps without preprocessing.
std::string translationUnitKey(const TranslationUnit &unit);

} // namespace rootline::buildcache
