#include "rootline/closest_input.h"

#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;

namespace {

InputVar numberToken(uint64_t offset, uint64_t length, unsigned bits, char conv) {
  return test::tokenInput(offset, length, bits, conv);
}

InputVar stdinByte(uint64_t offset) { return test::stdinByteInput(offset); }

z3::expr var(z3::context &ctx, const InputVar &v) { return ctx.bv_const(v.name.c_str(), v.bits); }

int64_t signedValue(const z3::model &m, const z3::expr &e) {
  z3::expr r = m.eval(e, true);
  int64_t x = 0;
  REQUIRE(r.is_numeral_i64(x));
  // 32-bit values come back unsigned; sign-extend them.
  if (e.get_sort().bv_size() == 32)
    x = static_cast<int32_t>(static_cast<uint32_t>(x));
  return x;
}

// A deliberately far first model: what a solver may hand back for a query.
z3::model farModel(z3::solver &s, const std::vector<z3::expr> &pins) {
  s.push();
  for (const auto &p : pins)
    s.add(p);
  REQUIRE(s.check() == z3::sat);
  z3::model m = s.get_model();
  s.pop();
  return m;
}

} // namespace

TEST_CASE("input values are read from the seed: bytes, tokens in their base, argv bytes",
          "[closest][input]") {
  ProgramInput in{"12 -5 ff 017\nab", {"xy"}};
  CHECK(valueIn(in, numberToken(0, 2, 32, 'd')) == 12u);
  CHECK(valueIn(in, numberToken(3, 2, 32, 'd')) == 0xfffffffbu); // -5 in 32 bits
  CHECK(valueIn(in, numberToken(6, 2, 32, 'x')) == 0xffu);
  CHECK(valueIn(in, numberToken(9, 3, 32, 'o')) == 017u);
  CHECK(valueIn(in, stdinByte(13)) == uint64_t('a'));
  CHECK_FALSE(valueIn(in, stdinByte(99)));
  InputVar arg;
  arg.kind = InputVar::Kind::ArgvByte;
  arg.name = "argv[1]@1";
  arg.argIndex = 1;
  arg.offset = 1;
  CHECK(valueIn(in, arg) == uint64_t('y'));
  arg.offset = 2;
  CHECK(valueIn(in, arg) == 0u); // the terminating NUL
}

TEST_CASE("the closest model keeps unconstrained inputs and changes one token by the least "
          "amount",
          "[closest][input]") {
  z3::context ctx;
  ProgramInput seed{"10 200 7\n", {}};
  InputVar qty = numberToken(0, 2, 32, 'd'), code = numberToken(3, 3, 32, 'd'),
           n = numberToken(7, 1, 32, 'd');
  z3::expr q = var(ctx, qty), c = var(ctx, code), k = var(ctx, n);
  z3::solver s(ctx);
  // The query: qty must differ from 10 (qty >= 11 or qty <= 9); code and n appear but
  // are free.
  s.add(q != ctx.bv_val(10, 32) && z3::sge(c, ctx.bv_val(-100000, 32)) &&
        z3::sle(k, ctx.bv_val(1000, 32)));
  z3::model first = farModel(
      s, {q == ctx.bv_val(-99999, 32), c == ctx.bv_val(31337, 32), k == ctx.bv_val(-3, 32)});
  ClosestInput closer(s, seed, {qty, code, n});
  z3::model m = closer.closest(z3::expr_vector(ctx), first, Deadline::in(10));
  CHECK(signedValue(m, c) == 200); // put back
  CHECK(signedValue(m, k) == 7);
  int64_t got = signedValue(m, q);
  CHECK((got == 9 || got == 11)); // distance 1
  ProgramInput out = applyModel(seed, {qty, code, n}, m);
  CHECK((out.stdinBytes == "9 200 7\n" || out.stdinBytes == "11 200 7\n"));
  auto changes = describeInputChanges(seed, {qty, code, n}, m);
  REQUIRE(changes.size() == 1);
  CHECK((changes[0] == "token 1: 10 → 9" || changes[0] == "token 1: 10 → 11"));
}

