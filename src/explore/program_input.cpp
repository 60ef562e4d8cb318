// Turning a solver model into a concrete input by rewriting the base input in place.
#include "rootline/explore.h"

#include "rootline/closest_input.h"
#include "rootline/expr_text.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace rootline {

namespace {

// A scanf token re-printed so the same conversion reads `value` back.
std::string printToken(const InputVar &v, uint64_t value) {
  uint64_t mask = v.bits >= 64 ? ~0ull : ((1ull << v.bits) - 1);
  value &= mask;
  char buf[64];
  if (v.isFloat())
    return shortestDecimal(floatOfInputBits(value, v.bits), v.bits == 32);
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

const std::string *inputText(const ProgramInput &input, const InputVar &v) {
  if (v.argIndex > 0)
    return v.argIndex - 1 < input.args.size() ? &input.args[v.argIndex - 1] : nullptr;
  if (v.file.empty())
    return &input.stdinBytes;
  auto f = input.files.find(v.file);
  return f == input.files.end() ? nullptr : &f->second;
}

std::optional<uint64_t> valueIn(const ProgramInput &input, const InputVar &v) {
  if (v.kind == InputVar::Kind::ArgvByte) {
    if (v.argIndex < 1 || v.argIndex - 1 >= input.args.size())
      return std::nullopt;
    const std::string &a = input.args[v.argIndex - 1];
    // The terminating NUL is an input byte too.
    return v.offset < a.size()    ? std::optional<uint64_t>(static_cast<unsigned char>(a[v.offset]))
           : v.offset == a.size() ? std::optional<uint64_t>(0)
                                  : std::nullopt;
  }
  const std::string *bytes = inputText(input, v);
  if (!bytes || v.offset >= bytes->size())
    return std::nullopt;
  if (v.kind == InputVar::Kind::StdinByte)
    return static_cast<unsigned char>((*bytes)[v.offset]);
  std::string text = bytes->substr(v.offset, v.length);
  int base = v.conv == 'x' || v.conv == 'X' ? 16 : v.conv == 'o' ? 8 : v.conv == 'i' ? 0 : 10;
  errno = 0;
  char *end = nullptr;
  uint64_t value = 0;
  if (v.isFloat())
    value = inputBitsOfFloat(std::strtod(text.c_str(), &end), v.bits);
  else if (v.conv == 'd' || v.conv == 'i')
    value = static_cast<uint64_t>(std::strtoll(text.c_str(), &end, base));
  else
    value = std::strtoull(text.c_str(), &end, base);
  if (end == text.c_str())
    return std::nullopt;
  return value & (v.bits >= 64 ? ~0ull : (1ull << v.bits) - 1);
}

std::string *inputText(ProgramInput &input, const InputVar &v) {
  return const_cast<std::string *>(inputText(static_cast<const ProgramInput &>(input), v));
}

bool sameInputText(const InputVar &a, const InputVar &b) {
  return a.file == b.file && a.argIndex == b.argIndex;
}

std::optional<uint64_t> modelValue(const z3::model &model, const z3::expr &e) {
  z3::expr r = model.eval(e, false);
  uint64_t value = 0;
  if (!r.is_numeral() || !r.is_numeral_u64(value))
    return std::nullopt;
  return value;
}

std::optional<uint64_t> modelValue(const z3::model &model, const InputVar &v) {
  return modelValue(model, model.ctx().bv_const(v.name.c_str(), v.bits));
}

ProgramInput applyModel(const ProgramInput &base, const std::vector<InputVar> &vars,
                        const z3::model &model) {
  return applyValues(base, vars, [&](const InputVar &v) { return modelValue(model, v); });
}

ProgramInput applyValues(const ProgramInput &base, const std::vector<InputVar> &vars,
                         const std::function<std::optional<uint64_t>(const InputVar &)> &valueOf) {
  ProgramInput out = base;
  // Each input text (stdin, a file, an argument) is rewritten on its own. Tokens go from
  // the last to the first, so earlier offsets stay valid; bytes inside a rewritten token
  // belong to the token.
  std::vector<const InputVar *> tokens;
  for (const auto &v : vars)
    if (v.kind == InputVar::Kind::Token)
      tokens.push_back(&v);
  std::sort(tokens.begin(), tokens.end(), [](auto *a, auto *b) { return a->offset > b->offset; });
  auto insideToken = [&](const InputVar &byte) {
    for (auto *t : tokens)
      if (sameInputText(*t, byte) && byte.offset >= t->offset &&
          byte.offset < t->offset + t->length)
        return true;
    return false;
  };
  // Byte variables are applied before tokens shift the text.
  for (const auto &v : vars) {
    auto value = valueOf(v);
    if (!value)
      continue;
    std::string *bytes = inputText(out, v);
    if (v.kind != InputVar::Kind::Token && bytes && v.offset < bytes->size() && !insideToken(v))
      (*bytes)[v.offset] = static_cast<char>(*value);
  }
  for (auto *t : tokens) {
    auto value = valueOf(*t);
    std::string *bytes = inputText(out, *t);
    if (!value || !bytes || t->offset + t->length > bytes->size())
      continue;
    // A value the text already reads as keeps its text ("1.70", "007").
    uint64_t mask = t->bits >= 64 ? ~0ull : (1ull << t->bits) - 1;
    if (auto was = valueIn(base, *t); was && (*was & mask) == (*value & mask))
      continue;
    bytes->replace(t->offset, t->length, printToken(*t, *value));
  }
  return out;
}

TestCase materialiseInput(const ProgramInput &input, const fs::path &dir) {
  // A name that climbs (`../tests/in.txt`: a test that went into a scratch directory
  // first) lands inside the run's directory too: the working directory sits as deep as
  // the names climb (at most kMaxClimb levels; a name that climbs further is not laid out).
  constexpr size_t kMaxClimb = 8;
  size_t climb = 0;
  for (const auto &[name, bytes] : input.files) {
    size_t up = 0;
    for (const fs::path &part : fs::path(name).relative_path().lexically_normal())
      if (part == "..")
        ++up;
      else
        break;
    if (up <= kMaxClimb)
      climb = std::max(climb, up);
  }
  fs::path top = (dir / "cwd").lexically_normal(), cwd = top;
  for (size_t i = 1; i <= climb; ++i)
    cwd /= "in" + std::to_string(i);
  fs::create_directories(cwd);
  writeFileAtomic(dir / "stdin", input.stdinBytes);
  for (const auto &[name, bytes] : input.files) {
    fs::path to = (cwd / fs::path(name).relative_path()).lexically_normal();
    if (to.string().rfind(top.string() + "/", 0) != 0)
      continue;
    fs::create_directories(to.parent_path());
    writeFileAtomic(to, bytes);
  }
  // An output file left by an earlier run in the same directory must not pass for this
  // run's.
  if (!input.outputFile.empty() && !input.files.count(input.outputFile)) {
    std::error_code ignored;
    fs::remove(cwd / input.outputFile, ignored);
    // Its directory is there for the program to write into (a relocated temporary one).
    fs::path to = (cwd / input.outputFile).lexically_normal();
    if (to.string().rfind(top.string() + "/", 0) == 0)
      fs::create_directories(to.parent_path(), ignored);
  }
  TestCase t;
  t.outputFile = input.outputFile;
  t.stdinFile = dir / "stdin";
  t.args = input.args;
  t.workDir = cwd;
  t.argv0 = input.argv0;
  t.env = input.env;
  return t;
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
