// Old macro definitions put back into a revert trial's file (src/compose/old_definitions.cpp):
// the block found in the old text, and the new text with it, compiled and run by clang.
#include "compose/debug_stages.h"
#include "rootline/process.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::debug;
using namespace rootline::test;

namespace {

const char *kOld = "#include <stdio.h>\n"
                   "\n"
                   "#ifndef TAB_WIDTH\n"
                   "# define TAB_WIDTH 8\n"
                   "#endif\n"
                   "#define SPAN(a, b) \\\n"
                   "  ((b) - (a))\n"
                   "int main (void) { printf (\"%d %d\\n\", TAB_WIDTH, SPAN (2, 7)); return 0; }\n";

// The change removed both macros; the includes it added sit in #ifdef blocks, and a
// line put back to its old text uses them again.
const char *kNew = "#include <stdio.h>\n"
                   "#ifdef HAVE_UNISTD_H\n"
                   "# include <unistd.h>\n"
                   "#endif\n"
                   "\n"
                   "int main (void) { printf (\"%d %d\\n\", TAB_WIDTH, SPAN (2, 7)); return 0; }\n";

} // namespace

TEST_CASE("an old #define is found with its guard and continuation lines", "[revert]") {
  CHECK(oldMacroBlock(kOld, "TAB_WIDTH") == "#ifndef TAB_WIDTH\n# define TAB_WIDTH 8\n#endif\n");
  CHECK(oldMacroBlock(kOld, "SPAN") == "#define SPAN(a, b) \\\n  ((b) - (a))\n");
  CHECK_FALSE(oldMacroBlock(kOld, "TAB"));  // a prefix of a macro's name is not it
  CHECK_FALSE(oldMacroBlock(kOld, "main")); // a function is not a macro
}

TEST_CASE("a new text with old definitions put back after its includes builds and runs",
          "[revert]") {
  std::string blocks = *oldMacroBlock(kOld, "TAB_WIDTH") + *oldMacroBlock(kOld, "SPAN");
  std::string text = withDefinitions(kNew, blocks);
  // After the #ifdef block, not inside it: the macros are defined whatever is configured.
  CHECK(text.find("#endif\n\n#ifndef TAB_WIDTH") != std::string::npos);
  CHECK(text.find("#define SPAN(a, b) \\\n  ((b) - (a))\nint main") != std::string::npos);
  TempDir t;
  writeText(t.path / "main.c", text);
  ProcessSpec cc;
  cc.argv = {"/usr/bin/clang-19",         "-Wall", "-Werror", "-o", (t.path / "main").string(),
             (t.path / "main.c").string()};
  ProcessResult built = runProcess(cc);
  INFO(built.err);
  REQUIRE(built.exitedWith(0));
  ProcessSpec run;
  run.argv = {(t.path / "main").string()};
  ProcessResult r = runProcess(run);
  CHECK(r.out == "8 5\n");
  // The new text alone does not build: the definitions are what it lacked.
  writeText(t.path / "main.c", kNew);
  CHECK_FALSE(runProcess(cc).exitedWith(0));
}
