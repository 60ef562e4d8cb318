// Revert units that grow by what their build needs (src/compose/revert_growth.cpp).
#include "compose/revert_units.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::debug;

namespace {

// The change adds a helper, put_bracketed(), and points one call at it; an unrelated
// line changes too. Hunks: 0 the helper, 1 the call, 2 the other line.
const char *kGrowthOld = "#include <stdio.h>\n"
                         "\n"
                         "int main(void) {\n"
                         "  char name[64];\n"
                         "  if (scanf(\"%63s\", name) != 1)\n"
                         "    return 1;\n"
                         "  printf(\"[%s]\", name);\n"
                         "  printf(\"\\n\");\n"
                         "  return 0;\n"
                         "}\n";
const char *kGrowthNew = "#include <stdio.h>\n"
                         "\n"
                         "static void put_bracketed(const char *s) {\n"
                         "  printf(\"[%s}\", s);\n"
                         "}\n"
                         "\n"
                         "int main(void) {\n"
                         "  char name[64];\n"
                         "  if (scanf(\"%63s\", name) != 1)\n"
                         "    return 1;\n"
                         "  put_bracketed(name);\n"
                         "  printf(\"\\n\");\n"
                         "  return 2;\n"
                         "}\n";

} // namespace

TEST_CASE("a unit whose revert takes away a helper the change added grows by the hunks that "
          "call it, and by nothing else",
          "[revert]") {
  SemanticDiff diff = diffSemantically(kGrowthOld, kGrowthNew);
  REQUIRE(diff.changes.hunks.size() == 3);
  RevertEvidence ev;
  ev.files.push_back({"main.c", "main.c", &diff, kGrowthNew});
  RevertEvidence::Unit helper;
  helper.hunks = {{0, 0}};
  helper.label = "main.c:3-6";
  ev.units.push_back(helper);
  // The linker's words and clang's both name it.
  for (const char *error :
       {"main.c:11: undefined reference to `put_bracketed'",
        "main.c:11:3: error: call to undeclared function 'put_bracketed'; ISO C99 and later do "
        "not support implicit function declarations"}) {
    std::optional<RevertEvidence::Unit> grown = grownUnit(ev, 0, error);
    REQUIRE(grown.has_value());
    CHECK(grown->hunks == std::vector<std::pair<size_t, size_t>>{{0, 0}, {0, 1}});
    CHECK(grown->grown == 1);
  }
  // A name the unit's revert does not take away (the call's hunk does not define it)
  // grows nothing.
  RevertEvidence::Unit other;
  other.hunks = {{0, 2}};
  ev.units.push_back(other);
  CHECK_FALSE(grownUnit(ev, 1, "main.c:11: undefined reference to `put_bracketed'").has_value());
}
