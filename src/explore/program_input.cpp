// Turning a solver model into a concrete input by rewriting the base input in place.
#include "rootline/explore.h"

#include <algorithm>
#include <cstdio>

namespace rootline {

namespace {

std::optional<uint64_t> modelValue(const z3::model &model, z3::context &ctx, const InputVar &v) {
  z3::expr e = model.eval(ctx.bv_const(v.name.c_str(), v.bits), false);
  uint64_t value = 0;
  if (!e.is_numeral() || !e.is_numeral_u64(value))
    return std::nullopt;
  return value;
}

// A scanf token re-printed so the same conversion reads `value` back.
std::string printToken(const InputVar &v, uint64_t value) {
  uint64_t mask = v.bits >= 64 ? ~0ull : ((1ull << v.bits) - 1);
  value &= mask;
  char buf[64];
  switch (v.conv) {
  case 'u':
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(value));
    break;
  case 'x':
  case 'X':
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(value));
    break;
  case 'o':
    std::snprintf(buf, sizeof buf, "%llo", static_cast<unsigned long long>(value));
    break;
  default: {
    int64_t s = static_cast<int64_t>(value);
    if (v.bits < 64 && (value >> (v.bits - 1)) & 1)
      s = static_cast<int64_t>(value | ~mask);
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(s));
  }
  }
  return buf;
}

} // namespace

ProgramInput applyModel(const ProgramInput &base, const std::vector<InputVar> &vars,
                        const z3::model &model) {
  z3::context &ctx = model.ctx();
  ProgramInput out = base;
  // Tokens first, from the last to the first, so earlier offsets stay valid; bytes
  // inside a rewritten token belong to the token.
  std::vector<const InputVar *> tokens;
  for (const auto &v : vars)
    if (v.kind == InputVar::Kind::Token)
      tokens.push_back(&v);
  std::sort(tokens.begin(), tokens.end(), [](auto *a, auto *b) { return a->offset > b->offset; });
  auto insideToken = [&](uint64_t offset) {
    for (auto *t : tokens)
      if (offset >= t->offset && offset < t->offset + t->length)
        return true;
    return false;
  };
  // Byte variables are applied before tokens shift the text.
  for (const auto &v : vars) {
    auto value = modelValue(model, ctx, v);
    if (!value)
      continue;
    if (v.kind == InputVar::Kind::StdinByte && v.offset < out.stdinBytes.size() &&
        !insideToken(v.offset))
      out.stdinBytes[v.offset] = static_cast<char>(*value);
    else if (v.kind == InputVar::Kind::ArgvByte && v.argIndex >= 1 &&
             v.argIndex - 1 < out.args.size() && v.offset < out.args[v.argIndex - 1].size())
      out.args[v.argIndex - 1][v.offset] = static_cast<char>(*value);
  }
  for (auto *t : tokens) {
    auto value = modelValue(model, ctx, *t);
    if (!value || t->offset + t->length > out.stdinBytes.size())
      continue;
    out.stdinBytes.replace(t->offset, t->length, printToken(*t, *value));
  }
  return out;
}

std::string strategyName(Strategy s) {
  switch (s) {
  case Strategy::Dart:
    return "dart";
  case Strategy::Rsc:
    return "rsc";
  case Strategy::NaiveRsc:
    return "naive-rsc";
  }
  return "?";
}

} // namespace rootline
