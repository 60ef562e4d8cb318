// Harness lines as a report quotes them (src/compose/unit_test_stage.cpp, readableNumber).
#include "compose/debug_stages.h"

#include <catch2/catch.hpp>

using namespace rootline::debug;

TEST_CASE("a harness line's floating-point value reads as the shortest decimal of the same "
          "double, and other lines stay as printed",
          "[unittest][localdarwin]") {
  CHECK(readableNumber("returns -4.2999999999999998") == "returns -4.3");
  CHECK(readableNumber("leaves st->max = -4.3000000000000007") ==
        "leaves st->max = -4.300000000000001"); // the next double after -4.3: not -4.3
  CHECK(readableNumber("leaves st->mean = 0.10000000000000001") == "leaves st->mean = 0.1");
  CHECK(readableNumber("returns 0x1.1333333333333p+2") == "returns 4.3"); // %a
  CHECK(readableNumber("returns 1e+300") == "returns 1e+300");
  // Integers, pointers, objects and printed text are not touched.
  CHECK(readableNumber("returns 42") == "returns 42");
  CHECK(readableNumber("returns 0x55d0c0a0") == "returns 0x55d0c0a0");
  CHECK(readableNumber("returns &o1+8") == "returns &o1+8");
  CHECK(readableNumber("prints:1.50000000000000000") == "prints:1.50000000000000000");
  CHECK(readableNumber("leaves p->name = \"2.50\"") == "leaves p->name = \"2.50\"");
}
