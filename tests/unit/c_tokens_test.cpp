// The C lexer behind the semantic diff (include/rootline/c_tokens.h): line splices come
// first, as in the translation phases, and every fixture tokenizes as clang's own raw
// lexer does (`clang -cc1 -dump-raw-tokens`).
#include "rootline/build.h"
#include "rootline/c_tokens.h"
#include "rootline/neutral_edits.h"
#include "rootline/process.h"
#include "test_support.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>

using namespace rootline;
using namespace rootline::test;

namespace {

struct RawToken {
  std::string text;
  unsigned line = 0;
};

// clang's raw tokens of `file`: spelling with splices removed, and the line each starts
// on; whitespace is left out.
std::vector<RawToken> clangRawTokens(const fs::path &file) {
  ProcessSpec spec;
  spec.argv = {clangPath(), "-cc1", "-dump-raw-tokens", file.string()};
  spec.timeoutSeconds = 60;
  ProcessResult r = runProcess(spec);
  REQUIRE(r.exitCode == 0);
  // An entry may span lines (a spliced token's raw spelling is shown too); it ends with
  // its location.
  static const std::regex entry(R"(^(\S+) '([\s\S]*)'\t( \[[\s\S]*\])?\tLoc=<.*:(\d+):\d+>$)");
  std::vector<RawToken> out;
  std::istringstream lines(r.err);
  std::string line, pending;
  while (std::getline(lines, line)) {
    pending += pending.empty() ? line : "\n" + line;
    if (line.find("\tLoc=<") == std::string::npos)
      continue;
    std::string whole = std::move(pending);
    pending.clear();
    std::smatch m;
    if (!std::regex_match(whole, m, entry) || m[1] == "comment" || m[1] == "eof")
      continue;
    std::string text = m[2];
    if (m[1] == "unknown" && text.find_first_not_of(" \t\r\n\f\v") == std::string::npos)
      continue;
    out.push_back({text, static_cast<unsigned>(std::stoul(m[4]))});
  }
  return out;
}

std::string readAll(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Where our tokens and clang's first disagree, as "line: ours | clang's"; "" if never.
// clang places a token that follows a splice at the splice's backslash; its line is then
// one of the spliced lines before ours.
std::string firstDisagreement(const fs::path &file) {
  std::string text = readAll(file);
  std::vector<std::string> lines{""};
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    lines.push_back(l);
  auto spliced = [&](unsigned from, unsigned to) {
    for (unsigned l = from; l < to; ++l) {
      if (l >= lines.size())
        return false;
      size_t end = lines[l].find_last_not_of(" \t\r");
      if (end == std::string::npos || lines[l][end] != '\\')
        return false;
    }
    return true;
  };
  std::vector<CToken> ours = tokenizeC(text);
  std::vector<RawToken> theirs = clangRawTokens(file);
  for (size_t i = 0; i < std::max(ours.size(), theirs.size()); ++i) {
    bool same = i < ours.size() && i < theirs.size() && ours[i].text == theirs[i].text &&
                (ours[i].line == theirs[i].line ||
                 (ours[i].line > theirs[i].line && spliced(theirs[i].line, ours[i].line)));
    if (same)
      continue;
    std::string a = i < ours.size() ? std::to_string(ours[i].line) + " " + ours[i].text : "(end)";
    std::string b =
        i < theirs.size() ? std::to_string(theirs[i].line) + " " + theirs[i].text : "(end)";
    return file.string() + ": token " + std::to_string(i) + ": ours `" + a + "`, clang `" + b + "`";
  }
  return "";
}

} // namespace

TEST_CASE("a string continued with a backslash-newline is one token, lines after it keep "
          "their numbers",
          "[diff][tokens]") {
  std::string src = "static const char *usage = \"\\\n  -b  Ignored.\\n\";\n"
                    "int main (void) { int x = 1; return x; }\n";
  std::vector<CToken> t = tokenizeC(src);
  REQUIRE(t.size() > 8);
  CHECK(t[6].kind == CToken::String);
  CHECK(t[6].text == "\"  -b  Ignored.\\n\"");
  CHECK(t[6].line == 1);
  CHECK(t[7].text == ";");
  CHECK(t[7].line == 2);
  CHECK(t[8].text == "int");
  CHECK(t[8].line == 3);
  // A `//` comment spliced onto the next line hides that line too; an identifier split
  // by a splice is one identifier.
  std::vector<CToken> c = tokenizeC("// note \\\nint hidden;\nin\\\nt shown;\n");
  REQUIRE(c.size() == 3);
  CHECK(c[0].text == "int");
  CHECK(c[0].line == 3);
  CHECK(c[1].text == "shown");
  CHECK(c[1].line == 4);
}

TEST_CASE("an edit after a spliced string literal is a change, not layout", "[diff][neutral]") {
  std::string oldText =
      "#include <stdio.h>\nstatic const char *usage = \"\\\n  -b  Ignored.\\n\";\n"
      "int main (void) { int x = 1; printf (\"%d\\n\", x); return 0; }\n";
  std::string newText = oldText;
  newText.replace(newText.find("x = 1"), 5, "x = 2");
  SemanticDiff d = diffSemantically(oldText, newText);
  CHECK(d.changes.changedInNew(4));
  CHECK(d.changes.changedInOld(4));
  CHECK(d.neutralWhy(true, 4).empty());
}

TEST_CASE("where the lexer is unsure, no edit is called neutral", "[diff][neutral]") {
  CHECK(tokenizeCChecked("char *s = \"open\nint x;\n").unsure);
  CHECK(tokenizeCChecked("int x; /* never closed\n").unsure);
  CHECK_FALSE(tokenizeCChecked("char *s = \"a\\\"b\"; char c = '\\'';\n").unsure);
  // A layout-only edit in a file with an unterminated literal stays a change.
  std::string oldText = "#error it's odd\nint f(void) { return 1; }\n";
  std::string newText = "#error it's odd\nint f(void) {\n  return 1;\n}\n";
  SemanticDiff d = diffSemantically(oldText, newText);
  CHECK(d.changes.changedInNew(2));
  CHECK(d.renamedOld == oldText);
}

TEST_CASE("every fixture tokenizes as clang's raw lexer does", "[diff][tokens][sweep]") {
  fs::path tricky = fs::temp_directory_path() / "rootline_tokens_tricky.c";
  writeText(tricky, "#define CAT(a, b) a ## b\n#define STR(x) %:x\n"
                    "int a<:3:> = <% 1, 2, 3 %>;\nint $dollar = 0x1p-3 + 1e+5 + .5f;\n"
                    "const char *w = u8\"x\" \"\\\\\"; int c = L'\\'' + U'y';\n"
                    "int s = 1 \\\n  + 2; // tail \\\n still comment\n"
                    "char *t = \"a\\\n\\\nb\"; int d = a<:0:>>>=1;\n");
  std::vector<fs::path> files = {tricky};
  for (const auto &e : fs::recursive_directory_iterator(fixturesDir()))
    if (e.is_regular_file() && (e.path().extension() == ".c" || e.path().extension() == ".h"))
      files.push_back(e.path());
  REQUIRE(files.size() > 100);
  std::sort(files.begin() + 1, files.end()); // the tricky file first, always kept
  files = sampledInCI(files);
  size_t compared = 0;
  for (const auto &f : files) {
    if (tokenizeCChecked(readAll(f)).unsure)
      continue; // clang's lexer recovers its own way; the diff ranks every edit there
    INFO(f.string());
    CHECK(firstDisagreement(f) == "");
    ++compared;
  }
  CHECK(compared + 5 >= files.size());
  fs::remove(tricky);
}

TEST_CASE("real projects' sources tokenize as clang's raw lexer does", "[tokens][realworld]") {
  TempDir dir;
  size_t compared = 0;
  for (const char *name : {"mujs", "cjson"}) {
    fs::path bundle = (sourceDir() / ".." / "shared" / "realworld" / name).lexically_normal();
    bundle += ".bundle";
    REQUIRE(fs::exists(bundle)); // CI has ../shared beside the checkout
    fs::path work = dir.path / name;
    ProcessSpec spec;
    spec.argv = {"/usr/bin/git", "clone", "-q", bundle.string(), work.string()};
    spec.timeoutSeconds = 300;
    REQUIRE(runProcess(spec).exitedWith(0));
    for (const auto &e : fs::recursive_directory_iterator(work))
      if (e.is_regular_file() && (e.path().extension() == ".c" || e.path().extension() == ".h") &&
          !tokenizeCChecked(readAll(e.path())).unsure) {
        INFO(e.path().string());
        CHECK(firstDisagreement(e.path()) == "");
        ++compared;
      }
  }
  CHECK(compared > 20);
}
