#include "build/cache.h"

#include "rootline/hash.h"

#include <chrono>
#include <fcntl.h>
#include <sys/file.h>
#include <thread>
#include <unistd.h>

namespace rootline::buildcache {

static fs::path root() { return cacheRoot() / "build"; }

fs::path unitBitcode(const std::string &key) { return root() / "tu" / (key + ".bc"); }
fs::path moduleBitcode(const std::string &key) { return root() / "module" / (key + ".bc"); }
fs::path executable(const std::string &key) { return root() / "exe" / key / "program"; }

fs::path sourceByContent(const std::string &area, const std::string &salt,
                         const std::string &fileName, const std::string &text) {
  Hasher key;
  key.add(salt).add(text);
  fs::path path = cacheRoot() / area / key.hex() / fileName;
  if (!fs::exists(path)) {
    fs::create_directories(path.parent_path());
    writeFileAtomic(path, text);
  }
  return path;
}

void prepare(const fs::path &path) { fs::create_directories(path.parent_path()); }

EntryLock::EntryLock(const fs::path &entry) {
  prepare(entry);
  fs::path lock = entry;
  lock += ".lock";
  fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    return; // an unwritable cache builds without the lock, as before
  auto giveUp = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  while (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (std::chrono::steady_clock::now() >= giveUp) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

EntryLock::~EntryLock() {
  if (fd_ >= 0)
    ::close(fd_); // releases the lock
}

bool buildOnce(const fs::path &path, const std::function<void()> &build) {
  std::error_code ec;
  if (fs::exists(path, ec))
    return true;
  EntryLock lock(path);
  if (fs::exists(path, ec)) // built by the process that held the lock
    return true;
  build();
  return false;
}

} // namespace rootline::buildcache
