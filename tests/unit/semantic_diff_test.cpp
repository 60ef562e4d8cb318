// The semantic diff (docs/debug.md, "Neutral edits"): layout, comments and consistent
// renames are discounted, changes of which variable is used are not, and hunks mix
// back into a file either way.
#include "rootline/c_tokens.h"
#include "rootline/hunk_patch.h"
#include "rootline/neutral_edits.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace rootline;

namespace {

std::vector<unsigned> changedNewLines(const SemanticDiff &d, unsigned upTo) {
  std::vector<unsigned> out;
  for (unsigned l = 1; l <= upTo; ++l)
    if (d.changes.changedInNew(l))
      out.push_back(l);
  return out;
}

} // namespace

TEST_CASE("C tokens ignore comments and layout and keep lines", "[diff][tokens]") {
  auto a = tokenizeC("int x/*c*/=y+=2; // end\n\"s//\" 'c'\n");
  auto b = tokenizeC("int x = y += 2;\n\"s//\"\n'c'");
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i)
    CHECK(a[i] == b[i]);
  CHECK(a[4].text == "+=");
  CHECK(a[7].kind == CToken::String);
  CHECK(a[7].line == 2);
  CHECK(b[8].line == 3);
}

TEST_CASE("reformatting and comments change nothing", "[diff][neutral]") {
  std::string oldText = "int f(int a) {\n  if (a > 1) return a * 2;\n  return 0;\n}\n";
  std::string newText = "/* doubles big values */\nint f(int a)\n{\n  if (a > 1)\n"
                        "    return a * 2; // twice\n  return 0;\n}\n";
  SemanticDiff d = diffSemantically(oldText, newText);
  CHECK_FALSE(d.raw.hunks.empty());
  CHECK(changedNewLines(d, 7).empty());
  CHECK(d.neutralWhy(true, 1) == "whitespace or comments only");
  CHECK(d.neutralWhy(true, 5) == "whitespace or comments only");
}

TEST_CASE("a consistent rename in one function is neutral, the change beside it is not",
          "[diff][neutral]") {
  std::string oldText = "int sum(int *a, int n) {\n  int i, s = 0;\n  for (i = 0; i < n; i++)\n"
                        "    s += a[i];\n  return s;\n}\n"
                        "int g(int i) { return i + 1; }\n";
  std::string newText = "int sum(int *a, int n) {\n  int idx, s = 0;\n"
                        "  for (idx = 0; idx < n; idx++)\n    s -= a[idx];\n  return s;\n}\n"
                        "int g(int i) { return i + 1; }\n";
  SemanticDiff d = diffSemantically(oldText, newText);
  REQUIRE(d.renames.size() == 1);
  CHECK(d.renames[0].from == "i");
  CHECK(d.renames[0].to == "idx");
  CHECK(d.renames[0].oldLast == 6); // sum() only: g keeps its own i
  CHECK(changedNewLines(d, 7) == std::vector<unsigned>{4});
  CHECK(d.neutralWhy(true, 3) == "rename of `i` to `idx`");
  // The old text read with the new names: reverting line 4 keeps the rename.
  CHECK(d.renamedOld.find("for (idx = 0; idx < n; idx++)") != std::string::npos);
  CHECK(d.renamedOld.find("int g(int i) { return i + 1; }") != std::string::npos);
}

TEST_CASE("a rename whose change also drops a use is found by its lines", "[diff][neutral]") {
  std::string oldText = "void f(void) {\n  int top = 0;\n  top++;\n  g(top);\n  top--;\n}\n";
  std::string newText = "void f(void) {\n  int sp = 0;\n  sp++;\n  g(sp);\n}\n";
  SemanticDiff d = diffSemantically(oldText, newText);
  REQUIRE(d.renames.size() == 1);
  CHECK(d.renames[0].to == "sp");
  CHECK(changedNewLines(d, 5).empty());
  CHECK(d.changes.changedInOld(5)); // the dropped `top--` is the change
}

