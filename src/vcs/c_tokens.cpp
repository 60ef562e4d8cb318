#include "rootline/c_tokens.h"

#include <array>
#include <cctype>
#include <set>
#include <string_view>

namespace rootline {

namespace {

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Longest first, so `>>=` is one token and `a+=b` reads like `a += b`.
constexpr std::array<std::string_view, 23> kPuncts = {
    "%:%:", "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
    "!=",   "&&",  "||",  "*=",  "/=", "%=", "+=", "-=", "&=", "^=", "|="};

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

std::vector<CToken> tokenizeC(const std::string &s) {
  std::vector<CToken> out;
  unsigned line = 1;
  size_t i = 0, n = s.size();
  auto advance = [&](size_t to) {
    for (; i < to && i < n; ++i)
      if (s[i] == '\n')
        ++line;
  };
  while (i < n) {
    char c = s[i];
    if (c == '\n' || std::isspace(static_cast<unsigned char>(c))) {
      advance(i + 1);
      continue;
    }
    if (c == '\\' && i + 1 < n && s[i + 1] == '\n') { // line splice
      advance(i + 2);
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      size_t end = s.find('\n', i);
      advance(end == std::string::npos ? n : end);
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      advance(end == std::string::npos ? n : end + 2);
      continue;
    }
    CToken t;
    t.line = line;
    size_t start = i;
    if (identStart(c)) {
      size_t j = i;
      while (j < n && identChar(s[j]))
        ++j;
      // L"..", u8'..': a prefixed literal is one token.
      if (j < n && (s[j] == '"' || s[j] == '\'') && j - i <= 2) {
        std::string_view p(s.data() + i, j - i);
        if (p == "L" || p == "u" || p == "U" || p == "u8") {
          i = j;
          c = s[j];
        }
      }
      if (i == start) {
        t.kind = CToken::Identifier;
        t.text = s.substr(start, j - start);
        advance(j);
        out.push_back(std::move(t));
        continue;
      }
    }
    if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < n && s[j] != c && s[j] != '\n')
        j += s[j] == '\\' ? 2 : 1;
      j = std::min(n, j + 1);
      t.kind = c == '"' ? CToken::String : CToken::Char;
      t.text = s.substr(start, j - start);
      advance(j);
      out.push_back(std::move(t));
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
      t.kind = CToken::Number;
      t.text = s.substr(i, j - i);
      advance(j);
      out.push_back(std::move(t));
      continue;
    }
    t.kind = CToken::Punct;
    size_t len = 1;
    for (std::string_view p : kPuncts)
      if (s.compare(i, p.size(), p) == 0) {
        len = p.size();
        break;
      }
    t.text = s.substr(i, len);
    advance(i + len);
    out.push_back(std::move(t));
  }
  return out;
}

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
