// An array for the logs that grow with a run (millions of entries). It lives in a
// mapping of its own and grows with mremap: the kernel moves the pages, so growing
// copies nothing and never holds the old and the new array at once. A std::vector
// copies itself at each doubling and touches every new page again; on a run of 10^7
// instances that copying and its page faults were half of the align stage.
// Trivially copyable elements only; appending is the only way it grows.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <type_traits>

namespace rootline {

namespace run_log_memory {
// A private anonymous mapping of `bytes` (a multiple of the page size, pageRounded).
void *map(std::size_t bytes);
void *grow(void *p, std::size_t oldBytes, std::size_t newBytes);
void unmap(void *p, std::size_t bytes) noexcept;
std::size_t pageRounded(std::size_t bytes);
} // namespace run_log_memory

template <class T> class RunLog {
  static_assert(std::is_trivially_copyable_v<T>, "RunLog holds plain records");

public:
  using value_type = T;
  using iterator = T *;
  using const_iterator = const T *;

  RunLog() = default;
  RunLog(std::initializer_list<T> items) { append(items.begin(), items.end()); }
  RunLog(const RunLog &o) { append(o.begin(), o.end()); }
  RunLog(RunLog &&o) noexcept : data_(o.data_), size_(o.size_), capacity_(o.capacity_) {
    o.data_ = nullptr;
    o.size_ = o.capacity_ = 0;
  }
  RunLog &operator=(RunLog o) noexcept {
    swap(o);
    return *this;
  }
  ~RunLog() { run_log_memory::unmap(data_, capacity_ * sizeof(T)); }
  void swap(RunLog &o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return capacity_; }
  T &operator[](std::size_t i) { return data_[i]; }
  const T &operator[](std::size_t i) const { return data_[i]; }
  T &back() { return data_[size_ - 1]; }
  const T &back() const { return data_[size_ - 1]; }
  T *begin() { return data_; }
  T *end() { return data_ + size_; }
  const T *begin() const { return data_; }
  const T *end() const { return data_ + size_; }
  void clear() { size_ = 0; }

  void reserve(std::size_t n) {
    if (n <= capacity_)
      return;
    std::size_t bytes = run_log_memory::pageRounded(n * sizeof(T));
    data_ = static_cast<T *>(data_ ? run_log_memory::grow(data_, capacity_ * sizeof(T), bytes)
                                   : run_log_memory::map(bytes));
    capacity_ = bytes / sizeof(T);
  }
  void push_back(const T &x) {
    if (size_ == capacity_)
      reserve(capacity_ ? capacity_ * 2 : 1);
    data_[size_++] = x;
  }
  template <class It> void append(It first, It last) {
    std::size_t n = static_cast<std::size_t>(last - first);
    if (size_ + n > capacity_)
      reserve(std::max(size_ + n, capacity_ * 2));
    for (std::size_t k = 0; k < n; ++k)
      data_[size_ + k] = first[k];
    size_ += n;
  }

private:
  T *data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

} // namespace rootline
