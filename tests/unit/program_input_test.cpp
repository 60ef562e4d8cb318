#include "rootline/explore.h"

#include <catch2/catch.hpp>

using namespace rootline;

namespace {

InputVar token(uint64_t offset, uint64_t length, unsigned bits, char conv) {
  InputVar v;
  v.kind = InputVar::Kind::Token;
  v.name = "tok@" + std::to_string(offset) + ":i" + std::to_string(bits);
  v.offset = offset;
  v.length = length;
  v.bits = bits;
  v.conv = conv;
  return v;
}

InputVar byteVar(uint64_t offset) {
  InputVar v;
  v.name = "stdin@" + std::to_string(offset);
  v.offset = offset;
  return v;
}

z3::model modelOf(z3::context &ctx, std::vector<std::pair<InputVar, int64_t>> values) {
  z3::solver s(ctx);
  for (auto &[v, x] : values)
    s.add(ctx.bv_const(v.name.c_str(), v.bits) == ctx.bv_val(static_cast<int64_t>(x), v.bits));
  REQUIRE(s.check() == z3::sat);
  return s.get_model();
}

} // namespace

TEST_CASE("a model re-prints scanf tokens in place and keeps the rest of the input",
          "[explore][input]") {
  z3::context ctx;
  ProgramInput seed{"10 200\nrest\n", {}};
  InputVar qty = token(0, 2, 32, 'd'), code = token(3, 3, 32, 'd');
  ProgramInput out = applyModel(seed, {qty, code}, modelOf(ctx, {{qty, -7}, {code, 123456}}));
  CHECK(out.stdinBytes == "-7 123456\nrest\n");
  // A variable the model leaves open keeps its seed text.
  out = applyModel(seed, {qty, code}, modelOf(ctx, {{code, 5}}));
  CHECK(out.stdinBytes == "10 5\nrest\n");
}

TEST_CASE("unsigned, hex and narrow tokens print in the conversion's own format",
          "[explore][input]") {
  z3::context ctx;
  ProgramInput seed{"1 1 1", {}};
  InputVar u = token(0, 1, 32, 'u'), x = token(2, 1, 32, 'x'), c = token(4, 1, 8, 'd');
  ProgramInput out = applyModel(seed, {u, x, c}, modelOf(ctx, {{u, -1}, {x, 255}, {c, -128}}));
  CHECK(out.stdinBytes == "4294967295 ff -128");
}

TEST_CASE("stdin bytes and argv bytes are replaced where they came from", "[explore][input]") {
  z3::context ctx;
  ProgramInput seed{"abc", {"xyz"}};
  InputVar b1 = byteVar(1);
  InputVar a0;
  a0.kind = InputVar::Kind::ArgvByte;
  a0.name = "argv[1]@0";
  a0.argIndex = 1;
  a0.offset = 0;
  ProgramInput out = applyModel(seed, {b1, a0}, modelOf(ctx, {{b1, 'Z'}, {a0, '-'}}));
  CHECK(out.stdinBytes == "aZc");
  CHECK(out.args == std::vector<std::string>{"-yz"});
}
