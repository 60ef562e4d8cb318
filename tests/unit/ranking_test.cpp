// The ranking's order of evidence (docs/debug.md, "Memory errors" and "Revert
// evidence"): an unconfirmed memory finding never outranks a line with evidence, and a
// whole-change revert adds nothing.
#include "compose/debug_stages.h"

#include <catch2/catch.hpp>

#include <algorithm>

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

TEST_CASE("a confirmed memory fault on the line itself ranks before the lines of a unit of "
          "several lines whose revert fixes and after a line reverted alone",
          "[debug][ranking]") {
  // mawk m13 on a cold cache: a 25-line group of the regex compiler reverted passes (the
  // new path that reaches the fault goes); AddressSanitizer reports the overflow on the
  // seeded line, whose own unit did not build.
  DebugCandidate group = changedLine(345), fault = changedLine(232), far = changedLine(234);
  group.revert = "fixes";
  group.revertLines = 25;
  group.aligned = "differs";
  group.alignedOrigin = true;
  fault.revert = "unresolved";
  fault.revertLines = 552;
  fault.memoryError = "main.c:232 reads 4 byte(s) at offset -48 ...";
  fault.memoryCheck = "confirmed";
  fault.memoryFaultOnLine = true;
  // A finding the access only depends on (the nearest changed line) keeps its place.
  far.revert = "unresolved";
  far.memoryError = "main.c:240 reads 4 byte(s) ...";
  far.memoryCheck = "confirmed";
  std::vector<DebugCandidate> cs = {group, far, fault};
  debug::rankCandidates(cs, 10, std::nullopt);
  REQUIRE(cs.size() == 3);
  CHECK(cs[0].line == 232);
  CHECK(cs[1].line == 345);
  CHECK(cs[2].line == 234);
  // A line whose revert alone fixes, or whose edit does, still comes first.
  DebugCandidate alone = changedLine(50), edited = changedLine(60);
  alone.revert = "fixes";
  alone.revertLines = 1;
  edited.revert = "fixes";
  edited.revertLines = 25;
  edited.edit = "an edit of main.c:60 makes the test pass";
  cs = {fault, alone};
  debug::rankCandidates(cs, 10, std::nullopt);
  CHECK(cs[0].line == 50);
  cs = {fault, edited};
  debug::rankCandidates(cs, 10, std::nullopt);
  CHECK(cs[0].line == 60);
  // Unconfirmed, the same finding on the line is no fault of it.
  fault.memoryCheck = "unconfirmed";
  cs = {fault, group};
  debug::rankCandidates(cs, 10, std::nullopt);
  CHECK(cs[0].line == 345);
}

TEST_CASE("of the lines of one group that fixes, one whose own smaller revert removes the first "
          "difference comes first",
          "[debug][ranking][revert]") {
  // Both lines stand on the same 39-hunk group; 1455 has more of every other kind of
  // evidence, 2090's hunk with what its build needs removed the first difference.
  DebugCandidate branch = changedLine(1455), call = changedLine(2090), other = changedLine(30);
  for (DebugCandidate *c : {&branch, &call, &other}) {
    c->revert = "fixes";
    c->revertLines = 499;
    c->revertUnit = "main.c:239 + main.c:256";
  }
  other.revertUnit = "other.c:1 + other.c:9"; // another group: no order between them
  branch.aligned = "differs";
  branch.alignedOrigin = true;
  branch.distance = 5;
  call.distance = 80;
  call.narrowedRevert = "reverting main.c:2090 with what its build needs (main.c:2058) alone "
                        "removes the failure's first difference";
  std::vector<DebugCandidate> cs = {branch, call};
  debug::rankCandidates(cs, 10, std::nullopt);
  REQUIRE(cs.size() == 2);
  CHECK(cs[0].line == 2090);
  CHECK(cs[1].line == 1455);
  // A line of another group gets nothing from it.
  other.aligned = "differs";
  other.alignedOrigin = true;
  other.distance = 1;
  cs = {call, other};
  debug::rankCandidates(cs, 10, std::nullopt);
  CHECK(cs[0].line == 30);
}

