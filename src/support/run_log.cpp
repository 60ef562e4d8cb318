#include "rootline/run_log.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace rootline::run_log_memory {

std::size_t pageRounded(std::size_t bytes) {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

void *map(std::size_t bytes) {
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw std::bad_alloc();
  return p;
}

void *grow(void *p, std::size_t oldBytes, std::size_t newBytes) {
  void *q = mremap(p, oldBytes, newBytes, MREMAP_MAYMOVE);
  if (q == MAP_FAILED)
    throw std::bad_alloc();
  return q;
}

void unmap(void *p, std::size_t bytes) noexcept {
  if (p)
    munmap(p, bytes);
}

} // namespace rootline::run_log_memory
