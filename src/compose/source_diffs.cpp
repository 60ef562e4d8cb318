// Source lines and the diff between the versions, as the debugger's stages see them.
#include "compose/debug_stages.h"

#include "rootline/error.h"

#include <llvm/IR/Function.h>

#include <algorithm>
#include <fstream>
#include <set>

namespace rootline::debug {

const SemanticDiff &Diffs::semantic(const std::string &rel, bool inNew) {
  std::string key = (inNew ? "n:" : "o:") + rel;
  auto it = cache_.find(key);
  if (it != cache_.end())
    return it->second;
  fs::path oldFile = oldRoot_ / (inNew ? counterpart(rel, true) : rel);
  fs::path newFile = newRoot_ / (inNew ? rel : counterpart(rel, false));
  std::string a = fs::is_regular_file(oldFile) ? readFile(oldFile) : "";
  std::string b = fs::is_regular_file(newFile) ? readFile(newFile) : "";
  return cache_[key] = diffSemantically(a, b, wholeChangeRenames());
}

const std::map<std::string, std::string> &Diffs::wholeChangeRenames() {
  if (renames_)
    return *renames_;
  renames_.emplace();
  if (!git_)
    return *renames_; // two single files: the file's own renames are all there are
  std::vector<std::pair<std::string, std::string>> texts;
  for (const auto &f : git_->files) {
    const std::string &path = f.newPath.empty() ? f.oldPath : f.newPath;
    std::string ext = fs::path(path).extension().string();
    if (ext != ".c" && ext != ".h")
      continue;
    fs::path oldFile = oldRoot_ / f.oldPath, newFile = newRoot_ / f.newPath;
    texts.emplace_back(!f.oldPath.empty() && fs::is_regular_file(oldFile) ? readFile(oldFile) : "",
                       !f.newPath.empty() && fs::is_regular_file(newFile) ? readFile(newFile) : "");
  }
  *renames_ = programRenames(texts);
  return *renames_;
}

std::vector<NeutralEdit> Diffs::neutralEdits() {
  std::vector<NeutralEdit> out;
  std::set<std::string> files;
  for (const auto &[key, d] : cache_) {
    bool inNew = key[0] == 'n';
    std::string rel = key.substr(2);
    std::string newRel = inNew ? rel : counterpart(rel, false);
    if (!files.insert(newRel).second)
      continue;
    // Raw hunks no line of which is a change; then each rename, once.
    for (const auto &h : d.raw.hunks) {
      bool any = false;
      std::set<std::string> whys;
      for (unsigned l = h.oldStart; l < h.oldStart + h.oldLines; ++l) {
        any = any || d.changes.changedInOld(l);
        whys.insert(d.neutralWhy(false, l));
      }
      for (unsigned l = h.newStart; l < h.newStart + h.newLines; ++l) {
        any = any || d.changes.changedInNew(l);
        whys.insert(d.neutralWhy(true, l));
      }
      whys.erase("");
      if (any)
        continue;
      std::string why;
      for (const auto &w : whys)
        why += (why.empty() ? "" : "; ") + w;
      out.push_back({newRel, h.oldStart, h.oldLines, h.newStart, h.newLines,
                     why.empty() ? "whitespace or comments only" : why});
    }
    for (const auto &r : d.renames)
      out.push_back({newRel, r.oldFirst, r.oldLast == ~0u ? 0 : r.oldLast - r.oldFirst + 1, 0, 0,
                     "rename of `" + r.from + "` to `" + r.to + "`" +
                         (r.oldLast == ~0u ? " throughout the file" : "")});
  }
  return out;
}

std::vector<std::string> Diffs::changedSources(bool inNew) const {
  std::vector<std::string> out;
  if (git_)
    for (const auto &f : git_->files) {
      const std::string &path = inNew ? f.newPath : f.oldPath;
      std::string ext = fs::path(path).extension().string();
      if (!path.empty() && (ext == ".c" || ext == ".h"))
        out.push_back(path);
    }
  return out;
}

std::optional<std::pair<std::string, unsigned>> Diffs::movedTo(const std::string &oldRel,
                                                               unsigned oldLine) {
  const SemanticDiff &sd = semantic(oldRel, false);
  if (oldLine >= sd.renamedLineTokens.size() || sd.renamedLineTokens[oldLine].empty())
    return std::nullopt;
  const std::string &code = sd.renamedLineTokens[oldLine];
  std::string newRel = counterpart(oldRel, false);
  const auto &inFile = changedLinesByCode(newRel);
  if (auto it = inFile.find(code); it != inFile.end())
    return it->second.size() == 1 ? std::optional(std::make_pair(newRel, it->second.front()))
                                  : std::nullopt;
  // Across files only code of some length: `return 0;` moved is no one place.
  if (std::count(code.begin(), code.end(), ' ') + 1 < kMovedTokens)
    return std::nullopt;
  std::optional<std::pair<std::string, unsigned>> found;
  for (const std::string &other : changedSources(true)) {
    if (other == newRel)
      continue;
    const auto &lines = changedLinesByCode(other);
    auto it = lines.find(code);
    if (it == lines.end())
      continue;
    if (found || it->second.size() != 1)
      return std::nullopt; // on several lines: no one place it went
    found = std::make_pair(other, it->second.front());
  }
  return found;
}

const std::map<std::string, std::vector<unsigned>> &
Diffs::changedLinesByCode(const std::string &newRel) {
  auto [it, fresh] = byCode_.try_emplace(newRel);
  if (fresh) {
    const SemanticDiff &sd = semantic(newRel, true);
    for (const auto &h : sd.changes.hunks)
      for (unsigned l = h.newStart; l < h.newStart + h.newLines && l < sd.newLineTokens.size(); ++l)
        if (!sd.newLineTokens[l].empty())
          it->second[sd.newLineTokens[l]].push_back(l);
  }
  return it->second;
}

std::string Diffs::counterpart(const std::string &rel, bool inNew) const {
  if (git_)
    for (const auto &f : git_->files)
      if ((inNew ? f.newPath : f.oldPath) == rel)
        return inNew ? f.oldPath : f.newPath;
  return rel;
}

std::string sourceLine(const std::string &path, unsigned line) {
  std::ifstream in(path);
  std::string l;
  for (unsigned i = 1; std::getline(in, l); ++i)
    if (i == line) {
      while (!l.empty() && (l.front() == ' ' || l.front() == '\t'))
        l.erase(l.begin());
      return l;
    }
  return "";
}

DebugCandidate candidateAt(const Version &v, const llvm::Instruction *inst, const std::string &kind,
                           Diffs &diffs) {
  DebugCandidate c;
  SourceLocation loc = ModuleIndex::locationOf(inst);
  c.version = v.name;
  c.kind = kind;
  c.file = relativeTo(loc.path(), v.root);
  c.line = loc.line;
  c.function = inst->getFunction()->getName().str();
  c.source = sourceLine(loc.path(), loc.line);
  bool inNew = v.name == "new";
  const SemanticDiff &sd = diffs.semantic(c.file, inNew);
  const TextDiff &d = sd.changes;
  c.inChangedRegion = inNew ? d.changedInNew(c.line) : d.changedInOld(c.line);
  c.neutral = sd.neutralWhy(inNew, c.line);
  c.otherLine = inNew ? d.oldLineOf(c.line) : d.newLineOf(c.line);
  return c;
}

void presentOnNewSide(DebugCandidate &c, const fs::path &newRoot, Diffs &diffs) {
  std::string newFile = diffs.counterpart(c.file, false);
  if (c.version != "old" || !c.inChangedRegion || !fs::exists(newRoot / newFile))
    return;
  // A line the change moved (the same code on one changed new line) is shown where it
  // went; any other is shown as the new line of its hunk that shares most of its code.
  std::optional<std::pair<std::string, unsigned>> moved = diffs.movedTo(c.file, c.line);
  std::optional<unsigned> replacement =
      moved ? std::nullopt : diffs.semantic(c.file, false).replacementOf(c.line);
  if (!moved && !replacement)
    return;
  c.reasons.push_back("found at the old version's line " + std::to_string(c.line) + " (`" +
                      c.source + "`), which the change " +
                      (moved ? "moved to this line" : "replaced with this line"));
  c.otherLine = c.line;
  c.version = "new";
  c.file = moved ? moved->first : newFile;
  c.line = moved ? moved->second : *replacement;
  c.source = sourceLine((newRoot / c.file).string(), c.line);
  c.kind = "changed code";
}

} // namespace rootline::debug
