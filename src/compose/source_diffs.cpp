// Source lines and the diff between the versions, as the debugger's stages see them.
#include "compose/debug_stages.h"

#include "rootline/error.h"

#include <llvm/IR/Function.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <string_view>

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
  if (std::optional<unsigned> edited = editedMoveInFile(oldRel, oldLine))
    return std::make_pair(newRel, *edited);
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

namespace {

std::vector<std::string_view> tokensOf(const std::string &code) {
  std::vector<std::string_view> out;
  for (size_t start = 0; start < code.size();) {
    size_t end = code.find(' ', start);
    if (end == std::string::npos)
      end = code.size();
    if (end > start)
      out.emplace_back(code.data() + start, end - start);
    start = end + 1;
  }
  return out;
}

// One token replaced, inserted or deleted.
bool oneTokenApart(const std::vector<std::string_view> &a, const std::vector<std::string_view> &b) {
  if (a.size() == b.size()) {
    size_t differ = 0;
    for (size_t i = 0; i < a.size() && differ < 2; ++i)
      differ += a[i] != b[i];
    return differ == 1;
  }
  const auto &shorter = a.size() < b.size() ? a : b, &longer = a.size() < b.size() ? b : a;
  if (longer.size() != shorter.size() + 1)
    return false;
  size_t i = 0;
  while (i < shorter.size() && shorter[i] == longer[i])
    ++i;
  return std::equal(shorter.begin() + i, shorter.end(), longer.begin() + i + 1);
}

// Each line's enclosing function (1-based; "" outside any), by the C layout of these
// sources: a function's header line starts in the first column with a name and holds a
// `(` (the return type may be on the line above), and its body ends at a `}` in the
// first column.
std::vector<std::string> enclosingFunctions(const std::string &text) {
  std::vector<std::string> out(1);
  std::string current;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    if (!line.empty() && (std::isalpha(static_cast<unsigned char>(line[0])) || line[0] == '_')) {
      size_t paren = line.find('(');
      if (paren != std::string_view::npos && line.find(';') == std::string_view::npos) {
        size_t nameEnd = paren;
        while (nameEnd > 0 && line[nameEnd - 1] == ' ')
          --nameEnd;
        size_t nameStart = nameEnd;
        while (nameStart > 0 && (std::isalnum(static_cast<unsigned char>(line[nameStart - 1])) ||
                                 line[nameStart - 1] == '_'))
          --nameStart;
        current = std::string(line.substr(nameStart, nameEnd - nameStart));
      }
    }
    out.push_back(current);
    if (!line.empty() && line[0] == '}')
      current.clear();
  }
  return out;
}

} // namespace

const std::vector<std::string> &Diffs::functionsOf(const std::string &rel, bool inNew) {
  auto [it, fresh] = functions_.try_emplace({rel, inNew});
  if (fresh) {
    std::error_code ec;
    fs::path file = (inNew ? newRoot_ : oldRoot_) / rel;
    if (fs::is_regular_file(file, ec))
      it->second = enclosingFunctions(readFile(file));
  }
  return it->second;
}

std::optional<unsigned> Diffs::editedMoveInFile(const std::string &oldRel, unsigned oldLine) {
  auto [cached, fresh] = editedMoves_.try_emplace({oldRel, oldLine});
  if (!fresh)
    return cached->second;
  const SemanticDiff &sd = semantic(oldRel, false);
  std::vector<std::string_view> code = tokensOf(sd.renamedLineTokens[oldLine]);
  if (code.size() < kEditedMoveTokens)
    return std::nullopt;
  std::string newRel = counterpart(oldRel, false);
  std::optional<unsigned> found;
  const std::string *target = nullptr;
  for (const auto &[other, lines] : changedLinesByCode(newRel)) {
    if (!oneTokenApart(code, tokensOf(other)))
      continue;
    if (found || lines.size() != 1)
      return std::nullopt; // no one place it went
    found = lines.front();
    target = &other;
  }
  if (!found)
    return std::nullopt;
  // It stays in its function (moved with it): code that went into another function (a
  // helper the change extracted) is not where the old line's executions went.
  const std::vector<std::string> &oldFunctions = functionsOf(oldRel, false),
                                 &newFunctions = functionsOf(newRel, true);
  if (oldLine >= oldFunctions.size() || *found >= newFunctions.size() ||
      oldFunctions[oldLine].empty() || oldFunctions[oldLine] != newFunctions[*found])
    return std::nullopt;
  // No other changed old line is that new line, or one token from it.
  std::vector<std::string_view> to = tokensOf(*target);
  for (const auto &h : sd.changes.hunks)
    for (unsigned l = h.oldStart; l < h.oldStart + h.oldLines && l < sd.renamedLineTokens.size();
         ++l)
      if (l != oldLine && !sd.renamedLineTokens[l].empty() &&
          (sd.renamedLineTokens[l] == *target ||
           oneTokenApart(tokensOf(sd.renamedLineTokens[l]), to)))
        return std::nullopt;
  cached = editedMoves_.find({oldRel, oldLine});
  cached->second = found;
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
