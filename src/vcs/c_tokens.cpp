#include "rootline/c_tokens.h"

#include <array>
#include <cctype>
#include <set>
#include <string_view>

namespace rootline {

namespace {

bool identStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
// `$` is an identifier character to clang and gcc.
bool identChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

// Longest first, so `>>=` is one token and `a+=b` reads like `a += b`. Digraphs are
// tokens as written (`<:` is not `[` to a line comparison, and is rare); `::` is one
// token, as clang lexes it in C too (C23 attributes).
constexpr std::array<std::string_view, 30> kPuncts = {
    "%:%:", "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "*=",   "/=",  "%=",  "+=",  "-=", "&=", "^=", "|=", "##", "<:", ":>", "<%", "%>", "%:", "::"};

} // namespace

bool isCKeyword(const std::string &word) {
  static const std::set<std::string> keywords = {
      "auto",          "break",    "case",     "char",     "const",     "continue",
      "default",       "do",       "double",   "else",     "enum",      "extern",
      "float",         "for",      "goto",     "if",       "inline",    "int",
      "long",          "register", "restrict", "return",   "short",     "signed",
      "sizeof",        "static",   "struct",   "switch",   "typedef",   "union",
      "unsigned",      "void",     "volatile", "while",    "_Bool",     "_Complex",
      "_Alignas",      "_Alignof", "_Atomic",  "_Generic", "_Noreturn", "_Static_assert",
      "_Thread_local", "bool",     "true",     "false",    "NULL"};
  return keywords.count(word) > 0;
}

namespace {

// Translation phase 2: the text without its line splices, and each character's line
// in the original. A backslash followed by spaces before the newline splices too, as
// clang and gcc accept it.
struct Spliced {
  std::string text;
  std::vector<unsigned> lineOf; // per character of text, 1-based
};

Spliced splice(const std::string &s) {
  Spliced out;
  out.text.reserve(s.size());
  out.lineOf.reserve(s.size() + 1);
  unsigned line = 1;
  for (size_t i = 0, n = s.size(); i < n; ++i) {
    if (s[i] == '\\') {
      size_t j = i + 1;
      while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r'))
        ++j;
      if (j < n && s[j] == '\n') {
        ++line;
        i = j;
        continue;
      }
    }
    out.text.push_back(s[i]);
    out.lineOf.push_back(line);
    if (s[i] == '\n')
      ++line;
  }
  out.lineOf.push_back(line); // the end of the text
  return out;
}

} // namespace

CTokens tokenizeCChecked(const std::string &source) {
  const Spliced sp = splice(source);
  const std::string &s = sp.text;
  CTokens result;
  std::vector<CToken> &out = result.tokens;
  size_t i = 0, n = s.size();
  auto push = [&](CToken::Kind kind, size_t start, size_t end) {
    CToken t;
    t.kind = kind;
    t.text = s.substr(start, end - start);
    t.line = sp.lineOf[start];
    out.push_back(std::move(t));
    i = end;
  };
  while (i < n) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      size_t end = s.find('\n', i);
      i = end == std::string::npos ? n : end;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      if (end == std::string::npos)
        result.unsure = true;
      i = end == std::string::npos ? n : end + 2;
      continue;
    }
    size_t start = i;
    if (identStart(c)) {
      size_t j = i;
      while (j < n && identChar(s[j]))
        ++j;
      // L"..", u8'..': a prefixed literal is one token.
      std::string_view p(s.data() + i, j - i);
      bool prefix = p == "L" || p == "u" || p == "U" || p == "u8";
      if (!(prefix && j < n && (s[j] == '"' || s[j] == '\''))) {
        push(CToken::Identifier, start, j);
        continue;
      }
      c = s[j];
      i = j;
    }
    if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < n && s[j] != c && s[j] != '\n')
        j += s[j] == '\\' ? 2 : 1;
      if (j >= n || s[j] != c)
        result.unsure = true; // not closed on its line
      j = std::min(n, j + 1);
      if (j > 0 && s[j - 1] == '\n')
        --j; // the line break is not part of it
      push(c == '"' ? CToken::String : CToken::Char, start, j);
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      // A preprocessing number: digits, letters, dots and signed exponents.
      size_t j = i + 1;
      while (j < n && (identChar(s[j]) || s[j] == '.' ||
                       ((s[j] == '+' || s[j] == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E' ||
                                                         s[j - 1] == 'p' || s[j - 1] == 'P'))))
        ++j;
      push(CToken::Number, start, j);
      continue;
    }
    size_t len = 1;
    for (std::string_view p : kPuncts)
      if (s.compare(i, p.size(), p) == 0) {
        len = p.size();
        break;
      }
    push(CToken::Punct, start, i + len);
  }
  return result;
}

std::vector<CToken> tokenizeC(const std::string &source) { return tokenizeCChecked(source).tokens; }

std::string blankComments(const std::string &source) {
  std::string out = source;
  size_t i = 0, n = source.size();
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < n; ++k)
      if (out[k] != '\n')
        out[k] = ' ';
  };
  while (i < n) {
    char c = source[i];
    if (c == '"' || c == '\'') { // a literal: skip to its end (escapes, or the line's end)
      size_t k = i + 1;
      while (k < n && source[k] != c && source[k] != '\n')
        k += source[k] == '\\' ? 2 : 1;
      i = k + 1;
    } else if (c == '/' && i + 1 < n && source[i + 1] == '*') {
      size_t end = source.find("*/", i + 2);
      end = end == std::string::npos ? n : end + 2;
      blank(i, end);
      i = end;
    } else if (c == '/' && i + 1 < n && source[i + 1] == '/') {
      size_t end = source.find('\n', i);
      while (end != std::string::npos && end > 0 && source[end - 1] == '\\')
        end = source.find('\n', end + 1); // a spliced line comment goes on
      end = end == std::string::npos ? n : end;
      blank(i, end);
      i = end;
    } else {
      ++i;
    }
  }
  return out;
}

} // namespace rootline
