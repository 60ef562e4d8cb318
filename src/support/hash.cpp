#include "rootline/hash.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/SHA256.h>

#include <cstdint>

namespace rootline {

struct Hasher::Impl {
  llvm::SHA256 sha;
};

Hasher::Hasher() : impl_(std::make_unique<Impl>()) {}
Hasher::~Hasher() = default;

Hasher &Hasher::add(std::string_view piece) {
  uint64_t n = piece.size();
  impl_->sha.update(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(&n), sizeof n));
  impl_->sha.update(llvm::StringRef(piece.data(), piece.size()));
  return *this;
}

std::string Hasher::hex() {
  auto digest = impl_->sha.final();
  static const char *digits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : digest) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::string sha256Hex(std::string_view data) { return Hasher().add(data).hex(); }

} // namespace rootline
