// How conditions read (docs/symbolic.md, "Display"): arithmetic as C writes it,
// widened bytes as the byte, characters as C literals.
#include "rootline/expr_text.h"

#include <catch2/catch.hpp>

using namespace rootline;

TEST_CASE("differences read as subtraction, constants last", "[display]") {
  z3::context ctx;
  z3::expr p = ctx.bv_const("p", 32), q = ctx.bv_const("q", 32);
  CHECK(readableExpr(p + ctx.bv_val(-1, 32) * q > ctx.bv_val(3, 32)) == "p - q > 3");
  CHECK(readableExpr(ctx.bv_val(-528, 32) + ctx.bv_val(10, 32) * p <= ctx.bv_val(30, 32)) ==
        "10 * p - 528 <= 30");
  CHECK(readableExpr(ctx.bv_val(-1, 32) * p) == "-p");
  CHECK(readableExpr(p + q) == "p + q");
  // What simplify makes of them reads the same way.
  CHECK(readableExpr((p - q > 3).simplify()) == "p - q > 3");
  // Parentheses where C needs them.
  CHECK(readableExpr(p - (q + ctx.bv_val(1, 32))) == "p - (q + 1)");
  CHECK(readableExpr((p + q) * ctx.bv_val(2, 32)) == "(p + q) * 2");
}

TEST_CASE("a widened input byte reads as the byte, compared with characters", "[display]") {
  z3::context ctx;
  z3::expr b = ctx.bv_const("stdin@0", 8);
  z3::expr zext = z3::zext(b, 24), sext = z3::sext(b, 24);
  // Unsigned and signed agree on a widened byte and a small number: C's plain operator.
  // A constant goes on the right.
  CHECK(readableExpr(z3::ule(ctx.bv_val('0', 32), zext)) == "stdin@0 >= '0'");
  // Where they may disagree, the unsigned value of a constant.
  CHECK(readableExpr(z3::ult(zext, ctx.bv_val(-1, 32))) == "stdin@0 < 4294967295");
  CHECK(readableExpr(sext == ctx.bv_val('\n', 32)) == "stdin@0 == '\\n'");
  CHECK(readableExpr(!(b == ctx.bv_val('a', 8))) == "stdin@0 != 'a'");
  CHECK(readableExpr(z3::sgt(sext.simplify(), ctx.bv_val('9', 32))) == "stdin@0 > '9'");
  // Simplified sign extension (a concat of top bits) and zero extension (concat with 0).
  CHECK(readableExpr(z3::concat(ctx.bv_val(0, 24), b) == ctx.bv_val(65, 32)) == "stdin@0 == 'A'");
  // Numbers that are no printable character stay numbers.
  CHECK(readableExpr(b != ctx.bv_val(-64, 8)) == "stdin@0 != -64");
  CHECK(readableExpr(b == ctx.bv_val(0, 8)) == "stdin@0 == '\\0'");
}

TEST_CASE("each operator class has its C spelling", "[display]") {
  z3::context ctx;
  z3::expr x = ctx.bv_const("x", 32), y = ctx.bv_const("y", 32);
  CHECK(readableExpr(x * y) == "x * y");
  CHECK(readableExpr(x / y) == "x / y");
  CHECK(readableExpr(z3::srem(x, y) == ctx.bv_val(0, 32)) == "x % y == 0");
  // Unsigned operations as C writes them: a cast on an operand that may be negative.
  CHECK(readableExpr(z3::udiv(x, y)) == "(unsigned)x / y");
  CHECK(readableExpr(z3::urem(z3::zext(ctx.bv_const("c", 8), 24), y)) == "c % (unsigned)y");
  CHECK(readableExpr(z3::ult(z3::zext(ctx.bv_const("c", 8), 56), ctx.bv_const("n", 64))) ==
        "c < (unsigned long)n");
  CHECK(readableExpr((x & y) != ctx.bv_val(0, 32)) == "(x & y) != 0");
  CHECK(readableExpr(x | y) == "x | y");
  CHECK(readableExpr(x ^ y) == "x ^ y");
  CHECK(readableExpr(z3::shl(x, ctx.bv_val(2, 32))) == "x << 2");
  CHECK(readableExpr(z3::ashr(x, ctx.bv_val(1, 32))) == "x >> 1");
  CHECK(readableExpr(z3::lshr(x, ctx.bv_val(1, 32))) == "(unsigned)x >> 1");
  CHECK(readableExpr(z3::ult(x, y)) == "(unsigned)x < y");
  // A constant on the left moves right, the operator mirrored.
  CHECK(readableExpr(ctx.bv_val(5, 32) > x) == "x < 5");
  CHECK(readableExpr(!(ctx.bv_val(5, 32) <= x)) == "x < 5");
  // The low bits of a wider value: C's narrowing cast.
  CHECK(readableExpr(ctx.bv_const("m", 64).extract(31, 0) + x) == "(int)m + x");
  CHECK(readableExpr(!(x <= y)) == "x > y");
  CHECK(readableExpr(!(x == y)) == "x != y");
  CHECK(readableExpr(x > y && x < ctx.bv_val(10, 32)) == "x > y && x < 10");
  CHECK(readableExpr(x == y || x == ctx.bv_val(-2, 32)) == "x == y || x == -2");
  CHECK(readableExpr(z3::ite(x > y, x, y)) == "x > y ? x : y");
  CHECK(readableExpr((x > y || x < y) && x != ctx.bv_val(0, 32)) == "(x > y || x < y) && x != 0");
  CHECK(readableExpr(!(x > y && y > x)) == "!(x > y && y > x)");
}

TEST_CASE("a formula whose tree is exponential in its DAG prints within a bound", "[display]") {
  z3::context ctx;
  z3::expr c = ctx.bv_const("c", 32);
  z3::expr e = ctx.bv_val(0, 32);
  // Each level uses the previous one twice: 2^60 leaves as a tree.
  for (int i = 0; i < 60; ++i)
    e = z3::ite(c > ctx.bv_val(i, 32), e + ctx.bv_val(1, 32), e * ctx.bv_val(2, 32));
  std::string s = readableExpr(e == ctx.bv_val(5, 32));
  CHECK(s.find("…") != std::string::npos);
  CHECK(s.size() < 200000);
}
