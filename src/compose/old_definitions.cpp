// Macros a revert trial puts back (docs/debug.md, "Revert evidence"): a line reverted
// to its old text may use a macro the change removed or renamed (`TALLY_TAB_WIDTH`
// became a struct field), and the trial then does not build. Its old `#define`, with
// the `#ifndef` guard around it, is added after the file's leading preprocessor lines.
#include "compose/debug_stages.h"

#include <regex>

namespace rootline::debug {

namespace {

std::vector<std::string> definitionLines(const std::string &text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos)
      end = text.size();
    out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

std::string trimmed(const std::string &s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

bool continues(const std::string &line) { return !line.empty() && line.back() == '\\'; }

} // namespace

std::optional<std::string> oldMacroBlock(const std::string &oldText, const std::string &name) {
  std::vector<std::string> lines = definitionLines(oldText);
  const std::regex define("#\\s*define\\s+" + name + "\\b.*");
  const std::regex guard("#\\s*if(ndef\\s+" + name + "|\\s+!\\s*defined\\s*\\(?\\s*" + name +
                         "\\s*\\)?)\\s*");
  const std::regex endif("#\\s*endif\\b.*");
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!std::regex_match(trimmed(lines[i]), define) || (i > 0 && continues(lines[i - 1])))
      continue;
    size_t first = i, last = i;
    while (last + 1 < lines.size() && continues(lines[last]))
      ++last;
    // The guard, when the define is all it holds.
    if (first > 0 && last + 1 < lines.size() &&
        std::regex_match(trimmed(lines[first - 1]), guard) &&
        std::regex_match(trimmed(lines[last + 1]), endif))
      --first, ++last;
    std::string block;
    for (size_t k = first; k <= last; ++k)
      block += lines[k] + "\n";
    return block;
  }
  return std::nullopt;
}

std::string withDefinitions(const std::string &text, const std::string &blocks) {
  // The leading preprocessor region: blank lines and directives (with their
  // continuations), until the first other line outside every #if.
  std::vector<std::string> lines = definitionLines(text);
  int depth = 0;
  size_t at = 0;
  bool continued = false;
  for (; at < lines.size(); ++at) {
    std::string t = trimmed(lines[at]);
    if (continued) {
      continued = continues(lines[at]);
      continue;
    }
    if (t.empty())
      continue;
    if (t[0] != '#') {
      if (depth == 0)
        break;
      continue;
    }
    std::string d = trimmed(t.substr(1));
    if (d.starts_with("if"))
      ++depth;
    else if (d.starts_with("endif"))
      --depth;
    continued = continues(lines[at]);
  }
  std::string out;
  for (size_t k = 0; k < lines.size(); ++k) {
    if (k == at)
      out += blocks;
    out += lines[k] + "\n";
  }
  if (at >= lines.size())
    out += blocks;
  if (!text.empty() && text.back() != '\n' && !out.empty())
    out.pop_back();
  return out;
}

} // namespace rootline::debug
