// Text the change edited, as words: what tells a process that prints the version's own
// text (a version string, a date) from one whose computation differs.
#include "rootline/project.h"
#include "rootline/tree_compare.h"

#include <algorithm>
#include <map>

namespace rootline {

namespace {

// Files that hold a version's text: sources and headers (config.h is generated), and the
// configuration a build generates them from.
const std::set<std::string> kTextExtensions = {".c", ".h", ".y", ".l", ".in", ".ac", ".am", ".mk"};
const char *const kTextNames[] = {"Makefile", "configure", "VERSION", ".tarball-version",
                                  ".version"};
constexpr size_t kMaxTreeEntries = 200000;
constexpr size_t kMaxFileBytes = 4 << 20;

// A line's words: runs between blanks, quotes and the punctuation that separates a
// version string from its surroundings ("\"GNU indent 2.0-20200205\";" → GNU, indent,
// 2.0-20200205). Dots, dashes and slashes stay inside a word.
std::vector<std::string> wordsOf(const std::string &line) {
  static const std::string kSeparators = " \t\r\"'`(),;:<>[]{}=";
  std::vector<std::string> out;
  std::string word;
  for (char c : line) {
    if (kSeparators.find(c) == std::string::npos) {
      word += c;
      continue;
    }
    if (!word.empty())
      out.push_back(std::move(word));
    word.clear();
  }
  if (!word.empty())
    out.push_back(std::move(word));
  return out;
}

std::vector<std::string> linesOf(const std::string &text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The words of the lines only one side has (a line moved stays out).
void addEditedLines(const std::string &oldText, const std::string &newText, EditedText &out) {
  std::vector<std::string> oldLines = linesOf(oldText), newLines = linesOf(newText);
  std::set<std::string> oldSet(oldLines.begin(), oldLines.end());
  std::set<std::string> newSet(newLines.begin(), newLines.end());
  for (const std::string &l : oldLines)
    if (!newSet.count(l))
      for (std::string &w : wordsOf(l))
        out.removed.insert(std::move(w));
  for (const std::string &l : newLines)
    if (!oldSet.count(l))
      for (std::string &w : wordsOf(l))
        out.added.insert(std::move(w));
}

// The words one line has and the other lacks, counted (a word twice in one and once in
// the other is once in the difference).
std::vector<std::string> onlyIn(const std::vector<std::string> &a,
                                const std::vector<std::string> &b) {
  std::map<std::string, int> count;
  for (const std::string &w : b)
    ++count[w];
  std::vector<std::string> out;
  for (const std::string &w : a)
    if (count[w]-- <= 0)
      out.push_back(w);
  return out;
}

// A version string or a date, not a count: a digit, and three characters at least.
bool versionLike(const std::string &w) {
  return w.size() >= 3 &&
         std::any_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace

EditedText editedText(const fs::path &oldTree, const fs::path &newTree) {
  EditedText out;
  auto add = [&](const std::string &rel) {
    std::error_code ec;
    if (fs::file_size(oldTree / rel, ec) > kMaxFileBytes || ec ||
        fs::file_size(newTree / rel, ec) > kMaxFileBytes || ec)
      return;
    addEditedLines(readFile(oldTree / rel), readFile(newTree / rel), out);
  };
  for (const std::string &rel :
       changedTreeFiles(oldTree, newTree, kTextExtensions, kMaxTreeEntries))
    add(rel);
  for (const char *name : kTextNames) {
    std::error_code ec;
    if (fs::is_regular_file(oldTree / name, ec) && fs::is_regular_file(newTree / name, ec))
      add(name);
  }
  return out;
}

std::vector<std::string> editedTextOnly(const std::string &oldText, const std::string &newText,
                                        const EditedText &edited) {
  std::vector<std::string> oldLines = linesOf(oldText), newLines = linesOf(newText);
  if (oldText == newText || oldLines.size() != newLines.size())
    return {};
  std::vector<std::string> pairs;
  for (size_t i = 0; i < oldLines.size(); ++i) {
    if (oldLines[i] == newLines[i])
      continue;
    std::vector<std::string> oldWords = wordsOf(oldLines[i]), newWords = wordsOf(newLines[i]);
    std::vector<std::string> gone = onlyIn(oldWords, newWords), come = onlyIn(newWords, oldWords);
    // The lines must differ in their words, not in their separators alone.
    if (gone.empty() || come.empty() || gone.size() != come.size())
      return {};
    for (size_t k = 0; k < gone.size(); ++k) {
      if (!versionLike(gone[k]) || !versionLike(come[k]) || !edited.removed.count(gone[k]) ||
          !edited.added.count(come[k]))
        return {};
      std::string pair = gone[k] + " → " + come[k];
      if (std::find(pairs.begin(), pairs.end(), pair) == pairs.end())
        pairs.push_back(pair);
    }
  }
  return pairs;
}

} // namespace rootline
