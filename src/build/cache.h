// Layout of the build cache: <cacheRoot>/build/{tu,module,exe}/<key>...
#pragma once

#include "rootline/fs.h"

#include <string>

namespace rootline::buildcache {

fs::path unitBitcode(const std::string &key);
fs::path moduleBitcode(const std::string &key);
fs::path executable(const std::string &key);
// Creates the parent directory of a cache path.
void prepare(const fs::path &path);

} // namespace rootline::buildcache
