// The ranking's order of evidence (docs/debug.md, "Memory errors" and "Revert
// evidence"): an unconfirmed memory finding never outranks a line with evidence, and a
// whole-change revert adds nothing.
#include "compose/debug_stages.h"

#include <catch2/catch.hpp>

using namespace rootline;

namespace {
DebugCandidate changedLine(unsigned line) {
  DebugCandidate c;
  c.version = "new";
  c.file = "main.c";
  c.line = line;
  c.inChangedRegion = true;
  return c;
}
} // namespace

TEST_CASE("a memory finding the sanitizer build did not confirm ranks below lines with "
          "evidence",
          "[debug][ranking]") {
  DebugCandidate unconfirmed = changedLine(10), confirmed = changedLine(20),
                 differs = changedLine(30);
  unconfirmed.memoryError = "main.c:12 reads 4 byte(s) ... (unconfirmed)";
  unconfirmed.memoryCheck = "unconfirmed";
  confirmed.memoryError = "main.c:22 writes 4 byte(s) ...";
  confirmed.memoryCheck = "confirmed";
  differs.aligned = "differs";
  std::vector<DebugCandidate> cs = {unconfirmed, differs, confirmed};
  debug::rankCandidates(cs, 10, std::nullopt);
  REQUIRE(cs.size() == 3);
  CHECK(cs[0].line == 20); // confirmed memory error
  CHECK(cs[1].line == 30); // in the dual slice
  CHECK(cs[2].line == 10); // unconfirmed, last
  // A line that a revert singles out still comes first, whatever else.
  DebugCandidate fixes = changedLine(40);
  fixes.revert = "fixes";
  DebugCandidate whole = changedLine(50);
  whole.revert = "whole change";
  whole.aligned = "same values";
  cs = {whole, unconfirmed, fixes};
  debug::rankCandidates(cs, 10, std::nullopt);
  CHECK(cs[0].line == 40);
  CHECK(cs[1].line == 50); // "whole change" is no revert evidence, for or against
  CHECK(cs[2].line == 10); // an unconfirmed memory finding comes after it
}
