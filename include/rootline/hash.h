// Content hashing for cache keys.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace rootline {

// Incremental SHA-256; each piece is length-prefixed so ("ab","c") != ("a","bc").
class Hasher {
public:
  Hasher();
  ~Hasher();
  Hasher &add(std::string_view piece);
  std::string hex(); // finishes the hash
private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

std::string sha256Hex(std::string_view data);

} // namespace rootline