TEST_CASE("a changed byte keeps its character class and stays near its seed", "[closest][input]") {
  z3::context ctx;
  ProgramInput seed{"ab5\ncd\n", {}};
  std::vector<InputVar> vars;
  for (uint64_t i = 0; i < 7; ++i)
    vars.push_back(stdinByte(i));
  z3::expr b0 = var(ctx, vars[0]), b2 = var(ctx, vars[2]), b5 = var(ctx, vars[5]);
  z3::solver s(ctx);
  // The query wants byte 2 to be a digit other than '5' and line 2's first byte
  // (offset 4) free; byte 0 must not be 'a'.
  s.add(b2 != ctx.bv_val('5', 8) && z3::uge(b2, ctx.bv_val('0', 8)) &&
        z3::ule(b2, ctx.bv_val('9', 8)) && b0 != ctx.bv_val('a', 8) && b5 != ctx.bv_val(0, 8));
  z3::model first =
      farModel(s, {b0 == ctx.bv_val(0xff, 8), b2 == ctx.bv_val('0', 8), b5 == ctx.bv_val(0x01, 8)});
  ClosestInput closer(s, seed, vars);
  z3::model m = closer.closest(z3::expr_vector(ctx), first, Deadline::in(10));
  ProgramInput out = applyModel(seed, vars, m);
  // 'a' becomes a lower-case letter next to it ('b'), '5' a neighbouring digit, and
  // byte 5 ('d') goes back.
  CHECK(out.stdinBytes[0] == 'b');
  CHECK((out.stdinBytes[2] == '4' || out.stdinBytes[2] == '6'));
  CHECK(out.stdinBytes.substr(3) == "\ncd\n");
  auto changes = describeInputChanges(seed, vars, m);
  REQUIRE(changes.size() == 2);
  CHECK(changes[0] == "line 1, byte 1: 'a' → 'b'");
  CHECK(changes[1].rfind("line 1, byte 3: '5' → ", 0) == 0);
}

TEST_CASE("a byte that must leave its class stays printable", "[closest][input]") {
  z3::context ctx;
  ProgramInput seed{"x\n", {}};
  std::vector<InputVar> vars{stdinByte(0)};
  z3::expr b = var(ctx, vars[0]);
  z3::solver s(ctx);
  s.add(z3::ult(b, ctx.bv_val('a', 8))); // no lower-case letter fits
  z3::model first = farModel(s, {b == ctx.bv_val(0x02, 8)});
  ClosestInput closer(s, seed, vars);
  z3::model m = closer.closest(z3::expr_vector(ctx), first, Deadline::in(10));
  ProgramInput out = applyModel(seed, vars, m);
  auto c = static_cast<unsigned char>(out.stdinBytes[0]);
  CHECK(c >= 0x20);
  CHECK(c < 'a');
  CHECK(c == '`'); // the nearest printable byte below 'a'
}

TEST_CASE("the closest model honours assumptions and falls back to the first model when time "
          "is up",
          "[closest][input]") {
  z3::context ctx;
  ProgramInput seed{"5\n", {}};
  InputVar n = numberToken(0, 1, 32, 'd');
  z3::expr x = var(ctx, n);
  z3::solver s(ctx);
  z3::expr guard = ctx.bool_const("query");
  s.add(z3::implies(guard, z3::sgt(x, ctx.bv_val(100, 32))));
  z3::expr_vector assumptions(ctx);
  assumptions.push_back(guard);
  REQUIRE(s.check(assumptions) == z3::sat);
  z3::model first = s.get_model();
  ClosestInput closer(s, seed, {n});
  z3::model m = closer.closest(assumptions, first, Deadline::in(10));
  CHECK(signedValue(m, x) == 101); // the nearest value the query allows
  CHECK(closer.checks() > 0);

  Deadline spent = Deadline::in(0);
  ClosestInput late(s, seed, {n});
  z3::model same = late.closest(assumptions, first, spent);
  CHECK(signedValue(same, x) == signedValue(first, x));
  CHECK(late.checks() == 0);
}

TEST_CASE("random inputs of the seed's shape keep numbers numbers, blanks and line ends",
          "[closest][input]") {
  ProgramInput seed{"12 ab\nX-9\n", {}};
  std::vector<InputVar> vars{numberToken(0, 2, 32, 'd'),
                             stdinByte(3),
                             stdinByte(4),
                             stdinByte(5),
                             stdinByte(6),
                             stdinByte(7),
                             stdinByte(8),
                             stdinByte(9)};
  ProgramInput a = randomLike(seed, vars, 1), b = randomLike(seed, vars, 1),
               c = randomLike(seed, vars, 2);
  CHECK(a == b); // reproducible
  CHECK(a.stdinBytes != seed.stdinBytes);
  CHECK(a.stdinBytes != c.stdinBytes);
  for (const ProgramInput *in : {&a, &c}) {
    const std::string &t = in->stdinBytes;
    size_t space = t.find(' ');
    REQUIRE(space != std::string::npos);
    long n = std::stol(t.substr(0, space));
    CHECK(n >= 0);
    CHECK(n <= 34);
    std::string rest = t.substr(space);
    REQUIRE(rest.size() == 8);
    CHECK(rest[0] == ' ');
    CHECK(rest[3] == '\n');
    CHECK(rest[7] == '\n');
    for (size_t i : {1, 2, 4, 5, 6})
      CHECK(std::isgraph(static_cast<unsigned char>(rest[i])));
  }
}
