// Integer queries settled by evaluation (explore/integer_search.h): products and
// remainders of unknowns, which Z3 bit-blasts slowly.
#include "explore/integer_search.h"
#include "rootline/closest_input.h"

#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;

namespace {

z3::expr integerVar(z3::context &ctx, const InputVar &v) {
  return ctx.bv_const(v.name.c_str(), v.bits);
}

int64_t integerValue(const z3::model &m, const z3::expr &e) {
  z3::expr r = m.eval(e, true);
  uint64_t x = 0;
  REQUIRE(r.is_numeral_u64(x));
  unsigned bits = e.get_sort().bv_size();
  if (bits < 64 && (x >> (bits - 1)) & 1)
    return static_cast<int64_t>(x | ~((1ull << bits) - 1));
  return static_cast<int64_t>(x);
}

} // namespace

TEST_CASE("nonlinear arithmetic: products of two unknowns, divisions and remainders",
          "[closest][integer]") {
  z3::context ctx;
  z3::expr x = ctx.bv_const("x", 32), y = ctx.bv_const("y", 32);
  CHECK(hasNonlinearArithmetic(x * y == ctx.bv_val(6, 32)));
  CHECK(hasNonlinearArithmetic(z3::urem(x, y) == 0));
  CHECK(hasNonlinearArithmetic(x / ctx.bv_val(2, 32) > 3)); // a divider under assumptions
  CHECK_FALSE(hasNonlinearArithmetic(x * ctx.bv_val(31, 32) + y == 7));
  CHECK_FALSE(hasNonlinearArithmetic(x + y < 10));
}

TEST_CASE("a bound over a square is met at the nearest number past it, found by evaluation",
          "[closest][integer]") {
  z3::context ctx;
  ProgramInput seed{"3 40\n", {}};
  InputVar n = test::tokenInput(0, 1, 32, 'd'), k = test::tokenInput(2, 2, 32, 'd');
  z3::expr x = integerVar(ctx, n), y = integerVar(ctx, k);
  z3::solver s(ctx);
  z3::expr focus = z3::sgt(x * x, ctx.bv_val(1000, 32)) && z3::slt(x, y);
  s.add(focus);
  ClosestInput closer(s, seed, {n, k});
  auto m = closer.nearSeedIntegers(z3::expr_vector(ctx), focus, Deadline::in(10));
  REQUIRE(m);
  CHECK(integerValue(*m, x) == 32); // 31 * 31 = 961, 32 * 32 = 1024
  CHECK(integerValue(*m, y) == 40); // untouched
  CHECK(m->eval(focus, true).is_true());
  auto changes = describeInputChanges(seed, {n, k}, *m);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0] == "token 1: 3 → 32");
}

TEST_CASE("a remainder that must agree for two ways of computing it, on 64-bit tokens",
          "[closest][integer]") {
  // b * b % m against b * r % m (a squaring step changed): the same value where r = b.
  z3::context ctx;
  ProgramInput seed{"7 5 1000\n", {}};
  InputVar tb = test::tokenInput(0, 1, 64, 'd'), tr = test::tokenInput(2, 1, 64, 'd'),
           tm = test::tokenInput(4, 4, 64, 'd');
  z3::expr b = integerVar(ctx, tb), r = integerVar(ctx, tr), m = integerVar(ctx, tm);
  z3::solver s(ctx);
  s.add(z3::sgt(m, ctx.bv_val(1, 64)));
  z3::expr focus = z3::srem(b * b, m) == z3::srem(b * r, m);
  s.add(focus);
  ClosestInput closer(s, seed, {tb, tr, tm});
  auto model = closer.nearSeedIntegers(z3::expr_vector(ctx), focus, Deadline::in(10));
  REQUIRE(model);
  CHECK(model->eval(focus, true).is_true());
  auto changes = describeInputChanges(seed, {tb, tr, tm}, *model);
  REQUIRE(changes.size() == 1); // one token moved, the others kept
  CHECK(closer.checks() == 0);  // no solver check was needed
}

TEST_CASE("a text byte found by evaluation keeps its class", "[closest][integer]") {
  z3::context ctx;
  ProgramInput seed{"5\n", {}};
  InputVar d = test::stdinByteInput(0);
  z3::expr b = integerVar(ctx, d);
  z3::solver s(ctx);
  z3::expr digit = b - ctx.bv_val('0', 8);
  z3::expr focus = digit * digit == ctx.bv_val(49, 8);
  s.add(focus);
  ClosestInput closer(s, seed, {d});
  auto m = closer.nearSeedIntegers(z3::expr_vector(ctx), focus, Deadline::in(10));
  REQUIRE(m);
  CHECK(applyModel(seed, {d}, *m).stdinBytes == "7\n");
}

TEST_CASE("linear queries and queries no nearby value meets are left to the solver",
          "[closest][integer]") {
  z3::context ctx;
  ProgramInput seed{"3\n", {}};
  InputVar n = test::tokenInput(0, 1, 32, 'd');
  z3::expr x = integerVar(ctx, n);
  {
    z3::solver s(ctx);
    z3::expr focus = x + 1 == ctx.bv_val(9, 32);
    s.add(focus);
    ClosestInput closer(s, seed, {n});
    CHECK_FALSE(closer.nearSeedIntegers(z3::expr_vector(ctx), focus, Deadline::in(10)));
  }
  {
    z3::solver s(ctx);
    z3::expr focus = x * x == ctx.bv_val(12345 * 12345, 32); // far from every candidate
    s.add(focus);
    ClosestInput closer(s, seed, {n});
    CHECK_FALSE(closer.nearSeedIntegers(z3::expr_vector(ctx), focus, Deadline::in(10)));
  }
}
