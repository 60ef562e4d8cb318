// Compiler warnings the change brought (src/compose/compiler_warnings.cpp): clang's own
// diagnostics of two versions of a file, and which of them are new on changed lines.
#include "compose/debug_stages.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace rootline;
using namespace rootline::test;

namespace {

// Line 5 is the same in both versions and warns in both; line 8 changes and warns only
// in the new version (a long passed for %d); line 9 changes and keeps its self-assignment
// (the old version's line 9 gives the same warning); line 10 is added with a warning the
// old version gave elsewhere, at line 12, which the change deleted (moved code).
const char *kWarnedOld = "#include <stdio.h>\n"            // 1
                         "static int f(int a, long b) {\n" // 2
                         "  int c = a;\n"                  // 3
                         "  long d = b;\n"                 // 4
                         "  if (a == a) c++;\n"            // 5
                         "  d = d + 1;\n"                  // 6
                         "  c = c * 2;\n"                  // 7
                         "  printf(\"%d\\n\", c);\n"       // 8
                         "  c = c;\n"                      // 9
                         "  d += 1;\n"                     // 10
                         "  d += 2;\n"                     // 11
                         "  b = b;\n"                      // 12
                         "  return c + (int)d;\n"          // 13
                         "}\n"
                         "int main(void) { return f(1, 2); }\n";
const char *kWarnedNew = "#include <stdio.h>\n"            // 1
                         "static int f(int a, long b) {\n" // 2
                         "  int c = a;\n"                  // 3
                         "  long d = b;\n"                 // 4
                         "  if (a == a) c++;\n"            // 5
                         "  d = d + 1;\n"                  // 6
                         "  c = c * 2;\n"                  // 7
                         "  printf(\"%d\\n\", d);\n"       // 8
                         "  c = c; d -= 1;\n"              // 9
                         "  b = b; d += 3;\n"              // 10
                         "  d += 2;\n"                     // 11
                         "  return c + (int)d;\n"          // 12
                         "}\n"
                         "int main(void) { return f(1, 2); }\n";

UnitSource unitOf(const fs::path &file) { return {file, file.parent_path(), {}}; }

} // namespace

TEST_CASE("clang's warnings of a unit are read with their file, line and flag, relative to the "
          "version's top",
          "[debug][warnings]") {
  TempDir t;
  writeText(t.path / "new" / "src" / "main.c", kWarnedNew);
  auto got = debug::unitWarnings(unitOf(t.path / "new" / "src" / "main.c"), t.path / "new", 60);
  REQUIRE(got);
  auto at = [&](unsigned line) {
    std::vector<std::string> flags;
    for (const auto &w : *got)
      if (w.line == line) {
        CHECK(w.file == "src/main.c");
        flags.push_back(w.flag);
      }
    return flags;
  };
  CHECK(at(5) == std::vector<std::string>{"tautological-compare"});
  CHECK(at(8) == std::vector<std::string>{"format"});
  CHECK(at(9) == std::vector<std::string>{"self-assign"});
  CHECK(at(10) == std::vector<std::string>{"self-assign"});
  CHECK(at(3).empty());
  // A relative path in the diagnostic is taken from the compile's directory; notes and
  // the summary line are not warnings.
  std::vector<debug::CompilerWarning> parsed =
      debug::parseClangWarnings("x.c:3:5: warning: explicitly assigning value of variable of type "
                                "'int' to itself [-Wself-assign]\n"
                                "x.c:3:5: note: here\n"
                                "y.c:7:1: error: call to undeclared function 'g' "
                                "[-Wimplicit-function-declaration,-Werror]\n"
                                "1 warning generated.\n",
                                "/top/sub", "/top");
  REQUIRE(parsed.size() == 2);
  CHECK(parsed[0].file == "sub/x.c");
  CHECK(parsed[0].line == 3);
  CHECK(parsed[0].flag == "self-assign");
  CHECK(parsed[1].flag == "implicit-function-declaration");
  CHECK(parsed[1].message == "call to undeclared function 'g'");
}

TEST_CASE("a warning is new only on a changed line, and only when the old version gives none like "
          "it there or elsewhere in the file",
          "[debug][warnings]") {
  TempDir t;
  writeText(t.path / "old" / "main.c", kWarnedOld);
  writeText(t.path / "new" / "main.c", kWarnedNew);
  auto oldW = debug::unitWarnings(unitOf(t.path / "old" / "main.c"), t.path / "old", 60);
  auto newW = debug::unitWarnings(unitOf(t.path / "new" / "main.c"), t.path / "new", 60);
  REQUIRE(oldW);
  REQUIRE(newW);
  // Diffs holds references: the roots and the (absent) git diff outlive it.
  fs::path oldRoot = t.path / "old", newRoot = t.path / "new";
  std::optional<SourceDiff> noGit;
  debug::Diffs diffs(oldRoot, newRoot, noGit);
  std::vector<debug::CompilerWarning> fresh = debug::warningsNewIn(*oldW, *newW, diffs);
  // Line 8 alone: 5 is unchanged, 9 keeps its line's warning, 10 is the old line 12's.
  REQUIRE(fresh.size() == 1);
  CHECK(fresh[0].file == "main.c");
  CHECK(fresh[0].line == 8);
  CHECK(fresh[0].flag == "format");
  CHECK(fresh[0].message.find("'long'") != std::string::npos);
  // With no old warnings every warning on a changed line is new (and only those).
  std::vector<debug::CompilerWarning> all = debug::warningsNewIn({}, *newW, diffs);
  std::vector<unsigned> lines;
  for (const auto &w : all)
    lines.push_back(w.line);
  CHECK(lines == std::vector<unsigned>{8, 9, 10});
}
