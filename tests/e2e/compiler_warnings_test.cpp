// Compiler warnings the change brought (docs/debug.md, "Compiler warnings"): the report
// says where clang, with the unit's own flags, warns of a likely bug in the new version
// and not in the old, and says it of no other line.
#include "rootline/debug.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace rootline;
using namespace rootline::test;

namespace {

// The change rewrote report(): renamed its parameters, named the noun, and passed `sum`
// where the count was meant (a long for %d: 47 printed instead of 3). The self-comparison
// in main warns in both versions, on a line the change also edited.
const char *kReportOld = "#include <stdio.h>\n"
                         "\n"
                         "static void report(const char *name, long total, int count) {\n"
                         "  printf(\"%s: %d item(s), %ld in all\\n\", name, count, total);\n"
                         "}\n"
                         "\n"
                         "int main(void) {\n"
                         "  char name[32];\n"
                         "  long total = 0;\n"
                         "  int count = 0, n;\n"
                         "  while (scanf(\"%31s %d\", name, &n) == 2 && n == n) {\n"
                         "    total += n;\n"
                         "    count++;\n"
                         "  }\n"
                         "  report(\"stock\", total, count);\n"
                         "  return 0;\n"
                         "}\n";
const char *kReportNew = "#include <stdio.h>\n"
                         "\n"
                         "static void report(const char *label, long sum, int entries) {\n"
                         "  const char *what = entries >= 0 ? \"item(s)\" : \"?\";\n"
                         "  printf(\"%s: %d %s, %ld in all\\n\", label, sum, what, sum);\n"
                         "}\n"
                         "\n"
                         "int main(void) {\n"
                         "  char name[32];\n"
                         "  long total = 0;\n"
                         "  int count = 0, n;\n"
                         "  while (scanf(\"%31s %d\", name, &n) == 2 && n == n && n >= 0) {\n"
                         "    total += n;\n"
                         "    count++;\n"
                         "  }\n"
                         "  report(\"stock\", total, count);\n"
                         "  return 0;\n"
                         "}\n";

} // namespace

TEST_CASE("debug: a changed line where the new version's compile warns of a likely bug that the "
          "old one does not is said to, and a changed line that warns in both versions is not",
          "[debug][warnings]") {
  TempDir t;
  DebugReport r = debugRegression(
      twoVersions(t.path, kReportOld, kReportNew, "bolts 12\nnuts 30\nwashers 5\n"));
  REQUIRE_FALSE(r.candidates.empty());
  const DebugCandidate &first = r.candidates.front();
  CHECK(first.version == "new");
  CHECK(first.line == 5);
  CHECK(first.newWarning.find("format specifies type 'int' but the argument has type 'long'") !=
        std::string::npos);
  CHECK(first.newWarning.find("[-Wformat]") != std::string::npos);
  CHECK(std::any_of(first.reasons.begin(), first.reasons.end(), [](const std::string &s) {
    return s.starts_with("clang warns at this line of the new version");
  }));
  // The loop's line changed too and warns of `n == n` in both versions: not a new warning.
  for (const DebugCandidate &c : r.candidates)
    if (c.line != 5)
      CHECK(c.newWarning.empty());
  auto stage = std::find_if(r.stages.begin(), r.stages.end(),
                            [](const StageRecord &s) { return s.name == "compiler warnings"; });
  REQUIRE(stage != r.stages.end());
  CHECK(stage->complete);
}
