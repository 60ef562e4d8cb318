// One-token edits of a changed line (token_edits.h).
#include "compose/token_edits.h"

#include "rootline/c_tokens.h"

#include <algorithm>
#include <map>
#include <set>

namespace rootline::debug {

namespace {

// Each operator and the edit tried for it, with its rank: the conditions' operators
// first, then increments.
const std::map<std::string, std::pair<std::string, int>> &swaps() {
  static const std::map<std::string, std::pair<std::string, int>> table = {
      {"==", {"!=", 0}}, {"!=", {"==", 0}}, {"<", {"<=", 0}},  {"<=", {"<", 0}},
      {">", {">=", 0}},  {">=", {">", 0}},  {"&&", {"||", 0}}, {"||", {"&&", 0}},
      {"++", {"--", 1}}, {"--", {"++", 1}}};
  return table;
}

constexpr int kLiteralRank = 2; // after the operators
// Literals past this are sizes and masks, not counts or bounds one off.
constexpr unsigned long long kMaxEditedLiteral = 1000000;

// A decimal integer literal's edits, one less first, then one more ("0" only one more;
// hex, octal and floating literals none): the off-by-one of a bound, an index or a
// start value. Its suffix (`u`, `l`) is kept.
std::vector<std::string> literalEdits(const std::string &text) {
  size_t digits = text.find_first_not_of("0123456789");
  std::string number = text.substr(0, digits),
              suffix = digits == std::string::npos ? "" : text.substr(digits);
  if (number.empty() || (number.size() > 1 && number[0] == '0') || number.size() > 7 ||
      suffix.find_first_not_of("uUlL") != std::string::npos)
    return {};
  unsigned long long v = std::stoull(number);
  if (v > kMaxEditedLiteral)
    return {};
  std::vector<std::string> out;
  if (v > 0)
    out.push_back(std::to_string(v - 1) + suffix);
  out.push_back(std::to_string(v + 1) + suffix);
  return out;
}

} // namespace

std::vector<TokenEdit> tokenEditsOf(const std::string &line) {
  CTokens lexed = tokenizeCChecked(line);
  const std::vector<CToken> &tokens = lexed.tokens;
  if (lexed.unsure || tokens.empty() || tokens.front().text == "#" || tokens.front().text == "%:")
    return {};
  std::vector<std::pair<int, TokenEdit>> edits;
  size_t at = 0;
  for (const CToken &t : tokens) {
    size_t found = line.find(t.text, at);
    // Only blanks may lie between tokens; anything else means the line is not read as
    // written (a literal that began on another line).
    if (found == std::string::npos || line.find_first_not_of(" \t\r\n\f\v", at) != found)
      return {};
    at = found + t.text.size();
    if (t.kind == CToken::Number)
      for (std::string &to : literalEdits(t.text))
        edits.push_back({kLiteralRank, TokenEdit{found, t.text, std::move(to), true}});
    if (t.kind != CToken::Punct)
      continue;
    auto it = swaps().find(t.text);
    if (it != swaps().end())
      edits.push_back({it->second.second, TokenEdit{found, t.text, it->second.first}});
  }
  std::stable_sort(edits.begin(), edits.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<TokenEdit> out;
  for (auto &[kind, e] : edits)
    out.push_back(std::move(e));
  return out;
}

std::string withTokenEdit(const std::string &text, unsigned line, const TokenEdit &edit) {
  size_t start = 0;
  for (unsigned l = 1; l < line; ++l) {
    start = text.find('\n', start);
    if (start == std::string::npos)
      return text;
    ++start;
  }
  size_t end = text.find('\n', start);
  size_t length = (end == std::string::npos ? text.size() : end) - start;
  if (edit.column + edit.from.size() > length ||
      text.compare(start + edit.column, edit.from.size(), edit.from) != 0)
    return text;
  std::string out = text;
  out.replace(start + edit.column, edit.from.size(), edit.to);
  return out;
}

bool opensControlStatement(const std::string &line) {
  std::vector<CToken> tokens = tokenizeC(line);
  if (tokens.empty() || tokens.front().text == "#")
    return false;
  size_t first = tokens.front().text == "}" ? 1 : 0; // `} else {`
  static const std::set<std::string> kOpeners = {"if", "else", "for", "while", "switch", "do"};
  if (first >= tokens.size() || tokens[first].kind != CToken::Identifier ||
      !kOpeners.count(tokens[first].text))
    return false;
  return tokens.back().text != ";";
}

} // namespace rootline::debug