TEST_CASE("using another existing variable, or a global, is a change, not a rename",
          "[diff][neutral]") {
  std::string oldText = "int k;\nint f(int *a) {\n  int i = 1, j = 2;\n  return a[i] + j;\n}\n";
  SemanticDiff other = diffSemantically(
      oldText, "int k;\nint f(int *a) {\n  int i = 1, j = 2;\n  return a[j] + j;\n}\n");
  CHECK(other.renames.empty());
  CHECK(changedNewLines(other, 5) == std::vector<unsigned>{4});
  SemanticDiff global =
      diffSemantically("int k;\nint f(int *a) {\n  int i = 1;\n  return a[i];\n}\n",
                       "int k;\nint f(int *a) {\n  int i = 1;\n  return a[k];\n}\n");
  CHECK(global.renames.empty());
  CHECK(changedNewLines(global, 5) == std::vector<unsigned>{4});
}

// diffstat's decode_range was rewritten: its `rc` and the new `ch` are used 4 times each.
TEST_CASE("a function rewritten with a new name used as often as an old one is no rename when "
          "no line reads the same with it",
          "[diff][neutral]") {
  std::string oldText = "int decode(const char *s, int *first) {\n"
                        "  int rc = 0;\n"
                        "  if (sscanf(s, \"%d\", first) == 1)\n"
                        "    rc = 1;\n"
                        "  else if (*s == 0)\n"
                        "    rc = 1;\n"
                        "  return rc;\n"
                        "}\n";
  std::string newText = "int decode(const char *s, int *first) {\n"
                        "  int ch = *s;\n"
                        "  if (ch >= '0' && ch <= '9')\n"
                        "    *first = ch - '0';\n"
                        "  ++s;\n"
                        "  return 1;\n"
                        "}\n";
  SemanticDiff d = diffSemantically(oldText, newText);
  CHECK(d.renames.empty());
  for (unsigned l = 2; l <= 6; ++l)
    CHECK(d.neutralWhy(true, l).empty());
  CHECK(changedNewLines(d, 7) == std::vector<unsigned>{2, 3, 4, 5, 6});
}

TEST_CASE("a function moved out of the file while new code comes in is no rename, however "
          "often the names are used",
          "[diff][neutral]") {
  // `load` (and its `fp`, used twice) leaves for another file; a new option's `width`
  // comes in, used twice too. Equal counts, but no line with `fp` reads as a new line
  // with `width`.
  std::string oldText = "#include <stdio.h>\n"
                        "static int load(const char *name) {\n"
                        "  FILE *fp = fopen(name, \"r\");\n"
                        "  return fp != NULL;\n"
                        "}\n"
                        "int main(int argc, char **argv) { return load(argv[1]); }\n";
  std::string newText = "#include <stdio.h>\n"
                        "int load(const char *name, unsigned width);\n"
                        "int main(int argc, char **argv) {\n"
                        "  unsigned width = 8;\n"
                        "  return load(argv[1], width);\n"
                        "}\n";
  SemanticDiff d = diffSemantically(oldText, newText);
  for (const auto &r : d.renames)
    CHECK(r.from != "fp");
  CHECK(d.changes.changedInNew(4));
  CHECK(d.neutralWhy(true, 4).empty());
}

TEST_CASE("a changed line's replacement is the code line most like it, not a new comment",
          "[diff][neutral]") {
  SemanticDiff d =
      diffSemantically("int f(int n) {\n  for (int d = 2; d * d <= n; d++)\n"
                       "    n--;\n  return n;\n}\n",
                       "int f(int n) {\n  /* up to the root */\n"
                       "  for (int d = 2; d * d < n; d++)\n    n--;\n  return n;\n}\n");
  CHECK(d.replacementOf(2) == 3u);
}

TEST_CASE("hunks mix back into a file from either side", "[diff][patch]") {
  std::string oldText = "a\nb\nc\nd\ne\nf";
  std::string newText = "x\na\nB\nc\ne\ny\nf";
  TextDiff d = diffTexts(oldText, newText);
  REQUIRE(d.hunks.size() >= 3);
  std::vector<bool> allNew(d.hunks.size(), true), allOld(d.hunks.size(), false);
  CHECK(mixVersions(oldText, newText, d, allNew) == newText);
  CHECK(mixVersions(oldText, newText, d, allOld) == oldText);
  for (size_t h = 0; h < d.hunks.size(); ++h) {
    std::vector<bool> one = allNew;
    one[h] = false;
    std::string mixed = mixVersions(oldText, newText, d, one);
    // Reverting one hunk gives a text between the two: diffing it against the new text
    // shows exactly that one hunk.
    CHECK(diffTexts(mixed, newText).hunks.size() == 1);
  }
}

