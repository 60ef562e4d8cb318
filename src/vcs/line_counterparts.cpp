// Old lines to new lines through the semantic diff's tokens
// (include/rootline/neutral_edits.h).
#include "rootline/neutral_edits.h"

#include <map>
#include <sstream>

namespace rootline {

namespace {

// A hunk larger than this (old tokens × new tokens) keeps only what the line map says.
constexpr size_t kMaxCells = 4'000'000;

struct Token {
  std::string text;
  unsigned line = 0;
};

std::vector<Token> tokensOf(const std::vector<std::string> &lines, unsigned first, unsigned count) {
  std::vector<Token> out;
  for (unsigned l = first; l < first + count && l < lines.size(); ++l) {
    std::istringstream in(lines[l]);
    for (std::string t; in >> t;)
      out.push_back({t, l});
  }
  return out;
}

void matchHunk(const SemanticDiff &d, const DiffHunk &h, std::vector<unsigned> &out) {
  std::vector<Token> a = tokensOf(d.renamedLineTokens, h.oldStart, h.oldLines);
  std::vector<Token> b = tokensOf(d.newLineTokens, h.newStart, h.newLines);
  if (a.empty() || b.empty() || a.size() * b.size() > kMaxCells)
    return;
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  size_t n = a.size(), m = b.size();
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t & { return lcs[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      at(i, j) =
          a[i].text == b[j].text ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  std::map<unsigned, std::map<unsigned, unsigned>> votes; // old line -> new line -> tokens
  for (size_t i = 0, j = 0; i < n && j < m;) {
    if (a[i].text == b[j].text) {
      ++votes[a[i].line][b[j].line];
      ++i, ++j;
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      ++i;
    } else {
      ++j;
    }
  }
  for (const auto &[oldLine, byNew] : votes) {
    unsigned best = 0, bestVotes = 0;
    for (const auto &[newLine, count] : byNew)
      if (count >= bestVotes)
        best = newLine, bestVotes = count;
    if (oldLine < out.size())
      out[oldLine] = best;
  }
}

} // namespace

std::vector<unsigned> lineCounterparts(const SemanticDiff &d) {
  size_t oldCount = d.renamedLineTokens.empty() ? 0 : d.renamedLineTokens.size() - 1;
  std::vector<unsigned> out(oldCount + 1, 0);
  for (unsigned l = 1; l <= oldCount; ++l)
    if (auto n = d.raw.newLineOf(l))
      out[l] = *n;
  for (const DiffHunk &h : d.raw.hunks)
    matchHunk(d, h, out);
  return out;
}

} // namespace rootline