TEST_CASE("of lines no other evidence tells apart, the one the test's alike processes did not "
          "run comes first",
          "[debug][ranking][spectrum]") {
  // fixtures/projects/make_columns: the line nearest the output is run by all five runs of
  // the program, the wrong padding only by the failing one.
  DebugCandidate near = changedLine(20), path = changedLine(14);
  for (DebugCandidate *c : {&near, &path}) {
    c->revert = "whole change";
    c->aligned = "differs";
    c->testSpectrumKnown = true;
    c->testSpectrumOf = {1, 4};
    c->testSpectrumAmong = {1, 4};
  }
  near.distance = 1;
  near.testSpectrum = {1, 4};
  path.distance = 3;
  path.testSpectrum = {1, 0};
  std::vector<DebugCandidate> cs = {near, path};
  debug::rankCandidates(cs, 10, std::nullopt);
  REQUIRE(cs.size() == 2);
  CHECK(cs[0].line == 14);
  // It orders only what stronger evidence leaves equal: a line whose revert alone fixes
  // still comes first.
  near.revert = "fixes";
  near.revertLines = 1;
  cs = {path, near};
  debug::rankCandidates(cs, 10, std::nullopt);
  CHECK(cs[0].line == 20);
  // The reason says what the replays saw, and what share of the test they were.
  path.testSpectrumOf = {1, 64};
  path.testSpectrumAmong = {1, 413};
  path.testSpectrum = {1, 3};
  cs = {path};
  debug::explainCandidates(cs, "stdout");
  CHECK(std::find(cs[0].reasons.begin(), cs[0].reasons.end(),
                  "run by 1 of the 1 process(es) of the test whose behaviour differs between the "
                  "versions, and by 3 of 64 replayed of the 413 that behave alike") !=
        cs[0].reasons.end());
}

TEST_CASE("a repaired line's sentence names the repaired lines that depend on it, in the "
          "number they are",
          "[ranking][edits]") {
  using rootline::debug::dependentRepairsPhrase;
  CHECK(dependentRepairsPhrase({}).empty());
  CHECK(dependentRepairsPhrase({"main.c:7"}) ==
        "; main.c:7, whose edit passes too, depends on this line's execution");
  CHECK(dependentRepairsPhrase({"diffstat.c:1973", "diffstat.c:1978", "diffstat.c:1979"}) ==
        "; diffstat.c:1973 and 2 more repaired line(s), whose edits pass too, depend on this "
        "line's execution");
}

TEST_CASE("of lines whose edits repair the failing process, the one whose edit makes more of "
          "the test's differing processes behave as in the old version comes first",
          "[debug][ranking][edits]") {
  // diffstat's `A && B && (C == NULL)` chain: `&&` → `||` two lines up lets the failing
  // run through, and others' repairs depend on that line's execution; the seeded `==`
  // restores every differing run.
  DebugCandidate upstream = changedLine(2026), seeded = changedLine(2029);
  upstream.edit = "changing `&&` to `||` at main.c:2026 ...";
  upstream.repairsUpstream = 4;
  upstream.editRestores = 1;
  seeded.edit = "changing `==` to `!=` at main.c:2029 ...";
  seeded.repairsUpstream = 1;
  seeded.editRestores = 11;
  std::vector<DebugCandidate> cs = {upstream, seeded};
  debug::rankCandidates(cs, 10, std::nullopt);
  CHECK(cs[0].line == 2029);
  // Restoring as many, the line the others' repairs depend on comes first, as before.
  upstream.editRestores = 11;
  cs = {seeded, upstream};
  debug::rankCandidates(cs, 10, std::nullopt);
  CHECK(cs[0].line == 2026);
}

TEST_CASE("of lines one revert unit fixes, or an edit elsewhere makes up for, the one where the "
          "new version's compile gives a new bug warning comes first",
          "[debug][ranking][warnings]") {
  // diffstat d9: `(length = need_blanks(sp)) != NULL` seeded for `(sp = ...)` in a group
  // of 40 lines whose revert fixes; an edit upstream in copy_graphs made up for it.
  DebugCandidate compensates = changedLine(1406), before = changedLine(1981),
                 warned = changedLine(1982);
  compensates.revert = "fixes failing process";
  compensates.edit = "changing `!=` to `==` at main.c:1406 alone makes ...";
  before.revert = warned.revert = "fixes";
  before.revertLines = warned.revertLines = 40;
  before.aligned = "differs";
  before.alignedOrigin = true;
  warned.aligned = "differs";
  warned.newWarning = "incompatible pointer to integer conversion assigning to 'size_t' from "
                      "'char *' [-Wint-conversion]";
  std::vector<DebugCandidate> cs = {compensates, before, warned};
  debug::rankCandidates(cs, 10, std::nullopt);
  REQUIRE(cs.size() == 3);
  CHECK(cs[0].line == 1982);
  CHECK(cs[1].line == 1406);
  CHECK(cs[2].line == 1981);
  // A warning is no revert evidence: a line whose revert fixes comes before a warned line
  // whose revert did nothing.
  DebugCandidate noEffect = changedLine(70);
  noEffect.revert = "no effect";
  noEffect.newWarning = warned.newWarning;
  cs = {noEffect, before};
  debug::rankCandidates(cs, 10, std::nullopt);
  CHECK(cs[0].line == 1981);
  // The reason says what clang said.
  cs = {warned};
  debug::explainCandidates(cs, "stdout");
  CHECK(std::any_of(cs[0].reasons.begin(), cs[0].reasons.end(), [](const std::string &r) {
    return r.find("clang warns at this line of the new version") != std::string::npos &&
           r.find("[-Wint-conversion]") != std::string::npos;
  }));
}
