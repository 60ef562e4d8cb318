#include "rootline/fs.h"

#include "rootline/error.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace rootline {

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("cannot read '" + path.string() + "': " + strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string uniqueTempSuffix() {
  static std::atomic<unsigned> calls{0};
  char host[65] = {};
  if (gethostname(host, sizeof host - 1) != 0)
    std::strcpy(host, "host");
  return ".tmp." + std::string(host) + "." + std::to_string(getpid()) + "." +
         std::to_string(calls++);
}

void writeFileAtomic(const fs::path &path, const std::string &data) {
  fs::path tmp = path;
  tmp += uniqueTempSuffix();
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw Error("cannot write '" + tmp.string() + "': " + strerror(errno));
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out)
      throw Error("cannot write '" + tmp.string() + "'");
  }
  fs::rename(tmp, path);
}

fs::path cacheRoot() {
  if (const char *d = getenv("ROOTLINE_CACHE_DIR"); d && *d)
    return fs::path(d);
  if (const char *x = getenv("XDG_CACHE_HOME"); x && *x)
    return fs::path(x) / "rootline";
  if (const char *h = getenv("HOME"); h && *h)
    return fs::path(h) / ".cache" / "rootline";
  return fs::temp_directory_path() / "rootline-cache";
}

fs::path makeWorkDir(const std::string &prefix) {
  fs::path base = cacheRoot() / "work";
  std::error_code ec;
  fs::create_directories(base, ec);
  std::string tmpl = (base / (prefix + "-XXXXXX")).string();
  if (!mkdtemp(tmpl.data()))
    throw Error("cannot create a work directory under '" + base.string() + "': " + strerror(errno));
  return fs::path(tmpl);
}

} // namespace rootline
