#include "libc_models.h"

#include <algorithm>
#include <vector>

namespace rootline {

namespace {

uint32_t addNodes(uint64_t a, uint64_t b) {
  uint64_t s = a + b;
  return s > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(s);
}

// The extent's bytes, if every one is known.
std::optional<std::vector<ModelByte>> readKnown(const ByteReader &byte, uint64_t at,
                                                uint64_t extent) {
  std::vector<ModelByte> out;
  for (uint64_t i = 0; i < extent; ++i) {
    auto b = byte(at + i);
    if (!b)
      return std::nullopt;
    out.push_back(*b);
  }
  return out;
}

bool anySymbolic(const std::vector<ModelByte> &bytes) {
  return std::any_of(bytes.begin(), bytes.end(),
                     [](const ModelByte &b) { return !b.value.is_numeral(); });
}

// The extent's bytes, if every one is known and at least one is symbolic (else the
// call's result is concrete and needs no model).
std::optional<std::vector<ModelByte>> readAll(const ByteReader &byte, uint64_t at,
                                              uint64_t extent) {
  auto out = readKnown(byte, at, extent);
  if (!out || !anySymbolic(*out))
    return std::nullopt;
  return out;
}

} // namespace

std::optional<ModelValue> strlenModel(z3::context &ctx, const ByteReader &byte, uint64_t s,
                                      uint64_t extent) {
  if (extent == 0)
    return std::nullopt;
  // The NUL the run found is read too: in a string whose end is symbolic it is not
  // always there (past it, the length is at least the extent: taken as the extent).
  auto bytes = readAll(byte, s, extent);
  if (!bytes)
    return std::nullopt;
  ModelValue out{ctx.bv_val(extent, 64), 1};
  for (size_t i = bytes->size(); i-- > 0;) {
    const ModelByte &b = (*bytes)[i];
    if (b.neverNul)
      continue;
    out = {z3::ite(b.value == ctx.bv_val(0, 8), ctx.bv_val(i, 64), out.value),
           addNodes(out.nodes, b.nodes + 4)};
  }
  return out;
}

std::optional<ModelValue> compareModel(z3::context &ctx, const ByteReader &byte, uint64_t a,
                                       uint64_t b, uint64_t extent, bool strings,
                                       const z3::expr &fallback, int32_t less, int32_t greater) {
  // Either side may be all concrete (a literal), not both.
  auto as = readKnown(byte, a, extent), bs = readKnown(byte, b, extent);
  if (!as || !bs || (!anySymbolic(*as) && !anySymbolic(*bs)))
    return std::nullopt;
  z3::expr lt = ctx.bv_val(less, 32), gt = ctx.bv_val(greater, 32), zero = ctx.bv_val(0, 32);
  ModelValue out{fallback, 1};
  for (size_t i = extent; i-- > 0;) {
    const ModelByte &x = (*as)[i], &y = (*bs)[i];
    z3::expr same = out.value;
    if (strings && !(x.neverNul || y.neverNul))
      same = z3::ite(x.value == ctx.bv_val(0, 8), zero, same);
    out = {z3::ite(x.value != y.value, z3::ite(z3::ult(x.value, y.value), lt, gt), same),
           addNodes(out.nodes, 2ull * (x.nodes + y.nodes) + 6)};
  }
  return out;
}

std::optional<ModelValue> findModel(z3::context &ctx, const ByteReader &byte, uint64_t s,
                                    uint64_t extent, const z3::expr &c, bool strings) {
  // A symbolic byte sought in a concrete string is modelled too.
  auto bytes = readKnown(byte, s, extent);
  if (!bytes || (c.is_numeral() && !anySymbolic(*bytes)))
    return std::nullopt;
  z3::expr null = ctx.bv_val(0, 64);
  ModelValue out{null, 1};
  for (size_t i = extent; i-- > 0;) {
    const ModelByte &x = (*bytes)[i];
    z3::expr next = out.value;
    if (strings && !x.neverNul)
      next = z3::ite(x.value == ctx.bv_val(0, 8), null, next);
    out = {z3::ite(x.value == c, ctx.bv_val(s + i, 64), next),
           addNodes(out.nodes, 2ull * x.nodes + 6)};
  }
  return out;
}

namespace {

// "No NUL before position i" for each i, over bytes that may be NUL.
std::vector<z3::expr> noNulBefore(z3::context &ctx, const std::vector<ModelByte> &bytes) {
  std::vector<z3::expr> out{ctx.bool_val(true)};
  for (const ModelByte &b : bytes)
    out.push_back(b.neverNul ? out.back() : out.back() && b.value != ctx.bv_val(0, 8));
  return out;
}

} // namespace

std::optional<ModelValue> findLastModel(z3::context &ctx, const ByteReader &byte, uint64_t s,
                                        uint64_t extent, const z3::expr &c) {
  // A symbolic byte sought in a concrete string is modelled too.
  auto bytes = readKnown(byte, s, extent);
  if (!bytes || (c.is_numeral() && !anySymbolic(*bytes)))
    return std::nullopt;
  std::vector<z3::expr> open = noNulBefore(ctx, *bytes);
  ModelValue out{ctx.bv_val(0, 64), 1};
  for (size_t i = 0; i < bytes->size(); ++i) // a later match overrides an earlier one
    out = {z3::ite((*bytes)[i].value == c && open[i], ctx.bv_val(s + i, 64), out.value),
           addNodes(out.nodes, 2ull * (*bytes)[i].nodes + 2 * i + 6)};
  return out;
}

std::optional<ModelValue> searchModel(z3::context &ctx, const ByteReader &byte, uint64_t h,
                                      uint64_t extent, uint64_t needle, uint64_t length) {
  std::vector<z3::expr> pattern;
  for (uint64_t j = 0; j < length; ++j) {
    auto b = byte(needle + j);
    if (!b || !b->value.is_numeral())
      return std::nullopt; // a needle with symbolic bytes is not modelled
    pattern.push_back(b->value);
  }
  if (length == 0) // strstr(h, "") is h
    return ModelValue{ctx.bv_val(h, 64), 1};
  auto bytes = readAll(byte, h, extent);
  if (!bytes || length > extent)
    return std::nullopt;
  std::vector<z3::expr> open = noNulBefore(ctx, *bytes);
  ModelValue out{ctx.bv_val(0, 64), 1};
  for (size_t i = extent - length + 1; i-- > 0;) {
    z3::expr here = open[i];
    uint64_t nodes = 2 * i;
    for (uint64_t j = 0; j < length; ++j) {
      here = here && (*bytes)[i + j].value == pattern[j];
      nodes += (*bytes)[i + j].nodes + 2;
    }
    out = {z3::ite(here, ctx.bv_val(h + i, 64), out.value), addNodes(out.nodes, nodes + 2)};
  }
  return out;
}

std::optional<ModelValue> decimalModel(z3::context &ctx, const ByteReader &byte, uint64_t s,
                                       uint64_t len, unsigned bits) {
  if (len == 0 || len > 20)
    return std::nullopt;
  auto known = readAll(byte, s, len);
  if (!known)
    return std::nullopt;
  const std::vector<ModelByte> &bytes = *known;
  uint32_t nodes = 1;
  // The value of the digits from position `from` on, up to the first non-digit.
  auto digitsFrom = [&](size_t from) {
    std::vector<z3::expr> prefix{ctx.bv_val(0, bits)};
    for (size_t i = from; i < len; ++i)
      prefix.push_back(prefix.back() * ctx.bv_val(10, bits) +
                       z3::zext(bytes[i].value - ctx.bv_val('0', 8), bits - 8));
    z3::expr out = prefix.back();
    for (size_t i = len; i-- > from;) {
      const z3::expr &b = bytes[i].value;
      z3::expr digit = z3::uge(b, ctx.bv_val('0', 8)) && z3::ule(b, ctx.bv_val('9', 8));
      out = z3::ite(digit, out, prefix[i - from]);
      nodes = addNodes(nodes, 3ull * bytes[i].nodes + 12);
    }
    return out;
  };
  const z3::expr &first = bytes[0].value;
  z3::expr value = ctx.bv_val(0, bits);
  if (first.is_numeral()) {
    uint64_t c = first.get_numeral_uint64();
    value = c == '-' ? -digitsFrom(1) : c == '+' ? digitsFrom(1) : digitsFrom(0);
  } else {
    value = z3::ite(first == ctx.bv_val('-', 8), -digitsFrom(1),
                    z3::ite(first == ctx.bv_val('+', 8), digitsFrom(1), digitsFrom(0)));
  }
  return ModelValue{value, nodes};
}

} // namespace rootline
