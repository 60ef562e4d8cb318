// The usual compiler names, for builds that name their compiler instead of honouring $CC.
#include "rootline/project.h"

#include <cstdlib>
#include <unistd.h>

namespace rootline {

namespace {

// Names a Makefile or script writes for the C and the C++ compiler. The real compilers'
// own names (clang-19, clang++-19) are left out: the wrapper finds those on PATH.
const char *const kCNames[] = {"cc", "gcc", "c99", "c89", "clang"};
const char *const kCxxNames[] = {"c++", "g++", "clang++"};

// `link` -> `target`, replaced atomically when it points elsewhere (several rootline
// jobs may share the cache).
void pointTo(const fs::path &link, const fs::path &target) {
  std::error_code ec;
  if (fs::is_symlink(link, ec) && fs::read_symlink(link, ec) == target)
    return;
  fs::path tmp = link.string() + ".tmp" + std::to_string(getpid());
  fs::remove(tmp, ec);
  fs::create_symlink(target, tmp);
  fs::rename(tmp, link);
}

} // namespace

fs::path compilerNamesDir(const fs::path &wrapper, const fs::path &dir) {
  fs::create_directories(dir);
  fs::path cxx = wrapper.parent_path() / "rootline-c++";
  for (const char *name : kCNames)
    pointTo(dir / name, wrapper);
  for (const char *name : kCxxNames)
    pointTo(dir / name, cxx);
  return dir;
}

std::string pathWithCompilerNames(const fs::path &dir) {
  const char *path = std::getenv("PATH");
  return dir.string() + ":" + (path && *path ? path : "/usr/bin:/bin");
}

} // namespace rootline