TEST_CASE("comments blanked keep every line and leave literals alone", "[diff]") {
  std::string src =
      "int a; /* one\n two */ int b; // tail\nchar *s = \"/* not */\"; char c = '/';\n";
  std::string out = blankComments(src);
  CHECK(out.size() == src.size());
  CHECK(std::count(out.begin(), out.end(), '\n') == 3);
  CHECK(out.find("one") == std::string::npos);
  CHECK(out.find("tail") == std::string::npos);
  CHECK(out.find("int b;") != std::string::npos);
  CHECK(out.find("\"/* not */\"") != std::string::npos);
  CHECK(out.find("'/'") != std::string::npos);
}

TEST_CASE("a function renamed in its header, its definition and every caller is a rename in "
          "each file, and a call switched to another function is not",
          "[diff][neutral]") {
  std::string hOld = "int put_all(const char *s);\nint put_one(char c);\n";
  std::string hNew = "int write_all(const char *s);\nint put_one(char c);\n";
  std::string defOld = "#include \"out.h\"\nint put_all(const char *s) {\n  while (*s)\n"
                       "    put_one(*s++);\n  return 0;\n}\n";
  std::string defNew = "#include \"out.h\"\nint write_all(const char *s) {\n  while (*s)\n"
                       "    put_one(*s++);\n  return 0;\n}\n";
  std::string useOld = "#include \"out.h\"\nint main(void) {\n  put_all(\"a\");\n"
                       "  return put_all(\"b\");\n}\n";
  std::string useNew = "#include \"out.h\"\nint main(void) {\n  write_all(\"a\");\n"
                       "  return write_all(\"b\");\n}\n";
  auto renames = programRenames({{hOld, hNew}, {defOld, defNew}, {useOld, useNew}});
  CHECK(renames == std::map<std::string, std::string>{{"put_all", "write_all"}});
  // Alone, the caller cannot tell the rename from a call to another function.
  CHECK(changedNewLines(diffSemantically(useOld, useNew), 5) == std::vector<unsigned>{3, 4});
  CHECK(changedNewLines(diffSemantically(useOld, useNew, renames), 5).empty());
  // A caller that now calls an existing function instead: no program rename.
  std::string otherNew = "#include \"out.h\"\nint main(void) {\n  put_one('a');\n"
                         "  return put_all(\"b\");\n}\n";
  CHECK(programRenames({{hOld, hNew}, {defOld, defNew}, {useOld, otherNew}}).empty());
  // One caller renames, another keeps the old name: no rename.
  CHECK(
      programRenames({{hOld, hNew}, {defOld, defNew}, {useOld, useNew}, {useOld, useOld}}).empty());
}

TEST_CASE("two functions renamed in one header, each declared once, are told apart by their "
          "lines",
          "[diff][neutral]") {
  std::string hOld = "int put_all(const char *s);\nvoid flush_all(int fd);\n";
  std::string hNew = "int write_all(const char *s);\nvoid sync_all(int fd);\n";
  std::string cOld = "#include \"out.h\"\nint main(void) {\n  put_all(\"a\");\n  flush_all(1);\n"
                     "  return 0;\n}\n";
  std::string cNew = "#include \"out.h\"\nint main(void) {\n  write_all(\"a\");\n  sync_all(1);\n"
                     "  return 0;\n}\n";
  auto renames = programRenames({{hOld, hNew}, {cOld, cNew}});
  CHECK(renames ==
        std::map<std::string, std::string>{{"flush_all", "sync_all"}, {"put_all", "write_all"}});
  CHECK(changedNewLines(diffSemantically(hOld, hNew, renames), 2).empty());
  CHECK(changedNewLines(diffSemantically(cOld, cNew, renames), 6).empty());
}
