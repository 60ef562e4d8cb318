// Line diff of two texts (libgit2's diff on buffers): changed line ranges on each
// side, and a map from new line numbers to old ones where lines are unchanged.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rootline {

struct DiffHunk {
  unsigned oldStart = 0, oldLines = 0; // 1-based; oldLines == 0 for a pure insertion
  unsigned newStart = 0, newLines = 0;
  bool neutral = false; // only line breaks moved: no line counts as changed
};

struct TextDiff {
  std::vector<DiffHunk> hunks;
  bool changedInOld(unsigned line) const;
  bool changedInNew(unsigned line) const;
  // The matching line on the other side, when the line is outside every hunk.
  std::optional<unsigned> oldLineOf(unsigned newLine) const;
  std::optional<unsigned> newLineOf(unsigned oldLine) const;
  // For a changed old line whose hunk has new lines too (a modification, not a pure
  // deletion): the new line in the same position of the hunk (the last when the new
  // side is shorter).
  std::optional<unsigned> replacementOf(unsigned oldLine) const;
};

TextDiff diffTexts(const std::string &oldText, const std::string &newText);

// The lines of a text with their line ends, so joining them gives the text back.
std::vector<std::string> splitLinesKeepingEnds(const std::string &text);

} // namespace rootline
