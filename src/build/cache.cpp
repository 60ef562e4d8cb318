#include "build/cache.h"

namespace rootline::buildcache {

static fs::path root() { return cacheRoot() / "build"; }

fs::path unitBitcode(const std::string &key) { return root() / "tu" / (key + ".bc"); }
fs::path moduleBitcode(const std::string &key) { return root() / "module" / (key + ".bc"); }
fs::path executable(const std::string &key) { return root() / "exe" / key / "program"; }

void prepare(const fs::path &path) { fs::create_directories(path.parent_path()); }

} // namespace rootline::buildcache
