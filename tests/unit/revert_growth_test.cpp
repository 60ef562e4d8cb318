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
    std::optional<RevertEvidence::Unit> grown = grownUnit(ev, ev.units[0], error);
    REQUIRE(grown.has_value());
    CHECK(grown->hunks == std::vector<std::pair<size_t, size_t>>{{0, 0}, {0, 1}});
    CHECK(grown->grown == 1);
  }
  // A name the unit's revert does not take away (the call's hunk does not define it)
  // grows nothing.
  RevertEvidence::Unit other;
  other.hunks = {{0, 2}};
  ev.units.push_back(other);
  CHECK_FALSE(
      grownUnit(ev, ev.units[1], "main.c:11: undefined reference to `put_bracketed'").has_value());
}

namespace {

// The change moves helper() below scale() and edits its constant: hunks 0 the old
// helper's removal, 1 the moved and edited helper. No prototype names helper() in
// either version, so only the moved copy defines it.
const char *kMovedOld = "#include <stdio.h>\n"
                        "\n"
                        "static int helper(int x) {\n"
                        "  return x * 2;\n"
                        "}\n"
                        "\n"
                        "static int scale(int x) {\n"
                        "  return x * 10;\n"
                        "}\n"
                        "\n"
                        "int main(void) {\n"
                        "  printf(\"%d\\n\", helper(scale(3)));\n"
                        "  return 0;\n"
                        "}\n";
const char *kMovedNew = "#include <stdio.h>\n"
                        "\n"
                        "static int scale(int x) {\n"
                        "  return x * 10;\n"
                        "}\n"
                        "\n"
                        "static int helper(int x) {\n"
                        "  return x * 3;\n"
                        "}\n"
                        "\n"
                        "int main(void) {\n"
                        "  printf(\"%d\\n\", helper(scale(3)));\n"
                        "  return 0;\n"
                        "}\n";

} // namespace

TEST_CASE("a unit that brings back a definition the change moved grows by the moved copy, and "
          "one whose reverted text does not parse, by the hunks next to it",
          "[revert]") {
  SemanticDiff diff = diffSemantically(kMovedOld, kMovedNew);
  RevertEvidence ev;
  ev.files.push_back({"src/main.c", "src/main.c", &diff, kMovedNew});
  const auto &hunks = diff.changes.hunks;
  REQUIRE(hunks.size() == 2);
  REQUIRE(hunks[0].newLines == 0); // the old helper's removal
  REQUIRE(hunks[1].oldLines == 0); // the moved copy
  RevertEvidence::Unit removal;
  removal.hunks = {{0, 0}};
  ev.units.push_back(removal);
  for (const char *error :
       {"src/main.c:3:12: error: redefinition of 'helper'",
        "src/main.c:3:12: error: static declaration of 'helper' follows non-static "
        "declaration"}) {
    INFO(error);
    std::optional<RevertEvidence::Unit> grown = grownUnit(ev, ev.units[0], error);
    REQUIRE(grown.has_value());
    CHECK(grown->hunks == std::vector<std::pair<size_t, size_t>>{{0, 0}, {0, 1}});
    CHECK(grown->grown == 1);
  }
  // The moved copy's revert alone, when its text does not parse there: the hunk next to
  // it comes back.
  RevertEvidence::Unit copy;
  copy.hunks = {{0, 1}};
  ev.units.push_back(copy);
  std::optional<RevertEvidence::Unit> grown =
      grownUnit(ev, ev.units[1], "main.c:7:1: error: expected identifier or '('");
  REQUIRE(grown.has_value());
  CHECK(grown->hunks == std::vector<std::pair<size_t, size_t>>{{0, 0}, {0, 1}});
  // The same error in a file the unit does not touch, or an error of another kind, grows
  // nothing.
  CHECK_FALSE(
      grownUnit(ev, ev.units[1], "other.c:7:1: error: expected identifier or '('").has_value());
  CHECK_FALSE(grownUnit(ev, ev.units[1], "src/main.c:7:1: error: division by zero").has_value());
}
