// C source as tokens, for comparing two versions of a file by what the compiler sees:
// comments and whitespace dropped, each token with its line. A lexer, not a parser:
// preprocessor lines are tokens like any other, and text it cannot read (a stray
// byte) becomes a one-character token, so every file tokenizes.
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

// `source` with every comment's characters replaced by spaces (line breaks kept), so
// that lines keep their numbers; strings and character constants are left alone.
std::string blankComments(const std::string &source);

// Keywords are identifiers to the lexer; a rename never touches them.
bool isCKeyword(const std::string &word);

} // namespace rootline
