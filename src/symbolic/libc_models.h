// Models of libc's string and memory comparisons and searches over the bytes a call
// read, so that a branch on their result is explored instead of concretised. Each
// model is an if-then-else over the bytes, exact while the strings keep their NULs
// where the run had them (input lines and tokens do: their length is part of the path).
#pragma once

#include <z3++.h>

#include <cstdint>
#include <functional>
#include <optional>

namespace rootline {

// A byte's expression; `neverNul` when the input's domain already excludes 0 (a byte of
// a line or a token). nullopt: the byte's value is not known to the replay.
struct ModelByte {
  z3::expr value;
  uint32_t nodes;
  bool neverNul;
};
using ByteReader = std::function<std::optional<ModelByte>(uint64_t addr)>;

struct ModelValue {
  z3::expr value;
  uint32_t nodes;
};

// strlen(s) over its `extent` bytes (the NUL included): 64 bits.
std::optional<ModelValue> strlenModel(z3::context &ctx, const ByteReader &byte, uint64_t s,
                                      uint64_t extent);

// memcmp, strcmp, strncmp over `extent` bytes of `a` and `b`: `less` or `greater` (the
// concrete result where it had that sign, so the model agrees with the run) at the first
// difference, 0 at a common NUL (`strings`), `fallback` when all are equal: 32 bits.
std::optional<ModelValue> compareModel(z3::context &ctx, const ByteReader &byte, uint64_t a,
                                       uint64_t b, uint64_t extent, bool strings,
                                       const z3::expr &fallback, int32_t less, int32_t greater);

// strchr, memchr: the address of the first of `extent` bytes equal to `c` (an 8-bit
// expression), NULL past a NUL (`strings`) or past the extent: 64 bits.
std::optional<ModelValue> findModel(z3::context &ctx, const ByteReader &byte, uint64_t s,
                                    uint64_t extent, const z3::expr &c, bool strings);

// strrchr: the address of the last of the `extent` bytes equal to `c` before a NUL,
// NULL when there is none: 64 bits.
std::optional<ModelValue> findLastModel(z3::context &ctx, const ByteReader &byte, uint64_t s,
                                        uint64_t extent, const z3::expr &c);

// strstr(h, n) with a needle of known bytes: the address of the first place in the
// `extent` bytes of `h` where the needle's `length` bytes follow, before a NUL of h;
// NULL when there is none: 64 bits.
std::optional<ModelValue> searchModel(z3::context &ctx, const ByteReader &byte, uint64_t h,
                                      uint64_t extent, uint64_t needle, uint64_t length);

// atoi, atol, strtol and strtoul in base 10 over the `len` bytes of the number the run
// parsed at `s` (an optional sign, then digits; the byte after them stopped the parse):
// the digits up to the first byte that is not one, negated after a '-': `bits` wide.
std::optional<ModelValue> decimalModel(z3::context &ctx, const ByteReader &byte, uint64_t s,
                                       uint64_t len, unsigned bits);

} // namespace rootline
