#include "rootline/hunk_patch.h"

#include "rootline/error.h"

namespace rootline {

std::string mixVersions(const std::string &oldText, const std::string &newText,
                        const TextDiff &diff, const std::vector<bool> &takeNew) {
  std::vector<std::string> oldLines = splitLinesKeepingEnds(oldText),
                           newLines = splitLinesKeepingEnds(newText);
  std::string out;
  out.reserve(std::max(oldText.size(), newText.size()));
  // Emits new lines [from, to) (1-based), refusing a range the diff does not fit.
  auto emit = [&](const std::vector<std::string> &lines, size_t from, size_t to) {
    if (from < 1 || to < from || to - 1 > lines.size())
      throw Error("the diff does not match the file it was computed on", ExitInternal);
    for (size_t l = from; l < to; ++l)
      out += lines[l - 1];
  };
  size_t next = 1; // the next common line, numbered on the new side
  for (size_t h = 0; h < diff.hunks.size(); ++h) {
    const DiffHunk &hunk = diff.hunks[h];
    // A side with no lines names the line before the gap (git's convention).
    size_t newAt = hunk.newLines ? hunk.newStart : hunk.newStart + 1;
    size_t oldAt = hunk.oldLines ? hunk.oldStart : hunk.oldStart + 1;
    emit(newLines, next, newAt);
    if (h < takeNew.size() && takeNew[h])
      emit(newLines, newAt, newAt + hunk.newLines);
    else
      emit(oldLines, oldAt, oldAt + hunk.oldLines);
    next = newAt + hunk.newLines;
  }
  emit(newLines, next, newLines.size() + 1);
  return out;
}

} // namespace rootline
