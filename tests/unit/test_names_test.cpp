// Test names a failing test can print. Catch 2.13's console reporter wraps a test's header
// after the name's first ": ", indented that far (ConsoleReporter::printHeaderString): from
// about the 76th column no text fits in the 79 left, and a failing test's header is then
// continuation marks without end, which fills the disk instead of reporting the failure.
#include <catch2/catch.hpp>

#include <string>

TEST_CASE("every test name has its first colon-space early enough for a failing test's header "
          "to wrap",
          "[unittest]") {
  const auto &all = Catch::getRegistryHub().getTestCaseRegistry().getAllTests();
  REQUIRE(all.size() > 100);
  for (const Catch::TestCase &t : all) {
    size_t at = t.name.find(": ");
    INFO(t.name);
    CHECK((at == std::string::npos || at < 70));
  }
}

// ctest registers each Catch test by its name (catch_discover_tests), and CMake splits a
// name at `;` into a list: two tests that each match nothing, and fail.
TEST_CASE("no test name holds a semicolon, which splits it in two for ctest", "[unittest]") {
  const auto &all = Catch::getRegistryHub().getTestCaseRegistry().getAllTests();
  REQUIRE(all.size() > 100);
  for (const Catch::TestCase &t : all) {
    INFO(t.name);
    CHECK(t.name.find(';') == std::string::npos);
  }
}
