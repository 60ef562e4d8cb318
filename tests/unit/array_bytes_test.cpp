// The bytes of an array built by stores, as symbolic replay copies them out of it
// (src/symbolic/symbolic_memory.cpp): each is the array's own byte at that offset.
#include "symbolic/symbolic_replayer.h"

#include <catch2/catch.hpp>

using namespace rootline;

namespace {

// Whether `e` equals byte `off` of `array` for every value of the unknowns.
bool sameByte(z3::context &ctx, const z3::expr &array, uint64_t off, const z3::expr &e) {
  z3::solver s(ctx);
  s.add(z3::select(array, ctx.bv_val(off, 64)) != e);
  return s.check() == z3::unsat;
}

} // namespace

TEST_CASE("the bytes copied out of an array built by stores at numeral and symbolic offsets "
          "are the array's own",
          "[symbolic]") {
  z3::context ctx;
  z3::sort byteArray = ctx.array_sort(ctx.bv_sort(64), ctx.bv_sort(8));
  z3::expr i = ctx.bv_const("i", 64), j = ctx.bv_const("j", 64);
  z3::expr c = ctx.bv_const("c", 8), d = ctx.bv_const("d", 8);
  SECTION("over a constant array") {
    z3::expr a = z3::const_array(ctx.bv_sort(64), ctx.bv_val(7, 8));
    a = z3::store(a, ctx.bv_val(2, 64), ctx.bv_val(65, 8)); // "A" at 2
    a = z3::store(a, i, c);                                 // a byte at a symbolic place
    a = z3::store(a, ctx.bv_val(3, 64), d);                 // then 3, known place
    a = z3::store(a, ctx.bv_val(9, 64), ctx.bv_val(1, 8));  // outside the range
    a = z3::store(a, j, ctx.bv_val(0, 8));                  // a NUL at a symbolic place
    a = z3::store(a, ctx.bv_val(2, 64), ctx.bv_val(66, 8)); // 2 again, newest
    std::vector<z3::expr> bytes = bytesOfArray(a, 1, 5);
    REQUIRE(bytes.size() == 5);
    for (uint64_t k = 0; k < 5; ++k) {
      INFO("offset " << 1 + k << ": " << bytes[k].to_string());
      CHECK(sameByte(ctx, a, 1 + k, bytes[k]));
      CHECK(z3::eq(bytes[k], byteOfArray(a, 1 + k)));
    }
    CHECK(bytes[1].is_numeral()); // offset 2: the newest store, nothing symbolic after it
  }
  SECTION("over an unknown array") {
    z3::expr a = ctx.constant("m", byteArray);
    a = z3::store(a, ctx.bv_val(0, 64), c);
    a = z3::store(a, i, d);
    std::vector<z3::expr> bytes = bytesOfArray(a, 0, 3);
    for (uint64_t k = 0; k < 3; ++k) {
      INFO("offset " << k << ": " << bytes[k].to_string());
      CHECK(sameByte(ctx, a, k, bytes[k]));
    }
  }
}
