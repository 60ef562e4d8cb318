#include "rootline/text_diff.h"

#include "vcs/git_handle.h"

#include <algorithm>

namespace rootline {

namespace {

int addTextHunk(const git_diff_delta *, const git_diff_hunk *hunk, void *payload) {
  auto *out = static_cast<std::vector<DiffHunk> *>(payload);
  out->push_back({static_cast<unsigned>(hunk->old_start), static_cast<unsigned>(hunk->old_lines),
                  static_cast<unsigned>(hunk->new_start), static_cast<unsigned>(hunk->new_lines)});
  return 0;
}

bool inside(unsigned line, unsigned start, unsigned count) {
  return count && line >= start && line < start + count;
}

} // namespace

bool TextDiff::changedInOld(unsigned line) const {
  for (const auto &h : hunks)
    if (!h.neutral && inside(line, h.oldStart, h.oldLines))
      return true;
  return false;
}

bool TextDiff::changedInNew(unsigned line) const {
  for (const auto &h : hunks)
    if (!h.neutral && inside(line, h.newStart, h.newLines))
      return true;
  return false;
}

std::optional<unsigned> TextDiff::oldLineOf(unsigned newLine) const {
  if (changedInNew(newLine))
    return std::nullopt;
  long shift = 0;
  for (const auto &h : hunks) {
    unsigned newEnd = h.newLines ? h.newStart + h.newLines : h.newStart + 1;
    if (newLine < newEnd)
      break;
    shift += static_cast<long>(h.oldLines) - static_cast<long>(h.newLines);
  }
  return static_cast<unsigned>(static_cast<long>(newLine) + shift);
}

std::optional<unsigned> TextDiff::newLineOf(unsigned oldLine) const {
  if (changedInOld(oldLine))
    return std::nullopt;
  long shift = 0;
  for (const auto &h : hunks) {
    unsigned oldEnd = h.oldLines ? h.oldStart + h.oldLines : h.oldStart + 1;
    if (oldLine < oldEnd)
      break;
    shift += static_cast<long>(h.newLines) - static_cast<long>(h.oldLines);
  }
  return static_cast<unsigned>(static_cast<long>(oldLine) + shift);
}

std::optional<unsigned> TextDiff::replacementOf(unsigned oldLine) const {
  for (const auto &h : hunks)
    if (inside(oldLine, h.oldStart, h.oldLines))
      return h.newLines ? std::optional<unsigned>(h.newStart +
                                                  std::min(oldLine - h.oldStart, h.newLines - 1))
                        : std::nullopt;
  return std::nullopt;
}

std::vector<std::string> splitLinesKeepingEnds(const std::string &text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    out.push_back(text.substr(start, end - start));
    start = end;
  }
  return out;
}

TextDiff diffTexts(const std::string &oldText, const std::string &newText) {
  vcs::ensureLibgit2();
  TextDiff d;
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.context_lines = 0;
  if (git_diff_buffers(oldText.data(), oldText.size(), nullptr, newText.data(), newText.size(),
                       nullptr, &opts, nullptr, nullptr, addTextHunk, nullptr, &d.hunks) != 0) {
    throw Error("cannot diff the two versions: " + vcs::lastGitError(), ExitInternal);
  }
  return d;
}

} // namespace rootline
