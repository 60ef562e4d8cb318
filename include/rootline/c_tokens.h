// C source as tokens, for comparing two versions of a file by what the compiler sees:
// comments and whitespace dropped, each token with its line. A lexer, not a parser,
// in the translation phases' order: line splices (`\` + newline) are removed first, so
// a string or a `//` comment continued on the next line is one token (or none), then
// strings, character constants, comments, numbers, punctuators (digraphs spelled as
// written) and identifiers. Preprocessor lines are tokens like any other, and text it
// cannot read (a stray byte) becomes a one-character token, so every file tokenizes.
// Checked against clang's own raw lexer (`clang -cc1 -dump-raw-tokens`) in the tests.
#pragma once

#include <string>
#include <vector>

namespace rootline {

struct CToken {
  enum Kind { Identifier, Number, String, Char, Punct };
  Kind kind = Punct;
  std::string text;
  unsigned line = 0; // 1-based, where the token starts
  bool operator==(const CToken &o) const { return kind == o.kind && text == o.text; }
};

std::vector<CToken> tokenizeC(const std::string &source);

// The same, and whether the lexer met something it cannot be sure of: a string or
// character constant that does not end on its line, or a comment that never ends. A
// caller that would call an edit neutral on these tokens must not.
struct CTokens {
  std::vector<CToken> tokens;
  bool unsure = false;
};
CTokens tokenizeCChecked(const std::string &source);

// `source` with every comment's characters replaced by spaces (line breaks kept), so
// that lines keep their numbers; strings and character constants are left alone.
std::string blankComments(const std::string &source);

// Keywords are identifiers to the lexer; a rename never touches them.
bool isCKeyword(const std::string &word);

} // namespace rootline
