#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline::test;

TEST_CASE("rootline --help lists the six subcommands", "[cli]") {
  auto r = runRootline({"--help"});
  REQUIRE(r.exitedWith(0));
  for (const char *cmd : {"trace", "slice", "explore", "debug", "bisect", "validate"})
    CHECK(r.out.find(cmd) != std::string::npos);
}

TEST_CASE("rootline --version prints the version", "[cli]") {
  auto r = runRootline({"--version"});
  REQUIRE(r.exitedWith(0));
  CHECK(r.out.rfind("rootline ", 0) == 0);
}

TEST_CASE("every subcommand has help text", "[cli]") {
  for (const char *cmd : {"trace", "slice", "explore", "debug", "bisect", "validate"}) {
    auto r = runRootline({cmd, "--help"});
    CHECK(r.exitedWith(0));
    CHECK(r.out.find("Usage") != std::string::npos);
  }
}

TEST_CASE("usage errors exit 2 with a message", "[cli]") {
  auto r = runRootline({"no-such-command"});
  CHECK(r.exitedWith(2));
  CHECK_FALSE(r.err.empty());
  r = runRootline({});
  CHECK(r.exitedWith(2));
}
