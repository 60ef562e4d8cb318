// One-token edits of a changed line (src/compose/token_edits.cpp).
#include "compose/token_edits.h"

#include "rootline/c_tokens.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::debug;

namespace {

std::string edits(const std::string &line) {
  std::string out;
  for (const TokenEdit &e : tokenEditsOf(line))
    out += std::to_string(e.column) + ":" + e.from + ">" + e.to + " ";
  return out;
}

} // namespace

TEST_CASE("a line's one-token edits swap each relational, logical and increment operator, "
          "conditions first, literals last",
          "[unittest][edits]") {
  CHECK(edits("  if (level-- == (int) r->it_cnt)") == "14:==>!= 11:-->++ ");
  CHECK(edits("for (i = 0; i < n && a[i] != 0; ++i) {") ==
        "14:<><= 18:&&>|| 26:!=>== 32:++>-- 9:0>1 29:0>1 ");
  CHECK(edits("if (a >= b || c > d)") == "6:>=>> 11:||>&& 16:>>>= ");
  // `->`, `<<`, `>>=`, `-=` and unary `!` are tokens of their own: only the literals.
  CHECK(edits("x = p->n << 2; y >>= 1; z -= !w;") == "12:2>1 12:2>3 21:1>0 21:1>2 ");
  // An operator inside a string or a character constant is not an operator.
  CHECK(edits("puts(\"a == b\"); c = '<';") == "");
  // Preprocessor lines and a line that continues a string from the line before.
  CHECK(edits("#include <stdio.h>") == "");
  CHECK(edits("#if A == 1") == "");
  CHECK(edits("  -b == c\\n\";") == "");
}

TEST_CASE("a decimal literal is edited one less, then one more, keeping its suffix, and "
          "hex, octal, floating and large literals are not",
          "[unittest][edits]") {
  CHECK(edits("  for (i = 1; i < n - 1; i++)") == "16:<><= 26:++>-- 11:1>0 11:1>2 22:1>0 22:1>2 ");
  CHECK(edits("  x = 0;") == "6:0>1 ");
  CHECK(edits("  n = 10u + 7UL;") == "6:10u>9u 6:10u>11u 12:7UL>6UL 12:7UL>8UL ");
  CHECK(edits("  m = 0x10 | 017 | 1.5 | 2e3 | 4096000;") == "");
  CHECK(edits("  s = \"12\"; c = '1';") == "");
  CHECK(edits("#define N 10") == "");
}

TEST_CASE("an edit applies to its line and column only, and not where the text differs",
          "[unittest][edits]") {
  std::string text = "int f(int a) {\n  if (a == 1)\n    return a == 2;\n  return 0;\n}\n";
  std::vector<TokenEdit> e = tokenEditsOf("  if (a == 1)");
  REQUIRE(e.size() == 3); // `==`, then the literal one less and one more
  CHECK(withTokenEdit(text, 2, e[0]) ==
        "int f(int a) {\n  if (a != 1)\n    return a == 2;\n  return 0;\n}\n");
  CHECK(withTokenEdit(text, 3, e[0]) == text); // line 3 has no `==` at that column
  CHECK(withTokenEdit(text, 9, e[0]) == text); // past the end
  CHECK(withTokenEdit(text, 2, e[1]) ==
        "int f(int a) {\n  if (a == 0)\n    return a == 2;\n  return 0;\n}\n");
  // Columns are those of the comment-blanked line, which keeps every byte's place.
  std::string commented = "/* a < b */ if (a < b) x++;\n";
  std::vector<TokenEdit> c = tokenEditsOf(blankComments(commented));
  REQUIRE(c.size() == 2);
  CHECK(withTokenEdit(commented, 1, c[0]) == "/* a < b */ if (a <= b) x++;\n");
  CHECK(withTokenEdit(commented, 1, c[1]) == "/* a < b */ if (a < b) x--;\n");
}

TEST_CASE("a line that opens a control statement without its body is told from a whole "
          "statement",
          "[debug][revert]") {
  CHECK(debug::opensControlStatement("  if (cut && len > width)\n"));
  CHECK(debug::opensControlStatement("    for (i = 0; i < n; i++)\n"));
  CHECK(debug::opensControlStatement("  } else {\n"));
  CHECK(debug::opensControlStatement("  else\n"));
  CHECK(debug::opensControlStatement("  while (*p) {\n"));
  CHECK(debug::opensControlStatement("  do\n"));
  CHECK_FALSE(debug::opensControlStatement("  if (n > 0) n--;\n"));
  CHECK_FALSE(debug::opensControlStatement("  } while (p);\n"));
  CHECK_FALSE(debug::opensControlStatement("  len = width;\n"));
  CHECK_FALSE(debug::opensControlStatement("#if defined(X)\n"));
  CHECK_FALSE(debug::opensControlStatement("  iffy(x)\n")); // a name, not the keyword
  CHECK_FALSE(debug::opensControlStatement("\n"));
}
